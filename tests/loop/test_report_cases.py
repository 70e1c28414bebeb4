"""The situation report for the three real cases, built from hand-made state, as Markdown and rich."""

from __future__ import annotations

from rich.console import Console

from agent.hearing.exclusions import exclude
from agent.hearing.instructions import hear
from agent.loop.report import SituationReport, build_report, render_markdown, render_terminal
from agent.state import (
    Action,
    AgentState,
    Alternative,
    Attempt,
    Decision,
    Goal,
    Metrics,
    Observation,
    OperatorRules,
    Verdict,
)

# A tiny policy: exact commands or tools to verdicts. The report only needs the callable.
REBOOT_RULE = Verdict(decision="deny", rules=["no-host-reboot"], reason="host reboots are forbidden")


def policy(action: Action) -> Verdict:
    command = str(action.args.get("command", ""))
    if "iommu_groups" in command:
        return Verdict(decision="ask", rules=["iommu-group-type"], reason="changes an IOMMU group's type")
    if "reboot" in command or "amd_iommu" in command:
        return REBOOT_RULE
    return Verdict(decision="allow", rules=["launch-sglang"])


def terminal_text(report: SituationReport) -> str:
    console = Console(record=True, width=120)
    render_terminal(report, console)
    return console.export_text()


def nested_p2p(gpus: list[int], cell: str) -> dict[str, dict[str, str]]:
    return {f"GPU{a}": {f"GPU{b}": ("X" if a == b else cell) for b in gpus} for a in gpus}


# ------------------------------------------------------------------------------------------------
# Case 1: P2P silently corrupts data under an IOMMU in translation mode.


def p2p_corruption_state() -> AgentState:
    gpus = [0, 1, 2, 3]
    pairs = [
        {"src": a, "dst": b, "mismatches": 1_048_576, "can_access_peer": True} for a in gpus for b in gpus if a < b
    ]
    iommu_group = "echo identity > /sys/kernel/iommu_groups/12/type"
    decision = Decision(
        kind="act",
        action=Action(tool="run_command", args={"command": iommu_group}),
        rationale="passthrough for the nvidia-bound groups would restore P2P",
        confidence=0.55,
        findings=["The kernel logs IO_PAGE_FAULT for every P2P copy (dmesg, 12 lines)."],
        hypotheses=["The IOMMU in translation mode drops P2P DMA between the GPUs (high: page faults)."],
        alternatives=[
            Alternative(
                action=Action(
                    tool="launch_server",
                    args={"env": {"NCCL_P2P_DISABLE": "1"}, "tp": 4, "model": "Qwen3.5-122B-A10B"},
                ),
                description="relaunch with NCCL_P2P_DISABLE=1",
                rationale="NCCL falls back to shared memory; correct output",
                risk="low; restarts the server",
            ),
            Alternative(
                action=Action(tool="run_command", args={"command": iommu_group}),
                description="set the nvidia IOMMU groups to identity",
                rationale="P2P without translation",
                risk="high: FSP boot failure seen, reboot to revert",
            ),
            Alternative(
                action=Action(tool="run_command", args={"command": "grubby --args=amd_iommu=pt && reboot"}),
                description="iommu=pt on the host",
                risk="reboot; breaks the SEV-SNP tenant",
            ),
        ],
    )
    return AgentState(
        run_id="c1a5",
        step=17,
        goal=Goal(
            text="serve Qwen3.5-122B-A10B with SGLang on GPUs 0-3, correct output first.",
            gpus=gpus,
            min_single_stream_tps=100,
            min_aggregate_tps=2500,
            concurrency=128,
            constraints=["no host reboot", "no BIOS changes", "do not touch the other tenant's vfio groups"],
        ),
        observations=[
            Observation(
                step=2,
                tool="observe_host",
                ok=True,
                summary="bare metal, amd_iommu=on",
                data={
                    "virtualization": "none",
                    "iommu": {"mode": "translated", "cmdline": "BOOT_IMAGE=/vmlinuz ro amd_iommu=on quiet"},
                    "vfio_devices": ["0000:81:00.0", "0000:82:00.0", "0000:c1:00.0", "0000:c2:00.0"],
                },
            ),
            Observation(
                step=3,
                tool="observe_topology",
                ok=True,
                summary="4 GPUs, PCIe",
                data={"gpus": gpus, "p2p_read": nested_p2p(gpus, "OK"), "interconnect": "pcie"},
            ),
            Observation(step=5, tool="p2p_check", ok=False, summary="mismatches", data={"pairs": pairs}),
        ],
        decisions=[decision],
        proposal=decision,
        verdict=policy(decision.action) if decision.action else None,
        operator=hear(OperatorRules(), "don't touch GPUs 4-7, they belong to the SEV-SNP tenant")[0],
    )


def test_p2p_corruption_policy_ask_shows_exact_command_rule_and_evidence() -> None:
    state = p2p_corruption_state()
    report = build_report(
        state,
        trigger="policy_ask",
        reason="writing an IOMMU group type is a host change",
        question="May I set IOMMU group 12 to identity?",
        verdict_for=policy,
        elapsed_s=3 * 3600 + 5 * 60 + 9,
    )
    md = render_markdown(report)

    assert md.startswith("## opsagent needs a decision: run c1a5, step 17, 3h 5m on the target host's clock\n")
    assert "**Constraints:** no host reboot; no BIOS changes; do not touch the other tenant's vfio groups." in md
    assert "**Why I stopped:** the next action needs your approval under the policy" in md
    # The proposal taken from state (policy_ask): exact command, verdict, rule id.
    assert "```\nrun_command: echo identity > /sys/kernel/iommu_groups/12/type\n```" in md
    assert "**Policy:** needs approval; rules `iommu-group-type`: changes an IOMMU group's type" in md
    assert "(confidence 0.55)" in md
    # Derived from observations.
    assert "- The host is bare metal: `systemd-detect-virt` -> `none`." in md
    assert "- IOMMU: translated (kernel command line: `amd_iommu=on`)." in md
    assert "4 device(s) are bound to vfio-pci" in md
    assert "The driver reports P2P read `OK` for all 6 GPU pairs" in md
    assert (
        "- P2P copies return wrong data on 6 of 6 GPU pairs (e.g. 0->1: 1,048,576 mismatched values), "
        "although `can_device_access_peer()` reports True." in md
    )
    assert "- The kernel logs IO_PAGE_FAULT for every P2P copy" in md
    assert "1. The IOMMU in translation mode drops P2P DMA" in md
    # Next steps: verdict words per alternative.
    assert "| 1 | relaunch with NCCL_P2P_DISABLE=1 |" in md
    assert "| low; restarts the server | allowed |" in md
    assert "| needs approval (iommu-group-type) |" in md
    assert "| denied (no-host-reboot) |" in md
    assert "| aggregate tok/s (conc 128) | 2,500 | not measured yet | - | - |" in md
    assert "Nothing measured yet." in md
    assert "### Attempts\nNone yet." in md
    assert '- you said "don\'t touch GPUs 4-7": in force' in md
    assert '- I did not understand: "they belong to the SEV-SNP tenant"' in md
    assert md.rstrip().endswith(
        "**Question:** May I set IOMMU group 12 to identity?\n\n"
        "Reply `approve`, `deny [reason]`, `edit <command>`, `continue`, `continue --steps N`, "
        "a number (1-3) to pick a next step, free text (an instruction), or `stop`."
    )

    text = terminal_text(report)
    assert "opsagent needs a decision: run c1a5, step 17, 3h 5m on the target host's clock" in text
    assert "run_command: echo identity > /sys/kernel/iommu_groups/12/type" in text
    assert "needs approval (iommu-group-type)" in text
    assert "denied (no-host-reboot)" in text
    assert "May I set IOMMU group 12 to identity?" in text


def test_gate_verdict_in_state_is_used_when_no_policy_callable_is_given() -> None:
    report = build_report(p2p_corruption_state(), trigger="policy_ask", reason="r", question="q?")
    assert report.proposed is not None
    assert report.proposed.policy.label() == "needs approval (iommu-group-type)"
    # Without the callable nothing else was checked, and the report says so rather than guessing.
    assert [s.policy.word for s in report.next_steps] == ["not checked"] * 3


# ------------------------------------------------------------------------------------------------
# Case 2: GLM-5-NVFP4 crashes with NaN during decode; attempts A1..A6 of the example report.

NAN = "NaN in sampling at first decode (`probability tensor contains either inf, nan`)"


def nan_decode_state() -> AgentState:
    attempts = [
        Attempt(id="A1", step=5, change="TP8, defaults", outcome=NAN, failure_class="nan_decode"),
        Attempt(id="A2", step=9, change="`--nsa-decode-backend flashmla_sparse`", outcome="same NaN"),
        Attempt(
            id="A3",
            step=14,
            change="`--nsa-decode-backend trtllm`",
            outcome="ready in 6m 10s",
            aggregate_tps=485.2,
            single_stream_tps=38.0,
            ttft_ms=2300,
        ),
        Attempt(
            id="A4",
            step=19,
            change="A3 + `--num-continuous-decode-steps 4`",
            outcome="no change",
            aggregate_tps=483,
        ),
        Attempt(
            id="A5",
            step=24,
            change="A3 + `--cuda-graph-max-bs 128`",
            outcome="small gain",
            aggregate_tps=512.4,
            single_stream_tps=41.3,
            ttft_ms=1900,
        ),
        Attempt(
            id="A6",
            step=30,
            change="A5 + all-reduce fusion enabled",
            outcome="regression (reverted)",
            aggregate_tps=236,
        ),
    ]
    return AgentState(
        run_id="7f3c",
        step=41,
        goal=Goal(
            text="serve GLM-5-NVFP4 on gpu-box, >= 1,000 tok/s aggregate, >= 100 tok/s single stream.",
            gpus=list(range(8)),
            min_aggregate_tps=1000,
            min_single_stream_tps=100,
            constraints=["no host reboot", "no BIOS/firmware change"],
        ),
        attempts=attempts,
        metrics=Metrics(best_aggregate_tps=512.4, best_single_stream_tps=41.3, best_ttft_ms=1900, best_attempt="A5"),
        observations=[
            Observation(
                step=6,
                tool="wait_server",
                ok=False,
                summary="server died",
                data={
                    "cause": "NaN in sampling",
                    "evidence": [
                        "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0",
                        "RuntimeError: CUDA error: device-side assert triggered",
                    ],
                },
            )
        ],
        decisions=[
            Decision(findings=["flashmla_sparse and flashmla_kv both hit the NaN; trtllm does not."]),
            Decision(
                kind="ask",
                findings=["Throughput stays flat from A3 to A5: decode step time is the bound."],
                hypotheses=["Decode is bound by all-reduce latency (medium)."],
                alternatives=[
                    Alternative(
                        action=Action(tool="launch_server", args={"tp": 4, "dp": 2}),
                        description="TP4 x DP2",
                        rationale="halves all-reduce fan-out",
                        risk="low; restarts the server",
                    ),
                    Alternative(description="try a newer SGLang build", risk="needs a new image"),
                ],
            ),
        ],
    )


def test_nan_decode_attempts_table_metrics_and_percentages() -> None:
    report = build_report(
        nan_decode_state(),
        trigger="stalled",
        reason="no metric gain over the last 3 attempts",
        question="Shall I try TP4 x DP2?",
        verdict_for=policy,
        elapsed_s=7980,
    )
    md = render_markdown(report)

    assert "## opsagent needs a decision: run 7f3c, step 41, 2h 13m on the target host's clock" in md
    assert "GPUs 0-7." in md
    assert "**Why I stopped:** progress has stalled" in md
    assert "no metric gain over the last 3 attempts. Best so far: 512 tok/s aggregate at concurrency 64 (A5), " in md
    assert "51% of the goal." in md
    assert "| aggregate tok/s (conc 64) | 1,000 | 512 | 51% of the goal | A5 |" in md
    assert "| single-stream tok/s | 100 | 41 | 41% of the goal | A5 |" in md
    assert "| TTFT (conc 64) | - | 1.9 s | - | A5 |" in md
    assert f"| A1 | TP8, defaults | {NAN} [nan_decode] | - |" in md
    assert "| A2 | `--nsa-decode-backend flashmla_sparse` | same NaN | - |" in md
    assert "| A3 | `--nsa-decode-backend trtllm` | ready in 6m 10s | 485 |" in md
    assert "| A4 | A3 + `--num-continuous-decode-steps 4` | no change | 483 |" in md
    assert "| A5 | A3 + `--cuda-graph-max-bs 128` | small gain | 512 |" in md
    assert "| A6 | A5 + all-reduce fusion enabled | regression (reverted) | 236 |" in md
    assert "omitted" not in md
    assert (
        "- The server did not come up: NaN in sampling: "
        "`RuntimeError: probability tensor contains either `inf`, `nan` or element < 0`; "
        "`RuntimeError: CUDA error: device-side assert triggered`." in md
    )
    # Latest decision's findings first, then older ones; next steps from the latest decision only.
    assert md.index("Throughput stays flat") < md.index("flashmla_sparse and flashmla_kv")
    assert "| 1 | TP4 x DP2 | halves all-reduce fan-out |" in md
    assert "Step 1 runs, exactly:\n```\nlaunch_server(tp=4, dp=2)\n```" in md  # whole, below the table (#30)
    assert "| 2 | try a newer SGLang build | - | needs a new image | outside my reach |" in md
    assert "### Proposed action" not in md

    text = terminal_text(report)
    for expected in ("A6", "236", "51% of the goal", "1.9 s", "outside my reach", "Shall I try TP4 x DP2?"):
        assert expected in text
    assert "│  A5   A3 + `--cuda-graph-max-bs 128`" in text


# ------------------------------------------------------------------------------------------------
# Case 3: a KVM guest where P2P is not supported at all.


def vm_without_p2p_state() -> AgentState:
    gpus = list(range(8))
    return AgentState(
        run_id="9b01",
        step=63,
        goal=Goal(
            text="serve GLM-5-NVFP4 with SGLang, >= 1,000 tok/s aggregate and >= 100 tok/s single stream.",
            gpus=gpus,
            min_aggregate_tps=1000,
            min_single_stream_tps=100,
            constraints=["no host reboot", "no BIOS/firmware change", "vfio groups untouched"],
        ),
        attempts=[
            Attempt(
                id="A1",
                step=20,
                change="TP8, trtllm decode",
                outcome="ok",
                aggregate_tps=485,
                single_stream_tps=39,
            )
        ],
        observations=[
            Observation(step=1, tool="observe_host", ok=True, summary="kvm", data={"virtualization": "kvm"}),
            Observation(
                step=2,
                tool="observe_topology",
                ok=True,
                summary="no P2P",
                data={"gpus": gpus, "p2p_read": nested_p2p(gpus, "NS"), "interconnect": "pcie"},
            ),
        ],
        decisions=[
            Decision(
                kind="ask",
                findings=["NCCL logs `via SHM/direct/direct` on every channel."],
                hypotheses=[
                    "Throughput is bound by all-reduce latency through host memory (high).",
                    "Fewer GPUs per all-reduce would cut communication (medium).",
                ],
                alternatives=[
                    Alternative(
                        action=Action(tool="launch_server", args={"tp": 4, "dp": 2}),
                        description="TP4 x DP2 on GPUs 0-3 / 4-7",
                        rationale="halves all-reduce fan-out",
                        risk="low; restarts the server",
                    ),
                    Alternative(
                        action=Action(tool="launch_server", args={"tp": 4, "pp": 2}),
                        description="TP4 + PP2",
                        rationale="similar, pipeline bubbles",
                    ),
                    Alternative(description="move the workload to bare metal", risk="needs another machine"),
                    Alternative(
                        action=Action(tool="run_command", args={"command": "qm set 101 --hostpci0 ... && reboot"}),
                        description="IOMMU passthrough for the GPUs in Proxmox",
                        risk="host config change, reboot",
                    ),
                ],
            )
        ],
        operator=exclude(
            hear(OperatorRules(), "keep the model at NVFP4")[0],
            Action(tool="run_command", args={"command": "reboot"}),
            "policy",
            "reboots the host",
            ["no-host-reboot"],
        ),
    )


def test_vm_without_p2p_findings_and_ranked_steps_with_policy() -> None:
    report = build_report(
        vm_without_p2p_state(),
        trigger="no_next_step",
        reason="the candidates for raising throughput are exhausted",
        question="Shall I continue with step 1, or do you want to pursue 3 or 4 yourself?",
        verdict_for=policy,
    )
    md = render_markdown(report)

    assert "## opsagent needs a decision: run 9b01, step 63\n" in md
    assert "48% of the goal" in md
    assert "| single-stream tok/s | 100 | 39 | 39% of the goal | A1 |" in md
    assert "TTFT" not in md  # never measured, and it has no goal: no row
    assert "- The host is a KVM guest: `systemd-detect-virt` -> `kvm`." in md
    assert "- P2P is not supported between any GPU pair: `nvidia-smi topo -p2p r` shows `NS` for all 28 pairs." in md
    assert "- NCCL logs `via SHM/direct/direct` on every channel." in md
    assert "2. Fewer GPUs per all-reduce would cut communication (medium)." in md
    assert "| 1 | TP4 x DP2 on GPUs 0-3 / 4-7 |" in md
    assert "| low; restarts the server | allowed |" in md
    assert "| 3 | move the workload to bare metal | - | needs another machine | outside my reach |" in md
    assert "| 4 | IOMMU passthrough for the GPUs in Proxmox |" in md
    assert "| host config change, reboot | denied (no-host-reboot) |" in md
    assert "### Denied by the policy\n- the policy denied: run_command: reboot (no-host-reboot: reboots the host)" in md
    assert "you denied" not in md
    assert "a number (1-4) to pick a next step" in md
    assert md.index("### Next steps") < md.index("**Question:**")

    text = terminal_text(report)
    for expected in (
        "The host is a KVM guest",
        "NS` for all 28 pairs",
        "denied (no-host-reboot)",
        "outside my reach",
        "allowed",
        'I did not understand: "keep the model at NVFP4"',
        "Shall I continue with step 1",
    ):
        assert expected in text, expected
