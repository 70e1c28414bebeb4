"""`doctor`: can this target be used, and what does it have? Works on any `Target`.

Each check is a short read-only command. Only two checks decide whether the target is usable
(a command runs; the work directory is writable); the rest are facts the operator should know
(passwordless sudo is reported, never required).
"""

from __future__ import annotations

import shlex
from typing import Literal

from pydantic import BaseModel

from tools.sandbox import SandboxError
from tools.target import CommandResult, Target

Status = Literal["ok", "fail", "info", "missing"]

SGLANG_VERSION = "python3 -c 'import sglang; print(sglang.__version__)'"


class Check(BaseModel):
    name: str
    status: Status
    value: str = ""
    detail: str = ""
    required: bool = False


class DoctorReport(BaseModel):
    target: str
    checks: list[Check]

    @property
    def usable(self) -> bool:
        return all(c.status == "ok" for c in self.checks if c.required)

    def check(self, name: str) -> Check:
        return next(c for c in self.checks if c.name == name)

    def usable_for(self) -> dict[str, str]:
        """What the target can be used for, each "yes" or "no: why" (or "not checked")."""

        def state(name: str) -> str:
            found = [c for c in self.checks if c.name == name]
            if not found:
                return "not checked"
            c = found[0]
            return "yes" if c.status == "ok" else f"no: {c.detail or c.value or c.status}"

        commands = (
            "yes"
            if self.usable
            else "no: "
            + "; ".join(f"{c.name} {c.detail or c.status}" for c in self.checks if c.required and c.status != "ok")
        )
        return {
            "commands": commands,
            "GPUs": state("nvidia-smi"),
            "SGLang": state("sglang"),
            "sandbox": state("sandbox"),
        }

    def verdict(self) -> str:
        """The last line: usable for what, in words, not a bare yes."""
        if not self.usable:
            return "usable: NO (see the failed checks above)"
        uses = self.usable_for()
        lacking = [name for name in ("GPUs", "SGLang") if uses[name] != "yes"]
        if not lacking:
            return "usable: yes, for GPU serving with SGLang"
        return "usable: for commands only: no " + " and no ".join(lacking) + " (see above)"

    def render(self) -> str:
        width = max(len(c.name) for c in self.checks)
        lines = [f"opsagent doctor: {self.target}"]
        for c in self.checks:
            text = c.value or c.detail
            extra = f" ({c.detail})" if c.value and c.detail else ""
            lines.append(f"  {c.status.upper():7} {c.name:<{width}}  {text}{extra}")
        lines.append("usable for: " + "; ".join(f"{k} {v}" for k, v in self.usable_for().items()))
        lines.append(self.verdict())
        return "\n".join(lines)


def _first_line(result: CommandResult) -> str:
    text = (result.stdout.strip() or result.stderr.strip()).splitlines()
    return text[0] if text else ""


def _why(result: CommandResult) -> str:
    if result.outcome_unknown or result.timed_out:
        return result.error or ("timed out" if result.timed_out else "outcome unknown")
    return result.stderr.strip().splitlines()[-1] if result.stderr.strip() else f"exit code {result.exit_code}"


def host_key_check(target: Target) -> Check:
    event = getattr(target, "host_key_event", None)
    if not target.describe().startswith("ssh://"):
        return Check(name="host key", status="info", detail="not an SSH target")
    if isinstance(event, dict):
        return Check(
            name="host key",
            status="info",
            value=f"{event.get('key_type')} {event.get('fingerprint')}",
            detail=f"new key accepted by --accept-new-host-key and written to {event.get('known_hosts')}",
        )
    return Check(name="host key", status="ok", detail="matches known_hosts")


def sandbox_check(target: Target) -> Check:
    """Whether commands run inside the sandbox (tools.sandbox); required when the policy requires it."""
    status_of = getattr(target, "sandbox_status", None)
    if not callable(status_of):
        return Check(name="sandbox", status="info", value="none", detail="this target runs no commands on a host")
    try:
        status = status_of()
    except SandboxError as exc:
        return Check(name="sandbox", status="fail", detail=str(exc), required=True)
    if status is None:
        return Check(name="sandbox", status="info", value="none")
    state: Status = "ok" if status.active else "info"
    return Check(name="sandbox", status=state, value=status.line(), required=status.mode == "require")


def doctor(target: Target, *, timeout: float = 30.0) -> DoctorReport:
    checks: list[Check] = []
    reach = target.run("echo opsagent-ok", timeout=timeout)
    if reach.ok and reach.stdout.strip() == "opsagent-ok":
        checks.append(Check(name="connectivity", status="ok", value="commands run", required=True))
    else:
        checks.append(Check(name="connectivity", status="fail", detail=_why(reach), required=True))
        return DoctorReport(target=target.describe(), checks=[*checks, host_key_check(target)])
    checks.append(host_key_check(target))
    checks.append(sandbox_check(target))

    work = shlex.quote(target.work_dir)
    writable = target.run(f"mkdir -p {work} && test -w {work} && echo yes", timeout=timeout)
    if writable.ok and writable.stdout.strip() == "yes":
        checks.append(Check(name="work dir", status="ok", value=target.work_dir, required=True))
    else:
        checks.append(
            Check(name="work dir", status="fail", value=target.work_dir, detail=_why(writable), required=True)
        )

    sudo = target.run("command -v sudo >/dev/null || exit 127; sudo -n true", timeout=timeout)
    if sudo.exit_code == 0:
        checks.append(Check(name="sudo", status="info", value="passwordless sudo works"))
    elif sudo.exit_code == 127:
        checks.append(Check(name="sudo", status="info", value="sudo is not installed"))
    elif "no new privileges" in sudo.stderr:
        checks.append(Check(name="sudo", status="info", value="blocked inside the sandbox (no_new_privs)"))
    else:
        checks.append(Check(name="sudo", status="info", value="needs a password", detail=_why(sudo)))

    python = target.run("python3 --version", timeout=timeout)
    if python.ok:
        checks.append(Check(name="python3", status="ok", value=_first_line(python).removeprefix("Python ")))
    else:
        checks.append(Check(name="python3", status="missing", detail=_why(python)))

    sglang = target.run(SGLANG_VERSION, timeout=timeout)
    if sglang.ok and _first_line(sglang):
        checks.append(Check(name="sglang", status="ok", value=_first_line(sglang)))
    else:
        checks.append(Check(name="sglang", status="missing", detail=_why(sglang)))

    smi = target.run(
        "command -v nvidia-smi || exit 127; nvidia-smi --query-gpu=name --format=csv,noheader",
        timeout=timeout,
    )
    if smi.exit_code == 127:
        checks.append(Check(name="nvidia-smi", status="missing", detail="nvidia-smi is not on PATH"))
    elif smi.ok:
        lines = smi.stdout.strip().splitlines()
        gpus = lines[1:]
        names = sorted(set(gpus))
        checks.append(
            Check(
                name="nvidia-smi",
                status="ok",
                value=f"{len(gpus)} GPU(s): {', '.join(names)}",
                detail=lines[0],
            )
        )
    else:
        checks.append(Check(name="nvidia-smi", status="fail", detail=_why(smi)))
    return DoctorReport(target=target.describe(), checks=checks)
