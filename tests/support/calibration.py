"""The calibration run of the verdicts (docs/statistics.md, "Calibration of the verdicts"):
a dataset's real units as the population, draws that resample its documents and ask every
known judge (tests/support/known_judges.py) afresh, each judge's true value per column, and one
draw's verdicts (through tests/support/verdict_adapter.py, the only module that calls them).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sumjudge.datasets import DatasetSpec
from sumjudge.leaderboard.columns import Column, columns_of
from sumjudge.stats.accuracy import correctness, score_ties
from sumjudge.stats.bias import words
from sumjudge.stats.loo import votes_from_counts
from sumjudge.stats.matrix import corr_last, levels_stack
from sumjudge.stats.repeats import aggregate_samples
from sumjudge.tables.accuracy import decisions
from sumjudge.tables.settings import TableSettings

from . import verdict_adapter as adapter
from .known_judges import KINDS, Answers, Question, kinds_for
from .latent_truth import fit_dawid_skene, fit_likert

COPY = "~"     # a resampled document's copy number follows its id: "<id>~<k>"


@dataclass(frozen=True)
class Item:
    """One question of a dataset and its leaderboard columns."""

    q: Question
    gold: str
    variant: str
    columns: tuple[Column, ...]
    cells: np.ndarray | None = None      # Likert: slot -> (document, system) codes
    dec_slot: np.ndarray | None = None   # accuracy: decision -> slot, on the full set
    dec_gold: np.ndarray | None = None


@dataclass(frozen=True)
class Population:
    spec: DatasetSpec
    data: pd.DataFrame                   # the prepared table, unit_id as str
    items: tuple[Item, ...]
    kinds: tuple[str, ...]               # the judge kinds that apply to every question

    @property
    def pairwise(self) -> bool:
        return self.spec.proto.compares


# ----------------------------------------------------------------------------- the population

def _likert_item(spec: DatasetSpec, data: pd.DataFrame, dim: str) -> Item:
    lo, hi = spec.likert_scale
    names, lab = spec.annotators.matrix(data, dim) if spec.annotators and spec.annotators.layout == "wide" else (
        (), None)
    model = fit_likert(lab, (lo, hi)) if lab is not None and (~np.isnan(lab)).any(axis=0).sum() >= 2 else None
    n = len(data)
    q = Question(dim, data[dim].to_numpy(float), np.arange(lo, hi + 1, dtype=float), np.arange(n),
                 words(data[spec.proto.summary_columns[0]]), True, model)
    docs = pd.factorize(data[spec.cluster_column].astype(str), sort=True)[0]
    systems = pd.factorize(data[spec.system_column].astype(str), sort=True)[0]
    return Item(q, dim, "base", tuple(c for c in columns_of(spec) if c.dimension == dim), np.stack([docs, systems], 1))


def _label_reference(spec: DatasetSpec, data: pd.DataFrame, gold: str, votes, rng) -> np.ndarray:
    """The gold label; where the annotators have no majority, one of the tied labels at random."""
    ref = pd.to_numeric(data[gold], errors="coerce").to_numpy(float)
    if votes is None or not np.isnan(ref).any():
        return ref
    k = 3 if spec.proto.tie_answer is not None else 2
    counts = np.stack([(votes == c).sum(axis=1) for c in range(k)], axis=1) + rng.random((len(ref), k)) * 1e-3
    return np.where(np.isnan(ref), counts.argmax(axis=1), ref).astype(float)


def _label_model(spec: DatasetSpec, data: pd.DataFrame, gold: str, k: int):
    """(the annotators' labels per slot or None, the Dawid-Skene model or None)."""
    a = spec.annotators
    if a is None:
        return None, None
    if a.layout == "counts":
        yes, n = a.votes(data, gold, spec.proto.per_item)
        return None, fit_dawid_skene(votes_from_counts(yes, n), k, shared=True)
    _, votes = a.matrix(data, gold, spec.proto.per_item)
    return votes, fit_dawid_skene(votes, k, shared=not a.identified)


def _accuracy_item(spec: DatasetSpec, data: pd.DataFrame, col: Column, ts: TableSettings, rng) -> Item:
    k = 3 if spec.proto.tie_answer is not None else 2
    votes, model = _label_model(spec, data, col.gold, k)
    if spec.proto.per_item:
        n_items = data[col.gold].map(len).to_numpy()
        unit = np.repeat(np.arange(len(data)), n_items)
        ref = np.concatenate([np.asarray(v, dtype=float) for v in data[col.gold]])
        length = words(data[spec.proto.summary_columns[0]])[unit]
    else:
        unit = np.arange(len(data))
        ref = _label_reference(spec, data, col.gold, votes, rng)
        texts = spec.proto.summary_columns
        length = np.stack([words(data[t]) for t in texts], 1) if spec.proto.compares else words(data[texts[0]])
    dec = decisions(data, spec, col.gold, ts.pairwise_labels)
    if spec.proto.tie_answer is not None and ts.pairwise_ties == "decided":
        dec = dec[dec["gold"] != spec.proto.tie_answer].reset_index(drop=True)
    row_of = pd.Series(np.arange(len(data)), index=data["unit_id"])
    slot = np.arange(len(dec)) if spec.proto.per_item else row_of[dec["unit_id"]].to_numpy()
    q = Question(col.gold, ref, np.arange(k, dtype=float), unit, length, False, model)
    return Item(q, col.gold, col.variant, (col,), None, slot, dec["gold"].to_numpy(float))


def population(spec: DatasetSpec, data: pd.DataFrame, ts: TableSettings, seed: int = 0, names=None) -> Population:
    """The dataset's questions, their references and latent-truth models, and the kinds that apply."""
    data = data.assign(unit_id=data["unit_id"].astype(str)).reset_index(drop=True)
    rng = np.random.default_rng(seed)
    if spec.proto.per_dimension:
        items = [_likert_item(spec, data, d) for d in spec.dimensions]
    else:
        items = [_accuracy_item(spec, data, c, ts, rng) for c in columns_of(spec)]
    kinds = [k for k in KINDS if all(k in kinds_for(i.q, spec.proto.compares, names) for i in items)]
    return Population(spec, data, tuple(items), tuple(kinds))


# ----------------------------------------------------------------------------- draws

@dataclass(frozen=True)
class Draw:
    data: pd.DataFrame                   # the resampled table (documents renamed "<id>~<k>")
    slots: tuple[np.ndarray, ...]        # per item: the population slots of its answer slots, in order


def _slots(item: Item, rows: np.ndarray) -> np.ndarray:
    """The slots of ``rows`` (table rows, in order; a Pyramid row holds several)."""
    counts = np.bincount(item.q.unit, minlength=int(item.q.unit.max()) + 1)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    n = counts[rows]
    return np.repeat(starts[rows] - np.concatenate([[0], np.cumsum(n)[:-1]]), n) + np.arange(n.sum())


def resample(pop: Population, rng: np.random.Generator) -> Draw:
    """Documents (the resampling clusters) drawn with replacement, as many as there are; a
    document drawn twice is two documents (ids suffixed with its draw number). The summaries'
    texts stay behind (the length-biased judge read their lengths from the population; the
    leaderboard's length-bias columns are not measured)."""
    spec, data = pop.spec, pop.data
    codes, uniques = pd.factorize(data[spec.cluster_column].astype(str))
    members = np.argsort(codes, kind="stable")
    starts = np.searchsorted(codes[members], np.arange(len(uniques) + 1))
    pick = rng.integers(0, len(uniques), len(uniques))
    rows = np.concatenate([members[starts[p]:starts[p + 1]] for p in pick])
    copy = np.repeat(np.arange(len(pick)), starts[pick + 1] - starts[pick]).astype(str)
    out = data.iloc[rows].reset_index(drop=True).drop(columns=list(spec.proto.summary_columns), errors="ignore")
    for c in dict.fromkeys(["unit_id", spec.doc_column, spec.cluster_column]):
        out[c] = out[c].astype(str).to_numpy(dtype=object) + COPY + copy
    return Draw(out, tuple(_slots(i, rows) for i in pop.items))


def answers(pop: Population, draw: Draw, kinds, rng) -> dict[str, list[Answers]]:
    """Every kind's answers to every item of ``draw``."""
    return {k: [KINDS[k].draw(i.q, s, rng) for i, s in zip(pop.items, draw.slots)] for k in kinds}


# ----------------------------------------------------------------------------- truth

def _likert_truth(item: Item, copies: list[np.ndarray], ts: TableSettings, system_means: np.ndarray) -> dict:
    d, s = item.cells.max(axis=0) + 1
    judge = np.full((len(copies), d, s), np.nan)
    for c, a in enumerate(copies):
        judge[c, item.cells[:, 0], item.cells[:, 1]] = a
    human = np.full((d, s), np.nan)
    human[item.cells[:, 0], item.cells[:, 1]] = item.q.ref
    res = levels_stack(judge.reshape(-1, s), np.tile(human, (len(copies), 1)), ts.method, ts.undefined)
    hs = np.bincount(item.cells[:, 1], item.q.ref) / np.bincount(item.cells[:, 1])
    # to 9 decimals, so that summing in another order does not break a tie (the reference's own)
    res["system"] = corr_last(np.round(system_means, 9)[None], np.round(hs, 9)[None], ts.method)[0][0]
    return {c.name: float(res[c.level]) for c in item.columns}


def _copies(item: Item, kind: str, copies: int, rng, batch: int = 200_000) -> np.ndarray:
    """``copies x slots``: the kind's per-unit aggregate on fresh copies of the full set, asked
    many copies at a time (the slots of a batch are the full set repeated: the same answers in
    distribution, since no kind's underlying answer depends on the other units' answers)."""
    n = len(item.q.ref)
    per = max(1, batch // n)
    out = []
    for start in range(0, copies, per):
        c = min(per, copies - start)
        a = KINDS[kind].draw(item.q, np.tile(np.arange(n), c), rng).underlying
        out.append(aggregate_samples(a, "mean" if item.q.likert else "mode").reshape(c, n))
    return np.concatenate(out)


def _system_means(item: Item, kind: str, copies: int, rng) -> np.ndarray:
    """The systems' expected mean answers (the system level's limit), over ``copies`` fresh copies."""
    systems = item.cells[:, 1]
    return np.bincount(systems, _copies(item, kind, copies, rng).mean(axis=0)) / np.bincount(systems)


def _accuracy_truth(item: Item, spec: DatasetSpec, copies: list[np.ndarray], ts: TableSettings) -> dict:
    tie = spec.proto.tie_answer
    scores = []
    for a in copies:
        pred = a[item.dec_slot]
        c = correctness(pred, item.dec_gold, "drop")
        scores.append(score_ties(c, pred, item.dec_gold, tie, ts.pairwise_ties) if tie is not None else c)
    return {item.columns[0].name: float(np.nanmean(np.concatenate(scores)))}


TRUTH_ANSWERS = 100_000   # a true value is taken on at least this many answers
SYSTEM_COPIES = 2_000     # ... a system-level one on the systems' mean answers over this many copies


def truths(pop: Population, ts: TableSettings, copies: int = 20, seed: int = 0, min_answers: int = TRUTH_ANSWERS,
           system_copies: int = SYSTEM_COPIES) -> dict[tuple[str, str], float]:
    """{(kind, column): true value}: the column's statistic on copies of the full set (at least
    ``copies``, and at least ``min_answers`` answers; the system level: the systems' mean answers
    over ``system_copies``), each with the kind's fresh answers (its per-unit aggregate, abstentions
    answered). An uninformative kind's correlation is 0 by definition (its expected answers are the
    same for every unit), undefined where its answers never vary."""
    rng = np.random.default_rng(seed)
    out = {}
    for item in pop.items:
        n = max(copies, -(-min_answers // len(item.q.ref)))
        for k in pop.kinds:
            runs = _copies(item, k, n, rng)
            t = (_likert_truth(item, runs, ts, _system_means(item, k, system_copies, rng)) if item.q.likert
                 else _accuracy_truth(item, pop.spec, runs, ts))
            if item.q.likert and KINDS[k].uninformative:
                t = {c: v if np.isnan(v) else 0.0 for c, v in t.items()}
            out.update({(k, c): v for c, v in t.items()})
    return out


# ----------------------------------------------------------------------------- one draw's verdicts

def _labels(item: Item, a: np.ndarray, data: pd.DataFrame, per_item: bool) -> list:
    """One sample's answers as the judge table's label column (Pyramid: a list per unit, None
    for a unit it did not answer)."""
    if not per_item:
        return list(a)
    n = data[item.gold].map(len).to_numpy()
    parts = np.split(a, np.cumsum(n)[:-1])
    return [None if len(p) and np.isnan(p).all() else [None if np.isnan(v) else bool(v) for v in p]
            for p in parts]


def judge_frames(pop: Population, draw: Draw, given: dict[str, list[Answers]]) -> dict[tuple[str, str], pd.DataFrame]:
    """{(row, variant): judge table} in the judge stage's contract (unit_id, sample, status, labels)."""
    spec, ids, out = pop.spec, draw.data["unit_id"].to_numpy(), {}
    label = (lambda i: i.gold) if spec.proto.per_dimension else (lambda i: spec.label_columns[0])
    for row, per_item in given.items():
        for variant in dict.fromkeys(i.variant for i in pop.items):
            mine = [(i, a.samples) for i, a in zip(pop.items, per_item) if i.variant == variant]
            parts = [pd.DataFrame({"unit_id": ids, "sample": s, "status": "ok",
                                   **{label(i): _labels(i, a[:, s], draw.data, spec.proto.per_item) for i, a in mine}})
                     for s in range(mine[0][1].shape[1])]
            out[(row, variant)] = pd.concat(parts, ignore_index=True)
    return out


def focus_columns(pop: Population, draw_no: int) -> tuple[tuple[str, ...], set[str]]:
    """(the Likert dimension this draw measures, the columns whose values and ranks it measures):
    the dimensions take turns (draw k: dimension k mod D); an accuracy dataset's every column."""
    if not pop.spec.proto.per_dimension:
        return (), {c.name for i in pop.items for c in i.columns}
    item = pop.items[draw_no % len(pop.items)]
    return (item.gold,), {c.name for c in item.columns}


def run_draw(pop: Population, ts: TableSettings, board, draw_no: int, seed=0,
             ranked=()) -> tuple[list[dict], list[dict]]:
    """One draw: resample, ask every kind, run the verdicts (cells and significant pairs).
    ``seed``: an int or a tuple of ints; the draw's generator is seeded by it and ``draw_no``."""
    rng = np.random.default_rng([*np.atleast_1d(seed).tolist(), draw_no])
    draw = resample(pop, rng)
    frames = judge_frames(pop, draw, answers(pop, draw, pop.kinds, rng))
    runs = {key: adapter.judge_run(pop.spec, key[0], key[1], f) for key, f in frames.items()}
    dims, focus = focus_columns(pop, draw_no)
    facts = adapter.column_facts(pop.spec, draw.data, runs, ts, board, dims)
    cells, pairs = adapter.verdicts(facts, board, ts.correction, set(ranked) & set(pop.kinds), focus)
    for c in cells + pairs:
        c["draw"] = draw_no
    return cells, pairs
