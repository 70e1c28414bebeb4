"""The probes for the ways out of a sandbox found so far (`opsagent sandbox check`, after the
walls' own probes in tools.sandbox_check): the host's TCP services, its abstract and pathname
Unix sockets, root-only files and keys, the host's /tmp and /run, and a detached start through
links planted in the work directory. Each only tries; see tools.sandbox_check for what they touch.
"""

from __future__ import annotations

import json
import secrets
import shlex
from collections.abc import Callable, Sequence

from tools.sandbox_probe import Probe, text_of
from tools.target import Target, TargetError, TargetFileError

ProbeFn = Callable[[Target], Probe]

# Every TCP listener the host has (IPv4 at its own address, else 127.0.0.1), except the run's
# ports; bash's /dev/tcp connects, so no Python is needed. At most 8 are tried.
_TCP = r"""
own=" {ports} "; seen=" "
for f in /proc/net/tcp /proc/net/tcp6; do
  [ -r "$f" ] || continue
  while read -r _ local _ st _; do
    [ "$st" = 0A ] || continue
    port=$((16#${local##*:})); hex=${local%:*}; addr=127.0.0.1
    if [ ${#hex} = 8 ] && [ "$hex" != 00000000 ]; then
      addr=$((16#${hex:6:2})).$((16#${hex:4:2})).$((16#${hex:2:2})).$((16#${hex:0:2}))
    fi
    case "$own$seen" in *" $port "*) continue;; esac
    seen="$seen$port "; printf '%s %s\n' "$addr" "$port"
  done < "$f"
done | head -n 8 | while read -r addr port; do
  if err=$(timeout 3 bash -c "exec 3<>/dev/tcp/$addr/$port" 2>&1); then echo "open $addr:$port"
  else echo "closed $addr:$port ${err##*: }"; fi
done
"""

# Connects to the host's listening Unix sockets named in /proc/net/unix (10 of each kind).
_UNIX = r"""$(command -v /usr/bin/python3 || command -v python3) -I -S -c '
import errno, json, socket
kinds = {"0001": socket.SOCK_STREAM, "0002": socket.SOCK_DGRAM, "0005": socket.SOCK_SEQPACKET}
found = {"abstract": [], "path": []}
for line in open("/proc/net/unix").read().splitlines()[1:]:
    f = line.split(None, 7)
    if len(f) < 8 or f[4] not in kinds or (f[4] != "0002" and not int(f[3], 16) & 0x10000):
        continue
    kind = "abstract" if f[7].startswith("@") else "path"
    if len(found[kind]) < 10 and all(f[7] != n for n, _, _ in found[kind]):
        s = socket.socket(socket.AF_UNIX, kinds[f[4]])
        s.settimeout(2)
        try:
            s.connect("\0" + f[7][1:] if kind == "abstract" else f[7])
            found[kind].append((f[7], f[4], "connected"))
        except OSError as e:
            found[kind].append((f[7], f[4], errno.errorcode.get(e.errno, str(e.errno))))
        s.close()
print(json.dumps(found))'"""

_SECRETS = r"""
for f in /etc/shadow /etc/gshadow /etc/ssh/ssh_host_*_key /root/.ssh/* "$HOME"/.ssh/* /home/*/.ssh/id_* \
  "$HOME"/.netrc "$HOME"/.git-credentials "$HOME"/.aws/credentials "$HOME"/.docker/config.json \
  "$HOME"/.kube/config "$HOME"/.pgpass "$HOME"/.bash_history; do
  [ -f "$f" ] && [ -s "$f" ] && head -c 1 -- "$f" >/dev/null 2>&1 && echo "$f"
done
echo "uid $(id -u)"
"""

_PRIVATE = r"""for d in /tmp /run /var/tmp /var/run; do
  for e in "$d"/* "$d"/.[!.]*; do [ -e "$e" ] || [ -L "$e" ] || continue; echo "$e"; done
done"""
_RESOLVER_DIRS = ("/run/systemd", "/run/resolvconf", "/var/run/systemd", "/var/run/resolvconf")


def _host_tcp(ports: Sequence[int]) -> ProbeFn:
    def probe(target: Target) -> Probe:
        result = target.run(_TCP.replace("{ports}", " ".join(str(p) for p in ports)), timeout=60)
        lines = [line.split(" ", 2) for line in result.stdout.splitlines() if line.strip()]
        opened = [f[1] for f in lines if f[0] == "open"]
        if result.exit_code != 0 and not lines:
            return Probe(name="host_tcp_refused", contained=False, detail=f"cannot list listeners: {text_of(result)}")
        if not lines:
            return Probe(name="host_tcp_refused", contained=True, detail="no host TCP listener to try")
        if opened:
            return Probe(name="host_tcp_refused", contained=False, detail=f"connected to {', '.join(opened)}")
        why = sorted({f[2] if len(f) > 2 else "refused" for f in lines})
        tried = ", ".join(f[1] for f in lines)
        return Probe(name="host_tcp_refused", contained=True, detail=f"{tried}: {'; '.join(why)}")

    return probe


def _unix(kind: str, name: str) -> Callable[[Sequence[int]], ProbeFn]:
    def make(ports: Sequence[int]) -> ProbeFn:
        def probe(target: Target) -> Probe:
            result = target.run(_UNIX, timeout=60)
            try:
                found = json.loads(result.stdout)[kind]
            except (ValueError, KeyError, TypeError):
                return Probe(name=name, contained=False, detail=f"cannot try them: {text_of(result)}")
            if not found:
                return Probe(name=name, contained=True, detail=f"no {kind} Unix socket listening on the host to try")
            reached = [n for n, _, how in found if how == "connected"]
            if reached:
                return Probe(name=name, contained=False, detail=f"connected to {', '.join(reached[:5])}")
            why = sorted({how for _, _, how in found})
            return Probe(name=name, contained=True, detail=f"{len(found)} tried, none reached ({', '.join(why)})")

        return probe

    return make


def _secrets(ports: Sequence[int]) -> ProbeFn:
    def probe(target: Target) -> Probe:
        result = target.run(_SECRETS, timeout=30)
        lines = result.stdout.splitlines()
        uid = next((line[4:] for line in lines if line.startswith("uid ")), "?")
        readable = [line for line in lines if line and not line.startswith("uid ")]
        if uid in ("0", "?"):
            return Probe(name="unprivileged_identity", contained=False, detail=f"commands run as uid {uid}")
        if readable:
            shown = ", ".join(readable[:5])
            return Probe(name="unprivileged_identity", contained=False, detail=f"uid {uid} can read {shown}")
        return Probe(
            name="unprivileged_identity", contained=True, detail=f"uid {uid}; no root-only file or key is readable"
        )

    return probe


def _private(ports: Sequence[int]) -> ProbeFn:
    def probe(target: Target) -> Probe:
        result = target.run(_PRIVATE, timeout=30)
        work = target.work_dir.rstrip("/") + "/"
        shown = [
            e
            for e in result.stdout.splitlines()
            if e and not work.startswith(e.rstrip("/") + "/") and not e.startswith(_RESOLVER_DIRS)
        ]
        if shown:
            return Probe(name="tmp_run_private", contained=False, detail=f"host entries shown: {', '.join(shown[:5])}")
        return Probe(name="tmp_run_private", contained=True, detail="/tmp, /run and /var/tmp show nothing of the host")

    return probe


def _launcher(ports: Sequence[int]) -> ProbeFn:
    """Plants logs/NAME.log and run/NAME.pid as links to files in the host's /tmp, starts `true`
    detached under NAME, and looks on the host (the target's own file read) for those files."""

    def probe(target: Target) -> Probe:
        name = f"oa-probe-{secrets.token_hex(4)}"
        bait = [f"/tmp/opsagent-{name}.log", f"/tmp/opsagent-{name}.pid"]
        q = shlex.quote
        plant = f"mkdir -p logs run && ln -sfn {q(bait[0])} logs/{name}.log && ln -sfn {q(bait[1])} run/{name}.pid"
        planted = target.run(plant, timeout=30)
        if not planted.ok:
            return Probe(name="launcher_follows_no_link", contained=False, detail=f"cannot plant: {text_of(planted)}")
        try:
            process = target.start_detached("true", name=name)
            for _ in range(50):  # let it write its log and exit file, as a finished server would
                if not target.process_status(process).running:
                    break
                target.sleep(0.1)
            target.stop_process(process, grace_s=1)
        except TargetError as exc:
            detail = f"the launcher refused the planted links ({exc})"
            return Probe(name="launcher_follows_no_link", contained=True, detail=detail)
        finally:
            target.run(f"rm -f logs/{name}.log run/{name}.pid run/{name}.exit", timeout=30)
        written = []
        for path in bait:
            try:
                target.read_file(path, max_bytes=1)
                written.append(path)
            except TargetFileError:
                pass
        if written:
            detail = f"the launcher wrote {', '.join(written)} on the host through a planted link"
            return Probe(name="launcher_follows_no_link", contained=False, detail=detail)
        return Probe(name="launcher_follows_no_link", contained=True, detail="planted links were not followed")

    return probe


ESCAPE_PROBES: list[Callable[[Sequence[int]], ProbeFn]] = [
    _host_tcp,
    _unix("abstract", "abstract_sockets_refused"),
    _unix("path", "pathname_sockets_refused"),
    _secrets,
    _private,
    _launcher,
]
