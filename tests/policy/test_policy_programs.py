"""The analyser's shape: one model per program family under agent/policy/programs/, found through
one table, never importing the shell walker; no module over 800 lines; and the verdict corpus
script that guards restructures reports what changed."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from agent.policy.programs.table import HANDLERS, HOOKS, handler_for

REPO = Path(__file__).resolve().parents[2]
POLICY = REPO / "agent" / "policy"
# the shell walker: a model that imported one of these at run time would close an import cycle
WALKER = {f"agent.policy.{m}" for m in ("effects", "commands", "redirects", "assignments", "wrappers", "variables")}


def _runtime_imports(path: Path) -> set[str]:
    """Modules a file imports when it runs (imports under `if TYPE_CHECKING:` left out)."""
    tree = ast.parse(path.read_text())
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and ast.unparse(child.test) == "TYPE_CHECKING":
                continue
            if isinstance(child, ast.ImportFrom) and child.module:
                found.add(child.module)  # and `from agent.policy import effects`: a module by name
                found.update(f"{child.module}.{a.name}" for a in child.names)
            elif isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            visit(child)

    visit(tree)
    return found


def test_no_policy_module_is_over_800_lines() -> None:
    sizes = {p.relative_to(REPO).as_posix(): len(p.read_text().splitlines()) for p in POLICY.rglob("*.py")}
    assert {p: n for p, n in sizes.items() if n > 800} == {}
    assert len([p for p in sizes if "/programs/" in p]) >= 20  # the models are there, one per family


def test_program_models_never_import_the_walker() -> None:
    models = list((POLICY / "programs").rglob("*.py"))
    offenders = {p.name: sorted(_runtime_imports(p) & WALKER) for p in models if _runtime_imports(p) & WALKER}
    assert offenders == {}


def test_every_model_in_the_table_lives_in_a_program_module() -> None:
    homes = {f.__module__ for f in [*HANDLERS.values(), *HOOKS.values()]}
    assert {m for m in homes if not m.startswith("agent.policy.programs.")} == set()
    assert "agent.policy.programs.builtins" in homes  # the shell's own builtins are models too
    # families found by name, not listed one by one
    assert handler_for("python3.12") is handler_for("python3") is not None
    assert handler_for("bash") is handler_for("dash") is not None
    assert handler_for("nvidia-smi") is HANDLERS["nvidia-smi"]
    assert handler_for("no-such-program") is None


def _record(path: Path, verdicts: dict[str, tuple[str, list[str]]]) -> None:
    lines = [
        json.dumps({"command": c, "facts": "lab-host", "decision": d, "rules": r}) for c, (d, r) in verdicts.items()
    ]
    path.write_text("\n".join(lines) + "\n")


def _diff(a: Path, b: Path) -> subprocess.CompletedProcess[str]:
    script = REPO / "scripts" / "verdict-corpus"
    return subprocess.run([sys.executable, str(script), "diff", str(a), str(b)], capture_output=True, text=True)


def test_verdict_corpus_diff_reports_each_changed_verdict(tmp_path: Path) -> None:
    before, same, after = tmp_path / "before.jsonl", tmp_path / "same.jsonl", tmp_path / "after.jsonl"
    verdicts = {"ls": ("allow", ["common-tools"]), "reboot": ("deny", ["power-programs"])}
    _record(before, verdicts)
    _record(same, verdicts)
    _record(after, {**verdicts, "reboot": ("deny", ["power-programs", "write-protected"])})
    agreed = _diff(before, same)
    assert agreed.returncode == 0 and "0 differ" in agreed.stdout
    changed = _diff(before, after)
    assert changed.returncode == 1
    assert "'reboot'" in changed.stdout and "write-protected" in changed.stdout and "1 differ" in changed.stdout
    assert "'ls'" not in changed.stdout


def test_verdict_corpus_names_a_missing_recording(tmp_path: Path) -> None:
    present = tmp_path / "a.jsonl"
    _record(present, {"ls": ("allow", [])})
    done = _diff(present, tmp_path / "missing.jsonl")
    assert done.returncode == 2
    assert "missing.jsonl: no such recording" in done.stderr and "Traceback" not in done.stderr
