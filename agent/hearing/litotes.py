"""Negations that say yes, and yeses that say no, put plainly before a reply is read: "I wouldn't say no",
"can't hurt", "not a bad call, go ahead", "no, that's fine, do it", "no reason not to use 0-3", "I don't
think you should launch on gpu 3", "yes, I saw it, but no", "not unless the server's dead, and it isn't.
no". Each form is one whose meaning is plain from its words; a "no" and a "yes" said together with
nothing to tell which stands ("ok no"), or a refusal handed back ("I wouldn't, but it's your call"), are
marked unsettled: nothing of them is taken."""

from __future__ import annotations

import re

_SETTING = r"(?=--[a-z]|(?-i:[A-Z][A-Z0-9_]{2,})=|(?:gpus?\s+)?\d|tp\s*\d|dp\s*\d|the\s+\w)"
_PLAIN = [
    # a hesitation, then the no: "wait... no. don't do this, ...", "hmm, no, skip it"
    (r"^(?:wait|hmm+|uh+|hold\s+on)[\s,.…]*(?=no[\s,.!]+(?:don'?t|do\s+not|skip|not)\b)", ""),
    # a "no" that answers a worry, then a go-ahead: "no, that's fine, do it", "no, it's ok, go"
    (r"^(?:no|nah|nope)[\s,.!]+(?=(?:that'?s|thats|it'?s|its)\s+(?:fine|ok(?:ay)?|good|alright)\b)", ""),
    # litotes: the double negative is a yes
    (r"^(?:i\s+)?(?:wouldn'?t|would\s+not)\s+say\s+no(?:\s+to\s+that)?(?:\s+(?:tbh|honestly))?(?=[\s.!]*$)", "yes"),
    (rf"^(?:i\s+)?(?:wouldn'?t|would\s+not)\s+say\s+no\s+to\s+{_SETTING}", "use "),
    (r"^(?:it\s+)?(?:can'?t|cannot|won'?t|wouldn'?t)\s+hurt(?=[\s.!]*$)", "ok, go ahead"),
    (
        rf"^(?:it\s+)?(?:can'?t|cannot|won'?t|wouldn'?t)\s+hurt\s+to\s+(?:have|use|set|add|try|bump(?:\s+up)?)\s+{_SETTING}",
        "use ",
    ),
    (r"^(?:that'?s\s+|it'?s\s+)?not\s+(?:a\s+)?(?:bad|terrible|the\s+worst)\s+(?:call|idea|plan)\b", "good call"),
    (r"^(?:i\s+)?can'?t\s+argue\s+with\s+(?:that|this|those\s+numbers)\b", "agreed"),
    (r"^(?:i\s+)?don'?t\s+see\s+why\s+not\b", "ok"),
    (rf"^(?:there'?s\s+)?no\s+reason\s+not\s+to\s+(?=use\s+{_SETTING})", ""),
    (rf"^there'?s\s+nothing\s+wrong\s+with\s+{_SETTING}", "use "),
    # "nobody said you couldn't use 4-7. use exactly 4,5,6,7": a rule denied, then the order itself
    (r"^(?:nobody|no\s+one)\s+said\s+(?:you|we)\s+(?:couldn'?t|can'?t|shouldn'?t)\b[^.;]*[.;]\s*(?=\S)", ""),
    (r"^no\s+use\s+(?=nothing\s+on\b)", ""),  # "no use nothing on gpu 0": a double negative, one must-not
    (r"\byou\s+can'?t\s+not\s+(?=set|use|pass|add)", ""),  # "you can't not set X=1 here": set it
    # a negation far from its verb: "I don't think you should launch on gpu 3"
    (r"^i\s+(?:don'?t|do\s+not)\s+think\s+(?:you|we)\s+should\s+(?=launch|use|run|serve|touch|set|pass|add)", "don't "),
    (r"^((?-i:[A-Z][A-Z0-9_]{2,}))\s+(?:shouldn'?t|should\s+not)\s+be\s+set(?:\s+any\s*more)?\b", r"unset \1"),
    # "yes, I saw it, but no": the yes is to what was seen, the no to the question
    (r"^(?:yes|yeah|yep)[\s,]+i\s+(?:saw|see|read|get|got|hear|heard)\b[^,.;]*[,.;]?\s*but\s+(?=no\b)", ""),
    # "not unless the server's actually dead, and it isn't. no": the refusal said last, its reason first
    (r"^(not\s+unless\b[^.;!?]+)[.;!]\s*(?:so\s+)?no[.!]*$", r"no, \1"),
    # "shouldn't we just stop the whole thing? yes. stop it all": a question the writer answers at once
    (r"^(?:shouldn'?t|should|can'?t|why\s+don'?t)\s+we\b[^?]*\?\s*(?:yes|yeah|yep)[.!,]\s*(?=\S)", ""),
    (r"^why\s+not\s+(?:tp|dp)\s*\d+\s*\?\s*(?:seriously|honestly|really)?[\s,.!]*(?=\S)", ""),
]
_PLAIN_FORMS = [(re.compile(said, re.I), plain) for said, plain in _PLAIN]
# a yes and a no with nothing to tell which stands; a refusal handed back to the tool to decide
_UNSETTLED = re.compile(
    r"^(?:ok(?:ay)?)[\s,.]+(?:no|nope|nah)[\s.!]*$|"  # never "yeah no": a no, said the Australian way
    r"^(?:no|nope|nah|i\s+wouldn'?t|i'?d\s+rather\s+not)\b.*\bbut\s+(?:it'?s\s+|its\s+)?(?:your\s+call|up\s+to\s+you)\b|"
    # "hold off until the checkpoint finishes copying": a wait on something I cannot see end (never "until I say")
    r"^(?:hold(?:\s+off|\s+on)?|wait)\s+(?:until|till)\s+(?!i\b|i'|we\s+say|you\s+hear)[^.;!?]*$|"
    # "mem fraction => your call": one setting's value handed back, which no reply says (the run goes on its plan)
    r"^.*?\b(?:mem\w*|tp|dp|port|gpus?|layout|context\w*|ctx|chunk\w*|prefill|kv\b[\w\s]*|backend|model|flag)(?:\s+[a-z]+){0,2}\s*(?:=>|->|:)\s*"
    r"(?:your\s+call|up\s+to\s+you|you\s+decide)\b",
    re.I,
)


def plain(text: str) -> str:
    """`text` with a negation that says yes (or a yes that says no) said plainly; the rest as it was."""
    for form, said in _PLAIN_FORMS:
        text = form.sub(said, text, count=1)
    return text


def unsettled(text: str) -> bool:
    """Whether the words say yes and no with nothing to tell which stands, or hand the refusal back."""
    return _UNSETTLED.match(text.strip()) is not None
