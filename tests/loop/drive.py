"""Drive a run on the local target with a scripted decider, as its own process (for crash tests).

python drive.py start|resume --state DIR --transcripts DIR --script FILE --run-id ID
                [--approver none|inbox|scripted|list:approve,continue] [--ttl S] [--echo]

--echo shows the run as `opsagent run` does (event lines, the status line or heartbeat of long steps).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from agent.config import LoopConfig
from agent.deciders.scripted import ScriptedDecider
from agent.hearing.approvers import Approver, InboxApprover, LeaveInInbox, ListApprover, ScriptedOperator
from agent.loop.runner import resume_run, start_run
from agent.state import Goal
from agent.store.records import RunSpec
from agent.store.sqlite import Store
from tools.local import LocalTarget

POLICY = Path(__file__).with_name("policy.yaml")


def approver(kind: str, store: Store, run_id: str) -> Approver:
    if kind == "inbox":
        return InboxApprover(store, run_id, poll_s=0.1)
    if kind == "scripted":
        return ScriptedOperator()
    if kind.startswith("list:"):
        return ListApprover(kind[5:].split(","))
    return LeaveInInbox()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["start", "resume"])
    parser.add_argument("--state", required=True)
    parser.add_argument("--transcripts", required=True)
    parser.add_argument("--script", required=True)
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--approver", default="none")
    parser.add_argument("--ttl", type=float, default=3600.0)
    parser.add_argument("--echo", action="store_true")
    opts = parser.parse_args()
    store = Store(Path(opts.state))
    decider = ScriptedDecider.from_file(Path(opts.script))
    target = LocalTarget(opts.work_dir)
    config = LoopConfig(question_ttl_s=opts.ttl, max_steps=50)
    factory = lambda rid: approver(opts.approver, store, rid)  # noqa: E731
    echo = Console() if opts.echo else None
    if opts.mode == "start":
        spec = RunSpec(
            run_id=opts.run_id,
            goal=Goal(text="loop test").model_dump(mode="json"),
            target="local",
            decider="scripted",
            policies=[str(POLICY)],
            transcript=str(Path(opts.transcripts) / f"{opts.run_id}.jsonl"),
        )
        outcome = start_run(spec, store, factory, decider=decider, target=target, config=config, echo=echo)
    else:
        outcome = resume_run(opts.run_id, store, factory, decider=decider, target=target, echo=echo)
    print(f"STATUS {outcome.status}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
