"""Whole sentences that say an instruction in a shape of their own, as regular expressions the
phrasing reads (`agent.hearing.phrasing.canonical`): "anything but gpu7 is fair game", "context length
put to 8192", "--context-length 32768 is plenty", "relaunch on GPUs 0-3 as TP4", "leave --x off the
command line", "under no circumstances should --x be used", "gpu0 and gpu1 are off limits"."""

from __future__ import annotations

import re

# "anything but gpu7 is fair game", "all but 5, 6 and 7 is ok": the GPUs left out
ALL_BUT_OK = re.compile(
    r"^(?:anything|everything|all(?:\s+gpus)?|any\s+gpu)\s+(?:but|except(?:\s+for)?)\s+(?:gpus?\s+)?(?P<ids>\d[\d,\s]*(?:(?:and|&)\s*\d+)?)"
    r"\s+(?:is|are)\s+(?:fair\s+game|ok(?:ay)?|fine|free|available|usable|good)$"
    r"|^(?:every\s+gpu|all\s+gpus)\s+(?:but|except(?:\s+for)?)\s+(?:gpus?\s+)?(?P<ids3>\d[\d,\s]*(?:(?:and|&)\s*\d+)?)$"
    r"|^(?:anything|everything|any\s+gpu|every\s+gpu)(?:'s|\s+is)\s+(?:fair\s+game|ok(?:ay)?|fine|usable)\s+(?:but|except(?:\s+for)?)\s+(?:gpus?\s+)?"
    r"(?P<ids2>\d[\d,\s]*(?:(?:and|&)\s*\d+)?)$"
    # "any gpus are fine except 0", "all gpus are fine other than 2 and 5"
    r"|^(?:any|all)\s+gpus?\s+(?:is|are)\s+(?:fair\s+game|ok(?:ay)?|fine|usable|good)\s+(?:but|except(?:\s+for)?|other\s+than)\s+"
    r"(?:gpus?\s+)?(?P<ids4>\d[\d,\s]*(?:(?:and|&)\s*\d+)?)$",
    re.I,
)
KNOB_TO = re.compile(
    r"^(?P<what>[a-z][\w\s-]*?)\s+(?:(?:put|set|changed|lowered|raised|bumped|moved|dropped|back|(?:back\s+)?down|up)\s+)?(?:to|->|=>|→)\s+"
    r"(?P<val>[A-Za-z0-9_.+-]+)$",
    re.I,
)  # "mem frac to .85", "context length put to 8192"
# "--context-length 32768 is plenty": a setting judged right is a setting to use
JUDGED = re.compile(
    r"^(?P<what>.+?)\s+(?:is|'s|should\s+(?:be|do)|will\s+do|would\s+do)\s+(?:plenty|heaps|more\s+than\s+enough|enough|fine|ok(?:ay)?|good|sufficient)"
    r"(?:\s+for\s+(?:us|now|(?:this|our|my|the)(?:\s+[\w-]+){0,3}))?$|^(?P<what2>.+?)\s+will\s+do$",
    re.I,
)
JUDGED_THAT = re.compile(
    r"^(?P<what>.+?)[\s,]+(?:that'?s|thats|which\s+is)\s+(?:plenty|enough|fine|ok(?:ay)?|good|sufficient)(?P<what2>)$",
    re.I,
)
# "port 8000 is already taken by grafana", "30000's getting firewalled", "30000 collides with our nodeport":
# a port said to be held by something else is one to keep off; read only to be asked back
_HELD = (
    r"(?:'s|\s+(?:is|are|was|were|has\s+been|have\s+been|'s\s+been))?\s+(?:(?:already|both|all|now|still|currently|getting|being)\s+)*"
    r"(?:taken|busy|in\s+use|occupied|used|held|reserved|claimed|allocated|firewalled|blocked|bound|collides|conflicts|"
    # "reserved for you": held for this run, the opposite of kept off
    r"clashes|is\s+taken|belongs?\s+to\s+(?!(?:you|us|opsagent|this\s+run)\b)(?![^.;]*\b(?:you|your|opsagent|sglang)\b)\S.*|"
    r"owned\s+by\s+(?![^.;]*\b(?:you|your|opsagent|sglang)\b)\S.*)\b(?!\s+for\s+(?:you|u|ya|opsagent|us|sglang|this\s+(?:run|server)|your\s+\w+|the\s+(?:agent|bot|server)\b))"
    r"(?:\s+(?:by|with|for|on|from|tomorrow|tmrw|today|now)\b.*)?$"
)
PORTS_HELD = re.compile(
    rf"^(?:the\s+)?(?:ports?\s+)?(?P<ports>\d{{4,5}}(?:\s*(?:,|/|and|&)\s*\d{{4,5}})*){_HELD}", re.I
)
# "GPU 0 and 1 are out", "gpu 3 is busy with a training job": the GPUs said to be held or out of use
GPUS_HELD = re.compile(
    rf"^(?:gpus?|cards?)\s+(?P<ids>\d(?:\s*(?:,|and|&|-)\s*\d)*)(?:{_HELD}|\s+(?:is|are)\s+(?:(?:both|all|still)\s+)?"
    r"(?:out|down|dead|broken|flaky|bad|faulty|sick|pinned|cooked|fried|toast)\b(?:\s+(?:by|with|for|from)\b.*)?$"
    # "card 3 shows Xid 79 since this morning", "gpu 3 has been throwing Xid 79s": a fault it reports
    r"|\s+(?:(?:is|are|has\s+been|have\s+been|keeps?)\s+)?(?:shows?|showing|throws?|throwing|logs?|logging)\s+(?:xids?|ecc)\b.*$)",
    re.I,
)
# "anything but 30000/30001/30002 for the port": the ports left out
ALL_PORTS_BUT = re.compile(
    r"^(?:anything|any\s+port)\s+(?:but|except(?:\s+for)?|other\s+than)\s+(?P<ports>\d{4,5}(?:\s*(?:,|/|and|&|or)\s*\d{4,5})*)"
    r"(?:\s+for\s+the\s+port)?$",
    re.I,
)
# "relaunch on GPUs 0-3 as TP4": the GPUs, and the layout on them
ON_GPUS_AS = re.compile(
    r"^(?P<first>.*?)\s*\b(?:on|to)\s+(?P<gpus>(?:the\s+)?gpus?\s+[\d,\s-]+?)\s+(?:as|with|at|in|using)\s+(?P<layout>.+)$",
    re.I,
)
LEAVE_OFF = re.compile(
    r"^(?:leave|keep)\s+(?P<flag>--[a-z0-9][a-z0-9-]*)\s+(?:off|out\s+of)(?:\s+(?:the\s+)?(?:command(?:\s+line)?|cmdline|launch|args))?$",
    re.I,
)
MODEL_WITH = re.compile(
    r"^(?:(?:serve|load|use|try|run)\s+)?(?P<path>/[\w.@+/-]+)\s+(?:at|with|on|using)\s+(?P<rest>\S.*)$", re.I
)

# "gpu0 and gpu1 are off limits", "gpu3 is forbidden for you": GPUs the operator keeps out of reach
# formal prohibitions and passive bullets: "under no circumstances should --x be used", "port 30000 is
# avoided", "GPU 5 is left alone", "X=1 is set", "nothing is ever started on 30000 or 30001"
SERVER_SUBJECT = r"(?:the\s+server|it|sglang|we|you)"
FORMAL = [
    (re.compile(rf"^under\s+no\s+circumstances\s+should\s+{SERVER_SUBJECT}\s+(?P<x>.+)$", re.I), "never {x}"),
    (
        re.compile(
            r"^under\s+no\s+circumstances\s+should\s+(?P<x>.+?)\s+be\s+(?:used|passed|set|touched|enabled)(?:\s+.*)?$",
            re.I,
        ),
        "don't use {x}",
    ),
    (
        re.compile(r"^(?P<x>.+?)\s+(?:is|are)\s+not\s+(?:to\s+be\s+)?(?:used|touched|passed|set|added|enabled)$", re.I),
        "don't use {x}",
    ),
    (re.compile(r"^(?P<x>.+?)\s+(?:is|are)\s+avoided$", re.I), "avoid {x}"),
    # "--disable-cuda-graph must not be there": a flag that may not be in the launch
    (
        re.compile(
            r"^(?P<x>--[a-z0-9][a-z0-9-]*)\s+(?:(?:must|should|shall|can|may)\s+)?(?:not|never)\s+be\s+"
            r"(?:there|in\s+there|passed|used|set|present|in\s+the\s+(?:args|command(?:\s+line)?|launch))$",
            re.I,
        ),
        "don't use {x}",
    ),
    # "31000 is off limits": one number of a port's size said to be barred is a port
    (re.compile(r"^(?P<x>\d{4,5})\s+(?:is|'s)\s+(?:off[-\s]limits|forbidden|taboo)$", re.I), "avoid port {x}"),
    (
        re.compile(
            r"^(?:the\s+)?(?:command(?:\s+line)?|launch(?:\s+command)?|args|arguments)\s+includes?\s+(?P<x>--.+)$", re.I
        ),
        "use {x}",
    ),
    (re.compile(r"^(?P<x>.+?)\s+(?:is|are)\s+left\s+(?:alone|out)(?:\s+entirely)?$", re.I), "don't use {x}"),
    (re.compile(r"^(?P<x>[A-Z][A-Z0-9_]{2,}=\S+)\s+is\s+set$"), "{x}"),
    (
        re.compile(
            r"^nothing\s+(?:is\s+)?(?:ever\s+)?(?:started|launched|run|served|bound|scheduled|placed)\s+on\s+(?P<x>.+)$",
            re.I,
        ),
        "never use {x}",
    ),
    (
        re.compile(
            r"^(?:restrict|limit|pin)(?:\s+(?:it|the\s+launch|the\s+server))?\s+to\s+(?P<x>CUDA_VISIBLE_DEVICES=\S+)$",
            re.I,
        ),
        "{x}",
    ),
    # "cap it at 64 running requests": the server's own limit on requests in flight
    (
        re.compile(
            r"^(?:cap|limit)\s+(?:it|the\s+server|concurrency|sglang)\s+(?:at|to)\s+(?P<x>\d+)\s+"
            r"(?:running|concurrent|in[-\s]flight|simultaneous)\s+requests$",
            re.I,
        ),
        "use --max-running-requests {x}",
    ),
]
GPUS_BARRED = re.compile(
    # "6 and 7 are off-limits": two or more bare ids said to be barred are GPUs (a port is one number);
    # "gpu 0 off limits": a terse note drops the "is"
    r"^(?P<what>(?:the\s+)?gpus?\s+\d[\d,\s-]*(?:and\s+\d+)?|\d{1,2}(?:\s*(?:,|and|-)\s*\d{1,2})+)\s+(?:(?:is|are)\s+)?"
    r"(?:off[-\s]limits|forbidden|reserved(?!\s+for\s+(?:you|us|this|the\s+run))|taboo|tainted|cordoned|drained|"
    r"not\s+(?:available|usable|ours|yours))(?:\s+(?:for|to)\s+(?:you|us|this|the\s+run))?$",
    re.I,
)
