"""observe_topology: `nvidia-smi topo -m` and `topo -p2p r` as matrices, per GPU pair.

Newer drivers wrap the `topo -m` header in ANSI underline codes; they are stripped before parsing.
Cells are read by their position under the header (tab-separated, empty cells kept): on a VM the
CPU and NUMA affinity cells can be empty. Rows for NICs (NIC0.., or mlx5_0.. on older drivers) are
kept apart from the GPU matrix. A cell `NV#` is an NVLink bond, every other connection (PIX, PXB,
PHB, NODE, SYS, and SOC on old drivers) goes over PCIe.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field

from tools.gpus import NoNvidiaDriver, UnparseableOutput, load_nvml, no_driver_reason, observation_failure
from tools.local import LocalTarget
from tools.registry import ToolContext, ToolOutput, tool
from tools.target import Target

TOPO_MATRIX = "nvidia-smi topo -m"
TOPO_P2P_READ = "nvidia-smi topo -p2p r"

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")

P2P_LEGEND = {
    "X": "self",
    "OK": "ok",
    "CNS": "chipset not supported",
    "GNS": "GPU not supported",
    "TNS": "topology not supported",
    "NS": "not supported",
    "U": "unknown",
}

NVML_P2P_STATUS = {0: "OK", 1: "CNS", 2: "GNS", 3: "TNS", 4: "DISABLED_BY_REGKEY", 5: "NS", 6: "U"}


class GpuPair(BaseModel):
    src: int
    dst: int
    link: str = Field(description="The topo -m cell: NV#, PIX, PXB, PHB, NODE or SYS.")
    nvlink: bool
    p2p_read: str | None = Field(default=None, description="The topo -p2p r cell: OK, NS, CNS, GNS, TNS, U.")
    p2p_ok: bool | None = None


class GpuAffinity(BaseModel):
    gpu: int
    cpu_affinity: str | None = None
    numa_affinity: str | None = None
    gpu_numa_id: str | None = None


class Topology(BaseModel):
    gpus: list[int]
    matrix: dict[str, dict[str, str]] = Field(description="topo -m cells, row label -> column label -> cell.")
    p2p_read: dict[str, dict[str, str]] = Field(default_factory=dict, description="topo -p2p r cells.")
    pairs: list[GpuPair]
    affinity: list[GpuAffinity]
    nics: list[str] = Field(default_factory=list)
    interconnect: str = Field(description="'nvlink', 'pcie' or 'mixed' across the GPU pairs.")
    p2p_all_ok: bool | None = None
    nvml_p2p_read: dict[str, dict[str, str]] | None = Field(
        default=None, description="NVML's P2P read status per pair, when the target is local and NVML loads."
    )


class ObserveTopologyArgs(BaseModel):
    """No arguments: the whole GPU topology is reported."""


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


def _table(text: str) -> tuple[list[str], list[list[str]]]:
    """Header cells and data rows of a tab-separated nvidia-smi table (up to the legend)."""
    lines = strip_ansi(text).replace("\r", "").split("\n")
    header: list[str] | None = None
    rows: list[list[str]] = []
    for raw in lines:
        if raw.strip().startswith("Legend"):
            break
        if not raw.strip():
            if header is not None and rows:
                break
            continue
        cells = [c.strip() for c in raw.split("\t")]
        if header is None:
            if not re.match(r"^GPU\d+$", cells[1] if len(cells) > 1 else ""):
                raise UnparseableOutput(f"unexpected nvidia-smi topology header: {raw!r}")
            header = cells[1:]
            while header and not header[-1]:
                header.pop()
            continue
        rows.append(cells)
    if header is None:
        raise UnparseableOutput("no topology table found in nvidia-smi output")
    return header, rows


def _is_device(label: str) -> bool:
    """Device columns are one word (GPU0, NIC0, or an RDMA name like mlx5_0 on older drivers);
    the descriptive columns after them have spaces (CPU Affinity, NUMA Affinity, GPU NUMA ID)."""
    return bool(label) and " " not in label


def _described(labels: list[str], cells: list[str]) -> dict[str, str]:
    """The cells after the device columns, by header label, empty cells kept in their place.

    Rows carry one cell more than the header before the last label (the driver pads
    "GPU NUMA ID" with a second tab): the labels but the last take the cells in order, and the
    last takes the row's last non-empty cell after them."""
    if len(cells) <= len(labels):
        return dict(zip(labels, cells, strict=False))
    named = dict(zip(labels[:-1], cells, strict=False))
    rest = [c for c in cells[len(labels) - 1 :] if c]
    named[labels[-1]] = rest[-1] if rest else ""
    return named


def parse_topo_matrix(text: str) -> tuple[dict[str, dict[str, str]], list[GpuAffinity], list[str]]:
    header, rows = _table(text)
    count = 0
    while count < len(header) and _is_device(header[count]):
        count += 1
    devices, extra = header[:count], header[count:]
    matrix: dict[str, dict[str, str]] = {}
    affinity: list[GpuAffinity] = []
    nics: list[str] = []
    for cells in rows:
        label = cells[0]
        if label not in devices:
            continue
        # Cells by position from the header: an empty cell (no CPU affinity in a VM) keeps its column.
        values = cells[1:]
        matrix[label] = {dev: values[i] if i < len(values) else "" for i, dev in enumerate(devices)}
        if not re.match(r"^GPU\d+$", label):
            nics.append(label)
            continue
        named = _described(extra, values[len(devices) :])

        def pick(key: str, _named: dict[str, str] = named) -> str | None:
            value = _named.get(key, "").strip()
            return value or None

        affinity.append(
            GpuAffinity(
                gpu=int(label[3:]),
                cpu_affinity=pick("CPU Affinity"),
                numa_affinity=pick("NUMA Affinity"),
                gpu_numa_id=pick("GPU NUMA ID"),
            )
        )
    if not any(k.startswith("GPU") for k in matrix):
        raise UnparseableOutput("nvidia-smi topo -m listed no GPU rows")
    return matrix, affinity, nics


def parse_topo_p2p(text: str) -> dict[str, dict[str, str]]:
    header, rows = _table(text)
    matrix: dict[str, dict[str, str]] = {}
    for cells in rows:
        if not re.match(r"^GPU\d+$", cells[0]):
            continue
        values = cells[1:]
        matrix[cells[0]] = {dev: values[i] if i < len(values) else "" for i, dev in enumerate(header)}
        for cell in matrix[cells[0]].values():
            if cell not in P2P_LEGEND:
                raise UnparseableOutput(f"unknown P2P status {cell!r} in nvidia-smi topo -p2p r")
    return matrix


def build(
    matrix: dict[str, dict[str, str]],
    affinity: list[GpuAffinity],
    nics: list[str],
    p2p: dict[str, dict[str, str]],
) -> Topology:
    gpus = sorted(int(k[3:]) for k in matrix if k.startswith("GPU"))
    pairs: list[GpuPair] = []
    for a in gpus:
        for b in gpus:
            if a == b:
                continue
            link = matrix[f"GPU{a}"].get(f"GPU{b}", "")
            cell = p2p.get(f"GPU{a}", {}).get(f"GPU{b}")
            pairs.append(
                GpuPair(
                    src=a,
                    dst=b,
                    link=link,
                    nvlink=link.startswith("NV"),
                    p2p_read=cell,
                    p2p_ok=None if cell is None else cell == "OK",
                )
            )
    kinds = {p.nvlink for p in pairs}
    interconnect = "mixed" if len(kinds) > 1 else ("nvlink" if kinds == {True} else "pcie")
    oks = [p.p2p_ok for p in pairs if p.p2p_ok is not None]
    return Topology(
        gpus=gpus,
        matrix=matrix,
        p2p_read=p2p,
        pairs=pairs,
        affinity=affinity,
        nics=nics,
        interconnect=interconnect,
        p2p_all_ok=False if not all(oks) else (True if oks and len(oks) == len(pairs) else None),
    )


def nvml_p2p_index(nvml: Any) -> int:
    """NVML_P2P_CAPS_INDEX_READ; the package defines it as the tuple `(0,)` (a stray comma)."""
    value = getattr(nvml, "NVML_P2P_CAPS_INDEX_READ", 0)
    if isinstance(value, tuple):
        value = value[0] if value else 0
    return int(value)


def read_nvml_p2p(nvml: Any) -> dict[str, dict[str, str]]:
    """P2P read status for every ordered pair through an initialised NVML module."""
    index = nvml_p2p_index(nvml)
    count = nvml.nvmlDeviceGetCount()
    handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
    result: dict[str, dict[str, str]] = {}
    for a in range(count):
        row: dict[str, str] = {}
        for b in range(count):
            if a == b:
                row[f"GPU{b}"] = "X"
                continue
            try:
                status = int(nvml.nvmlDeviceGetP2PStatus(handles[a], handles[b], index))
            except nvml.NVMLError:
                status = 6
            row[f"GPU{b}"] = NVML_P2P_STATUS.get(status, "U")
        result[f"GPU{a}"] = row
    return result


def observe(target: Target) -> Topology:
    result = target.run(TOPO_MATRIX, timeout=60)
    reason = no_driver_reason(result)
    if reason is not None:
        raise NoNvidiaDriver(reason)
    if not result.ok:
        raise UnparseableOutput(f"{TOPO_MATRIX} failed (exit {result.exit_code}): {result.stderr.strip()}")
    matrix, affinity, nics = parse_topo_matrix(result.stdout)
    p2p_result = target.run(TOPO_P2P_READ, timeout=60)
    p2p = parse_topo_p2p(p2p_result.stdout) if p2p_result.ok else {}
    topo = build(matrix, affinity, nics, p2p)
    if isinstance(target, LocalTarget):
        nvml = load_nvml()
        if nvml is not None:
            try:
                topo.nvml_p2p_read = read_nvml_p2p(nvml)
            finally:
                nvml.nvmlShutdown()
    return topo


def _summary(topo: Topology) -> str:
    lines = [f"{len(topo.gpus)} GPU(s), interconnect {topo.interconnect}"]
    for p in topo.pairs:
        if p.src < p.dst:
            back = next((q for q in topo.pairs if q.src == p.dst and q.dst == p.src), None)
            p2p = p.p2p_read or "?"
            if back is not None and back.p2p_read != p.p2p_read:
                p2p += f"/{back.p2p_read or '?'}"
            lines.append(f"GPU{p.src}-GPU{p.dst}: {p.link} ({'NVLink' if p.nvlink else 'PCIe'}), P2P read {p2p}")
    for a in topo.affinity:
        lines.append(f"GPU{a.gpu}: CPUs {a.cpu_affinity or '?'}, NUMA {a.numa_affinity or '?'}")
    return "\n".join(lines)


@tool(read_only=True)
def observe_topology(ctx: ToolContext, args: ObserveTopologyArgs) -> ToolOutput:
    """Read the GPU interconnect: `nvidia-smi topo -m` (NVLink vs PCIe path per GPU pair, CPU/NUMA
    affinity) and `nvidia-smi topo -p2p r` (whether the driver claims P2P reads work per pair)."""
    try:
        topo = observe(ctx.target)
    except (NoNvidiaDriver, UnparseableOutput) as exc:
        return observation_failure("observe_topology", ctx.target, exc)
    return ToolOutput(tool="observe_topology", ok=True, summary=_summary(topo), data=topo.model_dump(mode="json"))
