"""What a Python snippet (`python -c`, a here-doc fed to python) does to files, processes and the
shell, read from its syntax tree. Code that builds code at run time is opaque."""

from __future__ import annotations

import ast
import shlex
from dataclasses import dataclass, field

from agent.policy.facts import DYN

_OPAQUE_CALLS = {"exec", "eval", "compile", "__import__", "execfile", "breakpoint"}
_OPAQUE_ATTRS = {
    "os.execv",
    "os.execve",
    "os.execl",
    "os.execle",
    "os.execlp",
    "os.execvp",
    "os.execvpe",
    "os.spawnl",
    "os.spawnle",
    "os.spawnlp",
    "os.spawnlpe",
    "os.spawnv",
    "os.spawnve",
    "os.spawnvp",
    "os.spawnvpe",
    "os.forkpty",
    "asyncio.create_subprocess_exec",
    "asyncio.create_subprocess_shell",
    "asyncio.subprocess.create_subprocess_exec",
    "asyncio.subprocess.create_subprocess_shell",
    "os.posix_spawn",
    "os.posix_spawnp",
    "pty.spawn",
    "importlib.import_module",
    "runpy.run_path",
    "runpy.run_module",
    "ctypes.CDLL",
    "ctypes.cdll",
    "ctypes.CDLL.reboot",
    "os.fork",
}
_OPAQUE_MODULES = {
    "ctypes",
    "cffi",
    "importlib",
    "runpy",
    "pty",
    "code",
    "marshal",
    "pickle",
    # D-Bus and systemd clients: logind and systemd reboot the host on request
    "dbus",
    "pydbus",
    "jeepney",
    "dbus_next",
    "sdbus",
    "systemd",
    "gi",
}
# sockets through which a program can reboot the host or stop a VM or container without a command
CONTROL_SOCKETS = (
    "/run/systemd/",
    "/run/dbus/",
    "/var/run/dbus/",
    "/run/libvirt/",
    "/var/run/libvirt/",
    "/run/qemu-server/",
    "/var/run/qemu-server/",
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd/",
    "/run/podman/",
    "/run/user/",
)
# run-time lookups that reach any function by name
_REFLECTION = {"getattr", "vars", "globals", "locals", "__builtins__", "builtins.getattr"}
_SHELL_CALLS = {"os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput"}
_PROC_CALLS = {
    "subprocess.run",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.Popen",
}
_DELETE_CALLS = {"os.remove", "os.unlink", "os.rmdir", "os.removedirs", "shutil.rmtree"}
_COPY_CALLS = {
    "shutil.copy",
    "shutil.copy2",
    "shutil.copyfile",
    "shutil.copytree",
    "shutil.move",
    "os.rename",
    "os.replace",
}


_DANGEROUS = (
    _SHELL_CALLS
    | _PROC_CALLS
    | _OPAQUE_ATTRS
    | _DELETE_CALLS
    | _COPY_CALLS
    | {"os.kill", "os.killpg", "exec", "eval", "compile", "__import__", "open", "os.open", "io.open"}
)
_DANGEROUS_SHORT = {n.rsplit(".", 1)[-1] for n in _DANGEROUS} | {"system", "popen", "fork", "run"}


_ENVIRON = ("os.environ", "os.environb")
_DUMPERS = {"print", "str", "repr", "dict", "list", "sorted", "json.dumps", "json.dump", "pprint.pprint", "pprint.pp"}


def _dumps_environment(call: ast.Call, name: str, aliases: dict[str, str]) -> bool:
    """`print(os.environ)`, `os.environ.items()`, `json.dumps(dict(os.environ))`: every variable
    at once (`os.environ.get("X")`, `os.environ["X"]` and `.copy()` for a child are fine)."""
    if name in {f"{e}.{m}" for e in _ENVIRON for m in ("items", "keys", "values", "__repr__", "__str__")}:
        return True
    if name not in _DUMPERS:
        return False
    return any(isinstance(a, ast.Name | ast.Attribute) and _resolve(_dotted(a), aliases) in _ENVIRON for a in call.args)


def _resolve(dotted: str, aliases: dict[str, str]) -> str:
    head, _, rest = dotted.partition(".")
    if head in aliases:
        return aliases[head] + ("." + rest if rest else "")
    return dotted


@dataclass
class PyEffects:
    writes: list[tuple[str, str | None]] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    opaque: str | None = None
    dumps_environment: bool = False  # prints every variable at once, as `env` would


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
    if isinstance(node, ast.JoinedStr | ast.BinOp):
        return DYN
    return DYN


def _path_of_receiver(node: ast.expr) -> str:
    """`Path("/x")`, `pathlib.Path("/x")`, `open`-like receivers."""
    if isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] in ("Path", "PosixPath"):
        return _const(node.args[0]) if node.args else "."
    return DYN


def analyse(code: str) -> PyEffects:
    out = PyEffects()
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError) as exc:
        out.opaque = f"python code the gate cannot parse ({exc.__class__.__name__})"
        return out
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name] = a.name
                if a.name.split(".")[0] in _OPAQUE_MODULES:
                    out.opaque = f"python imports {a.name}, which can run arbitrary code"
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if mod.split(".")[0] in _OPAQUE_MODULES:
                out.opaque = f"python imports from {mod}, which can run arbitrary code"
            for a in node.names:
                aliases[a.asname or a.name] = f"{mod}.{a.name}"
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.Attribute) and id(node) not in called:
            # `f = os.system; f("reboot")`, `map(os.kill, ...)`: a dangerous function passed around
            ref = _resolve(_dotted(node), aliases)
            if ref in _DANGEROUS or ref in _REFLECTION or ref.endswith((".__dict__", ".__builtins__")):
                out.opaque = f"python refers to {ref} without calling it where it stands; the gate cannot follow it"
        if isinstance(node, ast.Attribute) and node.attr in ("__dict__", "__builtins__", "__globals__"):
            out.opaque = f"python reaches functions through {node.attr}; the gate cannot follow it"
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _resolve(_dotted(node.func), aliases)
        short = name.split(".")[-1]
        args = node.args
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if name in _OPAQUE_CALLS or name in _OPAQUE_ATTRS or name.startswith("ctypes."):
            out.opaque = f"python calls {name}, which runs code the gate cannot see"
        elif name in _REFLECTION:
            target = args[1] if name.endswith("getattr") and len(args) > 1 else None
            attr = _const(target) if target is not None else DYN
            if DYN in attr or attr in _DANGEROUS_SHORT:
                out.opaque = f"python looks up {attr if DYN not in attr else 'a name'} at run time with {name}"
        elif name in _SHELL_CALLS:
            text = _const(args[0]) if args else DYN
            if DYN in text:
                out.opaque = f"python {name} of a command built at run time"
            else:
                out.commands.append(text)
        elif name in _PROC_CALLS or name.startswith("os.exec"):
            target = args[0] if args else kw.get("args")
            if isinstance(target, ast.List | ast.Tuple):
                words = [_const(e) for e in target.elts]
                if any(DYN in w for w in words):
                    out.opaque = f"python {name} with arguments built at run time"
                else:
                    out.commands.append(shlex.join(words))
            else:
                text = _const(target)
                if DYN in text:
                    out.opaque = f"python {name} of a command built at run time"
                else:
                    out.commands.append(text)
        elif name in ("open", "io.open", "os.open", "builtins.open"):
            path = _const(args[0]) if args else _const(kw.get("file"))
            mode_node = args[1] if len(args) > 1 else kw.get("mode") or kw.get("flags")
            mode = _const(mode_node) if mode_node is not None else "r"
            if name == "os.open":
                mode = (
                    "w"
                    if (mode_node is not None and "O_WRONLY" in ast.dump(mode_node))
                    or "O_RDWR" in ast.dump(mode_node or ast.Constant(0))
                    else "r"
                )
            if DYN in mode or any(c in mode for c in "wax+"):
                out.writes.append((path, None))
            else:
                out.reads.append(path)
        elif name in _DELETE_CALLS:
            out.deletes.append(_const(args[0]) if args else DYN)
        elif name in _COPY_CALLS:
            if len(args) >= 2:
                out.reads.append(_const(args[0]))
                out.writes.append((_const(args[1]), None))
                if short in ("move", "rename", "replace"):
                    out.deletes.append(_const(args[0]))
            else:
                out.writes.append((DYN, None))
        elif short in ("connect", "connect_ex", "sendto") and any(
            _const(a).startswith(CONTROL_SOCKETS) for a in args if isinstance(a, ast.Constant)
        ):
            out.opaque = "python talks to a control socket (systemd, D-Bus, libvirt, QEMU, Docker) directly"
        elif _dumps_environment(node, name, aliases):
            out.dumps_environment = True
        elif name in ("os.kill", "os.killpg"):
            pid = _const(args[0]) if args else DYN
            out.signals.append(pid if name == "os.kill" else DYN)
        elif isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            recv = node.func.value
            if attr in ("write_text", "write_bytes", "touch", "mkdir", "chmod", "symlink_to", "hardlink_to"):
                content = _const(args[0]) if args and attr.startswith("write") else None
                out.writes.append((_path_of_receiver(recv), None if content is None or DYN in content else content))
            elif attr in ("unlink", "rmdir"):
                out.deletes.append(_path_of_receiver(recv))
            elif attr in ("rename", "replace") and _path_of_receiver(recv) != DYN:
                out.deletes.append(_path_of_receiver(recv))
                out.writes.append((_const(args[0]) if args else DYN, None))
            elif attr in ("read_text", "read_bytes"):
                out.reads.append(_path_of_receiver(recv))
            elif attr == "write" and isinstance(recv, ast.Call) and _dotted(recv.func) in ("open", "io.open"):
                # open(p, "w").write("b"): the content is known
                p = _const(recv.args[0]) if recv.args else DYN
                content = _const(args[0]) if args else DYN
                out.writes = [w for w in out.writes if w[0] != p]
                out.writes.append((p, None if DYN in content else content))
    # open(...).write(...) is visited after open(); keep the write with content
    seen: dict[str, str | None] = {}
    for p, c in out.writes:
        if p not in seen or seen[p] is None:
            seen[p] = c
    out.writes = list(seen.items())
    return out
