"""The whole loop over SSH: a real sshd on 127.0.0.1, harmless commands, the transcript."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.deciders.scripted import ScriptedDecider
from agent.hearing.approvers import ListApprover
from agent.loop.runner import start_run
from agent.state import Action, Decision, Goal
from agent.store.records import RunSpec
from agent.store.sqlite import Store
from agent.transcript.reader import read_events
from tests.sshd_fixture import SKIP_REASON, SSHD_PATH, SshServer
from tools.ssh.target import SSHTarget

pytestmark = pytest.mark.skipif(not SSHD_PATH.exists(), reason=SKIP_REASON)
POLICY = Path(__file__).with_name("policy.yaml")


def test_a_run_over_ssh_records_the_new_host_key_and_acts_on_the_host(tmp_path: Path) -> None:
    with SshServer.start(tmp_path / "sshd") as server:
        unknown = tmp_path / "empty_known_hosts"
        unknown.write_text("")
        options = server.options(known_hosts=unknown, accept_new_host_key=True, work_dir=str(tmp_path / "work"))
        target = SSHTarget.connect(server.url, options)
        marker = tmp_path / "work" / "marker"
        decider = ScriptedDecider(
            [
                Decision(action=Action(tool="run_command", args={"command": f"mkdir -p {marker.parent}"})),
                Decision(action=Action(tool="run_command", args={"command": f"echo over-ssh >> {marker}"})),
                Decision(kind="finish", goal_met=True, rationale="done"),
            ]
        )
        spec = RunSpec(
            run_id="ssh-run",
            goal=Goal(text="ssh loop test").model_dump(mode="json"),
            target=server.url,
            decider="scripted",
            policies=[str(POLICY)],
            transcript=str(tmp_path / "transcripts" / "ssh-run.jsonl"),
        )
        outcome = start_run(
            spec,
            Store(tmp_path / "state"),
            lambda _r: ListApprover(["approve", "approve"]),
            decider=decider,
            target=target,
        )
        target.close()
    assert outcome.status == "finished"
    assert marker.read_text() == "over-ssh\n"
    events = list(read_events(outcome.transcript))
    assert events[0].payload["target"].startswith("ssh://")
    key_events = [e.payload for e in events if e.type == "observation" and e.payload.get("tool") == "ssh_host_key"]
    assert key_events and key_events[0]["data"]["fingerprint"].startswith("SHA256:")
    assert "127.0.0.1" in json.dumps(key_events[0])
