"""``/v1/batches``: create, retrieve, list and cancel, as OpenAI's ``Batch``; a batch's lines are answered
like live chat requests (faults included) when it reaches its final status."""
from __future__ import annotations

import hashlib
import json
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler
from typing import Any

from .errors import error
from .wire import send_json

FINAL = ("completed", "failed", "expired", "cancelled")
_FINAL_AT = {"completed": "completed_at", "expired": "expired_at", "cancelled": "cancelled_at"}


class Batches:
    """The Batches side of :class:`~.server.FakeOpenAIServer` (``self.batches``: id -> Batch dict)."""

    def _batches_route(self, h: BaseHTTPRequestHandler, method: str, parts: list[str], raw: bytes, auth: str) -> None:
        if method == "POST" and len(parts) == 1:
            return self._create_batch(h, json.loads(raw or b"{}"), auth)
        if method == "GET" and len(parts) == 1:
            q = urllib.parse.parse_qs(urllib.parse.urlsplit(h.path).query)
            return self._list_batches(h, int((q.get("limit") or ["20"])[0]), (q.get("after") or [None])[0], auth)
        b = self.batches.get(parts[1])
        if b is None:
            return send_json(h, 404, error(f"No batch found with id '{parts[1]}'."))
        if method == "POST" and len(parts) == 3 and parts[2] == "cancel":
            with self.lock:
                if b["status"] in ("validating", "in_progress"):
                    b["status"], b["cancelling_at"] = "cancelling", int(time.time())
            return send_json(h, 200, b)
        self._advance(b["id"], auth)
        return send_json(h, 200, b)

    def _create_batch(self, h: BaseHTTPRequestHandler, body: dict[str, Any], auth: str) -> None:
        f = self.files.get(body.get("input_file_id"))
        if f is None:
            return send_json(h, 400, error(f"Invalid 'input_file_id': '{body.get('input_file_id')}'.",
                                           param="input_file_id"))
        if body.get("endpoint") != "/v1/chat/completions" or body.get("completion_window") != "24h":
            return send_json(h, 400, error("Invalid endpoint or completion_window.", param="endpoint"))
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
        send_json(h, 200, batch)

    def _list_batches(self, h: BaseHTTPRequestHandler, limit: int, after: str | None, auth: str) -> None:
        with self.lock:
            items = sorted(self.batches.values(), key=lambda b: b["id"], reverse=True)
        if after:
            ids = [b["id"] for b in items]
            items = items[ids.index(after) + 1:] if after in ids else []
        page = items[:limit]
        for b in page:
            self._advance(b["id"], auth, poll=False)
        send_json(h, 200, {"object": "list", "data": page, "first_id": page[0]["id"] if page else None,
                           "last_id": page[-1]["id"] if page else None, "has_more": len(items) > limit})

    def _advance(self, bid: str, auth: str, poll: bool = True) -> None:
        """``validating`` until the first retrieve, ``in_progress`` until the ``batch_polls``-th (or
        ``batch_delay_s`` after creation), then the batch's outcome."""
        with self.lock:
            b, st = self.batches[bid], self._batch_state[bid]
            if b["status"] in FINAL:
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
        if final in ("failed", "token_limit"):
            with self.lock:
                b.update(status="failed", failed_at=now,
                         errors={"object": "list", "data": [self._batch_error(final, st)]})
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
            b[_FINAL_AT[final]] = now

    @staticmethod
    def _batch_error(final: str, st: dict[str, Any]) -> dict[str, Any]:
        """The one ``BatchError`` of a failed batch: validation (``failed``), or OpenAI's refusal when a
        model's enqueued-token limit is reached (``token_limit``)."""
        if final == "failed":
            return {"code": "invalid_request", "message": "The request body is not valid for this model.",
                    "param": "body", "line": 1}
        model = (st["lines"][0].get("body") or {}).get("model") if st["lines"] else None
        return {"code": "token_limit_exceeded", "line": None, "param": None,
                "message": f"Enqueued token limit reached for {model} in organization org-fake. "
                           "Limit: 90,000 enqueued tokens. Please try again once some in_progress "
                           "batches have been completed."}
