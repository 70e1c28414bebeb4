"""An infrastructure-as-code engineer's words as the grammar's, before a reply or an instruction is read:
variables and overrides ("set var tp=4", "apply -var 'tp=2' -var 'dp=2'", "override port: 30005", "pin
gpus to [4,5,6,7]"), a config's keys ("deny_gpus = [6, 7]", "disable_cuda_graph: true", "extra_args =
["--disable-cuda-graph"]"), its verbs ("destroy the server", "don't re-create it") and its review
words as replies ("plan rejected", "request changes", "auto-approve from here")."""

from __future__ import annotations

import re
from collections.abc import Callable

_LIST = r"\[?\s*(?P<items>[\w.,\s\"'-]+?)\s*\]?"
# a config's key for a list of things to keep out, and the clause it says
_DENY_KEYS = {
    "gpus": re.compile(r"^(?:deny|denied|block|blocked|exclude|excluded|avoid|banned|forbidden)_gpus$", re.I),
    "ports": re.compile(r"^(?:deny|denied|block|blocked|exclude|excluded|avoid|banned|forbidden)_ports$", re.I),
}
_LAYOUT_KEYS = re.compile(
    r"^(?:tp|dp|port|gpus|devices|model|model[-_]path|name|value|replicas|tensor\w*|data\w*|cuda_visible_devices)$",
    re.I,
)
_KEY_LINE = re.compile(rf"^\s*-?\s*(?P<key>[a-z][a-z0-9_-]*)\s*[:=]\s*{_LIST}\s*(?:#.*)?$", re.I)

# a count of replicas said as the layout, never as a sentence's subject ("two replicas is better")
_REPLICAS_SAID = r"(?=\s+replicas\b(?!\s+(?:is|are|was|were|would|will)\b))"
_WORDS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p, re.I | re.M), english)
    for p, english in [
        (r"^\s*(?:terraform\s+|tofu\s+)?apply\s+(?:with\s+)?(?=-?var\b)", ""),  # "apply with var gpus=[0,1]"
        (r"(?:^|(?<=\s))-?var\s+'?([a-z_]+\s*=\s*[^'\s]+)'?", r"\1"),  # "set var tp=4", "-var 'dp=2'"
        (r"^set\s+(?=[a-z_]+\s*=)", ""),
        (r"\b(?:ov+er+ide|override)\s+(?=(?:port|prot|tp|dp|gpus?|model)\b)", ""),  # "override port: 30005"
        (r"\bprot(?=\s*[:=]?\s*\d{4,5}\b)", "port"),
        (r"\bpin\s+gpus?\s+to\b", "use gpus"), (r"\bdestroy\s+(?=(?:the\s+)?(?:server|sglang)\b)", "stop "),
        (r"\b(?:don'?t|do\s+not)\s+re-?create\s+(?:it|the\s+server)\b", "don't relaunch"),
        (r"\b(?:re-?create)\s+(?=(?:it|the\s+server)\b)", "relaunch "),
        (r"(?<=\d)\s+from\s+the\s+(?:pool|fleet|inventory)\b", ""), (r"\bexport\s+the\s+env\s+(?=[A-Z])", "export "),
        (r"^\s*env\s+(?=[A-Z][A-Z0-9_]*=\S+(?:\s+[A-Z][A-Z0-9_]*=\S+)*\s*$)", ""),  # "env A=1 B=2"
        (r"^hold:\s*no\s+relaunch(?:es)?\b|^no\s+relaunch(?:es)?\b", "don't relaunch"),
        (r"\s+until\s+I\s+unlock\s+it\b|\s+until\s+unlocked\b", " till I say so"),
        (r"(?:^|(?<=[,;:]\s))always\s+(?=--[a-z])", "use "),
        # Kubernetes words: a pod's port keys, "expose it on 8080", replicas (data parallel) of GPUs each (tensor)
        (r"\b(?:container|host|service|target)Port\b", "port"),
        (r"\bexpose\s+(?:it\s+)?on\s+(?=\d{4,5}\b)", "serve on "),
        (r"\bscale\s+(?:(?:it|the\s+(?:server|deployment))\s+)?(?:up\s+|out\s+)?to\s+(?=\d+\s+replicas?\b)", ""),
        # "two replicas, tp 4 each" (never "two replicas is better": a reason, kept whole)
        (rf"\btwo{_REPLICAS_SAID}", "2"), (rf"\bthree{_REPLICAS_SAID}", "3"), (rf"\bfour{_REPLICAS_SAID}", "4"),
        (r"\b(\d+)\s+replicas?\b", r"dp \1"), (r"\b(\d+)\s+gpus?\s+(?:each|per\s+replica|apiece)\b", r"tp \1"),
        (r"\b(?:do\s+a\s+)?rollout\s+restart(?:\s+(?:on|of)\s+(?:the\s+)?(?:server|deployment|pods?))?\b", "restart"),
        (r"\b(bounce|restart|recycle)\s+the\s+pods?\b", r"\1 the server"),
        # "kubectl delete pod. let it come back up on its own": the controller recreates it, a restart
        (r"\bkubectl\s+delete\s+(?:the\s+)?pods?[.,;]?\s+(?:and\s+)?let\s+it\s+come\s+back(?:\s+up)?"
         r"(?:\s+(?:on\s+its\s+own|by\s+itself))?\b", "restart"),
        (r"\blet\s+it\s+come\s+back(?:\s+up)?(?:\s+(?:on\s+its\s+own|by\s+itself))?\b", "bring it back up"),
        (r"\b(stop|kill|delete)\s+the\s+pods?\b", "stop the server"),
        # "limits mem frac 0.85" (a pod's resource limits' word): the setting (never "Limit --x to 64", a verb)
        (r"^(?:limits\s*:?|limit\s*:)\s+(?=(?:mem|--|max|ctx|context|chunked))", ""),
        # "add --x to the container args", "NCCL_X=1 in the pod spec": the server's own command line and env
        (r"^env\s*:\s*(?=[A-Z][A-Z0-9_]*=)", ""),
        (r"\bput\s+(?=\S.*?\s+(?:in|into)\s+the\s+(?:container\s+)?args\b)", "add "),
        (r"\bstrip\s+(?=--[a-z])", "drop "),
        (r"\s+(?:in|into|to|from)\s+the\s+(?:pod\s+spec|container\s+(?:args|env|spec)|(?:launch\s+)?args)\b", ""),
        (r"\bswap\s+the\s+image\s+to\s+(?=\S*/)", "switch the model to "),
    ]
]  # fmt: skip
_REPLIES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p, re.I), english)
    for p, english in [
        (r"^(?:plan|change|pr|mr)\s+rejected\b", "no"), (r"^request(?:ing)?\s+changes\b", "no"),
        (r"^not\s+merging(?:\s+(?:it|this))?\s+yet\b", "not yet"),
        (r"^auto-?approve\s+(?:from\s+here|from\s+now\s+on)\b", "carry on without asking me"),
        (r"\b(?:don'?t|do\s+not)\s+block\s+on\s+me\b|\bno\s+need\s+to\s+gate\s+on\s+me\b", "don't wait for me"),
        (r"\bjust\s+run\s+your\s+pipeline\b", "carry on with your plan"),
        (r"^reconcile\s+(?:however|as)\s+you\s+see\s+fit\b", "proceed however you see fit"),
        (r"^cancel\s+the\s+pipeline\b[.,]?(?:\s*(?:the\s+)?whole\s+thing)?", "stop the whole run"),
        # a code review bot's commands ("/lgtm /approve", "/hold"); one taken back ("/approve cancel") is none
        (r"^(?:/(?:lgtm|approve)\s+cancel\b.*|/hold\s+cancel\b.*)", "withdrawn"),
        (r"^(?:/(?:lgtm|approve)\b\s*)+", "approve "), (r"^/hold\b[.,]?", "no, hold."),
        # a config's keys as the answer: "signoff=yes", "approve: true", "step=1", "stop=all"
        (r"^(?:sign_?off|approved?|lgtm|ship)\s*[:=]\s*(?:yes|true|y|ok)\b", "approve"),
        (r"^(?:sign_?off|approved?|lgtm|ship)\s*[:=]\s*(?:no|false|n)\b", "no"),
        (r"^continue\s*[:=]\s*(?:yes|true|y)\b", "carry on with your plan"),
        (r"^(?:step|pick|option|choice)\s*[:=]\s*(?=\d\b)", "do number "),
        (r"^stop\s*[:=]\s*(?:all|yes|true|run|everything)\b", "stop everything"),
    ]
]  # fmt: skip


# a config's short key for a server knob ("mem_frac=.85", "ctx=32k", "max_running=128"): the flag it is
KNOB_KEYS = {
    "mem_frac": "--mem-fraction-static", "mem_fraction": "--mem-fraction-static", "mem_fraction_static":
    "--mem-fraction-static", "ctx": "--context-length", "ctx_len": "--context-length", "context":
    "--context-length", "context_len": "--context-length", "context_length": "--context-length",
    "chunked_prefill": "--chunked-prefill-size", "chunked_prefill_size": "--chunked-prefill-size",
    "prefill_chunk": "--chunked-prefill-size", "max_running": "--max-running-requests", "max_running_requests":
    "--max-running-requests", "max_reqs": "--max-running-requests", "kv_dtype": "--kv-cache-dtype",
    "kv_cache_dtype": "--kv-cache-dtype", "attn_backend": "--attention-backend", "attention_backend":
    "--attention-backend", "quant": "--quantization", "quantization": "--quantization", "sched":
    "--schedule-policy", "sched_policy": "--schedule-policy", "schedule_policy": "--schedule-policy", "cg_max_bs":
    "--cuda-graph-max-bs", "cuda_graph_max_bs": "--cuda-graph-max-bs",
}  # fmt: skip
# a key naming what the run is to do next ("measure_again=yes", "stop_server=true"): said when switched on
_DOING_KEYS = {
    "measure_again": "measure again", "rebench": "measure again", "bench_again": "measure again",
    "rerun_bench": "measure again", "stop_server": "stop the server", "no_relaunch": "don't relaunch",
}  # fmt: skip
# "avoid_ports=30000,8080 use_port=30010": one line, several keys; each is a clause of its own (never
# "30010" added to the ports to avoid)
_NEXT_KEY = re.compile(
    r"[ \t]+(?=[a-z][a-z0-9]*(?:_[a-z0-9]+)+\s*[:=]|(?:ctx|quant|port|gpus|relaunch|restart|rebench)\s*=)"
)


def knob_of_variable(assignment: str) -> str | None:
    """ "KV_DTYPE=fp8_e5m2": a config's knob key written as an environment variable no server reads, as
    the flag it names ("--kv-cache-dtype fp8_e5m2"), to be asked back, never set as a variable."""
    found = re.fullmatch(r"([A-Z][A-Z0-9_]*)=(\S+)", assignment.strip())
    if found is None or (flag := KNOB_KEYS.get(found.group(1).lower())) is None:
        return None
    return f"{flag} {_value(found.group(2))}"


def _value(said: str) -> str:
    return "0" + said if re.fullmatch(r"\.\d+", said) else said  # "mem_frac=.85"


_SWITCHED = {"on": True, "true": True, "yes": True, "enabled": True, "off": False, "false": False, "no": False,
             "disabled": False}  # fmt: skip


def _key_line(line: str, is_flag: Callable[[str], bool]) -> str:
    found = _KEY_LINE.match(line)
    if found is None or _LAYOUT_KEYS.match(found.group("key")):
        return line  # "tp: 4", "gpus: 0,1": a settings block's own keys (agent.hearing.normalise)
    key, items = found.group("key"), found.group("items").strip()
    values = [v.strip(" \"'") for v in items.split(",") if v.strip(" \"'")]
    for kind, deny in _DENY_KEYS.items():
        if deny.match(key) and values and all(v.isdigit() for v in values):
            return f"never use {kind} {' and '.join(values)}"
    if (
        key.lower() in ("extra_args", "args", "extra_flags", "flags")
        and values
        and all(v.startswith("--") for v in values)
    ):
        return "; ".join(values)
    if key.islower() and key in KNOB_KEYS and len(values) == 1:  # "KV_DTYPE=..." is a variable's way: asked back
        return f"{KNOB_KEYS[key]} {_value(values[0])}"
    if key.lower() in _DOING_KEYS and len(values) == 1 and values[0].lower() in _SWITCHED:
        return _DOING_KEYS[key.lower()] if _SWITCHED[values[0].lower()] else line
    avoid_key = key.lower() in ("avoid_flags", "deny_flags", "blocked_flags", "banned_flags")
    if avoid_key and values and all(v.startswith("--") for v in values):
        return "; ".join(f"don't use {v}" for v in values)
    if key.lower() in ("use_port", "serve_port", "listen_port") and len(values) == 1 and values[0].isdigit():
        return f"use port {values[0]}"
    if key.lower() in ("unset", "unset_env") and values and all(re.fullmatch(r"[A-Z][A-Z0-9_]+", v) for v in values):
        return "; ".join(f"unset {v}" for v in values)
    flag = "--" + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", key).replace("_", "-").lower()  # "maxRunningRequests"
    if is_flag(flag) and len(values) == 1:
        value = values[0]
        return (
            flag if value.lower() == "true" else f"don't use {flag}" if value.lower() == "false" else f"{flag} {value}"
        )
    if len(values) == 1 and (on := _SWITCHED.get(values[0].lower())) is not None:
        # "cuda_graph: off", "torch_compile: on": a feature switched, said by its name without the flag's verb
        feature = flag.removeprefix("--")
        disable, enable = f"--disable-{feature}", f"--enable-{feature}"
        if is_flag(disable):
            return f"don't use {disable}" if on else disable
        if is_flag(enable):
            return enable if on else f"don't use {enable}"
    if key.lower() in ("relaunch", "restart") and len(values) == 1 and values[0].lower() in _SWITCHED:
        return "relaunch" if _SWITCHED[values[0].lower()] else "don't relaunch"
    return line


def in_plain_words(text: str, is_flag: Callable[[str], bool]) -> str:
    """`text` with its variables, keys and verbs said as the grammar's; the rest as it was."""
    for said, english in _WORDS:
        text = said.sub(english, text)
    # "needs trust_remote_code", "needs trust-remote-code": a flag named as its Python field, or without its "--"
    text = re.sub(
        # never "tensor-parallel-size 4" (a layout), nor after an "and" (a "--" there joins no list of words)
        r"(?<![\w/.—–-])(?<!\band )(?<!\be )(?<!\bund )(?<!\bet )(?<!\ben )(?<!\by )"
        r"((?![a-z-]*parallel)[a-z]+(?:-[a-z0-9]+)+)(?![\w=:/.-])",
        lambda m: "--" + m.group(1) if is_flag("--" + m.group(1)) else m.group(1),
        text,
    )
    text = re.sub(
        r"(?<![\w-])([a-z]+(?:_[a-z0-9]+)+)(?![\w=:-])",
        lambda m: "--" + m.group(1).replace("_", "-") if is_flag("--" + m.group(1).replace("_", "-")) else m.group(1),
        text,
    )
    return "\n".join(_keys_said(line, is_flag) for line in text.split("\n"))


def _keys_said(line: str, is_flag: Callable[[str], bool]) -> str:
    """A line's `key=value`s said as clauses, each between the marks that part a line's sentences ("not
    yet. measure_again=yes - want a second run", "max_running=128 mem_frac=0.8 measure_again=yes")."""
    if _KEY_LINE.match(line):
        return _key_line(line, is_flag)  # a whole line "gpus: 0, 1": its commas are the list's
    parts = _BETWEEN.split(line)
    for at in range(0, len(parts), 2):
        pieces = _NEXT_KEY.split(parts[at])
        if len(pieces) > 1 and all(_KEY_LINE.match(p) for p in pieces[1:]):
            parts[at] = "; ".join(_key_line(p, is_flag) for p in pieces)
        elif "=" in parts[at] or ":" in parts[at]:
            parts[at] = _key_line(parts[at], is_flag)  # "not yet. measure_again=yes"
    return "".join(parts)


_BETWEEN = re.compile(r"(\s+-\s+|,\s+|\.\s+|;\s*|\s+(?=\())")


def replies(text: str) -> str:
    """A review's or a pipeline's words as a reply's: "plan rejected" is no, "auto-approve from here"
    is carry on without asking."""
    for said, english in _REPLIES:
        text = said.sub(english, text)
    return text
