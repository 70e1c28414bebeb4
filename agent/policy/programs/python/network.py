"""Python code talking to servers: HTTP clients (requests, httpx, urllib, http.client) judged as
the curl they amount to, Unix control sockets, logging handlers that write files."""

from __future__ import annotations

import ast
import shlex

from agent.policy.facts import DYN
from agent.policy.programs.python.core import _arg, _dotted, _normal
from agent.policy.programs.python.environment import _Environment
from agent.policy.programs.python.tables import (
    _HTTP_CLIENTS,
    _HTTP_CONNECTIONS,
    _HTTP_MODULES,
    _HTTP_VERBS,
    _UNKNOWN_URL,
    CONTROL_SOCKETS,
)


class _Network(_Environment):
    def http_clients(self) -> None:
        """Names bound to HTTP clients and connections (`s = requests.Session()`, `with httpx.Client() as c`)."""
        for node in self.nodes:
            pairs: list[tuple[ast.expr, ast.expr]] = []
            if isinstance(node, ast.Assign):
                pairs = [(t, node.value) for t in node.targets]
            elif isinstance(node, ast.With | ast.AsyncWith):
                pairs = [(i.optional_vars, i.context_expr) for i in node.items if i.optional_vars is not None]
            for target, value in pairs:
                base = self.client_base(value)
                if isinstance(target, ast.Name) and base is not None:
                    old = self.clients.get(target.id)
                    self.clients[target.id] = base if old is None or old == base else DYN

    def client_base(self, node: ast.expr) -> str | None:
        """The base URL of an HTTP client or connection ("" where it has none, DYN where it is not
        known); None where `node` is none."""
        if isinstance(node, ast.Await):
            return self.client_base(node.value)
        if isinstance(node, ast.Name) and node.id in self.clients:
            return self.clients[node.id]
        if isinstance(node, ast.Name | ast.Attribute) and self.name(node) in _HTTP_MODULES:
            return ""
        if not isinstance(node, ast.Call):
            return None
        name = self.name(node.func)
        if name in _HTTP_CLIENTS:
            base = _arg(node, 99, "base_url")
            return "" if base is None else self.string(base)
        if name in _HTTP_CONNECTIONS:
            scheme = _HTTP_CONNECTIONS[name]
            host = self.string(_arg(node, 0, "url" if not scheme else "host"))
            port_node = _arg(node, 1, "port")
            port = self.string(port_node) if port_node is not None else ""
            if DYN in host or DYN in port:
                return DYN
            if not scheme:
                return host
            if ":" in host and not host.startswith("["):
                host = f"[{host}]"  # an IPv6 address
            return f"{scheme}://{host}" + (f":{port}" if port and port != "None" else "")
        return None

    def request_of(self, node: ast.expr | None, depth: int = 0) -> tuple[str, str | None]:
        """The URL and method of `urlopen`'s operand: a URL, or `Request(URL, data, method=...)`."""
        if isinstance(node, ast.Name) and node.id in self.consts and depth < 20:
            return self.request_of(self.consts[node.id], depth + 1)
        if isinstance(node, ast.Call) and self.name(node.func) == "urllib.request.Request":
            url = self.string(_arg(node, 0, "url"))
            method_node = _arg(node, 5, "method")
            if method_node is not None:
                return url, self.string(method_node)
            data = _arg(node, 1, "data")
            return url, None if data is None or (isinstance(data, ast.Constant) and data.value is None) else "POST"
        return self.string(node), None

    def http(self, node: ast.Call, name: str) -> bool:
        """An HTTP request, judged as `curl` of its URL; False where `node` is none."""
        module, _, attr = name.rpartition(".")
        if name in _HTTP_CONNECTIONS:
            conn = self.client_base(node)
            self.curl(node, DYN if conn is None or DYN in conn else conn + "/", None)
            return True
        if name in ("urllib.request.urlopen", "urllib.request.urlretrieve"):
            url, method = self.request_of(_arg(node, 0, "url"))
            if method is None and _arg(node, 1, "data") is not None and name.endswith("urlopen"):
                method = "POST"
            out = _arg(node, 1, "filename") if name.endswith("urlretrieve") else None
            self.curl(node, url, method, self.path(out) if out is not None else None)
            return True
        if module in _HTTP_MODULES:
            base: str | None = ""
        elif isinstance(node.func, ast.Attribute):
            base = self.client_base(node.func.value)
        else:
            return False
        if base is None:
            return False
        if attr in _HTTP_VERBS:
            url_node, method = _arg(node, 0, "url"), attr
        elif attr in ("request", "stream", "urlopen", "putrequest"):
            url_node = _arg(node, 1, "url")
            method_node = _arg(node, 0, "method")
            method = self.string(method_node) if method_node is not None else None
        elif attr == "open":
            url, method = self.request_of(_arg(node, 0, "fullurl"))
            self.curl(node, url, method)
            return True
        elif attr in ("send", "send_request", "ws_connect", "websocket_connect"):
            url_node, method = None, None
        else:
            return False
        url = self.string(url_node) if url_node is not None else DYN
        if DYN not in url and "://" not in url:
            url = DYN if DYN in base or not base else base.rstrip("/") + "/" + url.lstrip("/")
        self.curl(node, url, method)
        return True

    def curl(self, node: ast.Call, url: str, method: str | None, out: str | None = None) -> None:
        words = ["curl"]
        if method is not None and DYN not in method and method.upper() not in ("GET", ""):
            words += ["-X", method.upper()]
        if out is not None:
            words += ["-o", out] if DYN not in out else []
            if DYN in out:
                self.write(node, DYN)
        if DYN in url or not url or url.startswith("-"):
            self.command(node, f"{shlex.join(words)} {_UNKNOWN_URL}")
        else:
            self.command(node, shlex.join([*words, url]))
        if url.startswith("file://"):
            self.read(node, url[len("file://") :])

    def find_unix_sockets(self) -> bool:
        """Whether the code may make a Unix socket: it names AF_UNIX, adopts a descriptor, or makes a
        socket of a family not known."""
        for node in self.nodes:
            if isinstance(node, ast.Name | ast.Attribute):
                ref = self.name(node)
                if ref.endswith("AF_UNIX") or ref in ("socket.fromfd", "socket.fromshare", "socket.socketpair"):
                    return True
            if isinstance(node, ast.Call) and self.name(node.func) == "socket.socket":
                family = _arg(node, 0, "family")
                fileno = _arg(node, 3, "fileno")
                if fileno is not None:
                    return True
                if family is None:
                    continue
                if isinstance(family, ast.Constant) and family.value in (2, 10):
                    continue
                if isinstance(family, ast.Name | ast.Attribute) and self.name(family) in (
                    "socket.AF_INET",
                    "socket.AF_INET6",
                ):
                    continue
                return True
        return False

    def socket_call(self, node: ast.Call, name: str) -> bool:
        """A Unix socket the code connects to or binds: a write of its path (as `socat UNIX-CONNECT:`);
        one only known at run time is opaque. False where `node` is none."""
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        addr: ast.expr | None = None
        short = name.rsplit(".", 1)[-1]
        if short in ("open_unix_connection",):
            addr = _arg(node, 0, "path")
        elif short in ("create_unix_connection", "create_unix_server", "start_unix_server"):
            addr = _arg(node, 1, "path")
        elif name == "logging.handlers.SysLogHandler":
            addr = _arg(node, 0, "address")
        elif any(k in kw for k in ("uds", "unix_socket", "socket_path")):
            addr = kw.get("uds") or kw.get("unix_socket") or kw.get("socket_path")
        elif isinstance(node.func, ast.Attribute) and short in ("connect", "connect_ex", "bind", "sendto", "sendmsg"):
            recv = node.func.value
            if isinstance(recv, ast.Name | ast.Attribute) and _dotted(recv).partition(".")[0] in self.aliases:
                return False  # a module's function: `sqlite3.connect(path)`
            if short == "sendto":
                addr = node.args[-1] if len(node.args) in (2, 3) else kw.get("address")
            elif short == "sendmsg":
                addr = node.args[3] if len(node.args) > 3 else kw.get("address")
            else:
                addr = _arg(node, 0, "address")
        if addr is None:
            return False
        if isinstance(addr, ast.Name) and addr.id in self.consts:
            addr = self.consts[addr.id]
        if isinstance(addr, ast.Tuple | ast.List):
            return False  # (host, port): an Internet socket
        if isinstance(addr, ast.Constant) and isinstance(addr.value, bytes | str):
            raw = addr.value.decode("latin-1") if isinstance(addr.value, bytes) else addr.value
            if raw.startswith("\0") or not raw:
                return True  # the abstract namespace: no file
        p = raw if isinstance(addr, ast.Constant) and isinstance(addr.value, bytes) else self.string(addr)
        if DYN in p:
            if self.unix_sockets:
                self.opaque(f"python {short} of a Unix socket only known at run time")
            return self.unix_sockets
        p = _normal(p)
        self.write(node, p)
        if p.startswith(CONTROL_SOCKETS):
            self.opaque("python talks to a control socket (systemd, D-Bus, libvirt, QEMU, Docker) directly")
        return True

    def log_config(self, node: ast.Call) -> None:
        """`logging.config.dictConfig({...})`: the files its handlers write; a class or factory
        the gate does not know, or a config not written out, is opaque."""
        config = _arg(node, 0, "config")
        if isinstance(config, ast.Name) and config.id in self.consts:
            config = self.consts[config.id]
        if not isinstance(config, ast.Dict):
            self.opaque("python configures logging from a value the gate cannot read")
            return
        for sub in ast.walk(config):
            if not isinstance(sub, ast.Dict):
                continue
            for k, v in zip(sub.keys, sub.values, strict=True):
                key = self.string(k) if k is not None else DYN
                if key == "filename":
                    self.write(node, self.path(v))
                elif key == "()" or DYN in key:
                    self.opaque("python configures logging with a factory the gate cannot follow")
                elif key == "class":
                    cls = self.string(v)
                    if DYN in cls or not cls.startswith("logging."):
                        self.opaque("python configures logging with a handler class the gate does not know")
