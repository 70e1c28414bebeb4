"""Writes transcripts/examples/example-vm-no-p2p.jsonl: a scripted stand-in for a demo run.

Not a test. Run `python tests/transcript/make_example.py` from the repository root. It records the
shape of the "VM where P2P is not supported" session (case 3) through the real writer, on a
virtual clock, so it is byte-for-byte reproducible. Replace it with a real `opsagent demo
--transcripts transcripts/examples` run once the demo works end to end.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent.state import Action, Attempt, Decision, ModelUsage, Observation, Question, Reply  # noqa: E402
from agent.transcript import TranscriptWriter  # noqa: E402

RUN_ID = "example-vm-no-p2p"


class Clock:
    def __init__(self) -> None:
        self.t = 1_767_261_600.0  # 2026-01-01 10:00 UTC

    def __call__(self) -> float:
        self.t += 7.0
        return self.t


def cmd(text: str) -> Action:
    return Action(tool="run_command", args={"command": text})


def main(directory: Path = ROOT / "transcripts" / "examples") -> Path:
    path = directory / f"{RUN_ID}.jsonl"
    if path.exists():
        path.unlink()
    clock = Clock()
    usage = [ModelUsage(model="runbook")]
    w = TranscriptWriter.create(directory, RUN_ID, clock=clock)
    step = 0

    def act(action: Action, ok: bool, summary: str, output: str = "", data: dict[str, object] | None = None) -> None:
        nonlocal step
        step += 1
        key = f"{RUN_ID}:{step}"
        w.emit("action_started", {"step": step, "key": key, "action": action.model_dump(mode="json")})
        w.emit(
            "action_result",
            {
                "step": step,
                "key": key,
                "tool": action.tool,
                "ok": ok,
                "summary": summary,
                "data": {"output": output, **(data or {})},
            },
        )
        obs = Observation(step=step, tool=action.tool, args=action.args, ok=ok, summary=summary, sim_time=clock.t)
        w.emit("observation", obs.model_dump(mode="json"))

    def decide(action: Action, why: str, conf: float = 0.9) -> None:
        d = Decision(action=action, rationale=why, confidence=conf, usage=usage)
        w.emit("decision", {"step": step, **d.model_dump(mode="json")})

    def verdict(action: Action, word: str, rules: list[str], reason: str) -> None:
        w.emit(
            "verdict",
            {"action": action.model_dump(mode="json"), "decision": word, "rules": rules, "reason": reason},
        )

    w.emit(
        "run_started",
        {
            "run_id": RUN_ID,
            "goal": {
                "text": "serve GLM-5-NVFP4 with SGLang on 8 GPUs at >= 1000 tok/s aggregate (conc 64); "
                "never reboot the host",
                "min_aggregate_tps": 1000,
                "concurrency": 64,
            },
            "target": "lab:vm-no-p2p",
            "policies": [{"path": "policies/default.yaml", "sha256": "scripted-example"}],
            "decider": "runbook",
            "config": {"max_steps": 40},
            "note": "scripted stand-in written by tests/transcript/make_example.py",
        },
    )
    a = cmd("systemd-detect-virt")
    decide(a, "check whether this is bare metal before trusting P2P")
    verdict(a, "allow", [], "read-only")
    act(a, True, "kvm", "kvm\n")
    a = cmd("nvidia-smi topo -p2p r")
    decide(a, "a VM often has no P2P; read the P2P matrix")
    verdict(a, "allow", [], "read-only")
    matrix = "\n".join(f"GPU{i} " + " ".join("X" if i == j else "NS" for j in range(8)) for i in range(8))
    act(a, True, "P2P not supported between any GPU pair (NS for all 28 pairs)", matrix)
    launch = cmd(
        "HF_TOKEN=hf_ExampleTokenDoNotUse0123456789abcd python -m sglang.launch_server "
        "--model-path /models/GLM-5-NVFP4 --tp 8 --port 30000"
    )
    decide(launch, "first launch with defaults, TP8", 0.8)
    verdict(launch, "allow", ["gpu-scope"], "GPUs 0-7 are the agent's")
    crash_log = "".join(f"[decode] batch {i} ok\n" for i in range(700)) + (
        "RuntimeError: CUDA error: device-side assert triggered: probability tensor contains either inf, nan "
        "or element < 0\n"
    )
    act(launch, False, "server crashed at first decode: NaN in sampling", crash_log)
    w.emit(
        "attempt",
        Attempt(
            id="A1",
            step=step,
            change="TP8, defaults",
            outcome="NaN in sampling at first decode",
            failure_class="nan",
        ).model_dump(mode="json"),
    )
    reboot = cmd("sudo reboot")
    decide(reboot, "reset the GPUs after the device-side assert", 0.4)
    verdict(reboot, "deny", ["no-host-power"], "never reboot, halt or power-cycle the host")
    w.emit(
        "observation",
        Observation(
            step=step,
            tool="run_command",
            args=reboot.args,
            ok=False,
            summary="denied by policy (no-host-power)",
            error_kind="policy_denied",
        ).model_dump(mode="json"),
    )
    fix = cmd(
        "python -m sglang.launch_server --model-path /models/GLM-5-NVFP4 --tp 8 --port 30000 "
        "--nsa-decode-backend trtllm"
    )
    decide(fix, "the trtllm NSA decode backend avoids the decode NaN", 0.7)
    verdict(fix, "ask", ["launch-approval"], "launching a server on all 8 GPUs needs approval")
    q = Question(
        id="q1-s3",
        trigger="policy_ask",
        reason="launching a server on all 8 GPUs needs approval",
        question="Launch GLM-5-NVFP4 with --nsa-decode-backend trtllm on GPUs 0-7?",
        report_markdown="## opsagent needs a decision: run example-vm-no-p2p, step 3\n\n"
        "**Why I stopped:** the policy asks for approval before a launch on all 8 GPUs.\n\n"
        "### Attempts\n| id | change | outcome |\n|---|---|---|\n| A1 | TP8, defaults | NaN in sampling |\n\n"
        "### Findings\n- The host is a KVM guest; P2P is NS for all pairs.\n",
        action=fix,
        digest="0" * 64,
        asked_at=clock.t,
    )
    w.emit("escalation", {"trigger": "policy_ask", "reason": q.reason, "step": step})
    w.emit("question", q.model_dump(mode="json", exclude={"report_markdown"}))
    w.emit("report", {"question_id": q.id, "markdown": q.report_markdown})
    w.emit(
        "reply",
        Reply(question_id=q.id, kind="approve", who="operator@terminal", at=clock.t + 60, digest="0" * 64).model_dump(
            mode="json"
        ),
    )
    act(fix, True, "server ready in 6m 10s")
    bench = cmd("python -m sglang.bench_serving --backend sglang --num-prompts 256 --max-concurrency 64")
    decide(bench, "measure against the goal at concurrency 64")
    verdict(bench, "allow", [], "benchmark against the agent's own server")
    act(bench, True, "485 tok/s aggregate at concurrency 64", "Output token throughput (tok/s): 485.1\n")
    w.emit(
        "attempt",
        Attempt(
            id="A2",
            step=step,
            change="A1 + --nsa-decode-backend trtllm",
            outcome="ready",
            aggregate_tps=485.1,
        ).model_dump(mode="json"),
    )
    d = Decision(
        kind="finish",
        rationale="best is 49% of the goal; the remaining ideas need resource decisions",
        goal_met=False,
        usage=usage,
    )
    w.emit("decision", {"step": step, **d.model_dump(mode="json")})
    q2 = Question(
        id="q2-s5",
        trigger="gave_up",
        reason=d.rationale,
        question="Stop here, or allow TP4 on GPUs 0-3?",
        asked_at=clock.t,
    )
    w.emit("escalation", {"trigger": "gave_up", "reason": d.rationale, "step": step})
    w.emit("question", q2.model_dump(mode="json", exclude={"report_markdown"}))
    w.emit(
        "reply",
        Reply(
            question_id=q2.id,
            kind="stop",
            text="good enough for today",
            who="operator@terminal",
            at=clock.t + 30,
        ).model_dump(mode="json"),
    )
    w.emit(
        "run_finished",
        {"status": "stopped", "goal_met": False, "steps": step, "escalations": 2, "signed_off_by": None},
    )
    w.close()
    return path


if __name__ == "__main__":
    print(main())
