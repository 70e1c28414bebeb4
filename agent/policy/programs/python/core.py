"""The Python analyser's state and values: what a name, a string, a path expression holds,
and where the effects found are recorded (`PyEffects`)."""

from __future__ import annotations

import ast
import importlib
import posixpath
from dataclasses import dataclass, field
from functools import cached_property

from agent.policy.facts import DYN
from agent.policy.programs.python.tables import (
    _CANON,
    _MODULE_ATTRS,
    _NAMED,
    _OPAQUE_MODULES,
    _PATH_CLASSES,
    _READ_ONLY_FLAGS,
    _WRITE_BITS,
)

_star_cache: dict[str, list[str]] = {}


def _star_names(module: str) -> list[str]:
    """The names `from module import *` binds (a fixed set of standard modules, imported here)."""
    if module not in _star_cache:
        mod = importlib.import_module("os" if module in ("posix", "nt") else module)
        names = getattr(mod, "__all__", None)
        if module in ("posix", "nt"):
            names = [n for n in dir(mod) if not n.startswith("_")]
        _star_cache[module] = list(names if names is not None else [n for n in dir(mod) if not n.startswith("_")])
    return _star_cache[module]


def _opaque_module(dotted: str) -> bool:
    """`ctypes`, `ctypes.util`, `torch.utils.cpp_extension`: the module or a package above it."""
    parts = dotted.split(".")
    return any(".".join(parts[:i]) in _OPAQUE_MODULES for i in range(1, len(parts) + 1))


def _resolve(dotted: str, aliases: dict[str, str]) -> str:
    head, _, rest = dotted.partition(".")
    if head in aliases:
        dotted = aliases[head] + ("." + rest if rest else "")
    head, _, rest = dotted.partition(".")
    if head == "builtins" and rest:
        return rest
    if head in _CANON:
        return _CANON[head] + ("." + rest if rest else "")
    return dotted


def _reroot(name: str, depth: int = 0) -> str:
    """`shutil.os.system` is `os.system`; `socket.socket` and `signal.signal` stay as they are."""
    parts = name.split(".")
    for i in range(1, len(parts)):
        target = _MODULE_ATTRS.get(parts[i])
        if target is None or depth >= 20:
            continue
        if ".".join(parts[:i]) != target or parts[i] != target.rsplit(".", 1)[-1]:
            return _reroot(_resolve(".".join([target, *parts[i + 1 :]]), {}), depth + 1)
    return name


@dataclass
class PyEffects:
    writes: list[tuple[str, str | None]] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    opaque: str | None = None
    dumps_environment: bool = False  # prints every variable at once, as `env` would
    env_reads: list[str] = field(default_factory=list)  # variables read by name (DYN: a name known at run time)
    unpacked: list[str] = field(default_factory=list)  # directories archives are unpacked into
    unsure: str | None = None  # what the gate cannot establish (a module outside the known-safe subset)


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return _dotted(node.func) + "()"
    return "?"


def _const(node: ast.expr | None) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int):
        return str(node.value)
    return DYN


def _deferred_nodes(nodes: list[ast.AST]) -> set[int]:
    """Nodes inside a function, lambda or class body: they run when called, not where they stand."""
    out: set[int] = set()
    for node in nodes:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            for child in ast.walk(node):
                if child is not node:
                    out.add(id(child))
    return out


def _bindings(nodes: list[ast.AST]) -> dict[str, int]:
    """How many times each name is bound anywhere in the code."""
    count: dict[str, int] = {}

    def bump(name: str) -> None:
        count[name] = count.get(name, 0) + 1

    for node in nodes:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bump(node.id)
        elif isinstance(node, ast.arg):
            bump(node.arg)
        elif isinstance(node, ast.alias):
            bump((node.asname or node.name).split(".")[0])
        elif isinstance(node, _NAMED):
            bump(node.name or "")
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bump(node.rest)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            for n in node.names:
                count[n] = 99
    return count


def _int_value(node: ast.expr | None) -> int | None:
    """An integer worked out from literals alone (`2 + 3`, `-1`), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_value(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.FloorDiv | ast.Mod):
        a, b = _int_value(node.left), _int_value(node.right)
        if a is None or b is None or (isinstance(node.op, ast.FloorDiv | ast.Mod) and b == 0):
            return None
        ops = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}
        if isinstance(node.op, ast.FloorDiv):
            return a // b
        if isinstance(node.op, ast.Mod):
            return a % b
        return ops[type(node.op)] if abs(a) < 1 << 20 and abs(b) < 1 << 20 else None
    return None


def _arg(call: ast.Call, index: int, key: str) -> ast.expr | None:
    """The operand at `index`, or given as `key=`."""
    if len(call.args) > index:
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == key), None)


def _normal(p: str) -> str:
    """`//run/x/../y.sock` is `/run/y.sock` (POSIX keeps a leading `//`; Linux does not)."""
    if p.startswith("/"):
        return posixpath.normpath("/" + p.lstrip("/"))
    return p


def _looks_like_path(p: str) -> bool:
    if not p or any(c.isspace() for c in p) or "://" in p or len(p) > 4096:
        return False
    return p.startswith(("/", "~", "./", "../")) or "/" in p


class _Core:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.nodes = list(ast.walk(tree))  # every pass below reads these: one walk, not one per pass
        self.out = PyEffects()
        self.aliases: dict[str, str] = {}
        self.consts: dict[str, ast.expr] = {}  # names bound once, to the expression they hold
        self.chdir: tuple[int, str] | None = None  # (statement index, directory) of the one known chdir
        self.cwd_unknown = False
        self.psutil = False
        self.env_set: list[tuple[str, str]] | None = []  # what the code sets in os.environ
        self.pathlib = False
        self.clients: dict[str, str] = {}  # names bound to HTTP clients -> their base URL ("" none)
        self.unix_sockets = False  # the code may make Unix sockets (AF_UNIX, a family not known)

    # only read once the code is known to change directory: most code never does
    @cached_property
    def deferred(self) -> set[int]:
        return _deferred_nodes(self.nodes)

    @cached_property
    def top(self) -> dict[int, int]:
        """node -> index of the top-level statement holding it"""
        found: dict[int, int] = {}
        for i, stmt in enumerate(self.tree.body):
            for n in ast.walk(stmt):
                found[id(n)] = i
        return found

    def string(self, node: ast.expr | None, depth: int = 0) -> str:
        """The text an expression evaluates to, where it is built from literals only; DYN otherwise."""
        if node is None or depth > 20:
            return DYN
        if isinstance(node, ast.Constant):
            return str(node.value) if isinstance(node.value, str | int) and not isinstance(node.value, bool) else DYN
        if isinstance(node, ast.Name) and node.id in self.consts:
            return self.string(self.consts[node.id], depth + 1)
        if isinstance(node, ast.JoinedStr):
            parts = [self.string(v, depth + 1) for v in node.values]
            return DYN if any(DYN in p for p in parts) else "".join(parts)
        if isinstance(node, ast.FormattedValue):
            return DYN if node.conversion != -1 or node.format_spec else self.string(node.value, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = self.string(node.left, depth + 1), self.string(node.right, depth + 1)
            return DYN if DYN in a or DYN in b else a + b
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and self.is_path(node.left):
            a, b = self.string(node.left, depth + 1), self.string(node.right, depth + 1)
            return DYN if DYN in a or DYN in b else posixpath.join(a, b)
        if isinstance(node, ast.Call):
            name = self.name(node.func)
            args = [self.string(a, depth + 1) for a in node.args]
            if node.keywords or any(DYN in a for a in args):
                return DYN
            if name in ("os.path.join", "os.path.normpath", "os.fspath", "str") and args:
                return posixpath.join(*args)
            if name == "os.path.expanduser" and len(args) == 1:
                return args[0]  # `~` is expanded as the shell does
            if self.path_constructor(node):
                return posixpath.join(*args) if args else "."
        return DYN

    def is_path(self, node: ast.expr, depth: int = 0) -> bool:
        """`Path("/x")`, `pathlib.Path("/x") / "y"`, `Path.home().joinpath(...)`, `.parent`, or a name
        bound once to one (its value may still be unknown)."""
        if depth > 20:
            return False
        if isinstance(node, ast.Name) and node.id in self.consts:
            return self.is_path(self.consts[node.id], depth + 1)
        if isinstance(node, ast.Call):
            if self.path_constructor(node):
                return True
            name = self.name(node.func)
            if name.startswith(("pathlib.Path.", "pathlib.PosixPath.")):
                return True  # Path.home(), Path.cwd()
            return isinstance(node.func, ast.Attribute) and self.is_path(node.func.value, depth + 1)
        if isinstance(node, ast.Attribute):
            return self.is_path(node.value, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return self.is_path(node.left, depth + 1)
        return False

    def path_constructor(self, node: ast.Call) -> bool:
        name = self.name(node.func)
        return name in _PATH_CLASSES or (name in ("Path", "PosixPath") and name not in self.aliases)

    def name(self, node: ast.expr) -> str:
        dotted = _dotted(node)
        resolved = _resolve(dotted, self.aliases)
        if dotted.partition(".")[0] not in self.aliases:
            return resolved
        # a module reached as an attribute of another (`shutil.os.system`, `os.path.os`): that module
        return _reroot(resolved)

    def path(self, node: ast.expr | None) -> str:
        return self.at(node, self.string(node)) if node is not None else DYN

    def at(self, node: ast.AST, p: str) -> str:
        """`p` as the code sees it where `node` stands: relative to a directory it changed to."""
        paths = self.at_all(node, p)
        return paths[0]

    def at_all(self, node: ast.AST, p: str) -> list[str]:
        if DYN in p or p.startswith("/"):
            return [p]
        if self.cwd_unknown:
            return [DYN]
        if self.chdir is None:
            return [p]
        index, directory = self.chdir
        joined = posixpath.join(directory, p)
        stmt = self.top.get(id(node))
        if stmt is None or id(node) in self.deferred or stmt == index:
            return [p, joined]  # runs before or after the chdir
        return [p] if stmt < index else [joined]

    def read(self, node: ast.AST, p: str) -> None:
        self.out.reads.extend(self.at_all(node, p))

    def write(self, node: ast.AST, p: str, content: str | None = None) -> None:
        self.out.writes.extend((q, content) for q in self.at_all(node, p))

    def delete(self, node: ast.AST, p: str) -> None:
        self.out.deletes.extend(self.at_all(node, p))

    def opaque(self, why: str) -> None:
        self.out.opaque = why

    def words(self, node: ast.expr | None) -> list[str] | None:
        """A literal list of words, or None."""
        if isinstance(node, ast.Name) and node.id in self.consts:
            return self.words(self.consts[node.id])
        if isinstance(node, ast.List | ast.Tuple):
            ws = [self.string(e) for e in node.elts]
            if any(DYN in w for w in ws) or any(isinstance(e, ast.Starred) for e in node.elts):
                self.opaque("python runs a command with arguments built at run time")
                return None
            return ws
        return None

    def strings(self, node: ast.expr) -> list[str]:
        if isinstance(node, ast.List | ast.Tuple):
            return [self.string(e) for e in node.elts]
        return [self.string(node)]

    def write_only_flags(self, node: ast.expr) -> bool:
        """Flags that hold O_WRONLY (and not O_RDWR): the file is not read."""
        names: list[str] = []
        bits = 0
        for n in ast.walk(node):
            if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool):
                bits |= n.value
            elif isinstance(n, ast.Name | ast.Attribute):
                names.append(self.name(n).rsplit(".", 1)[-1])
        if not isinstance(node, ast.Constant | ast.Name | ast.Attribute | ast.BinOp):
            return False
        return ("O_WRONLY" in names or bits & 3 == 1) and "O_RDWR" not in names and not bits & 2

    def read_only_flags(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, int) and not isinstance(node.value, bool) and not node.value & _WRITE_BITS
        if isinstance(node, ast.Name | ast.Attribute):
            ref = self.name(node)
            return ref.startswith("os.") and ref.split(".", 1)[1] in _READ_ONLY_FLAGS
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.read_only_flags(node.left) and self.read_only_flags(node.right)
        return False
