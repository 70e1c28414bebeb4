"""#27's hearing classes, read by the one reply function and the instruction grammar: GPU sets not
written "GPU(s) <ids>", shorthand, refusals without a leading no, questions to the agent answered
from the run's evidence, typos of flags and values suggested back (never taken), and "it" as the proposed action."""

from __future__ import annotations

from typing import Any

import pytest

from agent.hearing.instructions import hear
from agent.hearing.replies import Answered, ReplyError, parse_reply
from agent.hearing.said_back import heard_lines
from agent.state import Action, OperatorRules, Question

LAUNCH = Action(tool="launch_server", args={"tp": 8})
KILL = Action(tool="run_command", args={"command": "kill 4121"})
REPORT = """## Why I stopped
- The server did not come up: cuda_oom: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.76 GiB.
- GPU 3 is held by pid 4121 (python3, 20 GiB)

| id | change | outcome |
|----|--------|---------|
| A1 | tp=4, gpus=[0, 1, 2, 3] | cuda_oom |
"""


def _q(trigger: str = "policy_ask", action: Action | None = LAUNCH, confirm: str | None = None) -> Question:
    return Question(
        id="q", trigger=trigger, reason="r", question="May I?", asked_at=0.0, action=action,  # type: ignore[arg-type]
        digest="d" if action else None, report_markdown=REPORT, confirm=confirm,
    )  # fmt: skip


def _rules(text: str) -> dict[str, Any]:
    rules, _, missed = hear(OperatorRules(), text)
    assert missed == [], missed
    keep = ("use_gpus", "avoid_gpus", "use_flags", "layout")
    return {k: v for k, v in rules.model_dump().items() if k in keep and v not in (None, [])}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("use 0-3", {"use_gpus": [0, 1, 2, 3]}),
        ("only 4,5,6,7", {"use_gpus": [4, 5, 6, 7]}),
        ("run on 2,3", {"use_gpus": [2, 3]}),
        ("all but 7", {"avoid_gpus": [7]}),
        ("every GPU except 0 and 1", {"avoid_gpus": [0, 1]}),
        ("avoid 6-7", {"avoid_gpus": [6, 7]}),
        ("don't touch GPU0", {"avoid_gpus": [0]}),
        ("CUDA_VISIBLE_DEVICES=2,3", {"use_gpus": [2, 3]}),
        (
            "tp4 dp2 on 0-7, fp8 kv",
            {"use_gpus": list(range(8)), "layout": {"tp": 4, "dp": 2}, "use_flags": [["--kv-cache-dtype", "fp8_e4m3"]]},
        ),
        ("use flashinfer", {"use_flags": [["--attention-backend", "flashinfer"]]}),
    ],
)
def test_gpu_sets_and_shorthand(text: str, expected: dict[str, Any]) -> None:
    assert _rules(text) == expected


# "unset CUDA_VISIBLE_DEVICES" was here while an unset only kept a variable out of the launch's own env;
# it now starts the server without the shell's value, and the GPU list still sets it
# (tests/tools/test_detached_unset.py)
@pytest.mark.parametrize("text", ["use 3", "on 5", "the last four", "don't set CUDA_VISIBLE_DEVICES=2,3"])
def test_what_could_be_anything_is_not_taken(text: str) -> None:
    rules, heard, _ = hear(OperatorRules(), text)
    assert heard == [] and rules.use_gpus is None and rules.avoid_gpus == [] and rules.unset_env == []


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("use flashifner", "use flashinfer"),
        ("use --attention-backend flashifner", "use --attention-backend flashinfer"),
        ("use --disable-cuda-grpah", "use --disable-cuda-graph"),
        # "disable" is a verb whose slip is taken ("disbale cuda graph"), never inside a pasted flag
        ("use --disbale-cuda-graph", "use --disable-cuda-graph"),
    ],
)
def test_a_typo_is_suggested_back_never_taken(text: str, fixed: str) -> None:
    rules, heard, missed = hear(OperatorRules(), text)
    assert heard == [] and rules.use_flags == []
    assert missed == [f"{text} (did you mean: {fixed}?)"]


def test_a_word_of_its_own_is_refused_with_a_suggestion() -> None:
    # a slip with one verb it can be is taken (tests/hearing/test_sre_classes.py); "step" is a word
    with pytest.raises(ReplyError, match="did you mean 'stop'"):
        parse_reply("step", _q(), "op")
    assert parse_reply("approved", _q(), "op").kind == "approve"


@pytest.mark.parametrize(
    ("text", "reason"),
    [("hold off", ""), ("absolutely not, too risky", "too risky"), ("yeah no", ""), ("nope", ""), ("let's not", "")],
)
def test_refusals_without_a_leading_no_deny(text: str, reason: str) -> None:
    reply = parse_reply(text, _q(), "op")
    assert (reply.kind, reply.text) == ("deny", reason)


def test_hold_off_on_launching_stays_an_instruction() -> None:
    assert parse_reply("hold off on launching until I say", _q(), "op").kind == "say"


def test_a_refusal_with_nothing_to_refuse_is_refused() -> None:
    with pytest.raises(ReplyError, match="proposes nothing to refuse"):
        parse_reply("hold off", _q("decider_asks", None), "op")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("why did it OOM?", "CUDA out of memory"),
        ("what's using GPU 3?", "GPU 3 is held by pid 4121"),
        ("what did you try?", "A1 | tp=4"),
    ],
)
def test_a_question_to_the_agent_is_answered_from_the_evidence(text: str, line: str) -> None:
    with pytest.raises(Answered) as answered:
        parse_reply(text, _q("decider_asks", None), "op")
    assert line in str(answered.value) and "The run still waits on my question: May I?" in str(answered.value)


def test_a_question_that_asks_for_an_instruction_is_the_instruction() -> None:
    assert parse_reply("can you measure again?", _q("goal_met", None), "op").kind == "say"


def test_it_is_the_proposed_action() -> None:
    assert parse_reply("yep kill it", _q(action=KILL), "op").kind == "approve"
    with pytest.raises(ReplyError, match="this question proposes launch_server"):
        parse_reply("yep kill it", _q(action=LAUNCH), "op")  # never "stop the server"


def test_a_step_count_is_kept_or_refused() -> None:
    reply = parse_reply("keep at it, 20 more steps max", _q("low_confidence"), "op")
    assert (reply.kind, reply.steps) == ("continue", 20)
    with pytest.raises(ReplyError, match="not its number"):
        parse_reply("keep going, 3 more tries", _q("low_confidence"), "op")


def test_a_reading_asked_back_is_taken_only_on_yes() -> None:
    asked = _q("decider_asks", None, confirm="don't use GPU 0")
    taken = parse_reply("yes", asked, "op")
    assert (taken.kind, taken.text) == ("say", "don't use GPU 0")
    with pytest.raises(ReplyError, match="I take nothing"):
        parse_reply("no", asked, "op")


def test_in_force_is_said_canonically() -> None:
    rules, _, _ = hear(OperatorRules(), "don't touch GPU0; CUDA_VISIBLE_DEVICES=2,3")
    lines = heard_lines({"operator": rules})
    assert lines == [
        'you said "don\'t touch GPU 0": in force: leave GPU 0 out of every launch',
        'you said "CUDA_VISIBLE_DEVICES=2,3": in force: launch on GPUs 2, 3 only',
    ]


@pytest.mark.parametrize(("text", "avoid"), [("drop GPU 3", {"avoid_gpus": [3]}), ("unset GPU0", {"avoid_gpus": [0]})])
def test_removing_a_gpu_leaves_it_out(text: str, avoid: dict[str, Any]) -> None:
    """Before: "drop GPU 3" read as "use GPU 3" (only it), "unset GPU0" as a variable."""
    assert _rules(text) == avoid


def test_removing_a_port_avoids_it() -> None:
    rules, _, _ = hear(OperatorRules(), "remove port 30000")
    assert rules.use_port is None and rules.avoid_ports == [30000]


@pytest.mark.parametrize(
    ("text", "confirm"),
    [("maybe try tp 4", "try tp 4"), ("I think we should use port 30001", "use port 30001"), ("perhaps fp8 kv", None)],
)
def test_a_hedge_is_asked_back_never_taken(text: str, confirm: str | None) -> None:
    from agent.hearing.heed import ask_back

    effect = ask_back(OperatorRules(), text)
    assert effect is not None and effect.reask and "You said it as a maybe" in (effect.readback or "")
    assert effect.rules.layout is None and effect.rules.use_port is None and effect.rules.use_flags == []
    if confirm is not None:
        assert effect.confirm == confirm


def test_run_this_instead_is_an_edit_through_the_gate() -> None:
    reply = parse_reply("run this instead: nvidia-smi -L", _q("decider_asks", None), "op")
    assert (reply.kind, reply.edited_command) == ("edit", "nvidia-smi -L")


def test_approve_with_an_action_waiting_approves_the_action_not_the_reading() -> None:
    asked = _q("policy_ask", KILL, confirm="use port 30001")
    assert parse_reply("approve", asked, "op").kind == "approve"
    assert parse_reply("yes", asked, "op").text == "use port 30001"  # "yes" answers the readback


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("serve /models/Qwen3-8B instead", "/models/Qwen3-8B"),
        ("switch to the model /models/Llama-3.1-8B-Instruct", "/models/Llama-3.1-8B-Instruct"),
        ("use /data/ckpt/llama", "/data/ckpt/llama"),
        ("don't use /models/x/y", None),  # which one then? not a guess to make
        ("run /usr/bin/python instead", None),  # a program, not a checkpoint
    ],
)
def test_a_model_path_is_served_in_every_launch(text: str, model: str | None) -> None:
    from agent.hearing.applied import rewrite_launch

    rules, _, _ = hear(OperatorRules(), text)
    assert rules.use_model == model
    if model is not None:
        assert rewrite_launch({}, rules, {"model_path": "/models/old", "tp": 8})[0]["model_path"] == model
        assert heard_lines({"operator": rules})[0].endswith(f"in force: serve the model {model} in every launch")


@pytest.mark.parametrize(
    ("text", "confirm", "said"),
    [
        ("use the last four", "use GPUs 4,5,6,7", "I read: launch on GPUs 4-7 only. Right?"),
        ("keep off the last two cards", "don't use GPUs 6,7", "I read: leave GPUs 6, 7 out of every launch. Right?"),
    ],
)
def test_gpus_counted_from_the_host_are_asked_back(text: str, confirm: str, said: str) -> None:
    from agent.hearing.heed import ask_back

    effect = ask_back(OperatorRules(), text, None, list(range(8)))
    assert effect is not None and effect.confirm == confirm and (effect.readback or "").startswith(said)
    assert ask_back(OperatorRules(), text, None, None) is None  # the GPUs unknown: not read at all
