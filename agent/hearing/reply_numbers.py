"""The numbers said with a `continue`: a step count is kept ("keep at it, 20 more steps max"), any
other number that bounds the run ("3 more tries") refuses the reply, and the operator's own time
("I'm in a meeting for 40 min") is no bound at all. A number is never dropped."""

from __future__ import annotations

import re

# "20 more steps max", "at most 20 steps", "for 20 steps": a step count said in words
_STEP_COUNT = re.compile(
    r"(?:(?:max(?:imum)?|at\s+most|up\s+to|another|for|no\s+more\s+than)\s+)?(\d+)\s+(?:more\s+)?steps?"
    r"(?:\s+(?:max(?:imum)?|at\s+most|tops))?",
    re.I,
)
# a number that bounds the run's autonomy ("3 more tries", "max 5 launches"): kept or refused, never dropped
_COUNTED = re.compile(
    r"\b\d+\s+(?:more\b|tries|attempts|iterations|launches|runs|times|rounds|mins?\b|minutes|hours?)"
    r"|\b(?:max(?:imum)?|at\s+most|up\s+to|no\s+more\s+than)\s+\d+\b",
    re.I,
)
# "max 2 more launches then stop": the stop comes after a budget of tries, never now
BUDGET_THEN_STOP = re.compile(
    r"\b\d+\s+(?:more\s+)?(?:launch(?:es)?|tries|attempts|runs|iterations|rounds|steps|goes)\b[^.;]*?\bthen\s+stop\b",
    re.I,
)
# what the operator will be doing, and for how long: about them, never a bound on the run
_MY_TIME = re.compile(
    r"\b(?:i'?m|i\s+am|i'?ll\s+be|i\s+will\s+be|i'?ve\s+got|i\s+have)\s+(?:in\s+|on\s+|at\s+|away\s+|out\s+|afk\s+|gone\s+|"
    r"back\s+in\s+|busy\s+)?[^,.;!?]*?~?\d+\s*(?:mins?|minutes|hours?|hrs?|h)\b[^,.;!?]*",
    re.I,
)

_HOW_OFTEN = re.compile(r"\b(?:every|each)\s+(?:\d+\s*)?(?:secs?|seconds|mins?|minutes|hours?|hrs?|h)\b", re.I)


def step_count(raw: str, *, counts_steps: bool) -> tuple[int | None, str | None]:
    """(the steps to go on for, or None; why the reply is refused, or None)."""
    rest = raw
    steps: int | None = None
    if counts_steps and (m := _STEP_COUNT.search(raw)) is not None and int(m.group(1)) > 0:
        steps = int(m.group(1))
        rest = raw[: m.start()] + raw[m.end() :]
    rest = _MY_TIME.sub("", rest)  # "I'm in a meeting for ~40 min": the operator's time, no bound on the run
    rest = _HOW_OFTEN.sub("", rest)  # "dont ask me every 5 min": how often I was asked, no bound either
    if _COUNTED.search(rest):
        return None, (
            f"I read 'continue' in {raw!r} but not its number: write e.g. 'continue --steps 20', "
            "or the number as an instruction ('use port 30001')"
        )
    return steps, None
