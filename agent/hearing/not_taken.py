"""Words the grammar could read but must not take as said: an instruction that hangs on a condition it
cannot check ("use GPUs 4-7, if that helps"), a state reported in a must-not's words ("no GPU 3 issues
today"), a quoted message, and what is said to be NOT wanted ("instead of tp 4", "use GPU 3 too")."""

from __future__ import annotations

import re
from collections.abc import Callable

# a condition said first, which the grammar cannot check: the clause after it hangs on it
CONDITION_FIRST = re.compile(
    r"^(?:(?:only\s+|except\s+|but\s+not\s+)?(?:if|once|when(?:ever)?)|provided(?:\s+that)?|as\s+long\s+as|assuming(?:\s+that)?|in\s+case|unless|"
    r"should\s+(?:it|the|we|that|this|there)|otherwise|else)\b",
    re.I,
)


_NOT_DECIDED = re.compile(
    # "... no 30000... finally I don't know, ask Julien": the writer says they have not decided
    r"\bi\s+(?:really\s+|honestly\s+)?(?:don'?t|do\s+not|dont|can'?t|cannot)\s+(?:know|remember|recall)\b"
    r"(?!\s+(?:why|what|how|if|whether|when|where|who)\b)|"
    # "port 30000 - or was it 30001?", "tp 4, tp 8 also can": the writer offers two and has not chosen
    r"\bor\s+was\s+it\b|\b(?:also|too)\s+(?:can|ok(?:ay)?|fine|possible)\s*(?:[.!?]|$)|\bwhichever(?:'s|\s+(?:one|of|is))\b|"
    # "context 32768... or 65536 if it fits?": another value offered, hanging on a question
    r"\bor\s+(?:maybe\s+)?[\w.-]*\d[\w.-]*\s*(?:if\b[^?]*)?\?|"
    # "tp 4, or is 2 better?": the other value weighed in a question
    r"\bor\s+(?:is|would|will|should|does)\s+(?:maybe\s+)?[\w.-]*\d[\w.-]*\s+(?:be\s+)?(?:better|safer|faster|enough|ok(?:ay)?|fine)\b[^?]*\?|"
    r"\blet\s+me\s+(?:check|confirm|verify|ask|double[-\s]check|think|get\s+back)\b|"
    r"\b(?:i'?ll|i\s+will|will)\s+(?:revert|get\s+back|come\s+back\s+to\s+you|confirm\s+(?:with|and|later|shortly))\b|"
    # "please wait, I check with the other team", "I will discuss with my manager": another's word awaited
    # (never "don't relaunch until I check with my lead": a hold until then, said whole)
    r"(?<!until\s)(?<!till\s)\bi\s+(?:will\s+|'?ll\s+)?(?:check|discuss|talk)\s+(?:it\s+|this\s+|that\s+)?with\b|"
    # "0-3... no, 4-7. or how you think better", "or your call": the choice left to the tool, never taken as said
    r"\bor\s+(?:(?:how|whatever|what)\s+you\s+think\s+(?:is\s+)?(?:better|best)|(?:it'?s\s+)?(?:your\s+call|up\s+to\s+you))\b",
    re.I,
)


def undecided(text: str) -> bool:
    """Whether the writer says they have not decided yet ("let me check", "I will discuss with my manager")."""
    return _NOT_DECIDED.search(text) is not None


# "serve on 30000? oh wait, we're not supposed to use 30000 right?": the writer doubts what they said, unsettled
_WAIT_DOUBTED = re.compile(r"(?:\boh\s+wait\b[\s,.!—–-]*|\bwait\s*[,.!—–-]+)\s*[^?]*\?", re.I)  # never "wait for ..."
# "same as run 3 but tp 2": a change to a configuration named first by a reference the run cannot place (never
# "tp 8, the same as the other cluster": a setting said whole, then compared)
_EARLIER_CONFIG = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|so|then)[,\s]+)?(?:(?:the\s+)?same\s+as|like|as\s+in|as\s+per)\s+"
    r"(?:(?:the\s+)?(?:run|launch|attempt|experiment|exp|config|test|try|trial|job)\s*#?\d+|"
    r"last\s+(?:time|week|night)|yesterday(?:'s)?|the\s+other\s+(?:day|box|host|node|cluster))\b",
    re.I,
)
# "when the load drops", "once the job finishes", "as soon as gpu 3 frees up": an event to come, said last
_WHEN_IT_HAPPENS = re.compile(
    # (never "after the bench finishes, the next launch goes on 30010": from the next launch on, as every rule;
    # nor "they get upset when they drop": a reason's)
    r"\b(?:when|once|as\s+soon\s+as)\s+(?:the\s+)?(?!(?:they|it|we|you|i)\b)[\w-]+(?:\s+\d)?\s+"
    r"(?:drops?|finish(?:es)?|is\s+(?:done|over|free|idle)|"
    r"frees?\s+up|ends?|quiets?\s+down|settles?(?:\s+down)?)\b",
    re.I,
)
_IF_NEEDED = re.compile(
    r"\b(?:if|when|where)\s+(?:required|needed|necessary|need\s+be)\b|\bas\s+(?:needed|required)\b", re.I
)

# "on the staging box use gpu 3": an instruction for another host, never this run's; unless this one is
# named too ("the other box ran fa3. here do flashinfer"), when the clause about the other stays unread
# said first, or right after the setting it places; never a reason ("same trick as on the other box")
_OTHER_HOST = (
    r"(?:on|for|in|at)\s+(?:the\s+|our\s+)?(?:staging|prod(?:uction)?|dev|test|other|second|backup|old|new|spare)"
    r"\s+(?:box|host|node|machine|server|cluster|rig|env(?:ironment)?)"
)
_ELSEWHERE = re.compile(
    rf"(?:^|[.;!]\s+)(?:(?:and|also|ok|so)[,\s]+)?{_OTHER_HOST}\b|(?:\d|--[a-z][\w-]*)\s+{_OTHER_HOST}\s*[.!]*$", re.I
)
_HERE = re.compile(r"\b(?:here|this\s+(?:box|host|node|machine|one|cluster))\b", re.I)

# "no GPU 3 issues today": a state reported, never a GPU or a port kept out
_STATE_REPORT = re.compile(
    r"\bno\s+(?:gpu|port)\s*\d+\s+(?:issues?|errors?|problems?|conflicts?|alerts?|complaints?)\b", re.I
)


def conditional(said: list[str], text: str, readable: Callable[[str], bool]) -> bool:
    """Whether an instruction in `text` hangs on a condition the grammar cannot check, before or after
    it ("use GPUs 4-7, if that helps", "only if it OOMs, use --x"), or the words report a state that
    reads like one ("no GPU 3 issues today"), or it quotes another's message: nothing of it is taken or
    asked back. `said` is `text` in clauses; `readable` says whether the grammar reads one."""
    if _STATE_REPORT.search(text) or re.search(r"(?m)^\s*>", text):
        return True  # a state reported, or a message quoting another's ("> raj: don't touch gpu 3")
    if _IF_NEEDED.search(text) or undecided(text) or _WAIT_DOUBTED.search(text):
        return True  # "also 5 and 6 if required", "tp 2... let me check and revert": not the operator's word yet
    if _ELSEWHERE.search(text) and not _HERE.search(text):
        return True  # "on the staging box use gpu 3": not this host's launch
    if _EARLIER_CONFIG.search(text):
        return True  # "same as run 3 but tp 2": what run 3 was is not mine to guess
    if _WHEN_IT_HAPPENS.search(text):
        return True  # "restart it when the load drops": an event I do not watch for
    for at, clause in enumerate(said):
        later = _AT_A_LATER_TIME.search(clause)
        if later is None and (first := _LATER_FIRST.match(clause)) is not None and readable(clause[first.end() :]):
            later = first  # "tomorrow, relaunch on 4-7"
        said_now = clause.replace(later.group(0), " ").strip() if later is not None else ""
        if later is not None and not _NEGATED.match(clause) and not _A_REASON.search(said_now) and readable(said_now):
            return True  # "stop the server tomorrow": a time I cannot wait for; never done now
        # "tomorrow, stop it", "next week when we redo this on the H200s, go tp 4": the time of the clause after
        if _LATER_FIRST.match(clause + " ") and at + 1 < len(said) and readable(said[at + 1]):
            return True
        signs_next = at + 1 < len(said) and _MY_SIGN_OFF.fullmatch(said[at + 1].strip(" .!"))
        if _ON_THE_RESULT.match(clause) and (_MY_SIGN_OFF.search(clause) or signs_next):
            continue  # "if it still clears 1000 there, I'm happy": what hangs on it is my sign-off, not an order
        if _an_exception_after(clause, at, said, readable):
            return True
        if CONDITION_FIRST.match(clause) and not _COURTESY_IF.match(clause):
            # it governs an instruction beside it ("if the job is done, take GPUs 4-7"), not a remark's
            # ("do NOT touch gpu0, prod lives there and if it OOMs we page the org")
            beside = said[max(at - 1, 0) : at] + said[at + 1 : at + 2]
            if at > 0 and _starts_a_sentence(clause, text):
                # "serve on 30010 tonight. if you see anything else on 30010 ping Bob": a condition that opens
                # a sentence hangs what follows it, never the sentence before (then only that is unread)
                beside = [clause, *said[at + 1 : at + 2]]
                if not any(readable(other) for other in beside):
                    continue
            if re.match(r"(?:otherwise|else)\b", clause, re.I):
                # "cap it at 256, otherwise the p99 goes wobbly": what "otherwise" hangs is its own clause
                beside = [clause[len(clause.split()[0]) :].strip(" ,"), *said[at + 1 : at + 2]]
            if not beside or any(readable(other) for other in beside):
                return True
    return False


def _starts_a_sentence(clause: str, text: str) -> bool:
    """Whether `clause` opens a sentence of `text` after another ("... tonight. If you see ...")."""
    opening = re.escape(" ".join(clause.split()[:3]))
    return re.search(rf"[.!]\s+{opening}", " ".join(text.split()), re.I) is not None


# the operator's own sign-off to come, said last: "if it still holds 1000 ill sign", "..., I'm happy"
_MY_SIGN_OFF = re.compile(
    r"(?:\b(?:i'?m|im|i\s+am)\s+(?:happy|good|fine|satisfied)|\b(?:i'?ll|ill|i\s+will|i\s+can)\s+sign(?:\s+(?:it\s+)?off)?|"
    r"\bwe'?re\s+(?:good|done)|\bgood\s+to\s+go)[\s.!]*$",
    re.I,
)
# a condition on the measured result only: "if it still clears 1000", "if it holds"
_ON_THE_RESULT = re.compile(
    r"^(?:only\s+)?(?:if|once|when)\s+(?:it|that|the\s+(?:number|result|throughput|bench(?:mark)?))\s+(?:(?:still|also|now)\s+)*"
    r"(?:clears?|holds?|hits?|passes|beats?|makes\s+it|stays?\s+(?:over|above)|(?:is|gets?)\s+(?:over|above))\b"
    r"(?:\s+(?:the\s+)?(?:[\d.,]+k?|target|goal|bar|line)(?:\s*tok/?s)?)?(?:\s+(?:there|again|too|then|on\s+(?:those|that|it)))?"
    r"(?:,?\s+(?:i'?m|im|i\s+am|i'?ll|ill|i\s+will|i\s+can|we'?re|good)\b.*)?$",
    re.I,
)

# a time to come said right after an instruction ("relaunch tonight", "use GPU 3 tomorrow"); never the
# time of a reason ("done for tonight", "till tomorrow", "until tonight")
_AT_A_LATER_TIME = re.compile(
    r"(?<!\bfor)(?<!\btill)(?<!\buntil)(?<!\bby)(?<!\bfrom)\s+(?:tomorrow|tmrw|tonight|tonite|later(?:\s+today|\s+on)?|"
    r"next\s+(?:week|month)|in\s+(?:an?|\d+)\s+(?:hours?|hrs?|mins?|minutes)|at\s+\d{1,2}(?::\d\d)?\s*(?:am|pm)?|"
    # "just now": later, to a South African; a moment ago, or at once, to others (never placed)
    r"just\s+now|now\s+now|after\s+(?:lunch|standup|the\s+(?:weekend|meeting|call|window|freeze|demo|release|deploy)))"
    r"(?:\s+(?:morning|night|evening))?[\s.!]*$",
    re.I,
)

# "turn on NCCL_DEBUG=INFO so the engineers can read the logs later": the time is the reason's
_A_REASON = re.compile(r"\b(?:so|because|cause|cuz|since|as|when|while|that|can|could|will|would|we|they|i)\b", re.I)
_LATER_FIRST = re.compile(
    # "eventually make the server new": some time to come (or, from German's "eventuell", a maybe): never now
    r"^(?:tomorrow|tmrw|tonight|tonite|next\s+week|eventually|at\s+some\s+point|"
    # "at 10pm: port 30010", "after 18:00, tp 8", "at t + 10 min: port := 30010": a clock time, or a wait from now
    r"(?:at|after|from)\s+\d{1,2}(?::\d\d\s*(?:am|pm)?|\s*(?:am|pm))|(?:at\s+)?t\s*\+\s*\d+\s*(?:min(?:ute)?s?|h(?:ou)?rs?|h|m)|"
    # "in 15 min !port 30010", "in about half an hour switch to port 30010"
    r"in\s+(?:about\s+|around\s+|~\s*)?(?:an?|\d+|half(?:\s+an?)?|a\s+half|a\s+few|a\s+couple(?:\s+of)?|"
    r"one|two|three|five|ten|fifteen|twenty|thirty|forty(?:[-\s]five)?|sixty)\s*(?:hours?|hrs?|h|mins?|minutes|m))\b"
    r"(?:\s+(?:morning|night|evening))?[,:]?\s+",
    re.I,
)


_COURTESY_IF = re.compile(
    r"^if\s+you(?:'d|\s+would|\s+could)\s+be\s+so\s+(?:kind|good)|^if\s+you\s+(?:don'?t|do\s+not)\s+mind|^if\s+you\s+please|"
    r"^if\s+you\s+have\s+no\s+objections?|^if\s+that\s+is\s+agreeable(?:\s+to\s+you)?",
    re.I,
)


NOT_THIS = re.compile(
    r"^(?:instead\s+of|anything\s+(?:but|except)\s+(?=tp|dp|tensor|data|--)|other\s+than|rather\s+than|not\s+only|"
    r"(?:don'?t|do\s+not)\s+(?:launch|run|use|serve)\s+only)\b"
    # "re-run the job": a CI job or a pipeline, never plainly the benchmark
    r"|^re-?run\s+(?:the\s+)?(?:job|pipeline|workflow|ci|build|deploy(?:ment)?|playbook|plan)\b"
    # "use GPU 3 too", "also use gpu 3": a GPU added to a set never said; not the only one (asked instead)
    r"|^(?:please\s+)?(?:also\s+)?use\b.*\bgpus?\b.*\b(?:too|as\s+well|also|in\s+addition)$|^also\s+use\s+(?:the\s+)?gpus?\b",
    re.I,
)


_NEGATED = re.compile(
    r"(?:don'?t|do\s+not|never|not|no|avoid|skip|exclude|stay\s+(?:off|away)|keep\s+(?:off|away|out)|leave|block|ban)\b",
    re.I,
)


def carry_over(verb: str, said: str, text: str, reads_alone: bool) -> str:
    """Whether the verb of the clause before carries to `said` ("carry"), `said` is read alone, or asked
    about ("ask"). A must-not never carries to a list's next item ("- stay off gpu 2\\n- port 30011"); over
    a comma it is asked about ("don't use gpu 2, port 30009": refused too, or the one to use?)."""
    if said.startswith("--") and re.match(r"(?:disable|enable|turn|switch)\b", verb, re.I):
        return "alone"  # "disable radix cache please, --disable-radix-cache": the flag says it, never "disable" it
    if re.match(r"--[a-z][\w-]*[ =]\S", said) and re.match(r"(?:drop|remove|unset|lose|kill|take)\b", verb, re.I):
        return "alone"  # "drop --x, ... and --cuda-graph-max-bs 128": a flag given a value is put in, not dropped
    last = re.escape(said.split()[-1])  # "prot 30005" in the words typed is "port 30005" in `said`
    # a new sentence may be the one to use ("avoid them. And port 31000 please.", "drop --x, why was that
    # there? and --cuda-graph-max-bs 128"): no verb carries over a sentence's end
    if re.search(rf"[.!?]\s+(?:(?:and|also|plus)[\s,]+)?(?:[\w-]+\s+){{0,3}}{last}\b", text, re.I):
        return "alone"
    if reads_alone and re.search(rf"\n[-*•\s]*{re.escape(said.split()[0])}\b", text):
        return "alone"  # a line of its own that reads alone ("unset X\ngpus 2,3 only"): never "unset gpus 2,3"
    if _NEGATED.match(verb) and re.search(rf"\b(?:but|however)\s+{re.escape(said.split()[0])}\b", text, re.I):
        return "alone"  # "don't use GPU 2, but tp 8 across all 8 GPUs": the "but" turns from the must-not
    if not _NEGATED.match(verb) or not reads_alone:
        return "carry"
    # ", and gpu 3" joins it to the must-not; a bare ", port 30009" may be the one to use
    return "ask" if re.search(rf",\s*(?!(?:and|or|nor)\b)(?:[\w-]+\s+){{0,2}}{last}\b", text) else "carry"


def refuses(readings: list[str]) -> bool:
    """Whether the readings said before "on" or "with" refuse something ("don't relaunch on GPU 3",
    "never restart with tp 8"): what follows may be what they refuse, so it is never read as wanted."""
    return any(part.startswith(("don't", "never")) for part in readings)


# "the port 30000 you can use it again", "gpu 3 is yours again": a must-not lifted, which no rule says (a
# rule holds until changed, and "use it" would pin the launch to it): nothing of the message is taken
LIFTED = re.compile(
    # "you can pass torch compile again": a permission given back, whatever it names (no field says so)
    r"\b(?:you\s+)?(?:can|may|could|are\s+free\s+to|are\s+allowed\s+to)\s+(?:now\s+)?(?:use|touch|take|have|pass|enable)\s+"
    r"(?:it|them|'em|that(?:\s+one)?|those|these|(?:--)?[\w-]+(?:\s+[\w.-]+){0,2}?)\s+(?:again|back)\b|\b(?:is|are)\s+yours\s+again\b|"
    # "--x is fine again, you can pass it" (never "p2p is fine again after the reboot": why a variable goes)
    r"(?:--[\w-]+|gpus?\s*\d+|ports?\s*\d+|\b\d{4,5})\s+(?:(?:is|are)\s+(?:fine|ok(?:ay)?|allowed|safe|back\s+in)|✅|👍|ok)\s+again\b",
    re.I,
)


# the host, never the server: "restart the node", "reboot the host, then relaunch on tp 8", "restart everything"
# (a reboot is outside what the run may do; a yes to the rest would drop it): nothing of the message is taken
HOST_LEVEL = re.compile(
    # said as an order ("reboot the host", "then reboot"), never a reboot told of ("after the reboot", "it reboots")
    r"(?:^|[,.;:!—–]\s*|\b(?:then|and|please|pls|also|(?<!why\snot\s)just)\s+)(?:reboot|power[\s-]?cycle)\b"
    r"(?!'s\s+off|\s+is\s+off|\s+window)|"
    r"\bpower[\s-]?cycle\w*|\b(?:restart|reset|bounce|cycle|nuke|wipe)\s+(?:the\s+|this\s+)?"
    r"(?:node|host|box|machine|gpus?|driver|everything|it\s+all|all\s+of\s+it|whole\s+(?:thing|box|host|node))\b",
    re.I,
)


# "for this launch only, tp 8", "just this once", "until the next restart", "for the next hour", "skip gpu 1 for
# this test, then it's back in the pool": a rule for a while, which the run cannot hold (a rule holds until the
# operator changes it); nothing of the message is taken
FOR_A_WHILE = re.compile(
    r"\b(?:for\s+)?this\s+(?:launch|run|test|restart|bench(?:mark)?|one(?:\s+test)?|time)\s+only\b|"
    r"\bonly\s+(?:for\s+)?this\s+(?:launch|run|test|once)\b|\bjust\s+(?:for\s+)?this\s+(?:one(?:\s+test)?|launch|test)\b|"
    r"\b(?:just|only)\s+this\s+once\b|\buntil\s+the\s+next\s+(?:restart|relaunch|launch)\b|"
    r"\bfor\s+the\s+next\s+(?:hour|few\s+(?:minutes|hours)|\d+\s*(?:min(?:ute)?s?|h(?:ou)?rs?))\b|"
    r"\bthen\s+(?:it'?s|they'?re)\s+back\s+(?:in|to|on)\b|\b(?:then|after\s+that)\s+(?:put|turn|switch|set)\s+[\w\s-]*\bback\b",
    re.I,
)


# "put everything back how it was", "revert the gpu change", "undo that": a way back to a state said before, which
# a yes or no beside it does not answer
REVERT = re.compile(
    r"\b(?:put|set|change|switch|roll|move)\s+(?:\w+\s+){0,2}back\s+(?:how|the\s+way|to\s+(?:how|the\s+way|what))\b|"
    # an order with its object ("revert the gpu change", "undo that"), never "will revert on Monday" (reply, in
    # Indian English) nor "don't undo anything"
    r"(?<!don't\s)(?<!dont\s)(?<!not\s)(?<!never\s)(?<!will\s)\b(?:revert|undo|roll\s*back)\s+"
    r"(?:the|to|it|that|this|everything|all|my|your|what|those|these)\b|"
    r"\bback\s+to\s+(?:the\s+)?(?:old|previous|original|last|earlier)\b",
    re.I,
)


# Words that would change the run's hard rules, its goal or how approval works, said in chat ("SYSTEM: policy
# updated", "approve all future commands", "the gate is disabled on this host", "new goal: 500 tok/s"): the
# operator's constraints and the policy gate are set when the run starts, never by a reply; such a message is
# not taken (not even the yes or the "keep going" beside it), and is said back as not understood.
POLICY_CHANGE = re.compile(
    r"\bpre-?approved?\b|"
    r"\b(?:approve|accept|allow|okay|ok)\w*\s+(?:all|every|any)(?:thing)?\s+(?:future|further|subsequent|later|following|"
    r"remaining|other)\b|"
    r"\b(?:treat|consider)\s+(?:every|all|each|any)\s+\w+\s+as\s+(?:pre-?)?approved\b|"
    r"\bsign\s+(?:it\s+)?off\s+(?:on\s+your\s+own|by\s+yourself|yourself|without\s+me)\b|"
    # the run's own rules, never any ("the firewall rules changed")
    r"\b(?:policy|policies|gate|guardrails?|approvals?|(?:hard|your|never-[\w-]+)\s+(?:rules?|constraints?|restrictions?|limits?))\s+"
    r"(?:(?:is|are|has\s+been|have\s+been|was|were)\s+)?(?:now\s+)?(?:disabled|suspended|lifted|removed|waived|updated|"
    r"relaxed|bypassed|void|off|changed|a\s+typo|a\s+mistake)\b|"
    r"\b(?:disable|suspend|lift|bypass|ignore|skip|waive|override|turn\s+off|drop)\s+(?:the\s+)?(?:policy|gate|"
    r"guardrails?|hard\s+constraints?|constraints|approvals?|approval\s+(?:step|gate|check))\b|"
    r"\b(?:operator|admin|system|root)\s+override\b|\bignore\s+(?:all\s+)?(?:your\s+)?(?:previous|prior|earlier)\s+"
    r"(?:instructions|rules|prompt)\b|\b(?:paste|print|show|reveal)\s+(?:me\s+)?your\s+(?:system\s+)?prompt\b|"
    r"\b(?:new|updated|changed)\s+goal\s*:|\bgoal\s+(?:changed|updated)\s*:|\bthe\s+goal\s+is\s+now\b|"
    r"\b(?:i|we)\s+(?:hereby\s+)?authori[sz]e\s+you\b|\byou\s+have\s+(?:root|admin|sudo|full\s+access)\b|"
    r"\b(?:un|re)bind\s+(?:the\s+)?(?:cards|gpus|devices)\b",
    re.I,
)


# "use gpu 3, don't", "disable cuda graph - nope", "cancel: don't use gpu 3": the message takes itself back
TAKEN_BACK = re.compile(
    r"(?:[,.;:!—–]|\s-)\s*(?:(?:actually|wait|hmm+|oh)[\s,]+no|don'?t|no|nope|nah|not|never\s*mind|nvm|cancel\s+that|mat\s+karo|nahi(?:\s+nahi)?(?:\s+rehne\s+do)?|"
    r"anzi\s+no|eh\s+jangan|jangan|хотя\s+нет|нет|enfin\s+non|non|never|j/?k|(?:just\s+)?kidding|no[\s,]+wait|"
    r"no[\s,]+hold\s+on)[\s.!]*$|^(?:cancel|ignore|disregard)\s*:"
    # a mark of sarcasm last ("stop /s"): the words mean their opposite
    r"|\s/s[\s.!]*$"
    # "stop. oops, wrong chat", "stop, sorry, continue": sent by mistake, or put right to another answer
    r"|(?:[,.;:!—–]|\s-)\s*(?:oops|whoops|my\s+bad|wrong\s+(?:chat|window|channel|thread|tab|terminal|pane|person)|"
    r"not\s+(?:meant\s+)?for\s+you|ignore\s+(?:that|this|me)|disregard\b|sorry[\s,]+(?:continue|carry\s+on|go\s+on|"
    r"keep\s+going|go\s+ahead|proceed|as\s+you\s+were)\b)"
    # "stop, no don't stop": the message's first word, refused last in it (never "use X; don't use Y")
    r"|^(?P<said>[a-z]{3,})\b.*[,.;:!—–]\s*(?:no[\s,]+)?(?:don'?t|do\s+not|not)\s+(?P=said)(?:\s+(?:it|that|this))?[\s.!]*$",
    re.I,
)


# "someone in #infra said to disable cuda graph, don't": someone else's order, refused by the writer; no order
# of the writer's own taken back (read as "don't disable cuda graph" by agent.hearing.normalise, with this)
THEIR_ORDER_REFUSED = re.compile(
    r"^(?P<who>[^,.;]*?\b(?:said|says|suggested|told\s+me))\s+to\s+(?P<what>[^,.;]+),\s*(?:don'?t|no)[.!]*$", re.I
)


def taken_back(text: str) -> bool:
    """Whether the message ends by taking back what it said ("use gpu 3, don't", "stop /s")."""
    return TAKEN_BACK.search(text) is not None and THEIR_ORDER_REFUSED.match(text) is None


# "don't disable cuda graphs, but don't not disable them either": a verb refused, and its refusal refused;
# nothing of the message is taken (a double negative alone is read as the plain order)
_NOT = r"(?:don'?t|do\s+not|never)"
DOUBLE_NOT = re.compile(
    rf"\b{_NOT}\s+(?P<verb>[a-z]+)\b.*\b{_NOT}\s+not\s+(?P=verb)\b|\b{_NOT}\s+not\s+(?P<v2>[a-z]+)\b.*\b{_NOT}\s+(?P=v2)\b",
    re.I | re.S,
)


def _an_exception_after(clause: str, at: int, said: list[str], readable: Callable[[str], bool]) -> bool:
    """ "never use torch compile. unless it helps, then always.": an "unless" said after an instruction
    hangs the instruction before it."""
    return at > 0 and re.match(r"(?:unless|except\s+if)\b", clause, re.I) is not None and readable(said[at - 1])


def beyond_the_run(text: str) -> bool:
    """Words the run may not act on from a reply: a host-level order, a change of its hard rules, goal or
    approval policy, or a rule for a while it cannot hold."""
    return bool(HOST_LEVEL.search(text) or POLICY_CHANGE.search(text) or FOR_A_WHILE.search(text))


# "do not use and GPU 5": a must-not whose object was split off; what follows it is never taken as a use
DANGLING_NOT = re.compile(
    r"^(?:do\s+not|don'?t|dont|never|not)\s+(?:use|touch|run|set|pass|enable|disable|start|launch|put)$", re.I
)


def dangles_before(clause: str, text: str) -> bool:
    """Whether `clause` is a must-not with no object and words follow it ("do not use and GPU 5"); one said
    last ("don't set X, ... don't use") has nothing after it to turn."""
    said = clause.strip(" .,;")
    return DANGLING_NOT.match(said) is not None and not text.rstrip(" .!;,").endswith(said)
