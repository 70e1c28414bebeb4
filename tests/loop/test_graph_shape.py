"""The graph's shape is pinned: a change to nodes or edges must change this snapshot on purpose."""

from __future__ import annotations

from pathlib import Path

from agent.config import LoopConfig
from agent.deciders.scripted import ScriptedDecider
from agent.loop.graph import Runtime, build_graph
from agent.policy.policyset import load_policy_set
from agent.store.sqlite import Store
from tools.catalog import default_registry
from tools.local import LocalTarget

SNAPSHOT = Path(__file__).with_name("graph.mmd")


class _NoTranscript:
    path = Path("/nonexistent/shape.jsonl")

    def emit(self, type: str, payload: dict[str, object]) -> None:
        raise AssertionError("drawing the graph runs no node")


def test_graph_shape_matches_snapshot(tmp_path: Path) -> None:
    runtime = Runtime(
        run_id="shape",
        target=LocalTarget(str(tmp_path / "work")),
        decider=ScriptedDecider([]),
        policy=load_policy_set([]),
        registry=default_registry(),
        transcript=_NoTranscript(),
        store=Store(tmp_path / "state"),
        config=LoopConfig(),
    )
    drawing = build_graph(runtime).compile().get_graph().draw_mermaid()
    assert drawing == SNAPSHOT.read_text()
    for edge in (
        "observe -.-> decide",
        "decide -.-> gate",
        "gate -.-> act",
        "gate -.-> continue_or_ask",
        "continue_or_ask -.-> gate",
        "act --> observe",
        "finish -.-> __end__",
    ):
        assert edge in drawing
