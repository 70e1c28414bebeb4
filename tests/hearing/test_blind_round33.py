"""Round 33's blind sets (sre132 a Chinese-native engineer, sre133 replies from an e-mail client, sre134 a capacity
engineer's conditions, sre135 chat abbreviations, redteam33 words a keyword reader would misread), fixed by class.
20 of its 28 checks fail on the code before the fix (2ddad84); the 8 others are guards, said so (GPUs with a verb or
"only", a GPU set put right, "keep it out", relayed words alone, a quote of someone else, a flag after "--"). The safety
cases are first. The cases are the classes' own, not the sets' lines."""

from __future__ import annotations

from typing import Any

import pytest
from hearing_testkit import kind_of, taken

from agent.hearing import bounds
from agent.hearing.heed import ask_back
from agent.hearing.instructions import hear
from agent.state import OperatorRules

HOST = list(range(8))

# ------------------------------------------------------------------------------ what must never be taken


@pytest.mark.parametrize("text", ["gpu 3", "GPU 5.", "card 2", "gpus 1 3 5 7", "gpus 0,2"])
def test_gpus_named_with_no_verb_are_asked_back_never_taken(text: str) -> None:
    """ "gpu 3" alone was taken as "use GPU 3 only": use it? keep off it? the one at fault? Asked back."""
    rules, heard, _ = hear(OperatorRules(), text)
    assert heard == [] and rules.use_gpus is None and rules.avoid_gpus == []
    asked = ask_back(OperatorRules(), text, None, HOST)
    assert asked is not None and asked.confirm is not None and asked.confirm.startswith("use ")
    assert "no word for what to do with them" in (asked.readback or "")


@pytest.mark.parametrize(
    ("text", "want"),
    [("gpus 0-3 only", [0, 1, 2, 3]), ("use gpu 3", [3]), ("gpus 0-3, tp 4", [0, 1, 2, 3])],
)
def test_gpus_with_a_verb_or_only_are_still_taken(text: str, want: list[int]) -> None:
    """Guard: "only", a verb or a layout beside them says what the GPUs are for."""
    assert taken(text)["use_gpus"] == want


def test_a_gpu_set_put_right_is_asked_back_as_the_gpus_to_use() -> None:
    """Guard: "gpus 4-7, sorry, 0-3" (round 32) still asks back GPUs 0-3 with the bare-set rule."""
    assert taken("gpus 4,5,6,7 — sorry, 0,1,2,3. wrong half") == {"use_gpus": [0, 1, 2, 3]}


@pytest.mark.parametrize(
    "text",
    [
        "no torch compile for the bench, but keep it for serving",
        "disable radix cache on the next launch, but keep it for the chat tenants",
    ],
)
def test_a_setting_kept_by_a_pronoun_in_unread_words_takes_nothing(text: str) -> None:
    """The must-not was asked back and a yes would take it, though "but keep it ..." keeps it somewhere."""
    asked = ask_back(OperatorRules(), text, None, HOST)
    assert asked is not None and asked.confirm is None and "you also named 'it'" in asked.rules.answers[-1]


def test_keep_it_out_after_a_must_not_agrees_with_it() -> None:
    """Guard: "but keep it out" says the must-not again; nothing contradicts it."""
    assert taken("never gpu 3, and keep it out of the bench too") == {"avoid_gpus": [3]}


def test_keep_it_on_gpus_is_the_gpus_to_use_and_a_layout_wider_is_refused() -> None:
    """ "use tp 8 but keep it on gpus 0-3" was asked back as TP8 alone, on every GPU."""
    assert taken("keep it on gpus 4-7") == {"use_gpus": [4, 5, 6, 7]}
    rules, _, missed = hear(OperatorRules(), "use tp 8 but keep it on gpus 0-3")
    assert missed == [] and bounds.problems(OperatorRules(), rules, HOST) == [
        "TP8 x DP1 needs 8 GPUs, and GPUs 0-3 are left to it"
    ]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # the writer's own lone value in the relayed setting's place (round 47), asked back: never Lee's 256
        (
            "Lee said 256 for cuda graph max bs but use 128, 256 OOMed on us last week",
            {"use_flags": [["--cuda-graph-max-bs", "128"]]},
        ),
        ("bob said use gpu 3 but use gpu 4", {"use_gpus": [4]}),
        ("@kim says port 30002, however use 30005", {"use_port": 30005}),
    ],
)
def test_someone_elses_value_the_writer_overrides_is_never_asked_back(text: str, want: dict[str, Any]) -> None:
    """The relayed value was asked back, and a yes would take what the writer said not to."""
    assert taken(text) == want


def test_someone_elses_words_alone_are_still_asked_back() -> None:
    """Guard: with no words of the writer's own after them, relayed words are asked back as before."""
    assert taken("@bob says use port 30002") == {"use_port": 30002}


def test_dp_attention_splits_the_tp_group_and_needs_no_more_gpus() -> None:
    """ "dp attention, tp 8 dp 8" is 8 GPUs: the run refused it as needing 64 (the harness now reads whole
    readings through the same bounds as the run, which showed it)."""
    rules, _, _ = hear(OperatorRules(), "enable dp attention, tp 8 dp 8")
    assert bounds.problems(OperatorRules(), rules, HOST) == []
    plain, _, _ = hear(OperatorRules(), "tp 8 dp 8")  # guard: without DP attention, 64 GPUs
    assert bounds.problems(OperatorRules(), plain, HOST) == ["TP8 x DP8 needs 64 GPUs, and GPUs 0-7 are left to it"]


# ------------------------------------------------------------------------------ an e-mail reply


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("ok\n\nSent from my iPhone", "approve"),
        ("Approved.\n\n--\nDana Okafor | SRE Lead", "approve"),
        ("No.\n\n-D", "deny"),
    ],
)
def test_an_email_reply_is_read_without_its_signature(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Use --attention-backend fa3.\n\n--\nDana", "--attention-backend"),
        ("add --max-running-requests 64\n\nSent from my iPhone", "--max-running-requests"),
        ("Hi all,\n\n+Marcus\n\nAvoid GPU 6.\n\ncc: Priya\n\nThanks,\nDana", None),
        ("use port 30010.\n\nRef: INC-5120", None),
        ("Relaunch with --disable-cuda-graph.\n\n-- Dana (on call)", "--disable-cuda-graph"),
    ],
)
def test_an_email_instruction_is_read_without_its_envelope(text: str, want: str | None) -> None:
    """The signature, "Sent from", "cc:", "Ref:" and "+name" lines were read as words of the message."""
    said = taken(text)
    flags = said.get("use_flags", [])
    assert said and isinstance(flags, list) and (want is None or any(f[0] == want for f in flags))
    assert hear(OperatorRules(), text)[2] == []  # read whole: not asked back for the envelope's words


def test_a_quote_of_someone_else_still_keeps_a_reply_from_being_an_answer() -> None:
    """Guard: a quoted line that is not the question's own words is never dropped as an envelope."""
    assert kind_of("> alice: looks fine to me\n\nSent from my iPhone") not in ("approve", "deny", "continue", "stop")


def test_a_flag_after_two_dashes_is_no_signature() -> None:
    """Guard: "--" starts a signature only alone on its line, or before a name."""
    assert taken("relaunch with\n--disable-cuda-graph") == {"use_flags": [["--disable-cuda-graph"]]}
