"""The Batch API as a judge's transport (``judges.<name>.mode: batch``): the lifecycle.

:class:`BatchRunner` owns what any file-based batch API needs: chunking, submitting,
polling, collecting, the retry rounds and the journal. The provider's endpoints sit
behind the few hooks of :class:`BatchAPI` (OpenAI's Files and Batches:
:mod:`sumjudge.judge.openai_batch`); the judge's enqueued-token budget is
:class:`EnqueuedBudget`.

The cache misses of a rule, deduplicated, go out as JSONL files of at most
``batch.max_requests`` lines and ``batch.max_bytes`` bytes, one line per request:
``custom_id`` = the cache key, ``body`` = exactly the body a live request sends
(:func:`sumjudge.judge.transport.request_body`). Each file is uploaded and its batch
created with the chunk id in its metadata.

The journal, one JSON file per chunk under ``<cache_dir>/batches/`` written
atomically, is the resume point:

1. ``uploaded`` (the keys and the input file id) before the batch is created;
2. ``submitted`` (the batch id) right after it; 3. ``collected`` once every reply
is in the cache (``abandoned``: an uploaded chunk that was never submitted and
whose requests were answered otherwise).

A run killed at any moment and started again adopts the journals whose keys it
still misses: it polls a submitted batch, and for a chunk whose batch id was never
written it first looks the batch up on the server by its metadata (the chunk id is
a hash of the server and the keys, so the same misses give the same id) and only
creates it if none is found. The same requests are never submitted twice.

Results come back through the output file and the error file into the same cache
entries as live replies (``via: batch``, the batch id, the full usage, the cost at
``batch_price_factor``). Error lines are classified like live errors: transient
ones are resubmitted (up to ``max_retries`` rounds), per-unit ones end
``api_error``, judge-wide ones stop the rule. Requests an expired or cancelled batch
left over are resubmitted, or sent through the fall-back transport (``batch.fallback:
live``).

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
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterator, Protocol

from ..io import write_json
from .cache import ResponseCache, make_entry
from .errors import BatchPending, FatalJudgeError
from .spec import JudgeSettings
from .transport import (FATAL, PER_UNIT, TRANSIENT, Request, Result, Stats, Transport, batch_pending_message,
                        estimate_tokens, split_cached)

log = logging.getLogger(__name__)

Chunk = list[tuple[Request, bytes]]  # the requests of one batch, each with its JSONL line
Record = dict[str, Any]              # a chunk's journal record


def input_tokens(req: Request) -> int:
    """Estimated input tokens of one request (what OpenAI's enqueued-token limit counts)."""
    return sum(estimate_tokens(m["content"]) for m in req.messages)


def chunk_tokens(chunk: Chunk) -> int:
    return sum(input_tokens(req) for req, _ in chunk)


def queued_tokens(item: Chunk | Record) -> int:
    """Estimated input tokens of a chunk, or of a journal record's chunk."""
    return int(item.get("est_tokens") or 0) if isinstance(item, dict) else chunk_tokens(item)


def chunk_id(base_url: str, keys: list[str]) -> str:
    return hashlib.sha256(json.dumps([base_url, sorted(keys)]).encode()).hexdigest()[:32]


@dataclass(frozen=True)
class BatchState:
    """One batch as the provider last reported it, in the lifecycle's terms."""
    id: str
    status: str                              # the provider's word for it (shown to the user)
    final: bool                              # it will not change any more: collect it
    completed: int = 0                       # requests answered so far
    failed: int = 0                          # requests answered with an error line
    total: int | None = None                 # requests in the batch, once the provider counted them
    created_at: float = 0.0
    ended_at: float | None = None
    result_files: tuple[str, ...] = ()       # the output file, then the error file
    input_file_id: str | None = None
    rejected: FatalJudgeError | None = None  # refused as a whole: what stops the judge

    @property
    def latency_s(self) -> float:
        return float((self.ended_at or time.time()) - self.created_at)


@dataclass(frozen=True)
class LineError:
    """An error line of a batch, classified as a live error is (``kind``, a message, the body's fields)."""
    kind: str
    message: str
    fields: dict[str, Any]


Outcome = dict[str, Any] | LineError | None  # a completion, an error, or no answer (a leftover)


class BatchAPI(Protocol):
    """A provider's file-based batch API: the hooks :class:`BatchRunner` calls."""

    base_url: str

    def session(self) -> ContextManager[Any]:
        """A client, open for as long as the block runs (every other hook is called inside)."""

    def line(self, req: Request) -> bytes:
        """The JSONL line, newline included, that asks for ``req``."""

    def upload(self, name: str, data: bytes) -> str:
        """Upload an input file; its id."""

    def create(self, file_id: str, cid: str) -> BatchState:
        """Create the batch of an uploaded input file, tagged with chunk id ``cid``."""

    def retrieve(self, batch_id: str) -> BatchState:
        """The batch as it is now."""

    def find(self, cid: str) -> BatchState | None:
        """The batch created for chunk ``cid`` (whose id the journal lost), if there is one."""

    def download(self, file_id: str) -> str:
        """The text of a result file."""

    def parse_line(self, obj: dict[str, Any]) -> tuple[str | None, Outcome]:
        """One line of a result file: its custom id and its outcome."""


def result_lines(api: BatchAPI, state: BatchState, label: str) -> Iterator[tuple[str | None, Outcome]]:
    """Every line of a finished batch's result files, parsed by the provider (a line that
    is not JSON is logged and skipped)."""
    for file_id in state.result_files:
        for raw in api.download(file_id).splitlines():
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError:
                log.warning("%s: a line of file %s is not JSON: %r", label, file_id, raw[:200])
                continue
            yield api.parse_line(obj)


@contextlib.contextmanager
def progress_bar(enabled: bool, total: int, desc: str) -> Iterator[Any]:
    """A progress bar on stderr for the block (None when not ``enabled``)."""
    if not enabled:
        yield None
        return
    from tqdm import tqdm
    bar = tqdm(total=total, desc=desc, unit="req", file=sys.stderr, dynamic_ncols=True,
               mininterval=0.5 if sys.stderr.isatty() else 10)
    try:
        yield bar
    finally:
        bar.close()


class Journal:
    """One JSON file per chunk under ``<cache_dir>/batches/``, each write atomic."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    def path(self, cid: str) -> Path:
        return self.root / f"{cid}.json"

    def write(self, record: Record) -> None:
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

    def records(self, base_url: str) -> list[Record]:
        out = []
        for f in sorted(self.root.glob("*.json")) if self.root.is_dir() else []:
            try:
                rec = json.loads(f.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue
            if rec.get("base_url") == base_url:
                out.append(rec)
        return out


class EnqueuedBudget:
    """``batch.max_enqueued_tokens``: the estimated input tokens of one judge's batches in
    flight at once. Counted from the journal (every job of the judge writes there) under
    a lock beside it, so the jobs of one judge share the budget; ``limit`` None: no limit."""

    def __init__(self, limit: int | None, journal: Journal, judge: str, base_url: str,
                 retrieve: Callable[[str], BatchState], label: str = ""):
        self.limit = limit
        self.journal = journal
        self.judge = judge
        self.base_url = base_url
        self.retrieve = retrieve
        self.label = label or judge

    def admit(self, queue: list, submit: Callable[[Any], Record],
              known: dict[str, BatchState] | None = None) -> list[Record]:
        """Submit from the front of ``queue`` (chunks, or journal records uploaded but not
        created) while the judge's batches in flight stay within the limit; what does
        not fit stays in ``queue``. ``known``: batches polled just now, by id."""
        if self.limit is None:
            out = [submit(item) for item in queue]
            queue.clear()
            return out
        out = []
        with self.journal.lock(f"budget-{self.judge}"):
            in_flight = self.in_flight(known or {})
            while queue:
                tokens = queued_tokens(queue[0])
                if in_flight and in_flight + tokens > self.limit:
                    break
                out.append(submit(queue.pop(0)))
                in_flight += tokens
        if queue:
            log.info("%s: %d chunk(s) wait for room under judges.%s.batch.max_enqueued_tokens = %d",
                     self.label, len(queue), self.judge, self.limit)
        return out

    def in_flight(self, known: dict[str, BatchState]) -> int:
        """Estimated input tokens of the judge's batches in flight now (journal records
        created and not final)."""
        total = 0
        for rec in self.journal.records(self.base_url):
            if rec.get("state") != "submitted" or rec.get("judge") != self.judge or not rec.get("batch_id"):
                continue
            state = known.get(rec["batch_id"])
            if state is None:
                try:
                    state = self.retrieve(rec["batch_id"])
                except FatalJudgeError as err:  # e.g. another organisation's batch: not this key's budget
                    log.info("%s: batch %s of the journal is not counted in the budget: %s", self.label,
                             rec["batch_id"], err)
                    continue
            if not state.final:
                total += int(rec.get("est_tokens") or 0)
        return total


class Dispatcher:
    """Puts a round's pending requests in flight, the submitting half of :class:`BatchRunner`:
    adopts the journal's chunks that hold them, cuts the rest into chunks, uploads them
    and creates their batches as the judge's :class:`EnqueuedBudget` allows (``stats``:
    the runner's, for ``batches_submitted``)."""

    def __init__(self, spec: JudgeSettings, api: BatchAPI, journal: Journal, stats: Stats, label: str):
        self.spec = spec
        self.cfg = spec.batch
        self.api = api
        self.journal = journal
        self.stats = stats
        self.label = label
        self.budget = EnqueuedBudget(self.cfg.max_enqueued_tokens, journal, spec.name, api.base_url,
                                     api.retrieve, label)

    def dispatch(self, pending: dict[str, Request], handoff: bool = False) -> tuple[list[Record], list[Chunk]]:
        """The batches in flight for ``pending`` (adopted from the journal, or uploaded
        and created now) and the chunks ``batch.max_enqueued_tokens`` holds back.
        ``handoff``: the batches are created for the job that waits (rule ``judge``),
        which counts them in its ``batches_submitted``."""
        active: list[Record] = []
        for rec in self.journal.records(self.api.base_url):
            if rec.get("state") in ("uploaded", "submitted") and set(rec["keys"]) & set(pending):
                active += self._adopt(rec, pending, handoff)
        covered = {k for r in active for k in r["keys"]}
        held = self._chunks([req for k, req in pending.items() if k not in covered])
        active += self.budget.admit(held, lambda chunk: self._submit(self._upload(chunk), handoff))
        return active, held

    def admit_held(self, held: list[Chunk], known: dict[str, BatchState]) -> list[Record]:
        """The held-back chunks the budget has room for now, submitted (``known``: batches just polled)."""
        return self.budget.admit(held, lambda chunk: self._submit(self._upload(chunk)), known)

    def _adopt(self, rec: Record, pending: dict[str, Request], handoff: bool) -> list[Record]:
        """A journal record that holds pending keys: its batch in flight (nothing new is
        created), created now if the budget has room, or abandoned (never created, and
        some of its requests were answered otherwise)."""
        exists = bool(rec.get("batch_id")) or self.api.find(rec["chunk_id"]) is not None
        if not exists and not set(rec["keys"]) <= set(pending):
            self.journal.write(dict(rec, state="abandoned"))
            return []
        if rec.get("handoff") and not handoff and rec.get("label") == self.label and rec.get("batch_id"):
            rec = dict(rec, handoff=False)  # created for this job by rule judge_batch_submit
            self.journal.write(rec)
            self.stats.batches_submitted += 1
        if exists:
            return [self._submit(rec, handoff)]
        return self.budget.admit([rec], lambda r: self._submit(r, handoff))

    def _chunks(self, reqs: list[Request]) -> list[Chunk]:
        """``reqs`` in chunks of at most ``batch.max_requests`` lines, ``batch.max_bytes``
        bytes and (with a budget) ``max_enqueued_tokens`` estimated input tokens."""
        chunks: list[Chunk] = []
        size = ntok = 0
        limit = self.budget.limit
        for req in reqs:
            line = self.api.line(req)
            tokens = input_tokens(req)
            if not chunks or len(chunks[-1]) >= self.cfg.max_requests or size + len(line) > self.cfg.max_bytes \
                    or (limit is not None and chunks[-1] and ntok + tokens > limit):
                chunks.append([])
                size = ntok = 0
            chunks[-1].append((req, line))
            size += len(line)
            ntok += tokens
        return chunks

    def _upload(self, chunk: Chunk) -> Record:
        """The chunk's record; its input file uploaded unless a batch for the same chunk
        exists already (found on the server: the journal itself was lost)."""
        keys = [req.key for req, _ in chunk]
        base_url = self.api.base_url
        rec = {"chunk_id": chunk_id(base_url, keys), "judge": self.spec.name, "base_url": base_url,
               "keys": keys, "state": "new", "input_file_id": None, "batch_id": None,
               "label": self.label, "est_tokens": chunk_tokens(chunk)}
        if self.api.find(rec["chunk_id"]) is not None:
            return rec
        file_id = self.api.upload(f"sumjudge-{rec['chunk_id']}.jsonl", b"".join(line for _, line in chunk))
        rec = dict(rec, state="uploaded", input_file_id=file_id)
        self.journal.write(rec)  # before the batch is created: the resume point
        return rec

    def _submit(self, rec: Record, handoff: bool = False) -> Record:
        """The record of the chunk's batch: as it is, found again on the server, or created now."""
        if rec.get("batch_id"):
            return rec
        found = self.api.find(rec["chunk_id"])
        if found is not None:
            log.info("%s: batch %s found again on the server (its journal write was lost)", self.label, found.id)
            rec = dict(rec, state="submitted", batch_id=found.id, input_file_id=found.input_file_id)
            self.journal.write(rec)
            return rec
        batch = self.api.create(rec["input_file_id"], rec["chunk_id"])
        rec = dict(rec, state="submitted", batch_id=batch.id, label=self.label, handoff=handoff)
        self.journal.write(rec)  # right after the batch is created
        self.stats.batches_submitted += 1
        log.info("%s: submitted batch %s (%d requests, input file %s)", self.label, batch.id, len(rec["keys"]),
                 rec["input_file_id"])
        return rec


class BatchRunner(Transport):
    """The batch lifecycle as a :class:`~sumjudge.judge.transport.Transport`: the misses go
    out as batches through ``api`` (:class:`BatchAPI`), recorded in ``journal``, in
    rounds until each is answered; ``stats`` says what this run did. ``fallback``: the
    transport that sends what an expired or cancelled batch left over (``batch.fallback:
    live``; None: resubmitted), built with the same ``stats``."""

    def __init__(self, spec: JudgeSettings, api: BatchAPI, cache: ResponseCache, journal: Journal, *,
                 fallback: Transport | None = None, stats: Stats | None = None,
                 on_result: Callable[[Result, Stats], None] | None = None, label: str = "",
                 progress: bool = True, sleep: Callable[[float], Any] = time.sleep):
        super().__init__(spec, api.base_url, "", cache, on_result, stats)  # the key stays with the api
        self.api = api
        self.cfg = spec.batch
        self.journal = journal
        self.fallback = fallback
        self.label = label or spec.name
        self.progress = progress
        self._sleep = sleep
        self.dispatcher = Dispatcher(spec, api, journal, self.stats, self.label)

    # -- public

    def send(self, todo: dict[str, Request]) -> dict[str, Result]:
        with self.api.session():
            return self._rounds(todo)

    def submit(self, requests: list[Request]) -> dict[str, Any]:
        """Upload and create the batches of the requests not cached and not in flight
        yet, and return at once (rule ``judge_batch_submit``): what :meth:`run` would
        submit first, as far as ``batch.max_enqueued_tokens`` allows; the job that
        waits (rule ``judge``) adopts these batches from the journal, counts them as
        its own and submits the chunks the budget held back."""
        _, todo, _ = split_cached(requests, self.cache, self.stats, self._notify)
        active: list[Record] = []
        held: list[Chunk] = []
        if todo:
            with self.api.session():
                active, held = self.dispatcher.dispatch(todo, handoff=True)
        return {"judge": self.spec.name, "label": self.label, "requests": len(requests),
                "not_cached": len(todo), "batches": sorted(r["batch_id"] for r in active if r.get("batch_id")),
                "submitted_now": self.stats.batches_submitted, "chunks_held_back": len(held),
                "estimated_input_tokens": sum(int(r.get("est_tokens") or 0) for r in active)}

    # -- rounds

    def _rounds(self, todo: dict[str, Request]) -> dict[str, Result]:
        """Rounds until every key is answered: submit, wait, collect; error lines worth
        a retry and the leftovers of expired batches go into the next round."""
        results: dict[str, Result] = {}
        pending = dict(todo)
        attempts: Counter[str] = Counter()
        while pending:
            active, held = self.dispatcher.dispatch(pending)
            if not self.cfg.wait:
                self._stop_if_in_flight(active, held)
            done = self._wait(active, held)
            leftovers = [k for k in sorted(self._collect_round(active, done, pending, results, attempts))
                         if k in pending]
            if leftovers and self.fallback is not None:
                log.info("%s: %d requests left over by expired/cancelled batches go live (batch.fallback: live)",
                         self.label, len(leftovers))
                for res in self.fallback.run([pending[k] for k in leftovers]):
                    results[res.key] = res
                    pending.pop(res.key, None)
            elif leftovers:
                log.info("%s: %d requests left over by expired/cancelled batches are resubmitted",
                         self.label, len(leftovers))
        return results

    def _stop_if_in_flight(self, active: list[Record], held: list[Chunk]) -> None:
        """``batch.wait: false``: stop with what is in flight, unless every batch is final."""
        running = [s for s in (self.api.retrieve(rec["batch_id"]) for rec in active) if not s.final]
        if running or held:
            raise BatchPending(batch_pending_message(self.spec, self.label, running, len(held),
                                                     self.journal.root))

    def _collect_round(self, active: list[Record], done: dict[str, BatchState], pending: dict[str, Request],
                       results: dict[str, Result], attempts: Counter[str]) -> set[str]:
        """Collect every batch of a round into ``results``; the keys left over. A judge-wide
        error stops the judge once the whole round is collected (and cached)."""
        leftovers: set[str] = set()
        fatal: FatalJudgeError | None = None
        for rec in active:
            try:
                got, left, errors = self._collect(rec, done[rec["chunk_id"]], pending)
            except FatalJudgeError as err:
                fatal = fatal or err
                continue
            for key, res in got.items():
                results[key] = res
                pending.pop(key, None)
            for key, (kind, message) in errors.items():
                self._retry_or_fail(key, kind, message, attempts, pending, results)
            leftovers |= left
        if fatal is not None:
            raise fatal
        return leftovers

    def _retry_or_fail(self, key: str, kind: str, message: str, attempts: Counter[str],
                       pending: dict[str, Request], results: dict[str, Result]) -> None:
        """An error line: resubmitted next round when transient and rounds are left
        (``max_retries``), else the unit ends ``api_error``."""
        attempts[key] += 1
        self.stats.errors[kind] = self.stats.errors.get(kind, 0) + 1
        if kind in TRANSIENT and kind not in PER_UNIT and attempts[key] < self.spec.max_retries + 1:
            self.stats.retries += 1
            return
        res = Result(key, None, error_kind=kind, error=message, attempts=attempts[key])
        self.stats.failed += 1
        results[key] = res
        pending.pop(key, None)
        self._notify(res)

    # -- waiting

    def _wait(self, active: list[Record], held: list[Chunk]) -> dict[str, BatchState]:
        """Poll until every batch of ``active`` is final (chunk id -> its final state);
        chunks ``held`` back by the budget are submitted (and added to ``active``) as
        room frees."""
        done: dict[str, BatchState] = {}
        last_log = 0.0
        with progress_bar(self.progress, sum(len(r["keys"]) for r in active), f"{self.label} (batch)") as bar:
            while True:
                states = [done.get(rec["chunk_id"]) or self.api.retrieve(rec["batch_id"]) for rec in active]
                done.update((rec["chunk_id"], s) for rec, s in zip(active, states) if s.final)
                line = "; ".join(f"{s.id}: {s.status} {s.completed} ok/{s.failed} failed/{len(rec['keys'])}"
                                 for rec, s in zip(active, states))
                if bar is not None:
                    bar.n = min(sum(s.completed + s.failed for s in states), bar.total)
                    bar.set_postfix_str(line[:200], refresh=True)
                if time.monotonic() - last_log > 60 or (len(done) == len(active) and not held):
                    log.info("%s: %s", self.label, line)
                    last_log = time.monotonic()
                added = self.dispatcher.admit_held(held, {s.id: s for s in states}) if held else []
                if added:
                    active += added
                    if bar is not None:
                        bar.total = sum(len(r["keys"]) for r in active)
                    continue  # poll the new batches before sleeping
                if len(done) == len(active) and not held:
                    return done
                self._sleep(self.cfg.poll_s)

    # -- collecting

    def _collect(self, rec: Record, state: BatchState, pending: dict[str, Request]
                 ) -> tuple[dict[str, Result], set[str], dict[str, tuple[str, str]]]:
        """Replies (cached as they are read), leftover keys (expired / cancelled / not
        answered) and error lines (kind, message) of one finished batch."""
        if state.rejected is not None:
            self.journal.write(dict(rec, state="collected", status=state.status))
            raise state.rejected
        keys = {k for k in rec["keys"] if k in pending}
        got: dict[str, Result] = {}
        errors: dict[str, tuple[str, str]] = {}
        fatal: FatalJudgeError | None = None
        latency = state.latency_s
        for key, outcome in result_lines(self.api, state, self.label):
            if key not in keys or key in got:
                continue
            if isinstance(outcome, LineError):
                if outcome.kind == "invalid_request" or outcome.kind in FATAL:
                    fatal = fatal or self.fatal_error(outcome.kind, outcome.fields, outcome.message)
                else:
                    errors[key] = (outcome.kind, outcome.message)
            elif outcome is not None:  # None: no answer (an expired / cancelled batch): a leftover
                got[key] = self._reply(pending[key], outcome, state.id, latency)
        left = keys - set(got) - set(errors)
        self.journal.write(dict(rec, state="collected", status=state.status,
                                replies=len(got), errors=len(errors), leftovers=len(left)))
        if fatal is not None:
            raise fatal
        return got, left, errors

    def _reply(self, req: Request, data: dict[str, Any], batch_id: str, latency: float) -> Result:
        entry = make_entry(req.key, req.identity, data, latency, via="batch", batch_id=batch_id,
                           cost_usd=self.spec.cost(data.get("usage"), "batch"))
        self.cache.put(req.key, entry)
        self.stats.add_reply(entry)
        result = Result(req.key, entry, attempts=1)
        self._notify(result)
        return result


__all__ = ["BatchRunner", "Dispatcher", "BatchAPI", "BatchState", "LineError", "EnqueuedBudget", "BatchPending",
           "Journal", "chunk_id", "input_tokens", "chunk_tokens"]
