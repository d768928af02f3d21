"""The live transport of a judge: chat completions through the ``openai`` SDK
(:class:`RequestLayer`; the contract it keeps, and shares with the batch transport, is
:class:`sumjudge.judge.transport.Transport`).

- bounded concurrency (``max_concurrency`` requests in flight) and optional
  requests/tokens-per-minute pacing;
- exponential backoff with jitter that honours ``retry-after-ms``, ``retry-after``
  and a gateway's ``llm_provider-retry-after`` (and, on a 429 without them,
  ``x-ratelimit-reset-requests`` / ``-tokens``) on 429, on 5xx, timeouts, dropped
  connections and malformed bodies; the token bucket is reconciled with each
  reply's real usage;
- errors that retrying cannot fix are classified and not retried: per unit
  (``context_length``, ``bad_request``) the unit ends ``api_error``; for the whole
  judge (``auth``, ``permission``, ``quota``, ``unknown_model``, ``invalid_request``:
  a parameter the model does not accept) the run stops with
  :class:`FatalJudgeError`, whose message names the judge, the request field and
  the config key;
- the first request that is not cached is sent alone, so a wrong key, a retired
  model or a parameter the model rejects costs one request, not ``max_concurrency``:
  any 400 on it (other than context length / content filter) stops the run, and so does
  a server that cannot be reached at all (``unreachable``: the message names ``base_url``);
- a reply whose content is null or empty is a reply (it was paid for): cached, not
  retried (run.py makes it ``invalid``: ``no_content`` / ``reasoning_budget``);
- every reply is written to the cache the moment it arrives.

The SDK's own retries are switched off (``max_retries=0``) so that every attempt is
counted and classified here.
"""
from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import Any, Callable

import openai

from .cache import ResponseCache, make_entry
from .errors import FatalJudgeError, ServerDied
from .spec import JudgeSettings, usage_tokens
from .transport import (PER_UNIT, Request, Result, Stats, Transport, classify, completion_dict, error_fields,
                        error_text, parse_duration, retry_after_headers, scrub)

log = logging.getLogger(__name__)


def _retry_after(err: Exception) -> float | None:
    response = getattr(err, "response", None)
    return retry_after_headers(getattr(response, "headers", None),
                               rate_limited=getattr(err, "status_code", None) == 429)


class Pacer:
    """Requests start no faster than ``rpm`` per minute, prompt+completion tokens no
    faster than ``tpm``; after a 429 every request waits out the retry-after."""

    def __init__(self, rpm: float | None = None, tpm: float | None = None):
        self.interval = 60.0 / rpm if rpm else 0.0
        self.tpm = float(tpm) if tpm else None
        self.budget = self.tpm or 0.0
        self.next_start = 0.0
        self.refilled = time.monotonic()
        self.pause_until = 0.0
        self._lock = asyncio.Lock()

    def pause(self, seconds: float) -> None:
        self.pause_until = max(self.pause_until, time.monotonic() + seconds)

    def reconcile(self, estimated: int, actual: int) -> None:
        """A reply's real usage replaces the estimate charged when it started (the
        bucket may go below zero: later requests then wait for the debt)."""
        if self.tpm:
            self.budget = min(self.tpm, self.budget + min(float(estimated), self.tpm) - float(actual))

    async def acquire(self, tokens: int = 0) -> None:
        async with self._lock:  # FIFO: requests keep their order (article order)
            while True:
                now = time.monotonic()
                wait = max(self.pause_until - now, self.next_start - now, 0.0)
                if self.tpm:
                    self.budget = min(self.tpm, self.budget + (now - self.refilled) * self.tpm / 60)
                    self.refilled = now
                    need = min(float(tokens), self.tpm)
                    if self.budget < need:
                        wait = max(wait, (need - self.budget) / (self.tpm / 60))
                if wait <= 0:
                    break
                await asyncio.sleep(wait)
            self.next_start = max(now, self.next_start) + self.interval
            if self.tpm:
                self.budget -= min(float(tokens), self.tpm)


class RequestLayer(Transport):
    """The live transport: chat completions, ``max_concurrency`` at a time, with retries."""

    def __init__(self, spec: JudgeSettings, base_url: str, api_key: str, cache: ResponseCache,
                 on_result: Callable[[Result, Stats], None] | None = None,
                 sleep: Callable[[float], Any] = asyncio.sleep,
                 health: Callable[[], str | None] | None = None, stats: Stats | None = None):
        super().__init__(spec, base_url, api_key, cache, on_result, stats)
        self._sleep = sleep
        self._health = health  # a local server: says why it died, so we stop instead of retrying
        self.pacer = Pacer(spec.requests_per_minute, spec.tokens_per_minute)

    def send(self, todo: dict[str, Request]) -> dict[str, Result]:
        return asyncio.run(self._send(list(todo.values())))

    async def _send(self, todo: list[Request]) -> dict[str, Result]:
        results: dict[str, Result] = {}
        client = openai.AsyncOpenAI(base_url=self.base_url, api_key=self._api_key, max_retries=0,
                                    timeout=self.spec.timeout_s)
        try:
            # the first request alone: a bad key or a retired model costs one request
            results[todo[0].key] = await self._one(client, todo[0], asyncio.Semaphore(1), first=True)
            sem = asyncio.Semaphore(self.spec.max_concurrency)
            tasks = [asyncio.ensure_future(self._one(client, r, sem)) for r in todo[1:]]
            try:
                for r, result in zip(todo[1:], await asyncio.gather(*tasks)):
                    results[r.key] = result
            except BaseException:
                for t in tasks:  # a fatal error stops the requests still in flight
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                raise
        finally:
            await client.close()
        return results

    # -- one request with retries

    async def _one(self, client: openai.AsyncOpenAI, req: Request, sem: asyncio.Semaphore,
                   first: bool = False) -> Result:
        spec = self.spec
        max_retries = spec.max_retries
        kind = message = None
        attempt = 0
        for attempt in range(max_retries + 1):
            async with sem:
                await self.pacer.acquire(req.est_tokens)
                # a concurrent identical request may have filled the cache meanwhile
                entry = self.cache.get(req.key)
                if entry is not None:
                    result = Result(req.key, entry, cached=True, attempts=attempt)
                    self.stats.cache_hits += 1
                    self._notify(result)
                    return result
                self.stats.requests_sent += 1
                t0 = time.monotonic()
                try:
                    params = dict(req.params)
                    extra_body = params.pop("extra_body", None)
                    completion = await client.chat.completions.create(
                        messages=req.messages, extra_body=extra_body, **params)
                    data = completion_dict(completion)
                except Exception as err:  # noqa: BLE001 -- every error is classified below (transport.classify)
                    kind, retry_after = classify(err)
                    message = scrub(f"{type(err).__name__}: {error_text(getattr(err, 'body', None), str(err))}",
                                    self._api_key)[:500]
                    fields = error_fields(getattr(err, "body", None))
                    if kind == "bad_request" and first and getattr(err, "status_code", None) == 400:
                        kind = "invalid_request"  # a 400 on the first request: every request would get it
                    self.pacer.reconcile(req.est_tokens, 0)
                else:
                    entry = make_entry(req.key, req.identity, data, time.monotonic() - t0,
                                       cost_usd=spec.cost(data.get("usage")))
                    self.cache.put(req.key, entry)
                    self.stats.add_reply(entry)
                    t = usage_tokens(entry.get("usage"))
                    self.pacer.reconcile(req.est_tokens, t["input"] + t["output"])
                    result = Result(req.key, entry, attempts=attempt + 1)
                    self._notify(result)
                    return result
            self.stats.errors[kind] = self.stats.errors.get(kind, 0) + 1
            fields = {k: (scrub(v, self._api_key) if v else v) for k, v in fields.items()}
            if (fatal := self.fatal_error(kind, fields, message, first)) is not None:
                raise fatal
            if kind in ("connection", "timeout", "server_error") and self._health and (dead := self._health()):
                raise ServerDied(f"judge '{spec.name}': {dead}")
            if kind in PER_UNIT or attempt == max_retries:
                break
            self.stats.retries += 1
            backoff = min(spec.backoff_max_s, spec.backoff_base_s * 2 ** attempt)
            delay = backoff * random.uniform(0.5, 1.0)
            if retry_after is not None:
                delay = min(retry_after, 10 * spec.backoff_max_s)
            if kind == "rate_limit":
                self.pacer.pause(delay)
            log.info("%s (attempt %d/%d), retrying in %.1fs: %s", kind, attempt + 1, max_retries + 1, delay, message)
            await self._sleep(delay)
        if first and kind == "connection":  # no reply at all: every other request would wait as long
            raise FatalJudgeError("unreachable", self.fatal_message("unreachable", message, attempt + 1))
        result = Result(req.key, None, error_kind=kind, error=message, attempts=attempt + 1)
        self.stats.failed += 1
        self._notify(result)
        return result


__all__ = ["RequestLayer", "Pacer", "FatalJudgeError", "parse_duration", "retry_after_headers"]
