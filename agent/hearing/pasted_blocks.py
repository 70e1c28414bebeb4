"""Settings pasted as blocks, said as the grammar's clauses before they are read: a JSON object
(`{"tp": 2, "dp": 4}`), a YAML-like block of `key: value` lines ("replicas: 2", "- name: X / value: Y"), and
an editor's substitution ("s/tp 8/tp 4/")."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

_KNOWN_KEY = re.compile(r"^(?:tp|dp|tp_size|dp_size|port|gpus|model|model_path|replicas)$", re.I)


def _once_each(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object's keys, each said once; a key said twice is refused (the later would silently win)."""
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a key said twice")
    return dict(pairs)


def json_block(text: str, is_flag: Callable[[str], bool]) -> str:
    """A pasted JSON object said as a settings block's lines (`settings_block` reads them): `{"tp": 2,
    "dp": 4}`, `{"env": {"NCCL_DEBUG": "WARN"}}`, `{"mem_fraction_static": 0.85}`. Anything else as it was;
    a nesting it does not know stays a line of its own, never read."""
    body = re.sub(r"^\s*(?:json|yaml)?\s*\n", "", text.strip(), flags=re.I)
    try:
        data = json.loads(body, object_pairs_hook=_once_each)
    except ValueError:
        return text  # not JSON, or a key said twice ('{"tp": 4, "tp": 8}': which?), left as typed and unread
    if not isinstance(data, dict) or not data or re.search(r":\s*-\d", body):
        return text  # a negative number is no size, port or fraction: the object is not read
    lines: list[str] = []
    for key, value in data.items():
        name = "--" + str(key).replace("_", "-")
        if isinstance(value, dict) and str(key).lower() in ("env", "environment", "envs", "env_vars"):
            lines += [f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in value.items()]
        elif isinstance(value, list) and all(isinstance(v, int) for v in value):
            lines.append(f"{key}: {','.join(str(v) for v in value)}")
        elif isinstance(value, (str, int, float, bool)) and is_flag(name):
            lines.append(name if value is True else f"don't use {name}" if value is False else f"{name} {value}")
        elif isinstance(value, (str, int, float)) and not isinstance(value, bool) and _KNOWN_KEY.match(str(key)):
            lines.append(f"{key}: {value}")
        else:
            return text  # a key it does not know ("comment": "do not apply yet"): the object is not read
    return "\n".join(lines)


# A pasted settings block ("replicas: 2", "tp: 4", "port: 30123", "- name: X / value: Y"), line by line
_SETTING_LINE = re.compile(
    r"^\s*-?\s*(?P<key>tp|tp[-_]size|tensor[-_]parallel(?:[-_]size)?|dp|dp[-_]size|data[-_]parallel(?:[-_]size)?|replicas|"
    r"port|gpus|devices|cuda_visible_devices|model|model[-_]path|name|value)\s*:\s*(?P<value>\S+)\s*$",
    re.I,
)


def settings_block(text: str) -> str:
    """The lines of a pasted settings block said as the grammar's clauses; other lines as they were."""
    lines = text.split("\n")
    if not any(_SETTING_LINE.match(line) for line in lines):
        return text
    out: list[str] = []
    layout: dict[str, str] = {}
    pending_name: str | None = None
    for line in lines:
        m = _SETTING_LINE.match(line)
        if m is None:
            out.append(line)
            continue
        key, value = m.group("key").lower().replace("-", "_"), m.group("value")
        if key.startswith(("tp", "tensor")):
            layout["tp"] = value
        elif key.startswith(("dp", "data")) or key == "replicas":
            layout["dp"] = value
        elif key == "port":
            out.append(f"port {value}")
        elif key in ("gpus", "devices", "cuda_visible_devices"):
            out.append(f"use GPUs {value}")
        elif key.startswith("model"):
            out.append(f"serve {value}")
        elif key == "name":
            pending_name = value
        elif pending_name is not None:  # "- name: NCCL_DEBUG" then "value: INFO"
            out.append(f"{pending_name}={value}")
            pending_name = None
        else:
            out.append(line)
    if "tp" in layout:
        out.insert(0, f"tp {layout['tp']}" + (f" dp {layout['dp']}" if "dp" in layout else ""))
    elif "dp" in layout:
        out.insert(0, f"replicas: {layout['dp']}")  # a DP alone is no layout: left to be asked about
    return "\n".join(out)


_SED = re.compile(r"(?:^|(?<=\s))s/(?P<old>[^/\n]+)/(?P<new>[^/\n]*)/g?(?=\s|$|[,.;])", re.I)
_SED_ON = re.compile(
    r"^\s*(?:(?:on|in|for)\s+|[#;]\s*)(?P<what>(?:--)?[a-z0-9]+(?:-[a-z0-9]+)+|--[a-z0-9]+|[A-Z][A-Z0-9_]{2,})(?![\w-])",
    re.I,
)


def sed_edits(text: str) -> str:
    """An editor's substitution said as the change: "--disbale-cuda-graph s/disbale/disable/" is the
    words before it corrected; "s/tp 8/tp 4/" alone is "tp 4"; "s/0.85/0.75/ on --mem-fraction-static" is
    "--mem-fraction-static 0.75". A substitution of words that are not before it, nor on a named
    setting, is left as said (not understood)."""
    match = _SED.search(text)
    if match is None:
        return text
    before, after = text[: match.start()].rstrip(), text[match.end() :]
    old, new = match.group("old"), match.group("new")
    if old in before:
        return sed_edits(before.replace(old, new) + " " + re.sub(r"^\s*(?:obv(?:iously)?|lol|ofc)\b", "", after))
    if (on := _SED_ON.match(after)) is not None and not before:
        what = on.group("what")
        what = what if what.startswith("--") or what.isupper() else f"--{what}"  # "on mem-fraction-static"
        return sed_edits(f"{what} {new}{after[on.end() :]}")
    if not before and re.fullmatch(r"\d{4,5}", old) and re.fullmatch(r"\d{4,5}", new):
        return sed_edits(f"use port {new}{after}")  # "s/30000/30005/": the port, as the default one is written
    if not before and re.search(r"[a-z]", new, re.I):
        return sed_edits(new + after)  # "s/tp 8/tp 4/ and run it on 0-3": the new words are the change
    return text
