"""Commands through SSHTarget against a real sshd: isolation, streams, caps, timeouts, fallbacks."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ssh.procs import kill_all, pids_with
from tests.sshd_fixture import SshServer
from tools.sandbox import SandboxSpec
from tools.ssh.target import SSHTarget
from tools.target import Target


@pytest.fixture
def exec_only(sshd: SshServer) -> Iterator[SSHTarget]:
    """Every command on its own exec channel (the fallback path)."""
    with SSHTarget.connect(sshd.url, sshd.options(fast_path=False)) as connected:
        yield connected


@pytest.fixture(params=["fast", "exec"])
def any_path(request: pytest.FixtureRequest, sshd: SshServer) -> Iterator[SSHTarget]:
    with SSHTarget.connect(sshd.url, sshd.options(fast_path=request.param == "fast")) as connected:
        yield connected


def test_is_a_target(target: SSHTarget) -> None:
    assert isinstance(target, Target)


def test_stdout_and_stderr_stay_apart(any_path: SSHTarget) -> None:
    result = any_path.run("echo out; echo err >&2; printf partial; exit 3")
    assert result.exit_code == 3
    assert result.stdout == "out\npartial"
    assert result.stderr == "err\n"
    assert result.stdout_bytes == len("out\npartial")
    assert result.stdout_sha256 == hashlib.sha256(b"out\npartial").hexdigest()
    assert not result.ok and not result.timed_out and not result.outcome_unknown


def test_quoting_and_multiline_commands(any_path: SSHTarget) -> None:
    command = "printf '%s\\n' \"it's\" 'a \"b\"'\necho $'tab\\there' | cat -A\necho \\$HOME"
    result = any_path.run(command)
    assert result.exit_code == 0
    assert result.stdout == 'it\'s\na "b"\ntab^Ihere$\n$HOME\n'


def test_each_command_is_isolated(target: SSHTarget) -> None:
    first = target.run("cd /; MARK=1; export EXPORTED=1; exit 7")
    assert first.exit_code == 7
    second = target.run('pwd; echo "${MARK:-unset} ${EXPORTED:-unset} [$#|$1]"')
    assert second.exit_code == 0
    # the sandbox starts every command in the work directory (where the policy judges it to start)
    assert second.stdout == f"{target.work_dir}\nunset unset [0|]\n"


def test_dollar_dollar_is_the_commands_own_shell(target: SSHTarget) -> None:
    result = target.run('[ "$$" = "$BASHPID" ] && echo own; kill -9 $$')
    assert result.stdout == "own\n"
    assert result.exit_code == 137
    assert target.run("echo still here").stdout == "still here\n"


def test_stdin_is_closed(any_path: SSHTarget) -> None:
    result = any_path.run("cat; echo done", timeout=10)
    assert result.exit_code == 0
    assert result.stdout == "done\n"
    assert not result.timed_out


def test_env_is_passed_quoted(any_path: SSHTarget) -> None:
    result = any_path.run('echo "$FOO|$BAR"', env={"FOO": "a b'c", "BAR": "$HOME"})
    assert result.stdout == "a b'c|$HOME\n"


def test_bad_env_name_is_refused(target: SSHTarget) -> None:
    with pytest.raises(ValueError, match="not a valid shell name"):
        target.run("true", env={"A;rm": "x"})


def test_output_cap_keeps_head_and_tail_and_hashes_everything(any_path: SSHTarget) -> None:
    result = any_path.run("seq 1 200000; seq 1 50000 >&2", output_cap=1000)
    full = "".join(f"{i}\n" for i in range(1, 200001)).encode()
    assert result.truncated
    assert result.stdout_bytes == len(full)
    assert result.stdout_sha256 == hashlib.sha256(full).hexdigest()
    assert result.stdout.startswith("1\n2\n3\n")
    assert result.stdout.endswith("199999\n200000\n")
    assert "bytes omitted by opsagent" in result.stdout
    assert len(result.stdout) < 1200
    assert result.stderr_bytes == len("".join(f"{i}\n" for i in range(1, 50001)))
    assert result.stderr.endswith("50000\n")


def _rss_bytes() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_a_gigabyte_of_output_keeps_memory_bounded(target: SSHTarget) -> None:
    peak = baseline = _rss_bytes()
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.wait(0.05):
            peak = max(peak, _rss_bytes())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        result = target.run("head -c 1073741824 /dev/zero; echo tail-of-stderr >&2", timeout=110)
    finally:
        stop.set()
        sampler.join()
    zeros = hashlib.sha256()
    block = bytes(1 << 20)
    for _ in range(1024):
        zeros.update(block)
    assert result.exit_code == 0
    assert result.stdout_bytes == 1 << 30
    assert result.stdout_sha256 == zeros.hexdigest()
    assert result.truncated
    assert len(result.stdout) < 300_000
    assert result.stderr == "tail-of-stderr\n"
    assert peak - baseline < 200 * 1024 * 1024, f"memory grew by {(peak - baseline) >> 20} MiB"


def test_timeout_kills_the_process_group_and_keeps_the_session(target: SSHTarget) -> None:
    try:
        result = target.run("echo before; sleep 3101 | sleep 3102", timeout=1)
        assert result.timed_out
        assert result.exit_code is None
        assert not result.outcome_unknown
        assert result.stdout == "before\n"
        assert "timed out after 1s" in result.stderr
        assert pids_with("3101") == [] and pids_with("3102") == []
        after = target.run("echo alive")
        assert after.ok and after.stdout == "alive\n"
    finally:
        kill_all("3101")
        kill_all("3102")


def test_timeout_on_an_exec_channel_kills_the_group(exec_only: SSHTarget) -> None:
    try:
        result = exec_only.run("sleep 3103 | sleep 3104", timeout=1)
        assert result.timed_out and result.exit_code is None
        # the group is killed; on a busy machine the kernel may take a moment to end it
        deadline = time.monotonic() + 10
        while (pids_with("3103") or pids_with("3104")) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert pids_with("3103") == [] and pids_with("3104") == []
        assert exec_only.run("echo alive").stdout == "alive\n"
    finally:
        kill_all("3103")
        kill_all("3104")


def _bare(sshd: SshServer) -> SSHTarget:
    """A target without the sandbox: these tests are about the shell's own handling of background
    jobs (in the sandbox a command's background jobs end with it: tests/ssh/test_ssh_sandbox.py)."""
    return SSHTarget.connect(sshd.url, sshd.options(sandbox=SandboxSpec(mode="off")))


def test_background_job_holding_the_output_is_ended_like_locally(sshd: SshServer) -> None:
    try:
        with _bare(sshd) as target:
            result = target.run("sleep 3105 & echo started", timeout=30)
            assert result.exit_code == 0
            assert result.stdout == "started\n"
            assert pids_with("3105") == []
            assert "killed processes left holding" in result.stderr
    finally:
        kill_all("3105")


def test_redirected_background_job_outlives_the_command(sshd: SshServer) -> None:
    try:
        with _bare(sshd) as target:
            result = target.run("nohup sleep 3106 >/dev/null 2>&1 & echo started", timeout=30)
            assert result.stdout == "started\n"
            assert len(pids_with("3106")) == 1
    finally:
        kill_all("3106")


def test_long_timeout_commands_run_on_their_own_channel(target: SSHTarget) -> None:
    result = target.run("echo long; echo e >&2", timeout=600)
    assert result.stdout == "long\n" and result.stderr == "e\n" and result.exit_code == 0


def test_concurrent_commands_from_threads(target: SSHTarget) -> None:
    results: dict[int, str] = {}

    def work(i: int) -> None:
        results[i] = target.run(f"sleep 0.3; echo {i}").stdout

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {i: f"{i}\n" for i in range(4)}


def test_many_short_commands_share_one_session(sshd: SshServer, target: SSHTarget) -> None:
    before = len(sshd.session_pids())
    for i in range(50):
        assert target.run(f"echo {i}").stdout == f"{i}\n"
    assert len(sshd.session_pids()) == before


def test_now_reads_the_remote_clock(target: SSHTarget) -> None:
    assert abs(target.now() - time.time()) < 5


def test_output_is_heard_while_the_command_runs(any_path: SSHTarget) -> None:
    # the flag is made by the reader of the first line; without it the command exits 7 after 20 s
    from tests.tools.watching import Reader, handshake_command
    from tools.target import run_watching

    flag = Path(any_path.work_dir) / "watch-flag"
    flag.unlink(missing_ok=True)
    reader = Reader(flag)
    result = run_watching(any_path, handshake_command(str(flag)), timeout=60, on_output=reader)
    assert result.exit_code == 0, result.stderr
    assert ("stderr", "first line\n") in reader.heard and ("stdout", "second line\n") in reader.heard
    assert result.stdout == "second line\n" and result.stderr == "first line\n"
