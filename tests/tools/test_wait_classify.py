"""Lines SGLang prints while it is still fine must not be taken for a failure.

The lines are rendered from SGLang's own format strings (python/sglang/srt/utils: wait_port_available),
since what they guard against is a log line that precedes recovery, which no captured log shows.
"""

from __future__ import annotations

from tools.sglang.wait import classify, is_fatal

# f"port {port} is in use. Waiting for {i} seconds for {port_name} to be available. {error_message}"
# with error_message = f"{port_name} is used by a process already. {process.name()=}' ..."
STILL_WAITING = (
    "[2026-03-02 10:00:01] port 30000 is in use. Waiting for 15 seconds for metrics_port to be available. "
    "metrics_port is used by a process already. process.name()='python3'' process.cmdline()=['python3'] "
    "process.status()='sleeping' pid=4242"
)
# f"{port_name} at {port} is not available in {timeout_s} seconds. {error_message}"
GAVE_UP = (
    "ValueError: metrics_port at 30000 is not available in 30 seconds. metrics_port is used by a process "
    "already. process.name()='python3'' process.cmdline()=['python3'] process.status()='sleeping' pid=4242"
)


def test_waiting_for_a_busy_port_is_not_a_failure_yet() -> None:
    assert not is_fatal(STILL_WAITING)
    assert classify([STILL_WAITING]) == (None, [])


def test_giving_up_on_a_busy_port_is_a_port_clash() -> None:
    assert is_fatal(GAVE_UP)
    assert classify([STILL_WAITING, GAVE_UP]) == ("port_in_use", [GAVE_UP])
