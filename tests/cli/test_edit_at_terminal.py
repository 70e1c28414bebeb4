"""`edit <command>` at the terminal (#30, item 3): its output is shown where it was typed, an edit
the policy marks "ask" says that the operator's words approved it, and the audit files each edit
by what the gate did with it (a denied one is a denial, not an approval)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.opsagent_process import CliRun
from tests.terminal import at_terminal, read_until


def test_edits_show_their_output_and_are_filed_by_what_the_gate_did(cli: CliRun, workspace: Path) -> None:
    pid, fd = at_terminal(workspace, "run", "--target", "lab:vm-no-p2p", "--run-id", "ed")
    seen = bytearray()
    for line in (b"edit nvidia-smi -L", b"edit pip install foo", b"edit reboot", b"stop"):
        read_until(fd, b"reply>", seen)
        os.write(fd, line + b"\n")
    read_until(fd, b"transcript:", seen)
    os.waitpid(pid, 0)
    os.close(fd)
    text = seen.decode(errors="replace")
    # the lab's eight GPUs, as nvidia-smi -L prints them, at the terminal (not only in the transcript)
    assert len(re.findall(r"\| GPU \d: NVIDIA", text)) == 8, text[-3000:]
    asked = "approved by your reply: the policy asks for approval (pkg-python-shared"
    assert text.count(asked) == 1 and "your words approved it" in text, text[-3000:]
    assert text.index("| GPU 7: NVIDIA") < text.index(asked) < text.index("DENY run_command: reboot")

    out = workspace / "audit.md"
    assert cli("replay", str(workspace / "transcripts" / "ed.jsonl"), "--export", str(out)).returncode == 0
    md = out.read_text()
    approvals = md[md.index("## Approvals") : md.index("## Denials")]
    denials = md[md.index("## Denials") : md.index("## Errors")]
    assert "pip install foo" in approvals and "approved by the edit" in approvals
    assert "reboot" not in approvals and "nvidia-smi -L" not in approvals  # allowed anyway: no approval
    assert "run_command: reboot" in denials
