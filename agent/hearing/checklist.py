"""A reply pasted as a checklist or a runbook's marked steps: "- [x] use gpus 4-7", "☑ tp8", "1. serve on
30002 — GO\\n2. torch compile — TODO".

A tick means different things to different operators: "chosen" to one ("- [x] port 30001\\n- [ ] port 30002"),
"done, by me" to another ("[x] stop server (done)\\n[ ] relaunch on 30001", where the open box is the order).
So a checklist with an open box, or with a ticked item that says it is done, is asked about, never read
item by item. Every box ticked: the items are the words. A runbook's capitals are plainer ("GO" and "DONE"
are taken, "TODO" and "SKIP" are not): those steps are read, and a runbook with none taken is asked about."""

from __future__ import annotations

import re

from agent.hearing.spoken import UNPLACED

UNCLEAR = f"{UNPLACED} a checklist I cannot place:"  # what an unclear checklist is read as (never taken)
_BOXES = "☐☑"  # never ✅ alone: a chat's yes ("✅ ship it"), read as one
_TICKED = re.compile(r"^\s*(?:[-*+]\s*)?(?:\[[xX✓✔]\]|☑)\s*(?=\S)")
_OPEN = re.compile(r"^\s*(?:[-*+]\s*)?(?:\[\s?\]|☐)\s*(?=\S)")
# a runbook's mark after a step, in capitals as runbooks write them
_MARKED = re.compile(r"\s*(?:—|–|--?|:|\()\s*(?P<mark>DONE|GO|YES|OK|TODO|SKIP(?:PED)?|NO|LATER|N/A)\)?\s*$")
_TAKEN = frozenset({"DONE", "GO", "YES", "OK"})
# what a box's words would set or do, if it were an order
_AN_ORDER = re.compile(
    r"\d|--|\b[A-Z][A-Z0-9]*_|\b(?:gpus?|ports?|tp|dp|restart|relaunch|launch|stop|start|kill|bring|enable|disable|set|"
    r"unset|use|avoid|sign|approve|deny|go|yes|no|option|step|keep|drop|turn|switch|abort|end|continue|carry)\b",
    re.I,
)
_DONE_ALREADY = re.compile(r"\b(?:done|by\s+me|already|fixed|finished|completed)\b", re.I)


def _items(text: str) -> list[str]:
    """The message's lines, a line with several boxes ("☐ step 1 ☑ step 2") split at each box."""
    lines: list[str] = []
    for line in text.split("\n"):
        if sum(line.count(box) for box in _BOXES) >= 2:
            lines += [part for part in re.split(rf"(?=[{_BOXES}])", line) if part.strip()]
        else:
            lines.append(line)
    return lines


def ticked(text: str) -> str:
    """The words of a checklist whose every box is ticked, or of a runbook's steps marked to take, one per line;
    `UNCLEAR` and the words for a checklist that cannot be placed; the message as it was when it is none."""
    items = _items(text)
    boxes = [line for line in items if _TICKED.match(line) or _OPEN.match(line)]
    if boxes and not any(_AN_ORDER.search(line) for line in boxes):
        # "- [x] cordoned\n- [ ] RMA ticket": a status list beside the words; the words are read, the list is not
        return "\n".join(line for line in items if line not in boxes)
    if boxes:
        if any(_OPEN.match(line) or _DONE_ALREADY.search(line) for line in boxes):
            return f"{UNCLEAR} {text}"
        return "\n".join(_TICKED.sub("", line) for line in items if line.strip() and not line.rstrip().endswith(":"))
    marks = [found.group("mark") for line in items if (found := _MARKED.search(line)) is not None]
    if not marks:
        return text
    if not _TAKEN & set(marks):
        return f"{UNCLEAR} {text}"
    kept: list[str] = []
    keeping = True
    for line in items:
        mark = _MARKED.search(line)
        if mark is not None:
            keeping = mark.group("mark") in _TAKEN
            if keeping:
                kept.append(_MARKED.sub("", line))  # "3) log tail — GO": the step's own number stays
        elif line[:1].isspace() and line.strip():
            if keeping:
                kept.append(line.strip())  # "  (this box has no IB anyway)": under the step above
        elif line.strip() and not line.rstrip().endswith(":"):  # "runbook marks:": the list's title
            keeping = True
            kept.append(line)
    return "\n".join(kept)
