"""The errors an operator can fix, grouped so the CLI prints them as one line (no traceback).

    operator must fix the input       PolicyLoadError, ScenarioError, TargetSpecError, GoalError,
                                      StateDirError, ReplyError, RunError, TranscriptError
    the target cannot be used         TargetError (unreachable, auth, host key)
    the decider cannot be configured  DeciderError (no model configured, bad profile)
Everything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from agent.config import LoopConfigError
from agent.deciders.base import DeciderError
from agent.goal import GoalError
from agent.llm_config import LLMConfigError
from agent.policy import PolicyLoadError
from agent.replies import ReplyError
from agent.runner import RunError
from agent.store import StateDirError
from agent.targets import TargetSpecError
from agent.transcript import TranscriptError
from tools.lab import ScenarioError
from tools.target import TargetError

USER_ERRORS: tuple[type[Exception], ...] = (
    PolicyLoadError,
    ScenarioError,
    TargetSpecError,
    GoalError,
    StateDirError,
    ReplyError,
    RunError,
    TranscriptError,
    TargetError,
    DeciderError,
    LLMConfigError,
    LoopConfigError,
)
