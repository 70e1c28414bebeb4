"""Carried by scripts/gpu-smoke: a tiny random model, and a minimal OpenAI-compatible server for it.

    python3 smoke_server.py make-model --out DIR          # random LlamaForCausalLM + tokenizer, no download
    python3 smoke_server.py serve --model DIR --port P    # /health, /v1/models, /server_info, /v1/completions

Needs PyTorch and transformers (and `tokenizers`, which transformers brings); not SGLang. The
server answers streaming completions token by token with greedy decoding, one request at a time,
and logs SGLang-style lines (`The server is fired up and ready to roll!`, `Decode batch ...`), so
opsagent's wait_server / server_status / run_benchmark work against it unchanged.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

VOCAB = 32000


def log(message: str) -> None:
    print(f"[{time.strftime('%Y-%m-%d %H:%M:%S')}] {message}", flush=True)


def make_model(out: Path) -> None:
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    torch.manual_seed(0)
    specials = ["<unk>", "<s>", "</s>", "<pad>"]
    vocab = {tok: i for i, tok in enumerate(specials)}
    for i in range(len(specials), VOCAB):
        vocab[f"t{i}"] = i
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, unk_token="<unk>", bos_token="<s>", eos_token="</s>", pad_token="<pad>"
    )
    config = LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=256,  # head_dim 64: a size every SGLang attention backend supports
        intermediate_size=512,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=4096,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=3,
        torch_dtype="bfloat16",
    )
    model = LlamaForCausalLM(config).to(torch.bfloat16)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    log(f"tiny random model written to {out} ({sum(p.numel() for p in model.parameters())} parameters)")


class Engine:
    """Greedy token-by-token generation with a KV cache; one request at a time."""

    def __init__(self, model_dir: str, device: str) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.torch = torch
        self.device = device
        dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.model = AutoModelForCausalLM.from_pretrained(model_dir, torch_dtype=dtype).to(device).eval()
        self.vocab = int(self.model.config.vocab_size)
        self.lock = threading.Lock()
        self.model_dir = model_dir

    def ids(self, prompt: Any) -> list[int]:
        if isinstance(prompt, list) and prompt and isinstance(prompt[0], int):
            return [int(t) % self.vocab for t in prompt]
        text = prompt[0] if isinstance(prompt, list) and prompt else str(prompt)
        encoded = self.tokenizer(text)["input_ids"]
        return [int(t) for t in encoded] or [1]

    def generate(self, ids: list[int], max_tokens: int) -> Any:
        torch = self.torch
        with self.lock, torch.no_grad():
            out = self.model(input_ids=torch.tensor([ids], device=self.device), use_cache=True)
            for _ in range(max_tokens):
                next_id = out.logits[:, -1, :].argmax(-1)
                token = int(next_id.item())
                yield token, self.tokenizer.decode([token]) + " "
                out = self.model(input_ids=next_id[:, None], past_key_values=out.past_key_values, use_cache=True)


class Server:
    engine: Engine
    ready = False
    port = 0
    model_name = ""
    last_gen = 0.0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # one request per connection; a stream ends when the socket closes

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def _json(self, code: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path in ("/health", "/health_generate"):
            self.send_response(200 if Server.ready else 503)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/v1/models":
            self._json(
                200,
                {
                    "object": "list",
                    "data": [{"id": Server.model_name, "object": "model", "owned_by": "sglang"}],
                },
            )
        elif self.path in ("/server_info", "/get_server_info"):
            self._json(
                200,
                {
                    "model_path": Server.engine.model_dir,
                    "tp_size": 1,
                    "port": Server.port,
                    "status": "ready" if Server.ready else "starting",
                    "version": "smoke-transformers",
                    "internal_states": [{"last_gen_throughput": Server.last_gen}],
                },
            )
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:
        if self.path != "/v1/completions":
            self._json(404, {"error": "not found"})
            return
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        ids = Server.engine.ids(body.get("prompt", ""))
        max_tokens = int(body.get("max_tokens", 16))
        started = time.perf_counter()
        if not body.get("stream"):
            text = "".join(piece for _, piece in Server.engine.generate(ids, max_tokens))
            usage = {"prompt_tokens": len(ids), "completion_tokens": max_tokens}
            self._json(200, {"object": "text_completion", "choices": [{"index": 0, "text": text}], "usage": usage})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        count = 0
        for _, piece in Server.engine.generate(ids, max_tokens):
            count += 1
            chunk = {
                "object": "text_completion",
                "choices": [{"index": 0, "text": piece, "finish_reason": None}],
            }
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
        usage = {"prompt_tokens": len(ids), "completion_tokens": count}
        self.wfile.write(f"data: {json.dumps({'choices': [], 'usage': usage})}\n\ndata: [DONE]\n\n".encode())
        self.wfile.flush()
        elapsed = max(time.perf_counter() - started, 1e-9)
        Server.last_gen = count / elapsed
        log(
            f"Decode batch, #running-req: 1, #token: {len(ids) + count}, token usage: 0.00, "
            f"cuda graph: False, gen throughput (token/s): {Server.last_gen:.2f}, #queue-req: 0"
        )


def serve(model_dir: str, port: int, device: str) -> int:
    log(f"server_args=ServerArgs(model_path='{model_dir}', tp_size=1, port={port}, backend='transformers')")
    log("Load weight begin.")
    Server.engine = Engine(model_dir, device)
    Server.port, Server.model_name = port, model_dir
    log(f"Load weight end. type={type(Server.engine.model).__name__}, device={device}")
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    log(f"INFO:     Uvicorn running on http://127.0.0.1:{port} (Press CTRL+C to quit)")
    list(Server.engine.generate([1, 5, 6], 4))  # warm-up, as SGLang does before it says ready
    Server.ready = True
    log("The server is fired up and ready to roll!")
    while True:
        time.sleep(3600)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    make = sub.add_parser("make-model")
    make.add_argument("--out", required=True)
    run = sub.add_parser("serve")
    run.add_argument("--model", required=True)
    run.add_argument("--port", type=int, default=30000)
    run.add_argument("--device", default="cuda:0")
    args = parser.parse_args()
    if args.cmd == "make-model":
        make_model(Path(args.out))
        return 0
    return serve(args.model, args.port, args.device)


if __name__ == "__main__":
    sys.exit(main())
