"""The scrubber remembers what it found in a text (the checkpointer stores the whole state every
step): a text seen before must come out exactly as the first time, with each redaction recorded at
the path where it is now, and a scrubber shared between writers must still follow the environment."""

from __future__ import annotations

import ormsgpack

from agent.store import at_rest
from agent.store.at_rest import PackedMemo, scrub_packed
from agent.transcript.scrub import Scrubber

HF = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ012345"
LINE = f"export HF_TOKEN={HF}; python3 -m sglang.launch_server --tp 8"


def test_a_text_seen_again_is_redacted_again_at_its_own_path() -> None:
    scrubber = Scrubber()
    first, found_first = scrubber.scrub({"a": LINE})
    again, found_again = scrubber.scrub({"b": [LINE, "plain"], "c": LINE})
    assert HF not in str(first) and HF not in str(again)
    assert again["b"][0] == again["c"] == first["a"]
    assert again["b"][1] == "plain"
    assert [r.path for r in found_first] == ["/a"]
    assert sorted(r.path for r in found_again) == ["/b/0", "/c"]
    assert {r.pattern for r in found_again} == {r.pattern for r in found_first}


def test_a_full_memo_starts_over_and_still_redacts(monkeypatch: object) -> None:
    import agent.transcript.scrub as scrub_module

    monkeypatch.setattr(scrub_module, "MEMO_CHARS", 10)  # type: ignore[attr-defined]
    scrubber = Scrubber()
    for i in range(5):
        text, found = scrubber.scrub_text(f"{i} {LINE}")
        assert HF not in text and found


def _ext_payload(text: str) -> bytes:
    """msgpack with an extension value holding `text` (as LangGraph stores a pydantic model)."""
    inner = ormsgpack.packb({"stdout": text})
    return ormsgpack.packb({"values": [ormsgpack.Ext(5, inner)], "step": 1})


def test_remembered_payloads_are_matched_by_their_bytes() -> None:
    scrubber, memo = Scrubber(), PackedMemo()
    for _ in range(2):  # the second round answers from the memo
        for who in ("ann", "bob"):  # payloads of the same length, different text
            payload = _ext_payload(f"{who} used {HF}")
            out = scrub_packed(scrubber, payload, memo)
            assert out == scrub_packed(scrubber, payload)  # as without a memo
            assert HF.encode() not in out and f"{who} used [REDACTED:hf_token]".encode() in out


def test_the_shared_scrubber_follows_the_environment() -> None:
    one, two = "Zq8pL2mX9vR4tK7w", "Pp3rT6yU1iO0aS5d"
    first = at_rest.scrubber({"MY_API_KEY": one})
    assert at_rest.scrubber({"MY_API_KEY": one}) is first  # shared, so a text is scanned once
    assert one not in first.scrub_text(f"key {one}")[0]
    second = at_rest.scrubber({"MY_API_KEY": two})
    assert two not in second.scrub_text(f"key {two}")[0]
    assert at_rest.scrubber({}).scrub_text(f"key {two}")[0] == f"key {two}"
