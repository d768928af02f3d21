"""``POST /v1/chat/completions``, live and as the lines of a batch: the request checks, the fault modes
and a ``ChatCompletion`` with OpenAI's usage (cached and reasoning tokens)."""
from __future__ import annotations

import json
import os
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from .errors import REQUEST_CHECKS
from .faults import FAULTS
from .replies import tokens
from .wire import send_json


class ChatCompletions:
    """The chat side of :class:`~.server.FakeOpenAIServer` (its state lives on the server)."""

    def _next_fault(self, text: str) -> str | None:
        """Pop the next fault mode of the first marker in the prompt that still has one."""
        with self.lock:
            for marker, queue in self.faults.items():
                if marker in text and queue:
                    return queue.pop(0)
        return None

    def _answer(self, body: dict[str, Any], auth: str, live: bool = True) -> tuple[int, dict[str, Any], dict, str | None]:
        """(status, JSON body, headers, connection-level fault) for one chat request."""
        messages = body.get("messages") or []
        text = "\n".join(m.get("content") or "" for m in messages)
        sha = self.prompt_sha(messages)
        fault = self._next_fault(text)
        for check in REQUEST_CHECKS:
            if (refused := check(self, body, auth)) is not None:
                outcome, status, obj = refused
                self._record(sha, outcome)
                return status, obj, {}, None
        too_long = self.max_prompt_chars and len(text) > self.max_prompt_chars
        mode = FAULTS["context"] if too_long else FAULTS.get(fault)
        if mode and mode.answer:
            outcome, status, obj, headers = mode.answer(self)
            self._record(sha, outcome)
            return status, obj, headers, None
        content, finish, spent = self._reply(body, messages)
        if mode and mode.edit:
            content, finish = mode.edit(content, finish)
        completion = self._completion(body, sha, text, content, finish, spent)
        return 200, completion, {}, (fault if live and mode and mode.send else None)

    def _reply(self, body: dict[str, Any], messages: list[dict[str, str]]) -> tuple[str | None, str, int]:
        """(content, finish_reason, reasoning tokens spent) within the request's token budget."""
        content: str | None = self.reply(messages)
        finish = "stop"
        spent = 0
        if body.get("model") in self.reasoning_models:
            spent = self.reasoning_tokens[body.get("reasoning_effort") or "medium"]
            budget = body.get("max_completion_tokens")
            if budget is not None and spent >= int(budget):
                spent, content, finish = int(budget), "", "length"
            elif budget is not None and tokens(content) > int(budget) - spent:
                content, finish = content[: max(0, (int(budget) - spent) * 4 - 4)], "length"
        elif body.get("max_tokens") is not None and tokens(content) > int(body["max_tokens"]):
            content, finish = content[: int(body["max_tokens"]) * 4], "length"
        return content, finish, spent

    def _completion(self, body: dict[str, Any], sha: str, text: str, content: str | None, finish: str,
                    spent: int) -> dict[str, Any]:
        """A ``ChatCompletion`` as JSON; cached tokens are the prefix shared with an earlier prompt."""
        prompt_tokens = tokens(text)
        with self.lock:
            shared = max((len(os.path.commonprefix([text, p])) for p in self._prompts), default=0)
            self._prompts.append(text)
        cached = 0
        if prompt_tokens >= self.prompt_cache_min_tokens:
            cached = min(shared // 4, prompt_tokens) // self.prompt_cache_block * self.prompt_cache_block
        completion_tokens = (tokens(content) if content else 0) + spent
        return {
            "id": f"chatcmpl-{sha[:12]}", "object": "chat.completion", "created": int(time.time()),
            "model": f"{body.get('model')}-2024-01-01", "system_fingerprint": "fp_fake", "service_tier": "default",
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
            return send_json(h, status, obj, headers)
        if fault is not None and FAULTS[fault].send(self, h, sha, obj):
            return
        try:
            send_json(h, 200, obj)
        except (BrokenPipeError, ConnectionResetError):
            self._record(sha, "client_gone")
            return
        with self.lock:
            self.served[sha] += 1
        self._record(sha, "ok" if fault is None else f"ok-after-{fault}")
