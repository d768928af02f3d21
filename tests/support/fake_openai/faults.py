"""The fault modes, one small handler each.

A prompt containing a marker of ``FakeOpenAIServer(faults={marker: [mode, ...]})`` takes the next
mode of its queue on each attempt. A mode overrides exactly one hook of :class:`Fault`:

- ``answer(server)``: an error response instead of the reply, ``(outcome logged, status, body, headers)``
  (the request checks of :mod:`.errors` come first: a wrong key or model wins over a fault);
- ``edit(content, finish_reason)``: the reply's message content and finish reason, changed;
- ``send(server, handler, prompt sha, completion)``: how a live 200 goes on the wire; it returns True
  when it sent the whole response itself (a batch line has no wire, so batches never see it).

A mode not in :data:`FAULTS` leaves the request alone.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any, Callable

from .errors import error
from .wire import send_bytes

if TYPE_CHECKING:
    from .server import FakeOpenAIServer

Answer = tuple[str, int, dict[str, Any], dict[str, str]]  # (outcome logged, status, JSON body, headers)


@dataclass(frozen=True)
class Fault:
    answer: Callable[["FakeOpenAIServer"], Answer] | None = None
    edit: Callable[[str | None, str], tuple[str | None, str]] | None = None
    send: Callable[["FakeOpenAIServer", BaseHTTPRequestHandler, str, dict[str, Any]], bool] | None = None


# -- error responses

def context_length_exceeded(server: "FakeOpenAIServer") -> Answer:
    """400 ``context_length_exceeded`` (also the answer to a prompt over ``max_prompt_chars``)."""
    return "context", 400, error("This model's maximum context length is 4097 tokens.", param="messages",
                                 code="context_length_exceeded"), {}


def _rate_limited(headers: Callable[["FakeOpenAIServer"], dict[str, str]]) -> Callable[["FakeOpenAIServer"], Answer]:
    def answer(server: "FakeOpenAIServer") -> Answer:
        return "429", 429, error("Rate limit reached for requests", "requests", code="rate_limit_exceeded"), \
            headers(server)
    return answer


def _server_error(status: int) -> Callable[["FakeOpenAIServer"], Answer]:
    def answer(server: "FakeOpenAIServer") -> Answer:
        return str(status), status, error("The server had an error", "server_error"), {}
    return answer


# -- the reply changed

def cut_by_length(content: str | None, finish: str) -> tuple[str | None, str]:
    return content[: max(1, len(content) // 3)], "length"


# -- on the wire (live requests only)

def reply_late(server: "FakeOpenAIServer", h: BaseHTTPRequestHandler, sha: str, obj: dict[str, Any]) -> bool:
    """The full reply after ``slow_s`` seconds (longer than the client's timeout)."""
    time.sleep(server.slow_s)
    return False


def malformed(server: "FakeOpenAIServer", h: BaseHTTPRequestHandler, sha: str, obj: dict[str, Any]) -> bool:
    """A 200 whose body is not JSON."""
    server._record(sha, "malformed")
    send_bytes(h, 200, b'{"id": "chatcmpl-x", "choices": [{"message": {"content": "Rel', "application/json")
    return True


def truncated_body(server: "FakeOpenAIServer", h: BaseHTTPRequestHandler, sha: str, obj: dict[str, Any]) -> bool:
    """The connection closes half-way through the body its Content-Length announces."""
    server._record(sha, "truncated_body")
    raw = json.dumps(obj).encode()
    send_bytes(h, 200, raw[: len(raw) // 2], "application/json", length=len(raw))
    h.wfile.flush()
    h.close_connection = True
    return True


FAULTS: dict[str, Fault] = {
    "context": Fault(answer=context_length_exceeded),
    "429": Fault(answer=_rate_limited(lambda s: {"retry-after": f"{s.retry_after:g}"})),
    "429_headers": Fault(answer=_rate_limited(lambda s: {   # OpenAI's x-ratelimit-* headers only
        "x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": s.ratelimit_reset, "x-ratelimit-limit-tokens": "150000",
        "x-ratelimit-remaining-tokens": "149000", "x-ratelimit-reset-tokens": "20ms"})),
    "429_gateway": Fault(answer=_rate_limited(lambda s: {"llm_provider-retry-after": f"{s.retry_after:g}"})),  # LiteLLM
    "500": Fault(answer=_server_error(500)),
    "503": Fault(answer=_server_error(503)),
    "length": Fault(edit=cut_by_length),
    "refuse": Fault(edit=lambda content, finish: ("I'm sorry, but I cannot evaluate this summary.", finish)),
    "null_content": Fault(edit=lambda content, finish: (None, finish)),
    "empty_content": Fault(edit=lambda content, finish: ("", finish)),
    "slow": Fault(send=reply_late),
    "malformed": Fault(send=malformed),
    "truncated_body": Fault(send=truncated_body),
}
