"""Host facts, `{name}` templates in rules, path normalisation and wildcard-aware matching.

Words the gate cannot know exactly carry markers: `DYN` stands for text from a variable or a
substitution (it may hold anything, `/..` included), `GLOB` for an unquoted glob wildcard (it
stays inside one path component). Rules that deny or ask match when a word *may* match;
rules that allow match only when it *surely* does. That asymmetry is what fails closed.
"""

from __future__ import annotations

import fnmatch
import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from agent.policy.devices import device_name, numbered_node
from agent.policy.model import HostFacts

DYN = "\x00"
GLOB = "\x01"
MARKERS = (DYN, GLOB)

FACT_NAMES = (
    "work_dir",
    "home",
    "agent_pid_files",
    "agent_gpus",
    "agent_gpu_pci",
    "agent_gpu_uuids",
    "protected_gpus",
    "protected_pci",
    "protected_iommu_groups",
    "protected_vm_ids",
    "protected_paths",
    "secret_paths",
)
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
DEFAULT_WORK_DIR = "~/opsagent-work"


@dataclass(frozen=True)
class Facts:
    """The facts one evaluation runs with: policy facts, then what the running agent knows."""

    work_dir: str
    home: str | None
    cwd: str | None
    agent_pid_files: tuple[str, ...]
    own_pids: frozenset[int]
    agent_gpus: tuple[int, ...] | None
    agent_gpu_pci: tuple[str, ...]
    protected_gpus: tuple[int, ...]
    protected_pci: tuple[str, ...]
    protected_iommu_groups: tuple[int, ...]
    pci_iommu_group: Mapping[str, int]
    protected_vm_ids: tuple[str, ...]
    protected_paths: tuple[str, ...]
    secret_paths: tuple[str, ...]
    known_symlinks: Mapping[str, str] = field(default_factory=dict)
    agent_gpu_uuids: tuple[str, ...] = ()

    def values(self, name: str) -> list[str]:
        """The strings `{name}` expands to (several for a list fact, none when unknown)."""
        value = getattr(self, name)
        if value is None:
            return []
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value]

    def key(self) -> tuple[object, ...]:
        return (
            self.work_dir,
            self.home,
            self.agent_pid_files,
            self.agent_gpus,
            self.agent_gpu_pci,
            self.agent_gpu_uuids,
            self.protected_gpus,
            self.protected_pci,
            self.protected_iommu_groups,
            self.protected_vm_ids,
            self.protected_paths,
            self.secret_paths,
        )


def merge_facts(parts: Iterable[tuple[str, HostFacts]]) -> HostFacts:
    """Merge the facts of several files: protected sets unite, the agent's GPUs intersect.

    Two files naming different work directories (or homes) is a conflict, not a guess.
    """
    merged: dict[str, object] = {}
    origin: dict[str, str] = {}
    for source, facts in parts:
        for name in facts.model_fields_set:
            value = getattr(facts, name)
            if name in ("work_dir", "home", "cwd"):
                if name in merged and merged[name] != value:
                    raise ValueError(
                        f"{source}: facts.{name} is {value!r} but {origin[name]} says {merged[name]!r} "
                        "(fix: give it in one file only)"
                    )
                merged[name] = value
                origin[name] = source
            elif name == "agent_gpus":
                prev = merged.get(name)
                merged[name] = value if prev is None else [g for g in prev if g in (value or [])]  # type: ignore[attr-defined]
            elif isinstance(value, dict):
                merged[name] = {**dict(merged.get(name, {})), **value}  # type: ignore[call-overload]
            else:
                prev_list = list(merged.get(name, []))  # type: ignore[call-overload]
                merged[name] = prev_list + [v for v in value if v not in prev_list]
    return HostFacts.model_validate(merged)


def _home_from(work_dir: str) -> str | None:
    m = re.match(r"^(/home/[^/]+|/root)(/|$)", work_dir)
    return m.group(1) if m else None


def effective_facts(
    policy: HostFacts,
    *,
    work_dir: str | None = None,
    pid_files: Iterable[str] = (),
    own_pids: Iterable[int] = (),
    runtime: HostFacts | None = None,
) -> Facts:
    """Policy facts win for what is protected; the running agent fills what the policy leaves open."""
    rt = runtime or HostFacts()
    wd_raw = policy.work_dir or work_dir or rt.work_dir or DEFAULT_WORK_DIR
    home = policy.home or rt.home or _home_from(wd_raw)
    wd = normalise_path(wd_raw, cwd="/", home=home)
    pid_patterns = [*policy.agent_pid_files, *rt.agent_pid_files, f"{wd}/run/*.pid"]
    pid_patterns += [normalise_path(p, cwd=wd, home=home) for p in pid_files]
    gpus = policy.agent_gpus if policy.agent_gpus is not None else rt.agent_gpus
    cwd = policy.cwd or rt.cwd
    return Facts(
        work_dir=wd,
        home=home,
        cwd=normalise_path(cwd, cwd="/", home=home) if cwd else wd,
        agent_pid_files=tuple(dict.fromkeys(pid_patterns)),
        own_pids=frozenset(own_pids),
        agent_gpus=tuple(gpus) if gpus is not None else None,
        agent_gpu_pci=tuple(policy.agent_gpu_pci or rt.agent_gpu_pci),
        protected_gpus=tuple(dict.fromkeys([*policy.protected_gpus, *rt.protected_gpus])),
        protected_pci=tuple(dict.fromkeys([*policy.protected_pci, *rt.protected_pci])),
        protected_iommu_groups=tuple(dict.fromkeys([*policy.protected_iommu_groups, *rt.protected_iommu_groups])),
        pci_iommu_group={**rt.pci_iommu_group, **policy.pci_iommu_group},
        protected_vm_ids=tuple(dict.fromkeys([*policy.protected_vm_ids, *rt.protected_vm_ids])),
        protected_paths=tuple(dict.fromkeys([*policy.protected_paths, *rt.protected_paths])),
        secret_paths=tuple(dict.fromkeys([*policy.secret_paths, *rt.secret_paths])),
        known_symlinks={**rt.known_symlinks, **policy.known_symlinks},
        agent_gpu_uuids=tuple(policy.agent_gpu_uuids or rt.agent_gpu_uuids),
    )


def placeholders(template: str) -> list[str]:
    return _PLACEHOLDER.findall(template)


def expand(template: str, facts: Facts) -> list[str]:
    """`/sys/kernel/iommu_groups/{protected_iommu_groups}/**` -> one pattern per group."""
    names = placeholders(template)
    if not names:
        return [template]
    choices = [facts.values(n) for n in names]
    out: list[str] = []
    for combo in itertools.product(*choices):
        text = template
        for name, value in zip(names, combo, strict=True):
            text = text.replace("{" + name + "}", value, 1)
        if name_is_path(template):
            text = normalise_path(text, cwd=facts.work_dir, home=facts.home)
        out.append(text)
    return out


def name_is_path(template: str) -> bool:
    return template.startswith(("/", "~", "{work_dir}", "{home}", "{protected_paths}", "{secret_paths}"))


# ---------------------------------------------------------------- paths


def normalise_path(raw: str, *, cwd: str | None, home: str | None) -> str:
    """Lexically normalise: `~`, relative to `cwd`, `.`/`..`/`//`; keeps markers as they are."""
    path = raw
    if path == "~" or path.startswith("~/"):
        path = (home or "~") + path[1:]
    elif path.startswith("~"):
        path = DYN + path[path.find("/") :] if "/" in path else DYN
    if not path.startswith(("/", "~", DYN)):  # (a $HOME only known at run time leaves DYN first)
        path = (cwd if cwd is not None else DYN) + "/" + path
    root = "~" if path.startswith("~") else ""
    body = path[1:] if root else path
    parts: list[str] = []
    sysfs = path.startswith("/sys/")
    for part in body.split("/"):
        if part in ("", "."):
            continue
        if part == ".." and sysfs and len(parts) > 1:
            # sysfs is symlinks (`.../X/driver`, `.../iommu_group`); the kernel goes up from where a
            # link leads, not from the link: `.../driver/../vfio-pci` is a driver of any name
            parts = [DYN]
            continue
        if part == "..":
            if parts and parts[-1] != ".." and DYN not in parts[-1]:
                if not root and parts[0] != DYN:
                    parts = _up_from("/" + "/".join(parts), home)
                    continue
                parts.pop()
            elif parts and DYN in parts[-1]:
                parts.append(part)
            continue
        parts.append(part)
    if parts and parts[0].startswith(DYN):
        return "/".join(parts)
    return (root or "") + "/" + "/".join(parts)


# Directories every host has as symlinks (merged /usr, /var/run): `..` goes up from where they lead
# (`/var/run/../etc/shadow` is `/etc/shadow`, since `/var/run` is `/run`).
SYSTEM_LINKS = {
    "/var/run": "/run",
    "/var/lock": "/run/lock",
    "/bin": "/usr/bin",
    "/sbin": "/usr/sbin",
    "/lib": "/usr/lib",
    "/lib64": "/usr/lib64",
    "/lib32": "/usr/lib32",
    "/libx32": "/usr/libx32",
    "/usr/tmp": "/var/tmp",
    "/dev/fd": "/proc/self/fd",
}
# Directories that are real on every host: `..` after them, or after one in a home (the agent's
# own tree; links there are its own, see README "Known limits"), is their parent. After any other
# directory (which may be a link the gate does not know, `/models/x`), where `..` leads is
# unknown, so the path is too.
REAL_DIRS = frozenset(
    ("/etc", "/usr", "/usr/lib", "/usr/local", "/usr/share", "/usr/bin", "/usr/sbin", "/usr/include", "/usr/src",
     "/usr/libexec", "/usr/local/bin", "/usr/local/lib", "/var", "/var/lib", "/var/log", "/var/cache", "/var/tmp",
     "/var/spool", "/var/backups", "/home", "/root", "/tmp", "/opt", "/srv", "/mnt", "/media", "/run", "/dev",
     "/proc", "/boot", "/etc/ssh", "/etc/ssl", "/etc/systemd", "/etc/default", "/run/user", "/dev/shm")
)  # fmt: skip


def _up_from(directory: str, home: str | None) -> list[str]:
    """The components of `directory/..`: through a system link, from a real directory or one
    under the home, its parent; from any other, unknown (DYN)."""
    directory = SYSTEM_LINKS.get(directory, directory)
    homes = ("/home/", home.rstrip("/") + "/") if home and home != "/" else ("/home/",)
    if directory in REAL_DIRS or directory.startswith(homes):
        return [c for c in directory.split("/")[:-1] if c]
    return [DYN]


_PCI = r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
_SYS_DEVICES = re.compile(rf"^/sys/devices/(?:[^/]+/)*?(?:{_PCI}/)*({_PCI})(/.*)?$")
_BUS_DEV = re.compile(rf"^/sys/bus/pci/devices/({_PCI})(/.*)?$")
_GROUP_DEV = re.compile(rf"^/sys/kernel/iommu_groups/[^/]+/devices/({_PCI})(/.*)?$")
_DRIVER_DEV = re.compile(rf"^/sys/bus/pci/drivers/[^/]+/({_PCI})(/.*)?$")
# a device reached through a bridge's directory or another class's link to it:
# `/sys/bus/pci/devices/BRIDGE/DEV/rom`, `/sys/class/iommu/dmar0/devices/DEV/resource0`
_NESTED_DEV = re.compile(rf"^/sys/(?:bus/pci/devices/{_PCI}|class/[^/]+/[^/]+/devices?)/(?:{_PCI}/)*({_PCI})(/.*)?$")
_PROC_ROOT = re.compile(r"^/proc/(?:self|thread-self|\d+|" + DYN + r")(?:/task/[^/]+)?/root(/.*)?$")
# `/proc/N/cwd/...` is under that process's directory, which the gate cannot know (PID 1's is `/`)
_PROC_CWD = re.compile(r"^/proc/(?:self|thread-self|\d+|" + DYN + r")(?:/task/[^/]+)?/cwd(/.*)?$")


def aliases(path: str, facts: Facts, extra_links: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Every name the kernel would resolve `path` to that the policy might name.

    sysfs reaches one device through many symlinks (`/sys/bus/pci/devices/X`,
    `/sys/devices/pci.../X`, `.../iommu_group/`, `.../driver/`); `/proc/N/root` is `/`.
    """
    links = {**facts.known_symlinks, **extra_links} if extra_links else facts.known_symlinks
    if not links and not path.startswith(("/proc/", "/sys/", "/dev/")):
        return (path,)  # every other step below needs one of these prefixes
    seen: list[str] = [path]
    i = 0
    while i < len(seen) and len(seen) < 12:
        p = seen[i]
        i += 1
        for new in _one_step(p, facts, links):
            if new not in seen:
                seen.append(new)
    return tuple(seen)


def _one_step(p: str, facts: Facts, links: Mapping[str, str]) -> list[str]:
    out: list[str] = []
    node = numbered_node(p) if p.startswith("/dev/") else None
    if node is not None:  # `/dev/char/1:1` is `/dev/mem`: the kernel opens the number, not the name
        name = device_name(*node)
        out.append(name if name is not None else "/dev/" + DYN)
    for link, target in links.items():
        if p == link or p.startswith(link.rstrip("/") + "/"):
            joined = target.rstrip("/") + p[len(link.rstrip("/")) :]
            out.append(normalise_path(joined, cwd="/", home=facts.home))
    m = _PROC_ROOT.match(p)
    if m:
        out.append(m.group(1) or "/")
    m = _PROC_CWD.match(p)
    if m:
        out.append(m.group(1) or "/")  # `/proc/1/cwd` is `/` on every host
        out.append(DYN + (m.group(1) or ""))  # another process's: anywhere
    for rx in (_SYS_DEVICES, _GROUP_DEV, _DRIVER_DEV, _NESTED_DEV):
        m = rx.match(p)
        if m:
            out.append(f"/sys/bus/pci/devices/{m.group(1).lower()}{m.group(2) or ''}")
    m = _BUS_DEV.match(p)
    if m:
        dev, rest = m.group(1).lower(), m.group(2) or ""
        if rest == "/iommu_group" or rest.startswith("/iommu_group/"):
            group = facts.pci_iommu_group.get(dev)
            out.append(f"/sys/kernel/iommu_groups/{group if group is not None else DYN}{rest[12:]}")
        elif rest == "/driver" or rest.startswith("/driver/"):
            out.append(f"/sys/bus/pci/drivers/{DYN}{rest[7:]}")
        elif rest.startswith("/subsystem/"):
            out.append("/sys/bus/pci" + rest[10:])
    return out


# ---------------------------------------------------------------- wildcard matching


def glob_source(pattern: str) -> str:
    """The regex of a glob, as text (for `glob_regex`, and for alternations of many globs)."""
    if pattern.endswith("/**"):
        base = fnmatch.translate(pattern[:-3])
        # `D/**` is D itself and everything beneath it
        return base[: base.rfind(r"\Z")] + r"(?:/.*)?\Z"
    return fnmatch.translate(pattern.replace("**", "*"))


@lru_cache(maxsize=8192)
def glob_regex(pattern: str) -> re.Pattern[str]:
    return re.compile(glob_source(pattern), re.S)


def _tokens(text: str, is_pattern: bool) -> tuple[str, ...]:
    """Reduce to literal chars and '*'/'?' wildcards for the intersection test."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if is_pattern and c == "*":
            out.append("\x02*")
            while i + 1 < len(text) and text[i + 1] == "*":
                i += 1
        elif is_pattern and c == "?":
            out.append("\x02?")
        elif is_pattern and c == "[":
            end = text.find("]", i + 2)
            if end == -1:
                out.append(c)
            else:
                out.append("\x03" + text[i : end + 1])  # one character of the class
                i = end
        elif not is_pattern and c == DYN:
            out.append("\x02*")
        elif not is_pattern and c == GLOB:
            # a glob wildcard never matches "/", nor a leading "." of a name (no dotglob)
            out.append("\x02d" if i == 0 or text[i - 1] == "/" else "\x02c")
        else:
            out.append(c)
        i += 1
    return tuple(out)


@lru_cache(maxsize=65536)
def may_match(subject: str, pattern: str) -> bool:
    """Whether some value of `subject` (markers are unknown text) matches the glob `pattern`."""
    if DYN not in subject and GLOB not in subject:
        return glob_regex(pattern).match(subject) is not None
    if pattern.endswith("/**"):
        return may_match(subject, pattern[:-3]) or may_match(subject, pattern[:-3] + "/*")
    return _intersects(_tokens(subject, False), _tokens(pattern, True))


@lru_cache(maxsize=1024)
def _class_regex(cls: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(cls), re.S)


def _in_class(char: str, cls: str) -> bool:
    return _class_regex(cls).match(char) is not None


def _intersects(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two wildcard strings share a value (a: subject tokens, b: pattern tokens)."""
    memo: dict[tuple[int, int, bool], bool] = {}
    wild = ("\x02*", "\x02c", "\x02d")

    def go(i: int, j: int, started: bool) -> bool:
        key = (i, j, started)
        if key in memo:
            return memo[key]
        memo[key] = False  # guards against cycles between the two wildcards
        res = i == len(a) and j == len(b)
        ai = a[i] if i < len(a) else None
        bj = b[j] if j < len(b) else None
        if not res and ai in wild:
            can = bj is not None and (ai == "\x02*" or (bj != "/" and (ai == "\x02c" or started or bj != ".")))
            res = go(i + 1, j, False) or (can and go(i, j + 1, True))
        if not res and bj == "\x02*":
            res = go(i, j + 1, False) or (ai is not None and go(i + 1, j, False))
        if not res and ai is not None and bj is not None and ai not in wild and bj != "\x02*":
            res = (ai == bj or bj == "\x02?" or (bj[0] == "\x03" and _in_class(ai, bj[1:]))) and go(i + 1, j + 1, False)
        memo[key] = res
        return res

    return go(0, 0, False)


@lru_cache(maxsize=65536)
def sure_match(subject: str, pattern: str) -> bool:
    """Whether every value of `subject` matches `pattern` (used by allow rules and `within`)."""
    if DYN not in subject and GLOB not in subject:
        return glob_regex(pattern).match(subject) is not None
    if pattern in ("*", "**"):
        return True
    if DYN in subject or not pattern.endswith("/**"):
        return False
    # a glob stays inside its component: the directory before it decides
    cut = subject.find(GLOB)
    head = subject[: subject.rfind("/", 0, cut)] if "/" in subject[:cut] else ""
    return bool(head) and glob_regex(pattern).match(head) is not None


def visible(text: str) -> str:
    """Markers shown to a person."""
    return text.replace(DYN, "$?").replace(GLOB, "*")
