"""Thresholds of the loop: when to stop and ask. Defaults suit a long deployment session."""

from __future__ import annotations

from pydantic import BaseModel, Field


class LoopConfig(BaseModel):
    max_steps: int = Field(default=200, description="budget checkpoint: ask after this many actions")
    max_wall_s: float = Field(default=8 * 3600, description="budget checkpoint on the target's clock")
    confidence_threshold: float = Field(default=0.5, description="ask when the decider is less sure")
    same_failure_limit: int = Field(default=3, description="ask after this many launches fail the same way")
    no_gain_steps: int = Field(default=25, description="ask when the goal metric has not improved for this long")
    denial_limit: int = Field(default=3, description="ask after this many policy denials in a row")
    continue_grant_steps: int = Field(
        default=10, description="a plain 'continue' after a stall lets the agent work this many steps unasked"
    )
    question_ttl_s: float = Field(default=24 * 3600, description="an unanswered question expires into deny")
