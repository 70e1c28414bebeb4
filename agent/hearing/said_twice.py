"""One message that gives one setting two values ("use gpu 3, also gpu 4", "tp 2. tp 4", "port 30001.
port 30002"): the later would silently replace the earlier, a number the operator gave dropped. Such a
message is not taken; what it says is reported not understood, and the operator says it again. So is one
that keeps the operator off a GPU or port and then uses it ("avoid gpu 2 and use gpus 0-3"): which stands?
And so is one whose words I could not read offer another value ("use port 30001. or 30002, whichever")."""

from __future__ import annotations

import re

from agent.state import OperatorRules


def _values(rules: OperatorRules) -> dict[str, object]:
    """The settings that hold one value each: the GPUs and port to use, the model, TP, each flag's
    value and each variable's."""
    values: dict[str, object] = {"gpus": rules.use_gpus, "port": rules.use_port, "model": rules.use_model}
    values["tp"] = (rules.layout or {}).get("tp")
    values.update({flag[0]: tuple(flag[1:]) for flag in rules.use_flags})
    values.update({f"${name}": value for name, value in rules.set_env.items()})
    return values


def _kept_off(rules: OperatorRules) -> set[str]:
    return {f"gpu {g}" for g in rules.avoid_gpus} | {f"port {p}" for p in rules.avoid_ports}


class SaidTwice:
    """Watches a message's clauses as they are read, one after another."""

    def __init__(self, rules: OperatorRules) -> None:
        self._given: dict[str, object] = {}
        self._last = _values(rules)  # what earlier messages set: a new value for it is no second value
        self._kept_off: set[str] = set()  # the GPUs and ports a clause of this message said never to use
        self._off_before = _kept_off(rules)
        self._relaunch_said_before = rules.relaunch_wanted or rules.no_relaunch
        self.found = False

    def read(self, rules: OperatorRules) -> None:
        """After a clause: what it changed, and whether a clause before it in this message set it otherwise."""
        now = _values(rules)
        for name, value in now.items():
            if value != self._last.get(name):
                self.found = self.found or (name in self._given and self._given[name] != value)
                self._given[name] = value
        self._last = now
        off = _kept_off(rules)
        self.found = self.found or bool(self._kept_off - off)  # a must-not of this message lifted by a later clause
        self._kept_off |= off - self._off_before
        self._off_before = off
        # "restart it but don't relaunch": a relaunch and a hold in one message; which?
        self.found = self.found or (rules.relaunch_wanted and rules.no_relaunch and not self._relaunch_said_before)

    def rival_unread(self, unread: list[str]) -> None:
        """After the message: whether words I could not read offer another value for a setting it gave, as
        an alternative or a second thought ("use port 30001. or 30002, whichever", "nimm Port 30001... nee
        doch 30000"): taking the value read would drop the one the operator went on to offer. A reason that
        names the old value ("30000 is taken, use 30001") offers nothing."""
        ports = {int(p) for p in [self._given.get("port")] if isinstance(p, int)}
        ports |= {int(off.split()[1]) for off in self._kept_off if off.startswith("port ")}
        flags = [name for name in self._given if name.startswith("--")]
        gpus = "gpus" in self._given or any(off.startswith("gpu ") for off in self._kept_off)
        # "GPU 2 nicht benutzen, aber tp 8 über alle acht Karten": a layout, turned to after the GPUs were set
        self.found = self.found or (gpus and any(_TURN_TO_A_LAYOUT.match(c) for c in unread))
        for clause in (c for c in unread if _ANOTHER.search(c)):
            said = {int(n) for n in _PORT_SIZED.findall(clause)} - ports
            near = any(abs(n - p) <= 1000 for n in said for p in ports)
            layout = "tp" in self._given and _LAYOUT_SAID.search(clause) is not None
            flag = any(f in clause.lower() or f[2:].replace("-", " ") in clause.lower() for f in flags)
            self.found = self.found or near or layout or flag


# an alternative or a second thought: "or 30002", "ili 30002", "nee doch 30000", "nah maybe 30015", "whichever"
_ANOTHER = re.compile(
    r"^\s*(?:or|oder|o|ou|ili|abo|atau|hoặc|hoac|oppure|nee\s+doch|doch|no\s+wait|nah|maybe|or\s+maybe|perhaps)\b|"
    r"\b(?:whichever|either\s+one)\b",
    re.I,
)


# "aber tp 8 ...": the turn straight to a layout (never "but that was at tp 8", what was)
_TURN_TO_A_LAYOUT = re.compile(r"\s*(?:but|aber|pero|mais|ma|tapi|però|mas)\s+(?:tp|dp)\s*\d", re.I)
_PORT_SIZED = re.compile(r"(?<![\w.,])\d{4,5}(?![\w.,])")
_LAYOUT_SAID = re.compile(r"\b(?:tp|dp|tensor[-\s]parallel|data[-\s]parallel)\b\s*[=:]?\s*\d", re.I)


# a setting said as a pasted flag or a layout part, with its value: "--tp 4", "--port=30000", "tp8"
_SETTING = re.compile(
    r"(?<![\w-])(?:(--[a-z][a-z0-9-]*)(?:\s*=\s*|\s+)((?!-)[\w.:/-]+)|(tp|dp|port)\s*=?\s*(\d+)\b)", re.I
)
_ALIASES = {"--tp": "tp", "--tp-size": "tp", "--tensor-parallel-size": "tp", "--dp": "dp", "--dp-size": "dp"}


def in_one_run(text: str) -> bool:
    """Whether a run of settings with nothing but spaces between them gives one setting two
    values ("--tp 4 --tp 8", "--mem-fraction-static 0.8 --mem-fraction-static 0.85"): the last would
    silently win, and which the operator meant is not for me to guess."""
    given: dict[str, str] = {}
    end = -1
    for said in _SETTING.finditer(text):
        if text[end : said.start()].strip() if end >= 0 else True:
            given = {}  # words or a comma between: a new run ("tp 4 dp 2, tp 8 was slower")
        name = (said.group(1) or said.group(3)).lower()
        name, value = _ALIASES.get(name, name), (said.group(2) or said.group(4)).lower()
        if given.get(name, value) != value:
            return True
        given[name] = value
        end = said.end()
    return False


# "run it on 30003. and leave the port as it is": a setting kept as it is, and given a new value, in one message
_KEPT_AS_IS = re.compile(
    r"\b(?:leave|keep)\s+(?:the\s+)?(?P<what>port|gpus?|model|layout|tp)\s+(?:as\s+(?:it\s+)?is|alone|where\s+it\s+is|"
    r"unchanged|the\s+same)\b",
    re.I,
)
_GIVEN = {
    "port": r"\b\d{4,5}\b",
    "gpu": r"\bgpus?\s*\d",
    "gpus": r"\bgpus?\s*\d",
    "model": r"(?<!\w)/\w|\b[\w.-]+/[\w.-]+\b",
    "layout": r"\b(?:tp|dp)\s*=?\s*\d",
    "tp": r"\btp\s*=?\s*\d",
}


def kept_yet_changed(text: str) -> bool:
    """Whether a message keeps a setting as it is and gives it a value too ("run it on 30003. leave the port
    as it is"): which stands?"""
    kept = _KEPT_AS_IS.search(text)
    if kept is None:
        return False
    rest = text[: kept.start()] + text[kept.end() :]
    return re.search(_GIVEN[kept.group("what").lower()], rest, re.I) is not None
