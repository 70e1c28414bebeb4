"""What a pronoun stands for: the ports, GPUs, variables or features a clause names as its subject
("GPU 2 is broken", "30000 is taken"), put in place of "it"/"them" in the clause after ("never use it")."""

from __future__ import annotations

import re

from agent.hearing.phrasing import toggle, without_courtesy

_SUBJECT = re.compile(
    r"\b(?:ports?\s+\d{4,5}(?:\s*(?:,|and|or|&|/|-)\s*\d{4,5})*|gpus?\s+\d+(?:\s*(?:,|and|-|&|through|thru)\s*\d+)*)",
    re.I,
)
_PRONOUN_OBJECT = re.compile(
    r"^(?:(?:so|and|then)\s+)?(?:you\s+)?(?P<verb>(?:please\s+)?(?:(?:never|don'?t|do\s+not|not)\s+(?:use|touch|open|pass|bind(?:\s+to)?|"
    r"(?:schedule|put|run|place|launch|start)(?:\s+(?:anything|stuff|work|jobs?))?\s+on)|stay\s+(?:off|away\s+from)|"
    r"keep\s+off|keep(?=\s+(?:it|them|'?em)\s+out\b)|avoid|skip|leave|exclude|use|drop|disable|unset|remove|serve|load))\s+(?:it|them|'?em|there|that|both(?:\s+of\s+them)?|(?:either|any|all|each)\s+of\s+(?:them|'?em|those|these)|(?:those|these)(?:\s+(?:devices|gpus|cards|ports))?|that\s+(?:one|port|gpu|card)|(?:that|this|the)\s+(?:flag|var|variable|env\s+var))"
    r"(?P<tail>(?:\s+(?:please|pls|plz|either(?:\s+way)?|too|alone|again|instead|anyway|regardless|in\s+any\s+case|out(?:\s+of\s+every\s+launch)?|never|ever|anymore|at\s+all|no\s+matter\s+what))*)$",
    re.I,
)


def subject_of(clause: str) -> str | None:
    """The ports or GPUs a clause names ("GPU 2 is broken"), for a pronoun in the next one; bare
    numbers only as the clause's subject: a set of ids ("4-7 are vfio-pci") are GPUs, one port number
    said to be in use ("30000 is taken") a port."""
    clause = re.sub(r"^(?:since|because|as|given\s+that)\s+", "", clause.strip(), flags=re.I)  # "since gpu 3 is hot"
    if (cleft := _CLEFT.match(clause)) is not None:  # "it's 5 that's throwing ECC errors": 5 is what it is about
        number = cleft.group("number")
        return f"port {number}" if len(number) >= 4 else f"GPUs {number}"
    found: list[str] = _SUBJECT.findall(clause)
    if found:
        return found[-1]
    bare = _BARE_SUBJECT.match(clause.strip())
    if bare is not None:
        port, ports = bare.group("port"), bare.group("ports")
        if port is not None or ports is not None:
            return f"port {port}" if port is not None else f"ports {ports}"
        if bare.group("free") is not None:
            return f"port {bare.group('free')}"
        return f"GPUs {bare.group('gpus') or bare.group('gpu')}"
    # "why is NCCL_P2P_DISABLE set??", "why NCCL_DEBUG=TRACE??": a variable asked about, for "unset it" after it
    asked = re.match(r"^(?:why|who)\s+(?:is\s+|was\s+|set\s+)?(?:the\s+)?([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b", clause.strip())
    if asked is not None:  # "who set CUDA_LAUNCH_BLOCKING??" too
        return asked.group(1)
    # "what is eating mem on 6 and 7??": GPUs asked about by their ids, for "stay off both" after the question
    on_ids = re.match(
        r"^(?:what|who)(?:'s|\s+is)\s+[^?]*?\bon\s+(\d(?:\s*(?:,|and|&)\s*\d)*)\s*\?+$", clause.strip(), re.I
    )
    if on_ids is not None:
        return f"GPUs {on_ids.group(1)}"
    # "NCCL_IB_DISABLE is a leftover", "/models/x is the one we want": a variable or a model, named first
    # "the NCCL_DEBUG=INFO is still set": the variable, said with its value
    named = re.match(
        r"^(?:the\s+)?([A-Z][A-Z0-9]*_[A-Z0-9_]+|/[\w.@+/-]+|--[a-z][a-z0-9-]+)(?:=\S+)?\s+"
        # "--enable-torch-compile broke warmup": a flag, then what it did, for "drop that flag" after it
        r"(?:is|was|came|comes|crept|got|no\s+(?:more\s+)?need|broke|breaks|crashe[sd]|killed|kills|caused|causes|hung|hangs|"
        r"tanked|blew\s+up|made|makes)\b",
        clause.strip(),
    )
    if named is not None:
        return named.group(1)
    # "the prod model is /models/x, serve that one": the model named after its role
    if (
        role := re.match(r"^(?:the\s+)?(?:[\w-]+\s+){0,2}model\s+is\s+(/[\w.@+/-]+|[\w.-]+/[\w.-]+)", clause.strip())
    ) is not None:
        return role.group(1)
    # "those numbers were taken with NCCL_DEBUG=INFO set": the variable said to be set, anywhere in the clause
    if (setting := _SET_WITH.search(clause)) is not None:
        return setting.group(1)
    # "the config we ship has --context-length 32768": a flag with its value, for "restart with that"
    if (flag := _FLAG_WITH_VALUE.search(clause)) is not None and not _FLAG_WITH_VALUE.search(clause, flag.end()):
        return flag.group(0)
    # "torch compile is not approved": a feature named as the subject, for "never pass it" after it
    feature = _FEATURE_SUBJECT.match(clause.strip())
    if _SWITCHED.search(clause):
        return None  # "cuda graph was disabled ...; remove that": "that" is the switching, not the feature
    if feature is not None and toggle(f"don't use {feature.group('what')}") is not None:
        return feature.group("what")
    return None


_CLEFT = re.compile(
    r"^it'?s\s+(?:gpu\s+|port\s+)?(?P<number>\d{1,2}|\d{4,5})\s+(?:that|which|who)(?:'s|\s+is|\s+has)?\b", re.I
)
_SWITCHED = re.compile(r"\b(?:disabled|enabled|turned\s+(?:off|on)|switched\s+(?:off|on))\b", re.I)
_FEATURE_SUBJECT = re.compile(
    r"^(?:the\s+)?(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)\s+(?:is|are|was|has|keeps|looks|seems)\b", re.I
)


_BARE_SUBJECT = re.compile(
    r"^(?:(?P<gpus>\d{1,2}(?:\s*(?:-|through|thru|to)\s*\d{1,2}|(?:\s*(?:,|and)\s*\d{1,2})+))\s+(?:are|belong|have)\b"
    r"|(?P<port>\d{4,5})\s+(?:is|'s)\s+(?:taken|in\s+use|busy|bound|reserved|occupied|used|held|squatted|owned|off[-\s]limits|"
    # a service that listens there: "8000 is the prometheus exporter" (never "4096 is too small")
    r"(?:(?:the|our|[\w-]+'s)\s+)?(?:[\w-]+\s+)?(?:exporter|gateway|proxy|server|endpoint|port|ui|dashboard|api|listener|sidecar|ingress|lb|"
    r"load\s*balancer|metrics|monitoring|prometheus|grafana|nginx|jupyter|notebook|webhook))\b"
    r"|(?P<ports>\d{4,5}(?:(?:\s*(?:,|and|&)\s*\d{4,5})+|\s*(?:-|through|thru|to)\s*\d{4,5}))\s+(?:are|taken|busy|in\s+use|held)\b"
    # a port said to be free, for "use that" after it: "30010 should be free, so use that instead"
    r"|(?P<free>\d{4,5})\s+(?:is|'s|should\s+be|looks|seems)\s+(?:(?:still|totally|completely)\s+)?(?:free|open|available|unused)\b"
    # one or two digits are a GPU, never a port: "0 is reserved, never schedule on it"
    r"|(?P<gpu>\d{1,2})\s+(?:is|'s)\s+(?:reserved|taken|broken|bad|flaky|dead|busy|in\s+use|off[-\s]limits|not\s+ours)\b)",
    re.I,
)
# "hands off", "leave them alone": a must-not with no verb of its own, about what was just named
_HANDS_OFF = re.compile(r"^(?:hands\s+off|leave\s+(?:it|them)\s+alone|(?:it'?s|they'?re)\s+off[-\s]limits)$", re.I)


_SET_WITH = re.compile(r"\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)=\S+\s+(?:set|on|enabled|exported)\b")
_FLAG_WITH_VALUE = re.compile(r"--[a-z][a-z0-9-]+(?:\s+|=)[\w.]*\d[\w.]*", re.I)
# "restart with that", "relaunch it with those": the change named just before
_RELAUNCH_WITH_THAT = re.compile(
    r"^(?:so\s+)?(?:re-?launch|restart|bounce|re-?run)(?:\s+it)?\s+with\s+(?:that|it|this|those)(?:\s+(?:one|setting|flag))?$",
    re.I,
)
_RUN_ON_THOSE = re.compile(
    r"^(?:so\s+)?(?:re-?do|re-?run|re-?launch|restart|run|put|bounce|pin|move)\s+(?:it\s+|the\s+server\s+)?"
    r"(?:on\s+(?:those|them|these|that\s+one)(?:\s+(?:gpus|cards|devices))?|there)$",
    re.I,
)
_NO_OBJECT = re.compile(r"^(?:so\s+)?(?:don'?t|do\s+not|never)\s+(?:use|touch)(?:\s+please)?$", re.I)


def with_subject(clause: str, subject: str | None) -> str:
    """ "never use it" after "port 8080 is not for us": "never use port 8080". Only a bare pronoun
    object of a use/avoid verb is replaced, and only by ports or GPUs named just before."""
    if subject is not None and _HANDS_OFF.match(clause.strip()):
        return f"don't touch {subject}"
    if subject is not None and _NO_OBJECT.match(clause.strip()):  # "ports 30000-30002 reserved, dont use"
        return f"don't use {subject}"
    if (
        subject is not None
        and subject.lower().startswith(("gpu", "port"))
        and _RUN_ON_THOSE.match(without_courtesy(clause))
    ):
        return f"relaunch on {subject}"  # "redo it on those": run on exactly those (unlike "use it": add it?)
    if subject is not None and subject.startswith("--") and _RELAUNCH_WITH_THAT.match(without_courtesy(clause)):
        return f"relaunch with {subject}"
    match = _PRONOUN_OBJECT.match(clause.strip())
    if subject is None or match is None:
        return clause
    if (
        match.group("verb").lower().endswith("use")
        and not match.group("verb").lower().startswith(("never", "don", "do not", "not", "please"))
        and subject.lower().startswith("gpu")
    ):
        return clause  # "GPU 2 is free, use it": add it, or only it? Not a guess to make.
    tail = re.sub(
        r"\s+(?:never|ever|anymore|at\s+all|no\s+matter\s+what|either\s+way|regardless|in\s+any\s+case)\b",
        "",
        match.group("tail"),
        flags=re.I,
    )
    verb = re.sub(r"\bopen$", "use", match.group("verb"), flags=re.I)  # "never open those devices": never use them
    return f"{verb} {subject}{tail}"


# "On the radix cache: turn it off", "cuda graphs, turn them off": a feature named as the topic, then a
# pronoun switching it; never the server ("turn it off" alone stops it)
_SWITCHABLE = r"radix(?:\s+cache)?|cuda[\s_-]?graphs?|torch[\s_-]?compile"  # a feature a pronoun switches
_FEATURE_TOPIC = re.compile(
    r"^(?:(?:on|re|about|regarding|as\s+for|for)\s+)?(?:the\s+)?"
    rf"(?P<feature>{_SWITCHABLE}|prefix\s+cach\w*|custom\s+all[-\s]?reduce)"
    r"\s*(?:[:,—–]|\s-)\s*(?:just\s+|please\s+)?(?P<verb>turn|switch)\s+(?:it|them|that)\s+(?P<way>off|on)\b",
    re.I | re.M,
)


# "is radix cache even helping? turn it off", "was torch compile what ate the startup? never turn it on": one
# feature asked about, then switched by a pronoun (the question stays unread, so the reading is asked back)
_FEATURE_ASKED = re.compile(
    rf"^(?P<asked>[^?\n]*?\b(?P<feature>{_SWITCHABLE})\b[^?\n]*\?+)\s*"
    r"(?P<neg>(?:never|don'?t)\s+)?(?P<verb>turn|switch)\s+(?:it|them)\s+(?P<way>off|on)\b",
    re.I | re.M,
)


def feature_topic(text: str) -> str:
    """ "radix cache: turn it off" as "turn off the radix cache"; the rest as it was."""
    text = _FEATURE_ASKED.sub(lambda m: f"{m['asked']} {m['neg'] or ''}{m['verb']} {m['way']} the {m['feature']}", text)
    return _FEATURE_TOPIC.sub(lambda m: f"{m.group('verb')} {m.group('way')} the {m.group('feature')}", text)


# "the benchmark was wrong. humor him, run it again": a pronoun run again after the benchmark is named
_BENCH_NAMED = re.compile(r"\b(?:bench(?:mark)?s?|the\s+(?:numbers?|measurements?|throughput\s+test))\b", re.I)
_RUN_IT_AGAIN = re.compile(r"\b(?:re-?run\s+it|run\s+it\s+again|do\s+it\s+again|measure\s+it\s+again)\b", re.I)


def benchmark_again(text: str) -> str:
    """ "run it again" after the benchmark is named as "run the benchmark again"; the rest as it was."""
    named = _BENCH_NAMED.search(text)
    if named is None:
        return text
    head, tail = text[: named.end()], text[named.end() :]
    return head + _RUN_IT_AGAIN.sub("run the benchmark again", tail)


# "--enable-torch-compile broke warmup": a flag said as the subject of what it did, which is no use of it
_FLAG_FACT = re.compile(
    r"^(?:the\s+)?(--[a-z][a-z0-9-]+)\s+(?:broke|breaks|crashe[sd]|killed|kills|caused|causes|hung|hangs|tanked|"
    r"blew\s+up|made|makes|was|is\s+(?:what|why|hurting|killing|breaking|slowing|the\s+(?:culprit|problem|cause)))\b",
    re.I,
)


def flag_fact(clause: str) -> str | None:
    """The flag a clause says something about ("--x broke warmup"), for a pronoun after it; None otherwise."""
    found = _FLAG_FACT.match(clause.strip())
    return found.group(1) if found is not None else None


# "take it down", "kill it", "bring it down now": a stop whose "it" the message never names (the server? the
# proposed command? another team's job?); read only as asked back, with the server named
_IT_STOPPED = re.compile(
    r"\b(?:kill|nuke|stop|halt|take|bring|shut)\s+it(?:\s+(?:down|off|all\s+down))?\b(?!\s+to\b)", re.I
)
_IT_STOPPED_ALONE = re.compile(
    r"^(?:(?:then|and|so|ok(?:ay)?|now|pls|please|just)[\s,]+)*(?:kill|nuke|stop|halt|take|bring|shut)\s+it"
    r"(?:\s+(?:down|off|all\s+down))?(?:\s+(?:now|rn|asap|pls|please))*[\s.!]*$",
    re.I,
)
_SERVER_NAMED = re.compile(r"\b(?:server|sglang|service|the\s+run|whole\s+run|session)\b", re.I)


def unnamed_stop(clause: str, text: str) -> bool:
    """Whether a clause is only a stop of "it" ("take it down rn") and the message names nothing "it" could be."""
    return _IT_STOPPED_ALONE.match(clause.strip()) is not None and _SERVER_NAMED.search(text) is None


def stop_named(text: str) -> str | None:
    """The words with an unnamed stop's "it" said as the server, for asking back; None when there is none."""
    if _IT_STOPPED.search(text) is None or _SERVER_NAMED.search(text) is not None:
        return None
    return _IT_STOPPED.sub(lambda m: re.sub(r"\bit\b", "the server", m.group(0), count=1), text)


def topic_only(clause: str, next_clause: str) -> bool:
    """ "gpu 6 and 7, don't touch them": GPUs or ports named alone, as what the next clause's pronoun is about;
    never read as a use of their own."""
    if _SUBJECT.fullmatch(clause.strip(" .")) is None or _PRONOUN_OBJECT.match(next_clause.strip()) is None:
        return False
    return with_subject(next_clause, subject_of(clause)) != next_clause  # never "gpu 6, use it": add it, or only it?
