"""Secrets planted in commands, outputs and environments never reach the file; redactions are recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.transcript.reader import read_events
from agent.transcript.scrub import Scrubber
from agent.transcript.verify import verify_transcript
from agent.transcript.writer import TranscriptWriter

HF = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ012345"
GHP = "ghp_" + "0123456789abcdefghijABCDEFGHIJklmnop"
OPENAI = "sk-proj-" + "Zx9" * 12
AWS_ID = "AKIA" + "ABCDEFGHIJKLMNOP"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
BEARER = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.dGhpc2lzYXRlc3Q"
DBPASS = "s3cr3t-Pa55"
SECRETS = [HF, GHP, OPENAI, AWS_ID, AWS_SECRET, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU", BEARER, DBPASS, "hunter2"]


def planted(tmp_path: Path) -> Path:
    with TranscriptWriter.create(tmp_path, "secrets", fsync=False) as w:
        w.emit(
            "decision",
            {
                "action": {
                    "tool": "run_command",
                    "args": {
                        "command": f"HF_TOKEN={HF} huggingface-cli download zai/GLM-5 && "
                        f"curl -H 'Authorization: Bearer {BEARER}' https://api.example/v1 && "
                        f"git clone https://bob:{DBPASS}@git.example/repo.git",
                        "env": {
                            "HF_TOKEN": HF,
                            "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
                            "CUDA_VISIBLE_DEVICES": "0,1",
                        },
                    },
                },
                "rationale": "download the weights",
                "usage": [{"model": "m", "prompt_tokens": 1200, "completion_tokens": 80}],
            },
        )
        w.emit(
            "action_result",
            {
                "output": f"cat ~/.aws/credentials\naws_access_key_id = {AWS_ID}\n"
                f"aws_secret_access_key = {AWS_SECRET}\n{PRIVATE_KEY}\nGITHUB={GHP}\nkey {OPENAI}\n"
                + ("filler line\n" * 1000),  # over 8 KiB: goes to a blob, which must be clean too
            },
        )
        w.emit("observation", {"data": {"password": "hunter2", "max_total_tokens": 8192, "prompt_tokens": 5}})
        return w.path


def test_planted_secrets_never_appear_in_transcript_or_blobs(tmp_path: Path) -> None:
    path = planted(tmp_path)
    files = [path, *(tmp_path / "blobs").iterdir()]
    assert len(files) == 2
    for f in files:
        text = f.read_text()
        for secret in SECRETS:
            assert secret not in text, f"{secret!r} leaked into {f.name}"
    assert verify_transcript(path).ok


def test_redactions_are_recorded_with_pattern_and_place(tmp_path: Path) -> None:
    events = list(read_events(planted(tmp_path)))
    where = {(r["pattern"], r["path"]) for r in events[0].redactions}
    assert ("hf_token_env", "/action/args/command") in where
    assert ("authorization_header", "/action/args/command") in where
    assert ("url_password", "/action/args/command") in where
    assert ("secret_key", "/action/args/env/HF_TOKEN") in where
    assert ("secret_key", "/action/args/env/AWS_SECRET_ACCESS_KEY") in where
    cmd = events[0].payload["action"]["args"]["command"]
    assert "HF_TOKEN=[REDACTED:hf_token_env] huggingface-cli download zai/GLM-5" in cmd
    assert events[0].payload["action"]["args"]["env"]["CUDA_VISIBLE_DEVICES"] == "0,1"
    out_patterns = {r["pattern"] for r in events[1].redactions}
    assert {"private_key", "aws_credentials", "github_token", "openai_key"} <= out_patterns
    # Counts of tokens are not secrets.
    assert events[2].payload["data"]["max_total_tokens"] == 8192
    assert [r["path"] for r in events[2].redactions] == ["/data/password"]


@pytest.mark.parametrize(
    "text",
    [
        "python -m sglang.launch_server --api-key abc123secret --port 30000",
        "export OPENAI_API_KEY=abc123secret",
        "MY_SERVICE_PASSWORD='abc123secret' ./run.sh",
        "DB_SECRET_VALUE=abc123secret",
        "proxy-authorization: Basic abc123secret",
        "postgres://admin:abc123secret@db:5432/x",
        "-----BEGIN RSA PRIVATE KEY-----\nabc123secret",  # cut off by output capping: still redacted
    ],
)
def test_default_patterns(text: str) -> None:
    out, found = Scrubber().scrub({"s": text})
    assert "abc123secret" not in out["s"]
    assert found and found[0].path == "/s"


@pytest.mark.parametrize(
    "text",
    [
        "python -m sglang.launch_server --max-total-tokens 8192 --tokenizer-path /m",
        "MAX_TOKENS=512 max_new_tokens=128",
        "nvidia-smi topo -p2p r",
        "NCCL_P2P_DISABLE=1 HF_HUB_ENABLE_HF_TRANSFER=1",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    out, found = Scrubber().scrub(text)
    assert out == text and found == []


def test_extra_patterns_from_config() -> None:
    scrubber = Scrubber(extra_patterns=[r"corp-[0-9]{6}", r"vault_key=(?P<secret>\S+)"])
    out, found = scrubber.scrub({"cmd": "use corp-123456 and vault_key=zzz"})
    assert out["cmd"] == "use [REDACTED:extra_0] and vault_key=[REDACTED:extra_1]"
    assert [r.pattern for r in found] == ["extra_0", "extra_1"]


def test_bad_extra_pattern_is_named() -> None:
    with pytest.raises(ValueError, match="extra_0"):
        Scrubber(extra_patterns=["(unclosed"])
