"""The state's models come back from a checkpoint as themselves, wherever their class is defined.

The policy gate's Verdict lives in agent/verdict.py (so `opsagent policy check` starts without the
run's state models); LangGraph's serializer refuses a class whose module is not allow-listed and
hands back a plain dict, which the loop would then trip over on resume."""

from __future__ import annotations

from pathlib import Path

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import empty_checkpoint

from agent.loop.runner import checkpointer
from agent.state import Action, Verdict
from agent.store.sqlite import Store


def test_a_verdict_and_an_action_survive_a_checkpoint_in_sqlite(workspace: Path) -> None:
    saver = checkpointer(Store(workspace / "state"))
    checkpoint = empty_checkpoint()
    verdict = Verdict(decision="ask", rules=["gpu-reset"], reason="resets a GPU")
    action = Action(tool="run_command", args={"command": "nvidia-smi -r -i 0"})
    checkpoint["channel_values"] = {"verdict": verdict, "proposal_action": action}
    config: RunnableConfig = {"configurable": {"thread_id": "t1", "checkpoint_ns": ""}}
    stored = saver.put(config, checkpoint, {"source": "loop", "step": 1, "parents": {}}, {})

    back = saver.get_tuple(stored)
    assert back is not None
    values = back.checkpoint["channel_values"]
    assert isinstance(values["verdict"], Verdict) and values["verdict"] == verdict
    assert isinstance(values["proposal_action"], Action) and values["proposal_action"] == action
