"""Round 40's blind sets (sre160 English with Korean habits, sre161 config fragments pasted, sre162 a tired operator
correcting themself mid-message, sre163 a performance engineer who answers in numbers, redteam40 answers whose words
belong elsewhere), fixed by class: the fifteen first-sight misreads' classes. The cases are the classes' own, not
the sets' lines. 16 of its 22 checks fail on the code before the fix (517c4c9); the 6 others are guards, named or
marked so, that passed before too."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, kind_of, rules_said, taken


@pytest.mark.parametrize(
    "text",
    [
        "chunked prefill 8192... 2048 sorry. 2048",
        "context length 65536 - no that OOMs, 16384. go 16384",
        "model Qwen/Qwen2.5-72B-Instruct... sorry 7B. Qwen/Qwen2.5-7B-Instruct",
        "kv cache fp8_e4m3 - sorry, fp8_e5m2. e5m2",
        "kv cache in fp8 pls, e5m2",  # "fp8" alone is e4m3: the e5m2 said beside it was dropped
        "tp 4 dp 2. or dp 4 tp 2... no. tp 4, dp 2. final",
    ],
)
def test_a_value_said_again_unread_never_leaves_the_first_one_taken(text: str) -> None:
    """ "chunked prefill 8192... 4096 sorry. 4096" was asked back as 8192, the value taken back."""
    assert taken(text) == {}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("kv cache in fp8 pls, e4m3", "use --kv-cache-dtype fp8_e4m3"),  # guard: the same value, said again
        ("--mem-fraction-static 0.8. not 0.9. 0.8", "--mem-fraction-static 0.8"),  # guard
        ("Avoid gpu1, it has ECC errors. INC0098777.", "Avoid gpu 1"),  # guard: a ticket is no value
    ],
)
def test_guard_the_same_value_or_a_ticket_said_beside_is_no_second_value(text: str, reading: str) -> None:
    assert asked_back(text) == reading


@pytest.mark.parametrize(
    "text",
    [
        "gpus: [4,5,6,7]\nexclude: [5]",  # GPUs used, and one of them kept out
        "drop gpu 6 and use all 8",
        "set NCCL_DEBUG=WARN and also dont set any env vars this time",
        '{"tp": 2, "tp": 4}',  # a JSON key said twice: the later would silently win
    ],
)
def test_a_message_that_contradicts_itself_takes_nothing(text: str) -> None:
    assert taken(text) == {}


def test_guard_a_json_object_said_once_still_reads() -> None:
    assert rules_said('{"tp": 2, "dp": 4}') == {"layout": {"tp": 2, "dp": 4}}


def test_a_unified_diffs_context_lines_say_nothing_and_its_minus_lines_take_out() -> None:
    """A hunk ("@@ launch.sh @@", context lines, "-  --disable-cuda-graph") was read as serving on a context port."""
    said = "@@ launch.sh @@\n   --tp-size 4 \\\n-  --enable-torch-compile \\\n   --port 30000"
    assert rules_said(said) == {"avoid_flags": ["--enable-torch-compile"]}


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("hit rate need. --disable-radix-cache remove plz", "remove --disable-radix-cache plz"),
        ("gpu 5, that one not use", None),  # the thing named, kept out, or the GPU to use? never the GPU to use
    ],
)
def test_korean_word_order_never_reads_the_opposite(text: str, want: str | None) -> None:
    """ "--disable-radix-cache remove plz" was a launch with the flag; "gpu 3, that one not use" one on GPU 3."""
    assert asked_back(text) == want


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("exit 1 -- stop everything", "stop"),  # "exit" was read as a slip of "edit"
        ("stay off gpu 3, its throwing xids. and 5. wait no 5 is fine. just 3", "say"),  # 3 is the GPU, no step
        ("disable radix cache next run. --disable-radix-cache. yes", "say"),  # their own words, affirmed
        ("Listing the GPUs is the cheapest, and it tells us whether GPU 5 came back. Do number 2.", "pick 2"),  # guard
        ("use gpu 3 -- actually no, carry on", "continue"),  # guard
    ],
)
def test_answers_in_words_that_belong_elsewhere(text: str, kind: str) -> None:
    assert kind_of(text) == kind
