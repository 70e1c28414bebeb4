"""What the analyser finds a command does, and the state it walks with: an `Invocation` per
program run, the paths it reads, writes and deletes, the signals it sends; a scope, a stdin, redirects."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.policy.facts import DYN, GLOB, visible

MAX_CWDS = 4  # directories a run of `cd`s may have left the command in, before it counts as unknown


@dataclass(frozen=True, slots=True)
class PathRef:
    raw: str
    aliases: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WriteEffect:
    path: PathRef
    content: str | None = None  # None: not known before it runs


@dataclass(frozen=True, slots=True)
class SignalEffect:
    target: str  # own, init, all, foreign, pattern, port, unknown
    detail: str


@dataclass(slots=True)
class Invocation:
    program: str
    path: str
    args: list[str]
    text: str
    env: dict[str, str] = field(default_factory=dict)
    writes: list[WriteEffect] = field(default_factory=list)
    deletes: list[PathRef] = field(default_factory=list)
    reads: list[PathRef] = field(default_factory=list)
    signals: list[SignalEffect] = field(default_factory=list)
    gpus: frozenset[str] | None = None  # "3", "pci:0000:41:00.0", "all"
    via: tuple[str, ...] = ()
    opaque: str | None = None
    # what the gate cannot establish it does (an SDK call, a container's workload): never allowed,
    # asked (`cannot-establish`) unless a rule denies it
    unsure: str | None = None
    wrapper: bool = False
    tool: str = "run_command"
    cwd: str | None = None  # where it runs: relative path arguments are judged from here
    prints: tuple[str, ...] = ()  # variables it prints into the transcript by name ("*": every one)

    def describe(self) -> str:
        words = " ".join([self.path or self.program, *self.args])
        if DYN in words or GLOB in words:
            words = visible(words)
        return words if not self.via else f"{words}  (via {' > '.join(self.via)})"


@dataclass(slots=True)
class Stdin:
    """What feeds a command's standard input."""

    kind: str  # literal, file, opaque, none
    text: str = ""  # literal content, file path, or what produced it

    @staticmethod
    def none() -> Stdin:
        return Stdin("none")


@dataclass(slots=True)
class Scope:
    vars: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    functions: set[str] = field(default_factory=set)
    dirs: list[str | None] = field(default_factory=list)  # pushd's stack, beneath cwd
    # where the command may also be: a `cd` can fail (a missing directory, a file, no permission)
    # and bash then stays where it was, so every directory it might have left counts too
    also: tuple[str | None, ...] = ()

    def copy(self) -> Scope:
        return Scope(dict(self.vars), dict(self.env), self.cwd, set(self.functions), list(self.dirs), self.also)


@dataclass(slots=True)
class Redirs:
    writes: list[WriteEffect] = field(default_factory=list)
    reads: list[PathRef] = field(default_factory=list)


STDIN_PATHS = frozenset(("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"))


DEVNULL = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"}


@dataclass(slots=True)
class Ctx:
    """Where one statement runs: wrappers around it, redirects on it, what feeds its stdin."""

    via: tuple[str, ...] = ()
    redirs: Redirs = field(default_factory=Redirs)
    stdin: Stdin = field(default_factory=Stdin.none)


@dataclass(frozen=True, slots=True)
class Hook:
    """What runs: shell `code`, or an `argv` run without a shell; `how` says what hid it.
    `opaque`: it runs something the gate cannot see (a file, a script language)."""

    how: str
    code: str = ""
    argv: tuple[str, ...] = ()
    opaque: str | None = None
