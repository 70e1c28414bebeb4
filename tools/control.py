"""Control tools: handled by the agent loop itself, never run on a target."""

from __future__ import annotations

from pydantic import BaseModel, Field

from tools.registry import Tool, control_tool


class AskOperatorArgs(BaseModel):
    question: str = Field(description="What you need the operator to decide, in one or two sentences.")
    reason: str = Field(default="", description="Why you cannot decide this yourself.")


class FinishArgs(BaseModel):
    goal_met: bool = Field(description="True when the measured numbers meet the goal.")
    summary: str = Field(description="What was achieved and how, for the final report.")


ask_operator: Tool[AskOperatorArgs] = control_tool(
    "ask_operator",
    AskOperatorArgs,
    "Stop and ask the operator: use when you are unsure, out of ideas, or need a decision about "
    "resources or risk. The run waits for the answer.",
)

finish: Tool[FinishArgs] = control_tool(
    "finish",
    FinishArgs,
    "End the run: the goal is met (with the measurements that show it) or cannot be met here.",
)
