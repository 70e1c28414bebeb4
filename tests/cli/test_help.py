"""Help reads at 80 columns: values named in words (TEXT, PATH, N), not Python types (`<str>`,
`<bool>`, `<list[Path]>`); no line past 80 columns or cut short; every sub-command listed (`lab
show` among them); and the README names the commands the help lists."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# One process prints every command's help, as `opsagent ... --help` does (through `main`), walking
# the "Commands:" lists: one interpreter start instead of one per command.
ALL_HELP = r"""
import contextlib, io, json, re, sys
from agent.cli import main as cli

def help_of(path):
    buf = io.StringIO()
    sys.argv = ["opsagent", *path, "--help"]
    with contextlib.redirect_stdout(buf):
        try:
            cli.main()
        except SystemExit:
            pass
    return buf.getvalue()

texts, todo = {}, [[]]
while todo:
    path = todo.pop(0)
    text = texts[" ".join(path)] = help_of(path)
    for line in text.partition("Commands:")[2].splitlines():
        found = re.match(r"^  (\S+)\s", line)
        if found:
            todo.append([*path, found.group(1)])
print(json.dumps(texts))
"""

PYTHON_TYPE = re.compile(r"<(?:bool|str|int|float|path|Path|list|dict|tuple|Optional)\b[^>]*>")


@pytest.fixture(scope="module")
def helps() -> dict[str, str]:
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    done = subprocess.run(
        [sys.executable, "-c", ALL_HELP], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    texts: dict[str, str] = json.loads(done.stdout)
    return texts


def test_every_command_has_help_that_reads_at_80_columns(helps: dict[str, str]) -> None:
    for name in ("run", "resume", "reply", "rerun", "lab show", "inbox show", "policy check", "sandbox check"):
        assert name in helps, sorted(helps)
    for name, text in helps.items():
        assert text.startswith("Usage: opsagent"), (name, text[:300])
        assert not PYTHON_TYPE.findall(text), (name, PYTHON_TYPE.findall(text))
        wide = [line for line in text.splitlines() if len(line) > 80]
        assert not wide, (name, wide)
        options = text.partition("Options:")[2]
        assert "…" not in options, (name, options)  # option names and their words are never cut


def test_run_help_keeps_option_names_whole_and_descriptions_readable(helps: dict[str, str]) -> None:
    text = helps["run"]
    assert "--accept-new-host-key / --no-accept-new-host-key" in text
    for value in ("--goal TEXT", "--target TARGET", "--policy FILE", "--max-steps N", "--state DIR"):
        assert value in text, value
    # a description column wide enough for a phrase on one line, not ~19 characters
    assert "lab:NAME, local, or ssh://user@host[:port]" in text


def test_lab_help_lists_show_and_lab_list_says_what_each_scenario_is(helps: dict[str, str]) -> None:
    listed = re.findall(r"^  (\S+)\s", helps["lab"].partition("Commands:")[2], re.M)
    assert {"list", "show", "validate"} <= set(listed), listed
    env = {**os.environ, "COLUMNS": "80"}
    done = subprocess.run(
        [sys.executable, "-m", "agent.cli", "lab", "list"], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split(None, 1) for line in done.stdout.splitlines() if line.strip()]
    assert len(rows) >= 5 and all(len(row) == 2 and len(row[1]) >= 20 for row in rows), done.stdout
    assert any(row[0] == "p2p-corruption" for row in rows)


def test_the_readme_documents_the_commands_the_issue_named() -> None:
    readme = (REPO / "README.md").read_text()
    for usage in ("opsagent rerun ", "opsagent lab show ", "opsagent inbox show ", "## Exit codes"):
        assert usage in readme, usage
