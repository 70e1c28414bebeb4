"""A platform engineer's structured notes as the grammar's words, before a reply or an instruction is read:
a leading "=>" is a bullet, "Step 1:" and "TODO:" are headings, "quantization => fp8" names a setting's value,
and "disable radix cache => no prefix reuse here" is an order then its reason. "NOTE:" lines are left as
they are: notes for people, which the grammar reads as remarks (so the rest is asked back)."""

from __future__ import annotations

import re

from agent.hearing import word_table
from agent.hearing.run_on import said_as_an_instruction

# the settings a note names before "=>" ("layout => tp 4 x dp 2", "trust remote code => on")
_SETTING = (
    r"layout|model|quantization|quant|port|gpus?|tp|dp|mem(?:ory)?\s+frac\w*|context(?:\s+length)?|ctx|"
    r"kv(?:\s+cache)?(?:\s+dtype)?|attention\s+backend|schedule\s+policy|chunked\s+prefill(?:\s+size)?|"
    r"max\s+running\s+req\w*|trust\s+remote\s+code|cuda\s+graphs?|radix(?:\s+cache)?|torch\s+compile"
)
_FORMS = word_table.compiled(
    [
        (r"^[ \t]*=>[ \t]*", ""),  # "=> bench again"
        (r"^[ \t]*step[ \t]*\d+[ \t]*:[ \t]*", ""),  # "Step 1: go." (never "Step 3.", a step picked)
        (r"^[ \t]*todo(?:[ \t]*\([^)\n]*\))?[ \t]*:[ \t]*", ""),  # "TODO(agent): ..."
        (rf"^[ \t]*({_SETTING})[ \t]*=>[ \t]*(on|off)[ \t]*$", r"\1 \2"),
        (rf"^[ \t]*({_SETTING})[ \t]*=>[ \t]*", r"\1: "),  # "quantization => fp8"
    ],
    flags=re.I | re.M,
)
_BECAUSE = re.compile(r"^(?P<order>[^\n]+?)[ \t]*=>[ \t]*(?P<why>[^\n]+)$", re.M)


def plain(text: str) -> str:
    """`text` with a structured note's marks said as the grammar's words; the rest as it was."""
    text = word_table.rewritten(text, _FORMS)
    # "disable radix cache => zero prefix reuse": the order, then why (never "tp 4 => tp 8", a change)
    return _BECAUSE.sub(
        lambda m: f"{m.group('order')}. {m.group('why')}" if said_as_an_instruction(m.group("order")) else m.group(0),
        text,
    )
