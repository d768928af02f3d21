"""The leaderboard's columns from the files a run wrote (docs/statistics.md, "The judge
leaderboard"): per dataset, the in-memory inputs of :mod:`.inputs` built from its spec
and prepared table, its judge rows' answers (units x samples) and what each cell shows
beside its verdicts (the Tables 1-5 value, both orders, length bias, the samples), and
then the verdict path of :mod:`.frames`.

One computation per table kind, asked of the registry and the protocol objects: a
protocol scored per dimension gives three correlation columns per dimension (sample,
system, dataset); any other gives one accuracy column per question.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..datasets import DatasetSpec
from ..stats.matrix import LEVELS
from ..stats.repeats import aggregate_samples, sample_variance
from ..tables.accuracy import aligned_predictions, decisions
from ..tables.correlation import table_name
from ..tables.settings import TableSettings
from . import humans as hum
from .common import length_bias
from .evidence import DatasetEvidence, samples
from .frames import column
from .inputs import LabelInput, ScoreInput
from .verdicts import ColumnResult


@dataclass(frozen=True)
class Column:
    name: str            # as the page prints it (a paper column keeps the chart's name)
    dataset: str         # registry name
    table: str           # the Table 1-5 / own table it comes from
    label: str           # the dataset's label
    dimension: str
    level: str           # sample | system | dataset | accuracy
    gold: str            # the gold column of the human labels
    variant: str = "base"  # the prompt variant that answers it


def columns_of(spec: DatasetSpec) -> list[Column]:
    """The leaderboard columns of one dataset, from its spec."""
    table = table_name(spec)
    if spec.proto.per_dimension:
        return [Column(f"{spec.label} {d[:4]}. {lv}", spec.name, table, spec.label, d, lv, d)
                for d in sorted(spec.dimensions) for lv in LEVELS]
    qs = spec.accuracy_questions
    return [Column(spec.label if len(qs) == 1 else f"{spec.label} {dim}", spec.name, table, spec.label, dim,
                   "accuracy", gold, variant) for gold, dim, variant in qs]


def _rows(ev: DatasetEvidence, variant: str = "base"):
    return [(r, rr) for (r, v), rr in ev.rows.items() if v == variant]


def _repeats(m: np.ndarray) -> dict:
    return {"n_samples": m.shape[1], "sample_variance": sample_variance(m)[0] if m.shape[1] > 1 else np.nan}


# ------------------------------------------------------------------ correlation columns (per dimension)

def score_input(spec: DatasetSpec, data, dim: str) -> ScoreInput:
    a = spec.annotators
    names, lab = (a.matrix(data, dim) if a is not None and a.identified else ((), None))
    human = "" if lab is not None else ("one score per unit: no leave-one-out human row" if a is None else
                                        "anonymous rating slots: no leave-one-out row (their order within a unit "
                                        "is arbitrary)")
    return ScoreInput(spec.name, spec.label, dim, data[spec.cluster_column].astype(str).to_numpy(),
                      data[spec.system_column].astype(str).to_numpy(), data[dim].to_numpy(float), lab, tuple(names),
                      tuple(float(x) for x in spec.likert_scale), hum.why_not_tested(spec), table_name(spec), human)


def likert_columns(ev: DatasetEvidence, dim: str, ts: TableSettings, board) -> ColumnResult:
    """The three columns (sample, system, dataset) of one dimension."""
    spec, data = ev.spec, ev.data
    inp = score_input(spec, data, dim)
    answers, extras = {}, {}
    for r, rr in _rows(ev):
        m = samples(rr.run, rr.column(dim), data["unit_id"])
        answers[r] = m
        lb = length_bias(spec, data, aggregate_samples(m, "mean"), board.longer_margin)
        extras[r] = {lv: {**_repeats(m), **lb, "judge": rr.judge,
                          "table_value": ev.cell(r, dim, lv).get("value", np.nan)} for lv in LEVELS}
    res = column(inp, answers, ts, board, extras)
    if inp.annotators is not None:
        biases = {n: length_bias(spec, data, inp.annotators[:, k], board.longer_margin) for k, n in enumerate(inp.names)}
        res.cells = [{**c, **biases.get(c.get("annotator"), {})} if c["kind"] == "human" else c for c in res.cells]
    return res


# ------------------------------------------------------------------ accuracy columns (per question)

def label_input(spec: DatasetSpec, data, col: Column, ts: TableSettings) -> tuple[LabelInput, object]:
    """The column's input and its units (a frame with ``unit_id``: the rows, or a per-item protocol's items)."""
    units = hum.unit_decisions(data, spec, col.gold)
    a = spec.annotators
    if spec.proto.per_item:
        dec_unit, gold, clusters = np.arange(len(units)), units["gold"].to_numpy(float), units["cluster"].to_numpy()
    else:
        dec = decisions(data, spec, col.gold, ts.pairwise_labels)
        pos = {u: i for i, u in enumerate(units["unit_id"])}
        dec_unit, gold = dec["unit_id"].map(pos).to_numpy(int), dec["gold"].to_numpy(float)
        clusters = data[spec.cluster_column].astype(str).to_numpy()
    names, votes = a.matrix(data, col.gold, spec.proto.per_item) if a is not None and a.identified else ((), None)
    counts = a.votes(data, col.gold, spec.proto.per_item) if a is not None and not a.identified else None
    human = ("one label per unit: no leave-one-out human row" if a is None else
             "anonymous votes with a tie answer: no leave-one-out row" if not a.identified
             and spec.proto.tie_answer is not None else "")
    return LabelInput(spec.name, spec.label, col.name, np.asarray(clusters).astype(str),
                      hum.reference(data, spec, col.gold, units), dec_unit, gold, votes, tuple(names), counts,
                      spec.proto.tie_answer, hum.why_not_tested(spec), col.table, col.dimension, human), units


def accuracy_column(ev: DatasetEvidence, col: Column, ts: TableSettings, board) -> ColumnResult:
    spec, data = ev.spec, ev.data
    inp, units = label_input(spec, data, col, ts)
    label = spec.label_columns[0]
    answers, extras = {}, {}
    for r, rr in _rows(ev, col.variant):
        m = samples(rr.run, label, units["unit_id"], lambda s, _rr=rr: aligned_predictions(s, units, spec, _rr.run.path))
        answers[r] = m
        lb = {} if spec.proto.per_item else length_bias(spec, data, aggregate_samples(m, "mode"), board.longer_margin)
        extras[r] = {**_repeats(m), **hum.orders(ev, rr, col), **lb, "judge": rr.judge,
                     "table_value": ev.cell(r, col.dimension, col.level).get("value", np.nan)}
    res = column(inp, answers, ts, board, extras)
    if not spec.proto.per_item and inp.annotators is None:   # the one label per unit: its length bias
        lb = length_bias(spec, data, inp.reference, board.longer_margin)
        res.cells = [{**c, **lb} if c["kind"] == "human" else c for c in res.cells]
    return res


def dataset_columns(ev: DatasetEvidence, ts: TableSettings, board) -> list[ColumnResult]:
    """Every column of one dataset, in the registry's order (``board``: LeaderboardSettings)."""
    if ev.spec.proto.per_dimension:
        return [likert_columns(ev, d, ts, board) for d in sorted(ev.spec.dimensions)]
    return [accuracy_column(ev, c, ts, board) for c in columns_of(ev.spec)]
