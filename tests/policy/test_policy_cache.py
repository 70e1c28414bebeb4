"""The per-user cache of validated policy files: a hit is the same policy, an edit is a miss, and
an entry nobody but this user could have written is the only kind ever unpickled."""

from __future__ import annotations

import os
import pickle
import textwrap
from pathlib import Path

import pytest

from agent.policy.cache import CACHE_ENV
from agent.policy.policyset import DEFAULT_POLICY_PATH, load_policy_set

POLICY = """\
    rules:
      - id: no-reboot
        decision: deny
        reason: never reboot
        match:
          program: [reboot]
"""


class _Planted:
    """Unpickling this touches a marker file: a harmless stand-in for what a foreign entry could run."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[Path]]:
        return (Path.touch, (self.marker,))


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv(CACHE_ENV, str(directory))
    return directory


def test_a_second_load_is_served_from_the_cache_and_judges_the_same(cache_dir: Path, tmp_path: Path) -> None:
    first = load_policy_set([])
    entries = sorted(cache_dir.glob("*.pickle"))
    assert len(entries) == 1
    second = load_policy_set([])
    assert second.version == first.version
    for command in ("reboot", "nvidia-smi -L", "rm -rf /models", "echo 1 > /proc/sysrq-trigger"):
        assert second.evaluate_command(command).decision == first.evaluate_command(command).decision
    assert sorted(cache_dir.glob("*.pickle")) == entries  # nothing new written on a hit


def test_an_edited_file_is_a_miss_never_a_stale_hit(cache_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(textwrap.dedent(POLICY))
    assert load_policy_set([path]).evaluate_command("reboot").decision == "deny"
    path.write_text(textwrap.dedent(POLICY).replace("decision: deny", "decision: ask"))
    assert load_policy_set([path]).evaluate_command("reboot").decision == "ask"
    assert len(list(cache_dir.glob("*.pickle"))) == 2


def test_a_truncated_entry_is_a_miss(cache_dir: Path) -> None:
    load_policy_set([])
    (entry,) = cache_dir.glob("*.pickle")
    entry.write_bytes(entry.read_bytes()[:100])
    assert load_policy_set([]).evaluate_command("reboot").decision == "deny"


def test_entries_in_a_directory_others_can_write_are_never_unpickled(cache_dir: Path, tmp_path: Path) -> None:
    load_policy_set([])
    (entry,) = cache_dir.glob("*.pickle")
    marker = tmp_path / "unpickled"
    entry.write_bytes(pickle.dumps(_Planted(marker)))
    os.chmod(cache_dir, 0o777)
    assert load_policy_set([]).evaluate_command("reboot").decision == "deny"
    assert not marker.exists()
    os.chmod(cache_dir, 0o700)  # the same entry in a private directory is this user's own: it is read
    load_policy_set([])
    assert marker.exists()


def test_the_cache_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert load_policy_set([DEFAULT_POLICY_PATH]).evaluate_command("reboot").decision == "deny"
    assert not (tmp_path / "xdg").exists()
