"""Values no launch can take: a GPU this host does not have, a layout wider than the GPUs left, a
port outside TCP's range, a memory fraction above 1. Read exactly as said, they would be "in force"
and then fail at launch or be quietly bent by the planner; instead the whole message is refused,
saying which value and why, and nothing of it is taken (numbers are honoured or refused, never
dropped)."""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.hearing.readback import ids
from agent.state import AgentState, OperatorRules

HIGHEST_PORT = 65535
FIRST_UNPRIVILEGED = 1024  # below it, only root binds a port


def _positive(value: float) -> bool:
    return value >= 1


def _fraction(value: float) -> bool:
    return 0 < value <= 1


def _chunk(value: float) -> bool:
    return value == -1 or value >= 1  # -1 turns chunked prefill off


def _port(value: float) -> bool:
    return 1 <= value <= HIGHEST_PORT


# SGLang's numeric flags whose values have a range no model or host changes, and that range in words
# (--tp-size and --dp-size are checked as the layout they make).
FLAG_RANGES: dict[str, tuple[Callable[[float], bool], str]] = {
    "--mem-fraction-static": (_fraction, "a share of GPU memory: above 0, at most 1 (e.g. 0.85)"),
    "--context-length": (_positive, "a number of tokens: 1 or more"),
    "--max-running-requests": (_positive, "a number of requests: 1 or more"),
    "--max-total-tokens": (_positive, "a number of tokens: 1 or more"),
    "--max-prefill-tokens": (_positive, "a number of tokens: 1 or more"),
    "--chunked-prefill-size": (_chunk, "a number of tokens: 1 or more, or -1 for no chunking"),
    "--cuda-graph-max-bs": (_positive, "a batch size: 1 or more"),
    "--port": (_port, f"a TCP port: 1-{HIGHEST_PORT}"),
}
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?|-?\.\d+")
# "1k": a count said in thousands reaches here only where the reading did not spell it out ("context
# 32k" is 32768 by then), and SGLang takes the number itself
_IN_THOUSANDS = re.compile(r"\d+(?:\.\d+)?[kKmM]")


def _number(value: str) -> float | None:
    return float(value) if _NUMBER.fullmatch(value) else None


def host_gpus(state: AgentState) -> list[int] | None:
    """The GPU indexes the host showed (nvidia-smi's numbering), whoever they belong to; None before
    the host was read, when no id can be checked."""
    for obs in reversed(state.get("observations", [])):
        if not obs.ok:
            continue
        if obs.tool == "observe_gpus" and obs.data.get("gpus"):
            return sorted(int(g.get("index", i)) for i, g in enumerate(obs.data["gpus"]))
        if obs.tool == "observe_host" and obs.data.get("gpus"):
            found = [int(g["index"]) for g in obs.data["gpus"] if g.get("index") is not None]
            if found:
                return sorted(found)
    return None


def _gpu_problems(before: OperatorRules, after: OperatorRules, host: list[int]) -> list[str]:
    said = set(after.use_gpus or []) - set(before.use_gpus or []) | set(after.avoid_gpus) - set(before.avoid_gpus)
    missing = sorted(g for g in said if g not in host)
    if not missing:
        return []
    one = len(missing) == 1
    return [
        f"this host has no GPU{'' if one else 's'} {ids(missing)}: its GPUs are {ids(host)}, numbered from 0 "
        "as nvidia-smi numbers them"
    ]


def _sizes(rules: OperatorRules) -> tuple[int, int] | None:
    """TP and DP as the launch will take them: the layout, else pasted "--tp-size 16 --dp-size 2"."""
    if rules.layout is not None:
        return rules.layout.get("tp", 1), rules.layout.get("dp", 1)
    flags = {f[0]: f[1] for f in rules.use_flags if len(f) == 2 and re.fullmatch(r"\d+", f[1])}
    if "--tp-size" not in flags and "--dp-size" not in flags:
        return None
    return int(flags.get("--tp-size", "1")), int(flags.get("--dp-size", "1"))


def _layout_problems(before: OperatorRules, after: OperatorRules, host: list[int] | None) -> list[str]:
    sizes = _sizes(after)
    if sizes is None:
        return []
    tp, dp = sizes
    if tp < 1 or dp < 1:
        return [f"TP{tp} x DP{dp} is no layout: each size is 1 or more"]
    changed = (
        sizes != _sizes(before) or after.use_gpus != before.use_gpus or set(after.avoid_gpus) != set(before.avoid_gpus)
    )
    # before the host is read, GPUs said by id are still GPUs to count ("GPUs 0-3 and TP 8")
    if not changed or (host is None and after.use_gpus is None):
        return []
    usable = [g for g in (after.use_gpus if after.use_gpus is not None else host or []) if g not in after.avoid_gpus]
    # DP attention splits the TP group's GPUs and adds none ("dp attention, tp 8 dp 8" is 8 GPUs)
    needed = tp if ["--enable-dp-attention"] in after.use_flags else tp * dp
    if needed < len(usable) and after.use_gpus != before.use_gpus and sizes != _sizes(before):
        # "tp 4 on gpus 0-5": both said at once, and two GPUs would sit idle; which four, or which layout?
        return [
            f"TP{tp} x DP{dp} uses {needed} GPUs, and you named {len(usable)} (GPUs {ids(usable)}): "
            f"name {needed} GPUs, or a layout for {len(usable)}"
        ]
    if needed <= len(usable):
        return []
    left = f"GPUs {ids(usable)}" if len(usable) > 1 else f"GPU {ids(usable)}" if usable else "no GPU"
    return [f"TP{tp} x DP{dp} needs {needed} GPUs, and {left} {'is' if len(usable) == 1 else 'are'} left to it"]


def _flag_problems(before: OperatorRules, after: OperatorRules) -> list[str]:
    out: list[str] = []
    for flag in after.use_flags:
        if flag in before.use_flags or len(flag) != 2 or flag[0] not in FLAG_RANGES:
            continue
        check, meaning = FLAG_RANGES[flag[0]]
        value = _number(flag[1])
        if _IN_THOUSANDS.fullmatch(flag[1]):  # "1k" requests: 1000 or 1024? SGLang takes neither
            out.append(f"{flag[0]} {flag[1]}: say the number itself ({meaning})")
        elif value is None or not check(value):
            out.append(f"{flag[0]} {flag[1]}: it takes {meaning}")
    return out


def problems(before: OperatorRules, after: OperatorRules, host: list[int] | None) -> list[str]:
    """What no launch could take among the values the words changed (GPU ids only once the host's
    are known), each said with what would fit."""
    out: list[str] = []
    port = after.use_port
    if port is not None and port != before.use_port and not _port(port):
        out.append(f"port {port} is no TCP port: ports run 1-{HIGHEST_PORT}")
    elif port is not None and port != before.use_port and port < FIRST_UNPRIVILEGED:
        # "use port 300": a cut-off 30000 far more often than a wish to run the server as root
        out.append(
            f"port {port} is a privileged port (below {FIRST_UNPRIVILEGED}), which the server cannot bind "
            f"without root: say a port from {FIRST_UNPRIVILEGED} to {HIGHEST_PORT} (put a proxy in front for 80 or 443)"
        )
    out += [
        f"port {p} is no TCP port: ports run 1-{HIGHEST_PORT}"
        for p in after.avoid_ports
        if p not in before.avoid_ports and not _port(p)
    ]
    if host is not None:
        out += _gpu_problems(before, after, host)
    out += _layout_problems(before, after, host)
    out += _flag_problems(before, after)
    return out


def refusal(text: str, found: list[str]) -> str:
    """The answer for words with a value out of reach: which, why, and that nothing was taken."""
    return f'I took nothing of "{text}": {"; ".join(found)}. Say it again with values that fit'
