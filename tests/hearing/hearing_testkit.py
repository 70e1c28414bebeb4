"""What the hearing tests share: the question a reply answers, and the rules a message sets."""

from __future__ import annotations

from agent.hearing.heed import ask_back
from agent.hearing.instructions import hear
from agent.hearing.replies import ReplyError, parse_reply
from agent.state import Action, OperatorRules, Question, QuestionOption

NOTHING = OperatorRules().model_dump()


def asking(sign_off: bool = False) -> Question:
    if sign_off:
        return Question(id="q", trigger="goal_met", reason="r", question="Sign off?", asked_at=0.0)
    steps = [
        QuestionOption(number=n, description=what, action=Action(tool="run_command", args={"command": "ls"}))
        for n, what in ((1, "read the topology"), (2, "list the GPUs"), (3, "read the log"))
    ]
    return Question(
        id="q",
        trigger="low_confidence",
        reason="r",
        question="May I run nvidia-smi topo -m?",
        asked_at=0.0,
        action=Action(tool="run_command", args={"command": "nvidia-smi topo -m"}),
        options=steps,
    )


def kind_of(text: str, sign_off: bool = False) -> str:
    try:
        reply = parse_reply(text, asking(sign_off), "op")
    except ReplyError:
        return "error"
    return f"pick {reply.pick}" if reply.kind == "pick" else reply.kind


def rules_said(text: str) -> dict[str, object]:
    rules, _, _ = hear(OperatorRules(), text)
    keep = ("use_port", "avoid_ports", "use_gpus", "avoid_gpus", "set_env", "unset_env", "use_flags", "avoid_flags")
    return {
        k: v
        for k, v in rules.model_dump().items()
        if k in (*keep, "layout", "stop_server", "no_relaunch", "measure_again", "use_model") and v != NOTHING[k]
    }


def asked_back(text: str) -> str | None:
    """The reading a message is asked back as on a host with GPUs 0-7 (what a "yes" would take), or None."""
    asked = ask_back(OperatorRules(), text, None, list(range(8)))
    return asked.confirm if asked is not None else None


def taken(text: str, sign_off: bool = False) -> dict[str, object]:
    """What a "yes" to this message would put in force, as the run reads a reply's words (the reply's text,
    then `ask_back`): read whole, or its reading asked back; nothing when asked again with no reading."""
    text = parse_reply(text, asking(sign_off), "op").text
    asked = ask_back(OperatorRules(), text, None, list(range(8)))
    if asked is None:
        return rules_said(text)
    return rules_said(asked.confirm) if asked.confirm else {}


def harness_question(context: str | None) -> Question:
    """The question a blind set's line answers: a proposal with three numbered steps, or a met goal's sign-off."""
    if context == "sign_off":
        return Question(
            id="q", trigger="goal_met", reason="r", question="Sign off?", asked_at=0.0, report_markdown=SIGN_OFF_REPORT
        )
    action = Action(tool="run_command", args={"command": "nvidia-smi topo -m"})
    # As a report asks: an action proposed, and numbered next steps a number picks ("2", "opt 3").
    steps = [
        QuestionOption(number=n, description=what, action=Action(tool="run_command", args={"command": command}))
        for n, (what, command) in enumerate(
            [
                ("read the topology", "nvidia-smi topo -m"),
                ("list the GPUs", "nvidia-smi -L"),
                ("read the log", "tail -n 50 sglang.log"),
            ],
            start=1,
        )
    ]
    return Question(
        id="q",
        trigger="low_confidence",
        reason="r",
        question="Go on?",
        asked_at=0.0,
        action=action,
        options=steps,
        report_markdown=PROPOSAL_REPORT,
    )


# The report as the sets' writers were told the tool words it (/work/blind/PROMPT.md): what a reply may quote
PROPOSAL_REPORT = (
    "I propose to run `nvidia-smi topo -m` to read the GPU topology. Other steps I could take: 1) read the topology "
    "(nvidia-smi topo -m), 2) list the GPUs (nvidia-smi -L), 3) read the log (tail -n 50 sglang.log). Go on?"
)
SIGN_OFF_REPORT = "The goal is met. Sign off the run?"
