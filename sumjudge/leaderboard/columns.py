"""The leaderboard's columns from the files a run wrote (docs/statistics.md, "The judge
leaderboard"): per dataset, the in-memory inputs of :mod:`sumjudge.evidence.columns` built from
its spec and prepared table, its judge rows' answers (units x samples) and what each cell shows
beside its verdicts (the Tables 1-5 value, both orders, length bias, the samples), and
then the verdict path of :mod:`.frames`.

One computation per table kind, asked of the registry and the protocol objects: a
protocol scored per dimension gives three correlation columns per dimension (sample,
system, dataset); any other gives one accuracy column per question.
"""
from __future__ import annotations

import numpy as np

from ..evidence import humans as hum
from ..evidence.columns import Column, columns_of, label_input, score_input
from ..evidence.labels import aligned_predictions
from ..evidence.runs import samples
from ..evidence.settings import TableSettings
from ..stats.matrix import LEVELS
from ..stats.repeats import aggregate_samples, sample_variance
from .common import length_bias
from .evidence import DatasetEvidence
from .frames import column
from .settings import LeaderboardSettings
from .verdicts import ColumnResult


def _rows(ev: DatasetEvidence, variant: str = "base"):
    return [(r, rr) for (r, v), rr in ev.rows.items() if v == variant]


def _repeats(m: np.ndarray) -> dict:
    return {"n_samples": m.shape[1], "sample_variance": sample_variance(m)[0] if m.shape[1] > 1 else np.nan}


# ------------------------------------------------------------------ correlation columns (per dimension)


def likert_columns(ev: DatasetEvidence, dim: str, ts: TableSettings, board: LeaderboardSettings) -> ColumnResult:
    """The three columns (sample, system, dataset) of one dimension."""
    spec, data = ev.spec, ev.data
    inp = score_input(spec, data, dim)
    answers, extras = {}, {}
    for r, rr in _rows(ev):
        m = samples(rr.run_for(dim), rr.column(dim), data["unit_id"])
        answers[r] = m
        lb = length_bias(spec, data, aggregate_samples(m, "mean"), board.longer_margin)
        extras[r] = {lv: {**_repeats(m), **lb, "judge": rr.judge,
                          "table_value": ev.cell(r, dim, lv).get("value", np.nan), **rr.cell_fields.get((dim, lv), {})}
                     for lv in LEVELS}
    res = column(inp, answers, ts, board, extras)
    if inp.annotators is not None:
        biases = {n: length_bias(spec, data, inp.annotators[:, k], board.longer_margin) for k, n in enumerate(inp.names)}
        res.cells = [{**c, **biases.get(c.get("annotator"), {})} if c["kind"] == "human" else c for c in res.cells]
    return res


# ------------------------------------------------------------------ accuracy columns (per question)


def accuracy_column(ev: DatasetEvidence, col: Column, ts: TableSettings, board: LeaderboardSettings) -> ColumnResult:
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


def dataset_columns(ev: DatasetEvidence, ts: TableSettings, board: LeaderboardSettings) -> list[ColumnResult]:
    """Every column of one dataset, in the registry's order."""
    if ev.spec.proto.per_dimension:
        return [likert_columns(ev, d, ts, board) for d in sorted(ev.spec.dimensions)]
    return [accuracy_column(ev, c, ts, board) for c in columns_of(ev.spec)]
