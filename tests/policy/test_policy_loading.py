"""Bad policy files are rejected at load with file, line and what to fix; good ones merge."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from agent.policy.loader import PolicyLoadError
from agent.policy.policyset import DEFAULT_POLICY_PATH, load_policy_set


def write(tmp_path: Path, text: str, name: str = "p.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


GOOD_RULE = """\
    rules:
      - id: r1
        decision: deny
        reason: nope
        match:
          program: [reboot]
"""


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        (GOOD_RULE.replace("decision: deny", "decison: deny"), 3, "unknown field 'decison'"),
        (GOOD_RULE.replace("decision: deny", "decision: block"), 3, "rule 'r1'"),
        (GOOD_RULE.replace("program: [reboot]", "programme: [reboot]"), 6, "unknown field 'programme'"),
        ("rules:\n  - id: r1\n    decision: deny\n    reason: nope\n    match: {}\n", 2, "no matcher"),
        (GOOD_RULE + GOOD_RULE.replace("    rules:\n", ""), 7, "duplicate id"),
        (GOOD_RULE.replace("program: [reboot]", "args_regex: '(unclosed'"), 6, "regex does not compile"),
        (GOOD_RULE.replace("program: [reboot]", "writes: ['{nope}/x']"), 6, "unknown fact {nope}"),
        ("rules:\n  - id: r1\n    id: r2\n", 3, "duplicate key 'id'"),
        ("rules: [\n", 2, "not valid YAML"),
        ("facts:\n  agent_gpus: [0, 1]\n  protected_pci: [not-a-pci]\n", 3, "not a PCI address"),
        ("examples:\n  - {command: ls, decision: maybe}\n", 2, "example #1"),
    ],
)
def test_bad_file_is_rejected_with_line(tmp_path: Path, text: str, line: int, needle: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(PolicyLoadError) as err:
        load_policy_set([path])
    message = str(err.value)
    assert message.startswith(f"{path}:{line}:"), message
    assert needle in message
    assert "fix:" in message
    assert "\n" not in message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PolicyLoadError, match="cannot read"):
        load_policy_set([tmp_path / "absent.yaml"])


def test_default_alone_and_version_binds_contents(tmp_path: Path) -> None:
    default = load_policy_set([])
    assert default.files[0][0] == str(DEFAULT_POLICY_PATH)
    assert len(default.version) == 16
    copy = write(tmp_path, DEFAULT_POLICY_PATH.read_text(), "copy.yaml")
    assert load_policy_set([copy]).version == default.version
    copy.write_text(copy.read_text().replace("reason: reboots,", "reason: Reboots,"))
    assert load_policy_set([copy]).version != default.version


def test_facts_overlay_merges_onto_default(tmp_path: Path) -> None:
    overlay = write(tmp_path, "facts:\n  work_dir: /srv/agent\n  agent_gpus: [0]\n  protected_paths: [/data]\n")
    policy = load_policy_set([overlay])
    assert [p for p, _ in policy.files] == [str(DEFAULT_POLICY_PATH), str(overlay)]
    assert policy.evaluate_command("rm -rf /data/x").decision == "deny"
    assert policy.evaluate_command("rm -rf /srv/agent/x").decision == "allow"


def test_strictest_decision_wins_across_files(tmp_path: Path) -> None:
    extra = write(
        tmp_path,
        """\
        rules:
          - id: no-nvtop
            decision: deny
            reason: the operator forbids nvtop
            match: {program: nvtop}
          - id: allow-reboot
            decision: allow
            reason: trying to override
            match: {program: reboot}
        """,
    )
    policy = load_policy_set([DEFAULT_POLICY_PATH, extra])
    assert policy.evaluate_command("nvtop").rules == ["no-nvtop"]
    verdict = policy.evaluate_command("reboot")
    assert verdict.decision == "deny"
    assert "allow-reboot" not in verdict.rules


def test_conflicting_work_dirs_are_an_error(tmp_path: Path) -> None:
    a = write(tmp_path, "facts: {work_dir: /a}\n", "a.yaml")
    b = write(tmp_path, "facts: {work_dir: /b}\n", "b.yaml")
    with pytest.raises(PolicyLoadError, match=r"facts\.work_dir"):
        load_policy_set([a, b])


def test_fail_closed_cannot_be_allow(tmp_path: Path) -> None:
    path = write(tmp_path, "fail_closed: allow\n")
    with pytest.raises(PolicyLoadError, match=r"p.yaml:1:"):
        load_policy_set([path])


def test_unless_exempts_only_when_sure(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        default: allow
        rules:
          - id: pip-shared
            decision: ask
            reason: shared env
            match: {program: pip, subcommand: install}
            unless: {program_path: ["/venv/**"]}
        """,
    )
    policy = load_policy_set([path])
    assert policy.evaluate_command("pip install x").decision == "ask"
    assert policy.evaluate_command("/venv/bin/pip install x").decision == "allow"
    assert policy.evaluate_command("$V/bin/pip install x").decision == "deny"


def test_reads_outside_matches_a_read_not_surely_inside(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        default: allow
        facts: {work_dir: /w}
        rules:
          - id: read-out
            decision: ask
            reason: reads outside /w
            match: {program: cat, reads_outside: ["{work_dir}/**"]}
        """,
    )
    policy = load_policy_set([path])
    assert policy.evaluate_command("cat /w/a").decision == "allow"
    assert policy.evaluate_command("cat /w/../etc/x").rules == ["read-out"]
    assert policy.evaluate_command('cat "$D/x"').rules == ["read-out"]  # not known: not surely inside
