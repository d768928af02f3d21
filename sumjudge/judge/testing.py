"""A local OpenAI-compatible chat server for tests and benchmarks (127.0.0.1 only).

It answers every protocol's prompt with a well-formed, deterministic reply, and can
inject faults per prompt: put a marker in the prompt text and map it to the faults
its successive attempts get (``faults={"FAULT-A": ["429", "500"]}``: the first
attempt gets a 429, the second a 500, the third a normal reply).

Faults: ``429`` (with ``retry-after``), ``500``, ``503``, ``slow`` (replies after
``slow_s`` seconds, longer than the client's timeout), ``malformed`` (a 200 whose
body is not JSON), ``truncated_body`` (the connection closes half-way through the
body), ``length`` (a reply cut by max_tokens: finish_reason ``length``), ``refuse``
(a polite refusal), ``context`` (400 context_length_exceeded).
"""
from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


def default_reply(messages: list[dict[str, str]]) -> str:
    """A well-formed answer to any of the four protocols (deterministic per prompt)."""
    text = messages[-1]["content"]
    h = int(hashlib.sha256(text.encode()).hexdigest(), 16)
    if "Semantic content units:" in text:
        n = len(re.findall(r"(?m)^\d+\. ", text.split("Semantic content units:", 1)[1]))
        return "\n".join(f"{i}. {'Yes' if (h >> i) & 1 else 'No'}" for i in range(1, n + 1))
    if "which summary is better" in text:
        return f"Summary {h % 2}"
    if "Is the sentence supported" in text:
        return "Yes" if h % 3 else "No"
    m = re.search(r"four dimensions: (\w+), (\w+), (\w+), and (\w+)", text)
    dims = m.groups() if m else ("relevance", "consistency", "fluency", "coherence")
    return "\n".join(f"{d.capitalize()}: {1 + (h >> (3 * i)) % 5}" for i, d in enumerate(dims))


class FakeOpenAIServer:
    def __init__(self, *, models: tuple[str, ...] = ("fake-model",), api_key: str | None = None,
                 latency_s: float = 0.0, faults: dict[str, list[str]] | None = None,
                 retry_after: float = 1.0, slow_s: float = 5.0, max_prompt_chars: int | None = None,
                 reply: Callable[[list[dict[str, str]]], str] = default_reply):
        self.models = set(models)
        self.api_key = api_key
        self.latency_s = latency_s
        self.faults = {k: list(v) for k, v in (faults or {}).items()}
        self.retry_after = retry_after
        self.slow_s = slow_s
        self.max_prompt_chars = max_prompt_chars
        self.reply = reply
        self.lock = threading.Lock()
        self.attempts: Counter[str] = Counter()      # prompt sha -> requests received
        self.served: Counter[str] = Counter()        # prompt sha -> normal replies sent in full
        self.log: list[tuple[float, str, str]] = []  # (time, prompt sha, outcome)
        self.auth_headers: set[str] = set()
        self.in_flight = 0
        self.max_in_flight = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def __enter__(self) -> "FakeOpenAIServer":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    server._json(self, 200, {"object": "list", "data": [{"id": m, "object": "model"}
                                                                       for m in sorted(server.models)]})
                else:
                    server._json(self, 404, {"error": {"message": "not found"}})

            def do_POST(self):
                with server.lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    server._chat(self)
                finally:
                    with server.lock:
                        server.in_flight -= 1

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @staticmethod
    def prompt_sha(messages: list[dict[str, str]]) -> str:
        """How the server identifies a prompt in ``attempts``, ``served`` and ``log``."""
        return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()

    @property
    def requests_received(self) -> int:
        return sum(self.attempts.values())

    # -- handling

    @staticmethod
    def _json(handler, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(obj).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            handler.send_header(k, v)
        handler.end_headers()
        handler.wfile.write(body)

    def _record(self, sha: str, outcome: str) -> None:
        with self.lock:
            self.log.append((time.time(), sha, outcome))

    def _chat(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        body = json.loads(h.rfile.read(length) or b"{}")
        auth = h.headers.get("Authorization") or ""
        messages = body.get("messages") or []
        text = "\n".join(m.get("content") or "" for m in messages)
        sha = self.prompt_sha(messages)
        with self.lock:
            self.auth_headers.add(auth)
            self.attempts[sha] += 1
            fault = None
            for marker, queue in self.faults.items():
                if marker in text and queue:
                    fault = queue.pop(0)
                    break
        if self.latency_s:
            time.sleep(self.latency_s)
        if self.api_key is not None and auth != f"Bearer {self.api_key}":
            self._record(sha, "401")
            return self._json(h, 401, {"error": {"message": "Incorrect API key provided: sk-ab***cd.",
                                                 "type": "invalid_request_error", "code": "invalid_api_key"}})
        if body.get("model") not in self.models:
            self._record(sha, "404")
            return self._json(h, 404, {"error": {"message": f"The model `{body.get('model')}` does not exist "
                                                            "or you do not have access to it.",
                                                 "type": "invalid_request_error", "code": "model_not_found"}})
        if fault == "context" or (self.max_prompt_chars and len(text) > self.max_prompt_chars):
            self._record(sha, "context")
            return self._json(h, 400, {"error": {"message": "This model's maximum context length is 4097 tokens.",
                                                 "type": "invalid_request_error", "code": "context_length_exceeded"}})
        if fault == "429":
            self._record(sha, "429")
            return self._json(h, 429, {"error": {"message": "Rate limit reached", "type": "requests",
                                                 "code": "rate_limit_exceeded"}},
                              {"retry-after": f"{self.retry_after:g}"})
        if fault in ("500", "503"):
            self._record(sha, fault)
            return self._json(h, int(fault), {"error": {"message": "The server had an error", "type": "server_error"}})
        if fault == "slow":
            time.sleep(self.slow_s)
        if fault == "malformed":
            self._record(sha, "malformed")
            raw = b'{"id": "chatcmpl-x", "choices": [{"message": {"content": "Rel'
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(raw)))
            h.end_headers()
            h.wfile.write(raw)
            return
        content = self.reply(messages)
        finish = "stop"
        if fault == "length":
            content, finish = content[: max(1, len(content) // 3)], "length"
        elif fault == "refuse":
            content = "I'm sorry, but I cannot evaluate this summary."
        completion = {
            "id": f"chatcmpl-{sha[:12]}", "object": "chat.completion", "created": int(time.time()),
            "model": f"{body.get('model')}-2024-01-01", "system_fingerprint": "fp_fake",
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": len(text) // 4 + 1, "completion_tokens": len(content) // 4 + 1,
                      "total_tokens": len(text) // 4 + len(content) // 4 + 2},
        }
        if fault == "truncated_body":
            self._record(sha, "truncated_body")
            raw = json.dumps(completion).encode()
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(raw)))
            h.end_headers()
            h.wfile.write(raw[: len(raw) // 2])
            h.wfile.flush()
            h.close_connection = True
            return
        try:
            self._json(h, 200, completion)
        except (BrokenPipeError, ConnectionResetError):
            self._record(sha, "client_gone")
            return
        with self.lock:
            self.served[sha] += 1
        self._record(sha, "ok" if fault is None else f"ok-after-{fault}")


__all__ = ["FakeOpenAIServer", "default_reply"]
