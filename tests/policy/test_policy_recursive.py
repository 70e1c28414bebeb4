"""Secrets read without being named: a recursive read of a directory that holds them."""

from __future__ import annotations

import pytest

from agent.policy.facts import DYN, GLOB
from agent.policy.gate import GateContext
from agent.policy.policyset import PolicySet, load_policy_set
from agent.policy.programs.search import search_roots
from agent.policy.recursive import reads_recursively, secrets_within


@pytest.mark.parametrize(
    ("argv", "recursive"),
    [
        (["grep", "-rn", "x", "d"], True),
        (["grep", "-d", "recurse", "x", "d"], True),
        (["grep", "--dereference-recursive", "x"], True),
        (["grep", "-n", "x", "f"], False),
        (["rg", "x"], True),
        (["tar", "czf", "x.tgz", "d"], True),
        (["tar", "-xzf", "x.tgz"], False),
        (["cp", "-a", "a", "b"], True),
        (["cp", "a", "b"], False),
        (["rsync", "-avz", "a", "b"], True),
        (["zip", "-r", "x.zip", "d"], True),
        (["scp", "a", "h:b"], False),
    ],
)
def test_which_reads_descend(argv: list[str], recursive: bool) -> None:
    assert reads_recursively(argv[0], argv[1:]) is recursive


def test_the_pattern_is_not_a_place_searched() -> None:
    assert search_roots(["-rn", "token", "a", "b"]) == ["a", "b"]
    assert search_roots(["-r", "-e", "token", "a"]) == ["a"]
    assert search_roots(["-r", "-A", "3", "token"]) == []
    assert search_roots(["-g", "*.py", "token", "--", "-dir"]) == ["-dir"]


def test_secret_locations_beneath_a_directory() -> None:
    home = "/home/ops"
    assert secrets_within(home, home) == (f"{home}/.{DYN}",)  # every dot-file of the home, at any depth
    assert secrets_within(f"{home}/.ssh", home) == (f"{home}/.ssh/{GLOB}",)
    assert secrets_within(f"{home}/.config", home) == (f"{home}/.config/gcloud/{GLOB}", f"{home}/.config/rclone/{GLOB}")
    assert secrets_within(f"{home}/opsagent-work", home) == ()
    everything = secrets_within("/", home)
    assert "/etc/shadow" in everything and f"/home/{GLOB}/.{DYN}" in everything and f"/root/.{DYN}" in everything
    assert secrets_within("/home/other", home) == (f"/home/other/.{DYN}",)
    assert secrets_within("/srv/data", home, ("/srv/data/keys",)) == (f"/srv/data/keys/{GLOB}",)
    assert secrets_within("~", None) == (f"~/.{DYN}",)  # facts that name no home: `~` is still one


def test_a_recursive_read_of_home_is_denied_without_host_facts() -> None:
    verdict = load_policy_set([]).evaluate_command("grep -r . ~", None)
    assert verdict.decision == "deny"
    assert "secret-files" in verdict.rules  # (beside the classes a run-time name may be)


@pytest.mark.parametrize(
    "command",
    [
        "grep -r . ~/.ssh/",
        "cd ~ && grep -rn BEGIN",
        "tar czf - ~ | base64",
        "cp -a ~ /tmp/copy",
        "find ~ -type f -exec cat {} +",
        'echo "$(<~/.ssh/id_rsa)"',
    ],
)
def test_a_secret_read_through_its_directory_is_denied(policy: PolicySet, ctx: GateContext, command: str) -> None:
    verdict = policy.evaluate_command(command, ctx)
    assert verdict.decision == "deny"
    assert verdict.rules == ["secret-files"]


@pytest.mark.parametrize(
    "command",
    [
        "grep -rn error ~/opsagent-work/logs",
        "cd ~/opsagent-work && rg -n Traceback",
        "find ~/opsagent-work -name '*.log' -exec grep -l OOM {} +",
        "echo $(<~/opsagent-work/run/sglang.pid)",
        "ls -la ~/.ssh/",
    ],
)
def test_searching_the_agents_own_files_stays_allowed(policy: PolicySet, ctx: GateContext, command: str) -> None:
    assert policy.evaluate_command(command, ctx).decision == "allow"
