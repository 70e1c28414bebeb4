"""Formal, policy-like English said as the grammar's imperative, before a reply or an instruction is
read: "Under no circumstances is GPU 3 to be used", "Port 30000 is prohibited for this deployment",
"The server shall be restarted with a tensor parallel size of 4", "--mem-fraction-static shall be set to
0.85", "Approval withheld pending latency review", "Option 2 is selected", "This session is terminated".
Each sentence is turned whole or left as written; what a turned sentence gives as its reason ("for
this deployment", "owing to ECC errors") stays a clause of its own, reported not understood."""

from __future__ import annotations

import re

_MODAL = r"(?:shall|must|will|is\s+to|are\s+to|should)"
_BANNED = (
    r"(?:not\s+(?:permitted|allowed|approved|authori[sz]ed|to\s+be\s+used)|prohibited|forbidden|banned|disallowed|"
    r"barred|excluded(?:\s+from\s+(?:all|every|any)\s+(?:launch(?:es)?|deployments?|use))?|out\s+of\s+scope)"
)
# what a rule's sentence may end with that only says where or why: taken off, or kept as a clause of its own
_QUALIFIER = re.compile(
    r"[,\s]+(?:(?:for|by|in|on)\s+(?:this|the)\s+(?:deployment|session|run|host|launch(?!\s+env))|on\s+this\s+(?:host|box|node)|under\s+any\s+circumstances|"
    r"until\s+further\s+notice|at\s+(?:this|any)\s+time|effective\s+immediately|with\s+immediate\s+effect|"
    r"on\s+that\s+(?:host|box|node|subnet)|going\s+forward|from\s+now\s+on|full\s+stop)\b",
    re.I,
)
_THE = r"(?:the\s+)?"
# what a must-not is said of: never across a comma ("Also, for the record, port 9090 ..."), but a list of ids
_SUBJECT = r"((?:[^,;]|,(?=\s*\d))+?)"
# a subject with no "is"/"are" of its own: never "0-3 are reserved ... and" taken whole as what must not be used
_NO_VERB_SUBJECT = r"((?:(?!\b(?:is|are)\b).)+?)"
_SERVER = r"(?:the\s+)?(?:inference\s+|sglang\s+)?(?:server|deployment|service)"

_SENTENCES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p, re.I), english)
    for p, english in [
        # replies
        (r"^(?:request|proposal|permission)\s+(?:is\s+)?(?:denied|refused|rejected|declined)$", "no"),
        (r"^permission\s+to\s+(?:execute|run)\s+.+?\s+is\s+(?:not\s+granted|denied|withheld)$", "no"),
        (
            r"^(?:approval|sign[-\s]?off)\s+(?:is\s+)?(?:withheld|not\s+granted|denied|"
            r"refused)(?:\s+(?:pending|until)\s+.+)?$",
            "no",
        ),
        (r"^(?:you\s+are\s+)?(?:authori[sz]ed|permitted|cleared)\s+to\s+proceed$", "go ahead"),
        (r"^(?:approval|permission|sign[-\s]?off)\s+(?:is\s+)?granted$", "approved"),
        (
            r"^(?:step|item|option)\s+(\d)\s+(?:is\s+(?:authori[sz]ed|selected|approved|chosen)|"
            r"shall\s+be\s+(?:executed|run))$",
            r"do \1",
        ),
        (r"^no\s+further\s+check[-\s]?ins\s+are\s+(?:required|needed)$", "don't ask me"),
        (
            r"^you\s+(?:shall|may|are\s+to)\s+(?:continue|proceed)\s+(?:autonomously|"
            r"without\s+(?:further\s+)?(?:approval|check[-\s]?ins))$",
            "carry on with your plan",
        ),
        (r"^(?:this|the)\s+(?:session|run)\s+is\s+(?:hereby\s+)?(?:terminated|ended|concluded)$", "stop the whole run"),
        (
            r"^the\s+run\s+(?:shall|must|is\s+to)\s+be\s+(?:halted|terminated|ended|"
            r"stopped)(?:\s+in\s+its\s+entirety)?$",
            "stop the whole run",
        ),
        # what must not be used
        (
            r"^(?:under\s+no\s+circ\w+|in\s+no\s+case|at\s+no\s+time)\s+(?:should|shall|must|may)\s+(?:the\s+server\s+)?"
            r"(?:listen|serve)\s+on\s+(.+)$",
            r"never use \1",
        ),
        (
            r"^(?:under\s+no\s+circ\w+|in\s+no\s+case|at\s+no\s+time)\s+(?:is|are|shall|may|"
            r"must|should)\s+(.+?)\s+(?:to\s+)?be\s+(?:used|touched|passed|set|bound)$",
            r"never use \1",
        ),
        (rf"^(?:the\s+)?(?:use\s+of\s+)?{_SUBJECT}\s+(?:is|are)\s+{_BANNED}$", r"never use \1"),
        (
            rf"^{_NO_VERB_SUBJECT}\s+(?:shall|must|may|is\s+to|are\s+to)\s+not\s+be\s+(?:used|passed|set|touched|"
            r"bound|enabled)$",
            r"never use \1",
        ),
        (
            rf"^{_SUBJECT}\s+(?:shall|must|may)\s+never\s+be\s+(?:used|passed|set|touched|bound|enabled)$",
            r"never use \1",
        ),
        (
            rf"^{_SUBJECT}\s+(?:is|are)\s+not\s+to\s+be\s+(?:used|passed|set|touched|bound|enabled)"
            r"(?:\s+by\s+anything\s+(?:you|we)\s+(?:start|launch|run))?$",
            r"never use \1",
        ),
        # "0-3 are reserved for the overnight batch and must not be touched": the must-not, of its subject
        (
            rf"^{_NO_VERB_SUBJECT}\s+(?:is|are)\s+reserved\s+(?:for|by)\s+.+?\s+and\s+(?:must|shall|may|should)\s+"
            r"not\s+be\s+(?:used|touched)$",
            r"never use \1",
        ),
        (
            r"^no\s+(?:launch|deployment|server)\s+is\s+(?:permitted|authori[sz]ed|"
            r"allowed)\s+on\s+(.+?)(?:\s+pending\s+.+)?$",
            r"never launch on \1",
        ),
        (r"^no\s+(?:re-?launch|restart)\s+is\s+(?:permitted|authori[sz]ed|allowed)$", "don't relaunch"),
        (
            rf"^(?:{_SERVER}|it)\s+(?:is|are)\s+not\s+to\s+be\s+(?:re-?launched|"
            rf"restarted)(?:\s+until\s+.+)?$",
            "don't relaunch",
        ),
        # what must be done
        (
            rf"^{_SERVER}\s+{_MODAL}\s+be\s+(?:re-?started|re-?launched)\s+(?:with|using|at)\s+(.+)$",
            r"relaunch with \1",
        ),
        (rf"^{_SERVER}\s+{_MODAL}\s+be\s+(?:re-?started|re-?launched)\s+on\s+(.+)$", r"relaunch on \1"),
        (rf"^{_SERVER}\s+{_MODAL}\s+be\s+(?:re-?started|re-?launched)$", "relaunch"),
        (
            rf"^it\s+is\s+(?:directed|required|ordered)\s+that\s+{_SERVER}\s+be\s+(?:re-?started|"
            rf"re-?launched)\s+(.+)$",
            r"relaunch \1",
        ),
        (rf"^{_SERVER}\s+{_MODAL}\s+be\s+(?:shut\s+down|stopped|halted|taken\s+down)$", "stop the server"),
        (rf"^{_SERVER}\s+{_MODAL}\s+(?:listen|be\s+served|serve)\s+on\s+(port\s+\d{{2,5}})$", r"serve on \1"),
        (rf"^{_SERVER}\s+{_MODAL}\s+be\s+confined\s+to\s+(.+)$", r"use only \1"),
        (r"^only\s+(gpus?\s+[\d\s,and&-]+?)\s+(?:is|are)\s+(?:authori[sz]ed|permitted|approved)$", r"use only \1"),
        (
            r"^(?:the\s+)?model(?:\s+path)?\s+(?:is|shall\s+be|has\s+been)\s+(?:amended|changed|set|"
            r"switched|updated)\s+to\s+(\S+)$",
            r"serve \1",
        ),
        (rf"^(?:the\s+)?(?:benchmark|bench)\s+{_MODAL}\s+be\s+re-?run$", "measure again"),
        (
            rf"^([A-Z][A-Z0-9_]+)\s+{_MODAL}\s+be\s+(?:unset|"
            rf"removed\s+from\s+the\s+(?:launch\s+)?environment)$",
            r"unset \1",
        ),
        (rf"^([A-Z][A-Z0-9_]+=\S+)\s+{_MODAL}\s+be\s+set(?:\s+in\s+the\s+(?:launch\s+)?environment)?$", r"\1"),
        (rf"^{_THE}(.+?)\s+{_MODAL}\s+be\s+set\s+to\s+(\S+)$", r"set \1 to \2"),
        (rf"^{_THE}(.+?)\s+{_MODAL}\s+be\s+capped\s+at\s+(\S+)$", r"cap \1 at \2"),
        # "mem-fraction-static is to be 0.85, not higher", "max running requests must not exceed 32"
        (
            r"^(?:the\s+)?(.+?)\s+(?:is|are)\s+to\s+be\s+(\d[\w.]*)(?:,?\s+not\s+(?:higher|more|above|over))?$",
            r"set \1 to \2",
        ),
        (r"^(?:the\s+)?(.+?)\s+(?:must|shall|may|should)\s+(?:not|never)\s+exceed\s+(\d[\w.]*)$", r"cap \1 at \2"),
        # "I need the server stopped"
        (
            rf"^(?:i|we)\s+(?:need|want)\s+{_SERVER}\s+(?:stopped|shut\s+down|taken\s+down|brought\s+down)$",
            "stop the server",
        ),
        (
            rf"^{_THE}(.+?)\s+{_MODAL}\s+be\s+(?:applied|enabled|used|passed|"
            rf"added)(?:\s+to\s+the\s+model(?:\s+weights)?)?$",
            r"use \1",
        ),
        (rf"^{_THE}(kv\s+cache|attention\s+backend)\s+{_MODAL}\s+(?:use|be)\s+(\S+)$", r"\1 \2"),
    ]
]  # fmt: skip
_SENTENCE_END = re.compile(r"((?<=[.;!])\s+)")


def _plain(sentence: str) -> str:
    body = sentence.strip()
    end = body[len(body.rstrip(".;!")) :]
    body = body.rstrip(".;!").strip()
    main, why = re.sub(r"^(under\s+no\s+circ\w+|in\s+no\s+case|at\s+no\s+time),\s*", r"\1 ", body, flags=re.I), ""
    # "for this deployment": where the rule holds, said of every rule here; "owing to ...": why
    main = _QUALIFIER.sub("", main)
    # "Also, for the record, port 9090 is ...": words that only lead into the sentence
    main = re.sub(
        r"^(?:(?:also|additionally|and|for\s+the\s+record|fyi|note|to\s+be\s+clear)\s*[,:]?\s+)+", "", main, flags=re.I
    )
    reason = re.search(
        r"\s+[-—–]\s+|\s+(?:owing\s+to|due\s+to|per|pending|as|because|since|(?:in\s+order\s+)?to\s+(?:limit|avoid|keep|reduce|"
        r"prevent|save|free|protect|ensure|allow|match))\s+.+$",
        main,
        re.I,
    )
    # "The server shall be stopped and is not to be relaunched": two rules of one subject
    both = re.match(
        rf"^(?P<subject>.+?)\s+(?P<first>{_MODAL}\b.+?)\s+and\s+(?P<then>(?:{_MODAL}|is|are)\b.+)$", main, re.I
    )
    if both is not None:
        first = _plain(f"{both.group('subject')} {both.group('first')}")
        then = _plain(f"{both.group('subject')} {both.group('then')}")
        if (
            first != f"{both.group('subject')} {both.group('first')}"
            and then != f"{both.group('subject')} {both.group('then')}"
        ):
            return f"{first}; {then}{end}"
    for said, english in _SENTENCES:
        if said.match(main):
            return said.sub(english, main) + end
        if reason is not None and said.match(main[: reason.start()]):
            why = main[reason.start() :].strip()
            return said.sub(english, main[: reason.start()]) + "; " + why + end
    return sentence


def plain(text: str) -> str:
    """`text` with each sentence said in policy form put as the grammar's imperative; others as they were."""
    pieces = _SENTENCE_END.split(text)
    return "".join(piece if at % 2 else _plain(piece) for at, piece in enumerate(pieces))
