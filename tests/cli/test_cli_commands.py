"""The command table (agent/cli/main.py, SUBCOMMANDS): every sub-command answers, and one command
loads only what it needs - `policy check` neither the loop, the store, nor the other commands."""

from __future__ import annotations

import re

from agent.cli.main import SUBCOMMANDS
from tests.opsagent_process import CliRun

# what `opsagent policy check` must not import: the loop and its state, the other sub-commands
NOT_FOR_A_POLICY_CHECK = (
    "langgraph",
    "structlog",
    "jinja2",
    "rich.markdown",
    "agent.loop.runner",
    "agent.state",
    "agent.store",
    "agent.config",
    "tools.lab",
    "agent.cli.transcript",
    "agent.cli.inbox",
    "agent.cli.lab",
    "agent.cli.doctor",
    "agent.cli.sandbox",
)


def test_policy_check_imports_the_gate_and_nothing_of_a_run(cli: CliRun) -> None:
    proc = cli("policy", "check", "--", "true", extra_env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("allow")
    imported = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", proc.stderr, re.M))
    # (a module loaded by importlib.import_module is not itself reported, only what it imports)
    assert "agent.policy.policyset" in imported  # the report is read right
    assert sorted(m for m in imported if m.startswith(NOT_FOR_A_POLICY_CHECK)) == []


def test_every_sub_command_answers_its_help_and_the_root_lists_them_in_order(cli: CliRun) -> None:
    for name in SUBCOMMANDS:
        proc = cli(name, "--help")
        assert proc.returncode == 0, (name, proc.stderr)
        assert proc.stdout.startswith(f"Usage: opsagent {name} "), (name, proc.stdout)
    listed = re.findall(r"^  (\S+)\s", cli("--help").stdout.split("Commands:")[1], re.M)
    assert listed == ["demo", "run", "worker", "resume", "reply", "eval", *SUBCOMMANDS]


def test_a_misspelt_command_is_named_with_the_commands_it_may_mean(cli: CliRun) -> None:
    proc = cli("polcy", "check", "--", "true")
    assert proc.returncode == 2
    assert "No such command 'polcy'. Did you mean 'policy'" in proc.stderr
    proc = cli("policy", "chek")
    assert proc.returncode == 2
    assert "No such command 'chek'. Did you mean 'check'?" in proc.stderr
