"""launch_server / wait_server / server_status / run_benchmark / stop_server on a local target with
real processes: the stand-in server, and commands that replay recorded SGLang logs."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tools_testkit import FIXTURES

from tools.local import LocalTarget
from tools.registry import ToolContext, ToolOutput
from tools.sglang.bench import run_benchmark
from tools.sglang.diagnosis import diagnose
from tools.sglang.launch import launch_server
from tools.sglang.status import server_status, stop_server
from tools.sglang.wait import wait_server
from tools.target import DetachedProcess

STANDIN = Path(__file__).parent / "standin_server.py"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Session:
    """The agent's side: a context whose process table grows with every launch."""

    def __init__(self, work_dir: Path) -> None:
        self.processes: dict[str, DetachedProcess] = {}
        self.ctx = ToolContext(target=LocalTarget(str(work_dir)), processes=self.processes)
        self.model = work_dir / "model"
        self.model.mkdir(parents=True, exist_ok=True)
        # The sandbox makes /tmp private, so a checkout kept under /tmp is not there for the server:
        # the stand-in (standard library only) runs from the work directory, with the real interpreter.
        self.standin = shutil.copy(STANDIN, work_dir / STANDIN.name)
        self.work_dir = work_dir

    def replay(self, log_fixture: str) -> str:
        """A command that prints a recorded log, copied into the work directory (as the stand-in is)."""
        return f"cat {shlex.quote(str(shutil.copy(FIXTURES / log_fixture, self.work_dir / log_fixture)))}"

    def call(self, tool: Any, **args: Any) -> ToolOutput:
        out: ToolOutput = tool.invoke(self.ctx, args)
        for proc in out.started:
            self.processes[proc.name] = proc
        for name in out.stopped:
            self.processes.pop(name, None)
        return out

    def launch(self, name: str, command: str, port: int) -> ToolOutput:
        return self.call(launch_server, model_path=str(self.model), command=command, name=name, port=port)

    def stop_all(self) -> None:
        for name in list(self.processes):
            self.call(stop_server, name=name, grace_s=2)


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    s = Session(tmp_path / "work")
    yield s
    s.stop_all()


def standin(session: Session, port: int, rate: float = 200.0, startup_s: float = 0.3) -> str:
    program = f"{shlex.quote(os.path.realpath(sys.executable))} {shlex.quote(str(session.standin))}"
    return f"{program} --port {port} --rate {rate} --startup-s {startup_s}"


def test_full_cycle_against_the_standin_server(session: Session) -> None:
    port = free_port()
    launched = session.launch("standin", standin(session, port), port)
    assert launched.ok, launched.summary
    assert launched.started[0].log_path.endswith("logs/standin.log")

    waited = session.call(wait_server, name="standin", port=port, timeout_s=30, poll_s=0.1)
    assert waited.ok and waited.data["ready"] and waited.data["cause"] is None, waited.summary

    status = session.call(server_status, name="standin", port=port)
    assert status.ok and status.data["running"] and status.data["health"] == 200
    assert status.data["models"] == ["standin-model"]
    assert status.data["server_info"]["model_path"] == "/models/standin-model"

    rate = 200.0
    bench = session.call(
        run_benchmark,
        port=port,
        concurrency=[1, 4],
        input_len=16,
        output_len=40,
        num_prompts=8,
        use_loadgen=True,
    )
    assert bench.ok, bench.summary
    assert bench.data["source"] == "loadgen"
    single, four = bench.data["levels"]
    assert single["concurrency"] == 1 and four["concurrency"] == 4
    assert single["completed"] == 8 and four["completed"] == 8
    # The stand-in paces tokens at `rate` per stream; the measurement must recover it.
    assert 0.7 * rate <= single["output_throughput"] <= 1.1 * rate
    assert 0.7 * 4 * rate <= four["output_throughput"] <= 1.1 * 4 * rate
    assert 0.9 * 1000 / rate <= single["mean_tpot_ms"] <= 1.4 * 1000 / rate
    assert 0.9 * 1000 / rate <= single["mean_itl_ms"] <= 1.4 * 1000 / rate
    assert single["total_throughput"] > single["output_throughput"]
    assert single["mean_ttft_ms"] > 0

    later = session.call(server_status, name="standin", port=port)
    assert later.data["last_gen_throughput"] is not None

    taken = session.launch("second", standin(session, port), port)
    assert not taken.ok and taken.error_kind == "port_in_use"
    again = session.launch("standin", standin(session, free_port()), port)
    assert not again.ok and again.error_kind == "already_running"

    stopped = session.call(stop_server, name="standin", grace_s=5)
    assert stopped.ok and stopped.stopped == ["standin"]
    down = session.call(run_benchmark, port=port, concurrency=[1], input_len=8, output_len=8, use_loadgen=True)
    assert not down.ok and down.error_kind == "server_down"
    gone = session.call(server_status, port=port, name="standin")
    assert not gone.ok and gone.error_kind == "server_down"


def test_stop_refuses_processes_it_did_not_start(session: Session) -> None:
    out = session.call(stop_server, name="someone-elses")
    assert not out.ok and out.error_kind == "not_owned"
    out = session.call(wait_server, name="someone-elses", timeout_s=1)
    assert not out.ok and out.error_kind == "not_owned"


def test_launch_refusals_are_typed(session: Session, tmp_path: Path) -> None:
    missing = session.call(launch_server, model_path=str(tmp_path / "no-such-model"), command="sleep 1")
    assert not missing.ok and missing.error_kind == "model_path_missing"
    assert "no-such-model" in missing.summary
    too_wide = session.call(launch_server, model_path=str(session.model), tp=2, gpus=[0], command="sleep 1")
    assert not too_wide.ok and too_wide.error_kind == "tp_exceeds_gpus"
    no_sglang = session.call(launch_server, model_path=str(session.model), python=str(tmp_path / "no-python"))
    assert not no_sglang.ok and no_sglang.error_kind == "sglang_missing"
    assert session.processes == {}


def test_environment_reaches_the_server(session: Session) -> None:
    port = free_port()
    out = session.call(
        launch_server,
        model_path=str(session.model),
        command='echo "P2P=$NCCL_P2P_DISABLE GPUS=$CUDA_VISIBLE_DEVICES ORDER=$CUDA_DEVICE_ORDER"; sleep 30',
        name="envcheck",
        port=port,
        gpus=[0],
        env={"NCCL_P2P_DISABLE": "1"},
    )
    assert out.ok
    waited = session.call(wait_server, name="envcheck", port=port, timeout_s=0.5, poll_s=0.1)
    assert waited.error_kind == "load_timeout"
    log = Path(session.processes["envcheck"].log_path).read_text()
    assert "P2P=1 GPUS=0 ORDER=PCI_BUS_ID" in log


FAILURES = [
    ("log_0.5.23_device_assert.log", "device_assert", None),
    ("log_0.5.9_kv_oom.log", "kv_cache_oom", None),
    ("log_0.5.23_cuda_oom.log", "cuda_oom", None),
    ("log_0.5.23_nccl_p2p.log", "nccl_error", "P2P/IPC,SHM"),
    ("log_0.5.9_port_in_use.log", "port_in_use", None),
    ("log_0.5.23_bad_argument.log", "bad_argument", None),
    ("log_0.5.23_child_crash.log", "child_crash", None),
]


@pytest.mark.parametrize(("fixture", "cause", "transport"), FAILURES)
def test_wait_server_classifies_real_logs(session: Session, fixture: str, cause: str, transport: str | None) -> None:
    port = free_port()
    command = f"{session.replay(fixture)}; exit 1"
    assert session.launch("crashy", command, port).ok
    out = session.call(wait_server, name="crashy", port=port, timeout_s=30, poll_s=0.1)
    assert not out.ok and out.error_kind == cause and out.data["cause"] == cause, out.summary
    assert out.data["evidence"] and out.data["hint"]
    assert out.data["transport"] == transport
    if cause == "nccl_error":
        assert any("peer access is not supported" in w for w in out.data["nccl_warnings"])


def test_wait_server_exit_without_known_cause_is_a_child_crash(session: Session) -> None:
    port = free_port()
    assert session.launch("dies", "sh -c 'echo starting; exit 7'", port).ok
    out = session.call(wait_server, name="dies", port=port, timeout_s=30, poll_s=0.1)
    assert out.error_kind == "child_crash" and out.data["exit_code"] == 7


def test_a_program_the_shell_cannot_find_is_said_so_and_placed(session: Session, tmp_path: Path) -> None:
    # a program kept under the host's /tmp is what a sandboxed launch cannot see
    port = free_port()
    assert session.launch("nowhere", f"{tmp_path}/no-such-dir/python -m sglang.launch_server", port).ok
    out = session.call(wait_server, name="nowhere", port=port, timeout_s=30, poll_s=0.1)
    assert out.error_kind == "child_crash" and out.data["exit_code"] == 127
    assert out.data["evidence"][0] == "process exited with code 127 (the shell found no such program)"
    placed = diagnose("child_crash", out.data["evidence"], None, [0])
    assert (placed.cls, placed.family) == ("program_missing", "driver_build")
    assert any("no-such-dir/python: No such file or directory" in line for line in placed.lines)


@pytest.mark.parametrize(
    ("fixture", "transport"), [("log_0.5.9_ready.log", None), ("log_0.5.23_ready_p2p.log", "P2P/IPC")]
)
def test_wait_server_ready_from_log(session: Session, fixture: str, transport: str | None) -> None:
    port = free_port()
    assert session.launch("ready", f"{session.replay(fixture)}; sleep 30", port).ok
    out = session.call(wait_server, name="ready", port=port, timeout_s=30, poll_s=0.1)
    assert out.ok and out.data["ready"] and out.data["transport"] == transport
    status = session.call(server_status, name="ready", port=port)
    assert status.data["last_gen_throughput"] == 612.44 and status.data["last_running_requests"] == 32


def test_wait_server_times_out_while_loading(session: Session) -> None:
    port = free_port()
    assert session.launch("slow", f"{session.replay('log_0.5.9_loading.log')}; sleep 30", port).ok
    out = session.call(wait_server, name="slow", port=port, timeout_s=0.5, poll_s=0.1)
    assert out.error_kind == "load_timeout" and out.data["phase"] == "loading weights (50%)"


def test_the_benchmark_says_requests_done_and_throughput_while_a_level_runs(session: Session) -> None:
    # the load generator runs as its own process; its progress lines are read as it prints them
    port = free_port()
    assert session.launch("standin", standin(session, port, rate=100.0), port).ok
    assert session.call(wait_server, name="standin", port=port, timeout_s=30, poll_s=0.1).ok
    heard: list[tuple[float, str]] = []
    ctx = ToolContext(
        target=session.ctx.target,
        processes=session.processes,
        progress=lambda text: heard.append((time.monotonic(), text)),
    )
    args = {"port": port, "concurrency": [2], "input_len": 8, "output_len": 20, "num_prompts": 12, "use_loadgen": True}
    started = time.monotonic()
    bench = run_benchmark.invoke(ctx, args)
    assert bench.ok, bench.summary
    running = [(t, m) for t, h in heard if (m := re.search(r": (\d+)/12 requests, ([\d,]+) tok/s so far", h))]
    counts = [int(m.group(1)) for _, m in running]
    assert len(counts) >= 4 and counts == sorted(counts) and counts[-1] == 12, heard
    # heard while the level ran, not all at its end: the counts came over the ~1 s the requests took
    # (at least 0.2 s per wave of two), not in one burst when the client exited
    assert running[-1][0] - running[0][0] >= 0.3, [round(t - started, 3) for t, _ in running]
    final = bench.data["levels"][0]["output_throughput"]
    last = float(running[-1][1].group(2).replace(",", ""))
    assert 0.5 * final <= last <= 1.5 * final, (last, final)
