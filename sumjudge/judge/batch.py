"""The OpenAI Batch API as a judge's transport (``judges.<name>.mode: batch``).

The cache misses of a rule, deduplicated, go out as JSONL files of at most
``batch.max_requests`` lines and ``batch.max_bytes`` bytes, one line per request:
``custom_id`` = the cache key, ``body`` = exactly the body a live request sends
(:func:`sumjudge.judge.transport.request_body`). Each file is uploaded with
``files.create(purpose="batch")`` and submitted with
``batches.create(endpoint="/v1/chat/completions", completion_window=batch.window,
metadata={"sumjudge_chunk": <chunk id>})``.

The journal, one JSON file per chunk under ``<cache_dir>/batches/`` written
atomically, is the resume point:

1. ``uploaded`` (the keys and the input file id) before ``batches.create``;
2. ``submitted`` (the batch id) right after it; 3. ``collected`` once every reply
is in the cache (``abandoned``: an uploaded chunk that was never submitted and
whose requests were answered otherwise).

A run killed at any moment and started again adopts the journals whose keys it
still misses: it polls a submitted batch, and for a chunk whose batch id was never
written it first looks the batch up through ``batches.list()`` by its metadata (the
chunk id is a hash of the server and the keys, so the same misses give the same id)
and only creates it if none is found. The same requests are never submitted twice.

Results come back through the output file and the error file into the same cache
entries as live replies (``via: batch``, the batch id, the full usage, the cost at
``batch_price_factor``). Error lines are classified like live errors: transient
ones are resubmitted (up to ``max_retries`` rounds), per-unit ones end
``api_error``, judge-wide ones stop the rule. Requests an expired or cancelled batch
left over are resubmitted, or sent live with ``batch.fallback: live``.

``batch.wait: true`` polls every ``batch.poll_s`` seconds with a progress bar;
``wait: false`` submits, says what is in flight and how to resume, and raises
:class:`BatchPending` (the rule fails without outputs; the next run collects).

``batch.max_enqueued_tokens`` bounds the estimated input tokens of the judge's batches
in flight at once (all its jobs, through the journal); chunks that do not fit wait
until earlier batches finish. :meth:`BatchRunner.submit` creates a job's batches and
returns at once (rule ``judge_batch_submit``); :meth:`BatchRunner.run` adopts them.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import openai

from ..io import write_json
from .cache import ResponseCache, make_entry
from .client import RequestLayer
from .errors import BatchFailed, BatchPending, BatchTokenLimit, FatalJudgeError, InvalidRequest
from .spec import JudgeSettings
from .transport import (FATAL, PER_UNIT, TRANSIENT, Request, Result, Stats, Transport, classify, classify_status,
                        completion_dict, error_fields, error_text, estimate_tokens, invalid_request_message,
                        request_body, scrub, split_cached)

log = logging.getLogger(__name__)

FINAL = {"completed", "expired", "cancelled", "failed"}
ENDPOINT = "/v1/chat/completions"


def input_tokens(req: Request) -> int:
    """Estimated input tokens of one request (what OpenAI's enqueued-token limit counts)."""
    return sum(estimate_tokens(m["content"]) for m in req.messages)


def chunk_tokens(chunk: list[tuple[Request, bytes]]) -> int:
    return sum(input_tokens(req) for req, _ in chunk)


def chunk_id(base_url: str, keys: list[str]) -> str:
    return hashlib.sha256(json.dumps([base_url, sorted(keys)]).encode()).hexdigest()[:32]


class Journal:
    """One JSON file per chunk under ``<cache_dir>/batches/``, each write atomic."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    def path(self, cid: str) -> Path:
        return self.root / f"{cid}.json"

    def write(self, record: dict[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        record = dict(record, updated=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        write_json(record, self.path(record["chunk_id"]), compact=True, durable=True,
                   prefix=f".{record['chunk_id'][:12]}.")

    @contextlib.contextmanager
    def lock(self, name: str) -> Iterator[None]:
        """An exclusive lock beside the journal (the jobs of one judge share its budget)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / f".{name}.lock", "a", encoding="utf-8") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def records(self, base_url: str) -> list[dict[str, Any]]:
        out = []
        for f in sorted(self.root.glob("*.json")) if self.root.is_dir() else []:
            try:
                rec = json.loads(f.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue
            if rec.get("base_url") == base_url:
                out.append(rec)
        return out


class BatchRunner(Transport):
    """The Batch API transport (:class:`~sumjudge.judge.transport.Transport`): the misses
    go out as batches; ``stats`` says what this run did. With ``batch.fallback: live``
    the requests an expired batch left over go through the live transport, counted in
    the same ``stats``."""

    def __init__(self, spec: JudgeSettings, base_url: str, api_key: str, cache: ResponseCache,
                 on_result: Callable[[Result, Stats], None] | None = None, label: str = "",
                 progress: bool = True, sleep: Callable[[float], Any] = time.sleep,
                 journal_dir: str | os.PathLike | None = None):
        super().__init__(spec, base_url.rstrip("/"), api_key, cache, on_result)
        self.cfg = spec.batch
        self.label = label or spec.name
        self.progress = progress
        self._sleep = sleep
        self.journal = Journal(journal_dir or Path(cache.root) / "batches")
        self._listed: dict[str, Any] | None = None  # chunk id -> batch, from batches.list()
        self._live = RequestLayer(spec, base_url, api_key, cache, on_result=on_result)
        self._live.stats = self.stats  # one set of counters for both transports

    # -- public

    def send(self, todo: dict[str, Request]) -> dict[str, Result]:
        with self._client() as client:
            return self._batches(client, todo)

    def submit(self, requests: list[Request]) -> dict[str, Any]:
        """Upload and create the batches of the requests not cached and not in flight
        yet, and return at once (rule ``judge_batch_submit``): what :meth:`run` would
        submit first, as far as ``batch.max_enqueued_tokens`` allows; the job that
        waits (rule ``judge``) adopts these batches from the journal, counts them as
        its own and submits the chunks the budget held back."""
        _, todo, _ = split_cached(requests, self.cache, self.stats, self._notify)
        active: list[dict[str, Any]] = []
        held: list[list[tuple[Request, bytes]]] = []
        if todo:
            with self._client() as client:
                active, held = self._dispatch(client, todo, handoff=True)
        return {"judge": self.spec.name, "label": self.label, "requests": len(requests),
                "not_cached": len(todo), "batches": sorted(r["batch_id"] for r in active if r.get("batch_id")),
                "submitted_now": self.stats.batches_submitted, "chunks_held_back": len(held),
                "estimated_input_tokens": sum(int(r.get("est_tokens") or 0) for r in active)}

    def _client(self) -> Any:
        return openai.OpenAI(base_url=self.base_url, api_key=self._api_key,
                             max_retries=self.spec.max_retries, timeout=self.spec.timeout_s)

    # -- rounds of batches

    def _batches(self, client: openai.OpenAI, todo: dict[str, Request]) -> dict[str, Result]:
        results: dict[str, Result] = {}
        pending = dict(todo)
        attempts: dict[str, int] = {k: 0 for k in todo}
        last_error: dict[str, tuple[str, str]] = {}
        max_rounds = self.spec.max_retries + 1
        while pending:
            active, held = self._dispatch(client, pending)
            if not self.cfg.wait:
                batches = {rec["chunk_id"]: client.batches.retrieve(rec["batch_id"]) for rec in active}
                running = [b for b in batches.values() if b.status not in FINAL]
                if running or held:
                    raise BatchPending(self._pending_message(running, held))
            done = self._wait(client, active, held)
            leftovers: set[str] = set()
            fatal: FatalJudgeError | None = None
            for rec in active:
                batch = done[rec["chunk_id"]]
                try:
                    got, left, errors = self._collect(client, rec, batch, pending)
                except FatalJudgeError as err:
                    fatal = fatal or err
                    continue
                for key, res in got.items():
                    results[key] = res
                    pending.pop(key, None)
                for key, (kind, message) in errors.items():
                    attempts[key] = attempts.get(key, 0) + 1
                    last_error[key] = (kind, message)
                    self.stats.errors[kind] = self.stats.errors.get(kind, 0) + 1
                    if kind in PER_UNIT or kind not in TRANSIENT or attempts[key] >= max_rounds:
                        res = Result(key, None, error_kind=kind, error=message, attempts=attempts[key])
                        self.stats.failed += 1
                        results[key] = res
                        pending.pop(key, None)
                        self._notify(res)
                    else:
                        self.stats.retries += 1
                leftovers |= left
            if fatal is not None:
                raise fatal
            if leftovers and self.cfg.fallback == "live":
                reqs = [pending[k] for k in sorted(leftovers) if k in pending]
                log.info("%s: %d requests left over by expired/cancelled batches go live (batch.fallback: live)",
                         self.label, len(reqs))
                for res in self._live.run(reqs):
                    results[res.key] = res
                    pending.pop(res.key, None)
            elif leftovers:
                log.info("%s: %d requests left over by expired/cancelled batches are resubmitted",
                         self.label, len(leftovers))
        return results

    def _dispatch(self, client: openai.OpenAI, pending: dict[str, Request], handoff: bool = False
                  ) -> tuple[list[dict[str, Any]], list[list[tuple[Request, bytes]]]]:
        """The batches in flight for ``pending`` (adopted from the journal, or uploaded
        and created now) and the chunks ``batch.max_enqueued_tokens`` holds back.
        ``handoff``: the batches are created for the job that waits (rule ``judge``),
        which counts them in its ``batches_submitted``."""
        active = []
        for rec in self.journal.records(self.base_url):
            if rec.get("state") not in ("uploaded", "submitted") or not set(rec["keys"]) & set(pending):
                continue
            if not rec.get("batch_id") and self._find(client, rec["chunk_id"]) is None \
                    and not set(rec["keys"]) <= set(pending):
                self.journal.write(dict(rec, state="abandoned"))  # never submitted; answered otherwise
                continue
            if rec.get("handoff") and not handoff and rec.get("label") == self.label and rec.get("batch_id"):
                rec = dict(rec, handoff=False)  # created for this job by rule judge_batch_submit
                self.journal.write(rec)
                self.stats.batches_submitted += 1
            if rec.get("batch_id") or self._find(client, rec["chunk_id"]) is not None:
                active.append(self._submit(client, rec, handoff))  # nothing new is created
            else:
                active += self._within_budget(client, [rec], handoff)
        covered = {k for r in active for k in r["keys"]}
        held = self._chunks([req for k, req in pending.items() if k not in covered])
        active += self._within_budget(client, held, handoff)
        return active, held

    @property
    def budget(self) -> int | None:
        return self.cfg.max_enqueued_tokens

    def _within_budget(self, client: openai.OpenAI, queue: list, handoff: bool = False,
                       known: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Submit from the front of ``queue`` (chunks, or journal records uploaded but
        not created) while the judge's batches in flight stay within
        ``batch.max_enqueued_tokens``; what does not fit stays in ``queue``. Under a
        lock beside the journal, so the jobs of one judge share the budget."""
        def create(item) -> dict[str, Any]:
            return self._submit(client, item if isinstance(item, dict) else self._upload(client, item), handoff)

        if self.budget is None:
            out = [create(item) for item in queue]
            queue.clear()
            return out
        out = []
        with self.journal.lock(f"budget-{self.spec.name}"):
            in_flight = self._enqueued(client, known or {})
            while queue:
                tokens = int(queue[0].get("est_tokens") or 0) if isinstance(queue[0], dict) else chunk_tokens(queue[0])
                if in_flight and in_flight + tokens > self.budget:
                    break
                out.append(create(queue.pop(0)))
                in_flight += tokens
        if queue:
            log.info("%s: %d chunk(s) wait for room under judges.%s.batch.max_enqueued_tokens = %d",
                     self.label, len(queue), self.spec.name, self.budget)
        return out

    def _enqueued(self, client: openai.OpenAI, known: dict[str, Any]) -> int:
        """Estimated input tokens of this judge's batches in flight now (journal records
        created and not final; ``known``: batches already polled, by batch id)."""
        total = 0
        for rec in self.journal.records(self.base_url):
            if rec.get("state") != "submitted" or rec.get("judge") != self.spec.name or not rec.get("batch_id"):
                continue
            batch = known.get(rec["batch_id"])
            if batch is None:
                try:
                    batch = self._call(client.batches.retrieve, rec["batch_id"])
                except FatalJudgeError as err:  # e.g. another organisation's batch: not this key's budget
                    log.info("%s: batch %s of the journal is not counted in the budget: %s", self.label,
                             rec["batch_id"], err)
                    continue
            if batch.status not in FINAL:
                total += int(rec.get("est_tokens") or 0)
        return total

    def _chunks(self, reqs: list[Request]) -> list[list[tuple[Request, bytes]]]:
        chunks: list[list[tuple[Request, bytes]]] = []
        size = ntok = 0
        for req in reqs:
            line = (json.dumps({"custom_id": req.key, "method": "POST", "url": ENDPOINT,
                                "body": request_body(req)}, ensure_ascii=False) + "\n").encode()
            tokens = input_tokens(req)
            if not chunks or len(chunks[-1]) >= self.cfg.max_requests or \
                    size + len(line) > self.cfg.max_bytes or \
                    (self.budget is not None and chunks[-1] and ntok + tokens > self.budget):
                chunks.append([])
                size = ntok = 0
            chunks[-1].append((req, line))
            size += len(line)
            ntok += tokens
        return chunks

    def _upload(self, client: openai.OpenAI, chunk: list[tuple[Request, bytes]]) -> dict[str, Any]:
        """The chunk's record; its input file uploaded unless a batch for the same chunk
        exists already (found through batches.list(): the journal itself was lost)."""
        keys = [req.key for req, _ in chunk]
        rec = {"chunk_id": chunk_id(self.base_url, keys), "judge": self.spec.name, "base_url": self.base_url,
               "keys": keys, "state": "new", "input_file_id": None, "batch_id": None,
               "label": self.label, "est_tokens": chunk_tokens(chunk)}
        if self._find(client, rec["chunk_id"]) is not None:
            return rec
        data = b"".join(line for _, line in chunk)
        f = self._call(client.files.create, file=(f"sumjudge-{rec['chunk_id']}.jsonl", data, "application/jsonl"),
                       purpose="batch")
        rec = dict(rec, state="uploaded", input_file_id=f.id)
        self.journal.write(rec)  # before batches.create: the resume point
        return rec

    def _find(self, client: openai.OpenAI, cid: str) -> Any:
        """A batch submitted for this chunk whose id the journal lost (batches.list() by metadata)."""
        if self._listed is None:
            self._listed = {}
            for i, b in enumerate(self._call(client.batches.list, limit=100)):
                meta = b.metadata or {}
                if meta.get("sumjudge_chunk") and b.status not in ("failed",):
                    self._listed.setdefault(meta["sumjudge_chunk"], b)
                if i >= 10000:
                    break
        return self._listed.get(cid)

    def _submit(self, client: openai.OpenAI, rec: dict[str, Any], handoff: bool = False) -> dict[str, Any]:
        if rec.get("batch_id"):
            return rec
        found = self._find(client, rec["chunk_id"])
        if found is not None:
            log.info("%s: batch %s found again through batches.list() (its journal write was lost)",
                     self.label, found.id)
            rec = dict(rec, state="submitted", batch_id=found.id, input_file_id=found.input_file_id)
            self.journal.write(rec)
            return rec
        batch = self._call(client.batches.create, input_file_id=rec["input_file_id"], endpoint=ENDPOINT,
                           completion_window=self.cfg.window,
                           metadata={"sumjudge_chunk": rec["chunk_id"], "sumjudge_judge": self.spec.name})
        rec = dict(rec, state="submitted", batch_id=batch.id, label=self.label, handoff=handoff)
        self.journal.write(rec)  # right after batches.create
        self.stats.batches_submitted += 1
        log.info("%s: submitted batch %s (%d requests, input file %s)", self.label, batch.id, len(rec["keys"]),
                 rec["input_file_id"])
        return rec

    def _wait(self, client: openai.OpenAI, active: list[dict[str, Any]],
              held: list[list[tuple[Request, bytes]]] | None = None) -> dict[str, Any]:
        """Poll until every batch of ``active`` is final; chunks ``held`` back by
        ``batch.max_enqueued_tokens`` are submitted (and added to ``active``) as room frees."""
        held = held if held is not None else []
        done: dict[str, Any] = {}
        bar = None
        if self.progress:
            from tqdm import tqdm
            bar = tqdm(total=sum(len(r["keys"]) for r in active), desc=f"{self.label} (batch)", unit="req",
                       file=sys.stderr, dynamic_ncols=True, mininterval=0.5 if sys.stderr.isatty() else 10)
        last_log = 0.0
        try:
            while True:
                states = {}
                for rec in active:
                    if rec["chunk_id"] in done:
                        b = done[rec["chunk_id"]]
                    else:
                        b = self._call(client.batches.retrieve, rec["batch_id"])
                        if b.status in FINAL:
                            done[rec["chunk_id"]] = b
                    states[rec["chunk_id"]] = b
                counts = [b.request_counts for b in states.values()]
                n = sum((c.completed + c.failed) if c else 0 for c in counts)
                line = "; ".join(f"{b.id}: {b.status} {(b.request_counts.completed if b.request_counts else 0)}"
                                 f" ok/{(b.request_counts.failed if b.request_counts else 0)} failed"
                                 f"/{len(rec['keys'])}" for rec, b in zip(active, states.values()))
                if bar is not None:
                    bar.n = min(n, bar.total)
                    bar.set_postfix_str(line[:200], refresh=True)
                if time.monotonic() - last_log > 60 or (len(done) == len(active) and not held):
                    log.info("%s: %s", self.label, line)
                    last_log = time.monotonic()
                if held:
                    n_before = len(active)
                    active += self._within_budget(client, held, known={b.id: b for b in states.values()})
                    if bar is not None and len(active) > n_before:
                        bar.total = sum(len(r["keys"]) for r in active)
                    if len(active) > n_before:
                        continue  # poll the new batches before sleeping
                if len(done) == len(active) and not held:
                    return done
                self._sleep(self.cfg.poll_s)
        finally:
            if bar is not None:
                bar.close()

    def _collect(self, client: openai.OpenAI, rec: dict[str, Any], batch: Any, pending: dict[str, Request]
                 ) -> tuple[dict[str, Result], set[str], dict[str, tuple[str, str]]]:
        """Replies (cached as they are read), leftover keys (expired / cancelled / not
        answered) and error lines (kind, message) of one finished batch."""
        if batch.status == "failed":
            self.journal.write(dict(rec, state="collected", status="failed"))
            errs = (batch.errors.data if batch.errors and batch.errors.data else [])
            first = errs[0] if errs else None
            fields = {"message": getattr(first, "message", None), "param": getattr(first, "param", None),
                      "code": getattr(first, "code", None)}
            detail = "; ".join(f"line {e.line}: {e.code}: {e.message}" for e in errs[:5]) or "no details"
            if any(getattr(e, "code", None) == "token_limit_exceeded" for e in errs):
                name = self.spec.name
                raise BatchTokenLimit((
                    f"judge '{name}': batch {batch.id} was refused at {self.base_url}: the enqueued-token limit "
                    f"for model {self.spec.model!r} is reached ({detail}). OpenAI counts the input tokens of "
                    "all of your organisation's batches in flight for that model against this limit, per usage "
                    "tier. Nothing was billed and every reply already collected is cached: run the same "
                    "command again once batches in flight have finished, set "
                    f"judges.{name}.batch.max_enqueued_tokens (now {self.budget if self.budget is not None else 'null, no limit'}) "
                    "below that limit so fewer of this judge's batches are in flight at once, lower "
                    f"judges.{name}.batch.max_requests so each batch holds fewer tokens, or set "
                    f"judges.{name}.mode: live"))
            if fields["param"] in ("body", None) or not fields["message"]:
                raise BatchFailed(f"judge '{self.spec.name}': batch {batch.id} failed "
                                  f"validation at {self.base_url} ({detail}); check judges.{self.spec.name}"
                                  f".model and the request settings, or set judges.{self.spec.name}.mode: live")
            raise InvalidRequest(invalid_request_message(self.spec, fields, self.base_url, True))
        keys = set(rec["keys"])
        got: dict[str, Result] = {}
        errors: dict[str, tuple[str, str]] = {}
        fatal: FatalJudgeError | None = None
        latency = float((batch.completed_at or batch.expired_at or batch.cancelled_at or time.time())
                        - batch.created_at)
        for line in self._read(client, batch.output_file_id) + self._read(client, batch.error_file_id):
            key = line.get("custom_id")
            if key not in keys or key in got or key not in pending:
                continue
            response = line.get("response") or {}
            status = response.get("status_code")
            body = response.get("body")
            if status == 200:
                try:
                    data = completion_dict(body)
                except (ValueError, TypeError, KeyError, AttributeError) as err:
                    errors[key] = ("malformed_response", str(err)[:500])
                    continue
                req = pending[key]
                entry = make_entry(key, req.identity, data, latency, via="batch", batch_id=batch.id,
                                   cost_usd=self.spec.cost(data.get("usage"), "batch"))
                self.cache.put(key, entry)
                self.stats.add_reply(entry)
                got[key] = Result(key, entry, attempts=1)
                self._notify(got[key])
            elif status is not None:
                kind, _ = classify_status(int(status), body)
                message = scrub(f"HTTP {status}: {error_text(body, str(body))}", self._api_key)[:500]
                if kind == "invalid_request" or kind in FATAL:
                    fatal = fatal or self.fatal_error(kind, error_fields(body), message)
                    continue
                errors[key] = (kind, message)
            # else: no response (batch_expired / batch_cancelled): a leftover
        left = {k for k in keys if k in pending and k not in got and k not in errors}
        self.journal.write(dict(rec, state="collected", status=batch.status,
                                replies=len(got), errors=len(errors), leftovers=len(left)))
        if fatal is not None:
            raise fatal
        return got, left, errors

    def _read(self, client: openai.OpenAI, file_id: str | None) -> list[dict[str, Any]]:
        if not file_id:
            return []
        content = self._call(client.files.content, file_id)
        out = []
        for raw in content.text.splitlines():
            if raw.strip():
                try:
                    out.append(json.loads(raw))
                except json.JSONDecodeError:
                    log.warning("%s: a line of file %s is not JSON: %r", self.label, file_id, raw[:200])
        return out

    def _call(self, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        """A management call (files, batches): the SDK retries transient errors itself;
        what remains is classified and stops the rule with the usual messages."""
        try:
            return fn(*args, **kw)
        except Exception as err:  # noqa: BLE001
            kind, _ = classify(err)
            message = scrub(f"{type(err).__name__}: {error_text(getattr(err, 'body', None), str(err))}",
                            self._api_key)[:500]
            if (fatal := self.fatal_error(kind, error_fields(getattr(err, "body", None)), message)) is not None:
                raise fatal from None
            raise FatalJudgeError(kind, f"judge '{self.spec.name}': the Batch API at {self.base_url} failed "
                                        f"({kind}): {message}. Submitted batches are in the journal under "
                                        f"{self.journal.root}: run again to resume") from None

    def _pending_message(self, running: list[Any], held: list | None = None) -> str:
        lines = ", ".join(f"{b.id} ({b.status}, {b.request_counts.completed if b.request_counts else 0}/"
                          f"{b.request_counts.total if b.request_counts else '?'} done)" for b in running)
        waiting = (f"; {len(held)} more chunk(s) wait for room under judges.{self.spec.name}.batch."
                   f"max_enqueued_tokens = {self.budget}" if held else "")
        return (f"judge '{self.spec.name}' ({self.label}): {len(running)} batch(es) in flight: {lines}{waiting}. "
                f"judges.{self.spec.name}.batch.wait is false, so this rule stops without outputs. Run the same "
                f"snakemake command again later: it collects finished batches from the journal under "
                f"{self.journal.root} and submits nothing twice.")


__all__ = ["BatchRunner", "BatchPending", "Journal", "chunk_id"]
