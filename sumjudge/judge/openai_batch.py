"""OpenAI's Files and Batches endpoints behind the hooks of :class:`sumjudge.judge.batch.BatchAPI`.

Each chunk's JSONL file is uploaded with ``files.create(purpose="batch")`` and submitted
with ``batches.create(endpoint="/v1/chat/completions", completion_window=batch.window,
metadata={"sumjudge_chunk": <chunk id>, "sumjudge_judge": <judge>})``; a batch whose id
the journal lost is found through ``batches.list()`` by that metadata. A batch that
``failed`` as a whole carries the error that stops the judge (the enqueued-token
limit, a request field the model rejects, or a failed validation); an error line is
classified as a live error is (:func:`sumjudge.judge.transport.classify_status`).

A management call (files, batches) is retried by the SDK itself (``max_retries``);
what remains is classified and stops the rule with the usual messages.
"""
from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any, Callable, Iterator

import openai

from .batch import BatchRunner, BatchState, Journal, LineError, Outcome
from .cache import ResponseCache
from .errors import BatchFailed, BatchTokenLimit, FatalJudgeError, InvalidRequest
from .spec import JudgeSettings
from .transport import (batch_api_message, batch_failed_message, batch_token_limit_message, classify,
                        classify_status, completion_dict, error_fields, error_text, fatal_error,
                        invalid_request_message, request_body, scrub)

FINAL = {"completed", "expired", "cancelled", "failed"}
ENDPOINT = "/v1/chat/completions"
LIST_LIMIT = 10000  # batches.list() is read this far back for a lost batch id


class OpenAIBatches:
    """The Batch API of OpenAI (and of the servers that copy it) at ``base_url``.
    ``journal_root``: named in the message of a call that fails."""

    def __init__(self, spec: JudgeSettings, base_url: str, api_key: str, journal_root: str | os.PathLike):
        self.spec = spec
        self.base_url = base_url
        self._api_key = api_key
        self._journal_root = Path(journal_root)
        self._client: openai.OpenAI | None = None
        self._listed: dict[str, BatchState] | None = None  # chunk id -> batch, from batches.list()

    @contextlib.contextmanager
    def session(self) -> Iterator[openai.OpenAI]:
        with openai.OpenAI(base_url=self.base_url, api_key=self._api_key, max_retries=self.spec.max_retries,
                           timeout=self.spec.timeout_s) as client:
            self._client = client
            try:
                yield client
            finally:
                self._client = None

    # -- the hooks

    def line(self, req: Any) -> bytes:
        return (json.dumps({"custom_id": req.key, "method": "POST", "url": ENDPOINT, "body": request_body(req)},
                           ensure_ascii=False) + "\n").encode()

    def upload(self, name: str, data: bytes) -> str:
        return self._call(self._client.files.create, file=(name, data, "application/jsonl"), purpose="batch").id

    def create(self, file_id: str, cid: str) -> BatchState:
        return self._state(self._call(self._client.batches.create, input_file_id=file_id, endpoint=ENDPOINT,
                                      completion_window=self.spec.batch.window,
                                      metadata={"sumjudge_chunk": cid, "sumjudge_judge": self.spec.name}))

    def retrieve(self, batch_id: str) -> BatchState:
        return self._state(self._call(self._client.batches.retrieve, batch_id))

    def find(self, cid: str) -> BatchState | None:
        if self._listed is None:
            self._listed = {}
            for i, b in enumerate(self._call(self._client.batches.list, limit=100)):
                meta = b.metadata or {}
                if meta.get("sumjudge_chunk") and b.status != "failed":
                    self._listed.setdefault(meta["sumjudge_chunk"], self._state(b))
                if i >= LIST_LIMIT:
                    break
        return self._listed.get(cid)

    def download(self, file_id: str) -> str:
        return self._call(self._client.files.content, file_id).text

    def parse_line(self, obj: dict[str, Any]) -> tuple[str | None, Outcome]:
        response = obj.get("response") or {}
        status, body = response.get("status_code"), response.get("body")
        if status is None:  # batch_expired / batch_cancelled: no answer
            return obj.get("custom_id"), None
        if status == 200:
            try:
                return obj.get("custom_id"), completion_dict(body)
            except (ValueError, TypeError, KeyError, AttributeError) as err:
                return obj.get("custom_id"), LineError("malformed_response", str(err)[:500], {})
        kind, _ = classify_status(int(status), body)
        message = scrub(f"HTTP {status}: {error_text(body, str(body))}", self._api_key)[:500]
        return obj.get("custom_id"), LineError(kind, message, error_fields(body))

    # -- OpenAI's objects and errors

    def _state(self, b: Any) -> BatchState:
        counts = b.request_counts
        return BatchState(
            b.id, b.status, b.status in FINAL, completed=counts.completed if counts else 0,
            failed=counts.failed if counts else 0, total=counts.total if counts else None,
            created_at=b.created_at, ended_at=b.completed_at or b.expired_at or b.cancelled_at,
            result_files=tuple(f for f in (b.output_file_id, b.error_file_id) if f),
            input_file_id=b.input_file_id, rejected=self._rejection(b) if b.status == "failed" else None)

    def _rejection(self, b: Any) -> FatalJudgeError:
        """Why a batch failed as a whole: the enqueued-token limit, a request field the
        model does not accept, or the server's validation."""
        errs = b.errors.data if b.errors and b.errors.data else []
        first = errs[0] if errs else None
        fields = {k: getattr(first, k, None) for k in ("message", "param", "code")}
        detail = "; ".join(f"line {e.line}: {e.code}: {e.message}" for e in errs[:5]) or "no details"
        if any(getattr(e, "code", None) == "token_limit_exceeded" for e in errs):
            return BatchTokenLimit(batch_token_limit_message(self.spec, self.base_url, b.id, detail))
        if fields["param"] in ("body", None) or not fields["message"]:
            return BatchFailed(batch_failed_message(self.spec, self.base_url, b.id, detail))
        return InvalidRequest(invalid_request_message(self.spec, fields, self.base_url, True))

    def _call(self, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        """A management call; an error the SDK's retries did not fix stops the rule."""
        try:
            return fn(*args, **kw)
        except Exception as err:  # noqa: BLE001 -- every error is classified (transport.classify) and stops the rule
            kind, _ = classify(err)
            body = getattr(err, "body", None)
            message = scrub(f"{type(err).__name__}: {error_text(body, str(err))}", self._api_key)[:500]
            fatal = fatal_error(self.spec, self.base_url, kind, error_fields(body), message)
            raise fatal or FatalJudgeError(kind, batch_api_message(self.spec, self.base_url, kind, message,
                                                                   self._journal_root)) from None


def openai_batches(spec: JudgeSettings, base_url: str, api_key: str, cache: ResponseCache,
                   **options: Any) -> BatchRunner:
    """A judge's Batch API transport: the lifecycle over OpenAI's endpoints at ``base_url``,
    its journal under ``<cache_dir>/batches/``. ``options``: :class:`BatchRunner`'s
    (``fallback``, ``stats``, ``on_result``, ``label``, ``progress``)."""
    journal = Journal(Path(cache.root) / "batches")
    return BatchRunner(spec, OpenAIBatches(spec, base_url, api_key, journal.root), cache, journal, **options)


__all__ = ["OpenAIBatches", "openai_batches", "ENDPOINT", "FINAL"]
