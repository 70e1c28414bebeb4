"""tmux and screen: the commands they start, send or run in a window."""

from __future__ import annotations

import re

from agent.policy.invocation import Hook

_TMUX_RUNS = frozenset(
    (
        "new",
        "new-session",
        "neww",
        "new-window",
        "splitw",
        "split-window",
        "respawn-pane",
        "respawnp",
        "respawn-window",
        "respawnw",
        "run-shell",
        "run",
        "display-popup",
        "popup",
        "if-shell",
        "if",
        "pipe-pane",
        "pipep",
    )
)


_TMUX_SENDS = frozenset(("send-keys", "send"))


_TMUX_VALUE_OPTS = frozenset(
    ["-c", "-e", "-F", "-n", "-s", "-t", "-x", "-y", "-f", "-l", "-b", "-w", "-h", "-T", "-S", "-X", "-Y", "-E", "-N"]
)


_TMUX_SEND_VALUE_OPTS = frozenset(("-t", "-N"))


_TMUX_KEYS = {"Enter": "\n", "C-m": "\n", "KPEnter": "\n", "C-j": "\n", "Space": " ", "Tab": "\t"}


_TMUX_CONTROL_KEY = re.compile(r"^([CMS]-.+|Escape|BSpace|Up|Down|Left|Right|Home|End|PPage|NPage|F\d+)$")


def tmux_hooks(name: str, args: list[str]) -> list[Hook]:
    """tmux commands (split on `;`) that start a shell command or type keys into a pane."""
    found: list[Hook] = []
    i = 0
    while i < len(args) and args[i].startswith("-"):  # tmux's own options
        i += 2 if args[i] in ("-L", "-S", "-f", "-T", "-c") else 1
    commands: list[list[str]] = [[]]
    for a in args[i:]:
        if a in (";", "\\;"):
            commands.append([])
        else:
            commands[-1].append(a)
    for words in commands:
        if not words or (words[0] not in _TMUX_RUNS and words[0] not in _TMUX_SENDS):
            continue
        verb = words[0]
        value_opts = _TMUX_SEND_VALUE_OPTS if verb in _TMUX_SENDS else _TMUX_VALUE_OPTS
        operands: list[str] = []
        k = 1
        while k < len(words):
            w = words[k]
            if not operands and w.startswith("-") and len(w) > 1:
                k += 2 if w in value_opts else 1
                continue
            operands.append(w)
            k += 1
        if not operands:
            continue
        if verb in _TMUX_SENDS:
            typed = "".join(_TMUX_KEYS.get(w, "" if _TMUX_CONTROL_KEY.match(w) else w) for w in operands)
            found.append(Hook("tmux send-keys", code=typed))
        elif verb in ("if-shell", "if"):
            found.append(Hook("tmux if-shell", code=operands[0]))
        else:
            found.append(Hook(f"tmux {verb}", code=" ".join(operands)))
    return found


_SCREEN_VALUE_OPTS = frozenset(["-S", "-c", "-e", "-h", "-p", "-s", "-t", "-T", "-Logfile", "-r", "-x", "-R", "-D"])


def screen_hooks(name: str, args: list[str]) -> list[Hook]:
    """`screen -dm CMD...` runs CMD; `screen -X stuff TEXT` types TEXT into a running shell."""
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-X":
            rest = args[i + 1 :]
            if rest and rest[0] == "stuff" and len(rest) > 1:
                text = rest[1].replace("\\n", "\n").replace("\\r", "\n").replace("^M", "\n")
                return [Hook("screen -X stuff", code=text)]
            if rest and rest[0] in ("exec", "screen"):
                return [Hook(f"screen -X {rest[0]}", argv=tuple(w for w in rest[1:] if not w.startswith("-")))]
            return []
        if a in _SCREEN_VALUE_OPTS:
            i += 2
            continue
        if a.startswith("-"):
            i += 1
            continue
        return [Hook("screen", argv=tuple(args[i:]))]
    return []
