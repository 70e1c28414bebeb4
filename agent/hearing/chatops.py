"""A ChatOps bot's command syntax as the grammar's words, before a reply or an instruction is read:
slash commands ("/deny", "/srv stop", "/gpu avoid 3", "/bench again"), "env+ X=1" and "env- X",
"flags += --x" and "flagban --x", "cfg tp=4 dp=2", and a bang before a setting ("!port 30001"), which
a chat may mean as a command or as "not": read as the command, and always asked back (`bang_command`)."""

from __future__ import annotations

import re

from agent.hearing import word_table

# a command's word after its "/" ("/deny", "/gpu", "/bench"), never a path ("/models/x", "/data")
_SLASH = r"(?:^|(?<=[;.,]\s)|(?<=\bthen\s)|(?<=\n))/(?=[a-z]+(?![\w/.-]))"
# "!port 30001", "!model /models/x": a bot's command word, a space, then its value
_BANG = re.compile(r"(?<![\w!])!(?=(?:port|model)\s+[\w/.-])", re.I)

_WORDS = word_table.compiled(
    [
        (_SLASH, ""),
        # "env+ NCCL_DEBUG=INFO", "env- NCCL_P2P_DISABLE" (never "the env - I want ...")
        (r"\benv\+=?\s*(?=[A-Z][A-Z0-9_]{2,}=)", "set "),
        (r"\benv-=?\s*(?=[A-Z][A-Z0-9_]{2,}\b)", "unset "),
        (r"\bflags?\s*\+=?\s*(?=--[a-z])", ""),  # "flags += --disable-radix-cache": the flags, pasted
        (r"\bflags?\s*-=\s*(?=--[a-z])|\bflag\s*ban\s+(?=--[a-z])", "don't use "),  # "flagban --x"
        (r"\bcfg\s+(?=(?:tp|dp|port|gpus?|mem|ctx|[a-z_]+\s*=))", ""),  # "cfg tp=4 dp=2"
        # a bot's noun then verb: "gpu avoid 3", "srv stop", "kill srv"
        (r"\b(gpus?)\s+(avoid|exclude|skip|use)\s+(?=\d)", r"\2 \1 "),
        # at a command's start only: "take the server down" is English
        (r"(?:^|(?<=[;,.]\s))(?:srv|sglang)\s+(stop|down|kill|restart|bounce)\b", r"\1 the server"),
        (r"\bsrv\b", "server"), (r"\bcg(?=\s+max\b)", "cuda graph"),  # "cg max bs=160"
        # "cuda graph max bs=160": a name in words, "=" its value
        (
            r"\b(cuda\s+graph\s+max\s+bs|max\s+running\s+req\w*|mem(?:ory)?\s+frac\w*|chunked\s+prefill(?:\s+size)?|"
            r"context\s+length|schedule\s+policy)\s*=\s*(?=\.?\d|[a-z])",
            r"\1 ",
        ),
        (_BANG.pattern, ""),
    ],
    flags=re.I | re.M,
)  # fmt: skip
_REPLIES = word_table.compiled([(r"^[/.](?=(?:deny|continue|stop|approve|abort|cancel|skip)\b)", "")])  # "/deny"


def plain(text: str) -> str:
    """`text` with a chat bot's command forms said as the grammar's words; the rest as it was."""
    return word_table.rewritten(text, _WORDS)


def replies(text: str) -> str:
    """ "/deny", "/continue", "/stop run": a bot's reply commands as the words they are."""
    return word_table.rewritten(text, _REPLIES)


def bang_command(text: str) -> str | None:
    """ "!port 30001" read as the command ("port 30001"), for asking back: a chat's "!" before a word may
    also say "not" ("!gpu3"), so a yes must take the reading, never the words. None when there is none."""
    return _BANG.sub("", text) if _BANG.search(text) else None
