"""Secrets out before the write: named patterns applied to every string of a payload, recursively.

A pattern is a regular expression; when it has a group named `secret`, only that group is
replaced (so `HF_TOKEN=hf_abc` becomes `HF_TOKEN=[REDACTED:hf_token_env]`, keeping the command
readable), otherwise the whole match is. Dict values whose key names a secret (`HF_TOKEN`,
`password`, `AWS_SECRET_ACCESS_KEY` ...) are replaced whole, which covers environment maps.
Every replacement is recorded as a `Redaction(pattern, path)` with a JSON pointer into the payload.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from agent.transcript.schema import Redaction

_ENV_SECRET_NAME: Final = (
    r"[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)"
    r"(?:_[A-Z0-9_]*)?"
)
_VALUE: Final = r"""(?P<secret>"[^"]*"|'[^']*'|[^\s'"]+)"""

DEFAULT_PATTERNS: Final[tuple[tuple[str, str], ...]] = (
    # Whole key blocks; a block cut off by output capping is redacted to the end of the string.
    (
        "private_key",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?"
        r"(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
    ),
    (
        "authorization_header",
        r"(?i)\b(?:proxy-)?authorization\s*:\s*(?:(?:bearer|basic|token|digest)\s+)?" + _VALUE,
    ),
    ("hf_token_env", r"\bHF_TOKEN\s*=\s*" + _VALUE),
    ("aws_credentials", r"(?i)\baws_(?:secret_access_key|access_key_id|session_token)\s*[=:]\s*" + _VALUE),
    ("secret_env", r"\b" + _ENV_SECRET_NAME + r"\s*=\s*" + _VALUE),
    (
        "secret_flag",
        r"(?i)(?<![\w-])--?(?:password|passwd|token|api-key|api_key|secret|hf-token|access-token)(?:=|\s+)" + _VALUE,
    ),
    (
        "secret_field",
        # not a path's last part: "/etc/passwd: Read-only file system" names a file, not a password
        r"""(?i)(?<![/.])["']?\b(?:password|passwd|secret|api_key|access_token)["']?\s*[:=]\s*""" + _VALUE,
    ),
    ("url_password", r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s]+:(?P<secret>[^@/\s]+)@"),
    ("aws_access_key_id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("openai_key", r"\bsk-(?:proj-|ant-|svcacct-)?[A-Za-z0-9_\-]{20,}"),
    ("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})"),
    ("hf_token", r"\bhf_[A-Za-z0-9]{30,}"),
    ("google_api_key", r"\bAIza[0-9A-Za-z\-_]{35}"),
    ("slack_token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    ("azure_account_key", r"(?i)\bAccountKey=(?P<secret>[^;\s'\"]+)"),
)

# Dict keys whose string values are secrets as a whole (environment maps, config dicts).
_SECRET_KEY: Final = re.compile(
    r"^(?:" + _ENV_SECRET_NAME + r"|(?i:password|passwd|secret|token|api_key|apikey|access_token|refresh_token"
    r"|client_secret|private_key|authorization|aws_secret_access_key|aws_access_key_id|aws_session_token))$"
)


MEMO_CHARS: Final = 16_000_000  # texts remembered per scrubber, in characters (tens of MB at most)


def marker(name: str) -> str:
    return f"[REDACTED:{name}]"


@dataclass(frozen=True)
class _Pattern:
    name: str
    regex: re.Pattern[str]
    has_secret_group: bool


class Scrubber:
    """Replaces secrets in any JSON-like value; `extra_patterns` extend the built-in set (config)."""

    def __init__(self, extra_patterns: Iterable[str] = (), *, named: Iterable[tuple[str, str]] = ()) -> None:
        specs = list(DEFAULT_PATTERNS) + list(named)
        specs += [(f"extra_{i}", p) for i, p in enumerate(extra_patterns)]
        self.patterns: list[_Pattern] = []
        for name, source in specs:
            try:
                regex = re.compile(source)
            except re.error as exc:
                raise ValueError(f"secret pattern {name!r} is not a valid regular expression: {exc}") from exc
            self.patterns.append(_Pattern(name, regex, "secret" in regex.groupindex))
        # Prefilter over the built-in patterns only: user patterns (which might use numbered
        # backreferences that joining would break) are always applied one by one.
        self._builtin = len(DEFAULT_PATTERNS)
        self._any = _combined([source for _, source in DEFAULT_PATTERNS])
        # A text's scrubbed form and what was found in it, by text: the checkpointer stores the
        # whole (growing) state every step, so without this each step rescans every earlier
        # observation (most of a lab run's CPU time). Bounded; cleared when full.
        self._memo: dict[str, tuple[str, tuple[str, ...]]] = {}
        self._memo_chars = 0

    def scrub(self, obj: Any) -> tuple[Any, list[Redaction]]:
        """A scrubbed copy of `obj` and what was redacted, each with a JSON pointer (`/args/env/HF_TOKEN`)."""
        found: list[Redaction] = []
        return self._walk(obj, "", found), found

    def scrub_text(self, text: str, path: str = "") -> tuple[str, list[Redaction]]:
        found: list[Redaction] = []
        return self._text(text, path, found), found

    def _walk(self, obj: Any, path: str, found: list[Redaction]) -> Any:
        if isinstance(obj, str):
            return self._text(obj, path, found)
        if isinstance(obj, dict):
            out: dict[str, Any] = {}
            for key, value in obj.items():
                skey = self._text(key if isinstance(key, str) else str(key), path + "/" + _escape(str(key)), found)
                child = path + "/" + _escape(skey)
                if isinstance(value, str) and value and _SECRET_KEY.match(skey) and not value.startswith("[REDACTED:"):
                    found.append(Redaction("secret_key", child))
                    out[skey] = marker("secret_key")
                else:
                    out[skey] = self._walk(value, child, found)
            return out
        if isinstance(obj, list | tuple):
            return [self._walk(v, f"{path}/{i}", found) for i, v in enumerate(obj)]
        if isinstance(obj, float) and not math.isfinite(obj):
            return str(obj)  # strict JSON has no NaN/Infinity; keep the fact readable
        if obj is None or isinstance(obj, bool | int | float):
            return obj
        return self._text(str(obj), path, found)  # Paths, enums, datetimes: recorded as text

    def _text(self, text: str, path: str, found: list[Redaction]) -> str:
        hit = self._memo.get(text)
        if hit is None:
            hit = self._scan(text)
            if self._memo_chars + len(text) > MEMO_CHARS:
                self._memo.clear()
                self._memo_chars = 0
            self._memo[text] = hit
            self._memo_chars += len(text)
        scrubbed, names = hit
        found.extend(Redaction(name, path or "/") for name in names)
        return scrubbed

    def _scan(self, text: str) -> tuple[str, tuple[str, ...]]:
        """`text` scrubbed, and the names of the patterns that replaced something, in order."""
        names: list[str] = []
        patterns = self.patterns
        if self._any is not None and self._any.search(text) is None:
            patterns = patterns[self._builtin :]  # the common case: one scan for all built-in patterns
        for pat in patterns:
            if pat.regex.search(text) is None:
                continue
            if pat.has_secret_group:
                hits = [0]

                def repl(m: re.Match[str], name: str = pat.name, hits: list[int] = hits) -> str:
                    secret = m.group("secret")
                    if secret.startswith("[REDACTED:") or secret.strip("\"'").startswith("[REDACTED:"):
                        return m.group(0)  # already redacted by an earlier, more specific pattern
                    hits[0] += 1
                    s0, (start, end) = m.start(), m.span("secret")
                    whole = m.group(0)
                    return whole[: start - s0] + marker(name) + whole[end - s0 :]

                text = pat.regex.sub(repl, text)
                n = hits[0]
            else:
                text, n = pat.regex.subn(marker(pat.name), text)
            if n:
                names.append(pat.name)
        return text, tuple(names)


def _combined(sources: list[str]) -> re.Pattern[str] | None:
    """One regex matching wherever any pattern matches (a prefilter), or None if they cannot be joined."""
    parts = []
    for source in sources:
        body = source.replace("(?P<secret>", "(?:")
        flags = re.match(r"\(\?([aiLmsux]+)\)", body)
        if flags:
            body = f"(?{flags.group(1)}:{body[flags.end() :]})"
        parts.append(f"(?:{body})")
    try:
        return re.compile("|".join(parts))
    except re.error:
        return None


def _escape(key: str) -> str:
    """RFC 6901 JSON pointer escaping."""
    return key.replace("~", "~0").replace("/", "~1")
