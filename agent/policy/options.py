"""Reading a program's own arguments the way getopt-style programs do: the values of chosen
options in every spelling, and the operands once options (and their values) are skipped."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from agent.policy.facts import DYN

# git's options before its subcommand that take the next word as their value
GIT_GLOBAL_VALUE_OPTIONS = frozenset(
    ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--attr-source")
)
_SYSTEMD_REMOTE = ("-H", "--host", "-M", "--machine")
_CONTAINERD = ("-a", "--address", "-n", "--namespace", "--timeout", "--connect-timeout")
_PIP = (
    "--python", "--log", "--log-file", "--cache-dir", "--proxy", "--retries", "--timeout", "--exists-action",
    "--trusted-host", "--cert", "--client-cert", "--use-feature", "--use-deprecated", "--progress-bar",
    "--keyring-provider", "--resume-retries", "--src",
)  # fmt: skip
_CONDA = ("-n", "--name", "-p", "--prefix", "-c", "--channel")
# program -> its options before the subcommand that take the next word as their value: without
# them `systemctl -p status reboot` would look like `systemctl status`
SUBCOMMAND_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    name: frozenset(opts)
    for names, opts in (
        (("git",), GIT_GLOBAL_VALUE_OPTIONS),
        (
            ("systemctl",),
            (
                *_SYSTEMD_REMOTE, "-t", "--type", "--state", "-p", "--property", "-P", "--what", "-s", "--signal",
                "--kill-whom", "--kill-value", "-n", "--lines", "-o", "--output", "--job-mode", "--root", "--image",
                "--image-policy", "--preset-mode", "--boot-loader-menu", "--boot-loader-entry", "--reboot-argument",
                "--timestamp", "--message", "--when", "--drop-in", "--check-inhibitors", "--legend",
            ),
        ),
        (
            ("loginctl",),
            (*_SYSTEMD_REMOTE, "-p", "--property", "-P", "-n", "--lines", "-o", "--output", "-s", "--signal",
             "--kill-whom", "--check-inhibitors", "--when"),
        ),
        (
            ("busctl",),
            (*_SYSTEMD_REMOTE, "--address", "--match", "--size", "--timeout", "--augment-creds", "--watch-bind",
             "--destination", "--json", "--expect-reply", "--auto-start", "--allow-interactive-authorization",
             "--limit-messages"),
        ),
        (("hostnamectl", "timedatectl"), (*_SYSTEMD_REMOTE, "-p", "--property", "--json")),
        (("pip", "pip3"), _PIP),
        (("uv",), ("--directory", "--project", "--config-file", "--cache-dir", "--color", "-p", "--python",
                   "--allow-insecure-host", "--python-preference")),
        (("conda", "mamba", "micromamba"), _CONDA),
        (("apt", "apt-get", "aptitude"), ("-o", "--option", "-c", "--config-file", "-t", "--target-release",
                                          "--default-release", "-a", "--host-architecture", "-P", "--build-profiles")),
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
        (("fwupdmgr",), ("--filter", "--filter-release", "--download-retries")),
        (("bootctl",), ("--esp-path", "--boot-path", "--root", "--image", "--install-source",
                        "--make-entry-directory", "--entry-token", "--efi-boot-option-description", "--random-seed")),
        (
            ("nvidia-smi",),
            ("-i", "--id", "-f", "--filename", "-l", "--loop", "-lms", "--loop-ms", "-d", "--display", "-u"),
        ),
        (("dcgmi",), ("--host",)),
    )
    for name in names
}  # fmt: skip


def subcommand_of(program: str, args: Sequence[str]) -> str | None:
    """The first argument that is neither an option nor an option's value: what `subcommand` rules
    match (`systemctl --no-wall -p Id kexec` -> `kexec`). A word only known at run time counts."""
    value_options = SUBCOMMAND_VALUE_OPTIONS.get(program, frozenset())
    i = 0
    while i < len(args):
        a = args[i]
        if not a.startswith("-") or DYN in a[:1]:
            if a in _MANAGEMENT_GROUPS and program in _CONTAINER_ENGINES:
                # `docker container kill X` is `docker kill X`
                rest = subcommand_of("", args[i + 1 :])
                return rest if rest is not None else a
            return a
        if a in value_options:
            i += 2
            continue
        if a.startswith("--") and "=" not in a and long_option(a, value_options) in value_options:
            i += 2  # `--prop status`: an abbreviation of `--property`
            continue
        if not a.startswith("--") and len(a) > 2:  # `-qp status`: the value option ends the cluster
            hit = cluster_option(a, value_options)
            if hit is not None and not hit[1]:
                i += 2
                continue
        i += 1
    return None


def cluster_option(arg: str, options: Collection[str], clustered: bool = True) -> tuple[str, str] | None:
    """The first of `options` in the short-option word `arg` (`-abo`, `-oVALUE`; only its first
    letter where options do not cluster), with the rest of the word after it: its attached value,
    "" when the value is the next word."""
    letters = arg[1:] if clustered else arg[1:2]
    for k, letter in enumerate(letters, 1):
        if "-" + letter in options:
            return "-" + letter, arg[k + 1 :]
    return None


def git_global_options(args: Sequence[str]) -> tuple[list[tuple[str, str | None]], int]:
    """git's options before its subcommand as (option, value) - the next word for the options that
    take one, the part after `=` for `--opt=V`, None for a flag - and the subcommand's index."""
    found: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args) and args[i].startswith("-"):
        a = args[i]
        if a in GIT_GLOBAL_VALUE_OPTIONS:
            found.append((a, args[i + 1] if i + 1 < len(args) else ""))
            i += 2
            continue
        key, eq, value = a.partition("=")
        found.append((key, value) if eq else (a, None))
        i += 1
    return found, i


_CONTAINER_ENGINES = frozenset(("docker", "podman", "nerdctl"))
_MANAGEMENT_GROUPS = frozenset(("container", "image"))


def option_values(
    args: Sequence[str], options: Mapping[str, str] | Collection[str], clustered: bool
) -> list[tuple[str, str]]:
    """(option, value) for each of `options` given: `--opt=V`, `--opt V`, `-oV`, `-o V` and, where
    short options cluster, `-abo V`."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else ""
        if a == "--":
            break
        if a.startswith("--"):
            key, eq, val = a.partition("=")
            key = long_option(key, options)
            if key in options:
                out.append((key, val if eq else nxt))
                i += 1 if eq else 2
                continue
        elif a.startswith("-") and len(a) > 1:
            if a in options:
                out.append((a, nxt))
                i += 2
                continue
            hit = cluster_option(a, options, clustered)
            if hit is not None:
                opt, rest = hit
                out.append((opt, rest or nxt))
                i += 0 if rest else 1
        i += 1
    return out


def long_option(given: str, options: Collection[str]) -> str:
    """The option `given` stands for: getopt_long takes any unambiguous abbreviation (`--out=F` is
    `--output=F`, `--checkpoint-act=` is `--checkpoint-action=`). Of the options asked about, the
    one it abbreviates; `given` itself when it abbreviates none (or is one)."""
    if given in options or len(given) < 3:
        return given
    for option in options:
        if option.startswith(given) and option.startswith("--"):
            return option
    return given


def operands(args: Sequence[str], value_options: Collection[str]) -> list[str]:
    """The operands: what is left once options, and the values of `value_options`, are skipped
    (all after `--`)."""
    found: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            found += args[i + 1 :]
            break
        if a.startswith("-") and a != "-":
            takes = a in value_options or (a.startswith("--") and "=" not in a and long_option(a, value_options) != a)
            i += 2 if takes else 1
            continue
        found.append(a)
        i += 1
    return found
