"""GPUs named as nvidia-smi and an inventory name them, put as the grammar's GPU ids where the message itself
says which index each is: "GPU-8b1c4e2a (idx 0)", "GPU-3f2a... is index 6", "GPU 7 (0000:e1:00.0)". A
UUID, bus id, slot, NUMA node or "the NVLink pair" with no index beside it is no GPU the run can place: a
message that runs something on one takes nothing (`unplaced`)."""

from __future__ import annotations

import re

from agent.hearing import word_table

_UUID = r"GPU-[0-9a-f]{6,}(?:-[0-9a-f]+)*"
_BUS = r"(?:0000:)?[0-9a-f]{2}:[0-9a-f]{2}\.\d"
_FORMS = word_table.compiled(
    [
        (rf"{_UUID}\s*\(\s*(?:idx|index|gpu)\s*(\d{{1,2}})\s*\)", r"GPU \1"),  # "GPU-8b1c4e2a (idx 0)"
        (rf"{_UUID}\s+is\s+(?:index|idx|gpu)\s+(\d{{1,2}})\b", r"GPU \1 is"),  # "GPU-3f2a... is index 6"
        (rf"(\bgpus?\s+\d{{1,2}})\s*\(\s*(?:bus\s+)?{_BUS}\s*\)", r"\1"),  # "GPU 7 (0000:e1:00.0)": the id said twice
    ],
    flags=re.I,
)
# a placement the run has no map for: "run tp 2 on the NVLink pair", "pin it to NUMA node 1", "the card in slot 5"
_UNPLACED = re.compile(
    rf"\b(?:run|launch|relaunch|restart|serve|pin|put|place|start|move|schedule)\s+(?:it|the\s+server|sglang|tp\s*\d+)?"
    rf"[^.;,\n]*?\b(?:on|to|onto|across)\s+(?:the\s+)?(?:nvlink\s+pair|numa\s+node\s*\d*|(?:card\s+in\s+)?slot\s*\d+|"
    rf"{_UUID}|{_BUS})\b",
    re.I,
)


def plain(text: str) -> str:
    """`text` with GPUs named by UUID or bus id said by the index the message gives them; the rest as it was."""
    return word_table.rewritten(text, _FORMS)


def unplaced(text: str) -> bool:
    """Whether the words place the server on GPUs named only as hardware the run cannot map to an index."""
    return _UNPLACED.search(plain(text)) is not None
