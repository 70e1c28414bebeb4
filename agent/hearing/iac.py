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
        (r"\b(\d+)\s+replicas?\b", r"dp \1"), (r"\b(\d+)\s+gpus?\s+(?:each|per\s+replica|apiece)\b", r"tp \1"),
        (r"\b(?:do\s+a\s+)?rollout\s+restart(?:\s+(?:on|of)\s+(?:the\s+)?(?:server|deployment|pods?))?\b", "restart"),
        (r"\b(bounce|restart|recycle)\s+the\s+pods?\b", r"\1 the server"),
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
        (r"^cancel\s+the\s+pipeline\b[.,]?(?:\s*(?:the\s+)?whole\s+thing)?", "stop the whole run"),
        # a code review bot's commands ("/lgtm /approve", "/hold"); one taken back ("/approve cancel") is none
        (r"^(?:/(?:lgtm|approve)\s+cancel\b.*|/hold\s+cancel\b.*)", "withdrawn"),
        (r"^(?:/(?:lgtm|approve)\b\s*)+", "approve "), (r"^/hold\b[.,]?", "no, hold."),
    ]
]  # fmt: skip


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
    # "needs trust_remote_code": a flag named as its Python field
    text = re.sub(
        r"(?<![\w-])([a-z]+(?:_[a-z0-9]+)+)(?![\w=:-])",
        lambda m: "--" + m.group(1).replace("_", "-") if is_flag("--" + m.group(1).replace("_", "-")) else m.group(1),
        text,
    )
    return "\n".join(_key_line(line, is_flag) for line in text.split("\n"))


def replies(text: str) -> str:
    """A review's or a pipeline's words as a reply's: "plan rejected" is no, "auto-approve from here"
    is carry on without asking."""
    for said, english in _REPLIES:
        text = said.sub(english, text)
    return text
