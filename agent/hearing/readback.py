"""What a reading of the operator's words will do, said canonically ("launch on GPUs 1-7 only",
"leave GPU 0 out of every launch"), never their words back: the report's "in force" lines and the
partial readings asked back before anything acts on them ("I read: ... I did not understand: ...
Right?") are both written here, from the rules the words change."""

from __future__ import annotations

from agent.state import OperatorRules


def ids(values: list[int]) -> str:
    """[1,2,3,4,7] -> '1-4, 7'."""
    out: list[str] = []
    items = sorted(set(values))
    i = 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1] == items[j] + 1:
            j += 1
        out.append(f"{items[i]}-{items[j]}" if j - i >= 2 else ", ".join(map(str, items[i : j + 1])))
        i = j + 1
    return ", ".join(out)


def _gpus(values: list[int]) -> str:
    return f"GPU{'s' if len(values) != 1 else ''} {ids(values)}"


def describe(before: OperatorRules, after: OperatorRules) -> list[str]:
    """What changed from `before` to `after`, as what will happen."""
    out: list[str] = []
    if after.use_gpus is not None and after.use_gpus != before.use_gpus:
        out.append(f"launch on {_gpus(after.use_gpus)} only" if after.use_gpus else "launch on no GPU at all")
    if new := [g for g in after.avoid_gpus if g not in before.avoid_gpus]:
        out.append(f"leave {_gpus(new)} out of every launch")
    if after.use_port is not None and after.use_port != before.use_port:
        out.append(f"serve on port {after.use_port}")
    if new := [p for p in after.avoid_ports if p not in before.avoid_ports]:
        out.append(f"never serve on port{'s' if len(new) > 1 else ''} {', '.join(map(str, new))}")
    out += [f"launch with {k}={v} in the environment" for k, v in after.set_env.items() if before.set_env.get(k) != v]
    out += [f"launch without {k} in the environment" for k in after.unset_env if k not in before.unset_env]
    out += [f"launch with {' '.join(f)}" for f in after.use_flags if f not in before.use_flags]
    out += [f"launch without {f}" for f in after.avoid_flags if f not in before.avoid_flags]
    if after.use_model and after.use_model != before.use_model:
        out.append(f"serve the model {after.use_model} in every launch")
    if after.layout and after.layout != before.layout:
        out.append(f"launch as TP{after.layout['tp']} x DP{after.layout.get('dp', 1)}")
    if after.stop_server and not before.stop_server:
        out.append("stop the server, and launch nothing until you say 'relaunch'")
    elif after.no_relaunch and not before.no_relaunch:
        out.append("launch nothing until you say 'relaunch'")
    elif before.no_relaunch and not after.no_relaunch:
        out.append("launches allowed again")
    if after.measure_again and not before.measure_again:
        out.append("run the benchmark again on the running server")
    if after.relaunch_wanted and not before.relaunch_wanted and not out:
        out.append("relaunch the server")
    return out


def readings(heard: list[str]) -> list[str]:
    """The canonical clauses of what was heard ("don't touch GPU0 (read as: don't use GPU 0)" ->
    "don't use GPU 0"): words the grammar reads whole, alone, the same way again."""
    out: list[str] = []
    for item in heard:
        words, sep, reading = item.partition(" (read as: ")
        out.append(reading[:-1] if sep and reading.endswith(")") else words)
    return out
