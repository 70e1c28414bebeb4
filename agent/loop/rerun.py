"""`opsagent rerun`: re-execute a transcript's recorded decisions and replies against the lab.

Separate from replay, which only reads. Rerun drives a new run (its own id and transcript) on a
lab scenario with the `replay` decider; the operator's recorded replies answer the new questions
in order. A recorded approval is re-applied only to the very same action: approvals stay bound
to what was asked.
"""

from __future__ import annotations

from pathlib import Path

from agent.loop.lab_facts import open_lab, write_facts_overlay
from agent.loop.runner import RunError, RunOutcome, new_run_id, start_run
from agent.state import Question, Reply
from agent.store.open import open_store
from agent.store.records import RunSpec, resolve_transcripts_dir
from agent.transcript.reader import read_events, resolved_payload


class RecordedReplies:
    name = "recorded-replies"

    def __init__(self, pairs: list[tuple[dict[str, object], Reply]]) -> None:
        self._pairs = list(pairs)

    def answer(self, question: Question) -> Reply | None:
        if not self._pairs:
            return None
        asked, reply = self._pairs.pop(0)
        update: dict[str, object] = {"question_id": question.id, "at": question.asked_at}
        if reply.kind == "approve":
            same = question.action is not None and asked.get("action") == question.action.model_dump(mode="json")
            update["digest"] = question.digest if same else None
        return reply.model_copy(update=update)


def rerun_transcript(path: Path, target_spec: str) -> str:
    if not target_spec.startswith("lab:"):
        raise RunError("rerun re-executes only against the lab: pass --target lab:NAME")
    events = list(read_events(path))
    started = next((e for e in events if e.type == "run_started"), None)
    if started is None:
        raise RunError(f"{path} has no run_started event; it cannot be rerun")
    goal = resolved_payload(path, started)["goal"]
    pairs: list[tuple[dict[str, object], Reply]] = []
    last_question: dict[str, object] = {}
    for event in events:
        if event.type == "question":
            last_question = dict(resolved_payload(path, event))
        elif event.type == "reply":
            pairs.append((last_question, Reply.model_validate(resolved_payload(path, event))))
    store = open_store(None)
    run_id = new_run_id()
    spec = RunSpec(
        run_id=run_id,
        goal=goal if isinstance(goal, dict) else {"text": str(goal)},
        target=target_spec,
        decider="replay",
        replay_from=str(path),
        policies=[str(write_facts_overlay(open_lab(target_spec), store.state_dir))],
        transcript=str((resolve_transcripts_dir(None) / f"{run_id}.jsonl").resolve()),
    )
    outcome: RunOutcome = start_run(spec, store, lambda _rid: RecordedReplies(pairs))
    met = "goal met" if outcome.goal_met else "goal not met"
    return f"rerun {run_id} of {path.name} on {target_spec}: {outcome.status}, {met}; transcript: {outcome.transcript}"
