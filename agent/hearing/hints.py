"""Every line that tells the operator how to reply, generated here from what the question accepts:
the report's "Reply ..." line, the terminal's help, `opsagent reply`'s hint (terminal, `inbox`,
webhooks) and the web's reply chips. One place, so no surface offers a reply the question
refuses or leaves out one it takes (a number where it lists steps, approve only where there is
something to approve or sign off)."""

from __future__ import annotations

from dataclasses import dataclass

from agent.state import Question

SIGN_OFF_TRIGGERS = ("goal_met", "gave_up", "goal_unclear")  # approve signs off (or accepts the reading)


@dataclass(frozen=True)
class Accepts:
    """What a question takes besides `edit`, `continue`, words and `stop` (always taken)."""

    approve: bool  # an action to approve, a sign-off or a reading to accept
    deny: bool  # an action to refuse, or a sign-off to withhold
    steps: int  # numbered next steps it lists
    sign_off: bool = False
    unmet: bool = False  # the sign-off of a failed goal: only `sign off` takes it, and says so
    go_on: bool = True  # `continue` has something to go on with (not at a sign-off)


def accepts(trigger: str, has_action: bool, steps: int, acting_steps: int = 0) -> Accepts:
    """`acting_steps`: how many of the numbered steps would run something (a deny refuses them);
    a step that only signs off or reads is picked or left, not denied."""
    sign_off = trigger in SIGN_OFF_TRIGGERS
    unmet = trigger == "gave_up"  # approve, yes or continue never sign off a failed run (#27)
    return Accepts(
        approve=has_action or (sign_off and not unmet),
        deny=has_action or sign_off or acting_steps > 0,
        steps=steps,
        sign_off=sign_off,
        unmet=unmet,
        go_on=trigger not in ("gave_up", "goal_met"),
    )


def accepts_question(question: Question) -> Accepts:
    acting = sum(1 for option in question.options if option.action is not None)
    return accepts(question.trigger, question.action is not None, len(question.options), acting)


def gave_up_forms(steps: bool) -> str:
    """What the gave-up question takes, for its own wording and for the refusal of anything else: a
    number only where the report lists steps."""
    number = ", a step number" if steps else ""
    return (
        "write `sign off` to end the run with the goal not met, "
        f"an instruction (e.g. 'use GPUs 0-7'){number}, or `stop`"
    )


def plural(n: int, one: str, many: str | None = None) -> str:
    """`1 GPU`, `2 GPUs`."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def pick_words(steps: int) -> str:
    """How to pick a numbered step: `1 to pick the next step`, `a number (1-3) to pick a next step`."""
    if steps <= 0:
        return ""
    return "1 to pick the next step" if steps == 1 else f"a number (1-{steps}) to pick a next step"


def _pick_verb(steps: int) -> str:
    return "1" if steps == 1 else f"1-{steps}"


def report_forms(a: Accepts) -> list[str]:
    """The reply forms, in Markdown, in the order the report's "Reply ..." line lists them."""
    forms: list[str] = ["`sign off` (the goal is NOT met)"] if a.unmet else []
    if a.approve:
        forms.append("`approve`")
    if a.deny:
        forms.append("`deny [reason]`")
    forms.append("`edit <command>`")
    if a.go_on:
        forms += ["`continue`", "`continue --steps N`"]
    if a.steps:
        forms.append(pick_words(a.steps))
    return [*forms, "free text (an instruction)", "`stop`"]


def reply_line(a: Accepts) -> str:
    forms = report_forms(a)
    return "Reply " + ", ".join(forms[:-1]) + f", or {forms[-1]}."


def terminal_help(a: Accepts | None = None) -> str:
    """The terminal's one-line help (plain text: no markup brackets for rich to eat)."""
    parts: list[str] = ["sign off (the goal is NOT met)"] if a is not None and a.unmet else []
    if a is None or a.approve:
        parts.append("approve (a)")
    if a is None or a.deny:
        parts.append("deny [reason] (d)")
    if a is not None and a.steps:
        parts.append(pick_words(a.steps))
    parts.append("edit <command> (e)")
    if a is None or a.go_on:
        parts.append("continue [--steps N | until <milestone>] (c)")
    parts.append("stop (s)")
    parts.append("any other sentence as an instruction")
    return "reply with: " + " | ".join(parts)


def reply_verbs(a: Accepts | None = None) -> str:
    verbs: list[str] = ["'sign off'"] if a is not None and a.unmet else []
    if a is None or a.approve:
        verbs.append("approve")
    if a is None or a.deny:
        verbs.append("deny")
    if a is not None and a.steps:
        verbs.append(_pick_verb(a.steps))
    verbs += [*(["continue"] if a is None or a.go_on else []), "stop", "--edit CMD", "--say TEXT"]
    return "|".join(verbs)


def reply_hint(run_id: str, question: Question | None = None) -> str:
    """`opsagent reply RUN ...` with the replies this question takes (all of them when unknown)."""
    return f"opsagent reply {run_id} {reply_verbs(accepts_question(question) if question is not None else None)}"


def chips(a: Accepts) -> list[tuple[str, str]]:
    """The web composer's one-click replies: (label, the text it sends)."""
    out: list[tuple[str, str]] = [("sign off: the goal is NOT met", "sign off")] if a.unmet else []
    if a.approve:
        out.append(("sign off" if a.sign_off else "approve", "approve"))
    if a.deny:
        out.append(("deny", "deny"))
    out += [(f"step {n}", str(n)) for n in range(1, a.steps + 1)]
    out += [*([("continue", "continue")] if a.go_on else []), ("stop", "stop")]
    return out


def goal_sentence(goal: str, gpus: str, gpu_count: int) -> str:
    """The goal restated: its own words ended as a sentence, then the GPUs (`GPU 0.`, `GPUs 0-3.`)."""
    text = goal.rstrip()
    if text and text[-1] not in ".!?":
        text += "."
    if not gpus:
        return text
    return f"{text} {'GPU' if gpu_count == 1 else 'GPUs'} {gpus}."


def _blocks(markdown: str) -> list[tuple[str, str]]:
    """A report's parts, keyed: '## ...' (the heading), '**Name:**' paragraphs, '### Name' sections."""
    blocks: list[tuple[str, list[str]]] = []
    for line in markdown.splitlines():
        key = None
        if line.startswith("## "):
            key = "heading"
        elif line.startswith("### "):
            key = line[4:].strip()
        elif line.startswith("**") and ":**" in line:
            key = line[2 : line.index(":**")]
        elif line.startswith("Reply "):
            key = "Reply"
        if key is not None:
            blocks.append((key, [line]))
        elif blocks:
            blocks[-1][1].append(line)
    return [(k, "\n".join(lines).strip()) for k, lines in blocks]


WHOLE_REPORT_WORD = "report"  # typed at the terminal's prompt: the whole report again
ALWAYS_SHOWN = ("Why I stopped", "Question", "Reply")


def report_changes(before: str, after: str) -> str:
    """The parts of a report that differ from the one the operator was shown last, the question
    and how to reply always; the rest is said to be unchanged (the whole report is one word away)."""
    old = dict(_blocks(before))
    parts, same = [], []
    for key, text in _blocks(after):
        if key == "heading":
            continue
        if key in ALWAYS_SHOWN or old.get(key) != text:
            parts.append(text)
        elif key.startswith(("Where", "Attempts", "Findings", "Hypotheses", "Next")):
            same.append(key.split(" (")[0].lower())
    if same:  # said just before the question
        at = next((i for i, t in enumerate(parts) if t.startswith("**Question:**")), len(parts))
        parts.insert(at, f"_Unchanged: {', '.join(same)}._")
    return "\n\n".join(parts)
