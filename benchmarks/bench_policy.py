"""How long the policy gate takes to judge a command, beside tree-sitter's bare parse of it.

Judged: every command example shipped in policies/default.yaml, under the lab host's facts.
Printed: median and p99 per command for the whole judgement (parse, effects, rules) and for the
bare tree-sitter parse, and their ratio; beside them, the parse plus a bare visit of every node
from Python, the floor any judgement written in Python starts from. The ratio has no goal any
more: issue #18 dropped "within 3x of the parse" (a second, native implementation of a security
boundary is not worth it for a judgement far below one SSH round trip); it is printed to see drift.

Start-up, each measured side by side in this run:
- `opsagent policy check -- true` in a fresh process against importing what the gate needs
  (pydantic, yaml, tree_sitter, tree_sitter_bash, typer, rich): goal within 3x, as wall time and
  as CPU time (user+sys: the wall ratio swings when other work shares the machine), with
  opsagent's bytecode cached as an installed copy has it (and, where the environment sets
  PYTHONDONTWRITEBYTECODE, also as it runs there: only the bytecode `make` compiled is read, and a
  source changed since is compiled again at every start);
- loading the default policy against composing its YAML with libyaml: goal within 2x;
- the share of the lab eval spent loading policies (goal: not the larger part).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from agent.policy.examples import example_context  # noqa: E402
from agent.policy.policyset import DEFAULT_POLICY_PATH, load_policy_set  # noqa: E402
from agent.policy.shellparse import _PARSER, preprocess  # noqa: E402

ROUNDS = 15


def per_command(fn: object, commands: list[str]) -> list[float]:
    """Median over rounds of each command's time, in microseconds."""
    samples: list[list[float]] = [[] for _ in commands]
    for _ in range(ROUNDS):
        for i, c in enumerate(commands):
            t0 = time.perf_counter()
            fn(c)  # type: ignore[operator]
            samples[i].append((time.perf_counter() - t0) * 1e6)
    return [statistics.median(s) for s in samples]


def parse_and_visit(command: str) -> int:
    """The bare parse plus a visit of every named node from Python, reading what any analysis
    must read (type and span) and doing nothing with it: the floor for a judgement in Python."""
    stack = [_PARSER.parse(command.encode()).root_node]
    seen = 0
    while stack:
        node = stack.pop()
        seen += node.end_byte - node.start_byte + len(node.type)
        stack.extend(node.named_children)
    return seen


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def main() -> int:
    policy = load_policy_set([REPO / "policies" / "lab-host.yaml"])
    ctx = example_context(policy)
    commands = [e.command for _, e in policy.examples if e.command is not None]
    policy.evaluate_command("true", ctx)  # compile the rules once, as a running agent would

    parse = per_command(lambda c: _PARSER.parse(c.encode()), commands)
    parse_pre = per_command(lambda c: _PARSER.parse(preprocess(c).encode()), commands)
    visit = per_command(parse_and_visit, commands)
    judge = per_command(lambda c: policy.evaluate_command(c, ctx), commands)

    print(f"policy gate: {len(commands)} example commands, {ROUNDS} rounds, policy {policy.version}")
    print(f"{'':32}{'median us':>12}{'p99 us':>12}")
    print(f"{'tree-sitter parse alone':32}{statistics.median(parse):12.1f}{p99(parse):12.1f}")
    print(f"{'parse + line continuations':32}{statistics.median(parse_pre):12.1f}{p99(parse_pre):12.1f}")
    print(f"{'parse + visit nodes from Python':32}{statistics.median(visit):12.1f}{p99(visit):12.1f}")
    print(f"{'whole judgement':32}{statistics.median(judge):12.1f}{p99(judge):12.1f}")
    ratio_median = statistics.median(judge) / statistics.median(parse)
    ratio_p99 = p99(judge) / p99(parse)
    print(f"ratio judgement/parse: median {ratio_median:.1f}x, p99 {ratio_p99:.1f}x (no goal: watched for drift)")
    floor_median = statistics.median(visit) / statistics.median(parse)
    print(f"ratio parse+visit/parse: median {floor_median:.1f}x (what walking the tree from Python costs alone)")
    startup()
    return 0


FLOOR = "import pydantic, yaml, tree_sitter, tree_sitter_bash, typer, rich"  # everything the gate needs
CHECK = ["-m", "agent.cli", "policy", "check", "--", "true"]


def fresh(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user+sys) seconds of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    elapsed = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def side_by_side(env: dict[str, str], rounds: int = 9) -> dict[str, tuple[float, float]]:
    """Median wall and CPU of the import floor and of `policy check`, run alternately so that
    both see the same load from whatever else the machine runs."""
    argvs = {"floor": [sys.executable, "-c", FLOOR], "check": [sys.executable, *CHECK]}
    for argv in argvs.values():
        fresh(argv, env)  # a first run writes the bytecode (where the environment lets it)
    samples: dict[str, list[tuple[float, float]]] = {k: [] for k in argvs}
    for _ in range(rounds):
        for name, argv in argvs.items():
            samples[name].append(fresh(argv, env))
    return {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in samples.items()}


def print_startup(label: str, env: dict[str, str]) -> None:
    m = side_by_side(env)
    (fw, fc), (cw, cc) = m["floor"], m["check"]
    print(f"start-up, {label}: policy check cold {cw:.2f} s wall, {cc:.2f} s CPU; import floor {fw:.2f} s, {fc:.2f} s")
    print(f"  ratio: wall {cw / fw:.1f}x, CPU (user+sys) {cc / fc:.1f}x (goal: within 3x)")


def in_process(fn: object, rounds: int = 7) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def startup() -> None:
    # As installed: opsagent's modules compiled once, as pip (or a first run) leaves them. The
    # bytecode goes to a scratch prefix, for both sides alike, so the checkout is not written to.
    with tempfile.TemporaryDirectory(prefix="bench-policy-pyc-") as pyc:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = pyc
        print_startup("bytecode cached (as installed)", env)
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        # this environment forbids writing bytecode: only what `make` compiled is read
        print_startup(
            "as this environment runs it (PYTHONDONTWRITEBYTECODE: what make compiled is read)", dict(os.environ)
        )

    text = DEFAULT_POLICY_PATH.read_text()
    compose = in_process(lambda: yaml.compose(text, Loader=yaml.CSafeLoader))
    load = in_process(lambda: load_policy_set([]))
    ratio = load / compose
    print(f"loading default.yaml {load * 1e3:.0f} ms, libyaml compose {compose * 1e3:.0f} ms: ", end="")
    print(f"{ratio:.1f}x (goal: within 2x)")

    from agent.loop.evaluate import run_eval
    from tools.lab.scenario import scenario_names

    names = scenario_names()
    t0 = time.perf_counter()
    run_eval(names)
    eval_s = time.perf_counter() - t0
    overlay = REPO / "policies" / "lab-host.yaml"
    per_load = in_process(lambda: load_policy_set([overlay]), rounds=3)
    share = per_load * len(names) / eval_s
    loads = per_load * len(names)
    print(f"lab eval of {len(names)} scenarios {eval_s:.2f} s; loading their policies {loads:.2f} s: {share:.0%} of it")


if __name__ == "__main__":
    raise SystemExit(main())
