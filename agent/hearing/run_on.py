"""An instruction run on into more words with no comma between them ("chunked prefill 4096 ttft is
spiky", "never gpu 7 its throwing xid 79"): where it ends, so that each part is read on its own.

The rest is read as a clause of its own or reported not understood, so the reading is asked back
before anything acts on it. A bare subject is never cut off its sentence ("GPU 3 looks hot")."""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.hearing.flag_vocabulary import flag_named, flag_word_pairs, flag_words, is_value

# Words that bind what follows to what came before ("use GPUs 0-3 only if ...", "relaunch with ...",
# "tp4 on 4-7"): never where one instruction ends and the next words begin
_BOUND_TO_BEFORE = re.compile(
    r"^(?:only|except|but|unless|if|not|no|nor|instead|and|or|with|without|on|at|to|for|plus|x|until|till|before|accordingly|"
    # "port 30001 why?", "on gpu 3 what is going on?": a question about the words before, never a remark
    r"what|what's|whats|why|how|who|where|when|"
    r"after|when|once|as|of|in|from|than|then|so|via|using|across|over|each|per|too|either|also|both|through|thru|"
    # "GPU 3 looks hot", "tp4 dp2 was slower": what comes before is the subject of a remark, not an instruction
    r"is|are|was|be|been|looks?|seems?|has|had|have|did|does|do|will|would|should|shall|could|can|might|may|must|"
    r"\w+ed|keeps|runs|needs|belongs|works|goes|gets|takes|holds|stays|"
    # "drop the mem fraction a bit": a change of a value by an amount never said, not the flag dropped
    r"slightly|somewhat|more|less|further|lower|higher)$",
    re.I,
)
_FACT_THEN_PRONOUN = re.compile(
    r"^(?P<fact>(?:(?:gpus?\s+)?\d{1,2}(?:\s*-\s*\d{1,2})?|(?:port\s+)?\d{4,5})\s+(?:is|are|'s|has|have|keeps|looks|belongs?|"
    r"hosed|dead|broken|borked|cooked|fried|toast|flaky|sick|busy)\b.*?)\s+"
    r"(?P<then>(?:so\s+)?(?:stay\s+off|keep\s+off|avoid|skip|leave|don'?t\s+(?:use|touch)|never\s+(?:use|touch))\s+(?:it|them)\b.*)$",
    re.I,
)
_NEGATES = re.compile(
    r"\b(?:not|never|no|nor|prohibited|forbidden|banned|disallowed|barred|excluded|off[-\s]limits|"
    r"dont|cant|wont|isnt|arent|shouldnt|mustnt|doesnt|didnt)\b|\wn't\b",
    re.I,
)
# a setting the verb is said with: "with tp 4", or one or two words before it ("restart pakai tp 4")
# "port 30000 it's busy", "mem fraction 0.9 it OOMs": a complaint about a setting said bare (no verb)
_COMPLAINT = re.compile(
    r"\b(?:busy|taken|occupied|in\s+use|already|oom\w*|crash\w*|too|broken|broke|fails?|failed|hangs?|hung|slow|bad|wrong|dead|"
    r"flaky|occupat\w*|ocupad\w*|dipakai|belegt|занят\w*|clash\w*|collid\w*|conflict\w*|reserved|blocked|firewalled|claimed)\b",
    re.I,
)
# the subject of a sentence of its own after an order: "kill the server we don't need it", "theres no IB here"
_OWN_SUBJECTS = frozenset({"we", "i", "they", "there's", "theres", "there"})
_BOUND_SETTING = re.compile(r"\b(?:with|using|w/)\s+(?:tp|dp|--|port|gpus?\b|\d)|^(?:\S+\s+){0,2}(?:tp|dp)\s*\d", re.I)
_NEXT_TO = re.compile(r"^next\s+to\b", re.I)  # "park it next to the finetune": where, never "next launch"
_AN_AMOUNT = re.compile(r"^an?\s+(?:bit|little|touch|tad|notch|smidge)\b", re.I)
# Only an instruction said as one (a verb first, or a pasted NAME=value or --flag) ends where more words
# begin: "gpu 2 is free now", "P2P on this box is dodgy" are remarks whose first words would read alone.
_SAID_AS_AN_INSTRUCTION = re.compile(
    r"^(?:please\s+|pls\s+)?(?:(?:just|don'?t|dont|do\s+not|never|no|not|avoid|use|only|try|set|export|unset|drop|remove|add|"
    r"pass|disable|enable|turn|switch|stop|kill|shut|take|bring|restart|relaunch|re-launch|launch|serve|bind|move|pin|"
    r"run|cap|limit|lower|raise|bump|increase|decrease|reduce|keep|stay|leave|skip|exclude|measure|rerun|re-run|"
    r"rebench|bench|benchmark|swap|point|go|put|get|make|steer|nuke|park|bounce|hold)\b|[A-Z][A-Z0-9_]{2,}=|--[a-z])",
    re.I,
)


def said_as_an_instruction(text: str) -> bool:
    """Whether `text` starts as an order does: a verb, a "don't", a pasted NAME=value or --flag."""
    return bool(_SAID_AS_AN_INSTRUCTION.match(text))


def _names_a_setting(words: list[str]) -> bool:
    """ "context length 8192 nobody sends more": a flag's name then a value it takes, said as a setting."""
    for size in range(1, min(len(words), 5)):
        flag = flag_named(" ".join(words[:size]))
        if flag is not None and size < len(words) and is_value(flag, words[size]):
            return True
    return False


def split(clause: str, readable: Callable[[str], bool]) -> tuple[str, str] | None:
    """ "chunked prefill 4096 ttft is spiky", "never gpu 7 its throwing xid 79": an instruction then more
    words with no comma between them. The longest leading part the grammar reads whole, and the rest
    (read on its own, or reported not understood, so the reading is asked back). None when the whole
    clause reads, or no part does. The rest never starts with a word that binds it to the part before
    ("only", "not", "with", "on", ...) nor with a number or a sign (a list or a value cut in two)."""
    words = clause.split()
    if len(words) < 2 or readable(clause):
        return None
    if (fact := _FACT_THEN_PRONOUN.match(clause)) is not None:
        return fact.group("fact"), fact.group("then")  # "gpu six is dead stay off it": "it" is what the fact names
    # A clause not said as an instruction splits only into two instructions ("mem frac 0.8 disable cuda graph")
    both = not _SAID_AS_AN_INSTRUCTION.match(clause) and not _names_a_setting(words)
    for cut in range(len(words) - 1, 0, -1):
        first, rest = words[cut - 1], words[cut]
        by_an_amount = _AN_AMOUNT.match(" ".join(words[cut : cut + 2]))
        placed = _NEXT_TO.match(" ".join(words[cut : cut + 2]))
        if (
            not rest[0].isalpha()
            or _BOUND_TO_BEFORE.match(rest.rstrip("?"))
            or by_an_amount
            or placed
            or first.endswith((",", "-"))
        ):
            continue
        # "restart it with the memory setting at 0.85", "restart it?": "it" is what the verb acts on
        acted_on = rest.lower().rstrip("?") in ("it", "them") and (cut + 1 < len(words) or rest.endswith("?"))
        if acted_on and _SAID_AS_AN_INSTRUCTION.match(first):
            continue
        head, tail = " ".join(words[:cut]), " ".join(words[cut:])
        near = " ".join(words[cut : cut + 3])
        # "kill the server we don't need it": a sentence of its own, its subject said, after a verb's order
        # (or "there's no infiniband on this box": a fact of its own, its subject "there")
        own_sentence = rest.lower() in _OWN_SUBJECTS and _SAID_AS_AN_INSTRUCTION.match(clause)
        if (_NEGATES.search(near) and not own_sentence) or (
            _COMPLAINT.search(near) and not _SAID_AS_AN_INSTRUCTION.match(clause)
        ):
            continue  # "tp 8 it doesn't fit": a "not" right after the setting may turn it; never a remark
        if not readable(head) or _BOUND_SETTING.search(tail):
            continue  # "restart el servidor with tp 4": the setting is the restart's, never a remark's
        if readable(tail):
            return head, tail  # two instructions run together
        if not both and (first.lower(), rest.lower()) not in flag_word_pairs():
            return head, tail  # not "use nsa decode backend trtllm": a flag's name goes on, not a new sentence
    return _after_a_remark(words, readable)


# A remark before an instruction must be a plain statement: no question, maybe, negation or condition,
# no number (a GPU or a port named there belongs to the instruction), no reported speech
_NOT_A_PLAIN_REMARK = re.compile(
    r"\b(?:why|what|how|which|who|whether|if|would|should|could|can|did|does|do|didn'?t|don'?t|dont|not|no|never|"
    r"maybe|perhaps|instead|unless|but|except|only|said|asked|think|thought|wanted|want|"
    # a story, not a remark: "last week someone set NCCL_P2P_DISABLE=1 ..." is what was done, not what to do
    r"someone|somebody|anyone|nobody|we|i|you|they|he|she|last|yesterday|earlier|previously|before|ago|when|since|"
    r"once|used\s+to|gpus?|ports?|tp|dp|model|server|env|"
    # a word that turns what follows around: "refrain from passing --x" is the opposite of it
    r"refrain|stop|quit|cease|avoid|prevent|forbid|ban|without|except|instead)\b|\d|\?|n't\b|--|=",
    re.I,
)


# a last word that takes the instruction after it as its object ("passing --x", "from", "the"): no remark ends so
_TAKES_WHAT_FOLLOWS = re.compile(
    r"\b(?:from|passing|using|setting|adding|running|with|to|of|for|than|about|like|the|a|an|is|are|be|and|or|but|"
    r"not|no|never)$",
    re.I,
)


_SETTING_VERB = re.compile(r"\b(?:put|set|add|use|export|pass|include|apply|needs?|wants?|requires?)\b", re.I)


def _after_a_remark(words: list[str], readable: Callable[[str], bool]) -> tuple[str, str] | None:
    """ "netops still on it just rebench current": a plain remark, then an instruction said as one."""
    for cut in range(1, len(words)):
        head, tail = " ".join(words[:cut]), " ".join(words[cut:])
        if not head.isascii() or (re.match(r"--|[A-Z][A-Z0-9_]{2,}=", tail) and not _SETTING_VERB.search(head)):
            # "jamais de --x", "nie NCCL_X=1": words before a bare flag or setting may be its verb in
            # a language the grammar does not read; cut off as a remark only when they say to set it
            # ("please put environment NCCL_DEBUG=INFO")
            continue
        if _NOT_A_PLAIN_REMARK.search(head) or set(head.lower().split()) & flag_words():
            return None  # "context length put to 8192": the setting's name is no remark
        if _TAKES_WHAT_FOLLOWS.search(head):
            continue
        if _SAID_AS_AN_INSTRUCTION.match(tail) and readable(tail):
            return head, tail
    return None
