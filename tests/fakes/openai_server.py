"""A local HTTP server that speaks the OpenAI chat-completions API, from a script.

The real `openai` client talks to it over loopback, so everything between the decider and the
socket (serialisation, status handling, timeouts, retries) is the real thing.

A script is a list of responses, served in order, one per POST /v1/chat/completions:

    {"tool": "run_command", "args": {"command": "nvidia-smi"},
     "meta": {"rationale": "...", "confidence": 0.9}}        one tool call; `meta` becomes the
                                                             `_meta` argument (default: a stock
                                                             one; `"meta": null` leaves it out)
    {"tool_calls": [{"name": "x", "arguments": "{not json"}]} raw tool calls (arguments as a
                                                             string are sent verbatim)
    {"content": "I think we should..."}                      prose (may be combined with calls)
    {"status": 429, "headers": {"Retry-After": "1"}}          an HTTP error (body optional)
    {"delay_s": 2.0, ...}                                    wait before answering (any entry)
    {"usage": {"prompt_tokens": 10, "completion_tokens": 5}} token counts (default 100 / 20)
    {"model": "name"}                                        the model name answered

When the script runs out the server answers 400 "script exhausted" (not retried, so a test that
needs more responses fails at once, with that message).

Scripts live as JSON files under tests/fixtures/llm/ (`{"description": ..., "responses": [...]}`):
`load_script`, `save_script`. A script can be made from recorded decisions
(`script_from_decisions`, e.g. the runbook decider's on a lab case) or recorded from a real
endpoint with `FakeOpenAIServer(upstream=URL)`, which forwards each request and keeps the replies
in `recorded` as script entries.

Every request received is kept in `requests` so tests can assert on what the model was sent.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from agent.deciders.llm import META, LLMDecider
from agent.deciders.replay import ReplayDecider
from agent.llm_config import LLMSettings
from agent.state import Decision

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llm"

STOCK_META: dict[str, Any] = {
    "rationale": "scripted response",
    "confidence": 0.9,
    "alternatives": [{"description": "ask the operator", "risk": "low"}],
}


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def tools(self) -> list[dict[str, Any]]:
        return list(self.body.get("tools", []) or [])

    def text(self) -> str:
        """Every message's content, joined: what the model read."""
        parts = []
        for message in self.messages:
            content = message.get("content")
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):
                parts.extend(str(p.get("text", "")) for p in content if isinstance(p, dict))
        return "\n".join(parts)


def tool_call_entry(tool: str, args: dict[str, Any], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"tool": tool, "args": args, "meta": meta if meta is not None else dict(STOCK_META)}


def script_from_decisions(decisions: Iterable[Decision]) -> list[dict[str, Any]]:
    """One tool-call response per decision, carrying its rationale, confidence and alternatives."""
    entries = []
    for d in decisions:
        args: dict[str, Any]
        if d.kind == "ask":
            tool, args = "ask_operator", {"question": d.question or d.rationale}
        elif d.kind == "finish":
            tool, args = "finish", {"goal_met": d.goal_met, "summary": d.rationale}
        elif d.action is not None:
            tool, args = d.action.tool, dict(d.action.args)
        else:
            raise ValueError(f"decision of kind {d.kind!r} has no action to script")
        meta: dict[str, Any] = {
            "rationale": d.rationale,
            "confidence": d.confidence,
            "alternatives": [{"description": a.description, "risk": a.risk} for a in d.alternatives],
            "findings": d.findings,
            "hypotheses": d.hypotheses,
        }
        if d.milestone:
            meta["milestone"] = d.milestone
        entries.append(tool_call_entry(tool, args, meta))
    return entries


REPLAY_NOTE = re.compile(r"^\[replayed from [^\]]*\]\s*")


def script_from_transcript(path: Path) -> list[dict[str, Any]]:
    """The decisions recorded in a run's transcript (e.g. a runbook run on a lab case), as a script."""
    decisions = ReplayDecider.from_transcript(path).decisions
    return script_from_decisions(
        d.model_copy(update={"rationale": REPLAY_NOTE.sub("", d.rationale)}) for d in decisions
    )


def fixture_path(name: str) -> Path:
    path = Path(name)
    if path.is_absolute() or path.parent != Path("."):
        return path
    return FIXTURES / (name if name.endswith(".json") else f"{name}.json")


def load_script(name: str | Path) -> list[dict[str, Any]]:
    """A script by fixture name (`"p2p"` -> tests/fixtures/llm/p2p.json) or by path."""
    path = fixture_path(str(name))
    data = json.loads(path.read_text(encoding="utf-8"))
    responses = data["responses"] if isinstance(data, dict) else data
    if not isinstance(responses, list):
        raise ValueError(f"{path}: 'responses' must be a list")
    return responses


def save_script(name: str | Path, responses: Sequence[dict[str, Any]], description: str = "") -> Path:
    path = fixture_path(str(name))
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"description": description, "responses": list(responses)}
    path.write_text(json.dumps(body, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return path


def arguments_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def completion_body(entry: dict[str, Any], index: int, default_model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": entry.get("content")}
    calls: list[dict[str, Any]] = []
    if "tool" in entry:
        args = dict(entry.get("args", {}))
        meta = entry.get("meta", STOCK_META)
        if meta is not None:
            args[META] = meta
        calls.append({"name": entry["tool"], "arguments": args})
    calls.extend(entry.get("tool_calls", []))
    if calls:
        message["tool_calls"] = [
            {
                "id": f"call_{index}_{i}",
                "type": "function",
                "function": {
                    "name": c["name"],
                    "arguments": arguments_text(c["arguments"]),
                },
            }
            for i, c in enumerate(calls)
        ]
    usage = {"prompt_tokens": 100, "completion_tokens": 20, **entry.get("usage", {})}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return {
        "id": f"chatcmpl-fake-{index}",
        "object": "chat.completion",
        "created": 0,
        "model": entry.get("model", default_model),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": entry.get("finish_reason", "tool_calls" if calls else "stop"),
            }
        ],
        "usage": usage,
    }


def entry_from_completion(body: dict[str, Any]) -> dict[str, Any]:
    """A script entry that replays `body` (a chat.completion from a real endpoint)."""
    message = body["choices"][0]["message"]
    entry: dict[str, Any] = {}
    if message.get("content"):
        entry["content"] = message["content"]
    if message.get("tool_calls"):
        entry["tool_calls"] = [
            {"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in message["tool_calls"]
        ]
    if body.get("usage"):
        entry["usage"] = {k: body["usage"][k] for k in ("prompt_tokens", "completion_tokens")}
    if body.get("model"):
        entry["model"] = body["model"]
    return entry


class FakeOpenAIServer:
    """Scripted (or recording) chat-completions endpoint on 127.0.0.1, on a free port."""

    def __init__(
        self,
        script: Sequence[dict[str, Any]] = (),
        *,
        model: str = "fake-model",
        upstream: str | None = None,
        upstream_key: str = "not-needed",
    ) -> None:
        self.script = list(script)
        self.model = model
        self.upstream = upstream.rstrip("/") if upstream else None
        self.upstream_key = upstream_key
        self.requests: list[RecordedRequest] = []
        self.recorded: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._served = 0
        self._stop = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-openai", daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def remaining(self) -> int:
        return len(self.script) - self._served

    def add(self, *entries: dict[str, Any]) -> None:
        with self._lock:
            self.script.extend(entries)

    def start(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()  # cut short any scripted delay
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- serving ------------------------------------------------------------------------------

    def _next(self, body: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any], float]:
        if self.upstream:
            return self._forward(body)
        with self._lock:
            index = self._served
            if index >= len(self.script):
                error = {
                    "error": {
                        "message": f"fake server script exhausted after {len(self.script)} responses",
                        "type": "invalid_request_error",
                    }
                }
                return 400, {}, error, 0.0
            self._served += 1
            entry = self.script[index]
        delay = float(entry.get("delay_s", 0.0))
        headers = {str(k): str(v) for k, v in entry.get("headers", {}).items()}
        status = int(entry.get("status", 200))
        if status != 200:
            default = {"error": {"message": f"scripted HTTP {status}", "type": "server_error"}}
            return status, headers, entry.get("body", default), delay
        return 200, headers, completion_body(entry, index, self.model), delay

    def _forward(self, body: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any], float]:
        request = urllib.request.Request(
            f"{self.upstream}/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.upstream_key}"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=600) as response:
                answer = json.loads(response.read())
                with self._lock:
                    self.recorded.append(entry_from_completion(answer))
                return response.status, {}, answer, 0.0
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers.items()), json.loads(exc.read() or b"{}"), 0.0

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output clean

            def _send(self, status: int, headers: dict[str, str], body: dict[str, Any]) -> None:
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, {}, {"object": "list", "data": [{"id": server.model, "object": "model"}]})
                else:
                    self._send(404, {}, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {}, {"error": {"message": f"no route {self.path}"}})
                    return
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    self._send(400, {}, {"error": {"message": "request body is not JSON"}})
                    return
                headers_in = {k.lower(): v for k, v in self.headers.items()}
                with server._lock:
                    server.requests.append(RecordedRequest(self.path, headers_in, body))
                status, headers, answer, delay = server._next(body)
                if delay and server._stop.wait(delay):
                    return
                # The client may have given up (a timeout test); then there is nobody to answer.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._send(status, headers, answer)

        return Handler


def fast_settings(server: FakeOpenAIServer, **overrides: Any) -> LLMSettings:
    """Settings for a decider against `server`, with retry waits that keep tests fast."""
    fields: dict[str, Any] = {
        "model": server.model,
        "base_url": server.base_url,
        "api_key": "test-key",
        "timeout_s": 5.0,
        "max_retries": 2,
        "retry_wait_s": 0.01,
        "retry_wait_max_s": 0.05,
    }
    fields.update(overrides)
    return LLMSettings(**fields)


def scripted_llm(server: FakeOpenAIServer, **overrides: Any) -> LLMDecider:
    """An `llm` decider talking to `server` through the real openai client; for full-loop tests.

    Keyword arguments override `LLMSettings` fields; `registry=` and `sleep=` go to the decider.
    """
    names = ("registry", "sleep", "clock", "keep_last")
    decider_kwargs = {k: overrides.pop(k) for k in names if k in overrides}
    return LLMDecider(fast_settings(server, **overrides), **decider_kwargs)


USAGE = """usage:
  python tests/fakes/openai_server.py serve SCRIPT
      serve a script (a fixture name under tests/fixtures/llm/ or a path) on 127.0.0.1 until
      interrupted; prints OPENAI_BASE_URL for `opsagent run --decider llm --model fake-model`
  python tests/fakes/openai_server.py from-transcript TRANSCRIPT SCRIPT
      write the decisions recorded in TRANSCRIPT as a script fixture"""


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "serve":
        with FakeOpenAIServer(load_script(argv[1])) as fake:
            print(f"OPENAI_BASE_URL={fake.base_url}", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                threading.Event().wait()
        return 0
    if len(argv) == 3 and argv[0] == "from-transcript":
        entries = script_from_transcript(Path(argv[1]))
        path = save_script(argv[2], entries, description=f"decisions recorded in {Path(argv[1]).name}")
        print(f"{len(entries)} responses written to {path}")
        return 0
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
