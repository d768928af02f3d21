"""The calibration run of the verdicts (docs/statistics.md, "Calibration of the verdicts"):
a dataset's real units as the population, draws that resample its documents and ask every
known judge (tests/support/known_judges.py) afresh, each judge's true value per column, and one
draw's verdicts (through tests/support/verdict_adapter.py, the only module that calls them).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from sumjudge.datasets import DatasetSpec
from sumjudge.evidence.columns import Column, columns_of
from sumjudge.evidence.inputs import LabelInput, ScoreInput
from sumjudge.stats.accuracy import correctness, score_ties
from sumjudge.stats.bias import words
from sumjudge.stats.completion import worst_answers
from sumjudge.stats.loo import votes_from_counts
from sumjudge.stats.matrix import corr_last, levels_stack
from sumjudge.stats.repeats import aggregate_samples
from sumjudge.evidence.labels import decisions
from sumjudge.evidence.settings import TableSettings

from . import verdict_adapter as adapter
from .calibration_rates import EXCHANGEABLE
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

def _grid(item: Item, copies: np.ndarray) -> np.ndarray:
    """``copies x slots`` as one (copies x documents) x systems matrix: each copy its own documents."""
    d, s = item.cells.max(axis=0) + 1
    out = np.full((len(copies), d, s), np.nan)
    out[:, item.cells[:, 0], item.cells[:, 1]] = copies
    return out.reshape(-1, s)


def _scored(item: Item, copies: np.ndarray) -> np.ndarray:
    """Likert: a unit without a valid answer takes the verdicts' rule at the sample and dataset
    levels, the scale's end farthest from the reference (stats.completion.worst_answers)."""
    worst = worst_answers(item.q.ref, item.q.values[0], item.q.values[-1])
    return np.where(np.isnan(copies), worst[None, :], copies)


def _likert_truth(item: Item, copies: np.ndarray, ts: TableSettings, system_means: np.ndarray | None) -> dict:
    """The sample and dataset levels on the copies stacked; the system level the correlation of
    ``system_means`` with the humans' (None: left to the caller, :func:`_system_statistic`)."""
    human = _grid(item, item.q.ref[None, :])
    res = levels_stack(_grid(item, _scored(item, copies)), np.tile(human, (len(copies), 1)), ts.method, ts.undefined)
    if system_means is not None:
        hs = np.bincount(item.cells[:, 1], item.q.ref) / np.bincount(item.cells[:, 1])
        # to 9 decimals, so that summing in another order does not break a tie (the reference's own)
        res["system"] = corr_last(np.round(system_means, 9)[None], np.round(hs, 9)[None], ts.method)[0][0]
    return {c.name: float(res[c.level]) for c in item.columns if system_means is not None or c.level != "system"}


def _system_column(item: Item) -> str:
    return next(c.name for c in item.columns if c.level == "system")


def _copies(item: Item, kind: str, copies: int, rng, batch: int = 200_000) -> tuple[np.ndarray, np.ndarray]:
    """(answered, given), each ``copies x slots``: the kind's per-unit aggregate on fresh copies
    of the full set, of the answers it would have given and of its valid answers (NaN: none).
    Asked many copies at a time (the slots of a batch are the full set repeated: the same answers
    in distribution, since no kind's underlying answer depends on the other units' answers); a
    kind that abstains one copy at a time (it abstains on the worst units of each copy, where a
    batch would pool a unit's copies)."""
    n, how = len(item.q.ref), "mean" if item.q.likert else "mode"
    per = 1 if KINDS[kind].abstains else max(1, batch // n)
    answered, given = [], []
    for start in range(0, copies, per):
        c = min(per, copies - start)
        a = KINDS[kind].draw(item.q, np.tile(np.arange(n), c), rng)
        answered.append(aggregate_samples(a.underlying, how).reshape(c, n))
        given.append(aggregate_samples(a.samples, how).reshape(c, n) if KINDS[kind].abstains else answered[-1])
    return np.concatenate(answered), np.concatenate(given)


def _accuracy_truth(item: Item, spec: DatasetSpec, copies: np.ndarray, ts: TableSettings) -> dict:
    """The expected accuracy; a decision without a valid answer is wrong (the verdicts' rule)."""
    tie = spec.proto.tie_answer
    pred = copies[:, item.dec_slot].ravel()
    gold = np.tile(item.dec_gold, len(copies))
    c = correctness(pred, gold, "wrong")
    c = score_ties(c, pred, gold, tie, ts.pairwise_ties) if tie is not None else c
    return {item.columns[0].name: float(np.nanmean(np.where(np.isnan(pred) & ~np.isnan(c), 0.0, c)))}


TRUTH_ANSWERS = 100_000   # a true value is taken on at least this many answers
SYSTEM_COPIES = 400       # ... a system-level one: the mean of the statistic over this many draws of documents


def _system_statistic(item: Item, copies: np.ndarray, ts: TableSettings, rng) -> float:
    """The system level's estimand: the Monte Carlo mean, over ``copies`` (fresh answers, copies
    x slots), of the system-level correlation on a draw of as many documents as the dataset has
    (with replacement, as a calibration draw), the systems fixed: the correlation a benchmark of
    this size gives for these systems (issue 40; Deutsch, Dror and Roth 2021)."""
    d, s = item.cells.max(axis=0) + 1
    judge = np.full((len(copies), d, s), np.nan)
    judge[:, item.cells[:, 0], item.cells[:, 1]] = copies
    human = np.full((d, s), np.nan)
    human[item.cells[:, 0], item.cells[:, 1]] = item.q.ref
    pick = rng.integers(0, d, (len(copies), d))
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        jm = np.nanmean(judge[np.arange(len(copies))[:, None], pick], axis=1)
        hm = np.nanmean(human[pick], axis=1)
        r = corr_last(np.round(jm, 9), np.round(hm, 9), ts.method)[0]
        return float(np.nanmean(r)) if np.isfinite(r).any() else float("nan")   # never varies: undefined


def _item_truths(pop: Population, item: Item, kind: str, n: int, system_copies: int, ts: TableSettings,
                 rng) -> tuple[dict, dict]:
    """(scored, answered) truths of one kind in one item's columns (the system level:
    :func:`_system_statistic` over ``system_copies``; an invalid answer there scored as the
    sample level scores it, the scale's end farthest from the reference)."""
    answered, given = _copies(item, kind, n, rng)
    if item.q.likert:
        sys_answered, sys_given = _copies(item, kind, system_copies, rng)
        out = _likert_truth(item, given, ts, None), _likert_truth(item, answered, ts, None)
        out[0][_system_column(item)] = _system_statistic(item, _scored(item, sys_given), ts, rng)
        out[1][_system_column(item)] = _system_statistic(item, sys_answered, ts, rng)
        if KINDS[kind].uninformative:
            out = tuple({c: v if np.isnan(v) else 0.0 for c, v in t.items()} for t in out)
        return out
    return _accuracy_truth(item, pop.spec, given, ts), _accuracy_truth(item, pop.spec, answered, ts)


def truths(pop: Population, ts: TableSettings, copies: int = 20, seed: int = 0, min_answers: int = TRUTH_ANSWERS,
           system_copies: int = SYSTEM_COPIES) -> tuple[dict[tuple[str, str], float], dict[tuple[str, str], float]]:
    """(scored, answered), each {(kind, column): true value}: the column's statistic on copies of
    the full set (at least ``copies``, and at least ``min_answers`` answers; the system level: its
    mean over ``system_copies`` draws of documents, :func:`_system_statistic`), each with the kind's fresh answers (its per-unit
    aggregate). ``scored``: the verdicts' estimand, a unit without a valid answer scored by their
    rule (a score's worst answer, the system level's completion, a wrong label); ``answered``: the
    answers an abstaining kind would have given (the same for every other kind). An uninformative
    kind's correlation is 0 by definition (its expected answers are the same for every unit),
    undefined where its answers never vary."""
    rng = np.random.default_rng(seed)
    scored, answered = {}, {}
    for item in pop.items:
        n = max(copies, -(-min_answers // len(item.q.ref)))
        for k in pop.kinds:
            s, a = _item_truths(pop, item, k, n, system_copies, ts, rng)
            scored.update({(k, c): v for c, v in s.items()})
            answered.update({(k, c): v for c, v in a.items()})
    return scored, answered


# ----------------------------------------------------------------------------- one draw's verdicts

def measured(pop: Population, draw_no: int) -> set[int]:
    """The items whose values, intervals and ranks draw ``draw_no`` measures: a Likert dataset's
    dimensions take turns (draw k: dimension k mod D); an accuracy dataset's every question."""
    if not pop.spec.proto.per_dimension:
        return set(range(len(pop.items)))
    return {draw_no % len(pop.items)}


def run_draw(pop: Population, ts: TableSettings, board, draw_no: int, seed=0,
             ranked=()) -> tuple[list[dict], list[dict]]:
    """One draw: resample, ask every kind, run the verdicts (cells and significant pairs).
    ``seed``: an int or a tuple of ints; the draw's generator is seeded by it and ``draw_no``."""
    rng = np.random.default_rng([*np.atleast_1d(seed).tolist(), draw_no])
    draw = resample(pop, rng)
    given = answers(pop, draw, pop.kinds, rng)
    inputs = [adapter.verdict_input(pop.spec, draw.data, i.q.name if i.q.likert else i.columns[0], ts)
              for i in pop.items]
    per_input = [{k: given[k][n].samples for k in pop.kinds} for n in range(len(pop.items))]
    cells, pairs = adapter.verdicts(inputs, per_input, measured(pop, draw_no), set(ranked) & set(pop.kinds), ts,
                                    board)
    for c in cells + pairs:
        c["draw"] = draw_no
    return cells, pairs


# ----------------------------------------------------------------------------- positive controls

HELD_OUT = "held-out "   # a held-out annotator's row: "held-out <name>"


def held_out(inp, k: int):
    """(``inp`` without annotator ``k`` on the units ``k`` labelled, ``k``'s labels there) or None
    where fewer than 2 units remain: a real annotator entered as the judge against the others,
    the positive control of the verdicts (no leakage: nothing of ``k`` is in the comparison;
    a score's reference is the others' mean; a label's decisions stay the dataset's)."""
    lab = inp.annotators
    mine = ~np.isnan(lab[:, k])
    if mine.sum() < 2:
        return None
    keep = [j for j in range(lab.shape[1]) if j != k]
    rest, names = lab[mine][:, keep], tuple(inp.names[j] for j in keep)
    if isinstance(inp, ScoreInput):
        cnt = (~np.isnan(rest)).sum(axis=1)
        ref = np.where(cnt > 0, np.nansum(rest, axis=1) / np.maximum(cnt, 1), np.nan)
        return replace(inp, docs=inp.docs[mine], systems=inp.systems[mine], reference=ref, annotators=rest,
                       names=names), lab[mine, k]
    on = mine[inp.dec_unit]
    new_unit = np.cumsum(mine) - 1
    return replace(inp, clusters=inp.clusters[mine], reference=inp.reference[mine], annotators=rest, names=names,
                   dec_unit=new_unit[inp.dec_unit[on]], dec_gold=inp.dec_gold[on]), lab[mine, k]


def positive_controls(pop: Population) -> bool:
    """Whether the dataset's annotators are identified, one column each (each can be held out)."""
    a = pop.spec.annotators
    return a is not None and a.identified and a.layout == "wide"


def run_held_out(pop: Population, ts: TableSettings, board, draw_no: int, seed=0) -> list[dict]:
    """One draw's positive controls: the draw of :func:`run_draw` (same documents), each annotator
    in turn held out and entered as the judge against the others on every question (one
    family per dataset), its verdicts' cells (alt-test and closeness; the row ``held-out <name>``)."""
    rng = np.random.default_rng([*np.atleast_1d(seed).tolist(), draw_no])
    draw = resample(pop, rng)
    inputs = [adapter.verdict_input(pop.spec, draw.data, i.q.name if i.q.likert else i.columns[0], ts)
              for i in pop.items]
    quick = replace(ts, bootstrap_resamples=max(50, ts.bootstrap_resamples // 4))
    cells = []
    for k, name in enumerate(inputs[0].names):
        parts = [held_out(inp, k) for inp in inputs]
        pairs = [(p[0], {f"{HELD_OUT}{name}": p[1]}) for p in parts if p is not None]
        if pairs:
            cells += adapter.held_out_cells(pairs, quick, board)
    for c in cells:
        c["draw"] = draw_no
    return cells


# ----------------------------------------------------------------------------- a simulated, exchangeable annotator



def simulated_panel(item: Item, inp, slots: np.ndarray, rng, labels: str = "every"):
    """(``inp`` with its annotators replaced by a simulated panel, the simulated judge's answers)
    on the units ``slots`` (population slots of ``inp``'s units, in order), or None where the
    question has no fitted model or no identified annotators (latent_truth: ``panel``). Of the
    real annotators only which units each labelled is read: the panel labels the same units, the
    reference is the panel's mean (a pairwise label: its majority, and the decisions are the
    panel's labels, ``labels`` as ``tables.pairwise_labels``), and the judge, one more typical annotator of the same
    latent truth, is compared with the panel and never with the labels that truth was fitted on."""
    model = item.q.model
    if model is None or inp.annotators is None or getattr(inp, "counts", None) is not None:
        return None
    cols = getattr(model, "columns", None)
    cols = np.arange(inp.annotators.shape[1]) if cols is None else cols
    lab, judge = model.panel(slots, ~np.isnan(inp.annotators[:, cols]), rng)
    panel = np.full(inp.annotators.shape, np.nan)
    panel[:, cols] = lab
    if isinstance(inp, ScoreInput):  # the reference: the panel's mean, as ScoreInput.of takes it
        ref = ScoreInput.of(panel, inp.docs, inp.systems, inp.scale).reference
        return replace(inp, reference=ref, annotators=panel), judge
    built = LabelInput.of(panel, inp.clusters, decisions=labels)  # the panel's majority and decisions
    return replace(inp, reference=built.reference, annotators=panel, dec_unit=built.dec_unit,
                   dec_gold=built.dec_gold), judge


def run_exchangeable(pop: Population, ts: TableSettings, board, draw_no: int, seed=0) -> list[dict]:
    """One draw's leak-free informative judge (the power of an exchangeable annotator): the draw
    of :func:`run_draw` (same documents), on every scored question a simulated panel and judge
    (:func:`simulated_panel`), the judge's verdicts against the panel (one family per dataset;
    the row ``exchangeable``), on the datasets with held-out annotators (:func:`positive_controls`)."""
    if not positive_controls(pop):
        return []
    rng = np.random.default_rng([*np.atleast_1d(seed).tolist(), draw_no])
    draw = resample(pop, rng)
    pairs = []
    for item, slots in zip(pop.items, draw.slots):
        inp = adapter.verdict_input(pop.spec, draw.data, item.q.name if item.q.likert else item.columns[0], ts)
        sim = simulated_panel(item, inp, slots, rng, ts.pairwise_labels)
        if sim is not None:
            pairs.append((sim[0], {EXCHANGEABLE: sim[1]}))
    quick = replace(ts, bootstrap_resamples=max(50, ts.bootstrap_resamples // 4))
    cells = adapter.held_out_cells(pairs, quick, board) if pairs else []
    for c in cells:
        c["draw"] = draw_no
    return cells
