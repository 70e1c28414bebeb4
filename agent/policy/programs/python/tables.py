"""What the Python analyser knows by name: modules and calls that run, read, write, delete,
signal or load code, and which are opaque to the gate."""

from __future__ import annotations

import ast
import re

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
    # a device node reaches hardware by its major:minor whatever it is named (`/dev/mem` as `./m`)
    "os.mknod",
    "os.makedev",
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
    # control-plane clients: they stop VMs, power-cycle hosts through their BMC, run commands on
    # other hosts or start containers, with arguments the gate cannot follow through their APIs
    "libvirt",
    "libvirt_qemu",
    "proxmoxer",
    "paramiko",
    "asyncssh",
    "netmiko",
    "spur",
    "pyghmi",
    "pyipmi",
    "sushy",
    "redfish",
    "pyVmomi",
    "ovirtsdk4",
    "docker",
    "podman",
    "kubernetes",
    "salt",
    "ansible",
    "ansible_runner",
    "qemu",
    "qmp",
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


_NAMED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.MatchAs, ast.MatchStar)


# NVML calls that change a GPU: judged as `nvidia-smi -i N -pl ...`, a setting of that GPU
_NVML_SETTERS = tuple(f"pynvml.nvmlDevice{v}" for v in ("Set", "Reset", "Clear", "Modify", "Create", "Destroy"))


# The known-safe subset: modules whose effects the analyser models (os, subprocess, socket, HTTP
# clients, GPU frameworks) or that only compute. Code importing anything else (an SDK: libvirt,
# proxmoxer, paramiko, pyghmi, docker) does what the gate cannot establish, so it asks.
SAFE_MODULES = frozenset(
    (
        # the standard library's computation, text, data and time
        "__future__", "abc", "argparse", "array", "ast", "base64", "binascii", "bisect", "calendar",
        "cmath", "codecs", "collections", "colorsys", "concurrent", "contextlib", "contextvars", "copy", "csv",
        "dataclasses", "datetime", "decimal", "difflib", "enum", "errno", "fnmatch", "fractions", "functools",
        "gc", "getopt", "glob", "hashlib", "heapq", "hmac", "html", "inspect", "io", "ipaddress", "itertools",
        "json", "keyword", "locale", "math", "numbers", "operator", "optparse", "pprint", "queue", "random",
        "re", "reprlib", "secrets", "statistics", "string", "struct", "textwrap", "threading", "time",
        "tomllib", "traceback", "types", "typing", "unicodedata", "uuid", "warnings", "weakref", "zlib",
        "zoneinfo", "gzip", "bz2", "lzma", "configparser", "stat", "platform", "sysconfig", "resource",
        "atexit", "linecache", "filecmp", "tokenize", "token", "dis", "pwd", "grp",
        # the standard library the analyser models call by call
        "os", "posix", "posixpath", "sys", "subprocess", "shutil", "pathlib", "tempfile", "signal", "socket",
        "logging", "tarfile", "zipfile", "urllib", "http", "fcntl", "select", "selectors", "asyncio",
        "multiprocessing", "sqlite3", "shlex", "mmap", "pydoc", "builtins",
        # GPU frameworks and the agent's own tools (GPUs followed in gpus.py), HTTP clients (network.py)
        "torch", "numpy", "cupy", "numba", "jax", "tensorflow", "transformers", "sglang", "vllm", "pynvml",
        "psutil", "requests", "httpx", "urllib3", "aiohttp", "yaml", "safetensors", "tokenizers", "packaging",
        "tqdm", "triton", "flashinfer", "einops",
    )
)  # fmt: skip
