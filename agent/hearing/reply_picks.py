"""A numbered step of a report picked in words ("the second one", "do the log one", "3 read the log
first"), and the proposed command named ("go ahead with topo -m"): read against the question's steps."""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.hearing.reply_words import AFFIRM
from agent.state import Action, Question, Reply

# "the second one", "lets do option 3 pls", "go with 2": a numbered step picked in words
PICK_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5}
_PICK_WORDS = re.compile(
    r"^(?:of\s+the\s+(?:three|3|options|steps|choices),?\s+)?(?:(?:ok(?:ay)?,?|let'?s|lets|i'?ll|we'?ll|i'?d|i\s+say|i\s+vote(?:\s+for)?|i\s+want|i\s+would\s+appreciate\s+it\s+if\s+you\s+could|please|just|"
    r"i\s+would\s+like\s+(?:that\s+)?you(?:\s+to)?)\s+)*"
    r"(?:(?:do|go\s+(?:with|for)|take|try|pick|choose|run|want|skip\s+(?:ahead\s+)?to|jump\s+(?:ahead\s+)?to|"
    r"rather\s+(?:you|we)\s+(?:start(?:ed)?|began|begin)\s+with|rather\s+(?:you|we)\s+(?:do|did|took|ran|went\s+with)|"
    r"go\s+(?:straight\s+)?to|straight\s+to|begin\s+with|start\s+with)\s+)?(?:the\s+)?"
    r"(?:(?:opt(?:ion)?|step|choice|number|variant|no\.|#)\s*#?(?P<n>\d{1,2}|one|two|three|four|five|six)"
    r"|(?:opt(?:ion)?|choice)\s+(?P<letter>[a-e])(?![\w.-])"  # "option b": the second, lettered
    r"|#?(?P<bare>\d{1,2})|(?<=\bwith\s)(?P<word>one|two|three|four|five|six)"
    # "do the third": an ordinal after a verb of doing, the step it counts
    r"|(?P<ord>first|second|third|fourth|fifth|1st|2nd|3rd|4th|last)(?:\s+(?:one|option|step|choice|thing|item)|(?<=\bthe\s(?:first|third|fifth))"
    r"|(?<=\bthe\s(?:second|fourth))|(?<=\bthe\s(?:1st|2nd|3rd|4th))))"
    r"(?:[.,!]?\s+(?:it\s+is|then|pls|plz|please|svp|thanks|thx|first|instead|now|rn|only|itself|is\s+fine|works|sounds\s+good|go|again|"
    # "the first one you listed": the step named by who offered it
    r"(?:in|on|from)\s+(?:your|the)\s+list|"
    r"you\s+(?:listed|proposed|suggested|offered|gave|said|mentioned)(?:\s+(?:earlier|before|first))?))*(?:\s+(?:rather\s+)?than\s+(?:with\s+)?(?:the\s+)?[\w\s-]+)?$",
    re.I,
)
_NUMBER_THEN_WORDS = re.compile(
    r"^(?:(?:go\s+with|do|run|pick|take)\s+)?(?:step\s+|option\s+|#)?(?P<n>\d{1,2})\s*[:=-]?\s+(?P<what>[a-z].*?)"
    r"(?:\s+(?:first|now|pls|please|rn))*$",
    re.I,
)


# words that take a GPU, a port or a size, never a step ("you can use 3 again", "keep off 2 now")
_TAKES_A_NUMBER = re.compile(
    r"(?:^|\s)(?:use|using|on|onto|avoid|exclude|excluding|except|without|minus|to|gpus?|cards?|devices?|ports?|tp|dp|"
    r"at|keep|put|move|pin|free|off|of)$",
    re.I,
)


def number_taken_before(head: str, tail: str) -> bool:
    """Whether the number `tail` starts with belongs to the words before it: another number ("on 2 3 4
    5"), or a word that takes one ("use 3 again"); never a step picked."""
    return bool(re.search(r"\d$", head)) or (tail[:1].isdigit() and _TAKES_A_NUMBER.search(head) is not None)


COUNTED = re.compile(r"(?:gpus?|cards?|devices?|replicas?|copies|ports?|nodes?)\b", re.I)


def picked_with_its_words(piece: str, question: Question) -> int | None:
    """ "3 read the log first": a step's number said with its own description (or nearly), never another's."""
    from rapidfuzz import fuzz  # loaded only for a reply that starts with a number and words

    match = _NUMBER_THEN_WORDS.match(piece)
    if match is None:
        return None
    number = int(match.group("n"))
    step = next((o for o in question.options if o.number == number), None)
    said = match.group("what").lower()
    if COUNTED.match(said):
        return None  # "2 gpus", "4 cards": a count, never step 2 ("list the GPUs") picked
    if step is None or fuzz.token_set_ratio(said, step.description.lower()) < 85:
        return None
    return number


def picked_in_words(piece: str, question: Question) -> int | None:
    # "1st pls": an ordinal with only a please, the step it counts (never "... first" at a clause's end)
    piece = re.sub(r"^(1st|2nd|3rd|4th)(?=\s+(?:pls|plz|please)[\s.!]*$)", r"the \1", piece, flags=re.I)
    match = _PICK_WORDS.match(piece)
    if match is None:
        return None
    if match.group("ord"):
        if match.group("ord").lower() == "last":  # "the last one": the question's last step, if it lists any
            return question.options[-1].number if question.options else None
        return _ORDINALS[match.group("ord").lower()]
    if match.group("letter"):
        return "abcde".index(match.group("letter").lower()) + 1
    said = match.group("n") or match.group("bare") or match.group("word")
    return int(said) if said.isdigit() else PICK_NUMBERS[said.lower()]


_GO_WITH = re.compile(
    r"^(?:(?:yes|ok(?:ay)?|sure|please)\s+)?(?:go\s+ahead(?:\s+and\s+run)?|run|do|execute|fine|ok(?:ay)?|yes|proceed)\s+(?:with\s+)?(?:the\s+)?"
    r"(?P<what>[\w\s./-]+?)$",
    re.I,
)


def names_the_action(piece: str, question: Question) -> bool:
    """ "go ahead with topo -m" at "May I run nvidia-smi topo -m?": the words name the proposed command,
    or the numbered step that is it ("proceed with the topology read")."""
    match = _GO_WITH.match(piece)
    return match is not None and names_the_proposal(match.group("what"), question)


def names_the_proposal(what: str, question: Question) -> bool:
    """Whether `what` ("topo -m", "the topo one", "the topology read") names the command the question
    proposes, or the numbered step that is it."""
    from rapidfuzz import fuzz  # loaded only for a reply that may name the command

    action = question.action
    command = (command_of(action) if action is not None else None) or ""
    what = re.sub(r"\s+one$", "", what.strip())  # "the topo one"
    if not command or len(what) < 4 or what.lower() in ("it", "that", "this", "that one", "this one"):
        return False
    step = step_named(what, question)
    if step is not None and any(o.number == step and o.action == action for o in question.options):
        return True
    return fuzz.token_set_ratio(what.lower(), command.lower()) >= 90 and set(what.lower().split()) <= set(
        command.lower().split()
    )


_NOT_NAMING = frozenset(
    {"the", "a", "one", "step", "option", "please", "pls", "first", "now", "that", "this", "thing", "check"}
)
# "do the log one please": a step named by its words, not its number
DESCRIBED_PICK = re.compile(
    # "the `nvidia-smi -L` one": a step named, with or without the verb
    r"^(?:(?:let'?s|just|please|pls)\s+)*(?:(?:do|run|take|pick|go\s+with|start\s+with)\s+)?the\s+(?P<what>[\w\s`-]+?)\s+"
    r"(?:one|option|step)(?:\s+(?:from|on|in)\s+(?:your|the)\s+list)?(?:\s+(?:please|pls|first|now))*$",
    re.I,
)


def _words_of(text: str) -> set[str]:
    return {w.removesuffix("s") for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _NOT_NAMING}


def step_named(words: str, question: Question) -> int | None:
    """The one numbered step whose description or command holds every word said ("the gpu list one"
    is "list the GPUs (nvidia-smi -L)"), or None when no step or more than one does."""
    said = _words_of(words)
    if not said:
        return None
    named = [
        o.number
        for o in question.options
        if said <= _words_of(f"{o.description} {o.action.render() if o.action else ''}")
    ]
    return named[0] if len(named) == 1 else None


WANTS_TO_SEE = re.compile(
    r"^(?:i'?d\s+like\s+to|i\s+(?:want|wanna|need)(?:\s+to)?|want\s+to|wanna)\s+(?:see|check|look\s+at|read)\s+"
    r"(?P<what>.+?)(?:\s+(?:first|before\s+anything(?:\s+else)?))?[\s.!]*$",
    re.I,
)


def command_of(action: Action) -> str | None:
    """A proposed command as it reads: its words, single-spaced (None for any other tool)."""
    return " ".join(str(action.args.get("command", "")).split()) or None if action.tool == "run_command" else None


# "2. actually no, 3": a step picked, then put right (both picks: see agent.hearing.replies)
PUT_RIGHT = re.compile(
    r"^(?P<first>.+?)(?:\s--?\s*|\s*[—–]\s*|\.\.+\s*|[.;!,]\s+)(?:actually(?:,?\s+no)?|no,?\s+wait|wait,?\s+no|sorry|"
    r"scratch\s+that|make\s+(?:it|that))[\s,]+(?P<then>(?:step\s+|option\s+|#)?\d{1,2}\b.*)$",
    re.I | re.S,
)


# "do 3, not 1", "not 2 -- 3": one step picked against another, named with its "not" (never "not 2, 3": steps
# 2 and 3, or GPUs? asked, as before; nor "3, not 1" without a word that picks)
_PICKED = r"(?:(?:do|go\s+with|take|run)\s+(?:step\s+|option\s+|#)?|(?:step|option)\s+|#)"
PICKED_NOT_OTHER = re.compile(
    rf"^(?:{_PICKED}(?P<first>\d{{1,2}})\s*(?:,|;|--?|[—–])|(?P<bare>\d{{1,2}})\s*(?:;|--?|[—–]))\s*not\s+"
    r"(?:step\s+|option\s+|#)?\d{1,2}[\s.!]*$|"
    rf"^not\s+(?:step\s+|option\s+|#)?\d{{1,2}}\s*(?:;|--?|[—–])\s*{_PICKED}?(?P<then>\d{{1,2}})[\s.!]*$|"
    # "no wait, not 3. do 1": a step refused, then another picked by a verb
    rf"^(?:no[,.]?\s+)?(?:wait[,.]?\s+)?not\s+(?:step\s+|option\s+|#)?\d{{1,2}}\s*[.,]\s*{_PICKED}(?P<other>\d{{1,2}})[\s.!]*$|"
    # "not that one - do #3": the proposal refused, a step picked in its place
    rf"^not\s+(?:that|this)(?:\s+one)?\s*(?:[;,.]|--?|[—–])\s*{_PICKED}(?P<instead>\d{{1,2}})[\s.!]*$",
    re.I,
)


# "nuke it", "take it down": a stop, of what the question proposes only when it proposes one
VERB_TOOLS = {
    "launch": ("launch_server",),
    "start": ("launch_server",),
    "kill": ("run_command", "stop_server"),
    "nuke": ("run_command", "stop_server"),
}


def does_what_it_says(verb: str, question: Question) -> bool:
    """ "kill it" approves a proposed kill, "launch it" a launch; "run it"/"do it" any action."""
    action = question.action
    if action is None:
        return False
    tools = VERB_TOOLS.get(verb.lower())
    if tools is None:
        return True
    if verb.lower() in ("kill", "nuke") and action.tool == "run_command":
        return bool(re.search(r"(?:^|[\s;|&])(?:kill|pkill|killall)\b", str(action.args.get("command", ""))))
    return action.tool in tools


# why that step: what happened ("given that the server crashed"), or what it will tell ("the log will tell us more")
WHY_THE_PICK = re.compile(
    r"^(?:(?:given\s+that|since|because|as)\s+(?:the\s+\w+|it)\s+(?:\w+ed|was|were|is|has)\b|"
    r"(?:it|that|this|the\s+\w+)(?:'ll|\s+will|\s+would|'d)\s+(?:probably\s+|likely\s+|immediately\s+)?(?:tell|show)\s+(?:us|me)\b)",
    re.I,
)


def confirmed(before: str, said_last: str, parse: Callable[[str], Reply]) -> Reply | None:
    """ "the second one. ok.": a step picked, then a bare yes to it, is the pick (never the proposal approved)."""
    if not re.fullmatch(AFFIRM, said_last.strip(" .!"), re.I):
        return None
    try:
        first = parse(before)
    except ValueError:  # the words before are no reply at all (ReplyError)
        return None
    return first if first.kind == "pick" else None
