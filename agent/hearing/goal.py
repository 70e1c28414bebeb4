"""Read the numbers out of an operator's goal sentence, and say how each was read.

"serve /models/X with SGLang on GPUs 0-3 at over 1,000 tok/s at concurrency 64 and 100 tok/s
single stream; never reboot the host" gives the model path, the GPUs, the aggregate and
single-stream targets, the concurrency and the constraints ("never ..." / "don't ..." clauses).

- A rate in a clause that says "single stream" (or "per stream") is the single-stream target;
  any other rate is the aggregate target (output tokens/s over all requests at the concurrency).
- "GPUs 0-3", "GPUs 0,1,2,3", "GPU 0 and 1" name GPU ids: the agent's GPUs, for the policy and the
  decider. "4 GPUs" / "across 8 GPUs" is a count, not ids (`gpu_count`).
- `readings` say how each number was read ("1,000 tok/s: aggregate output tokens/s at
  concurrency 64"); `ambiguities` hold the guesses, which the run asks about before anything
  runs: no number to reach at all ("make it fast"), or a rate that says neither aggregate nor
  single stream nor a concurrency.
- "never X" clauses: the vocabulary in `CONSTRAINT_RULES` becomes deny rules in a policy overlay
  (`goal_policy_overlay`); ports, GPUs, env and flags become operator instructions
  (`agent.hearing.instructions`); anything else is stated as not enforced (`constraint_readings`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from agent.hearing.normalise import gpu_ids
from agent.state import Goal


class GoalError(ValueError):
    pass


_RATE = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(k)?\s*tok(?:ens)?/s", re.I)
_CLAUSES = re.compile(r";|,(?!\d{3})|\band\b", re.I)  # "1,000" is one number
_SINGLE = re.compile(r"single[- ]?stream|per[- ]stream|single[- ]user|batch(?:[- ]size)?\s*1\b", re.I)
_AGGREGATE = re.compile(r"aggregate|total|throughput|overall|across all", re.I)
_CONC = re.compile(r"(?:concurrency|conc|concurrent requests?)\s*(?:of\s*|=\s*)?(\d+)|(\d+)\s+concurrent", re.I)
_IDS = r"\d+(?:\s*(?:-|to|\.\.)\s*\d+)?(?:\s*(?:,|and)\s*\d+(?:\s*(?:-|to|\.\.)\s*\d+)?)*"
_GPU_IDS = re.compile(rf"\bGPUs?\s+(?:ids?\s+)?({_IDS})(?!\s*GPUs)", re.I)
_GPU_COUNT = re.compile(r"\b(\d+)\s*(?:x\s*)?(?:[A-Z0-9-]+\s+)?GPUs?\b", re.I)
_MODEL = re.compile(r"(?:^|\s)(/[\w.+-]+(?:/[\w.+-]+)+)")
_CONSTRAINT = re.compile(r"\b(never|don't|do not|no)\b[^;.]*", re.I)

# "never X" vocabulary -> policy deny rules (each: words that name it, the rules that enforce it).
CONSTRAINT_RULES: list[tuple[re.Pattern[str], str, list[dict[str, Any]]]] = [
    (
        re.compile(r"reboot|restart the (?:host|machine|box)|power[- ]?(?:off|cycle)|shut ?down the|halt", re.I),
        "goal-never-reboot",
        [
            {"program": ["reboot", "halt", "poweroff", "shutdown", "kexec", "systemd-reboot"]},
            {"program": ["systemctl", "loginctl"], "subcommand": ["reboot", "poweroff", "halt", "kexec"]},
        ],
    ),
    (
        re.compile(r"vfio|iommu|hypervisor", re.I),
        "goal-never-vfio",
        [
            {
                "writes": [
                    "/sys/kernel/iommu_groups/**",
                    "/sys/bus/pci/drivers/vfio-pci/**",
                    "/sys/bus/pci/devices/*/driver_override",
                    "/dev/vfio/**",
                ]
            },
            {"program": ["driverctl"]},
            {"program": ["modprobe", "rmmod", "insmod"], "arg_any": ["vfio*"]},
        ],
    ),
    (
        re.compile(r"install|pip\b|apt\b|packages?", re.I),
        "goal-never-install",
        [
            {
                "program": ["pip", "pip3", "apt", "apt-get", "dnf", "yum", "conda", "uv", "mamba"],
                "subcommand": ["install", "add", "upgrade", "sync"],
            }
        ],
    ),
    (
        re.compile(r"docker|containers?|podman", re.I),
        "goal-never-containers",
        [{"program": ["docker", "podman", "nerdctl"]}],
    ),
    (
        re.compile(r"firmware|bios|boot ?loader|flash", re.I),
        "goal-never-firmware",
        [{"program": ["fwupdmgr", "flashrom", "nvflash", "efibootmgr", "grub-install", "update-grub"]}],
    ),
    (re.compile(r"sudo|as root|root", re.I), "goal-never-root", [{"program": ["sudo", "su", "doas", "pkexec"]}]),
    (
        re.compile(r"reset (?:the |a )?gpus?|gpu resets?", re.I),
        "goal-never-gpu-reset",
        [{"program": ["nvidia-smi"], "options": ["-r", "--gpu-reset"]}],
    ),
    (
        re.compile(r"kernel modules?|modprobe|rmmod", re.I),
        "goal-never-modules",
        [{"program": ["modprobe", "rmmod", "insmod"]}],
    ),
]


NO_TARGET = "the goal has no number to reach"


def on_lab(given: Goal, scenario: Goal) -> Goal:
    """A goal the operator gave on a lab: the scenario lends the host's GPUs, never its numbers, and
    its model only as a reading asked about. A goal without numbers is asked about, as on SSH."""
    update: dict[str, object] = {}
    ambiguities = list(given.ambiguities)
    if given.gpus is None and given.gpu_count is None:
        update["gpus"] = scenario.gpus  # the GPUs this host lends the agent: a fact of the host
    if given.model_path is None and scenario.model_path:
        update["model_path"] = scenario.model_path
        ambiguities.append(f"the goal names no model: I propose the scenario's {scenario.model_path}")
    return given.model_copy(update={**update, "ambiguities": ambiguities})


def unresolved(goal: Goal) -> list[str]:
    """The readings still to ask about (a target filled in from elsewhere, e.g. a lab scenario, settles one)."""
    has_target = goal.min_aggregate_tps is not None or goal.min_single_stream_tps is not None
    return [a for a in goal.ambiguities if not (has_target and a.startswith(NO_TARGET))]


def _rate(match: re.Match[str]) -> float:
    value = float(match.group(1).replace(",", ""))
    return value * 1000 if match.group(2) else value


def constraint_reading(clause: str) -> str:
    """How a "never X" clause is enforced, in words the report shows."""
    from agent.hearing.instructions import understood  # the operator grammar (it imports this module's Goal)

    rule = next((rid for pattern, rid, _ in CONSTRAINT_RULES if pattern.search(clause)), None)
    if rule is not None:
        return f'"{clause}": enforced by policy rule {rule} (deny)'
    heard, _ = understood(clause)
    if heard:
        return f'"{clause}": enforced on every launch as your instruction'
    return f'"{clause}": NOT enforced (no rule or instruction maps it); tell me how, or add a policy rule'


def parse_goal(text: str) -> Goal:
    text = text.strip()
    if not text:
        raise GoalError("the goal is empty; pass --goal 'serve MODEL with SGLang at over N tok/s'")
    aggregate = single = None
    qualified = False
    for clause in _CLAUSES.split(text):
        for match in _RATE.finditer(clause):
            if _SINGLE.search(clause):
                single = single if single is not None else _rate(match)
                qualified = True
            else:
                aggregate = aggregate if aggregate is not None else _rate(match)
                qualified = qualified or bool(_AGGREGATE.search(clause))
    gpus: list[int] | None = None
    count: int | None = None
    if (ids := _GPU_IDS.search(text)) is not None:
        gpus = gpu_ids(ids.group(1)) or None
    elif (many := _GPU_COUNT.search(text)) is not None:
        count = int(many.group(1))
    conc = _CONC.search(text)
    concurrency = int(conc.group(1) or conc.group(2)) if conc else 64
    model = _MODEL.search(text)
    constraints = [m.group(0).strip() for m in _CONSTRAINT.finditer(text)]
    ambiguities: list[str] = []
    if aggregate is not None and not qualified and conc is None:
        ambiguities.append(
            f'"{aggregate:,.0f} tok/s" says neither aggregate nor single stream nor a concurrency: '
            f"I propose aggregate output tokens/s at concurrency {concurrency}"
        )
    if aggregate is None and single is None:
        ambiguities.append(
            f"{NO_TARGET}: I propose to measure and report the best aggregate output "
            "tokens/s at concurrency 64 I can reach, and stop there"
        )
    goal = Goal(
        text=text,
        model_path=model.group(1) if model else None,
        gpus=gpus,
        gpu_count=count,
        min_aggregate_tps=aggregate,
        min_single_stream_tps=single,
        concurrency=concurrency,
        constraints=constraints,
        ambiguities=ambiguities,
        constraint_readings=[constraint_reading(c) for c in constraints],
    )
    return goal.model_copy(update={"readings": readings_of(goal)})


def readings_of(goal: Goal) -> list[str]:
    """How each number of the goal is read, in words (for any goal, parsed or given as fields)."""
    readings: list[str] = []
    if goal.min_aggregate_tps is not None:
        readings.append(
            f"{goal.min_aggregate_tps:,.0f} tok/s: aggregate output tokens/s at concurrency {goal.concurrency}"
        )
    if goal.min_single_stream_tps is not None:
        readings.append(
            f"{goal.min_single_stream_tps:,.0f} tok/s: output tokens/s of one request alone (single stream)"
        )
    if goal.gpus:
        readings.append(f"GPUs {', '.join(map(str, goal.gpus))}: the GPUs I may use (for the policy and my launches)")
    elif goal.gpu_count is not None:
        readings.append(f"{goal.gpu_count} GPUs: a count, not ids; which GPUs are mine comes from the host facts")
    return readings


def goal_policy_rules(goal: Goal) -> list[dict[str, Any]]:
    """The deny rules the goal's "never X" clauses map to (one per vocabulary word, per matcher)."""
    rules: list[dict[str, Any]] = []
    seen: set[str] = set()
    for clause in goal.constraints:
        for pattern, rule_id, matchers in CONSTRAINT_RULES:
            if rule_id in seen or not pattern.search(clause):
                continue
            seen.add(rule_id)
            for i, match in enumerate(matchers):
                rules.append(
                    {
                        "id": rule_id if i == 0 else f"{rule_id}-{i + 1}",
                        "decision": "deny",
                        "reason": f'the goal says "{clause}"',
                        "match": match,
                    }
                )
    return rules


def with_goal_rules(policies: list[str], goal: Goal, state_dir: Path, run_key: str) -> list[str]:
    """The run's policy files plus the goal's rules; the default policy stays under them when it was implied."""
    from agent.policy.loader import load_file
    from agent.policy.policyset import DEFAULT_POLICY_PATH

    overlay = goal_policy_overlay(goal, state_dir, run_key)
    if overlay is None:
        return policies
    implied = all(not load_file(Path(p))[0].rules for p in policies)  # facts-only overlays sit on the default
    return [*([str(DEFAULT_POLICY_PATH)] if implied else []), *policies, str(overlay)]


def goal_policy_overlay(goal: Goal, state_dir: Path, run_key: str) -> Path | None:
    """A policy file with the goal's "never X" rules (None when none maps), kept with the run state."""
    rules = goal_policy_rules(goal)
    if not rules:
        return None
    path = state_dir / "goal-rules" / f"{run_key}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"version": 1, "description": f"rules from the goal: {goal.text}", "rules": rules}
    path.write_text(yaml.safe_dump(body, sort_keys=False))
    return path
