"""A request said politely, as a question: "could we restrict this to GPUs 4 through 7?", "would you mind
capping --max-running-requests at 128?", "..., so could we set the context length to 32k?". Between
colleagues these are orders, and blind writers mean them so (86 of the kept sets' such questions are
rules); the question mark goes and the order stays. Never when the message doubts it ("could we use fp8
kv here? not sure model risk will accept it", "could we maybe ...", "... just thinking out loud"): that
is a question, asked back or unread as before."""

from __future__ import annotations

import re

# the words that make a polite question a real one: the writer is unsure, or asks for an opinion
_DOUBT = re.compile(
    r"\b(?:maybe|perhaps|not\s+(?:100%\s+)?sure|unsure|do\s+you\s+think|(?:just\s+)?thinking\s+(?:out\s+)?loud|"
    r"if\s+(?:that|it)\s+makes\s+sense|i\s+wonder|wondering|no\s+idea|idk|dunno|thoughts|or\s+not|worth\s+it|"
    r"would\s+that|does\s+that|is\s+that|any\s+(?:downside|risk)|what\s+do\s+you|your\s+call|up\s+to\s+you)\b",
    re.I,
)
# what an order starts with; never "make it faster" (no setting) nor "tell/explain/remind" (a question)
_ORDER = (
    r"(?:not\s+|never\s+)?(?:re-?launch|restart|use|keep|stay|move|switch|serve|set|add|drop|stop|shut|bench|measure|try|"
    r"run|re-?run|re-?do|restrict|limit|cap|pass|enable|disable|leave|lower|raise|bump|put|load|unset|turn|pin|"
    r"bring|remove|exclude|avoid|skip|start|launch|go\s+with|give|apply|export|reduce|increase|pull|point)\b"
)
# "could we", "can you please", "so would you", "would it be possible to", "is there any chance we could"
_FRAME = re.compile(
    r"(?:^|(?<=[.,;!:]\s)|(?<=\bso\s)|(?<=\band\s))(?:please\s+)?"
    r"(?:(?:could|can|would|will)\s+(?:you|we)|would\s+it\s+be\s+possible\s+(?:for\s+(?:you|us)\s+)?to|"
    r"could\s+i\s+ask\s+you\s+to|is\s+there\s+any\s+chance\s+(?:you|we)\s+could|i\s+was\s+wondering\s+if\s+(?:you|we)\s+could)"
    # "can you stop it at all?", "could we still use GPU 3?": a question of whether, never an order
    rf"(?:\s+(?:please|kindly|possibly|just|also))*\s+(?![^?]*\b(?:at\s+all|any\s*more)\s*\?)(?P<ask>{_ORDER}[^?]*)\?",
    re.I,
)
# "would you mind capping it at 128?", "mind keeping off port 8080?": the order in its -ing form
_MIND = re.compile(r"(?:\bwould\s+you\s+mind|\bdo\s+you\s+mind|^mind)\s+(not\s+)?(\w+ing)\b([^?]*)\?", re.I)
# "how about tp 4?", "how about capping running requests at 256?", "why not just use port 30001?": a suggestion
# asked as a question, its setting asked back (a maybe, agent.hearing.instructions.HEDGE_FIRST), never answered
# from the evidence as a question nor taken as an order
_SUGGESTED = re.compile(
    r"^(?P<frame>(?:so\s+)?(?:how|what)\s+about|why\s+not(?:\s+just)?|what\s+if\s+(?:you|we)|"
    r"(?:it\s+)?(?:wouldn'?t|would\s+not|won'?t)\s+hurt\s+to)\s+(?:(?P<g>\w+(?:ing|ed))\b)?"
    r"(?P<rest>(?:[^?.!]|\.(?=\d))+)(?P<end>[?.!])(?:\s*\((?:your\s+)?(?:#|step\s+|option\s+)(?P<step>\d)\))?"
    # "... actually yeah, do that": the writer takes their own suggestion up
    r"(?P<taken>\s*(?:\.{2,}|…)?\s*(?:actually\s+)?(?:(?:yeah|yes|ok(?:ay)?|sure|fine)[,\s]+)?(?:let'?s\s+|just\s+)?"
    r"(?:do|try)\s+(?:that|it)[.!]*)?\s*$",
    re.I,
)
# "what if you disabled the radix cache?": the past of the verb it suggests
_PAST = {
    "disabled": "disable", "enabled": "enable", "used": "use", "tried": "try", "switched": "switch",
    "dropped": "drop", "added": "add", "removed": "remove", "moved": "move", "turned": "turn", "capped": "cap",
    "lowered": "lower", "raised": "raise", "bumped": "bump", "limited": "limit", "pinned": "pin",
    "restarted": "restart", "relaunched": "relaunch", "stopped": "stop", "unset": "unset",
}  # fmt: skip
_GERUNDS = {
    "putting": "put", "moving": "move", "using": "use", "setting": "set", "running": "run", "stopping": "stop",
    "dropping": "drop", "adding": "add", "restarting": "restart", "relaunching": "relaunch", "keeping": "keep",
    "switching": "switch", "serving": "serve", "removing": "remove", "pinning": "pin", "binding": "bind",
    "capping": "cap", "limiting": "limit", "lowering": "lower", "raising": "raise", "bumping": "bump",
    "passing": "pass", "enabling": "enable", "disabling": "disable", "leaving": "leave", "excluding": "exclude",
    "unsetting": "unset", "loading": "load", "trying": "try", "rerunning": "rerun", "restricting": "restrict",
    "turning": "turn", "shutting": "shut", "reducing": "reduce", "skipping": "skip", "listing": "list",
    "reading": "read", "checking": "check",
}  # fmt: skip


# "port 30001, if it's all the same to you", "chunked prefill 4096 if you would": a courtesy, no condition
_COURTEOUS_IF = re.compile(
    r"(?:^|[\s,]+)if\s+(?:you\s+(?:don'?t|do\s+not)\s+mind|you\s+would(?:n'?t\s+mind)?|you\s+please|"
    r"it'?s\s+(?:all\s+)?the\s+same\s+to\s+you|you\s+have\s+no\s+objections?|that\s+is\s+agreeable(?:\s+to\s+you)?)"
    r"(?=\s*(?:[,.;!)]|$))[\s,]*",
    re.I,
)


def as_orders(text: str) -> str:
    """`text` with each request said politely as a question said as the order it is, unless the message
    doubts it."""
    text = _COURTEOUS_IF.sub(lambda m: ", " if m.start() > 0 and m.end() < len(text) else "", text).strip(" ,")
    if _DOUBT.search(text):
        return text
    text = _MIND.sub(_mind, text)
    return _FRAME.sub(r"\g<ask>.", text)


def _mind(said: re.Match[str]) -> str:
    verb = _GERUNDS.get(said.group(2).lower())
    negated = "don't " if said.group(1) else ""  # "would you mind not using gpu 3?"
    return said.group(0) if verb is None else f"{negated}{verb}{said.group(3)}."


def suggested(text: str) -> tuple[str, str, int | None] | None:
    """ "how about capping running requests at 256?" -> ("how about cap running requests at 256", "cap running
    requests at 256", None): a suggestion asked as a question, said as the maybe it is (asked back with its
    reading), what it suggests, and the step it names itself by ("(your #2)"); else None. Taken up by the
    writer ("what if you disabled the radix cache? ...actually yeah, do that"), it is said as the order."""
    found = _SUGGESTED.match(text.strip())
    verbs = {**_GERUNDS, **_PAST}
    if found is None or (found.group("g") and found.group("g").lower() not in verbs):
        return None
    if found.group("end") != "?" and not found.group("taken"):
        return None  # "wouldn't hurt to turn off cuda graph.": a maybe said as a statement, read as one
    verb = verbs[found.group("g").lower()] + " " if found.group("g") else ""
    setting = f"{verb}{found.group('rest').strip()}"
    said = setting if found.group("taken") else f"{found.group('frame')} {setting}"
    return said, setting, int(found.group("step")) if found.group("step") else None


# a tag that asks agreement with an order ("don't relaunch, ok?", "you won't use gpu 3, right?", "you'll set
# X=1, won't you?"); never one after a claim about what is ("we're not on port 30000, are we?")
_TAG = re.compile(
    r"[,\s]+(?:right|ok(?:ay)?|alright|yeah|yes|won'?t\s+you|will\s+you|would\s+you)\s*\?+(?:\s+don'?t[.!]*)?\s*$", re.I
)
_YOU_WILL_NOT = re.compile(r"^you\s+(?:won'?t|will\s+not|wouldn'?t|would\s+not)\s+", re.I)
_YOU_WILL = re.compile(r"^you(?:'ll|\s+will)\s+(?!not\b)", re.I)
_AN_ORDER = re.compile(
    r"^(?:don'?t|do\s+not|never|no\s|use|set|unset|keep|stay|stop|run|re-?run|do|take|pick|go|put|avoid|add|drop|"
    r"disable|enable|serve|relaunch|restart|the\s+(?:first|second|third|last)\b|option|step|#?\d)",
    re.I,
)
# "yeah, go ahead, why not", "sign it off, why not": a go-ahead with a shrug; "why don't you go ahead and run it"
_SHRUGGED = re.compile(r"^(?P<yes>.*\b(?:go\s+ahead|sign\s+it\s+off|do\s+it|run\s+it))[,\s]+why\s+not[.!]*$", re.I)
_WHY_DONT_YOU = re.compile(r"^why\s+don'?t\s+you\s+(?=go\s+ahead|run\s+it|do\s+it|sign\s+(?:it\s+)?off)", re.I)


def untagged(text: str) -> str:
    """An order asked as a check ("you won't use gpu 3, right?") as the order; any other message as it was."""
    text = _WHY_DONT_YOU.sub("", _SHRUGGED.sub(r"\g<yes>", text.strip()))
    found = _TAG.search(text)
    said = text[: found.start()] if found is not None else ""
    if not said or "?" in said:
        return text
    if _YOU_WILL_NOT.match(said):
        return _YOU_WILL_NOT.sub("don't ", said)
    if _YOU_WILL.match(said):
        return _YOU_WILL.sub("", said)
    return said if _AN_ORDER.match(said) else text
