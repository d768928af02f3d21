"""The one contract every transport of a judge keeps, and what the transports share.

A :class:`Transport` takes a judge's requests and returns one :class:`Result` per
request: what the cache holds is answered at once, the misses go out through the
transport (:class:`sumjudge.judge.client.RequestLayer`: live chat completions;
:class:`sumjudge.judge.batch.BatchRunner`: the Batch API; :class:`CacheOnly`: none, for
a job whose requests are all cached), each reply is cached the moment it arrives, and
:attr:`Transport.stats` says what this run did (one :class:`Stats` may be handed to a
transport and its fall-back). Which server answers is decided before, once, by the
judge's endpoint (:mod:`sumjudge.judge.endpoint`).

Shared by the transports: the request body (a live request and a batch line carry the
same one), how an error answer is classified (``TRANSIENT`` is retried, ``PER_UNIT``
ends that unit ``api_error``, ``FATAL`` stops the judge) and the messages that name
the config key to fix (the Batch API's among them), and the token estimate.
"""
from __future__ import annotations

import email.utils
import json
import math
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import openai

from .cache import ResponseCache
from .errors import FatalJudgeError, InvalidRequest
from .spec import PARAM_KEYS, JudgeSettings, usage_tokens

TRANSIENT = {"rate_limit", "server_error", "timeout", "connection", "malformed_response"}
PER_UNIT = {"context_length", "bad_request", "content_filter"}
FATAL = {"auth", "permission", "quota", "unknown_model", "server_died", "invalid_request"}

@dataclass
class Request:
    key: str
    identity: dict[str, Any]        # what the key was made from (stored in the cache entry)
    messages: list[dict[str, str]]
    params: dict[str, Any]          # model, temperature, max_tokens, ... extra_body
    est_tokens: int = 0             # prompt estimate + max_tokens, for tokens_per_minute


@dataclass
class Result:
    key: str
    entry: dict[str, Any] | None = None
    cached: bool = False
    error_kind: str | None = None
    error: str | None = None
    attempts: int = 0


@dataclass
class Stats:
    total: int = 0
    cache_hits: int = 0
    requests_sent: int = 0          # HTTP requests, retries included
    done: int = 0                   # fresh replies received
    failed: int = 0                 # units that ended api_error
    retries: int = 0
    input_tokens: int = 0           # of fresh replies
    output_tokens: int = 0
    cached_input_tokens: int = 0    # prompt tokens the server had cached (part of input_tokens)
    reasoning_tokens: int = 0       # completion tokens spent thinking (part of output_tokens)
    cost_usd: float = 0.0           # of fresh replies whose price is known
    cost_unknown: int = 0           # fresh replies without a configured price
    batches_submitted: int = 0      # Batch API batches created by this run
    batch_requests: int = 0         # replies that came through the Batch API in this run
    errors: dict[str, int] = field(default_factory=dict)

    def add_reply(self, entry: dict[str, Any]) -> None:
        t = usage_tokens(entry.get("usage"))
        self.done += 1
        self.input_tokens += t["input"]
        self.output_tokens += t["output"]
        self.cached_input_tokens += t["cached_input"]
        self.reasoning_tokens += t["reasoning"]
        if entry.get("cost_usd") is None:
            self.cost_unknown += 1
        else:
            self.cost_usd += entry["cost_usd"]
        if entry.get("via") == "batch":
            self.batch_requests += 1


_SECRET_LIKE = re.compile(r"\b(sk-[A-Za-z0-9*_\-]{4,})")


def scrub(text: str, secret: str | None) -> str:
    """Remove the API key (and anything that looks like one) from a message."""
    text = str(text)
    if secret:
        text = text.replace(secret, "***")
    return _SECRET_LIKE.sub("sk-***", text)


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_DURATION_S = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def parse_duration(value: str | None) -> float | None:
    """Seconds in OpenAI's ``x-ratelimit-reset-*`` format (``6m0s``, ``20ms``, ``1s``,
    ``1h2m3.5s``) or a plain number of seconds; None if it is neither."""
    if value is None:
        return None
    value = str(value).strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    parts = _DURATION.findall(value)
    if not parts or "".join(n + u for n, u in parts) != value:
        return None
    return sum(float(n) * _DURATION_S[u] for n, u in parts)


def _seconds(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def retry_after_headers(headers: Any, rate_limited: bool = False) -> float | None:
    """How long the server asks us to wait: ``retry-after-ms``, ``retry-after``, a
    gateway's ``llm_provider-retry-after`` (LiteLLM renames the upstream header); on a
    429 without any of them, the reset time of the exhausted ``x-ratelimit-*`` limit
    (requests and/or tokens; both when neither says which is exhausted)."""
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("llm_provider-retry-after-ms", 0.001)):
        value = headers.get(name)
        if value:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                pass
    for name in ("retry-after", "llm_provider-retry-after"):
        seconds = _seconds(headers.get(name))
        if seconds is not None:
            return seconds
    if not rate_limited:
        return None
    resets = {}
    for what in ("requests", "tokens"):
        reset = parse_duration(headers.get(f"x-ratelimit-reset-{what}"))
        if reset is not None:
            resets[what] = reset
    if not resets:
        return None
    exhausted = [w for w in resets if str(headers.get(f"x-ratelimit-remaining-{w}", "")).strip() == "0"]
    return max(resets[w] for w in (exhausted or resets))


def error_text(body: Any, default: str) -> str:
    """The code, type and message of an error body (OpenAI's ``{"error": {...}}``), or ``default``."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            return " ".join(str(inner.get(k) or "") for k in ("code", "type", "message")).strip() or default
        return str(inner)
    return default


_CONTEXT = re.compile(r"context[_ ]length|maximum context|context window|too many tokens|"
                      r"exceed(?:s|ed)? (?:the )?(?:context|maximum)|prompt is too long", re.IGNORECASE)
# "model X not found": X bounded (a name, not a paragraph), so a long error body with many
# "model " in one line costs linear time, not a scan to the line's end from each of them
_MODEL = re.compile(r"model[_ ]not[_ ]found|does not exist|no such model|unknown model|"
                    r"model [^\n]{0,300}? not (?:found|served)|not a valid model|invalid model name", re.IGNORECASE)
# what a gateway (LiteLLM's proxy) answers with 400 for a key it cannot check
_GATEWAY_AUTH = re.compile(r"no connected db|authentication error|invalid (?:proxy server )?token|"
                           r"virtual key|invalid api key|api key (?:is )?(?:not valid|invalid)", re.IGNORECASE)
_INVALID_PARAM_CODES = {"unsupported_parameter", "unsupported_value", "invalid_parameter", "unknown_parameter"}


def error_fields(body: Any) -> dict[str, Any]:
    """The ``error`` object of an error body (OpenAI's ``{"error": {message, type, param,
    code}}``, or the inner object the SDK keeps), as a dict of strings or None."""
    inner = body.get("error", body) if isinstance(body, dict) else body
    if not isinstance(inner, dict):
        return {"message": None if inner is None else str(inner)}
    return {k: (None if inner.get(k) in (None, "None", "") else str(inner.get(k)))
            for k in ("message", "type", "param", "code")}


def classify_status(status: int, body: Any, headers: Any = None) -> tuple[str, float | None]:
    """(kind, retry-after seconds or None) for an HTTP error answer; used for live
    requests and for the error lines of a batch alike."""
    if isinstance(body, dict) and "error" not in body and "message" not in body and "code" not in body:
        text = json.dumps(body)[:1000]
    else:
        f = error_fields(body)
        text = " ".join(v for v in (f.get("code"), f.get("type"), f.get("message")) if v) or str(body)
    fields = error_fields(body)
    if status == 429:
        if re.search(r"insufficient_quota|exceeded your current quota|billing", text, re.IGNORECASE):
            return "quota", None
        return "rate_limit", retry_after_headers(headers, rate_limited=True)
    if status == 401:
        return "auth", None
    if status == 403:
        return "permission", None
    if status == 404 or (status in (400, 422) and _MODEL.search(text)):
        return "unknown_model", None
    if status in (400, 413, 422):
        if _CONTEXT.search(text):
            return "context_length", None
        if re.search(r"content[_ ]filter|content management policy", text, re.IGNORECASE):
            return "content_filter", None
        if fields.get("type") == "auth_error" or _GATEWAY_AUTH.search(text):
            return "auth", None
        if fields.get("code") in _INVALID_PARAM_CODES or re.search(r"unsupported (?:parameter|value)", text, re.I) \
                or fields.get("type") == "invalid_request_error":
            return "invalid_request", None
        return "bad_request", None
    if status in (408, 409) or status >= 500:
        return ("timeout" if status == 408 else "server_error"), retry_after_headers(headers)
    return "bad_request", None


def classify(err: Exception) -> tuple[str, float | None]:
    """(kind, retry-after seconds or None) for an exception of the openai SDK."""
    if isinstance(err, openai.APITimeoutError):
        return "timeout", None
    if isinstance(err, openai.APIConnectionError):
        return "connection", None
    if isinstance(err, openai.APIResponseValidationError):
        return "malformed_response", None
    if isinstance(err, openai.APIStatusError):
        return classify_status(err.status_code, getattr(err, "body", None),
                               getattr(getattr(err, "response", None), "headers", None))
    if isinstance(err, (ValueError, TypeError, KeyError, AttributeError)):
        # the SDK could not make sense of the body (invalid JSON, missing fields)
        return "malformed_response", None
    return "connection", None


def completion_dict(completion: Any) -> dict[str, Any]:
    """The completion as a dict, or ValueError if the body is not a chat completion."""
    if hasattr(completion, "model_dump"):
        data = completion.model_dump()
    elif isinstance(completion, dict):
        data = completion
    else:
        raise ValueError(f"not a chat completion: {str(completion)[:200]!r}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("chat completion without choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ValueError("chat completion without a message")
    content = message.get("content")
    if content is None and message.get("refusal"):
        message["content"] = message["refusal"]  # the model refused: that is a reply
    elif content is not None and not isinstance(content, str):
        raise ValueError("chat completion message without text content")
    # content null or "" is a reply too (a thinking model that spent its budget): it was
    # paid for, so it is cached and never retried; run.py makes it invalid
    return data


def request_body(req: "Request") -> dict[str, Any]:
    """The JSON body of a chat-completions request: what the SDK sends live and what a
    batch line carries (``extra_body`` fields merged in at the top level)."""
    params = dict(req.params)
    extra = params.pop("extra_body", None) or {}
    return {"messages": req.messages, **params, **extra}


def invalid_request_message(spec: JudgeSettings, fields: dict[str, Any], base_url: str, first: bool) -> str:
    """One message naming the judge, the request field and the config key that sets it."""
    name = spec.name
    text = fields.get("message") or ""
    param = fields.get("param")
    if not param:
        m = re.search(r"'([a-z_]+)'", text)
        param = m.group(1) if m else None
    said = f"(judge '{name}'; the server at {base_url} said: {text})"
    extra = spec.extra_body or {}
    if param in extra:
        return (f"judges.{name}.extra_body.{param}: this model accepts no {param}; remove it from "
                f"judges.{name}.extra_body {said}")
    if param == "max_tokens":
        return (f"judges.{name}.max_tokens: this model accepts no max_tokens; set it to null and set "
                f"judges.{name}.max_completion_tokens instead {said}")
    if param == "temperature":
        return f"judges.{name}.temperature: this model accepts no temperature; set it to null {said}"
    if param in ("logprobs", "top_logprobs"):
        return (f"judges.{name}.top_logprobs: this model gives no logprobs (reasoning models do not), so no "
                f"weighted Likert score; set judges.{name}.top_logprobs to null (the integer scores only) {said}")
    if param in PARAM_KEYS:
        key = PARAM_KEYS[param]
        return (f"judges.{name}.{key}: this model does not accept {param}={getattr(spec, key)!r}; set "
                f"judges.{name}.{key} to null or to a value it accepts {said}")
    where = "the first request" if first else "a request"
    return (f"judges.{name}: the server rejected {where} as invalid for every unit (field: {param or 'not named'}); "
            f"check judges.{name}.model, judges.{name}.base_url and the request settings {said}")


def split_cached(requests: list[Request], cache: ResponseCache, stats: Stats,
                 notify: Callable[[Result], None]) -> tuple[dict[str, Result], dict[str, Request], list[Request]]:
    """Answer what the cache holds (counted and reported at once); the rest, each key
    once, in order, and the requests that repeat a key (answered with its result later)."""
    stats.total = len(requests)
    results: dict[str, Result] = {}
    todo: dict[str, Request] = {}
    duplicates: list[Request] = []
    for req in requests:
        entry = cache.get(req.key)
        if entry is not None:
            results[req.key] = Result(req.key, entry, cached=True)
            stats.cache_hits += 1
            notify(results[req.key])
        elif req.key in todo:  # identical requests (same key) are sent once
            duplicates.append(req)
        else:
            todo[req.key] = req
    return results, todo, duplicates


def fatal_message(spec: JudgeSettings, base_url: str, kind: str, message: str | None, attempts: int = 1) -> str:
    """The message of a judge-wide error (unknown model, a rejected key, no quota, ...)."""
    name = spec.name
    if kind == "unreachable":
        return (f"judge '{name}': cannot connect to {base_url} ({attempts} attempts, the last: {message}). "
                f"Is the server running and the address right? Check judges.{name}.base_url (and "
                f"HTTPS_PROXY / NO_PROXY). No request got through, so none was paid.")
    if kind == "unknown_model":
        return (f"judge '{name}': the server at {base_url} does not serve model '{spec.model}' "
                f"(config key judges.{name}.model). Retired models such as gpt-3.5-turbo-0301 are no "
                f"longer served: set judges.{name}.model to a model the server lists (or check "
                f"judges.{name}.base_url). Server said: {message}")
    if kind == "auth":
        where = f"environment variable {spec.api_key_env}" if spec.api_key_env else "the key"
        return (f"judge '{name}': the server at {base_url} rejected the API key from {where} "
                f"(config key judges.{name}.api_key_env; a gateway such as LiteLLM's proxy answers 400 "
                f"for a key it cannot check). Server said: {message}")
    if kind == "quota":
        return f"judge '{name}': the account behind judges.{name}.api_key_env has no quota left. Server said: {message}"
    return f"judge '{name}': {kind} error from {base_url}: {message}"


def fatal_error(spec: JudgeSettings, base_url: str, kind: str, fields: dict[str, Any], message: str | None,
                first: bool = True) -> FatalJudgeError | None:
    """The failure that stops the judge for a classified error ``kind`` (``fields``: the
    error body's :func:`error_fields`), or None when the error is not fatal."""
    if kind == "invalid_request":
        return InvalidRequest(invalid_request_message(spec, fields, base_url, first))
    if kind in FATAL:
        return FatalJudgeError(kind, fatal_message(spec, base_url, kind, message))
    return None


def batch_token_limit_message(spec: JudgeSettings, base_url: str, batch_id: str, detail: str) -> str:
    """A batch refused at OpenAI's enqueued-token limit: that limit, and the settings that keep under it."""
    name = spec.name
    budget = spec.batch.max_enqueued_tokens
    return (f"judge '{name}': batch {batch_id} was refused at {base_url}: the enqueued-token limit "
            f"for model {spec.model!r} is reached ({detail}). OpenAI counts the input tokens of "
            "all of your organisation's batches in flight for that model against this limit, per usage "
            "tier. Nothing was billed and every reply already collected is cached: run the same "
            "command again once batches in flight have finished, set "
            f"judges.{name}.batch.max_enqueued_tokens (now {budget if budget is not None else 'null, no limit'}) "
            "below that limit so fewer of this judge's batches are in flight at once, lower "
            f"judges.{name}.batch.max_requests so each batch holds fewer tokens, or set "
            f"judges.{name}.mode: live")


def batch_failed_message(spec: JudgeSettings, base_url: str, batch_id: str, detail: str) -> str:
    """A batch that failed the server's validation as a whole."""
    name = spec.name
    return (f"judge '{name}': batch {batch_id} failed validation at {base_url} ({detail}); check "
            f"judges.{name}.model and the request settings, or set judges.{name}.mode: live")


def batch_api_message(spec: JudgeSettings, base_url: str, kind: str, message: str, journal: Any) -> str:
    """A call of the Batch API (files, batches) that failed for good: what is safe, and how to resume."""
    return (f"judge '{spec.name}': the Batch API at {base_url} failed ({kind}): {message}. Submitted batches "
            f"are in the journal under {journal}: run again to resume")


def batch_pending_message(spec: JudgeSettings, label: str, running: list[Any], held: int, journal: Any) -> str:
    """``batch.wait: false`` and batches in flight (``running``: each with ``id``, ``status``,
    ``completed``, ``total``; ``held``: chunks the budget holds back): when to come back."""
    name = spec.name
    lines = ", ".join(f"{b.id} ({b.status}, {b.completed}/{b.total if b.total is not None else '?'} done)"
                      for b in running)
    waiting = (f"; {held} more chunk(s) wait for room under judges.{name}.batch."
               f"max_enqueued_tokens = {spec.batch.max_enqueued_tokens}" if held else "")
    return (f"judge '{name}' ({label}): {len(running)} batch(es) in flight: {lines}{waiting}. "
            f"judges.{name}.batch.wait is false, so this rule stops without outputs. Run the same "
            f"snakemake command again later: it collects finished batches from the journal under "
            f"{journal} and submits nothing twice.")


def estimate_tokens(text: str) -> int:
    """~4 characters per token (English, GPT-style BPE); for pacing and cost estimates."""
    return max(1, math.ceil(len(text) / 4))


class Transport:
    """Takes a judge's requests, returns one :class:`Result` per request, in order.

    :meth:`run` answers cache hits (counted, reported at once), sends every missing key
    once through :meth:`send` (the transport's own part) and answers requests that
    repeat a key with that key's result. ``on_result(result, stats)`` is called once
    per request as its answer is known (the progress bar)."""

    def __init__(self, spec: JudgeSettings, base_url: str, api_key: str, cache: ResponseCache,
                 on_result: Callable[[Result, Stats], None] | None = None, stats: Stats | None = None):
        self.spec = spec
        self.base_url = base_url
        self._api_key = api_key
        self.cache = cache
        self.on_result = on_result
        self.stats = stats if stats is not None else Stats()  # shared by a transport and its fall-back

    def run(self, requests: list[Request]) -> list[Result]:
        results, todo, duplicates = split_cached(requests, self.cache, self.stats, self._notify)
        if todo:
            results.update(self.send(todo))
        for req in duplicates:
            self._notify(results[req.key])
        return [results[r.key] for r in requests]

    def send(self, todo: dict[str, Request]) -> dict[str, Result]:
        """One result per key of ``todo`` (none of them cached when the run began)."""
        raise NotImplementedError

    def fatal_message(self, kind: str, message: str | None, attempts: int = 1) -> str:
        return fatal_message(self.spec, self.base_url, kind, message, attempts)

    def fatal_error(self, kind: str, fields: dict[str, Any], message: str | None,
                    first: bool = True) -> FatalJudgeError | None:
        """:func:`fatal_error` for this transport's judge and server."""
        return fatal_error(self.spec, self.base_url, kind, fields, message, first)

    def _notify(self, result: Result) -> None:
        if self.on_result:
            self.on_result(result, self.stats)


class CacheOnly(Transport):
    """A job whose requests were all cached when it began: answers from the cache, and
    has no client, no server and no key to send with."""

    def __init__(self, spec: JudgeSettings, cache: ResponseCache,
                 on_result: Callable[[Result, Stats], None] | None = None):
        super().__init__(spec, "", "", cache, on_result)

    def send(self, todo: dict[str, Request]) -> dict[str, Result]:
        raise FatalJudgeError("cache_changed", f"judge '{self.spec.name}': {len(todo)} request(s) were cached "
                                               f"when this job began and are not now (the cache under "
                                               f"{self.cache.root} changed meanwhile); run the job again")


__all__ = ["Transport", "CacheOnly", "Request", "Result", "Stats", "split_cached", "request_body", "completion_dict",
           "classify", "classify_status", "error_fields", "error_text", "invalid_request_message",
           "fatal_message", "fatal_error", "batch_token_limit_message", "batch_failed_message", "batch_api_message",
           "batch_pending_message", "scrub", "parse_duration", "retry_after_headers", "estimate_tokens",
           "TRANSIENT", "PER_UNIT", "FATAL", "PARAM_KEYS"]
