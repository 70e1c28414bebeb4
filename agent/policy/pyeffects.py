"""What a Python snippet (`python -c`, a here-doc fed to python) does to files, processes and the
shell, read from its syntax tree. Code that builds code at run time is opaque."""

from __future__ import annotations

import ast
import importlib
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from functools import cached_property

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
    "os.register_at_fork",
    "pkgutil.resolve_name",
    "pkgutil.get_importer",
    "pkgutil.find_loader",
    "pkgutil.get_loader",
    "os.fchdir",
    # code from text or from pickles: `!!python/object/apply:os.system`, string annotations
    "yaml.unsafe_load",
    "yaml.unsafe_load_all",
    "typing.get_type_hints",
    "pandas.read_pickle",
    "torch.load",
    "multiprocessing.util.spawnv_passfds",
    "psutil.Popen",
    "sglang.utils.execute_shell_command",
    "sglang.srt.utils.kill_process_tree",
    "IPython.utils.process.system",
}
# methods that start processes or load native code whatever their receiver is
_OPAQUE_METHODS = {"subprocess_shell", "subprocess_exec", "load_extension", "enable_load_extension"}
# yaml loaders that build only plain data
_SAFE_YAML_LOADERS = ("SafeLoader", "CSafeLoader", "BaseLoader", "CBaseLoader")
_OPAQUE_MODULES = {
    "ctypes",
    "_ctypes",
    "cffi",
    "importlib",
    "imp",
    "zipimport",
    "runpy",
    "pty",
    "code",
    "codeop",
    "marshal",
    "pickle",
    "_pickle",
    "shelve",
    "dill",
    "cloudpickle",
    # C halves of modules the gate models only through their Python front
    "_posixsubprocess",
    "_winapi",
    "_xxsubinterpreters",
    # debuggers, profilers and timers run code given as text
    "pdb",
    "bdb",
    "cProfile",
    "profile",
    "trace",
    "timeit",
    # D-Bus and systemd clients: logind and systemd reboot the host on request
    "dbus",
    "pydbus",
    "jeepney",
    "dbus_next",
    "sdbus",
    "systemd",
    "gi",
    # run code given as text, or start programs named in text or by attribute
    "doctest",
    "webbrowser",
    "pexpect",
    "sh",
    "plumbum",
    "invoke",
    "fabric",
    "joblib",
    "distutils",
    "torch.utils.cpp_extension",
}
# other names of modules the gate models: `posix` is the C module behind `os`, and so on
_CANON = {
    "posix": "os",
    "nt": "os",
    "posixpath": "os.path",
    "ntpath": "os.path",
    "_io": "io",
    "_pyio": "io",
    "_signal": "signal",
    "_socket": "socket",
    "_operator": "operator",
    "_codecs": "codecs",
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
_REFLECTION = {
    "getattr",
    "vars",
    "globals",
    "locals",
    "__builtins__",
    "sys.modules",
    "sys._getframe",
    "sys.exc_info",
    "gc.get_objects",
    "gc.get_referents",
    "gc.get_referrers",
    "inspect.getmembers",
    "inspect.getmembers_static",
    "inspect.getattr_static",
    "inspect.currentframe",
    "inspect.stack",
    "operator.methodcaller",
    "operator.attrgetter",
}
# dunder attributes that do not reach other functions (`x.__class__.__name__`); any other is opaque
_SAFE_DUNDERS = {
    "__name__",
    "__qualname__",
    "__doc__",
    "__version__",
    "__file__",
    "__module__",
    "__path__",
    "__all__",
    "__annotations__",
    "__class__",
    "__init__",
    "__enter__",
    "__exit__",
    "__len__",
    "__iter__",
    "__next__",
    "__contains__",
    "__eq__",
    "__hash__",
    "__repr__",
    "__str__",
}
_SAFE_NAMES = _SAFE_DUNDERS | {"__import__"}  # (calling __import__ is opaque in itself)
_SHELL_CALLS = {"os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput"}
_PROC_CALLS = {
    "subprocess.run",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.Popen",
}
# `pydoc.pipepager(text, cmd)`: cmd runs through a shell
_PAGER_CALLS = {"pydoc.pipepager", "pydoc.tempfilepager"}
_DELETE_CALLS = {"os.remove", "os.unlink", "os.rmdir", "os.removedirs", "shutil.rmtree"}
_COPY_CALLS = {
    "shutil.copy",
    "shutil.copy2",
    "shutil.copyfile",
    "shutil.copytree",
    "shutil.copymode",
    "shutil.copystat",
    "shutil.move",
    "os.rename",
    "os.renames",
    "os.replace",
}
_MOVES = {"shutil.move", "os.rename", "os.renames", "os.replace"}
# functions that change their first operand (a path)
_WRITE_CALLS = {
    "os.truncate",
    "os.utime",
    "os.chmod",
    "os.lchmod",
    "os.chown",
    "os.lchown",
    "os.chflags",
    "os.lchflags",
    "os.mkdir",
    "os.makedirs",
    "os.mkfifo",
    "os.mknod",
    "os.setxattr",
    "os.removexattr",
    "shutil.chown",
}
_LINK_CALLS = {"os.symlink": True, "os.link": False}  # -> symbolic
# open-like calls: (index of the mode or flags operand, its keyword, its default)
_OPENERS = {
    "open": (1, "mode", "r"),
    "io.open": (1, "mode", "r"),
    "io.FileIO": (1, "mode", "r"),
    "io.open_code": (9, "", "r"),
    "codecs.open": (1, "mode", "r"),
    "gzip.open": (1, "mode", "rb"),
    "gzip.GzipFile": (1, "mode", "rb"),
    "bz2.open": (1, "mode", "rb"),
    "bz2.BZ2File": (1, "mode", "r"),
    "lzma.open": (1, "mode", "rb"),
    "lzma.LZMAFile": (1, "mode", "r"),
    "tarfile.open": (1, "mode", "r"),
    "tarfile.TarFile": (1, "mode", "r"),
    "zipfile.ZipFile": (1, "mode", "r"),
    "zipfile.PyZipFile": (1, "mode", "r"),
    "dbm.open": (1, "flag", "r"),
    "wave.open": (1, "mode", "rb"),
    "sqlite3.connect": (9, "", "w"),
}
# functions that read the files they are given
_READ_CALLS = {
    "linecache.getline",
    "linecache.getlines",
    "linecache.updatecache",
    "linecache.checkcache",
    "tokenize.open",
    "mimetypes.read_mime_types",
    "filecmp.cmp",
    "numpy.loadtxt",
    "numpy.genfromtxt",
    "numpy.load",
    "numpy.fromfile",
    "numpy.memmap",
}
_SIGNAL_CALLS = {"os.kill", "os.killpg", "os.pidfd_open", "signal.pidfd_send_signal"}
_PSUTIL_SIGNALS = {"kill", "terminate", "send_signal", "suspend", "resume"}
_CHDIR_CALLS = {"os.chdir", "contextlib.chdir"}
# module functions whose path operands are not read (names and metadata only), or that the gate models
_NOT_READERS = ("os.", "shutil.", "sys.", "re.", "json.loads", "shlex.", "glob.", "fnmatch.", "pathlib.")
_WRITE_VERBS = ("save", "write", "dump", "store", "export", "extract", "unpack", "retrieve", "download")

# file handlers of `logging`: (index of the file operand, its keyword); the file is opened for writing
_LOG_HANDLERS = {
    "logging.FileHandler": (0, "filename"),
    "logging.handlers.RotatingFileHandler": (0, "filename"),
    "logging.handlers.TimedRotatingFileHandler": (0, "filename"),
    "logging.handlers.WatchedFileHandler": (0, "filename"),
    "logging.handlers.BaseRotatingHandler": (0, "filename"),
}
# `logging.config` builds handlers from text (fileConfig evaluates it; listen takes it from a socket)
_LOG_CONFIG_OPAQUE = {"logging.config.fileConfig", "logging.config.listen"}
# HTTP clients: judged as `curl URL` (so loopback is allowed, Redfish resets denied, other hosts asked)
_HTTP_MODULES = {"requests", "requests.api", "httpx", "urllib3", "aiohttp"}
_HTTP_VERBS = {"get", "post", "put", "delete", "patch", "head", "options"}
_HTTP_CLIENTS = {
    "requests.Session",
    "requests.session",
    "requests.sessions.Session",
    "httpx.Client",
    "httpx.AsyncClient",
    "urllib3.PoolManager",
    "urllib3.ProxyManager",
    "urllib3.poolmanager.PoolManager",
    "aiohttp.ClientSession",
    "urllib.request.build_opener",
    "urllib.request.OpenerDirector",
}
_HTTP_CONNECTIONS = {
    "http.client.HTTPConnection": "http",
    "http.client.HTTPSConnection": "https",
    "urllib3.HTTPConnectionPool": "http",
    "urllib3.HTTPSConnectionPool": "https",
    "urllib3.connectionpool.HTTPConnectionPool": "http",
    "urllib3.connectionpool.HTTPSConnectionPool": "https",
    "urllib3.connection_from_url": "",
}
_HTTP_FUNCS = {f"{m}.{v}" for m in ("requests", "httpx") for v in (*_HTTP_VERBS, "request")} | {
    "httpx.stream",
    "urllib3.request",
    "aiohttp.request",
    "urllib.request.urlopen",
    "urllib.request.urlretrieve",
}
# a URL the code only builds at run time: curl of it is never allowed
_UNKNOWN_URL = '"$(printf %s url-known-at-run-time)"'
# modules reached as attributes of other modules (`shutil.os`, `os.path.os`, `tempfile._os`): judged as
# the module itself
_MODULE_ATTRS = {
    "os": "os",
    "_os": "os",
    "posix": "os",
    "_posix": "os",
    "nt": "os",
    "posixpath": "os.path",
    "_posixpath": "os.path",
    "ntpath": "os.path",
    "sys": "sys",
    "_sys": "sys",
    "subprocess": "subprocess",
    "_subprocess": "subprocess",
    "shutil": "shutil",
    "_shutil": "shutil",
    "signal": "signal",
    "_signal": "signal",
    "socket": "socket",
    "_socket": "socket",
    "builtins": "builtins",
    "_builtins": "builtins",
    "importlib": "importlib",
    "_importlib": "importlib",
    "ctypes": "ctypes",
    "_ctypes": "ctypes",
    "runpy": "runpy",
    "pty": "pty",
    "pickle": "pickle",
    "marshal": "marshal",
    "_posixsubprocess": "_posixsubprocess",
}
# where one of these is reached from a value the gate cannot name (`m.os.system`), the code is opaque
_MODULE_ATTRS_STRICT = {
    k for k, v in _MODULE_ATTRS.items() if v in ("os", "sys", "subprocess", "shutil", "builtins", "importlib", "ctypes")
}
# GPUs named in code: `"cuda:5"`, `"/gpu:5"`, `"/device:GPU:5"`
_GPU_STRING = re.compile(r"(?i)/?(?:device:)?(?:cuda|gpu):(.*)")
# calls that pick a GPU: the index of their device operand, and its keyword
_GPU_SELECTORS = {
    "torch.cuda.set_device": (0, "device"),
    "torch.cuda.device": (0, "device"),
    "torch.device": (0, "type"),
    "cupy.cuda.Device": (0, "device"),
    "cupy.cuda.runtime.setDevice": (0, "device"),
    "numba.cuda.select_device": (0, "device_id"),
    # queries and settings that open a context on the GPU they are given
    **{
        f"torch.cuda.{f}": (0, "device")
        # (queries of a device's name or properties read the driver, no context: not among them)
        for f in ("mem_get_info", "synchronize", "Stream")
    },
    "torch.cuda.set_per_process_memory_fraction": (1, "device"),
    "torch.set_default_device": (0, "device"),
}
# engines that start servers or workers on GPUs: (tensor-parallel keyword, data-parallel keyword, first GPU)
_GPU_ENGINES = {
    "sglang.Engine": ("tp_size", "dp_size", "pp_size", "base_gpu_id", "gpu_id_step"),
    "sglang.srt.entrypoints.engine.Engine": ("tp_size", "dp_size", "pp_size", "base_gpu_id", "gpu_id_step"),
    "vllm.LLM": ("tensor_parallel_size", "data_parallel_size", "pipeline_parallel_size", "", ""),
}
_GPU_KEYWORDS = {"device", "device_id", "device_ids", "output_device", "gpu_id", "gpu_ids", "device_map"}
# calls that return the device the process already uses: not a GPU of their own choosing
_CURRENT_DEVICE = {"torch.cuda.current_device"}
_GPU_MODULES = {"torch", "cupy", "numba", "jax", "tensorflow", "transformers", "sglang", "vllm", "pynvml"}
_GPU_VARS = ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")

_DANGEROUS = (
    _SHELL_CALLS
    | _PROC_CALLS
    | _PAGER_CALLS
    | _OPAQUE_ATTRS
    | _DELETE_CALLS
    | _COPY_CALLS
    | _WRITE_CALLS
    | set(_LINK_CALLS)
    | set(_OPENERS)
    | _SIGNAL_CALLS
    | _CHDIR_CALLS
    | {"exec", "eval", "compile", "__import__", "os.open", "pip.main", "shutil.unpack_archive", "shutil.make_archive"}
    | set(_LOG_HANDLERS)
    | _LOG_CONFIG_OPAQUE
    | {"logging.basicConfig", "logging.config.dictConfig"}
    | _HTTP_FUNCS
    | set(_HTTP_CONNECTIONS)
)
_DANGEROUS_SHORT = {n.rsplit(".", 1)[-1] for n in _DANGEROUS} | {"system", "popen", "fork", "run", "cuda", "environ"}

# star-imports the gate can follow: the names each brings are judged as `module.name`
_STAR_MODULES = {
    "os",
    "posix",
    "nt",
    "shutil",
    "subprocess",
    "signal",
    "pathlib",
    "io",
    "codecs",
    "tarfile",
    "zipfile",
    "gzip",
    "bz2",
    "lzma",
    "linecache",
    "fileinput",
    "socket",
    "sys",
    "operator",
    "pydoc",
    "tempfile",
    "glob",
    "json",
    "math",
    "time",
    "re",
    "random",
    "string",
    "collections",
    "itertools",
    "functools",
    "datetime",
    "statistics",
    "typing",
    "struct",
}
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


_COPIERS = {"dict", "list", "sorted", "str", "repr", "tuple", "set", "copy.copy", "copy.deepcopy"}
_PATH_CLASSES = {"pathlib.Path", "pathlib.PosixPath", "pathlib.PurePath", "pathlib.PurePosixPath"}
_ENVIRON = ("os.environ", "os.environb")
_IMPORT_PATH_CHANGE = "Python code that changes where modules are imported from (sys.path)"
# calls that return one variable's value, by the name given first
_ENV_GETTERS = {"os.getenv", "os.getenvb", *(f"{e}.{m}" for e in _ENVIRON for m in ("get", "pop", "setdefault"))}
# what decides where `import` looks: changing any of these lets an import run any file
_IMPORT_PATHS = ("sys.path", "sys.meta_path", "sys.path_hooks", "sys.path_importer_cache")
_IMPORT_PATH_READERS = {"index", "count", "copy", "__contains__", "__len__", "__iter__", "__getitem__"}
_SITE_CHANGERS = {"site.addsitedir", "site.main", "site.addpackage", "site.addusersitepackages", "site.venv"}
_DUMPERS = {"print", "str", "repr", "dict", "list", "sorted", "json.dumps", "json.dump", "pprint.pprint", "pprint.pp"}
# other calls that print or log what they are given (`"{}".format(os.environ)` is caught by its name)
_PRINTING_CALLS = {
    *(f"logging.{f}" for f in ("debug", "info", "warning", "warn", "error", "critical", "exception", "log")),
    "sys.stdout.write",
    "sys.stderr.write",
}


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


# os.open flags that never write (O_RDONLY is 0)
_READ_ONLY_FLAGS = {
    "O_RDONLY",
    "O_NONBLOCK",
    "O_NDELAY",
    "O_CLOEXEC",
    "O_NOFOLLOW",
    "O_DIRECTORY",
    "O_NOCTTY",
    "O_NOATIME",
    "O_PATH",
    "O_LARGEFILE",
    "O_ASYNC",
    "O_DIRECT",
    "O_BINARY",
    "O_TEXT",
}
# O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND, __O_TMPFILE
_WRITE_BITS = 1 | 2 | 64 | 512 | 1024 | 0o20000000


def _deferred_nodes(nodes: list[ast.AST]) -> set[int]:
    """Nodes inside a function, lambda or class body: they run when called, not where they stand."""
    out: set[int] = set()
    for node in nodes:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            for child in ast.walk(node):
                if child is not node:
                    out.add(id(child))
    return out


_NAMED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.MatchAs, ast.MatchStar)


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


class _Analysis:
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

    # -- values

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

    def opaque(self, why: str) -> None:
        self.out.opaque = why

    # -- networks, sockets, logs and GPUs

    def http_clients(self) -> None:
        """Names bound to HTTP clients and connections (`s = requests.Session()`, `with httpx.Client() as c`)."""
        for node in self.nodes:
            pairs: list[tuple[ast.expr, ast.expr]] = []
            if isinstance(node, ast.Assign):
                pairs = [(t, node.value) for t in node.targets]
            elif isinstance(node, ast.With | ast.AsyncWith):
                pairs = [(i.optional_vars, i.context_expr) for i in node.items if i.optional_vars is not None]
            for target, value in pairs:
                base = self.client_base(value)
                if isinstance(target, ast.Name) and base is not None:
                    old = self.clients.get(target.id)
                    self.clients[target.id] = base if old is None or old == base else DYN

    def client_base(self, node: ast.expr) -> str | None:
        """The base URL of an HTTP client or connection ("" where it has none, DYN where it is not
        known); None where `node` is none."""
        if isinstance(node, ast.Await):
            return self.client_base(node.value)
        if isinstance(node, ast.Name) and node.id in self.clients:
            return self.clients[node.id]
        if isinstance(node, ast.Name | ast.Attribute) and self.name(node) in _HTTP_MODULES:
            return ""
        if not isinstance(node, ast.Call):
            return None
        name = self.name(node.func)
        if name in _HTTP_CLIENTS:
            base = _arg(node, 99, "base_url")
            return "" if base is None else self.string(base)
        if name in _HTTP_CONNECTIONS:
            scheme = _HTTP_CONNECTIONS[name]
            host = self.string(_arg(node, 0, "url" if not scheme else "host"))
            port_node = _arg(node, 1, "port")
            port = self.string(port_node) if port_node is not None else ""
            if DYN in host or DYN in port:
                return DYN
            if not scheme:
                return host
            if ":" in host and not host.startswith("["):
                host = f"[{host}]"  # an IPv6 address
            return f"{scheme}://{host}" + (f":{port}" if port and port != "None" else "")
        return None

    def request_of(self, node: ast.expr | None, depth: int = 0) -> tuple[str, str | None]:
        """The URL and method of `urlopen`'s operand: a URL, or `Request(URL, data, method=...)`."""
        if isinstance(node, ast.Name) and node.id in self.consts and depth < 20:
            return self.request_of(self.consts[node.id], depth + 1)
        if isinstance(node, ast.Call) and self.name(node.func) == "urllib.request.Request":
            url = self.string(_arg(node, 0, "url"))
            method_node = _arg(node, 5, "method")
            if method_node is not None:
                return url, self.string(method_node)
            data = _arg(node, 1, "data")
            return url, None if data is None or (isinstance(data, ast.Constant) and data.value is None) else "POST"
        return self.string(node), None

    def http(self, node: ast.Call, name: str) -> bool:
        """An HTTP request, judged as `curl` of its URL; False where `node` is none."""
        module, _, attr = name.rpartition(".")
        if name in _HTTP_CONNECTIONS:
            conn = self.client_base(node)
            self.curl(node, DYN if conn is None or DYN in conn else conn + "/", None)
            return True
        if name in ("urllib.request.urlopen", "urllib.request.urlretrieve"):
            url, method = self.request_of(_arg(node, 0, "url"))
            if method is None and _arg(node, 1, "data") is not None and name.endswith("urlopen"):
                method = "POST"
            out = _arg(node, 1, "filename") if name.endswith("urlretrieve") else None
            self.curl(node, url, method, self.path(out) if out is not None else None)
            return True
        if module in _HTTP_MODULES:
            base: str | None = ""
        elif isinstance(node.func, ast.Attribute):
            base = self.client_base(node.func.value)
        else:
            return False
        if base is None:
            return False
        if attr in _HTTP_VERBS:
            url_node, method = _arg(node, 0, "url"), attr
        elif attr in ("request", "stream", "urlopen", "putrequest"):
            url_node = _arg(node, 1, "url")
            method_node = _arg(node, 0, "method")
            method = self.string(method_node) if method_node is not None else None
        elif attr == "open":
            url, method = self.request_of(_arg(node, 0, "fullurl"))
            self.curl(node, url, method)
            return True
        elif attr in ("send", "send_request", "ws_connect", "websocket_connect"):
            url_node, method = None, None
        else:
            return False
        url = self.string(url_node) if url_node is not None else DYN
        if DYN not in url and "://" not in url:
            url = DYN if DYN in base or not base else base.rstrip("/") + "/" + url.lstrip("/")
        self.curl(node, url, method)
        return True

    def curl(self, node: ast.Call, url: str, method: str | None, out: str | None = None) -> None:
        words = ["curl"]
        if method is not None and DYN not in method and method.upper() not in ("GET", ""):
            words += ["-X", method.upper()]
        if out is not None:
            words += ["-o", out] if DYN not in out else []
            if DYN in out:
                self.write(node, DYN)
        if DYN in url or not url or url.startswith("-"):
            self.command(node, f"{shlex.join(words)} {_UNKNOWN_URL}")
        else:
            self.command(node, shlex.join([*words, url]))
        if url.startswith("file://"):
            self.read(node, url[len("file://") :])

    def find_unix_sockets(self) -> bool:
        """Whether the code may make a Unix socket: it names AF_UNIX, adopts a descriptor, or makes a
        socket of a family not known."""
        for node in self.nodes:
            if isinstance(node, ast.Name | ast.Attribute):
                ref = self.name(node)
                if ref.endswith("AF_UNIX") or ref in ("socket.fromfd", "socket.fromshare", "socket.socketpair"):
                    return True
            if isinstance(node, ast.Call) and self.name(node.func) == "socket.socket":
                family = _arg(node, 0, "family")
                fileno = _arg(node, 3, "fileno")
                if fileno is not None:
                    return True
                if family is None:
                    continue
                if isinstance(family, ast.Constant) and family.value in (2, 10):
                    continue
                if isinstance(family, ast.Name | ast.Attribute) and self.name(family) in (
                    "socket.AF_INET",
                    "socket.AF_INET6",
                ):
                    continue
                return True
        return False

    def socket_call(self, node: ast.Call, name: str) -> bool:
        """A Unix socket the code connects to or binds: a write of its path (as `socat UNIX-CONNECT:`);
        one only known at run time is opaque. False where `node` is none."""
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        addr: ast.expr | None = None
        short = name.rsplit(".", 1)[-1]
        if short in ("open_unix_connection",):
            addr = _arg(node, 0, "path")
        elif short in ("create_unix_connection", "create_unix_server", "start_unix_server"):
            addr = _arg(node, 1, "path")
        elif name == "logging.handlers.SysLogHandler":
            addr = _arg(node, 0, "address")
        elif any(k in kw for k in ("uds", "unix_socket", "socket_path")):
            addr = kw.get("uds") or kw.get("unix_socket") or kw.get("socket_path")
        elif isinstance(node.func, ast.Attribute) and short in ("connect", "connect_ex", "bind", "sendto", "sendmsg"):
            recv = node.func.value
            if isinstance(recv, ast.Name | ast.Attribute) and _dotted(recv).partition(".")[0] in self.aliases:
                return False  # a module's function: `sqlite3.connect(path)`
            if short == "sendto":
                addr = node.args[-1] if len(node.args) in (2, 3) else kw.get("address")
            elif short == "sendmsg":
                addr = node.args[3] if len(node.args) > 3 else kw.get("address")
            else:
                addr = _arg(node, 0, "address")
        if addr is None:
            return False
        if isinstance(addr, ast.Name) and addr.id in self.consts:
            addr = self.consts[addr.id]
        if isinstance(addr, ast.Tuple | ast.List):
            return False  # (host, port): an Internet socket
        if isinstance(addr, ast.Constant) and isinstance(addr.value, bytes | str):
            raw = addr.value.decode("latin-1") if isinstance(addr.value, bytes) else addr.value
            if raw.startswith("\0") or not raw:
                return True  # the abstract namespace: no file
        p = raw if isinstance(addr, ast.Constant) and isinstance(addr.value, bytes) else self.string(addr)
        if DYN in p:
            if self.unix_sockets:
                self.opaque(f"python {short} of a Unix socket only known at run time")
            return self.unix_sockets
        p = _normal(p)
        self.write(node, p)
        if p.startswith(CONTROL_SOCKETS):
            self.opaque("python talks to a control socket (systemd, D-Bus, libvirt, QEMU, Docker) directly")
        return True

    def log_config(self, node: ast.Call) -> None:
        """`logging.config.dictConfig({...})`: the files its handlers write; a class or factory
        the gate does not know, or a config not written out, is opaque."""
        config = _arg(node, 0, "config")
        if isinstance(config, ast.Name) and config.id in self.consts:
            config = self.consts[config.id]
        if not isinstance(config, ast.Dict):
            self.opaque("python configures logging from a value the gate cannot read")
            return
        for sub in ast.walk(config):
            if not isinstance(sub, ast.Dict):
                continue
            for k, v in zip(sub.keys, sub.values, strict=True):
                key = self.string(k) if k is not None else DYN
                if key == "filename":
                    self.write(node, self.path(v))
                elif key == "()" or DYN in key:
                    self.opaque("python configures logging with a factory the gate cannot follow")
                elif key == "class":
                    cls = self.string(v)
                    if DYN in cls or not cls.startswith("logging."):
                        self.opaque("python configures logging with a handler class the gate does not know")

    def gpu_index(self, node: ast.expr | None, depth: int = 0) -> list[str] | None:
        """The GPU indexes a device operand names: `5`, `"cuda:5"`, `torch.device("cuda", 5)`, a name
        bound to one, a loop over `range(N)`; None where it names none (`"cuda"`, `"cpu"`), ["all"]
        where it is only known at run time."""
        if node is None or depth > 20:
            return None
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or node.value is None:
                return None
            if isinstance(node.value, int):
                return [str(node.value)] if node.value >= 0 else None
            if isinstance(node.value, str):
                return self.gpu_text(node.value)
            return None
        if isinstance(node, ast.Name):
            if node.id in self.consts:
                return self.gpu_index(self.consts[node.id], depth + 1)
            return self.loop_range(node.id) or ["all"]
        if isinstance(node, ast.List | ast.Tuple):
            found = [self.gpu_index(e, depth + 1) for e in node.elts]
            return [g for f in found for g in f or []] or None
        if isinstance(node, ast.Call) and self.name(node.func) == "torch.device":
            kind_node = _arg(node, 0, "type")
            kind = self.gpu_index(kind_node, depth + 1)
            index = _arg(node, 1, "index")
            if index is not None and kind is None:
                first = self.string(kind_node)
                if DYN in first:
                    return ["all"]
                return self.gpu_index(index, depth + 1) if first.lower().startswith("cuda") else None
            return kind
        if isinstance(node, ast.Call) and self.name(node.func) in _CURRENT_DEVICE:
            return None  # `torch.cuda.current_device()`: the one the process already uses
        if isinstance(node, ast.Dict):  # `device_map={"": 5, "lm_head": 6}`
            found = [self.gpu_index(v, depth + 1) for v in node.values]
            return [g for f in found for g in f or []] or None
        if isinstance(node, ast.BinOp | ast.UnaryOp):  # `2 + 3`: an index worked out from literals
            value = _int_value(node)
            return [str(value)] if value is not None and value >= 0 else ["all"]
        if isinstance(node, ast.IfExp | ast.BoolOp):
            branches = [node.body, node.orelse] if isinstance(node, ast.IfExp) else node.values
            each = [self.gpu_index(b, depth + 1) for b in branches]
            return None if all(e is None for e in each) else [g for e in each for g in e or []]
        text = self.string(node)
        if DYN not in text:
            return self.gpu_text(text)
        template = self.gpu_template(node, depth)
        return template if template is not None else ["all"]  # an index only known at run time

    def gpu_template(self, node: ast.expr, depth: int = 0) -> list[str] | None:
        """`f"cuda:{i}"`, `"cuda:" + str(i)`, `"cuda:%d" % i`, `"cuda:{}".format(i)`: the GPUs `i` names."""
        prefix: str = DYN
        index: ast.expr | None = None
        if isinstance(node, ast.JoinedStr) and len(node.values) == 2:
            first, second = node.values
            prefix = self.string(first) + "{}"
            index = second.value if isinstance(second, ast.FormattedValue) else None
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            prefix, index = self.string(node.left) + "{}", node.right
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            prefix, index = self.string(node.left), node.right
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            prefix, index = self.string(node.func.value), node.args[0] if len(node.args) == 1 else None
        else:
            return None
        m = None if DYN in prefix else _GPU_STRING.fullmatch(prefix)
        if m is None:
            return None
        if m.group(1) not in ("{}", "%d", "%s", "%i"):
            return ["all"] if any(c in m.group(1) for c in "{%") else None
        while isinstance(index, ast.Call) and self.name(index.func) in ("str", "int") and len(index.args) == 1:
            index = index.args[0]
        if index is None or depth > 20:
            return ["all"]
        found = self.gpu_index(index, depth + 1)
        return found if found is not None else ["all"]

    def gpu_text(self, text: str) -> list[str] | None:
        if text.strip() in ("auto", "balanced", "balanced_low_0", "sequential"):
            return ["all"]  # `device_map="auto"`: every GPU the process sees
        m = _GPU_STRING.fullmatch(text.strip())
        if m is None:
            return None
        rest = m.group(1).strip()
        return [str(int(rest))] if rest.isdigit() else None

    def engine_gpus(self, node: ast.Call, name: str) -> list[str]:
        """`sgl.Engine(tp_size=8, base_gpu_id=4)`, `vllm.LLM(tensor_parallel_size=8)`: the GPUs its
        workers take, from the first one on; all of them where a number is not literal."""
        tp_key, dp_key, pp_key, base_key, step_key = _GPU_ENGINES[name]
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if any(k.arg is None for k in node.keywords):
            return ["all"]  # `**server_args`
        numbers = []
        for key, default in ((tp_key, 1), (dp_key, 1), (pp_key, 1), (base_key, 0), (step_key, 1)):
            given = kw.get(key) if key else None
            value = _int_value(given) if given is not None else default
            if value is None or value < 0:
                return ["all"]
            numbers.append(value)
        tp, dp, pp, base, step = numbers
        return [str(base + i * step) for i in range(min(tp * dp * pp, 64))]

    def nvml_handle(self, node: ast.expr | None, depth: int = 0) -> str:
        """The GPU an NVML handle is for: `nvmlDeviceGetHandleByIndex(5)`, or a name bound to one."""
        if isinstance(node, ast.Name) and node.id in self.consts and depth < 20:
            return self.nvml_handle(self.consts[node.id], depth + 1)
        if isinstance(node, ast.Call) and self.name(node.func).endswith("nvmlDeviceGetHandleByIndex") and node.args:
            value = _int_value(node.args[0])
            return str(value) if value is not None else "all"
        return "all"

    def loop_range(self, name: str) -> list[str] | None:
        """`for i in range(4)`: the values of a loop variable bound only there."""
        found: list[str] | None = None
        for node in self.nodes:
            if isinstance(node, ast.For | ast.comprehension) and isinstance(node.target, ast.Name):
                if node.target.id != name:
                    continue
                it = node.iter
                if not (isinstance(it, ast.Call) and self.name(it.func) == "range" and it.args and not it.keywords):
                    return None
                bounds = [self.string(a) for a in it.args]
                if any(not b.isdigit() for b in bounds) or len(bounds) > 2:
                    return None
                lo, hi = (0, int(bounds[0])) if len(bounds) == 1 else (int(bounds[0]), int(bounds[1]))
                if hi - lo > 64:
                    return None
                found = (found or []) + [str(i) for i in range(lo, hi)]
        return found

    def gpus(self) -> None:
        """The GPUs the code names (`device="cuda:5"`, `torch.cuda.set_device(5)`), through the
        CUDA_VISIBLE_DEVICES it sets itself; judged as a command run with them visible, as the shell
        side judges `CUDA_VISIBLE_DEVICES=5 prog`. A bare `"cuda"` is the devices the process sees."""
        gpu_code = any(v.partition(".")[0] in _GPU_MODULES for v in self.aliases.values())
        named: list[str] = []
        called = {id(n.func) for n in self.nodes if isinstance(n, ast.Call)} if gpu_code else set()
        for node in self.nodes:
            found: list[str] | None = None
            if (
                gpu_code
                and isinstance(node, ast.Attribute)
                and node.attr == "cuda"
                and id(node) not in called
                and (
                    isinstance(node.value, ast.Call)
                    or (isinstance(node.value, ast.Name) and node.value.id not in self.aliases)
                )
            ):
                found = ["all"]  # `f = t.cuda; f(5)`: a tensor's `.cuda` passed around, called with any GPU
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                found = self.gpu_text(node.value) if len(node.value) < 64 else None
            elif isinstance(node, ast.JoinedStr | ast.BinOp):
                found = self.gpu_template(node)
            elif isinstance(node, ast.Call):
                found = self.gpu_template(node)
                name = self.name(node.func)
                attr = node.func.attr if isinstance(node.func, ast.Attribute) else ""
                if found is not None:
                    pass
                elif name in _GPU_SELECTORS and name != "torch.device":
                    index, key = _GPU_SELECTORS[name]
                    found = self.gpu_index(_arg(node, index, key))
                elif gpu_code and attr == "cuda" and (node.args or node.keywords):
                    found = self.gpu_index(_arg(node, 0, "device"))
                elif name == "torch.device":
                    found = self.gpu_index(node)
                elif gpu_code and attr == "to" and node.args:
                    first = node.args[0]
                    if isinstance(first, ast.Constant) and isinstance(first.value, int):
                        found = self.gpu_index(first)
                if name in _GPU_ENGINES:
                    found = (found or []) + self.engine_gpus(node, name)
                if name.startswith(_NVML_SETTERS):  # `nvmlDeviceSetPowerManagementLimit(handle, ...)`
                    self.out.commands.append(f"nvidia-smi -i {self.nvml_handle(_arg(node, 0, 'handle'))} -pl 1")
                if gpu_code:
                    for k in node.keywords:
                        if k.arg in _GPU_KEYWORDS:
                            found = (found or []) + (self.gpu_index(k.value) or [])
            named += found or []
        names_gpu_var = any(isinstance(n, ast.Constant) and n.value in _GPU_VARS for n in self.nodes)
        if self.env_set is None:
            if named or names_gpu_var:  # the code sets variables the gate cannot follow
                self.out.commands.append("CUDA_VISIBLE_DEVICES=all true")
            return
        visible = next((v for k, v in reversed(self.env_set) if k == "CUDA_VISIBLE_DEVICES"), None)
        sets_gpus = any(k in _GPU_VARS for k, _ in self.env_set)
        if not named and not sets_gpus:
            return
        physical: list[str] = []
        for g in sorted(set(named)):
            if visible is None or g == "all":
                physical.append(g)
                continue
            ids = [i.strip() for i in visible.split(",") if i.strip()]
            physical.append(ids[int(g)] if int(g) < len(ids) else "all")
        exports = "".join(f"export {k}={shlex.quote(v)}; " for k, v in self.env_set if k.isidentifier())
        run = f"CUDA_VISIBLE_DEVICES={shlex.quote(','.join(physical))} true" if physical else "true"
        self.out.commands.append(exports + run)

    # -- passes

    def imports(self) -> None:
        for node in self.nodes:
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        head = a.name.split(".")[0]
                        self.aliases[head] = head
                    if _opaque_module(a.name):
                        self.opaque(f"python imports {a.name}, which can run arbitrary code")
                    self.psutil |= a.name.split(".")[0] == "psutil"
                    self.pathlib |= a.name == "pathlib"
            elif isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if node.level:
                    self.opaque("python imports from a package relative to itself; the gate cannot see it")
                if _opaque_module(mod) or any(_opaque_module(f"{mod}.{a.name}") for a in node.names):
                    self.opaque(f"python imports from {mod}, which can run arbitrary code")
                self.psutil |= mod.split(".")[0] == "psutil"
                self.pathlib |= mod == "pathlib"
                for a in node.names:
                    if a.name == "*":
                        if mod not in _STAR_MODULES:
                            self.opaque(f"python imports every name from {mod}; the gate cannot tell which")
                            continue
                        for n in _star_names(mod):
                            self.aliases[n] = f"{mod}.{n}"
                    else:
                        self.aliases[a.asname or a.name] = f"{mod}.{a.name}"
        # names bound once to a value: `p = Path("/x")`, `d = "/models"`
        counts = _bindings(self.nodes)
        for node in self.nodes:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and counts.get(node.targets[0].id) == 1
            ):
                self.consts[node.targets[0].id] = node.value
        # names bound once to a module or one of its members: `m = shutil`, `p = os.path`
        for target, value in list(self.consts.items()):
            if (
                isinstance(value, ast.Name | ast.Attribute)
                and _dotted(value).partition(".")[0] in self.aliases
                and target not in self.aliases
            ):
                self.aliases[target] = self.name(value)

    def directories(self) -> None:
        """Where relative paths lead: one `os.chdir(LITERAL)` at the top level is followed; any other
        change of directory makes relative paths unknown."""
        chdirs: list[ast.Call] = []
        for node in self.nodes:
            if isinstance(node, ast.Call) and self.name(node.func) in _CHDIR_CALLS:
                chdirs.append(node)
        if not chdirs:
            return
        if len(chdirs) == 1:
            call = chdirs[0]
            arg = call.args[0] if call.args else call.keywords[0].value if call.keywords else None
            target = self.string(arg)
            stmt = next((s for s in self.tree.body if isinstance(s, ast.Expr) and s.value is call), None)
            if DYN not in target and stmt is not None:
                self.chdir = (self.tree.body.index(stmt), target)
                return
        self.cwd_unknown = True

    def references(self) -> None:
        called = {id(n.func) for n in self.nodes if isinstance(n, ast.Call)}
        for node in self.nodes:
            if isinstance(node, ast.Name | ast.Attribute):
                ref = self.name(node)
                # `f = os.system; f("reboot")`, `map(os.kill, ...)`, `sys.modules["os"]`: a dangerous
                # function passed around, or functions reached by name (calls are judged in `call`)
                if id(node) not in called and (ref in _DANGEROUS or ref in _REFLECTION):
                    self.opaque(f"python refers to {ref} without calling it where it stands; the gate cannot follow it")
            if (
                isinstance(node, ast.Attribute)
                and node.attr in _MODULE_ATTRS_STRICT
                and _dotted(node.value).partition(".")[0] not in self.aliases
            ):
                self.opaque(f"python reaches the module {node.attr} through a value the gate cannot follow")
            if isinstance(node, ast.Attribute) and node.attr.startswith("__") and node.attr not in _SAFE_DUNDERS:
                self.opaque(f"python reaches functions through {node.attr}; the gate cannot follow it")
            if isinstance(node, ast.Name) and node.id.startswith("__") and node.id not in _SAFE_NAMES:
                self.opaque(f"python reaches functions through {node.id}; the gate cannot follow it")

    def calls(self) -> None:
        for node in self.nodes:
            if isinstance(node, ast.Call):
                self.call(node)
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and self.environ_itself(node.value):
                self.out.env_reads.append(self.string(node.slice))  # os.environ["HF_TOKEN"]
            elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
                targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
                if any(self.import_path(t) for t in targets):
                    self.opaque(_IMPORT_PATH_CHANGE)  # sys.path = [...], sys.path[:0] = [...], sys.path += [...]
            elif (
                (isinstance(node, ast.FormattedValue) and self.environ(node.value))
                or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and self.environ(node.right))
                or (isinstance(node, ast.Attribute) and node.attr in ("_data", "data") and self.environ(node.value))
            ):
                self.out.dumps_environment = True  # f"{os.environ}", "%s" % os.environ, os.environ._data

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

    def call(self, node: ast.Call) -> None:
        out = self.out
        name = self.name(node.func)
        short = name.split(".")[-1]
        args = node.args
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        unpacked = any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in node.keywords)
        if unpacked and (name in _DANGEROUS or name.startswith("pip.")):
            self.opaque(f"python calls {name} with arguments unpacked at run time")
            return
        if name in _ENV_GETTERS:
            self.out.env_reads.append(self.string(_arg(node, 0, "key")))  # os.getenv("HF_TOKEN")
        if name in ("yaml.load", "yaml.load_all", "yaml.full_load", "yaml.full_load_all"):
            loader = _arg(node, 1, "Loader")
            if loader is None or not self.name(loader).endswith(_SAFE_YAML_LOADERS):
                self.opaque(f"python {name} may build objects that run code (a Loader other than SafeLoader)")
        if name == "numpy.load" and "allow_pickle" in kw and _const(kw["allow_pickle"]) != "False":
            self.opaque("python numpy.load(allow_pickle=...) may unpickle objects that run code")
        if isinstance(node.func, ast.Attribute) and node.func.attr in _OPAQUE_METHODS:
            self.opaque(f"python calls {node.func.attr}, which starts programs or loads native code")
        if name in ("netrc.netrc", "huggingface_hub.get_token", "huggingface_hub.HfFolder.get_token"):
            secret = "~/.netrc" if name == "netrc.netrc" else "~/.cache/huggingface/token"
            given = _arg(node, 0, "file")
            self.read(node, self.path(given) if given is not None and name == "netrc.netrc" else secret)
        held, _, method = name.rpartition(".")
        if (held in _IMPORT_PATHS and method not in _IMPORT_PATH_READERS) or name in _SITE_CHANGERS:
            self.opaque(_IMPORT_PATH_CHANGE)  # sys.path.insert(0, d): an import may then run any file
        if name in _OPAQUE_CALLS or name in _OPAQUE_ATTRS or name.startswith("ctypes."):
            self.opaque(f"python calls {name}, which runs code the gate cannot see")
        elif name in _REFLECTION:
            target = args[1] if name.endswith("getattr") and len(args) > 1 else None
            attr = _const(target) if target is not None else DYN
            if DYN in attr or attr in _DANGEROUS_SHORT or attr.startswith("_"):
                self.opaque(f"python looks up {attr if DYN not in attr else 'a name'} at run time with {name}")
        elif name in _SHELL_CALLS or name in _PAGER_CALLS:
            cmd = _arg(node, 1 if name in _PAGER_CALLS else 0, "cmd")
            text = self.string(cmd)
            if DYN in text:
                self.opaque(f"python {name} of a command built at run time")
            else:
                self.command(node, text)
        elif name in _PROC_CALLS:
            self.process(node, name, kw)
        elif name.startswith("pip.") or name == "pip":
            words = self.words(args[0] if args else kw.get("args"))
            if words is None or not name.endswith("main"):
                self.opaque(f"python calls {name}, which installs or runs pip in ways the gate cannot see")
            else:
                self.command(node, shlex.join(["pip", *words]))
        elif name == "os.open":
            flags = args[1] if len(args) > 1 else kw.get("flags")
            p = self.path(args[0] if args else kw.get("path"))
            if flags is not None and self.read_only_flags(flags):
                self.read(node, p)
            else:
                self.write(node, p)
                if flags is None or not self.write_only_flags(flags):
                    self.read(node, p)  # O_RDWR: the file (a device: `/dev/ipmi0`) is read as well
        elif name in _OPENERS:
            index, key, default = _OPENERS[name]
            p = self.string(args[0] if args else kw.get("file") or kw.get("name") or kw.get("filename"))
            if name == "tarfile.open" and not args and "fileobj" in kw and "name" not in kw:
                return
            mode_node = args[index] if len(args) > index else kw.get(key) if key else None
            mode = self.string(mode_node) if mode_node is not None else default
            if name == "sqlite3.connect" or DYN in mode or any(c in mode for c in "wax+cn"):
                self.write(node, p)
                if DYN in mode or (name != "sqlite3.connect" and ("+" in mode or "r" in mode)):
                    self.read(node, p)  # "r+", "w+": read as well
            else:
                self.read(node, p)
        elif name in _READ_CALLS:
            p = self.string(args[0] if args else kw.get("filename") or kw.get("fname") or kw.get("file"))
            self.read(node, p)
            if name == "filecmp.cmp" and len(args) > 1:
                self.read(node, self.string(args[1]))
        elif name in ("fileinput.input", "fileinput.FileInput"):
            files = args[0] if args else kw.get("files")
            paths = self.strings(files) if files is not None else ["-"]
            inplace = kw.get("inplace")
            writes = inplace is not None and not (isinstance(inplace, ast.Constant) and not inplace.value)
            for p in paths:
                if p != "-":
                    self.read(node, p)
                    if writes:
                        self.write(node, p)
        elif name in _DELETE_CALLS:
            self.delete(node, self.path(args[0] if args else kw.get("path")))
        elif name in _WRITE_CALLS:
            self.write(node, self.path(args[0] if args else kw.get("path")))
        elif name in _LINK_CALLS:
            self.link(node, _arg(node, 0, "src"), _arg(node, 1, "dst"), _LINK_CALLS[name])
        elif name in _COPY_CALLS:
            src = args[0] if args else kw.get("src")
            dst = args[1] if len(args) > 1 else kw.get("dst")
            if src is not None and dst is not None:
                self.read(node, self.path(src))
                self.write(node, self.path(dst))
                if name in _MOVES:
                    self.delete(node, self.path(src))
            else:
                self.write(node, DYN)
        elif name == "shutil.unpack_archive":
            self.read(node, self.path(args[0] if args else kw.get("filename")))
            extract = args[1] if len(args) > 1 else kw.get("extract_dir")
            self.write(node, self.path(extract) if extract is not None else self.at(node, "."))
            self.out.unpacked.append(self.path(extract) if extract is not None else self.at(node, "."))
        elif name == "shutil.make_archive":
            base = args[0] if args else kw.get("base_name")
            self.write(node, self.path(base))
            root = args[2] if len(args) > 2 else kw.get("root_dir")
            sub = args[3] if len(args) > 3 else kw.get("base_dir")
            r = self.string(root) if root is not None else "."
            s = self.string(sub) if sub is not None else "."
            self.read(node, DYN if DYN in r or DYN in s else posixpath.join(r, s))
        elif name in _LOG_HANDLERS:
            target = _arg(node, *_LOG_HANDLERS[name])
            self.write(node, self.path(target) if target is not None else DYN)
        elif name == "logging.basicConfig":
            if "filename" in kw:
                self.write(node, self.path(kw["filename"]))
        elif name in _LOG_CONFIG_OPAQUE:
            self.opaque(f"python {name} builds logging handlers from text the gate cannot read")
        elif name == "logging.config.dictConfig":
            self.log_config(node)
        elif self.http(node, name) or self.socket_call(node, name):
            pass
        elif short in ("connect", "connect_ex", "sendto") and any(
            _normal(_const(a)).startswith(CONTROL_SOCKETS) for a in args if isinstance(a, ast.Constant)
        ):
            self.opaque("python talks to a control socket (systemd, D-Bus, libvirt, QEMU, Docker) directly")
        elif self.dumps_environment(node, name):
            out.dumps_environment = True
        elif name in _SIGNAL_CALLS:
            if name == "signal.pidfd_send_signal":
                fd = args[0] if args else None
                if not (isinstance(fd, ast.Call) and self.name(fd.func) == "os.pidfd_open"):
                    out.signals.append(DYN)
            else:
                pid = _const(args[0]) if args else DYN
                out.signals.append(pid if name in ("os.kill", "os.pidfd_open") else DYN)
        elif name in _CHDIR_CALLS:
            pass  # followed in `directories`
        elif name == "pydoc.pager" or name == "pydoc.getpager" or name == "help":
            self.opaque(f"python {name} runs the pager named in the environment")
        elif isinstance(node.func, ast.Attribute):
            self.method(node, name, kw)

    def method(self, node: ast.Call, name: str, kw: dict[str, ast.expr]) -> None:
        assert isinstance(node.func, ast.Attribute)
        out = self.out
        args = node.args
        attr = node.func.attr
        recv = node.func.value
        imported = isinstance(recv, ast.Name | ast.Attribute) and _dotted(recv).split(".")[0] in self.aliases
        recv_path = self.string(recv) if self.is_path(recv) else DYN
        if self.psutil and attr in _PSUTIL_SIGNALS:
            out.signals.append(DYN)
        elif attr in ("write_text", "write_bytes", "touch", "mkdir", "chmod", "lchmod", "symlink_to", "hardlink_to"):
            content = self.string(args[0]) if args and attr.startswith("write") else None
            if attr in ("symlink_to", "hardlink_to") and DYN not in recv_path:
                self.link(node, args[0] if args else kw.get("target"), recv, attr == "symlink_to")
            else:
                self.write(node, recv_path, None if content is None or DYN in content else content)
        elif attr == "link_to":
            self.link(node, recv, args[0] if args else kw.get("target"), False)
        elif attr in ("unlink", "rmdir"):
            self.delete(node, recv_path)
        elif attr in ("rename", "replace") and self.is_path(recv):
            self.delete(node, recv_path)
            self.write(node, self.path(args[0] if args else kw.get("target")))
        elif attr in ("read_text", "read_bytes"):
            self.read(node, recv_path)
        elif attr == "open" and (self.is_path(recv) or (self.pathlib and not imported)):
            mode_node = args[0] if args else kw.get("mode")
            mode = self.string(mode_node) if mode_node is not None else "r"
            if DYN in mode or any(c in mode for c in "wax+"):
                self.write(node, recv_path)
            else:
                self.read(node, recv_path)
        elif attr in ("extractall", "extract") and not (isinstance(recv, ast.Name) and recv.id in self.aliases):
            # tarfile/zipfile members land under `path` (the directory it runs in by default)
            target = _arg(node, 0 if attr == "extractall" else 1, "path")
            where = self.path(target) if target is not None else self.at(node, ".")
            self.write(node, where)
            self.out.unpacked.append(where)  # files of any name the gate has not seen (a .git/config)
            trusted = kw.get("filter")
            if trusted is not None and self.string(trusted) == "fully_trusted":
                self.write(node, DYN)  # members keep absolute paths and `..`: anywhere
        elif attr == "write" and isinstance(recv, ast.Call) and self.name(recv.func) in ("open", "io.open"):
            # open(p, "w").write("b"): the content is known
            paths = self.at_all(recv, self.string(recv.args[0]) if recv.args else DYN)
            content = self.string(args[0]) if args else DYN
            out.writes = [w for w in out.writes if w[0] not in paths]
            out.writes.extend((p, None if DYN in content else content) for p in paths)
        elif imported and not name.startswith(_NOT_READERS):
            # a library function given a path (`numpy.loadtxt("/x")`, `torch.save(m, "/y")`): it reads
            # the path, or writes it where its name says so
            writes = any(v in attr.lower() for v in _WRITE_VERBS)
            for a in [*args, *kw.values()]:
                p = self.string(a)
                p = p[len("file://") :] if p.startswith("file://") else p
                if DYN not in p and _looks_like_path(p):
                    (self.write if writes else self.read)(node, p)

    def process(self, node: ast.Call, name: str, kw: dict[str, ast.expr]) -> None:
        args = node.args
        target = args[0] if args else kw.get("args")
        shell = kw.get("shell")
        on_shell = shell is not None and not (isinstance(shell, ast.Constant) and not shell.value)
        exe_node = kw.get("executable")
        exe = self.string(exe_node) if exe_node is not None else None
        if exe is not None and DYN in exe:
            self.opaque(f"python {name} runs an executable only known at run time")
            return
        words = self.words(target)
        if words is None:
            text = self.string(target)
            if DYN in text:
                self.opaque(f"python {name} of a command built at run time")
                return
            words = [text] if not on_shell else None
            if on_shell:
                self.command(node, shlex.join([exe, "-c", text]) if exe else text, kw.get("cwd"), kw.get("env"))
                return
        assert words is not None
        if on_shell:
            # the first word is the shell's script; the rest are its $0, $1...
            script = words[0] if words else ""
            self.command(node, shlex.join([exe, "-c", *words]) if exe else script, kw.get("cwd"), kw.get("env"))
            return
        if exe is not None:
            words = [exe, *words[1:]]  # the program run is the executable; args[0] is only its name
            self.command(node, shlex.join(words), kw.get("cwd"), kw.get("env"))
        elif isinstance(target, ast.List | ast.Tuple):
            self.command(node, shlex.join(words), kw.get("cwd"), kw.get("env"))
        else:
            self.command(node, words[0], kw.get("cwd"), kw.get("env"))

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

    def link(self, node: ast.AST, src: ast.expr | None, dst: ast.expr | None, symbolic: bool) -> None:
        """`os.symlink(src, dst)` is `ln -s src dst`: judged by the rules on links."""
        s, d = self.string(src), self.string(dst)
        if DYN in s or DYN in d:
            self.write(node, d if DYN not in d else DYN)
            return
        assert isinstance(node, ast.Call)
        self.command(node, shlex.join(["ln", *(["-s"] if symbolic else []), "--", s, d]))

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


# NVML calls that change a GPU: judged as `nvidia-smi -i N -pl ...`, a setting of that GPU
_NVML_SETTERS = tuple(f"pynvml.nvmlDevice{v}" for v in ("Set", "Reset", "Clear", "Modify", "Create", "Destroy"))


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


def analyse(code: str) -> PyEffects:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError) as exc:
        return PyEffects(opaque=f"python code the gate cannot parse ({exc.__class__.__name__})")
    a = _Analysis(tree)
    a.imports()
    a.directories()
    a.env_set = a.env_changes(ast.Attribute(ast.Name("os", ast.Load()), "environ", ast.Load()))
    a.references()
    a.http_clients()
    a.unix_sockets = a.find_unix_sockets()
    a.calls()
    a.gpus()
    out = a.out
    # open(...).write(...) is visited after open(); keep the write with content
    seen: dict[str, str | None] = {}
    for p, c in out.writes:
        if p not in seen or seen[p] is None:
            seen[p] = c
    out.writes = list(seen.items())
    return out
