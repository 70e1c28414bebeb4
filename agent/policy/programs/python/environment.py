"""What Python code reads from and sets in the environment (os.environ, getenv, putenv), and the
commands it runs with it (subprocess, os.system, os.exec*, pty, links made by os.symlink)."""

from __future__ import annotations

import ast
import shlex

from agent.policy.facts import DYN
from agent.policy.programs.python.core import _arg, _Core
from agent.policy.programs.python.tables import _COPIERS, _DUMPERS, _ENVIRON, _IMPORT_PATHS, _PRINTING_CALLS


class _Environment(_Core):
    def command(self, node: ast.Call, text: str, cwd: ast.expr | None = None, env: ast.expr | None = None) -> None:
        """A shell command the code runs, in the directory and with the environment it runs it in."""
        own = self.env_of(env) if env is not None else []
        if self.env_set is None or own is None:
            self.opaque("python changes the environment of a command it runs in ways the gate cannot follow")
            return
        exports = "".join(f"export {k}={shlex.quote(v)}; " for k, v in [*self.env_set, *own] if k.isidentifier())
        text = exports + text if exports else text
        if cwd is not None:
            where = self.string(cwd)
            if DYN in where:
                self.opaque(f"python runs a command in a directory only known at run time ({text[:60]})")
                return
            dirs = self.at_all(node, where)
        elif self.cwd_unknown:
            self.opaque("python changes its directory to one the gate cannot follow, then runs a command")
            return
        elif self.chdir is not None:
            dirs = [d for d in self.at_all(node, ".")]
        else:
            dirs = ["."]
        for d in dirs:
            if DYN in d:
                self.opaque("python runs a command in a directory only known at run time")
            elif d == ".":
                self.out.commands.append(text)
            else:
                self.out.commands.append(f"cd {shlex.quote(d)} && {text}")

    def env_changes(self, holder: ast.expr) -> list[tuple[str, str]] | None:
        """The variables code sets on `holder` (`os.environ`, or a name bound once to a copy of it),
        where all are literal; None where any is not."""

        def same(node: ast.expr) -> bool:
            if isinstance(holder, ast.Name) and holder.id not in self.aliases:
                return isinstance(node, ast.Name) and node.id == holder.id
            if isinstance(node, ast.Name) and node.id in self.consts:  # `e = os.environ`
                node = self.consts[node.id]
            return isinstance(node, ast.Name | ast.Attribute) and self.name(node) in _ENVIRON

        found: list[tuple[str, str]] = []
        ok = True
        local = isinstance(holder, ast.Name)
        for node in self.nodes:
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Subscript) and same(t.value):
                        k = self.string(t.slice)
                        v = self.string(node.value) if isinstance(node, ast.Assign) else DYN
                        ok = ok and DYN not in k + v
                        found.append((k, v))
                    elif isinstance(node, ast.AugAssign) and same(t):
                        items = self.dict_items(node.value)
                        ok = ok and items is not None
                        found.extend(items or [])
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and same(node.func.value):
                if node.func.attr == "update":
                    for a in node.args:
                        items = self.dict_items(a)
                        ok = ok and items is not None
                        found.extend(items or [])
                    for kwd in node.keywords:
                        ok = ok and kwd.arg is not None
                        found.append((kwd.arg or "", self.string(kwd.value)))
                elif node.func.attr == "setdefault":
                    k, v = self.string(_arg(node, 0, "key")), self.string(_arg(node, 1, "default"))
                    ok = ok and DYN not in k + v
                    found.append((k, v))
            elif isinstance(node, ast.Call) and self.name(node.func) == "os.putenv" and not local:
                k, v = self.string(_arg(node, 0, "key")), self.string(_arg(node, 1, "value"))
                ok = ok and DYN not in k + v
                found.append((k, v))
        ok = ok and all(DYN not in k + v for k, v in found)
        return found if ok else None

    def dict_items(self, node: ast.expr) -> list[tuple[str, str]] | None:
        """`{"K": "V", **os.environ}`: its literal items, or None."""
        if isinstance(node, ast.Name) and node.id in self.consts:
            return self.dict_items(self.consts[node.id])
        if isinstance(node, ast.Call) and self.name(node.func) == "dict" and not node.args:
            items = [(k.arg or "", self.string(k.value)) for k in node.keywords]
            return items if all(k.arg for k in node.keywords) and all(DYN not in v for _, v in items) else None
        if not isinstance(node, ast.Dict):
            return None
        out: list[tuple[str, str]] = []
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                if not self.environ(v):
                    return None
                continue
            key, value = self.string(k), self.string(v)
            if DYN in key + value:
                return None
            out.append((key, value))
        return out

    def env_of(self, node: ast.expr) -> list[tuple[str, str]] | None:
        """The variables `env=` gives a command beyond the gate's own (literal, or None)."""
        if isinstance(node, ast.Constant) and node.value is None:
            return []
        if isinstance(node, ast.Name) and node.id in self.consts:
            value = self.consts[node.id]
            base = [] if self.environ(value) else self.dict_items(value)
            more = self.env_changes(node)
            return None if base is None or more is None else base + more
        if self.environ(node):
            return []
        return self.dict_items(node)

    def environ_itself(self, node: ast.expr) -> bool:
        """`os.environ` (or a name bound to it), not a copy of it."""
        if isinstance(node, ast.Name) and node.id in self.consts and node.id not in self.aliases:
            return self.environ_itself(self.consts[node.id])
        return isinstance(node, ast.Name | ast.Attribute) and self.name(node) in _ENVIRON

    def import_path(self, node: ast.expr) -> bool:
        """An assignment target that is where imports look (`sys.path`, `sys.path[0]`, `path` from sys)."""
        while isinstance(node, ast.Subscript | ast.Starred):
            node = node.value
        return isinstance(node, ast.Name | ast.Attribute) and self.name(node) in _IMPORT_PATHS

    def environ(self, node: ast.expr) -> bool:
        """An expression that holds every variable: `os.environ`, `os.environ.copy()`, `{**os.environ}`."""
        if isinstance(node, ast.Name | ast.Attribute):
            if self.name(node) in _ENVIRON:
                return True
            return isinstance(node, ast.Name) and node.id in self.consts and self.environ(self.consts[node.id])
        if isinstance(node, ast.Call):
            name = self.name(node.func)
            if name in {f"{e}.copy" for e in _ENVIRON}:
                return True
            if name in _COPIERS:
                return any(self.environ(a) for a in node.args)
            return False
        if isinstance(node, ast.Dict):
            return any(k is None and self.environ(v) for k, v in zip(node.keys, node.values, strict=True))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.environ(node.left) or self.environ(node.right)
        if isinstance(node, ast.Starred):
            return self.environ(node.value)
        return False

    def dumps_environment(self, call: ast.Call, name: str) -> bool:
        """`print(os.environ)`, `os.environ.items()`, `json.dumps(dict(os.environ))`: every variable
        at once (`os.environ.get("X")`, `os.environ["X"]` and `.copy()` for a child are fine)."""
        if name in {f"{e}.{m}" for e in _ENVIRON for m in ("items", "keys", "values", "__repr__", "__str__")}:
            return True
        prints = name in _DUMPERS or name.endswith(".format") or name in _PRINTING_CALLS
        if not prints:
            return False
        return any(self.environ(a) for a in call.args) or any(self.environ(k.value) for k in call.keywords)

    def link(self, node: ast.AST, src: ast.expr | None, dst: ast.expr | None, symbolic: bool) -> None:
        """`os.symlink(src, dst)` is `ln -s src dst`: judged by the rules on links."""
        s, d = self.string(src), self.string(dst)
        if DYN in s or DYN in d:
            self.write(node, d if DYN not in d else DYN)
            return
        assert isinstance(node, ast.Call)
        self.command(node, shlex.join(["ln", *(["-s"] if symbolic else []), "--", s, d]))
