"""Variables and flags that send a program's data elsewhere: a URL it talks to (`HF_ENDPOINT`,
`*_PROXY`, `--otlp-traces-endpoint`), a file or folder it writes (`NCCL_DEBUG_FILE`,
`--debug-tensor-dump-output-folder`), a file it reads (`--chat-template F`).

Modelled by class, from the name and the value, not from a list of names: an upper-case variable
or a long flag whose value is a URL is a request to that host (judged as `curl URL`); one whose
value is a path is a file read or, when its name says it is an output (`_FILE`, `_DIR`, `DUMP`,
`LOG`, `folder`, ...), a file written.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from agent.policy.facts import DYN, GLOB
from agent.policy.invocation import Ctx, Invocation, Scope, WriteEffect

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis

# a name that says the value is somewhere it writes (or a file it reads and may write)
_OUTPUT_NAME = re.compile(r"(?i)(file|dir|folder|output|dump|log|trace|profil|crash|result|target|prefix|cache|save)")
# variables the gate judges elsewhere, or that only say where code and libraries come from
_NOT_DESTINATIONS = frozenset(
    ("PATH", "PYTHONPATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "CUDA_HOME", "CUDA_PATH", "MANPATH", "CPATH",
     "LIBRARY_PATH", "PKG_CONFIG_PATH", "HOME", "PWD", "OLDPWD", "SHELL", "TMPDIR", "VIRTUAL_ENV", "CONDA_PREFIX",
     "NO_PROXY", "no_proxy", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES")
)  # fmt: skip
# a shared library by its name, or a variable named as one the process loads (NCCL_NET_PLUGIN,
# CUDA_INJECTION64_PATH)
_LIBRARY = re.compile(r"\.so(\.[0-9.]+)?($|[:,])")
_LOADER_NAME = re.compile(r"(?i)(plugin|inject|preload|audit)")
# a name for an address to connect to (not `--host`, which SGLang binds), and such an address
_HOST_NAME = re.compile(r"(?i)(addr|address|endpoint|master|server|peer|remote|upstream)")
_HOST = re.compile(
    r"^((\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]|[a-zA-Z0-9][\w-]*(\.[\w-]+)+)(:\d+)?|[a-zA-Z][\w-]*:\d+)$"
)
_LOCAL_HOST = re.compile(r"^(127\.\d+\.\d+\.\d+|0\.0\.0\.0|localhost|\[::1?\])(:\d+)?$")
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_LOOPBACK = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*://)?(?:[^@/]*@)?(127\.0\.0\.1|localhost|\[::1\])(?::\d*)?(?:/|$)")


def _looks_like_path(value: str) -> bool:
    """A literal path: a value only known at run time (`--model-path $MODEL`) is left to what the
    rest of the command says of it, as the program's other arguments are."""
    if not value or "://" in value or value.startswith("-") or DYN in value:
        return False
    return value.startswith(("/", "~", "./", "../")) or ("/" in value and " " not in value)


def _is_remote(value: str) -> bool:
    return bool(_URL.match(value)) and not _LOOPBACK.match(value)


def _destination(
    an: Analysis, inv: Invocation, name: str, value: str, env: dict[str, str], scope: Scope, ctx: Ctx
) -> None:
    if value.startswith("unix://"):  # a local socket: connecting to it is writing to it
        inv.writes.append(WriteEffect(an._path(value[len("unix://") :])))
        return
    if _URL.match(value) or (DYN in value and re.search(r"(?i)(endpoint|url|proxy|uri)$", name)):
        if _is_remote(value) or DYN in value:
            # judged as the request it makes (a management API or a BMC is denied by the curl
            # rules), and never allowed: the program sends what it likes there
            shown = value.replace(DYN, "$?")
            why = f"{name} sends the program's requests (and what they carry) to {shown}"
            an.invocations.append(
                Invocation("curl", "curl", [value], f"curl {shown}", via=(*ctx.via, name), unsure=why)
            )
        return
    if _HOST_NAME.search(name) and _HOST.match(value) and not _LOCAL_HOST.match(value):
        # another host to connect to (`--dist-init-addr 10.0.0.5:5000`, `"master_address": ...`)
        why = f"{name} connects the program to {value}"
        an.invocations.append(Invocation("curl", "curl", [value], f"curl {value}", via=(*ctx.via, name), unsure=why))
        return
    if not _looks_like_path(value):
        return
    if _LIBRARY.search(value) or _LOADER_NAME.search(name):
        # a plugin, an injection or profiler hook: code the process loads, which the gate does not see
        inv.unsure = f"{name} names a library the program loads ({value.replace(DYN, '$?')})"
    # `%h`, `%p` (NCCL_DEBUG_FILE=/x/%h.%p): a name per host or process, written under its directory
    path = re.sub(r"%[a-zA-Z]", GLOB, value)
    ref = an._path(path)
    inv.reads.append(ref)
    if _OUTPUT_NAME.search(name):
        inv.writes += [WriteEffect(ref), WriteEffect(an._path(path.rstrip("/") + "/" + GLOB))]


def environment_destinations(
    an: Analysis, inv: Invocation, env: dict[str, str], scope: Scope, ctx: Ctx, names: frozenset[str] = frozenset()
) -> None:
    """Upper-case variables (and the lower-case proxies) the program is handed: URLs are requests to
    that host, paths are files it reads or, by name, writes. `names`: only these (the ones set here)."""
    for name, value in env.items():
        if names and name not in names:
            continue
        if name in _NOT_DESTINATIONS or not (name.isupper() or name.endswith("_proxy")):
            continue
        _destination(an, inv, name, value, env, scope, ctx)


def flag_destinations(
    an: Analysis, inv: Invocation, args: list[str], scope: Scope, ctx: Ctx, skip: frozenset[str] = frozenset()
) -> None:
    """`--flag VALUE`/`--flag=VALUE` of a program whose flags the gate does not list one by one
    (SGLang's hundreds): a URL value is a request, a path value a read, and by name a write."""
    i = 0
    while i < len(args):
        a = args[i]
        if not a.startswith("--") or a == "--":
            i += 1
            continue
        flag, eq, value = a.partition("=")
        if not eq:
            nxt = args[i + 1] if i + 1 < len(args) else ""
            if nxt.startswith("-") and not nxt.startswith("-1"):
                i += 1
                continue
            value = nxt
            i += 1
        i += 1
        if flag in skip:
            continue
        if value.lstrip().startswith("{"):  # `--kv-events-config '{"endpoint": "tcp://..."}'`
            body_destinations(an, inv, value, scope, ctx, request=False)
            continue
        _destination(an, inv, flag.lstrip("-").replace("-", "_"), value, {}, scope, ctx)


def body_destinations(an: Analysis, inv: Invocation, body: str, scope: Scope, ctx: Ctx, request: bool = True) -> None:
    """A JSON request body's fields (or a flag's JSON settings, `request=False`), by class: paths the
    server reads or (by name) writes, and addresses it connects to."""
    try:
        data = json.loads(body)
    except ValueError:
        return
    stack: list[tuple[str, object]] = [("", data)]
    while stack:
        name, value = stack.pop()
        if isinstance(value, dict):
            stack += [(str(k), v) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(name, v) for v in value]
        elif isinstance(value, str) and name:
            if request and _looks_like_path(value) and not _FILE_NAME.search(name):
                continue  # a prompt's text that looks like a path is text (`{"text": "/etc/hosts"}`)
            _destination(an, inv, name, value, {}, scope, ctx)
            if _LOADS.search(name) and _looks_like_path(value):
                # a running server told to load weights or an adapter from a path (a pickled
                # checkpoint runs code): what it loads is not what the launch was judged with
                inv.unsure = f"the request makes the server load {name} from {value}"


# a field that names a file or a folder (not a prompt's text)
_FILE_NAME = re.compile(
    r"(?i)(path|dir|file|folder|template|output|dump|log|trace|profil|lora|adapter|checkpoint|ckpt)"
)
_LOADS = re.compile(r"(?i)(model|weight|lora|adapter|checkpoint|ckpt)\w*(path|dir|file|folder)")
