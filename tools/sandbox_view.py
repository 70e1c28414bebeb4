"""What a command inside the sandbox sees and who it is: the bubblewrap command line (tools.sandbox).

Files: not `/` wholesale. The top-level directories are bound read-only one by one, except those
that hold host state or control sockets: `/tmp`, `/run` (and `/var/run`, `/var/tmp`) are private
tmpfs, `/home` and `/root` are not shown; the login's home comes back read-only with every
dot-entry hidden (`~/.ssh`, `~/.netrc`, shell histories), or as an empty tmpfs when the command
runs under another uid (it could not enter a 0700 home anyway). The Python toolchains kept in
a home (`READABLE_TOOLCHAINS`: pyenv, pip --user, uv, conda) and the policy's readable paths come
back read-only, or nothing in a home could run Python. Pathname sockets the host probe
found in what is shown are masked with `/dev/null` (connecting gives "connection refused"). The
work directory and the policy's writable paths are bound read-write on top.

Identity: a root login keeps uid 0 inside bubblewrap (a user namespace would map uid 0 inside to
root outside, which still owns /etc/shadow), so the first process drops to `SANDBOX_UID` with
the only capabilities bubblewrap keeps for it (CAP_SETPCAP, CAP_SETUID, CAP_SETGID), emptying
the bounding and inheritable sets; `no_new_privs` stops setuid programs and file capabilities. The work
directory and writable paths are handed to that uid by the host probe (tools.sandbox).

Network: the first process (tools/scripts/landlock_exec.py, run by the host's python3) limits
TCP bind and connect to the run's ports with Landlock (ABI 4+) and scopes abstract Unix sockets
and signals to the sandbox (ABI 6+), then execs the command.
"""

from __future__ import annotations

import posixpath
from importlib import resources

from pydantic import BaseModel

# The uid and gid commands run under inside the sandbox when the login is root: unnamed on
# Debian and Ubuntu (65534 is `nobody`, which NFS and some daemons use; files given to the
# sandbox should belong to nobody else).
SANDBOX_UID = 65533
SANDBOX_GID = 65533
# Top-level directories never bound wholesale: private (tmp, run), rebuilt (dev, proc, sys),
# or homes (home, root), handled one by one.
HIDDEN_TOP = frozenset({"tmp", "run", "dev", "proc", "sys", "home", "root", "lost+found"})
# Where Python toolchains live in a home; shown read-only (their secrets, if any, are theirs).
READABLE_TOOLCHAINS = (
    "~/.pyenv",
    "~/.local/bin",
    "~/.local/lib",
    "~/.local/share/uv",
    "~/.conda",
    "~/miniconda3",
    "~/miniforge3",
    "~/anaconda3",
    "~/.venv",
    "~/venv",
)
RESOLVER_FILES = (
    "/run/systemd/resolve/stub-resolv.conf",
    "/run/systemd/resolve/resolv.conf",
    "/run/resolvconf/resolv.conf",
)
# Where pathname sockets can hide in what is shown (the host probe looks there, briefly).
SOCKET_SCAN_EXCLUDE = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot")


def helper_text() -> str:
    """The first process's Python text (tools/scripts/landlock_exec.py), passed with `-c`."""
    return resources.files("tools.scripts").joinpath("landlock_exec.py").read_text()


class RootEntry(BaseModel):
    name: str
    kind: str  # "d" a directory, "l" a symbolic link (its target in `link`)
    link: str = ""


class View(BaseModel):
    """Everything bubblewrap's command line depends on, from the host probe and the policy."""

    bwrap: str
    work_dir: str
    home: str
    writable: list[str] = []
    readable: list[str] = []  # shown read-only although under the (hidden) home
    devices: list[str] = []
    root: list[RootEntry] = []
    home_dots: list[str] = []  # names of the home's dot-entries ending in "/" for directories
    sockets: list[str] = []
    var_run_is_dir: bool = False
    drop_to: tuple[int, int] | None = None  # (uid, gid) when the login is root
    python: str | None = None  # runs the first process; None: no Landlock, no uid change by it
    ports: list[tuple[int, int]] | None = None  # TCP port ranges allowed; None: the network is not restricted
    landlock_abi: int = 0


def _shown(path: str, view: View) -> bool:
    """Whether `path` lies under a directory the sandbox binds from the host (not a tmpfs)."""
    top = path.strip("/").split("/", 1)[0]
    if top in HIDDEN_TOP:
        home = view.home.rstrip("/")
        return view.drop_to is None and path.startswith(home + "/")
    return not path.startswith(("/var/run/", "/var/tmp/"))


def bwrap_argv(view: View) -> list[str]:
    """The bubblewrap command line, up to and including the first process (see the module doc).

    What follows it is the namespace's process 1 (`--as-pid-1`, exec'd by the first process):
    when it ends, the kernel ends everything else inside. Not `--die-with-parent`: a server
    launch outlives the shell that started it. The process group is kept, so a SIGKILL to the
    group (a timeout, a stop's last step) reaches process 1 as well."""
    argv = [view.bwrap]
    for entry in view.root:
        if entry.name in HIDDEN_TOP or "/" in entry.name:
            continue
        if entry.kind == "l":
            argv += ["--symlink", entry.link, f"/{entry.name}"]
        elif entry.kind == "d":
            argv += ["--ro-bind", f"/{entry.name}", f"/{entry.name}"]
    argv += ["--dev", "/dev"]
    for node in view.devices:
        argv += ["--dev-bind", node, node]
    argv += ["--perms", "1777", "--tmpfs", "/dev/shm"]
    argv += ["--proc", "/proc", "--remount-ro", "/proc", "--ro-bind", "/sys", "/sys"]
    # /run holds control sockets (D-Bus, docker, libvirt, qemu-server, screen); the resolver's
    # files come back because /etc/resolv.conf often links to them (not its directory: it holds
    # resolved's varlink socket).
    argv += ["--perms", "1777", "--tmpfs", "/tmp", "--tmpfs", "/run"]
    for name in RESOLVER_FILES:
        argv += ["--ro-bind-try", name, name]
    if any(e.name == "var" and e.kind == "d" for e in view.root):
        argv += ["--perms", "1777", "--tmpfs", "/var/tmp"]
        if view.var_run_is_dir:
            argv += ["--tmpfs", "/var/run"]
    home = view.home.rstrip("/") or "/"
    if home != "/":
        if view.drop_to is not None:
            argv += ["--tmpfs", home]  # another uid: the home would be unreadable; keep it private
        else:
            if home.strip("/").split("/", 1)[0] in HIDDEN_TOP:
                argv += ["--ro-bind", home, home]
            for dot in view.home_dots:
                name = dot.rstrip("/")
                if not name.startswith(".") or "/" in name or name in (".", ".."):
                    continue
                argv += (
                    ["--tmpfs", f"{home}/{name}"] if dot.endswith("/") else ["--ro-bind", "/dev/null", f"{home}/{name}"]
                )
    for sock in view.sockets:
        if _shown(sock, view) and not any(sock.startswith(p + "/") for p in SOCKET_SCAN_EXCLUDE):
            argv += ["--ro-bind", "/dev/null", sock]
    # Directories bubblewrap makes on its own for a bind's destination are 0700 root: another uid
    # could not reach the work directory through them.
    made: set[str] = set()
    for path in (view.work_dir, *view.writable, *view.readable):
        parent = posixpath.dirname(path)
        chain: list[str] = []
        while parent not in ("/", "") and parent.strip("/").split("/", 1)[0] in HIDDEN_TOP:
            chain.insert(0, parent)
            parent = posixpath.dirname(parent)
        for d in chain:
            if d not in made and d != home:
                argv += ["--perms", "0755", "--dir", d]
                made.add(d)
    for path in view.readable:
        argv += ["--ro-bind-try", path, path]
    argv += ["--bind", view.work_dir, view.work_dir]
    for path in view.writable:
        if path != view.work_dir:
            argv += ["--bind-try", path, path]
    argv += ["--setenv", "TMPDIR", f"{view.work_dir}/tmp", "--chdir", view.work_dir]
    argv += ["--unshare-pid", "--as-pid-1", "--cap-drop", "ALL"]
    if view.drop_to is not None:
        argv += ["--cap-add", "CAP_SETPCAP", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    argv.append("--")
    if view.python is not None and (view.drop_to is not None or view.ports is not None):
        uid, gid = (str(view.drop_to[0]), str(view.drop_to[1])) if view.drop_to is not None else ("-", "-")
        ports = "-" if view.ports is None else ",".join(f"{a}-{b}" if a != b else str(a) for a, b in view.ports)
        argv += [view.python, "-I", "-S", "-c", helper_text(), uid, gid, ports, str(view.landlock_abi), "--"]
    return argv
