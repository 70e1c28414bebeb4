"""`curl` against the servers on the lab host (loopback only): SGLang's /health, /server_info,
/model_info, /v1/models and generation endpoints, with curl's exit codes (7 refused, 28 timeout,
22 with -f on HTTP errors) and `-w '%{http_code}'`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from tools.lab.shell import Call, Result

if TYPE_CHECKING:
    from tools.lab.host import SimProcess
    from tools.lab.shell import Shell

LOCAL = {"127.0.0.1", "localhost", "0.0.0.0", "::1"}
NOT_FOUND = '{"detail":"Not Found"}'


def _answer(sh: Shell, proc: SimProcess, method: str, path: str, body: str | None) -> tuple[int, str, float]:
    """(status, body, seconds the server takes)."""
    t = sh.host.clock.now()
    server = proc.server
    if server is None and proc.answers == "http-404":  # another web app took the port
        return 404, NOT_FOUND, 0.01
    if server is None:  # a foreign SGLang server: healthy, answers for its own model
        model = proc.serves_model or "default"
        if path in ("/health", "/health_generate"):
            return 200, "", 0.05
        if path == "/v1/models":
            return (
                200,
                json.dumps(
                    {
                        "object": "list",
                        "data": [{"id": model, "object": "model", "owned_by": "sglang", "root": model}],
                    }
                ),
                0.01,
            )
        if path in ("/server_info", "/get_server_info"):
            return 200, json.dumps({"model_path": model, "port": proc.port, "status": "ready"}), 0.01
        if path in ("/model_info", "/get_model_info"):
            return (
                200,
                json.dumps({"model_path": model, "tokenizer_path": model, "is_generation": True}),
                0.01,
            )
        return 404, NOT_FOUND, 0.01
    state = server.state(t)
    if path in ("/health", "/health_generate"):
        if state == "ready":
            return 200, "", 0.08
        if state == "hung":
            return 503, "", 20.0  # the health generation never finishes; the server gives up after 20 s
        return 503, "", 0.01
    if path in ("/server_info", "/get_server_info"):
        return 200, json.dumps(server.server_info(t)), 0.01
    if path in ("/model_info", "/get_model_info"):
        return 200, json.dumps(server.model_info()), 0.01
    if path == "/v1/models":
        return 200, json.dumps(server.v1_models(t)), 0.01
    if path in ("/generate", "/v1/completions", "/v1/chat/completions"):
        if state == "hung":
            return 504, "", 3600.0
        if state != "ready":
            return 503, "", 0.01
        text = server.completion_text()
        if path == "/generate":
            return (
                200,
                json.dumps(
                    {
                        "text": text,
                        "meta_info": {
                            "finish_reason": {"type": "length", "length": 16},
                            "prompt_tokens": 8,
                            "completion_tokens": 16,
                        },
                    }
                ),
                0.3,
            )
        choice = (
            {"index": 0, "text": text, "finish_reason": "length"}
            if path == "/v1/completions"
            else {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"}
        )
        return (
            200,
            json.dumps(
                {
                    "id": "lab-0",
                    "object": "text_completion",
                    "model": server.served_name(),
                    "choices": [choice],
                    "usage": {"prompt_tokens": 8, "completion_tokens": 16, "total_tokens": 24},
                }
            ),
            0.3,
        )
    del method, body
    return 404, NOT_FOUND, 0.01


def curl(sh: Shell, c: Call) -> Result:
    args = c.argv[1:]
    silent = show_error = fail = include = False
    out_file: str | None = None
    write_out: str | None = None
    max_time: float | None = None
    method, body, url = "GET", None, None
    i = 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if a.startswith("-") and not a.startswith("--") and len(a) > 2 and all(ch in "sSfiLkv" for ch in a[1:]):
            silent |= "s" in a
            show_error |= "S" in a
            fail |= "f" in a
            include |= "i" in a
        elif a in ("-s", "--silent"):
            silent = True
        elif a in ("-S", "--show-error"):
            show_error = True
        elif a in ("-f", "--fail"):
            fail = True
        elif a in ("-i", "--include"):
            include = True
        elif a in ("-L", "--location", "-k", "--insecure", "-v", "--verbose", "--no-buffer", "-N"):
            pass
        elif a in ("-o", "--output") and nxt is not None:
            out_file, i = nxt, i + 1
        elif a in ("-w", "--write-out") and nxt is not None:
            write_out, i = nxt, i + 1
        elif a in ("-m", "--max-time", "--connect-timeout") and nxt is not None:
            if a != "--connect-timeout":
                max_time = float(nxt)
            i += 1
        elif a in ("-X", "--request") and nxt is not None:
            method, i = nxt, i + 1
        elif a in ("-H", "--header") and nxt is not None:
            i += 1
        elif a in ("-d", "--data", "--data-raw", "--json", "--data-binary") and nxt is not None:
            body, i = nxt, i + 1
            method = "POST" if method == "GET" else method
        elif not a.startswith("-"):
            url = a
        i += 1
    if url is None:
        return Result(
            stderr="curl: no URL specified!\ncurl: try 'curl --help' or 'curl --manual' for more information\n",
            code=2,
            duration=0.01,
        )
    parts = urlsplit(url if "://" in url else f"http://{url}")
    host, port = parts.hostname or "", parts.port or 80
    path = parts.path or "/"

    def finish(code: int, status: int, text: str, err: str, seconds: float) -> Result:
        out = ""
        if code == 0 and not (fail and status >= 400):
            shown = (f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n\r\n" if include else "") + text
            if out_file and out_file != "/dev/null":
                sh.write_path(out_file, shown.encode(), append=False, root=c.root, program="curl")
            elif not out_file:
                out = shown
        if fail and status >= 400 and code == 0:
            code = 22
            err = f"curl: (22) The requested URL returned error: {status}\n"
        if write_out:
            out += write_out.replace("%{http_code}", f"{status:03d}").replace("\\n", "\n")
        return Result(out, err if (not silent or show_error) else "", code, duration=seconds)

    proc = sh.host.listener(port) if host in LOCAL or host == sh.host.scenario.host.hostname else None
    if proc is None:
        err = f"curl: (7) Failed to connect to {host} port {port} after 0 ms: Couldn't connect to server\n"
        return finish(7, 0, "", err, 0.01)
    if proc.server is None and proc.answers == "reset":
        return finish(56, 0, "", "curl: (56) Recv failure: Connection reset by peer\n", 0.01)
    status, text, seconds = _answer(sh, proc, method, path, body)
    if max_time is not None and seconds > max_time:
        waited = int(max_time * 1000)
        err = f"curl: (28) Operation timed out after {waited} milliseconds with 0 bytes received\n"
        return finish(28, 0, "", err, max_time)
    return finish(0, status, text, "", seconds + 0.01)
