"""docker, podman, nerdctl: GPUs handed to a container, host paths bind-mounted into it, files
written through their options; the container and VM tools' options that take a value, and
their subcommand groups."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.policy.facts import DYN, GLOB
from agent.policy.invocation import Ctx, Invocation, Scope, WriteEffect
from agent.policy.options import first_operand, option_values
from agent.policy.programs.base import parse_gpu_list, printenv_hooks
from agent.policy.programs.containers import container_effects

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis

# options naming a file it reads settings from, or a program it runs (hooks.py, through
# programs/table.py: what that runs is not seen)
SETTINGS_FILE_OPTIONS: dict[str, tuple[str, ...]] = {
    "docker": ("--config",),
    "podman": ("--conmon", "--runtime", "--network-cmd-path", "--hooks-dir", "--module"),
}
# variables naming a settings file whose entries may be commands (hooks.py)
CONFIG_FILE_ENV = frozenset(
    (
        "DOCKER_CONFIG",  # its cli-plugins run as docker subcommands
        "CONTAINERS_CONF",  # podman's runtime and helper programs
    )
)

_CONTAINERD = ("-a", "--address", "-n", "--namespace", "--timeout", "--connect-timeout")
# for `subcommand` rules (programs/table.py): options before the subcommand that take the next
# word as their value, so that `docker -H tcp://x kill` is read as `docker kill`
SUBCOMMAND_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    name: frozenset(opts)
    for names, opts in (
        (("docker",), ("--config", "-c", "--context", "-H", "--host", "-l", "--log-level", "--tlscacert",
                       "--tlscert", "--tlskey")),
        (
            ("podman",),
            ("--cgroup-manager", "--conmon", "-c", "--connection", "--events-backend", "--hooks-dir", "--identity",
             "--imagestore", "--log-level", "--module", "--network-cmd-path", "--network-config-dir", "--out",
             "--root", "--runroot", "--runtime", "--runtime-flag", "--ssh", "--storage-driver", "--storage-opt",
             "--tmpdir", "--url", "--volumepath", "--cdi-spec-dir", "--db-backend", "--config"),
        ),
        (("nerdctl",), (*_CONTAINERD, "-H", "--snapshotter", "--cni-path", "--cni-netconfpath", "--data-root",
                        "--cgroup-manager", "--host-gateway-ip", "--hosts-dir", "--storage-driver")),
        (("ctr",), _CONTAINERD),
        (("crictl",), ("-c", "--config", "-i", "--image-endpoint", "-r", "--runtime-endpoint", "-t", "--timeout")),
        (("virsh",), ("-c", "--connect", "-d", "--debug", "-e", "--escape", "-k", "--keepalive-interval", "-K",
                      "--keepalive-count", "-l", "--log")),
    )
    for name in names
}  # fmt: skip
# words that name a group of subcommands: `docker container kill X` is `docker kill X`
_GROUPS = frozenset(("container", "image"))
SUBCOMMAND_GROUPS: dict[str, frozenset[str]] = dict.fromkeys(("docker", "podman", "nerdctl"), _GROUPS)


def _fields(value: str) -> list[tuple[str, str]]:
    return [(k, v) for k, _, v in (f.partition("=") for f in value.split(","))]


# where Unix sockets live: a socket bind-mounted read-only is still connected to (written)
_SOCKET_DIRS = ("/run/", "/var/run/")
_SOCKET_NAMES = (".sock", ".socket", ".qmp", ".vnc", ".serial", ".ctl", ".mon")


def _is_socket_like(path: str) -> bool:
    return path.startswith(_SOCKET_DIRS) or path.endswith(_SOCKET_NAMES) or "sock" in path.rsplit("/", 1)[-1]


def bind_mounts(args: list[str]) -> list[tuple[str, bool]]:
    """(host path, read-only) of each host path a container gets: `-v /src:/dst[:ro]`, `--volume=...`,
    `--mount type=bind,source=/src,...`, a local volume that binds or mounts a device
    (`--mount type=volume,volume-opt=device=/etc,volume-opt=o=bind`), podman's `type=glob`;
    named volumes without a device are not host paths."""
    found: list[tuple[str, bool]] = []
    for opt, value in option_values(args, ("-v", "--volume", "--mount"), clustered=True):  # `-dv SRC:DST`
        if opt == "--mount":
            fields = _fields(value)
            keys = {k for k, _ in fields}
            named = dict(fields)
            read_only = bool(keys & {"readonly", "ro"}) and named.get("readonly", named.get("ro", "")) != "false"
            sources = [v for k, v in fields if k in ("source", "src")]
            # a local volume's driver options name a host path or device it mounts
            sources += [v.partition("=")[2] for k, v in fields if k == "volume-opt" and v.startswith("device=")]
            found += [(src, read_only) for src in sources if src.startswith(("/", "~", ".", DYN))]
        else:
            source, _, rest = value.partition(":")
            read_only = "ro" in rest.split(":")[-1].split(",") if ":" in rest else False
            if source.startswith(("/", "~", ".", DYN)):
                found.append((source, read_only))
    return found


# subcommands that only read the engine's state (`docker container ls` is `ls`): anything else runs,
# builds or changes containers, and what runs inside one is not judged (policy: container-beyond-inspection)
_BUILDS = ("build", "bud", "buildx")


def _build_contexts(an: Analysis, inv: Invocation, args: list[str], sub: str) -> None:
    """A build reads its context directory recursively (COPY takes any file of it, `.ssh` included),
    `--build-context NAME=DIR`, and the files of `--secret src=F` and `--ssh ID=F`."""
    rest = args[args.index(sub) + 1 :]
    if sub == "buildx" and rest[:1] in (["build"], ["b"], ["bake"]):
        rest = rest[1:]
    elif sub == "buildx":
        return
    dirs: list[str] = []
    for opt, value in option_values(rest, _BUILD_VALUE_OPTIONS, clustered=False):
        if opt == "--build-context":
            dirs.append(value.partition("=")[2])
        elif opt in ("--secret", "--ssh"):
            named = dict(f.partition("=")[::2] for f in value.split(","))
            src = named.get("src", named.get("source", value.partition("=")[2] if opt == "--ssh" else ""))
            if src:
                inv.reads.append(an._path(src))
    operands: list[str] = []
    i = 0
    while i < len(rest):
        a = rest[i]
        if a.startswith("-") and a != "-":
            i += 2 if a in _BUILD_VALUE_OPTIONS else 1
            continue
        operands.append(a)
        i += 1
    dirs += operands[-1:]
    for d in dirs:
        if "://" in d or d.startswith(("docker-image:", "oci-layout:", "target:")):
            continue  # an image or a remote context: no host path
        ref = an._path(d if d != "-" else ".")
        inv.reads.append(ref)
        an._secrets_beneath(inv, [ref.aliases[0]])


_BUILD_VALUE_OPTIONS = frozenset(
    ("-f", "--file", "-t", "--tag", "--build-arg", "--build-context", "--secret", "--ssh", "--target", "--platform",
     "--label", "--cache-from", "--cache-to", "-o", "--output", "--network", "--progress", "--iidfile",
     "--metadata-file", "--add-host", "--shm-size", "--ulimit", "--builder", "--annotation", "--attest",
     "--allow", "--cgroup-parent", "--memory", "-m", "--memory-swap", "--cpu-shares", "-c", "--isolation",
     "--squash-all", "--format", "--jobs", "--layers", "--logfile", "--runtime", "--sign-by", "--from",
     "--volume", "-v", "--env", "--authfile", "--cert-dir", "--creds", "--decryption-key")
)  # fmt: skip


def docker(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    args = argv[1:]
    gpus: frozenset[str] | None = None
    for i, a in enumerate(args):
        nxt = args[i + 1] if i + 1 < len(args) else DYN
        val = a.partition("=")[2] if "=" in a else nxt
        if a.startswith("--gpus"):
            v = val.strip("'\"")
            if v == "all" or DYN in v:
                gpus = frozenset({"all"})
            elif v.isdigit():
                gpus = frozenset(str(n) for n in range(int(v)))
            else:
                gpus = parse_gpu_list(v.removeprefix("device=").strip("\"'"))
    for opt, setting in option_values(args, ("-e", "--env", "--env-file"), clustered=False):  # `-eK=V`
        if opt == "--env-file":
            inv.reads.append(an._path(setting))
            continue
        key, eq, value = setting.partition("=")
        if not eq:
            # `-e NAME` hands the host's value in: every GPU it may name, a secret it may print
            value = env.get(key, DYN)
            an._run_hooks(printenv_hooks([key], "docker -e"), env, scope, ctx, inv.text)
        if key in ("NVIDIA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
            gpus = (gpus or frozenset()) | parse_gpu_list(value)
    runtime = [v for _, v in option_values(args, ("--runtime",), clustered=False)]
    if "nvidia" in runtime and gpus is None:
        gpus = frozenset({"all"})  # the NVIDIA runtime shows the image's default: every GPU
    if gpus is not None:
        inv.gpus = gpus
    for source, read_only in bind_mounts(args):
        # what runs in the container is not judged: it may do anything to what is mounted
        ref = an._path(source)
        inside = an._path(source.rstrip("/") + "/" + GLOB)
        inv.reads.append(ref)
        an._secrets_beneath(inv, [ref.aliases[0]])
        if not read_only:
            inv.writes += [WriteEffect(ref), WriteEffect(inside)]
            inv.deletes.append(inside)
        elif any(_is_socket_like(a) for a in ref.aliases):
            inv.writes.append(WriteEffect(ref))  # `:ro` does not stop a client connecting to a socket
    sub = first_operand(args, SUBCOMMAND_VALUE_OPTIONS.get(inv.program, frozenset()), _GROUPS)
    container_effects(an, inv, args, sub, env, scope, ctx)
    if sub in _BUILDS:
        _build_contexts(an, inv, args, sub)
    elif sub == "secret" and any(a.startswith("--showsecret") or a == "--pretty" for a in args):
        # the engine's secret store is a credential store: printing a secret reads it
        inv.reads.append(an._path(_SECRET_STORE.get(inv.program, "/var/lib/docker/swarm/secrets") + "/" + GLOB))
    elif sub in ("kube", "play") and "play" in args:
        files = [a for a in args[args.index("play") + 1 :] if not a.startswith("-")]
        inv.reads += [an._path(f) for f in files if f != "-"]


# where each engine keeps its secrets (credential stores: the policy reads them as secrets)
_SECRET_STORE = {"podman": "/var/lib/containers/storage/secrets", "docker": "/var/lib/docker/swarm/secrets"}


# -- files written through options (outputs.py asks for them through programs/table.py)


def docker_outputs(args: list[str]) -> list[str]:
    """`docker save -o F`, `docker build -o type=local,dest=DIR`."""
    out: list[str] = []
    for _, value in option_values(args, ("-o", "--output"), clustered=False):
        fields = dict(f.partition("=")[::2] for f in value.split(",")) if "=" in value else {}
        target = fields.get("dest", value if not fields else "")
        if target and target != "-":
            out.append(target + ("/" + GLOB if "dest" in fields else ""))
    return out


OUTPUTS = {"docker": docker_outputs, "podman": docker_outputs}
