"""Reports worth answering: what step 1 found missing heads the first report, the memory
arithmetic is a finding, proposals are feasible only, and a boot line is not an IOMMU fault."""

from __future__ import annotations

from agent.deciders.runbook import RunbookDecider
from agent.loop.report import build_report, render_markdown
from agent.state import AgentState, Goal, Observation
from tests.deciders.test_runbook_arithmetic import _state


def _host(lines: list[str]) -> Observation:
    data = {"iommu_faults": {"value": len(lines), "source": "dmesg"}, "iommu_fault_lines": lines}
    return Observation(step=1, tool="observe_host", ok=True, summary="host", data=data)


def test_a_boot_line_naming_the_iommu_is_not_a_fault() -> None:
    state: AgentState = {"goal": Goal(text="g"), "observations": [_host(["iommu: Default domain type: Translated"])]}
    md = render_markdown(build_report(state, trigger="decider_asks", reason="r", question="q"))
    assert "IOMMU fault" not in md
    real = "nvidia 0000:21:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x002c address=0x3a0200000 flags=0x0020]"
    state["observations"] = [_host(["iommu: Default domain type: Translated", real])]
    md = render_markdown(build_report(state, trigger="decider_asks", reason="r", question="q"))
    assert "1 IOMMU fault line(s)" in md


def test_the_first_report_on_a_bare_host_is_headed_with_what_is_missing() -> None:
    gpus = Observation(step=2, tool="observe_gpus", ok=False, summary="no driver", error_kind="no_nvidia_driver")
    gpus.data = {"reason": "nvidia-smi is not installed (command not found)"}
    flags = Observation(step=3, tool="sglang_flags", ok=False, summary="No module named 'sglang'")
    flags.error_kind = "sglang_missing"
    state: AgentState = {"goal": Goal(text="g", gpus=[0]), "observations": [gpus, flags], "decisions": []}
    decision = RunbookDecider().decide(state)
    md = render_markdown(
        build_report(state, trigger="decider_asks", reason=decision.rationale, question=decision.question or "")
    )
    head = md.splitlines()[0]
    assert head.startswith("## opsagent cannot serve on this host, no NVIDIA driver, no SGLang")
    assert "progress has stalled" not in md


def test_a_model_that_cannot_fit_is_reported_with_numbers_and_feasible_steps_only() -> None:
    state = _state(810 * 10**9, [0, 1, 2, 3])
    decision = RunbookDecider().decide(state)
    md = render_markdown(
        build_report(
            state,
            trigger="decider_asks",
            reason=decision.rationale,
            question=decision.question or "",
            decision=decision,
        )
    )
    assert "Memory arithmetic (safetensors index): nothing fits: weights 754 GiB vs 280 GiB usable on 4 GPU(s)" in md
    steps = md.split("### Next steps I can propose")[1]
    assert "at least 11 GPUs of 79.6 GiB" in steps
    for infeasible in ("P2P", "IOMMU", "passthrough", "bare metal", "TP4 x DP2"):
        assert infeasible not in steps
