"""A careful writer's units and names in full, said in the grammar's words before it reads them: a memory
fraction as a percentage ("the static memory fraction to 85 percent", "mem 85%"), sizes in tokens ("32k
tokens"), a scope every rule has anyway ("from the next launch onward"), a flag's name spelt out ("the
maximum number of running requests") and a scheduling policy's ("first-come-first-served")."""

from __future__ import annotations

from agent.hearing import word_table

_UNITS = word_table.compiled(
    [
        # "mem 85%", "80 pct mem", "the static memory fraction to 85 percent": the fraction said as a percentage
        (
            r"\b(?:static\s+)?mem(?:ory)?(?:\s+frac(?:tion)?)?\s+(to\s+)?(\d{2})\s*(?:%|pct|percent)|"
            r"\b(\d{2})\s*(?:%|pct|percent)\s+mem(?:ory)?(?:\s+frac(?:tion)?)?\b",
            lambda m: f"mem fraction {m.group(1) or ''}{int(m.group(2) or m.group(3)) / 100:g}",
        ),
        (r"(?<=\d|k)\s+tokens\b", ""),  # "32k tokens", "8192 tokens": the unit after a size
        # "from the next launch onward", "for all subsequent launches": as every rule holds
        (
            r"[\s,]*\b(?:from\s+the\s+next\s+launch\s+on(?:wards?)?|for\s+(?:all\s+)?(?:subsequent|future|later)\s+"
            r"launches)\b",
            "",
        ),
        (r"\bthe\s+maximum\s+number\s+of\s+running\s+requests\b", "max running requests"),
        (r"\bfirst[-\s]come[-\s]first[-\s]served\b", "fcfs"),
        (r"\blongest[-\s]prefix[-\s]match\b", "lpm"),
    ]
)


def plain(text: str) -> str:
    """`text` with its units and names in full put as the grammar reads them; the rest as it was."""
    return word_table.rewritten(text, _UNITS)
