"""The operator's questions to the agent (#27), asked of real lab runs that wait on a question: the
answer quotes the evidence the question carries (failure classes and log lines, what holds a GPU,
the attempts with their numbers and flags, ports), says plainly what the evidence does not hold,
and the run's own question still waits (`opsagent inbox --json` lists it, nothing was recorded)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from agent.hearing.answers import answer
from agent.state import Question
from agent.store.sqlite import Store
from tests.opsagent_process import CliRun
from tests.terminal import at_terminal, read_until
from tools.lab.family import FAMILY_DIR, draw_variant

GOAL_MET = "The run still waits on my question: The goal is met. Sign off (approve), or tell me what else to do."


def _waiting(cli: CliRun, target: str, run_id: str) -> str:
    done = cli("run", "--target", target, "--approver", "none", "--run-id", run_id)
    assert done.returncode == 3, done.stdout[-1500:] + done.stderr
    (entry,) = [e for e in json.loads(cli("inbox", "--json").stdout) if e["run_id"] == run_id]
    return str(entry["question_id"])


def _ask(cli: CliRun, run_id: str, text: str, question_id: str) -> str:
    said = cli("reply", run_id, "--say", text)
    assert said.returncode == 0, said.stdout + said.stderr
    waiting = [e["question_id"] for e in json.loads(cli("inbox", "--json").stdout) if e["run_id"] == run_id]
    assert waiting == [question_id], waiting  # the run's question still waits: asking answered nothing
    assert said.stdout.rstrip().endswith(GOAL_MET), said.stdout
    return " ".join(said.stdout.split())  # the terminal wraps long lines


def test_why_did_it_oom_quotes_the_class_the_phase_and_the_log_line(cli: CliRun, workspace: Path) -> None:
    # oom-mem-fraction: A1 and A2 die capturing CUDA graphs, A3 at a lower fraction comes up and meets the goal
    qid = _waiting(cli, "lab:oom-mem-fraction", "oom")
    told = _ask(cli, "oom", "why did it OOM?", qid)
    assert "A1 (tp=4, gpus=[0, 1, 2, 3]) failed at step" in told and "cuda_graph_oom" in told, told
    assert "phase: capturing CUDA graphs" in told
    # the log's own line, past where the report's table cuts it
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.76 GiB. GPU 0 has a total capacity"
    assert f"log: {oom} of 79.10 GiB of which 1.05 GiB is free" in told
    assert "(the same log line as A1)" in told  # A2's, said once
    assert "A3 (previous + mem_fraction_static=0.85) came up" in told
    store = Store(workspace / "state")
    assert store.take_reply("oom", qid) is None  # no reply was recorded
    question = store.current_question("oom")
    assert question is not None and question.evidence is not None
    assert len(question.evidence.model_dump_json()) < 8_000  # stored with every question: a few KB


def test_what_did_you_try_lists_the_attempts_with_numbers_and_flags(cli: CliRun) -> None:
    qid = _waiting(cli, "lab:oom-mem-fraction", "tried")
    told = _ask(cli, "tried", "what did you try?", qid)
    for attempt in ("A1 (step", "A2 (step", "A3 (step"):
        assert attempt in told, told
    numbers = r"\([\d,.]+ tok/s aggregate, [\d.]+ tok/s single stream, median TTFT [\d,]+ ms\)"
    a3 = r"A3 \(step \d+\): previous \+ mem_fraction_static=0\.85 -> ready in \S+ \S+ "
    assert re.search(a3 + numbers, told), told
    flags = _ask(cli, "tried", "which flags did A3 use?", qid)
    assert "flags: --model-path /models/Llama-3.3-70B-Instruct --tp-size 4" in flags, flags
    assert "--mem-fraction-static 0.85" in flags and "CUDA_VISIBLE_DEVICES=0,1,2,3" in flags
    assert re.search(r"concurrency 64: [\d,.]+ tok/s output", flags) and "A1 (step" not in flags


def test_what_is_using_a_gpu_names_the_process_and_its_pid(cli: CliRun) -> None:
    # foreign-gpu-memory: another user's process holds ~40 GiB of one GPU; the agent serves on four others
    summary = draw_variant(FAMILY_DIR / "foreign-gpu-memory.yaml", 0).summary
    found = re.search(r"GPU (\d+) holds (\d+) MiB of \w+'s process \(pid (\d+)\)", summary)
    assert found is not None, summary
    gpu, mib, pid = found.groups()
    qid = _waiting(cli, f"lab:{FAMILY_DIR / 'foreign-gpu-memory.yaml'}#0", "fg")
    told = _ask(cli, "fg", f"what's using gpu {gpu}?", qid)
    assert f"GPU {gpu} (nvidia-smi, step" in told and f"pid {pid} (python3, {mib} MiB): not a process of mine" in told
    mine = _ask(cli, "fg", "what's using GPU 0?", qid)  # the agent's own server, by its pid
    assert re.search(r"GPU 0: my sglang of A1 \(pid \d+, port 30000\), running now", mine), mine


def test_a_port_held_by_another_process_is_quoted(cli: CliRun) -> None:
    # cotenant-port-squatter: the first launch finds its port taken and dies; A2 serves on another port
    target = f"lab:{FAMILY_DIR / 'cotenant-port-squatter.yaml'}#0"
    qid = _waiting(cli, target, "port")
    told = _ask(cli, "port", "is anything else on port 30000?", qid)
    assert "held by a process I did not start (A1)" in told and "address already in use" in told, told


def test_what_the_evidence_does_not_hold_is_said_plainly(cli: CliRun) -> None:
    qid = _waiting(cli, "lab:oom-mem-fraction", "none")
    port = _ask(cli, "none", "is anything listening on port 8080?", qid)
    assert port.startswith("I have nothing in this run's evidence on port 8080; the ports in my evidence are 30000")
    gpu = _ask(cli, "none", "what's using gpu 7?", qid)  # a 4-GPU host
    assert gpu.startswith("I have nothing in this run's evidence on GPU 7: the GPUs nvidia-smi listed are 0, 1, 2, 3")
    weather = _ask(cli, "none", "what's the weather in the datacenter?", qid)
    assert weather.startswith("I have nothing in this run's evidence on"), weather


def test_a_question_stored_before_questions_carried_evidence_loads_and_is_answered_from_its_report() -> None:
    stored = {"id": "q1-s3", "trigger": "decider_asks", "reason": "r", "question": "May I?", "asked_at": 0.0,
              "report_markdown": "| A1 | tp=4 | cuda_oom |"}  # fmt: skip
    question = Question.model_validate_json(json.dumps(stored))
    assert question.evidence is None
    told = answer("what did you try?", question)
    assert "A1 | tp=4 | cuda_oom" in told and told.endswith("The run still waits on my question: May I?")


def test_asked_at_the_terminal_the_answer_is_shown_and_the_prompt_comes_back(workspace: Path) -> None:
    pid, fd = at_terminal(workspace, "run", "--target", "lab:oom-mem-fraction", "--run-id", "tty", columns=400)
    seen = bytearray()
    read_until(fd, b"reply>", seen)
    mark = len(seen)
    os.write(fd, b"why did it oom?\n")
    read_until(fd, b"reply>", seen)
    told = " ".join(seen[mark:].decode(errors="replace").split())
    assert "cuda_graph_oom" in told and "GPU 0 has a total capacity" in told, told
    assert "The run still waits on my question: The goal is met." in told
    os.write(fd, b"stop\n")  # the question the answer left waiting takes a reply still
    read_until(fd, b"stopped", seen)
    os.waitpid(pid, 0)
    os.close(fd)
