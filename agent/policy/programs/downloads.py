"""curl and wget: files they write (and the settings files they read)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent.policy.facts import GLOB
from agent.policy.invocation import DEVNULL, Ctx, Invocation, Scope, WriteEffect
from agent.policy.options import option_values
from agent.policy.programs.destinations import body_destinations

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


# options whose value is a command it runs, and the prefix the value must have ("" for any):
# found and judged by hooks.py as if the command ran where it stands
COMMAND_OPTIONS: dict[str, dict[str, str]] = {"wget": {"--use-askpass": ""}}
# variables whose value it runs as a command line, and those naming a settings file (hooks.py)
COMMAND_ENV = frozenset(("WGET_ASKPASS",))
CONFIG_FILE_ENV = frozenset(("WGETRC", "CURL_HOME"))  # a .curlrc may name an output file or a proxy


# curl's and wget's options that name a file: written, a directory written into, read, or data
# that may be `@FILE` (read and sent); flags listed too so a cluster (`-sSo F`) reads right
_CURL_FILES = {
    **dict.fromkeys(("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
                     "--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc", "--ssl-sessions"), "write"),
    **dict.fromkeys(("--output-dir",), "dir"),
    **dict.fromkeys(("-K", "--config", "--etag-compare", "--cacert", "--cert", "--key", "-b", "--cookie"), "read"),
    **dict.fromkeys(("-T", "--upload-file"), "read"),
    **dict.fromkeys(("-d", "--data", "--data-binary", "--data-ascii", "--data-urlencode", "--data-raw", "--json",
                     "-F", "--form", "--form-string"), "data"),
    **dict.fromkeys(("-O", "--remote-name", "--remote-name-all", "-J"), "flag"),
    **dict.fromkeys(("--proto-default", "-x", "--proxy", "-H", "--header", "-X", "--request", "-u", "--user",
                     "-A", "--user-agent", "-e", "--referer", "-m", "--max-time", "-w", "--write-out",
                     "--connect-timeout", "--retry", "--resolve", "--connect-to", "-r", "--range"), "value"),
}  # fmt: skip


_WGET_LOGS = ("-o", "--output-file", "-a", "--append-output")


_WGET_FILES = {
    **dict.fromkeys(("-O", "--output-document", *_WGET_LOGS, "--save-cookies", "--warc-file",
                     "--save-headers-file"), "write"),
    **dict.fromkeys(("-P", "--directory-prefix"), "dir"),
    **dict.fromkeys(("-i", "--input-file", "--load-cookies", "--post-file", "--body-file", "--config",
                     "--ca-certificate", "--certificate", "--private-key"), "read"),
    **dict.fromkeys(("-e", "--execute", "-U", "--user-agent", "-t", "--tries", "-T", "--timeout",
                     "--header", "--method", "--body-data", "--post-data"), "value"),
}  # fmt: skip


def kind_of(table: dict[str, str], opt: str) -> str:
    return table.get(opt, "")


def downloader(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """curl and wget: the files they write (`-o F`, `-oF`, `--output-dir D`, `-D F`, `-c F`,
    `--trace F`, `wget -O F`, `-P D`, `-o LOG`, ...), the files they read and send (`-d @F`,
    `--json @F`, `-F x=@F`, `-T F`, `--post-file=F`), and `file:` URLs, which read the file."""
    args = argv[1:]
    curl = inv.program == "curl"
    table = _CURL_FILES if curl else _WGET_FILES
    given = option_values(args, table, clustered=True)
    dirs = [v for o, v in given if table[o] == "dir"]
    for opt, value in given:
        kind = table[opt]
        if kind == "write" and value not in DEVNULL and value != "-":
            base = dirs[-1].rstrip("/") + "/" if dirs and curl and opt in ("-o", "--output") else ""
            inv.writes.append(WriteEffect(an._path(value if value.startswith("/") else base + value)))
        elif kind == "dir":
            inv.writes.append(WriteEffect(an._path(value.rstrip("/") + "/" + GLOB)))
        elif kind == "read":
            inv.reads.append(an._path(value))
        elif kind == "data":  # `@FILE` (or `name@FILE`, `name=<FILE` in a form) is read and sent
            sent = re.split(r"=?[@<]", value, maxsplit=1)
            if value.startswith("@") or len(sent) > 1:
                inv.reads.append(an._path(sent[-1].split(";")[0]))
    for opt, value in given:
        if kind_of(table, opt) == "data" and not value.startswith("@"):
            # a request body's paths and addresses are where the server acts (`/start_profile`
            # with `{"output_dir": "/models/x"}` writes there): judged by class
            body_destinations(an, inv, value, scope, ctx)
    for opt, value in given:  # `wget -e output_document=F`: a wgetrc command
        if not curl and opt in ("-e", "--execute"):
            key, _, setting = value.partition("=")
            key = key.strip().lower().replace("_", "").replace("-", "")
            if key in ("outputdocument", "logfile", "savecookies", "warcfile") and setting.strip():
                inv.writes.append(WriteEffect(an._path(setting.strip())))
            elif key == "dirprefix" and setting.strip():
                inv.writes.append(WriteEffect(an._path(setting.strip().rstrip("/") + "/" + GLOB)))
            elif key in ("postfile", "bodyfile", "inputfile", "loadcookies") and setting.strip():
                inv.reads.append(an._path(setting.strip()))
    proto_file = any(v.lower() == "file" for o, v in given if o == "--proto-default")
    for a in args:
        if a[:5].lower() == "file:":  # `curl file:///etc/shadow`, `file://localhost/etc/shadow`
            rest = a[5:].partition("?")[0]
            if rest.startswith("//"):
                rest = rest[2:]
                rest = rest[rest.find("/") :] if "/" in rest else "/"
            inv.reads.append(an._path(rest or "/"))
        elif proto_file and not a.startswith("-") and "://" not in a:
            inv.reads.append(an._path(a))  # `--proto-default file`: a bare word is a file URL
    remote_names = curl and any(o in ("-O", "--remote-name", "--remote-name-all", "-J") for o, _ in given)
    named = any(table[o] in ("write", "dir") and o not in _WGET_LOGS for o, _ in given)
    wget_default = not curl and not named and "--spider" not in args  # wget saves into the cwd
    if remote_names or wget_default:
        inv.writes.append(WriteEffect(an._path((dirs[-1].rstrip("/") + "/" if dirs else "") + GLOB)))


def curl_sockets(args: list[str]) -> list[str]:
    """`curl --unix-socket S`: the request goes to S, counted as written (outputs.py)."""
    for i, a in enumerate(args):
        key, eq, val = a.partition("=")
        if key == "--unix-socket":
            return [val if eq else (args[i + 1] if i + 1 < len(args) else "")]
    return []


# files written through options (outputs.py, through programs/table.py); the rest is `downloader`'s
OUTPUTS = {"curl": curl_sockets}


# what its output is, to a reader of the pipe (redirects.py, through programs/table.py)
PRODUCES = {"curl": "downloaded", "wget": "downloaded"}
