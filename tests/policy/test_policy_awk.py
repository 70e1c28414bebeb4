"""awk read as awk reads it: every program text (`-e`, `--source`, abbreviations, mawk's -W),
strings and regular expressions told from division, redirects from comparisons."""

from __future__ import annotations

import pytest

from agent.policy.facts import DYN
from agent.policy.gate import GateContext
from agent.policy.policyset import PolicySet
from agent.policy.programs.awk import awk_effects, read_awk


@pytest.mark.parametrize(
    "command",
    [
        "awk -W exec /dev/stdin <<< 'BEGIN{system(\"reboot\")}'",
        "awk -e 'BEGIN{}' -e 'BEGIN{system(\"reboot\")}'",
        "gawk -e'BEGIN{system(\"reboot\")}'",
        "gawk --so='BEGIN{system(\"reboot\")}'",
        "gawk --exe=/dev/stdin",
        "awk 'BEGIN{x = 1 /2; system(\"reboot\"); y = 3/ 4}'",
        'awk \'BEGIN{ a = "x" ~ /"/; system("reboot"); b = "x" ~ /"/ }\'',
        "awk 'BEGIN{system\\\n(\"reboot\")}'",
        'awk \'BEGIN { x = 4 /2; print "b" > "/proc/sysrq-trigger"; y = 2/ 1 }\'',
        "awk 'BEGIN{getline l < \"/home/ops/.ssh/id_rsa\"; print l}'",
    ],
)
def test_awk_programs_that_run_or_reach_the_host_are_denied(policy: PolicySet, ctx: GateContext, command: str) -> None:
    assert policy.evaluate_command(command, ctx).decision == "deny"


@pytest.mark.parametrize(
    "command",
    [
        'awk \'{print $1, ($2 > 0 ? "pos" : "neg")}\' f',
        "awk '{ print $1 > \"out.txt\" }' f",
        "awk 'BEGIN{getline l < \"/proc/loadavg\"; print l}'",
        "awk -F, '$3 > 10 || $4 < 2 {print $1}' data.csv",
        "awk '{s += $1} END {print s / NR}' f",
    ],
)
def test_awk_comparisons_division_and_work_files_are_allowed(policy: PolicySet, ctx: GateContext, command: str) -> None:
    assert policy.evaluate_command(command, ctx).decision == "allow"


def test_awk_command_line_and_program_effects() -> None:
    line = read_awk(["-F", ",", "-v", "x=1", "--", "{print}", "a.csv", "y=2", "b.csv"])
    assert line.programs == ["{print}"] and line.files == ["a.csv", "b.csv"] and line.opaque is None
    assert read_awk(["-e", "BEGIN{}", "data"]).files == ["data"]
    assert read_awk(["--fi", "p.awk"]).opaque is not None
    found = awk_effects('{print > "o.txt"; print >> $2; getline x < "in"}')
    assert found.writes == ["o.txt", DYN] and found.reads == ["in"] and not found.runs
    assert awk_effects('{ if (a || b) print "x|y" }').runs is False
    assert awk_effects('{ print | "sort" }').runs is True


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        # a `/` awk reads the other way from the gate must not hide a call
        ("awk 'BEGIN { print /#/; system(\"reboot\") }'", "deny"),
        ("gawk 'BEGIN { i = 1; x = i++ / 2; system(\"reboot\"); y = 3 / 4 }'", "deny"),
        # redirect targets spelled with escapes or worked out, files read through ARGV or into arrays
        ('awk \'BEGIN { print "b" > "\\057proc\\057sysrq-trigger" }\'', "deny"),
        ('awk \'BEGIN { print "b" > ("/proc/" "sysrq-trigger") }\'', "deny"),
        ("awk 'BEGIN { ARGV[1] = \"/home/ops/.ssh/id_rsa\"; ARGC = 2 } { print }'", "deny"),
        ('awk \'BEGIN { getline a["k"] < "/home/ops/.ssh/id_rsa"; print a["k"] }\'', "deny"),
        # options in clusters and abbreviated; the symbol table reaches ENVIRON
        ("awk -bf prog.awk x", "deny"),
        ("gawk --pre=/models/x 'BEGIN{}'", "deny"),
        ('gawk \'BEGIN { f = SYMTAB["ENVIRON"]; print f["HF_TOKEN"] }\'', "deny"),
        ("awk 'BEGIN { while ((getline l < \"notes.txt\") > 0) print l }'", "allow"),
        ("awk '{ print > \"/dev/stderr\" }' f", "allow"),
    ],
)
def test_awk_round_five(policy: PolicySet, ctx: GateContext, command: str, decision: str) -> None:
    assert policy.evaluate_command(command, ctx).decision == decision
