"""A local OpenAI-compatible chat server for tests and benchmarks (127.0.0.1 only).

It answers every protocol's prompt with a well-formed, deterministic reply, and can
inject faults per prompt: put a marker in the prompt text and map it to the faults
its successive attempts get (``faults={"FAULT-A": ["429", "500"]}``: the first
attempt gets a 429, the second a 500, the third a normal reply).

Faults: ``429`` (with ``retry-after``), ``500``, ``503``, ``slow`` (replies after
``slow_s`` seconds, longer than the client's timeout), ``malformed`` (a 200 whose
body is not JSON), ``truncated_body`` (the connection closes half-way through the
body), ``length`` (a reply cut by max_tokens: finish_reason ``length``), ``refuse``
(a polite refusal), ``context`` (400 context_length_exceeded), ``null_content`` /
``empty_content`` (a 200 whose message content is null / ""), ``429_headers`` (a 429
with only OpenAI's ``x-ratelimit-*`` headers, reset ``ratelimit_reset``),
``429_gateway`` (a 429 with only LiteLLM's ``llm_provider-retry-after``).

Answers as OpenAI's API does (shapes checked against the ``openai`` SDK's types):

- ``reasoning_models``: models that reject ``temperature`` (other than 1) and
  ``max_tokens`` with OpenAI's 400 ``unsupported_value`` / ``unsupported_parameter``
  bodies, accept ``max_completion_tokens`` and ``reasoning_effort``, spend reasoning
  tokens (``reasoning_tokens`` per effort) out of that budget and reply with empty
  content and ``finish_reason: length`` when the budget runs out;
- usage with ``prompt_tokens_details.cached_tokens`` (the prefix shared with an
  earlier prompt, in blocks of ``prompt_cache_block`` tokens once a prompt has
  ``prompt_cache_min_tokens``) and ``completion_tokens_details.reasoning_tokens``;
- ``logprobs: true`` / ``top_logprobs: k``: ``choices[0].logprobs.content[]`` as OpenAI's
  ``ChatCompletionTokenLogprob`` (token, logprob, bytes, up to k ``top_logprobs``), made
  by ``logprobs(reply, k)`` (default :func:`default_logprobs`); a reasoning model refuses
  ``logprobs`` and ``top_logprobs`` with OpenAI's 400 ``unsupported_parameter`` body;
- ``gateway="litellm"``: LiteLLM's proxy answers instead of OpenAI's for a wrong
  key (400 "No connected db.") and an unknown model (400 "Invalid model name ...");
- ``/v1/files`` (upload, retrieve, content) and ``/v1/batches`` (create, retrieve,
  list, cancel): a batch is ``validating`` until its first retrieve, ``in_progress``
  until its ``batch_polls``-th, then final (with ``batch_delay_s``: ``in_progress`` from
  its first retrieve until that many seconds after ``batches.create``, however often it
  is polled); the Batch objects carry the SDK's timestamps (``created_at``,
  ``in_progress_at``, ``finalizing_at``, ``completed_at`` / ``failed_at`` /
  ``expired_at`` / ``cancelled_at``, Unix seconds) and ``batch_events`` lists the same
  moments as float times ``(time, batch id, status)``; ``batch_outcomes`` (a queue, one per
  batch created) picks ``completed``, ``expired`` (half the lines answered, the rest
  ``batch_expired`` in the error file) or ``failed`` (validation errors), ``token_limit`` (failed: the model's enqueued-token limit). Lines are
  answered like live requests (faults included): 200s go to the output file, others
  to the error file.
"""
from __future__ import annotations

import email.parser
import email.policy
import hashlib
import json
import os
import re
import threading
import time
import urllib.parse
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
    # prompts/likert.txt (a user's Likert dataset): "on these dimensions: quality, clarity."
    mine = re.search(r"these dimensions: ([\w ,]+)\.", text)
    dims = m.groups() if m else tuple(d.strip() for d in mine.group(1).split(",")) if mine else \
        ("relevance", "consistency", "fluency", "coherence")
    return "\n".join(f"{d.capitalize()}: {1 + (h >> (3 * i)) % 5}" for i, d in enumerate(dims))


REASONING_TOKENS = {"minimal": 0, "low": 64, "medium": 192, "high": 512}

# the fake tokenizer: every digit, run of letters, run of spaces and other character a token
_TOKEN = re.compile(r"\d|[A-Za-z]+|[ \t]+|\n|[^\sA-Za-z\d]")


def logprob_item(token: str, logprob: float, top: list[tuple[str, float]]) -> dict[str, Any]:
    """One ``ChatCompletionTokenLogprob`` (the openai SDK's type) as JSON."""
    return {"token": token, "logprob": logprob, "bytes": list(token.encode("utf-8")),
            "top_logprobs": [{"token": t, "logprob": lp, "bytes": list(t.encode("utf-8"))} for t, lp in top]}


def default_logprobs(reply: str, k: int) -> list[dict[str, Any]]:
    """Deterministic logprobs for ``reply``: a digit gets 0.6 and its neighbours on 1..5
    0.15 each (the rest goes to ``" The"``), any other token 0.99; the top ``k`` listed,
    most probable first."""
    import math

    out = []
    for token in _TOKEN.findall(reply or ""):
        if token.isdigit() and 1 <= int(token) <= 5:
            d = int(token)
            probs = {str(d): 0.6, **{str(n): 0.15 for n in (d - 1, d + 1) if 1 <= n <= 5}}
            probs[" The"] = 1.0 - sum(probs.values())
        else:
            probs = {token: 0.99, " the" if token != " the" else " a": 0.01}
        top = sorted(((t, math.log(p)) for t, p in probs.items()), key=lambda x: -x[1])[:k]
        out.append(logprob_item(token, math.log(probs[token]), top))
    return out


def _tokens(text: str) -> int:
    return len(text) // 4 + 1


class FakeOpenAIServer:
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

    def _auth_error(self, auth: str) -> tuple[int, dict[str, Any]] | None:
        if self.api_key is None or auth == f"Bearer {self.api_key}":
            return None
        if self.gateway == "litellm":  # LiteLLM's proxy without a database
            return 400, {"error": {"message": "Authentication Error, No connected db.", "type": "auth_error",
                                   "param": "None", "code": "400"}}
        return 401, {"error": {"message": "Incorrect API key provided: sk-ab***cd.",
                               "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}}

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
            return self._json(h, 200, {"object": "list", "data": [{"id": m, "object": "model", "created": 0,
                                                                   "owned_by": "fake"} for m in sorted(self.models)]})
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        route = f"{method} /{parts[0] if parts else ''}" + ("/{id}" if len(parts) > 1 else "") + \
            ("/" + "/".join(parts[2:]) if len(parts) > 2 else "")
        with self.lock:
            self.calls[route] += 1
        if (err := self._auth_error(auth)) is not None:
            return self._json(h, *err)
        if parts[:1] == ["files"]:
            if method == "POST" and len(parts) == 1:
                return self._upload(h, raw)
            f = self.files.get(parts[1]) if len(parts) > 1 else None
            if f is None:
                return self._json(h, 404, {"error": {"message": f"No such File object: {parts[1:]}",
                                                     "type": "invalid_request_error", "param": "id", "code": None}})
            if len(parts) == 3 and parts[2] == "content":
                h.send_response(200)
                h.send_header("Content-Type", "application/octet-stream")
                h.send_header("Content-Length", str(len(f["data"])))
                h.end_headers()
                h.wfile.write(f["data"])
                return
            return self._json(h, 200, f["object"])
        if parts[:1] == ["batches"]:
            if method == "POST" and len(parts) == 1:
                return self._create_batch(h, json.loads(raw or b"{}"), auth)
            if method == "GET" and len(parts) == 1:
                q = urllib.parse.parse_qs(urllib.parse.urlsplit(h.path).query)
                return self._list_batches(h, int((q.get("limit") or ["20"])[0]), (q.get("after") or [None])[0], auth)
            b = self.batches.get(parts[1])
            if b is None:
                return self._json(h, 404, {"error": {"message": f"No batch found with id '{parts[1]}'.",
                                                     "type": "invalid_request_error", "param": None, "code": None}})
            if method == "POST" and len(parts) == 3 and parts[2] == "cancel":
                with self.lock:
                    if b["status"] in ("validating", "in_progress"):
                        b["status"], b["cancelling_at"] = "cancelling", int(time.time())
                return self._json(h, 200, b)
            self._advance(b["id"], auth)
            return self._json(h, 200, b)
        return self._json(h, 404, {"error": {"message": f"Invalid URL ({method} {h.path})",
                                             "type": "invalid_request_error", "param": None, "code": None}})

    # -- chat completions (live, and the lines of a batch)

    def _answer(self, body: dict[str, Any], auth: str, live: bool = True) -> tuple[int, dict[str, Any], dict, str | None]:
        """(status, JSON body, headers, connection-level fault) for one chat request."""
        messages = body.get("messages") or []
        text = "\n".join(m.get("content") or "" for m in messages)
        sha = self.prompt_sha(messages)
        with self.lock:
            fault = None
            for marker, queue in self.faults.items():
                if marker in text and queue:
                    fault = queue.pop(0)
                    break
        if (err := self._auth_error(auth)) is not None:
            self._record(sha, str(err[0]))
            return err[0], err[1], {}, None
        model = body.get("model")
        if model not in self.models:
            self._record(sha, "404")
            if self.gateway == "litellm":
                return 400, {"error": {"message": f"/chat/completions: Invalid model name passed in model={model}. "
                                                  "Call `/v1/models` to view available models for your key.",
                                       "type": "None", "param": "None", "code": "400"}}, {}, None
            return 404, {"error": {"message": f"The model `{model}` does not exist or you do not have access to it.",
                                   "type": "invalid_request_error", "param": None, "code": "model_not_found"}}, {}, None
        reasoning = model in self.reasoning_models
        if reasoning and "max_tokens" in body:
            self._record(sha, "unsupported_parameter")
            return 400, {"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                                              "Use 'max_completion_tokens' instead.", "type": "invalid_request_error",
                                   "param": "max_tokens", "code": "unsupported_parameter"}}, {}, None
        if reasoning and "temperature" in body and body["temperature"] != 1:
            self._record(sha, "unsupported_value")
            return 400, {"error": {"message": f"Unsupported value: 'temperature' does not support {body['temperature']} "
                                              "with this model. Only the default (1) value is supported.",
                                   "type": "invalid_request_error", "param": "temperature",
                                   "code": "unsupported_value"}}, {}, None
        if reasoning and (body.get("logprobs") or "top_logprobs" in body):
            self._record(sha, "unsupported_parameter")
            param = "logprobs" if body.get("logprobs") else "top_logprobs"
            return 400, {"error": {"message": f"Unsupported parameter: '{param}' is not supported with this model.",
                                   "type": "invalid_request_error", "param": param,
                                   "code": "unsupported_parameter"}}, {}, None
        if "reasoning_effort" in body and (not reasoning or body["reasoning_effort"] not in self.reasoning_tokens):
            self._record(sha, "unsupported_value")
            what = ("Unsupported parameter: 'reasoning_effort' is not supported with this model." if not reasoning else
                    f"Unsupported value: 'reasoning_effort' does not support {body['reasoning_effort']!r} with this model.")
            return 400, {"error": {"message": what, "type": "invalid_request_error", "param": "reasoning_effort",
                                   "code": "unsupported_parameter" if not reasoning else "unsupported_value"}}, {}, None
        if fault == "context" or (self.max_prompt_chars and len(text) > self.max_prompt_chars):
            self._record(sha, "context")
            return 400, {"error": {"message": "This model's maximum context length is 4097 tokens.",
                                   "type": "invalid_request_error", "param": "messages",
                                   "code": "context_length_exceeded"}}, {}, None
        rl_body = {"error": {"message": "Rate limit reached for requests", "type": "requests", "param": None,
                             "code": "rate_limit_exceeded"}}
        if fault == "429":
            self._record(sha, "429")
            return 429, rl_body, {"retry-after": f"{self.retry_after:g}"}, None
        if fault == "429_headers":
            self._record(sha, "429")
            return 429, rl_body, {"x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "0",
                                  "x-ratelimit-reset-requests": self.ratelimit_reset,
                                  "x-ratelimit-limit-tokens": "150000", "x-ratelimit-remaining-tokens": "149000",
                                  "x-ratelimit-reset-tokens": "20ms"}, None
        if fault == "429_gateway":
            self._record(sha, "429")
            return 429, rl_body, {"llm_provider-retry-after": f"{self.retry_after:g}"}, None
        if fault in ("500", "503"):
            self._record(sha, fault)
            return int(fault), {"error": {"message": "The server had an error", "type": "server_error",
                                          "param": None, "code": None}}, {}, None
        content: str | None = self.reply(messages)
        finish = "stop"
        spent = 0
        if reasoning:
            spent = self.reasoning_tokens[body.get("reasoning_effort") or "medium"]
            budget = body.get("max_completion_tokens")
            if budget is not None and spent >= int(budget):
                spent, content, finish = int(budget), "", "length"
            elif budget is not None and _tokens(content) > int(budget) - spent:
                content, finish = content[: max(0, (int(budget) - spent) * 4 - 4)], "length"
        elif body.get("max_tokens") is not None and _tokens(content) > int(body["max_tokens"]):
            content, finish = content[: int(body["max_tokens"]) * 4], "length"
        if fault == "length":
            content, finish = content[: max(1, len(content) // 3)], "length"
        elif fault == "refuse":
            content = "I'm sorry, but I cannot evaluate this summary."
        elif fault == "null_content":
            content = None
        elif fault == "empty_content":
            content = ""
        prompt_tokens = _tokens(text)
        with self.lock:
            shared = max((len(os.path.commonprefix([text, p])) for p in self._prompts), default=0)
            self._prompts.append(text)
        cached = 0
        if prompt_tokens >= self.prompt_cache_min_tokens:
            cached = min(shared // 4, prompt_tokens) // self.prompt_cache_block * self.prompt_cache_block
        completion_tokens = (_tokens(content) if content else 0) + spent
        completion = {
            "id": f"chatcmpl-{sha[:12]}", "object": "chat.completion", "created": int(time.time()),
            "model": f"{model}-2024-01-01", "system_fingerprint": "fp_fake", "service_tier": "default",
            "choices": [{"index": 0, "finish_reason": finish,
                         "logprobs": ({"content": self.logprobs(content or "", int(body.get("top_logprobs") or 0)),
                                       "refusal": None} if body.get("logprobs") else None),
                         "message": {"role": "assistant", "content": content, "refusal": None}}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens,
                      "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
                      "completion_tokens_details": {"reasoning_tokens": spent, "audio_tokens": 0,
                                                    "accepted_prediction_tokens": 0,
                                                    "rejected_prediction_tokens": 0}},
        }
        return 200, completion, {}, (fault if live and fault in ("slow", "malformed", "truncated_body") else None)

    def _chat(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        body = json.loads(h.rfile.read(length) or b"{}")
        auth = h.headers.get("Authorization") or ""
        messages = body.get("messages") or []
        sha = self.prompt_sha(messages)
        with self.lock:
            self.auth_headers.add(auth)
            self.attempts[sha] += 1
            self.chat_bodies.append(body)
        if self.latency_s:
            time.sleep(self.latency_s)
        status, obj, headers, fault = self._answer(body, auth)
        if status != 200:
            return self._json(h, status, obj, headers)
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
        if fault == "truncated_body":
            self._record(sha, "truncated_body")
            raw = json.dumps(obj).encode()
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(raw)))
            h.end_headers()
            h.wfile.write(raw[: len(raw) // 2])
            h.wfile.flush()
            h.close_connection = True
            return
        try:
            self._json(h, 200, obj)
        except (BrokenPipeError, ConnectionResetError):
            self._record(sha, "client_gone")
            return
        with self.lock:
            self.served[sha] += 1
        self._record(sha, "ok" if fault is None else f"ok-after-{fault}")

    # -- files

    def _upload(self, h: BaseHTTPRequestHandler, raw: bytes) -> None:
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + (h.headers.get("Content-Type") or "").encode() + b"\r\n\r\n" + raw)
        fields: dict[str, Any] = {}
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            fields[name] = (part.get_filename(), part.get_payload(decode=True))
        if "file" not in fields or "purpose" not in fields:
            return self._json(h, 400, {"error": {"message": "Missing required parameter: 'file'.",
                                                 "type": "invalid_request_error", "param": "file", "code": None}})
        filename, data = fields["file"]
        purpose = fields["purpose"][1].decode()
        fid = self._id("file-")
        obj = {"id": fid, "object": "file", "bytes": len(data), "created_at": int(time.time()),
               "filename": filename or "upload", "purpose": purpose, "status": "processed",
               "expires_at": None, "status_details": None}
        with self.lock:
            self.files[fid] = {"object": obj, "data": data}
        self._json(h, 200, obj)

    def _store(self, data: bytes, filename: str, purpose: str) -> str:
        fid = self._id("file-")
        self.files[fid] = {"object": {"id": fid, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                                      "filename": filename, "purpose": purpose, "status": "processed",
                                      "expires_at": None, "status_details": None}, "data": data}
        return fid

    # -- batches

    def _create_batch(self, h: BaseHTTPRequestHandler, body: dict[str, Any], auth: str) -> None:
        f = self.files.get(body.get("input_file_id"))
        if f is None:
            return self._json(h, 400, {"error": {"message": f"Invalid 'input_file_id': '{body.get('input_file_id')}'.",
                                                 "type": "invalid_request_error", "param": "input_file_id",
                                                 "code": None}})
        if body.get("endpoint") != "/v1/chat/completions" or body.get("completion_window") != "24h":
            return self._json(h, 400, {"error": {"message": "Invalid endpoint or completion_window.",
                                                 "type": "invalid_request_error", "param": "endpoint", "code": None}})
        lines = [json.loads(x) for x in f["data"].decode().splitlines() if x.strip()]
        bid = self._id("batch_")
        t = time.time()
        now = int(t)
        batch = {"id": bid, "object": "batch", "endpoint": body["endpoint"], "errors": None,
                 "input_file_id": body["input_file_id"], "completion_window": body["completion_window"],
                 "status": "validating", "output_file_id": None, "error_file_id": None, "created_at": now,
                 "in_progress_at": None, "expires_at": now + 86400, "finalizing_at": None, "completed_at": None,
                 "failed_at": None, "expired_at": None, "cancelling_at": None, "cancelled_at": None,
                 "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                 "metadata": body.get("metadata")}
        with self.lock:
            self.batches[bid] = batch
            self._batch_state[bid] = {"polls": 0, "lines": lines, "created": t,
                                      "outcome": self.batch_outcomes.pop(0) if self.batch_outcomes else "completed"}
            self.batch_events.append((t, bid, "validating"))
            self.batch_lines.extend(lines)
        self._json(h, 200, batch)

    def _list_batches(self, h: BaseHTTPRequestHandler, limit: int, after: str | None, auth: str) -> None:
        with self.lock:
            items = sorted(self.batches.values(), key=lambda b: b["id"], reverse=True)
        if after:
            ids = [b["id"] for b in items]
            items = items[ids.index(after) + 1:] if after in ids else []
        page = items[:limit]
        for b in page:
            self._advance(b["id"], auth, poll=False)
        self._json(h, 200, {"object": "list", "data": page, "first_id": page[0]["id"] if page else None,
                            "last_id": page[-1]["id"] if page else None, "has_more": len(items) > limit})

    def _advance(self, bid: str, auth: str, poll: bool = True) -> None:
        with self.lock:
            b, st = self.batches[bid], self._batch_state[bid]
            if b["status"] in ("completed", "failed", "expired", "cancelled"):
                return
            if poll:
                st["polls"] += 1
            if b["status"] == "cancelling":
                final = "cancelled"
            elif (st["polls"] >= self.batch_polls if self.batch_delay_s is None
                  else time.time() - st["created"] >= self.batch_delay_s):
                final = st["outcome"]
            else:
                if st["polls"] >= 1 and b["status"] == "validating":
                    t = time.time()
                    b["status"], b["in_progress_at"] = "in_progress", int(t)
                    self.batch_events.append((t, bid, "in_progress"))
                return
        self._finish(bid, final, auth)

    def _finish(self, bid: str, final: str, auth: str) -> None:
        b, st = self.batches[bid], self._batch_state[bid]
        t = time.time()
        now = int(t)
        with self.lock:
            if b["in_progress_at"] is None and final in ("completed", "expired"):
                b["in_progress_at"] = now
            self.batch_events.append((t, bid, "failed" if final == "token_limit" else final))
        if final == "failed":
            with self.lock:
                b.update(status="failed", failed_at=now, errors={"object": "list", "data": [
                    {"code": "invalid_request", "message": "The request body is not valid for this model.",
                     "param": "body", "line": 1}]})
            return
        if final == "token_limit":  # OpenAI's refusal when a model's enqueued-token limit is reached
            model = (st["lines"][0].get("body") or {}).get("model") if st["lines"] else None
            with self.lock:
                b.update(status="failed", failed_at=now, errors={"object": "list", "data": [
                    {"code": "token_limit_exceeded", "line": None, "param": None,
                     "message": f"Enqueued token limit reached for {model} in organization org-fake. "
                                "Limit: 90,000 enqueued tokens. Please try again once some in_progress "
                                "batches have been completed."}]})
            return
        lines = st["lines"]
        n_answer = len(lines) if final == "completed" else (len(lines) // 2 if final == "expired" else 0)
        out, err = [], []
        for i, line in enumerate(lines):
            rid = f"batch_req_{hashlib.sha256(f'{bid}{i}'.encode()).hexdigest()[:16]}"
            if i >= n_answer:
                if final == "expired":
                    err.append({"id": rid, "custom_id": line.get("custom_id"), "response": None,
                                "error": {"code": "batch_expired", "message": "This request could not be executed "
                                          "before the completion window expired."}})
                continue
            status, obj, _headers, _ = self._answer(line.get("body") or {}, auth, live=False)
            rec = {"id": rid, "custom_id": line.get("custom_id"),
                   "response": {"status_code": status, "request_id": f"req_{rid[10:]}", "body": obj}, "error": None}
            (out if status == 200 else err).append(rec)
        with self.lock:
            if out:
                b["output_file_id"] = self._store("".join(json.dumps(r) + "\n" for r in out).encode(),
                                                  f"{bid}_output.jsonl", "batch_output")
            if err:
                b["error_file_id"] = self._store("".join(json.dumps(r) + "\n" for r in err).encode(),
                                                 f"{bid}_error.jsonl", "batch_output")
            b["request_counts"] = {"total": len(lines), "completed": len(out),
                                   "failed": len([e for e in err if e["response"] is not None])}
            b["status"] = final
            b["finalizing_at"] = now
            b[{"completed": "completed_at", "expired": "expired_at", "cancelled": "cancelled_at"}[final]] = now


__all__ = ["FakeOpenAIServer", "default_reply"]
