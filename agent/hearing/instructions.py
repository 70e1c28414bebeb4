"""The operator's words as instructions every decider obeys (applied to a launch by `agent.hearing.applied`).

Grammar (case does not matter; clauses are split on ";", ", <word>", " and ", " then ", ". "):

    ports     "use port 30001" | "port 30001"          -> every launch serves on 30001
              "avoid port 30000" | "don't use port 30000" | "not port 30000"
    GPUs      "use GPUs 0-3" | "only GPUs 0,1" | "GPU 5"  -> launches use exactly these GPUs
              "don't use GPU 2" | "avoid GPUs 6-7"      -> launches leave them out
    env       "set NCCL_P2P_DISABLE=1" | "NCCL_DEBUG=INFO" -> in every launch's environment
              "unset NCCL_P2P_DISABLE" | "don't set NCCL_P2P_DISABLE"
    flags     "use --attention-backend triton" | "--disable-cuda-graph"
              "don't use --enable-dp-attention" | "without --disable-cuda-graph"
              "mem fraction 0.85"                         (= --mem-fraction-static 0.85)
    layout    "try TP4 x DP2" | "tp 8" | "tp=4 dp=2"    -> launches use that layout; tried next
    server    "don't relaunch" (no new launch until "relaunch") | "stop the server"
    measure   "measure again"                           -> the benchmark again on the running server

Everyday phrasings ("disable cuda graphs", "use 4 GPUs", "run the benchmark once more") are rewritten into
these clauses by `agent.hearing.phrasing`; the report shows the reading ("... (read as: tp 4)").

A clause that matches none of these is not understood: it is answered in the next report ("I did not
understand: ...") and never recorded as heard. The goal's "never X" clauses go through the same grammar.

Denials: whatever the operator denies, the policy denies, or fails the same way twice with the same
arguments (a launch whose failure is deterministic, once) becomes an `Exclusion`, never proposed again.
`heed` applies all of this to any decision: it rewrites a launch and rejects excluded actions, saying why.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from agent.hearing import (
    arithmetic,
    chinese,
    corrections,
    diff_lines,
    foreign,
    hardware_names,
    iac,
    japanese,
    not_taken,
    pasted,
    phrasing,
    said_twice,
    shorthand,
    subjects,
    vllm,
)
from agent.hearing.clauses import RELAYED, launch_line_among_words, written_plain
from agent.hearing.clauses import clauses as split_clauses
from agent.hearing.flag_vocabulary import is_value, known_flag, needs_a_value, spelt_out, takes_no_value
from agent.hearing.normalise import gpu_ids
from agent.hearing.readback import readings
from agent.hearing.run_on import split as run_on_split
from agent.hearing.said_twice import SaidTwice
from agent.state import AgentState, OperatorRules

_GPU_VARIABLE = re.compile(r"(?:GPU|CUDA|DEVICE)S?\d*")  # "unset GPU0" says a GPU, not a variable
MAX_GPU_ID = 63  # no host has more: a larger number said as a GPU is a port, a count or a typo
# the rules that change how a server is launched (a change to one makes a stopped run relaunch)
LAUNCH_RULES = frozenset(
    {
        "use_port",
        "avoid_ports",
        "use_gpus",
        "avoid_gpus",
        "set_env",
        "unset_env",
        "use_flags",
        "avoid_flags",
        "layout",
        "use_model",
    }
)
# Words that follow a flag in a sentence without being its value ("--disable-cuda-graph anymore").
NOT_VALUES = frozenset({"anymore", "again", "too", "please", "instead", "now", "then", "also", "either", "as", "here"})


# ------------------------------------------------------------------------------------- parsing

# "and" joins two clauses, not GPU ids ("GPU 0 and 1", joined first), a layout ("tp 2 and dp 4") or variables
# to drop ("remove NCCL_ALGO and NCCL_PROTO"); a comma inside a value ("INIT,P2P") splits nothing.
# a number that may name a GPU or a port, never an error's ("xid 79", "code 137") nor a part of a word or version
_A_NUMBER_NAMED = re.compile(r"(?<![\w.])(?<!xid\s)(?<!code\s)(?<!error\s)(?<!exit\s)\d+(?![\w.])", re.I)
_NEG = re.compile(
    r"^(?:please\s+)?(?:don'?t|do\s+not|never|avoid|no|not|without|stop\s+using)\b\s*(?:use\s+|touch\s+)?", re.I
)
_POS = re.compile(
    r"^(?:please\s+)?(?:(?:pin|run|start|launch|try)\s+it\s+with|try\s+with|use|try|only|switch\s+to|serve\s+on|(?:re)?launch\s+with|with|set|export|"
    r"cap(?=\s+--[a-z]))\b\s*",  # "cap --max-running-requests 256": the limit, set
    re.I,
)
_PORT = re.compile(r"^(?:on\s+)?port\s+(\d{2,5})$", re.I)
_IDS = r"\d+(?:\s*(?:-|to|\.\.)\s*\d+)?(?:\s*(?:,|and)\s*\d+(?:\s*(?:-|to|\.\.)\s*\d+)?)*"
_GPUS = re.compile(rf"^(?:only\s+)?(?:the\s+)?gpus?\s+({_IDS})(?:\s+only)?$", re.I)
_ENV_SET = re.compile(r"^([A-Z][A-Z0-9_]*)=([^\s?]+)$")  # "X=1??" asks, never sets
_ENV_UNSET = re.compile(r"^(?:unset\s+)?([A-Z][A-Z0-9_]{2,})$")
_FLAG = re.compile(r"^(--[a-z0-9][a-z0-9-]*)(?:[ =](?!--)(\S+))?$", re.I)  # another flag is no value
_MEM = re.compile(r"^(?:a\s+)?mem(?:ory)?[-_ ]fraction(?:[-_ ]static)?\s*(?:of\s+|=\s*)?(0?\.\d+)$", re.I)
_LAYOUT = re.compile(
    r"^(?:a\s+)?(?:layout\s+)?tp\s*=?\s*(\d+)(?:\s*(?:x|\*|×|,|with|and|\+)?\s*dp\s*=?\s*(\d+))?(?:\s+layout)?$", re.I
)
_NO_RELAUNCH = re.compile(
    r"^(?:don'?t|do\s+not|never|no)\s+(?:re-?launch|restart)(?:\s+(?:the|it|a|my)?\s*(?:server)?)?"
    r"(?:\s+anything)?(?:\s+(?:until|till|untill|til)\s+(?:i|we)\s+(?:say(?:\s+so)?|tell\s+you|give\s+the\s+word))?$",
    re.I,
)
_RELAUNCH = re.compile(r"^(?:you\s+may\s+)?(?:re-?launch|restart)(?:\s+(?:the|it)?\s*(?:server)?)?(?:\s+again)?$", re.I)
_STOP = re.compile(
    r"^(?:stop|kill|shut\s*down|terminate)\s+(?:the|your|my)?\s*(?:sglang\s+|inference\s+|serving\s+)?server$", re.I
)
_UNSET_WORDS = re.compile(r"^(?:unset|remove|drop|rm)\s+", re.I)
_MEASURE = re.compile(r"^measure\s+again$", re.I)
# "serve /models/X instead", "switch to the model /models/X": a checkpoint path, absolute, or a hub id said so
_MODEL = re.compile(
    r"^(?:(?:the\s+)?(?:model|checkpoint|weights)(?:\s+path)?(?:'s)?\s+(?:should\s+be|has\s+to\s+be|must\s+be|needs\s+to\s+be|is|are|"
    r"(?:(?:is|are|live|lives)\s+)?(?:already\s+)?(?:local(?:ly)?\s+|on\s+disk\s+)?at|=|:)\s+|"
    r"(?:switch|swap|change|move|point|re-?point|serve|serving|load|use|try|run|go|re-?launch|restart)"
    r"(?:\s+(?:it|the\s+server|sglang|over))?"
    r"(?:\s+(?:the\s+)?(?:[\w.-]+\s+)?(?:model|checkpoint|ckpt|weights|copy|snapshot)(?:\s+path)?)?(?:\s+(?:to|at|with|on|for|in|from))?\s+)?"
    r"(?:the\s+)?(?:(?:local\s+)?(?:model|checkpoint|ckpt|weights|copy|snapshot)\s+|hugging\s+face\s+model\s+)?(?:(?:at|in|from)\s+)?"
    r"(?P<path>/(?!(?:usr|bin|sbin|etc|proc|dev|sys|boot|lib\w*)/)[\w.@+-]+(?:/[\w.@+-]+)+|(?<=face\smodel\s)[\w.-]+/[\w.-]+)"
    # "... not the hub one", "... instead of pulling from hub": where it is not fetched from, the same path
    r"(?:\s+instead(?:\s+of\s+(?:pulling|downloading|fetching)(?:\s+(?:it|from))*\s+(?:the\s+)?(?:hub|hf|hugging\s*face)(?:\s+one)?)?"
    r"|\s+not\s+the\s+(?:hub|hf)\s+(?:one|copy|version)|\s+not\s+from\s+(?:the\s+)?(?:hub|hf|hugging\s*face))?$",
    re.I,
)

# "tp4, no dp", "tp 2; dp 2": the DP of the layout said in the clause before
_NO_DP = re.compile(
    r"^(?:with\s+)?(?:no\s+(?:dp|data[-\s]parallel(?:ism)?)(?:\s+at\s+all)?|(?:and\s+)?dp\s*(?P<dp>\d+)|"
    r"(?:just\s+)?(?:a\s+)?(?:single|one|1)\s+(?:replica|copy|instance))$",  # "tp 4, single replica": DP 1
    re.I,
)


# A suggestion, not an instruction ("maybe try tp 4", "fp8 kv i guess"): never taken by `hear`; asked back
# by `agent.hearing.heed.ask_back`, which reads the words without it.
_WHY_NOT = r"(?:why|y)\s+not"  # "y not use gpu 3" is "why not use gpu 3": a suggestion, never "not use gpu 3"
HEDGE_FIRST = re.compile(
    r"^(?:(?:hm+|ok(?:ay)?|so|well|also|and)[\s,]+)?(?:(?:maybe|perhaps|possibly|prob(?:ably)?|i\s+(?:think|guess|suppose|reckon)(?:\s+we\s+(?:should|could|can))?|"
    # "might be worth trying tp 2", "worth setting NCCL_DEBUG=INFO": a British suggestion
    r"(?:(?:it\s+)?might\s+be\s+|(?:it'?s\s+|it\s+is\s+)?(?:probably\s+)?)worth(?:\s+(?:trying|setting|using|adding|a\s+go\s+with))?|"
    # "we can try with tp 4", "is better tp 2 and dp 4": a Spanish speaker's suggestion
    r"we\s+can\s+try(?:\s+with)?|(?:it\s+)?is\s+better(?:\s+with)?|"
    r"(?:we\s+)?(?:could|might|should)\s+(?!you\b)(?:we\s+)?(?:want\s+to\s+)?|how\s+about|what\s+if\s+(?:you|we)|can\s+we|"
    r"(?:would|is)\s+it\s+(?:be\s+)?(?:ok(?:ay)?|possible|fine|alright)\s+(?:to|if\s+(?:we|you))|"
    rf"(?:it'?s\s+|it\s+is\s+)?(?:probably\s+)?worth\s+(?:a\s+)?try(?:ing)?|not\s+sure,?\s+but|{_WHY_NOT})\b[\s,:]*)+",
    re.I,
)
WHY_NOT = re.compile(rf"^{_WHY_NOT}\b", re.I)
# at a clause's start, or after a topic named before it ("radix cache: turn it off")
IT_OFF = re.compile(r"(?:^|[:,—–]\s*)(?:just\s+)?(?:turn|switch|shut)\s+(?:it|that|this)\s+off\b", re.I)
A_FEATURE = re.compile(
    r"--[a-z][\w-]+|\b(?:cuda[\s_-]?graphs?|graph\s+capture|capture|radix|torch[\s_-]?compile|prefix\s+cach\w*|"
    r"all[-\s]?reduce|overlap|p2p|compil\w+)\b",
    re.I,
)
HEDGE_LAST = re.compile(
    r"[\s,]+(?:i\s+(?:guess|think|suppose)|maybe|perhaps|prob(?:ably)?|or\s+so|"
    # "context length 32768 should do", "tp 4 dp 2 might be rather nicer, give that a go": a British maybe
    r"(?:should|would)\s+(?:do|be\s+fine)|might\s+be\s+(?:rather\s+|a\s+bit\s+|slightly\s+)?(?:nicer|better)\b[^.;?!]*?"
    r"(?:[,.;]\s*(?:give\s+(?:that|it)\s+a\s+go|worth\s+a\s+go|try\s+(?:that|it)))?)[\s.?!]*$",
    re.I,
)


def _flag_words(flag: str, value: str | None) -> list[str]:
    return [flag, phrasing.value_of(flag, value)] if value is not None else [flag]  # pasted "32k": 32768 tokens


def _heard_one(rules: OperatorRules, clause: str) -> bool:
    """Apply one clause to `rules`; False when it is not in the grammar."""
    if _NO_RELAUNCH.match(clause):
        rules.no_relaunch = True
        return True
    if _RELAUNCH.match(clause):
        rules.no_relaunch, rules.relaunch_wanted = False, True
        return True
    if _STOP.match(clause):
        rules.stop_server, rules.no_relaunch = True, True
        return True
    if _MEASURE.match(clause):
        rules.measure_again = True
        return True
    negated = bool(_NEG.match(clause))
    body = _NEG.sub("", clause, count=1) if negated else _POS.sub("", clause, count=1)
    body = body.strip()
    unset = bool(_UNSET_WORDS.match(body))
    body = _UNSET_WORDS.sub("", body)
    if unset and (_PORT.match(body) or _GPUS.match(body)):
        negated = True  # "drop GPU 3", "remove port 30000": leave them out, never "use only" them
    if (m := _PORT.match(body)) is not None:
        port = int(m.group(1))
        if negated:
            rules.avoid_ports = sorted({*rules.avoid_ports, port})
            rules.use_port = None if rules.use_port == port else rules.use_port
        else:
            rules.use_port = port
            rules.avoid_ports = [p for p in rules.avoid_ports if p != port]
        return True
    if (m := _GPUS.match(body)) is not None:
        ids = gpu_ids(m.group(1))
        if not ids or max(ids) > MAX_GPU_ID:
            return False  # "serve on 30001, 30000": ports, never GPUs
        if negated:
            rules.avoid_gpus = sorted({*rules.avoid_gpus, *ids})
            if rules.use_gpus is not None:
                rules.use_gpus = [g for g in rules.use_gpus if g not in ids]
        else:
            rules.use_gpus = ids
            rules.avoid_gpus = [g for g in rules.avoid_gpus if g not in ids]
        return True
    if (m := _ENV_SET.match(body)) is not None and m.group(1) == "CUDA_VISIBLE_DEVICES":  # read as the GPU list, or not
        if negated or unset or not re.fullmatch(r"\d+(?:,\d+)*", m.group(2)):
            return False
        return _heard_one(rules, f"use GPUs {m.group(2)}")
    if (m := _ENV_SET.match(body)) is not None and iac.knob_of_variable(body) is not None:
        return False  # "KV_DTYPE=fp8_e5m2": a knob's key, no variable the server reads (asked back as its flag)
    if (m := _ENV_SET.match(body)) is not None and not negated and not unset:
        rules.set_env = {**rules.set_env, m.group(1): m.group(2)}
        rules.unset_env = [n for n in rules.unset_env if n != m.group(1)]
        return True
    env_name = _ENV_SET.match(body)
    name = env_name.group(1) if env_name is not None else None
    # a bare "not X" names a variable only as variables are written ("not NCCL_DEBUG"; never "not LGTM")
    if name is None and (unset or "_" in body) and (u := _ENV_UNSET.match(body.removeprefix("set ").strip())):
        name = u.group(1)
    if name is not None and ((name == "CUDA_VISIBLE_DEVICES" and env_name) or _GPU_VARIABLE.fullmatch(name)):
        return False  # GPUs are said as GPUs ("unset CUDA_VISIBLE_DEVICES" is the shell's: the GPU list sets it)
    if name is not None and (negated or unset):
        rules.unset_env = sorted({*rules.unset_env, name})
        rules.set_env = {k: v for k, v in rules.set_env.items() if k != name}
        return True
    if (m := _MEM.match(body)) is not None and not negated:
        return _heard_one(rules, f"use --mem-fraction-static {m.group(1)}")
    if (m := _FLAG.match(body)) is not None and (m.group(2) or "").lower() not in NOT_VALUES:
        flag, value = m.group(1).lower(), m.group(2)
        if negated and value is not None and re.fullmatch(r"\d+(?:\.\d+)?", value):
            return False  # "don't use --mem-fraction-static 0.95": that number refused, not the flag: unread
        if not (negated or unset):  # a flag left out is left out whatever is said with it ("no --x fp8/fp4")
            if value is None and needs_a_value(flag):
                return False  # "use --attention-backend" with its value missing (or a typo cut off): nothing to set
            if value is not None and (takes_no_value(flag) or (needs_a_value(flag) and not is_value(flag, value))):
                return False  # "--disable-cuda-graph while ...", "--kv-cache-dtype altogether": no value of the flag
            if flag == "--port" and value is not None and value.isdigit():
                return _heard_one(rules, f"use port {value}")  # the port to serve on, said as the report says it
        if shorthand.near_miss(flag, value):
            return False  # a typo of a flag or of its value: suggested back, never launched
        if not (negated or unset) and not known_flag(flag):
            return False  # "--attn-backend triton": in no SGLang release recorded; a launch would fail on it
        if not (negated or unset) and flag in ("--model-path", "--model") and value is not None:
            return _heard_one(rules, f"use the model {value}")  # the model to serve, as the report says it
        if negated or unset:
            rules.avoid_flags = sorted({*rules.avoid_flags, flag})
            rules.use_flags = [f for f in rules.use_flags if f[0] != flag]
        else:
            rules.use_flags = [f for f in rules.use_flags if f[0] != flag] + [_flag_words(flag, value)]
            rules.avoid_flags = [f for f in rules.avoid_flags if f != flag]
        return True
    if (m := _MODEL.match(body)) is not None:
        if negated or unset:
            return False  # "don't use /models/X": which model then? Not a guess to make
        rules.use_model = m.group("path")
        return True
    if (m := _LAYOUT.match(body)) is not None and not negated and not unset:  # never "drop tp 4" as tp 4
        rules.layout = {"tp": int(m.group(1)), "dp": int(m.group(2) or 1)}
        return True
    return False


def _switch_before_a_choice(verb: str, clause: str, rules: OperatorRules) -> bool:
    """ "disable cuda graph + triton attention": "disable" switches a feature, and "triton attention"
    is a choice among backends that reads on its own; the switch is not carried to it."""
    if not re.match(r"(?:disable|enable|turn\s+(?:off|on))$", verb, re.I):
        return False
    alone = phrasing.canonical(clause, _reads(rules)) or []
    return any(re.fullmatch(r"use --[a-z0-9-]+ \S+", said) for said in alone)


def hear(rules: OperatorRules, text: str) -> tuple[OperatorRules, list[str], list[str]]:
    """The rules after the operator said `text`, the clauses understood, and the rest."""
    # "ｔｐ４", "port = 30001 ∧ port = 30002", "wrt torch compile: never": before any check reads the words
    text = written_plain(japanese.half_width(text))
    updated = rules.model_copy(deep=True)
    before = updated.model_dump()
    heard: list[str] = []
    missed: list[str] = []
    layout_in_message: dict[str, int] | None = None
    subject: str | None = None
    verb: str | None = None
    # "fp8 kv cache maybe", "y not use gpu 3": a suggestion; asked back by heed, never taken here
    if (
        (HEDGE_LAST.search(text) or WHY_NOT.match(text.strip()))
        or (  # "..., if that helps", "use gpu 3, don't"
            conditional(text)
            or not_taken.taken_back(text)
            or not_taken.DOUBLE_NOT.search(text)  # "don't X, but don't not X either": which way?
            or not_taken.LIFTED.search(text)
            or not_taken.beyond_the_run(text)  # "reboot it", "the gate is disabled", "for this launch only"
            or hardware_names.unplaced(text)  # "run tp 2 on the NVLink pair": which GPUs?
            or arithmetic.unworked(text)  # "tp 3, halve it": never tp 3
            or launch_line_among_words(text)
            or pasted.part_of_a_paste(text)  # "`--x a --y`. take the x bit, ignore the rest": which part?
        )
        or said_twice.in_one_run(text)  # "--tp 4 --tp 8": which?
        or said_twice.kept_yet_changed(text)  # "run it on 30003. leave the port as it is": which?
        or diff_lines.undecided(text)  # "- --enable-torch-compile": a bullet, or a line taken out?
        or shorthand.bare_gpus(text)
    ):  # "gpu 3" alone: use it? keep off it? asked back (`counted`)
        updated.not_understood = [*updated.not_understood, text]
        return updated, [], [text]
    if corrections.corrects_itself(text):
        return corrections.corrected(
            updated, text, hear, LAUNCH_RULES | {"no_relaunch", "stop_server", "measure_again"}
        )
    queue = split_clauses(text)
    hangs = asked = False
    relayed: str | None = None  # someone else's words, the last said
    twice = SaidTwice(updated)
    while queue:
        twice.read(updated)  # "use gpu 3, also gpu 4": one setting given two values in one message
        said = queue.pop(0)
        if said.startswith(RELAYED):  # someone else's words: asked back (`counted`), never taken as said
            missed.append(relayed := said.removeprefix(RELAYED))
            continue
        said = corrections.in_relayed_place(relayed, said, lambda words: _readable(updated, words))
        # "if the other job is done, take GPUs 4-7": what hangs on an unread condition is not taken;
        # "that's the right flag right? --disable-cuda-graph": a setting pasted after a question is asked about
        if hangs or (asked and re.match(r"--|[A-Z][A-Z0-9_]{2,}=", said)):
            missed.append(said)
            hangs = asked = False
            continue
        asked = said.rstrip().endswith("?")
        # a word no table read, a flag only vLLM has (asked back in SGLang's terms by `counted`), or "instead
        # of tp 4", "anything but tp 4" (what is NOT wanted): the clause is unread, whole
        unread = chinese.has_unread_script(said) or foreign.negation_left(said) or vllm.names_one(said)
        if unread or not_taken.NOT_THIS.match(said):
            missed.append(said)
            verb = None
            continue
        if queue and subjects.topic_only(said, queue[0]):  # "gpu 6 and 7, don't touch them": "them", named
            subject = subjects.subject_of(said)
            continue
        if subjects.unnamed_stop(said, text):  # "do 2, then kill it": which "it"? asked back (heed)
            missed.append(said)
            continue
        if (about := subjects.flag_fact(said)) is not None:  # "--x broke warmup. drop that flag": a fact, then "it"
            missed.append(said)
            subject, verb = about, None
            continue
        head, colon, tail = said.partition(": ")
        if colon and tail.strip() and _readable(updated, head) and not _readable(updated, said):
            said = head  # "move off port 30000: the sidecar binds to it": the order, then its reason, each a clause
            queue.insert(0, tail)
        elif (
            run_on := run_on_split(said, lambda part: _readable(updated, part))
        ) is not None:  # "NCCL_DEBUG=INFO want to see the channels"
            said, rest = run_on
            queue.insert(0, rest)
        clause = subjects.with_subject(spelt_out(said), subject)
        # "gpu 3 is fine. it's 5 that's bad, keep away from that one": a number named but not placed leaves
        # "that one" unplaced, never the older subject
        subject = subjects.subject_of(said) or (None if _A_NUMBER_NAMED.search(said) else subject)
        before_layout = updated.layout
        # never into an assignment ("don't use GPU 5; CUDA_LAUNCH_BLOCKING=1" sets it) nor an acronym ("DCGM")
        if (
            verb is not None
            and phrasing.verb_of(clause) is None
            and not (_ENV_SET.match(clause.split()[0]) or re.fullmatch(r"[A-Z][A-Z0-9]+", clause))
            and not _switch_before_a_choice(verb, clause, updated)
        ):
            # "drop the kv cache dtype flag and the attention backend override", "don't use GPU 3
            # and port 30000": the verb of the clause before carries over to one that has none.
            carried, carry = f"{verb} {clause}", not_taken.carry_over(verb, said, text, _reads(updated)(clause))
            if carry == "ask":
                missed.append(said)
                continue
            if carry == "carry" and (_reads(updated)(carried) or phrasing.canonical(carried, _reads(updated))):
                clause = carried
        if (no_dp := _NO_DP.match(clause)) and layout_in_message is not None:  # "tp4, no dp": DP 1 for that layout
            dp = int(no_dp.group("dp") or 1)
            updated.layout = layout_in_message = {**layout_in_message, "dp": dp}
            heard.append(f"{said} (read as: dp {dp})")
            continue
        if IT_OFF.search(clause) and A_FEATURE.search(text):
            missed.append(said)  # "cuda graph capture keeps crashing, turn it off": the feature, or the server?
            continue
        direct = _heard_one(updated, clause)  # the reading's verb carries on: "never schedule on gpu 0; gpu 1 too"
        reading = [clause] if direct else _heard_phrased(updated, clause, said, heard, missed)
        verb = phrasing.verb_of(clause) or (phrasing.verb_of(reading[0]) if reading else None) or verb
        if reading:
            if updated.layout != before_layout and updated.layout is not None:
                # "two replicas of TP4, i.e. ... tensor parallel 4": a later clause naming only the
                # TP keeps the DP an earlier clause of the same message gave.
                if layout_in_message is not None and not _SAYS_DP.search(clause):
                    updated.layout = {**updated.layout, "dp": layout_in_message.get("dp", 1)}
                layout_in_message = updated.layout
            if direct:
                heard.append(said if said == clause else f"{said} (read as: {clause})")
        elif not phrasing.is_courtesy(clause):
            verb = None  # a remark between ends the list: "avoid gpu1, it has ECC errors. INC0098777."
            hangs = bool(not_taken.CONDITION_FIRST.match(said))
    twice.read(updated)
    twice.rival_unread(missed)
    if twice.found or (heard and any(not_taken.dangles_before(m, text) for m in missed)):
        return rules.model_copy(update={"not_understood": [*rules.not_understood, text]}), [], [text]
    if not heard and not missed and text.strip():
        missed = [text.strip()]  # "hello", "please": words of no clause are still words not understood
    after = updated.model_dump()
    changed_launch = any(after[k] != before[k] for k in LAUNCH_RULES)
    if changed_launch:
        updated.relaunch_wanted = True
    updated.heard = [*updated.heard, *heard]
    updated.not_understood = [*updated.not_understood, *missed]
    return updated, heard, missed


def conditional(text: str) -> bool:
    """`agent.hearing.not_taken.conditional`, with this grammar's reading of the clauses beside it."""
    return not_taken.conditional(split_clauses(text), text, lambda clause: _readable(OperatorRules(), clause))


Reading = list[str] | None  # the canonical clauses a phrasing was read as, or None
_SAYS_DP = re.compile(r"\bdp\b|data[-\s]parallel|replica", re.I)


def _phrased(rules: OperatorRules, clause: str) -> list[str] | None:
    """The canonical clauses an everyday phrasing says, or None (`agent.hearing.phrasing`, then shorthand)."""
    reads = _reads(rules)
    found = phrasing.canonical(clause, reads) or shorthand.read(clause, reads)
    if found is not None:
        return found
    if (added := re.match(r"add\s+(?P<what>(?!--)[a-z].+)$", clause, re.I)) is not None:
        return _phrased(rules, added.group("what"))  # "add max running requests 128": the knob said in words
    if (never := _NEVER_SWITCH.match(clause)) is not None:
        # "never disable the radix cache": the flag that switches it is never passed
        switched = _phrased(rules, f"{never.group('switch')} {never.group('what')}")
        if switched is not None and len(switched) == 1 and re.fullmatch(r"use --[a-z0-9-]+", switched[0]):
            return [f"don't {switched[0]}"]
    if (joined := _WITH.match(clause)) is None:
        return None
    first = _one_or_phrased(rules, joined.group("first"))  # "relaunch on 4-7 with tp4": each side in its words
    if first and _AS_IT_WAS.match(joined.group("second")) and not not_taken.refuses(first):
        # "bounce the server with identical args": the relaunch, nothing changed; "bring it back up on
        # 30001 with the same flags as before": that change, and nothing else
        return first
    second = _one_or_phrased(rules, f"use {joined.group('second')}") or _one_or_phrased(rules, joined.group("second"))
    refused = not_taken.refuses(first or [])  # "don't relaunch with X": X refused, or wanted?
    return [*first, *second] if first and second and not refused else None


_NEVER_SWITCH = re.compile(
    r"^(?:never|don'?t|do\s+not)\s+(?:ever\s+)?(?P<switch>disable|enable|turn\s+off|turn\s+on)\s+(?P<what>.+?)"
    r"(?:\s+(?:on\s+this\s+(?:one|host|box|run)|again|ever))?$",
    re.I,
)
_WITH = re.compile(r"^(?P<first>.+?)\s+with\s+(?P<second>.+)$", re.I)
_AS_IT_WAS = re.compile(
    r"^(?:the\s+)?(?:same|identical|current|existing|unchanged)\s+(?:args|arguments|flags|settings|config(?:uration)?)"
    r"(?:\s+as\s+(?:before|last\s+time|now))?$",
    re.I,
)


def _one_or_phrased(rules: OperatorRules, clause: str) -> list[str] | None:
    return [clause] if _reads(rules)(clause) else _phrased(rules, clause)


def _readable(rules: OperatorRules, clause: str, typos: bool = True) -> bool:
    if _reads(rules)(clause) or _phrased(rules, clause):
        return True
    fixed, slips = shorthand.fix_typos(clause) if typos else (clause, [])
    return bool(slips) and _readable(rules, fixed, typos=False)  # "rerun bnch first" reads whole


def _reads(rules: OperatorRules) -> Callable[[str], bool]:
    """Whether the grammar reads a clause, tried on a copy of `rules` (nothing is applied)."""
    return lambda clause: _heard_one(rules.model_copy(deep=True), clause)


def reads_whole(clause: str) -> bool:
    """Whether `clause` alone is read whole into rules (a model's reading must be)."""
    _, heard, missed = hear(OperatorRules(), clause)
    return bool(heard) and not missed


def _heard_phrased(rules: OperatorRules, clause: str, said: str, heard: list[str], missed: list[str]) -> Reading:
    """An everyday phrasing read through `agent.hearing.phrasing`: its clauses, recorded with the words said."""
    if phrasing.is_courtesy(clause):
        return None
    reading = _phrased(rules, clause)
    fixed, typos = shorthand.fix_typos(clause) if reading is None else (clause, [])
    if typos:  # "relauch": a slip with one word it can be, taken and said back with the reading
        reading = [fixed] if _reads(rules)(fixed) else _phrased(rules, fixed)
        said = f"{said} ({'; '.join(typos)})" if reading is not None else said
    if reading is None:
        near = shorthand.suggest(clause)
        readable = near is not None and _readable(rules, near, typos=False)
        missed.append(f"{said} (did you mean: {near}?)" if readable else said)  # a typo is asked, never taken
        return None
    for part in reading:
        _heard_one(rules, part)
    heard.append(f"{said} (read as: {'; '.join(reading)})")
    return reading


_ASKS = re.compile(r"\b(?:what|what's|whats|why|how|who|where|when)\b|\?\s*$", re.I)


def counted(rules: OperatorRules, clause: str, relayed: bool = False) -> list[str] | None:
    """A clause not understood that is a bare GPU count ("only two gpus") read as its layout, only
    to be asked back: a count may mean TP over that many GPUs or just any that many. So are bare ids
    and vLLM's names for SGLang's flags."""
    if not_taken.NOT_THIS.match(clause):
        return None  # "instead of tp 4": what is not wanted is never asked back as wanted
    if vllm.names_one(clause):
        return vllm.sglang_reading(clause)  # "--max-model-len 32768": another engine's name, in SGLang's
    if (knob := iac.knob_of_variable(clause)) is not None:
        return [f"use {knob}"]  # "KV_DTYPE=fp8_e5m2": a config's key for the flag, asked back as the flag
    if chinese.has_unread_script(clause) or foreign.negation_left(clause) or _ASKS.search(clause):
        return None  # a word no table read, or a question ("on gpu 3 what is going on?"), is never asked back as read
    if (backend := phrasing.backend_named_alone(clause)) is not None:
        return [f"use --attention-backend {backend}"]  # "triton backend": attention, sampling or MoE? asked back
    if relayed:  # someone else's maybe is asked back as their every word is: "priya says maybe set X=1"
        clause = HEDGE_FIRST.sub("", clause) or clause
        if _reads(rules)(clause):
            return [clause]  # someone else's words, read whole: "@bob says use port 30002" asks back that port
    bare = shorthand.bare_gpus(clause)  # "gpus 1 3 5 7": asked back in words the grammar takes whole
    counted = None if bare else phrasing.canonical(clause, _reads(rules), counts=True)
    if counted is None and (asked := shorthand.asked_only(phrasing.without_courtesy(clause))) is not None:
        read = [[c] if _reads(rules)(c) else _phrased(rules, c) for c in asked]
        counted = None if None in read else [c for one in read for c in one or []]  # "org/name on <unread>": none
    if counted or not relayed:
        return counted
    # "the vendor recommended NCCL_ALGO=Ring for this box": what the grammar reads of someone else's words
    _, heard, _ = hear(rules.model_copy(deep=True), clause)
    return [part for reading in readings(heard) for part in reading.split("; ")] or None


def understood(text: str) -> tuple[list[str], list[str]]:
    """What of `text` the grammar understands (for answering at once, at the terminal or CLI)."""
    _, heard, missed = hear(OperatorRules(), text)
    return heard, missed


def rules_of(state: AgentState) -> OperatorRules:
    """The run's operator rules; on the first call, seeded with the goal's "never X" clauses."""
    raw: Any = state.get("operator")
    rules = OperatorRules.model_validate(raw) if isinstance(raw, dict) else raw
    if rules is not None and rules.seeded:
        return rules
    rules = rules or OperatorRules()
    goal = state.get("goal")
    rules = rules.model_copy(update={"seeded": True})
    for clause in goal.constraints if goal is not None else []:
        rules, _, missed = hear(rules, clause)
        rules.not_understood = [m for m in rules.not_understood if m not in missed]  # the goal says how it reads them
    rules.relaunch_wanted = False  # the goal's rules shape the first launch; nothing to redo
    return rules
