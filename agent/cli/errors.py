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
from agent.hearing.goal import GoalError
from agent.hearing.replies import ReplyError
from agent.llm_config import LLMConfigError
from agent.loop.runner import RunError
from agent.loop.targets import TargetSpecError
from agent.policy.loader import PolicyLoadError
from agent.store.records import StateDirError
from agent.transcript.writer import TranscriptError
from tools.lab.scenario import ScenarioError
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
