"""Load: N lab runs started detached at once, several repliers, a few runs killed and resumed.

Prints what `benchmarks/load_harness.py` checks (runs lost, replies applied twice, actions run
twice, transcripts that fail to verify, errors) and the time from a reply to the run moving on,
against the same time measured with one run alone in the same invocation; first with the state
in SQLite, then the same against Postgres (a throwaway server, benchmarks/pg_server.py, when
Debian's `postgresql` is installed), and the two side by side. Exits 1 when anything was lost,
doubled or broken. `python benchmarks/bench_load.py [N]` (default 50).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.load_harness import LoadReport, run_load  # noqa: E402
from benchmarks.pg_server import binaries, running_server  # noqa: E402


def measure(runs: int, state: tuple[str, str] | None = None, machines: int = 1) -> tuple[LoadReport, LoadReport]:
    """(one run alone, N runs at once); `state`: URLs of two fresh Postgres databases, else SQLite;
    `machines`: how many worker directories (each its own HOME and files) share the database."""
    # Runs still writing when the time is up leave files behind: that is reported, not an error here.
    with tempfile.TemporaryDirectory(prefix="opsagent-load-alone-", ignore_cleanup_errors=True) as alone_dir:
        alone = run_load(
            Path(alone_dir),
            runs=1,
            repliers=1,
            kills=0,
            contested_every=10**9,
            prefix="alone",
            state=state[0] if state else None,
        )
    with tempfile.TemporaryDirectory(prefix="opsagent-load-", ignore_cleanup_errors=True) as load_dir:
        loaded = run_load(
            Path(load_dir),
            runs=runs,
            repliers=4,
            kills=max(1, runs // 15),
            contested_every=4,
            state=state[1] if state else None,
            machines=machines,
        )
    return alone, loaded


def show(name: str, runs: int, alone: LoadReport, loaded: LoadReport) -> None:
    print(f"== state in {name}")
    print(f"one run alone: reply -> run moves on: median {alone.latency(0.5):.2f} s, p99 {alone.latency(0.99):.2f} s")
    print(f"{runs} runs at once, 4 repliers ({loaded.wall_s:.0f} s):")
    for line in loaded.lines():
        print(f"  {line}")
    print(f"reply latency under load / alone (median): {_ratio(loaded, alone):.2f}x")
    for problem in [*loaded.mismatched, *loaded.double_applied, *loaded.actions_run_twice, *loaded.errors][:20]:
        print(f"  problem: {problem}")


def _ratio(loaded: LoadReport, alone: LoadReport) -> float:
    return loaded.latency(0.5) / alone.latency(0.5) if alone.latency(0.5) > 0 else float("nan")


def side_by_side(results: dict[str, tuple[LoadReport, LoadReport]]) -> None:
    names = list(results)
    rows = [
        ("runs lost", lambda a, b: f"{b.lost}"),
        ("runs ended as answered", lambda a, b: f"{b.ended_as_answered}/{b.runs}"),
        ("replies accepted", lambda a, b: f"{b.replies_accepted}"),
        ("second answers refused", lambda a, b: f"{b.replies_refused_as_answered}"),
        ("replies applied twice", lambda a, b: f"{len(b.double_applied)}"),
        ("actions run (twice)", lambda a, b: f"{b.actions} ({len(b.actions_run_twice)})"),
        ("transcripts verified", lambda a, b: f"{b.transcripts_verified}/{b.runs}"),
        ("errors", lambda a, b: f"{len(b.errors)}"),
        ("reply -> moves on, median", lambda a, b: f"{b.latency(0.5):.2f} s"),
        ("reply -> moves on, p99", lambda a, b: f"{b.latency(0.99):.2f} s"),
        ("one run alone, median", lambda a, b: f"{a.latency(0.5):.2f} s"),
        ("under load / alone", lambda a, b: f"{_ratio(b, a):.2f}x"),
        ("wall time", lambda a, b: f"{b.wall_s:.0f} s"),
    ]
    print("== side by side")
    print(f"  {'':28}" + "".join(f"{n:>12}" for n in names))
    for label, cell in rows:
        print(f"  {label:28}" + "".join(f"{cell(*results[n]):>12}" for n in names))


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    results = {"SQLite": measure(runs)}
    show("SQLite", runs, *results["SQLite"])
    if binaries() is None:
        print("== state in Postgres: skipped (the server is not installed: apt-get install postgresql)")
    else:
        with running_server() as server:
            urls = (server.create_database("load_alone"), server.create_database("load_many"))
            results["Postgres"] = measure(runs, urls)
            show("Postgres", runs, *results["Postgres"])
            # a team: the same load from two machines' directories, killed runs resumed on the other
            two = (server.create_database("load_alone_2"), server.create_database("load_many_2"))
            results["PG 2 dirs"] = measure(runs, two, machines=2)
        show("Postgres, workers in two directories", runs, *results["PG 2 dirs"])
        side_by_side(results)
    return 0 if all(a.ok and b.ok for a, b in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
