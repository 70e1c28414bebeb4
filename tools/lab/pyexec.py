"""`python3 ...` on the lab host: `-c` snippets that print versions (read with `ast`, never run),
`-m sglang.launch_server` (help, argument errors, launches), `-m sglang.bench_serving`, the P2P
integrity script, `pip show`. Nothing is executed."""

from __future__ import annotations

import ast
import json
import posixpath
from typing import TYPE_CHECKING

from tools.lab import bench_sim, gpuhealth, sglang_flags, sysfs
from tools.lab.launch import p2p_status, visible_gpus
from tools.lab.shell import Call, Result

if TYPE_CHECKING:
    from tools.lab.shell import Shell

KNOWN_MODULES = {
    "torch",
    "sglang",
    "sys",
    "platform",
    "json",
    "os",
    "time",
    "pynvml",
    "flashinfer",
    "transformers",
}


def _traceback(lines: list[str]) -> str:
    return "Traceback (most recent call last):\n" + "".join(line + "\n" for line in lines)


def _snippet(sh: Shell, c: Call, code: str) -> Result:
    s = sh.host.scenario
    sw = s.software
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return Result(
            stderr=f'  File "<string>", line {exc.lineno}\n    {exc.text or ""}\nSyntaxError: {exc.msg}\n',
            code=1,
            duration=0.1,
        )
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    for mod in sorted(imported):
        if mod not in KNOWN_MODULES:
            return Result(
                stderr=_traceback(
                    [
                        '  File "<string>", line 1, in <module>',
                        f"ModuleNotFoundError: No module named '{mod}'",
                    ]
                ),
                code=1,
                duration=0.2,
            )
    duration = 0.1 + (2.5 if "torch" in imported else 0) + (4.0 if "sglang" in imported else 0)
    visible = visible_gpus(s, c.env) or []
    if gpuhealth.cuda_init_error(s) is not None:
        visible = []  # torch.cuda.is_available() is False when CUDA cannot start
    nccl = tuple(int(x) for x in sw.nccl.split(".")[:3])
    cap = tuple(int(x) for x in s.gpus.compute_capability.split("."))
    p2p_ok = p2p_status(s) == "OK"
    table = {
        "torch.__version__": sw.torch,
        "torch.version.cuda": sw.torch_cuda,
        "'.'.join(map(str, torch.cuda.nccl.version()))": sw.nccl,
        "torch.cuda.nccl.version()": str(nccl),
        "torch.cuda.is_available()": str(bool(visible)),
        "torch.cuda.device_count()": str(len(visible)),
        "sglang.__version__": sw.sglang,
        "sys.version": f"{sw.python} (main, Feb  4 2025, 14:48:35) [GCC 13.3.0]",
        "platform.python_version()": sw.python,
        "sys.version_info[:2]": str(tuple(map(int, sw.python.split(".")[:2]))),
        "torch.cuda.get_device_capability()": str(cap),
        "torch.cuda.get_device_name()": s.gpus.name,
        "torch.cuda.get_arch_list()": str(gpuhealth.arch_list(s)),
        "torch.cuda.is_available() and torch.cuda.get_arch_list()": str(gpuhealth.arch_list(s)),
    }
    for i in range(len(visible)):
        table[f"torch.cuda.get_device_name({i})"] = s.gpus.name
        table[f"torch.cuda.get_device_capability({i})"] = str(cap)
        for j in range(len(visible)):
            table[f"torch.cuda.can_device_access_peer({i}, {j})"] = str(p2p_ok and i != j)

    def ev(node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant):
            return str(node.value)
        if isinstance(node, ast.JoinedStr):
            parts = [ev(v.value) if isinstance(v, ast.FormattedValue) else ev(v) for v in node.values]
            return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
        size = _file_size(sh, node)
        if size is not None:
            return size
        return table.get(ast.unparse(node))

    # torch warns on import when its kernels do not cover the GPU (torch/cuda/__init__.py).
    warn = gpuhealth.arch_warning(s) if "torch" in imported and visible and not gpuhealth.arch_supported(s) else ""
    out: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            continue
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print":
            values = [ev(a) for a in call.args]
            if any(v is None for v in values):
                bad = next(ast.unparse(a) for a, v in zip(call.args, values, strict=True) if v is None)
                return Result(
                    "".join(out),
                    _traceback(
                        [
                            '  File "<string>", line 1, in <module>',
                            f"NotImplementedError: the lab does not simulate {bad}",
                        ]
                    ),
                    1,
                    duration=duration,
                )
            out.append(" ".join(v or "" for v in values) + "\n")
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = ev(stmt.value)  # name = <a known value>: later prints may use it
            if value is None:
                return Result(
                    "".join(out),
                    _traceback(
                        [
                            '  File "<string>", line 1, in <module>',
                            f"NotImplementedError: the lab does not simulate {ast.unparse(stmt.value)[:80]}",
                        ]
                    ),
                    1,
                    duration=duration,
                )
            table[stmt.targets[0].id] = value
        else:
            return Result(
                "".join(out),
                _traceback(
                    [
                        '  File "<string>", line 1, in <module>',
                        f"NotImplementedError: the lab does not simulate {ast.unparse(stmt)[:80]}",
                    ]
                ),
                1,
                duration=duration,
            )
    return Result("".join(out), warn, duration=duration)


def _file_size(sh: Shell, node: ast.expr) -> str | None:
    """os.path.getsize(PATH) / os.stat(PATH).st_size: a file's size as the host knows it (a shard's
    real size, which may disagree with the safetensors index)."""
    call = node.value if isinstance(node, ast.Attribute) and node.attr == "st_size" else node
    if not isinstance(call, ast.Call) or len(call.args) != 1 or not isinstance(call.args[0], ast.Constant):
        return None
    name = ast.unparse(call.func)
    if not (name == "os.path.getsize" and call is node) and not (name == "os.stat" and call is not node):
        return None
    given = str(call.args[0].value)
    entry = sh.host.files.get(sh.fs.canonical(sh.path(given)))
    if entry is None:
        raise _PyError(f"FileNotFoundError: [Errno 2] No such file or directory: '{given}'")
    return str(entry.size_at(sh.host.clock.now()))


class _PyError(Exception):
    """A Python exception the snippet raises (its last traceback line)."""


def _p2p_check(sh: Shell, c: Call, args: list[str]) -> Result:
    """tools/scripts/p2p_check.py: one JSON object (gpus, size_mb, pairs, error, torch, all_ok); exit 1
    unless every pair copied correctly. GPU numbers are nvidia-smi indexes (the script pins
    CUDA_VISIBLE_DEVICES to them itself)."""
    s = sh.host.scenario
    gpus: list[int] = []
    size_mb = 64
    for i, a in enumerate(args):
        if a == "--gpus" and i + 1 < len(args):
            gpus = [int(x) for x in args[i + 1].split(",") if x.strip().isdigit()]
        if a == "--size-mb" and i + 1 < len(args):
            size_mb = int(args[i + 1])
    if not gpus:
        usage = "usage: p2p_check.py [-h] --gpus GPUS [--size-mb SIZE_MB] [--iters ITERS]\n"
        return Result(stderr=usage + "p2p_check.py: error: the following arguments are required: --gpus\n", code=2)
    result: dict[str, object] = {"gpus": gpus, "size_mb": size_mb, "pairs": [], "error": None}
    result["torch"] = s.software.torch
    visible = visible_gpus(s, {"CUDA_VISIBLE_DEVICES": ",".join(map(str, gpus))}) or []
    if len(visible) < len(gpus):
        result["error"] = f"CUDA sees {len(visible)} of the {len(gpus)} requested GPUs"
        result["all_ok"] = False
        return Result(json.dumps(result) + "\n", code=1, duration=4.0)
    sh.check_gpus(gpus, "p2p integrity check")
    rng = sh.lab.rng("p2p")
    claimed = p2p_status(s) == "OK"
    corrupt = claimed and s.iommu.p2p_dma == "corrupt"
    base_bw = 380.0 if s.gpus.interconnect == "nvlink" else 51.0 if claimed else 11.5
    pairs: list[dict[str, object]] = []
    t = sh.host.clock.now()
    for src in gpus:
        for dst in gpus:
            if src == dst:
                continue
            pairs.append(
                {
                    "src": src,
                    "dst": dst,
                    "claimed_access": claimed,
                    "copy_ok": not corrupt,
                    "mismatches": size_mb * 1024 * 1024 // 4 if corrupt else 0,
                    "bandwidth_gbps": round(base_bw * (0.95 + 0.1 * rng.random()), 3),
                    "error": None,
                }
            )
            if corrupt:
                dev = s.visible_devices()[dst]
                addr = 0x3A0000000 + 0x200000 * len(pairs)
                for line in sysfs.dma_fault_line(s.iommu.vendor, dev.bus_id, dev.iommu_group + 0x10, addr):
                    sh.host.log_kernel(t + 0.1 * len(pairs), line)
    result["pairs"] = pairs
    result["all_ok"] = all(p["copy_ok"] for p in pairs)
    return Result(json.dumps(result) + "\n", code=0 if result["all_ok"] else 1, duration=4.0 + 0.5 * len(pairs))


def _module(sh: Shell, c: Call, module: str, args: list[str]) -> Result:
    version = sh.host.scenario.software.sglang
    if module == "sglang.launch_server":
        if "-h" in args or "--help" in args:
            return Result(sglang_flags.help_text(version), duration=9.0)
        return sh.lab.launch_from_shell(c, args)
    if module in ("sglang.bench_serving", "sglang.benchmark.serving"):
        return sh.lab.bench_from_shell(c, args)
    if module == "pip":
        return pip(sh, args)
    if module.split(".")[0] in KNOWN_MODULES:
        return Result(stderr=f"{posixpath.basename(c.argv[0])}: No module named {module}\n", code=1, duration=3.0)
    return Result(
        stderr=f"{posixpath.basename(c.argv[0])}: Error while finding module specification for "
        f"'{module}' (ModuleNotFoundError: No module named '{module.split('.')[0]}')\n",
        code=1,
        duration=0.1,
    )


def python(sh: Shell, c: Call) -> Result:
    args = c.argv[1:]
    while args and args[0] in ("-u", "-B", "-E", "-s", "-O"):
        args = args[1:]
    if not args:
        return Result(duration=0.05)
    if args[0] in ("--version", "-V"):
        return Result(f"Python {sh.host.scenario.software.python}\n", duration=0.05)
    if args[0] == "-c":
        try:
            return _snippet(sh, c, args[1] if len(args) > 1 else "")
        except _PyError as exc:
            return Result(stderr=_traceback(['  File "<string>", line 1, in <module>', str(exc)]), code=1, duration=0.1)
    if args[0] == "-m" and len(args) > 1:
        return _module(sh, c, args[1], args[2:])
    script = sh.path(args[0])
    if not sh.fs.exists(script):
        return Result(
            stderr=f"{posixpath.basename(c.argv[0])}: can't open file '{script}': [Errno 2] No such file "
            "or directory\n",
            code=2,
            duration=0.05,
        )
    if script.endswith("p2p_check.py"):
        return _p2p_check(sh, c, args[1:])
    return Result(
        stderr=_traceback(
            [
                f'  File "{script}", line 1, in <module>',
                "NotImplementedError: the lab only simulates p2p_check.py scripts",
            ]
        ),
        code=1,
        duration=0.5,
    )


def pip(sh: Shell, args: list[str]) -> Result:
    sw = sh.host.scenario.software
    versions = {
        "torch": sw.torch,
        "sglang": sw.sglang,
        "nvidia-nccl-cu13": sw.nccl,
        "nvidia-nccl-cu12": sw.nccl,
    }
    if args and args[0] == "show":
        out, missing = [], []
        for name in args[1:]:
            if name in versions:
                out.append(
                    f"Name: {name}\nVersion: {versions[name]}\nLocation: /usr/local/lib/python3.12/dist-packages\n"
                )
            else:
                missing.append(name)
        err = f"WARNING: Package(s) not found: {', '.join(missing)}\n" if missing else ""
        return Result("---\n".join(out), err, 1 if missing and not out else 0, duration=0.8)
    if args and args[0] in ("list", "freeze"):
        sep = "==" if args[0] == "freeze" else " "
        return Result("".join(f"{k}{sep}{v}\n" for k, v in sorted(versions.items())), duration=0.8)
    return Result(stderr="ERROR: the lab host has no network access for pip\n", code=1, duration=1.0)


def bench_parse(args: list[str]) -> object:
    return bench_sim.parser().parse_args(args)
