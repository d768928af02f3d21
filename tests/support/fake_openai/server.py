"""The server: its settings and records, the HTTP lifecycle and the routes (module docstring of the
package: what it answers and how)."""
from __future__ import annotations

import hashlib
import json
import threading
import urllib.parse
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from .batches import Batches
from .chat import ChatCompletions
from .errors import auth_error, error
from .files import Files
from .replies import REASONING_TOKENS, default_logprobs, default_reply
from .wire import send_json


class FakeOpenAIServer(ChatCompletions, Files, Batches):
    def __init__(self, *, models: tuple[str, ...] = ("fake-model",), reasoning_models: tuple[str, ...] = (),
                 api_key: str | None = None, gateway: str | None = None,
                 latency_s: float = 0.0, faults: dict[str, list[str]] | None = None,
                 retry_after: float = 1.0, ratelimit_reset: str = "1s", slow_s: float = 5.0,
                 max_prompt_chars: int | None = None,
                 reply: Callable[[list[dict[str, str]]], str] = default_reply,
                 logprobs: Callable[[str, int], list[dict[str, Any]]] = default_logprobs,
                 reasoning_tokens: dict[str, int] | None = None,
                 prompt_cache_block: int = 128, prompt_cache_min_tokens: int = 1024,
                 batch_polls: int = 2, batch_outcomes: list[str] | None = None,
                 batch_delay_s: float | None = None):
        self.models = set(models) | set(reasoning_models)
        self.reasoning_models = set(reasoning_models)
        self.api_key = api_key
        self.gateway = gateway
        self.latency_s = latency_s
        self.faults = {k: list(v) for k, v in (faults or {}).items()}
        self.retry_after = retry_after
        self.ratelimit_reset = ratelimit_reset
        self.slow_s = slow_s
        self.max_prompt_chars = max_prompt_chars
        self.reply = reply
        self.logprobs = logprobs
        self.reasoning_tokens = dict(REASONING_TOKENS, **(reasoning_tokens or {}))
        self.prompt_cache_block = prompt_cache_block
        self.prompt_cache_min_tokens = prompt_cache_min_tokens
        self.batch_polls = batch_polls
        self.batch_outcomes = list(batch_outcomes or [])
        self.batch_delay_s = batch_delay_s
        self.batch_events: list[tuple[float, str, str]] = []  # (time.time(), batch id, status it entered)
        self.lock = threading.RLock()
        self.attempts: Counter[str] = Counter()      # prompt sha -> live chat requests received
        self.served: Counter[str] = Counter()        # prompt sha -> normal live replies sent in full
        self.log: list[tuple[float, str, str]] = []  # (time, prompt sha, outcome)
        self.auth_headers: set[str] = set()
        self.calls: Counter[str] = Counter()         # "POST /chat/completions", "POST /batches", ...
        self.chat_bodies: list[dict[str, Any]] = []  # every live chat request body, as received
        self.batch_lines: list[dict[str, Any]] = []  # every batch input line, as received
        self.files: dict[str, dict[str, Any]] = {}   # id -> {"object": FileObject dict, "data": bytes}
        self.batches: dict[str, dict[str, Any]] = {}  # id -> Batch dict
        self._batch_state: dict[str, dict[str, Any]] = {}
        self._prompts: list[str] = []                # for cached_tokens
        self.in_flight = 0
        self.max_in_flight = 0
        self._n = 0
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
                server._route(self, "GET")

            def do_POST(self):
                with server.lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    server._route(self, "POST")
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

    # -- records

    @staticmethod
    def prompt_sha(messages: list[dict[str, str]]) -> str:
        """How the server identifies a prompt in ``attempts``, ``served`` and ``log``."""
        return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()

    @property
    def requests_received(self) -> int:
        """Live chat-completion requests received (batch lines are not counted)."""
        return sum(self.attempts.values())

    @property
    def batches_created(self) -> int:
        return len(self.batches)

    def _id(self, prefix: str) -> str:
        with self.lock:
            self._n += 1
            return f"{prefix}{self._n:06d}{hashlib.sha256(str(self._n).encode()).hexdigest()[:10]}"

    def _record(self, sha: str, outcome: str) -> None:
        with self.lock:
            self.log.append((time.time(), sha, outcome))

    # -- routes

    _json = staticmethod(send_json)

    def _route(self, h: BaseHTTPRequestHandler, method: str) -> None:
        path = urllib.parse.urlsplit(h.path).path.rstrip("/")
        path = path[3:] if path.startswith("/v1") else path
        parts = [p for p in path.split("/") if p]
        auth = h.headers.get("Authorization") or ""
        if method == "POST" and parts == ["chat", "completions"]:
            with self.lock:
                self.calls["POST /chat/completions"] += 1
            return self._chat(h)
        if method == "GET" and parts == ["models"]:
            return send_json(h, 200, {"object": "list", "data": [{"id": m, "object": "model", "created": 0,
                                                                  "owned_by": "fake"} for m in sorted(self.models)]})
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        route = f"{method} /{parts[0] if parts else ''}" + ("/{id}" if len(parts) > 1 else "") + \
            ("/" + "/".join(parts[2:]) if len(parts) > 2 else "")
        with self.lock:
            self.calls[route] += 1
        if (err := auth_error(self, auth)) is not None:
            return send_json(h, *err)
        if parts[:1] == ["files"]:
            return self._files_route(h, method, parts, raw)
        if parts[:1] == ["batches"]:
            return self._batches_route(h, method, parts, raw, auth)
        return send_json(h, 404, error(f"Invalid URL ({method} {h.path})"))
