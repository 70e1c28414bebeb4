"""Structured tool calls the decider proposes, judged by the same rules as shell commands.

A launch is turned into the command line it would run (so GPU, path and environment rules
apply unchanged); reads become `cat PATH`; stopping a process is allowed only for the agent's own.

A read's PATH is first made absolute by the rule every target opens files by
(`tools.paths.resolve_path`: `~` is the home, relative is against the work directory), so the
file judged is the file the tool reads; a path that rule refuses is denied here too.
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING, Any

from agent.policy.evaluate import InvocationVerdict, combine
from agent.policy.gate import OBSERVE_TOOLS
from agent.policy.invocation import Invocation
from agent.policy.programs.sglang import sglang_gpus
from agent.verdict import Verdict
from tools.paths import BadPath, resolve_path

if TYPE_CHECKING:
    from agent.policy.gate import Gate, GateContext
    from agent.state import Action


ESCALATION_REASON = "runs outside the sandbox, as root (an escalation: approve this exact command once)"


def _builtin(decision: str, rule: str, reason: str, tool: str) -> InvocationVerdict:
    from agent.policy.model import Rule

    r = Rule.model_validate({"id": rule, "decision": decision, "reason": reason, "match": {"tool": [tool]}})
    return InvocationVerdict(Invocation(tool, tool, [], tool, tool=tool), r.decision, [r], reason)


def _command_verdicts(policy: Gate, command: str, ctx: GateContext) -> list[InvocationVerdict]:
    return policy.explain(command, ctx)


def _file_read_verdicts(policy: Gate, tool: str, path: str, ctx: GateContext) -> list[InvocationVerdict]:
    """Judge reading `path` as the target will open it: `cat` of the absolute path that
    `tools.paths.resolve_path` gives with the target's work directory and home."""
    home = policy.facts_for(ctx).home
    work_dir = ctx.work_dir
    if work_dir == "~" or work_dir.startswith("~/"):
        work_dir = (home or "~") + work_dir[1:]
    try:
        full = resolve_path(path, work_dir=work_dir, home=home)
    except BadPath as exc:
        return [_builtin("deny", "tool-bad-path", f"{tool}: {exc}", tool)]
    return _command_verdicts(policy, f"cat -- {shlex.quote(full)}", ctx)


def _read_verdicts(policy: Gate, tool: str, args: dict[str, Any], ctx: GateContext) -> list[InvocationVerdict]:
    out: list[InvocationVerdict] = []
    for key, value in args.items():
        is_path_key = key in ("path", "file", "log_path", "output_file") or key.endswith("_path")
        if isinstance(value, str) and is_path_key and (value.startswith(("/", "~", ".")) or "/" in value):
            out += _file_read_verdicts(policy, tool, value, ctx)
    return out


def launch_command(args: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """The command line and environment a `launch_server` call would run."""
    env = {str(k): str(v) for k, v in (args.get("env") or {}).items()}
    gpus = args.get("gpus")
    if gpus is not None:
        env["CUDA_VISIBLE_DEVICES"] = ",".join(str(g) for g in gpus)
    if args.get("command"):
        return str(args["command"]), env
    argv = [
        str(args.get("python") or "python3"),
        "-m",
        "sglang.launch_server",
        "--model-path",
        str(args.get("model_path", "")),
    ]
    for key, flag in (("tp", "--tp-size"), ("dp", "--dp-size"), ("port", "--port"), ("host", "--host")):
        if args.get(key) is not None:
            argv += [flag, str(args[key])]
    argv += [str(a) for a in args.get("extra_args") or []]
    return shlex.join(argv), env


def _launch(policy: Gate, args: dict[str, Any], ctx: GateContext) -> list[InvocationVerdict]:
    command, env = launch_command(args)
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    out = _command_verdicts(policy, f"{prefix} {command}".strip(), ctx)
    extra = [str(a) for a in args.get("extra_args") or []]
    tp, dp = args.get("tp") or 1, args.get("dp") or 1
    sized = ["--tp-size", str(tp), "--dp-size", str(dp), *extra]
    used = sglang_gpus(sized, env)
    if args.get("gpus") is not None:
        used = used | {str(g) for g in args["gpus"]}
    out += _gpu_verdicts(policy, ctx, "launch_server", used, "the launch")
    out += policy.evaluate_tool("launch_server", ctx, gpus=frozenset(used), env=env)
    return out


def _gpu_verdicts(
    policy: Gate, ctx: GateContext, tool: str, used: set[str] | frozenset[str], what: str
) -> list[InvocationVerdict]:
    """Deny a tool call that would use a GPU outside the agent's set (or any, when the host facts
    do not say which are the agent's)."""
    agent_gpus = policy.facts_for(ctx).agent_gpus
    if agent_gpus is None:
        reason = "host facts do not say which GPUs the agent may use (fix: set facts.agent_gpus in an overlay)"
        return [_builtin("deny", "launch-gpus-unknown", reason, tool)]
    ours = {str(g) for g in agent_gpus}
    outside = sorted(g for g in used if g not in ours)
    if not outside:
        return []
    reason = (
        f"{what} would use GPU(s) {', '.join(outside)} outside the agent's set "
        f"{sorted(ours, key=lambda g: (len(g), g))}"
    )
    return [_builtin("deny", "launch-gpus-outside-agent", reason, tool)]


def evaluate_action(policy: Gate, action: Action, ctx: GateContext) -> Verdict:
    tool, args = action.tool, action.args
    verdicts: list[InvocationVerdict]
    if tool == "run_command":
        command = args.get("command")
        if not isinstance(command, str):
            return Verdict(decision="deny", rules=["tool:bad-arguments"], reason="run_command needs a command string")
        verdicts = _command_verdicts(policy, command, ctx)
        if args.get("outside_sandbox"):  # an escalation: asked as such, never more than the rules allow
            verdicts.append(_builtin("ask", "sandbox-escalation", ESCALATION_REASON, tool))
        return combine(verdicts, "an empty command runs nothing")
    if tool in ("read_file", "tail_log"):
        path = args.get("path")
        if not isinstance(path, str):
            return Verdict(decision="deny", rules=["tool:bad-arguments"], reason=f"{tool} needs a path")
        verdicts = _file_read_verdicts(policy, tool, path, ctx)
        verdicts += policy.evaluate_tool(tool, ctx)
        return combine(verdicts)
    if tool in ("launch_server", "sglang_flags"):
        bad = _bad_launch_arguments(args)
        if bad:
            return Verdict(decision="deny", rules=["tool:bad-arguments"], reason=bad)
    if tool == "launch_server":
        return combine(_launch(policy, args, ctx))
    if tool == "stop_server":
        name = args.get("name")
        if isinstance(name, str) and name in ctx.own_processes:
            proc = ctx.own_processes[name]
            verdicts = [
                _builtin("allow", "stop-own-process", f"{name} (pid {proc.pid}) was started by the agent", tool)
            ]
        else:
            verdicts = [
                _builtin(
                    "deny",
                    "stop-not-own-process",
                    f"{name!r} is not a process the agent started (its own: {sorted(ctx.own_processes) or 'none'})",
                    tool,
                )
            ]
        return combine(verdicts + policy.evaluate_tool(tool, ctx))
    if tool in _observe_tools():
        verdicts = [_builtin("allow", "observation-tool", f"{tool} only observes", tool)]
        verdicts += _read_verdicts(policy, tool, args, ctx)
        if tool == "p2p_check":  # it runs copies on the GPUs it is given
            gpus = args.get("gpus")
            used = {str(g) for g in gpus} if isinstance(gpus, list) else {"all"}
            verdicts += _gpu_verdicts(policy, ctx, tool, used, "the P2P check")
        if tool == "sglang_flags":  # it runs `PYTHON -m sglang.launch_server --help`
            python = str(args.get("python") or "python3")
            verdicts += _command_verdicts(policy, shlex.join([python, "-m", "sglang.launch_server", "--help"]), ctx)
        return combine(verdicts + policy.evaluate_tool(tool, ctx))
    if tool in ("ask_operator", "finish"):
        return combine([_builtin("allow", "control-tool", f"{tool} is handled by the loop", tool)])
    verdicts = [_builtin(policy.default, "unknown-tool", f"unknown tool {tool!r}: the policy's default applies", tool)]
    return combine(verdicts + policy.evaluate_tool(tool, ctx))


_INTERPRETER = re.compile(r"[A-Za-z0-9_./+-]+")
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _bad_launch_arguments(args: dict[str, Any]) -> str | None:
    """What the tool itself would refuse, refused at the gate too: an interpreter that is not a
    program name and variable names that are not names are pasted into a command line."""
    python = args.get("python")
    if python is not None and not (isinstance(python, str) and _INTERPRETER.fullmatch(python)):
        return f"python must be a program name or path (letters, digits, . _ / + -), not {python!r}"
    env = args.get("env") or {}
    names = [k for k in env if not _VARIABLE.fullmatch(str(k))] if isinstance(env, dict) else ["<not a mapping>"]
    if names:
        return f"environment variable names must be letters, digits and '_': {names}"
    return None


def _observe_tools() -> set[str]:
    return OBSERVE_TOOLS
