"""#27: with a model, words the grammar missed are read by it into the same typed instructions
(structured output, validated), checked by the grammar and against what the operator wrote, and
asked back before anything acts. Through the loopback OpenAI-compatible server; a wrong or harmful
reading is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.cli.exitcodes import WAITING
from agent.hearing.heed import ask_back
from agent.hearing.instructions import reads_whole
from agent.hearing.model_reading import ModelReader
from agent.state import OperatorRules
from agent.store.sqlite import Store
from tests.fakes.openai_server import FakeOpenAIServer, fast_settings
from tests.hearing.test_replies_heard import _after_reply, _events, _launches, _wait_question
from tests.opsagent_process import CliRun


def _reading(*instructions: dict[str, Any]) -> dict[str, Any]:
    return {"content": json.dumps({"instructions": list(instructions), "not_understood": []})}


@pytest.mark.parametrize(
    ("text", "model_says", "refused"),
    [
        # harmful: the opposite of what was said
        ("don't put anything on 0, the desktop is there", {"kind": "use_gpus", "gpus": [0]}, "you said not to"),
        # wrong: a stop nobody asked for
        ("it looks slow to me", {"kind": "stop_server"}, "which you did not say"),
        # invented: a number the operator never wrote
        ("move it off the default port", {"kind": "use_port", "port": 30005}, "a number you did not write"),
        # outside the grammar: a flag that does not exist
        ("make it sing", {"kind": "use_flag", "name": "--sing"}, "no instruction I know"),
    ],
)
def test_a_wrong_or_harmful_reading_is_refused(text: str, model_says: dict[str, Any], refused: str) -> None:
    with FakeOpenAIServer([_reading(model_says)]) as server:
        taken, why = ModelReader(fast_settings(server))(text, reads_whole)
    assert taken == [] and refused in "; ".join(why)


def test_a_reply_that_is_not_the_structured_reading_takes_nothing() -> None:
    with FakeOpenAIServer([{"content": "Sure! I'll avoid GPU 0."}]) as server:
        taken, why = ModelReader(fast_settings(server))("the desktop is on 0, keep off it", reads_whole)
    assert taken == [] and why


def test_a_checked_reading_is_asked_back_never_applied() -> None:
    with FakeOpenAIServer([_reading({"kind": "avoid_gpus", "gpus": [0]})]) as server:
        reader = ModelReader(fast_settings(server))
        effect = ask_back(OperatorRules(), "the desktop is on 0, keep the server away from it", reader)
        sent = server.requests[0].text()
    assert "the desktop is on 0" in sent
    assert effect is not None and effect.reask and effect.confirm == "do not use GPUs 0"
    assert effect.readback is not None and effect.readback.startswith("I read: leave GPU 0 out of every launch.")
    assert effect.rules.avoid_gpus == []  # nothing in force until the operator says yes


def test_a_lab_run_reads_with_the_model_and_asks_back(cli: CliRun, workspace: Path) -> None:
    # no setting: with a model configured, it reads what the grammar missed by default
    with FakeOpenAIServer([_reading({"kind": "avoid_gpus", "gpus": [0]})]) as server:
        env = {"OPSAGENT_MODEL": server.model, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "test"}
        args = ("--target", "lab:healthy-host", "--decider", "runbook", "--detach", "--run-id", "mr")
        assert cli("run", *args, extra_env=env).returncode == WAITING
        store = Store(workspace / "state")
        first = _wait_question(store, "mr", None)
        said = cli("reply", "mr", "the desktop is on 0, keep the server away from it", extra_env=env)
        assert said.returncode == 0, said.stderr
        asked = _wait_question(store, "mr", first.id)
        assert "I read: leave GPU 0 out of every launch." in asked.question
        assert not [k for k, _ in _after_reply(_events(workspace, "mr"), 0) if k == "action_started"]
        assert cli("reply", "mr", "yes", extra_env=env).returncode == 0
        _wait_question(store, "mr", asked.id)
        launched = _launches(_after_reply(_events(workspace, "mr"), 1))
        assert launched and all(0 not in a["gpus"] for a in launched)
        assert cli("reply", "mr", "stop", extra_env=env).returncode == 0
