"""What a container engine does to the host beyond its own options (docker.py): host devices handed
in, a privileged or host-namespace container's command (it runs as if on the host), prunes that
delete the engine's storage, `cp` out of a container, and another host's engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.policy.facts import DYN, GLOB
from agent.policy.invocation import Ctx, Invocation, Scope, WriteEffect
from agent.policy.options import option_values
from agent.policy.programs.destinations import environment_destinations, flag_destinations

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis

# where each engine keeps its images, volumes and build cache
STORAGE = {"docker": "/var/lib/docker", "podman": "/var/lib/containers/storage", "nerdctl": "/var/lib/containerd"}

# `docker run`'s options that take a value (for finding the image, and the command after it)
_RUN_VALUE_OPTIONS = frozenset(
    ("-v", "--volume", "--mount", "-e", "--env", "--env-file", "--name", "-p", "--publish", "--network", "--net",
     "--device", "--cap-add", "--cap-drop", "-w", "--workdir", "-u", "--user", "--entrypoint", "--gpus", "--runtime",
     "--security-opt", "-l", "--label", "--shm-size", "--ipc", "--pid", "--uts", "--userns", "--cgroupns", "--ulimit",
     "-m", "--memory", "--cpus", "--cpuset-cpus", "--restart", "-h", "--hostname", "--add-host", "--dns",
     "--platform", "--pull", "--log-driver", "--log-opt", "--tmpfs", "--stop-signal", "--stop-timeout",
     "--health-cmd", "--device-cgroup-rule", "--volumes-from", "--group-add", "--sysctl", "--cidfile", "--pod",
     "--label-file", "--network-alias", "--ip", "--mac-address", "--expose", "--annotation", "-a", "--attach",
     "--detach-keys", "--storage-opt", "--oom-score-adj", "--memory-swap", "--cgroup-parent", "--init-path")
)  # fmt: skip
# options that make the container the host's equal: what it runs is judged as if it ran here
_HOST_LEVEL = ("--privileged", "--pid", "--cap-add", "--device", "--userns", "--security-opt", "--volumes-from")


def _host_level(args: list[str]) -> bool:
    if any(a == "--privileged" or a.startswith(_HOST_LEVEL) for a in args):
        return True
    return any(v == "host" for _, v in option_values(args, ("--network", "--net", "--pid", "--ipc"), clustered=False))


def _command_after_image(args: list[str]) -> list[str]:
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if a.startswith("-") and a != "-":
            i += 2 if a in _RUN_VALUE_OPTIONS else 1
            continue
        break
    return args[i + 1 :]  # after the image


def container_effects(
    an: Analysis, inv: Invocation, args: list[str], sub: str | None, env: dict[str, str], scope: Scope, ctx: Ctx
) -> None:
    # another host's engine (`DOCKER_HOST=tcp://...`, `-H tcp://...`): a request there
    environment_destinations(an, inv, env, scope, ctx, frozenset(("DOCKER_HOST", "CONTAINER_HOST")))
    head = args[: args.index(sub)] if sub in args else args
    flag_destinations(an, inv, [a if a != "-H" else "--host" for a in head], scope, ctx)
    # a named context or connection is an engine the gate cannot see (it may be another host's)
    named = [v for _, v in option_values(head, ("-c", "--context", "--connection"), clustered=False)]
    named += [env[k] for k in ("DOCKER_CONTEXT", "CONTAINER_CONNECTION") if k in env]
    if any(v != "default" for v in named):
        inv.unsure = f"{inv.program} talks to the engine of context {named[0].replace(DYN, '$?')!r}"
    for _, spec in option_values(args, ("--device",), clustered=False):
        # `--device HOST[:CONTAINER[:rwm]]`: the host's device, opened in the container
        host, _, rest = spec.partition(":")
        perms = rest.partition(":")[2] if ":" in rest else ""
        if host:
            ref = an._path(host)
            inv.reads.append(ref)
            if not perms or "w" in perms:
                inv.writes.append(WriteEffect(ref))
    if sub == "volume" and "create" in args:
        # `volume create --opt device=/etc --opt o=bind`: a volume that is that host path (or device)
        for _, opt in option_values(args, ("-o", "--opt"), clustered=False):
            key, _, path = opt.partition("=")
            if key == "device" and path.startswith(("/", "~", ".", DYN)):
                ref = an._path(path)
                inv.reads.append(ref)
                inv.writes.append(WriteEffect(ref))
                an._secrets_beneath(inv, [ref.aliases[0]])
    storage = STORAGE.get(inv.program, "/var/lib/docker")
    if "prune" in args or (sub == "volume" and any(a in ("rm", "remove") for a in args)):
        # the images, volumes and build cache of every user of the engine
        inv.deletes.append(an._path(f"{storage}/{GLOB}"))
    if sub == "cp":
        operands = [a for a in args[args.index("cp") + 1 :] if not a.startswith("-")]
        for k, op in enumerate(operands[:2]):
            name, colon, path = op.partition(":")
            if colon and "/" not in name and path:
                inv.reads.append(an._path(path))  # a file in the container, judged by its path's class
            elif k == 0:
                inv.reads.append(an._path(op))
            else:
                inv.writes.append(WriteEffect(an._path(op)))
    if sub in ("run", "create", "exec") and _host_level(args):
        command = _command_after_image(args[args.index(sub) + 1 :])
        if command and not any(DYN in w for w in command[:1]):
            an._argv(
                command, None, {}, {}, scope, Ctx((*ctx.via, f"{inv.program} {sub} (host-level)")), " ".join(command)
            )
