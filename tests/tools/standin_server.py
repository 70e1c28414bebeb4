"""A stand-in for an SGLang server (standard library only), for tests on a local target.

It logs SGLang-style startup lines, becomes ready after `--startup-s`, answers /health (503
while starting), /server_info, /v1/models and streaming /v1/completions at a fixed rate of
`--rate` tokens per second per request (tokens paced against a deadline, so the rate holds on
average), and logs a `Decode batch` line per finished request. `--fail-after-s` makes it print
a log file's lines and exit 1 instead, to stand in for a crashing server.

    python3 standin_server.py --port 30123 --rate 200 --startup-s 0.5
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def log(message: str) -> None:
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    print(f"[{stamp}] {message}", flush=True)


class State:
    ready = False
    rate = 100.0
    model = "standin-model"
    port = 0
    running = 0
    lock = threading.Lock()
    last_gen = 0.0


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # quiet access log
        return None

    def _json(self, code: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/health":
            self.send_response(200 if State.ready else 503)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path in ("/server_info", "/get_server_info"):
            self._json(
                200,
                {
                    "model_path": "/models/" + State.model,
                    "tp_size": 1,
                    "port": State.port,
                    "status": "ready" if State.ready else "starting",
                    "max_total_num_tokens": 65536,
                    "version": "0.0.0-standin",
                    "internal_states": [{"last_gen_throughput": State.last_gen}],
                },
            )
        elif self.path == "/v1/models":
            self._json(
                200,
                {"object": "list", "data": [{"id": State.model, "object": "model", "owned_by": "sglang"}]},
            )
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:
        if self.path != "/v1/completions":
            self._json(404, {"error": "not found"})
            return
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        count = int(body.get("max_tokens", 16))
        prompt = body.get("prompt", "")
        prompt_tokens = len(prompt) if isinstance(prompt, list) else len(str(prompt).split())
        if not body.get("stream"):
            self._json(
                200,
                {"choices": [{"text": "tok " * count, "index": 0}], "usage": {"completion_tokens": count}},
            )
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        with State.lock:
            State.running += 1
        start = time.perf_counter()
        try:
            for i in range(count):
                delay = start + (i + 1) / State.rate - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                chunk = {"choices": [{"text": "tok ", "index": 0, "finish_reason": None}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
            usage = {"prompt_tokens": prompt_tokens, "completion_tokens": count}
            self.wfile.write(f"data: {json.dumps({'choices': [], 'usage': usage})}\n\ndata: [DONE]\n\n".encode())
            self.wfile.flush()
        finally:
            with State.lock:
                running = State.running
                State.running -= 1
            State.last_gen = State.rate * running
            log(
                f"Decode batch, #running-req: {running}, #token: {count * running}, token usage: 0.01, "
                f"cuda graph: True, gen throughput (token/s): {State.last_gen:.2f}, #queue-req: 0"
            )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--startup-s", type=float, default=0.2)
    parser.add_argument("--model", default="standin-model")
    parser.add_argument("--fail-after-s", type=float, default=None)
    parser.add_argument("--fail-log", default=None, help="Lines to print before exiting 1.")
    args = parser.parse_args()
    State.rate, State.model, State.port = args.rate, args.model, args.port
    log(f"server_args=ServerArgs(model_path='/models/{args.model}', tp_size=1, port={args.port})")
    log("Load weight begin. avail mem=10.00 GB")
    if args.fail_after_s is not None:
        time.sleep(args.fail_after_s)
        if args.fail_log:
            with open(args.fail_log, encoding="utf-8") as handle:
                sys.stdout.write(handle.read())
            sys.stdout.flush()
        return 1
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"INFO:     Uvicorn running on http://127.0.0.1:{args.port} (Press CTRL+C to quit)", flush=True)
    time.sleep(args.startup_s)
    State.ready = True
    log("The server is fired up and ready to roll!")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
