"""A policy's own examples, judged the way the agent would judge them (`opsagent policy test`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.policy.facts import merge_facts
from agent.policy.gate import GateContext
from agent.policy.model import Example, HostFacts
from agent.policy.policyset import PolicySet

if TYPE_CHECKING:
    from agent.verdict import Verdict


@dataclass
class ExampleResult:
    source: str
    example: Example
    verdict: Verdict

    @property
    def ok(self) -> bool:
        if self.verdict.decision != self.example.decision:
            return False
        return self.example.rule is None or self.example.rule in self.verdict.rules


def example_context(policy: PolicySet) -> GateContext:
    """Examples run on the facts the files give for them, and own one server named `sglang`."""
    from tools.target import DetachedProcess  # the run's models load when examples run, not with `policy check`

    parts = [(src, p.example_facts) for src, p in policy._policies if p.example_facts is not None]
    facts = merge_facts(parts) if parts else HostFacts()
    wd = policy.facts.work_dir or facts.work_dir or "~/opsagent-work"
    proc = DetachedProcess(
        name="sglang",
        command="python3 -m sglang.launch_server",
        pid=4242,
        pgid=4242,
        log_path=f"{wd}/logs/sglang.log",
        pid_file=f"{wd}/run/sglang.pid",
    )
    return GateContext(work_dir=wd, own_processes={"sglang": proc}, facts=facts)


def run_examples(policy: PolicySet) -> list[ExampleResult]:
    """Each file's examples, judged under the policy as it stood once that file was loaded: the
    default's under the default's facts, an operator's overlay's under the overlay's host."""
    from agent.state import Action

    results: list[ExampleResult] = []
    for count, (source, loaded) in enumerate(policy._policies, start=1):
        if not loaded.examples:
            continue
        scope = policy.as_of(count)
        ctx = example_context(scope)
        for ex in loaded.examples:
            if ex.command is not None:
                verdict = scope.evaluate_command(ex.command, ctx)
            else:
                assert ex.action is not None
                verdict = scope.evaluate_action(Action(tool=ex.action.tool, args=ex.action.args), ctx)
            results.append(ExampleResult(source, ex, verdict))
    return results
