"""Exit codes of `run`, `resume` and `demo` (README, "Exit codes"): 0 only for a met, signed-off goal.

0  the goal was met and the operator signed off
1  the run stopped, or finished without meeting the goal
2  bad input: the command line, a file or a setting was wrong (nothing ran)
3  the run waits for a reply (detached, `--approver none`, or input ended at the prompt)
4  internal error: a bug in opsagent (the traceback is saved to a file named on stderr)
130  interrupted (Ctrl-C): one line on stderr says what was running, what still runs and how to resume
"""

from __future__ import annotations

from typing import Any

GOAL_MET = 0
NOT_MET = 1
BAD_INPUT = 2
WAITING = 3
INTERNAL_ERROR = 4
INTERRUPTED = 130  # 128 + SIGINT, as shells report a command stopped by Ctrl-C


def for_outcome(status: str, goal_met: bool, signed_off: bool) -> int:
    if status == "waiting":
        return WAITING
    if status == "finished" and goal_met and signed_off:
        return GOAL_MET
    return NOT_MET


def signed_off(state: dict[str, Any] | Any) -> bool:
    """The last reply, to the sign-off question, approved (or continued) a finished run."""
    replies = list(state.get("replies") or [])
    return bool(replies) and getattr(replies[-1], "kind", None) in ("approve", "continue")
