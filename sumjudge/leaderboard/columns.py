"""The leaderboard's columns and, per column, the facts its verdicts are drawn from
(docs/statistics.md, "The judge leaderboard").

One computation per table kind, asked of the registry and the protocol objects: a
protocol scored per dimension gives three correlation columns per dimension (sample,
system, dataset); any other gives one accuracy column per question. Every dataset of the
run brings its columns, built-in or a user's. Per column and judge row: its table cell,
how many units it answered validly, its answers' modal share, its value on the humans'
leave-one-out ruler, the paired test against every other row and the alt-test's inputs;
per column, the human rows.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..datasets import DatasetSpec
from ..stats.accuracy import correctness, score_ties
from ..stats.gates import modal_share
from ..stats.matrix import LEVELS
from ..stats.paired import cluster_paired_accuracy
from ..stats.permutation import paired_correlation_test
from ..tables.accuracy import aligned_predictions, decisions
from ..tables.correlation import table_name
from ..tables.settings import TableSettings
from . import humans as hum
from . import repeats as rep
from .common import frame, length_bias, matrix
from .evidence import DatasetEvidence, RowRun, samples


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

    @property
    def alt_key(self) -> str:
        """The alt-test's column: a scored dimension once (its units), an accuracy column itself."""
        return self.name if self.level == "accuracy" else f"{self.label} {self.dimension}"


def columns_of(spec: DatasetSpec) -> list[Column]:
    """The leaderboard columns of one dataset, from its spec."""
    table = table_name(spec)
    if spec.proto.per_dimension:
        return [Column(f"{spec.label} {d[:4]}. {lv}", spec.name, table, spec.label, d, lv, d)
                for d in sorted(spec.dimensions) for lv in LEVELS]
    qs = spec.accuracy_questions
    return [Column(spec.label if len(qs) == 1 else f"{spec.label} {dim}", spec.name, table, spec.label, dim,
                   "accuracy", gold, variant) for gold, dim, variant in qs]


@dataclass
class JudgeFacts:
    """One judge row in one column, before any verdict."""

    row: str
    judge: str
    cell: dict                       # value, n, ci_low, ci_high (the table's)
    n_units: int                     # the units (or decisions) of the column
    n_valid: int                     # ... the row answered validly (after aggregating its samples)
    modal_share: float               # of its valid answers
    loo_value: float = float("nan")
    extra: dict = field(default_factory=dict)   # orders, repeats, length bias
    answers: np.ndarray | None = None           # per alt-test unit (NaN: no valid answer)


@dataclass
class ColumnFacts:
    column: Column
    judges: dict[str, JudgeFacts]
    humans: list[dict]                           # the human rows (leave-one-out or a note)
    test: Callable[[str, str], object]           # paired test of two rows on their common units
    people: hum.People | None = None             # gate labels, the alt-test's annotators (None: none, why)

    @property
    def alt(self) -> hum.AltInputs | None:
        return self.people.alt if self.people else None

    @property
    def note(self) -> str:
        return self.people.note if self.people else ""


# ------------------------------------------------------------------ correlation columns (per dimension)

def likert_columns(ev: DatasetEvidence, dim: str, ts: TableSettings, board) -> list[ColumnFacts]:
    """The three columns (sample, system, dataset) of one dimension."""
    spec, data, margin = ev.spec, ev.data, board.longer_margin
    d2, docs, systems = frame(spec, data)
    human = matrix(d2, data[dim].to_numpy(float), docs, systems)
    m = {r: samples(rr.run, rr.column(dim), data["unit_id"]) for r, rr in _rows(ev)}   # units x samples
    per_row = {r: rep.aggregate(v, "score") for r, v in m.items()}
    jm = {r: matrix(d2, v, docs, systems) for r, v in per_row.items()}
    people = hum.likert_humans(spec, data, dim, d2, docs, systems, jm, ts, margin)
    cache: dict = {}

    def test(a, b):
        if (a, b) not in cache:
            cache[(a, b)] = paired_correlation_test(jm[a], jm[b], human, ts.permutation_resamples, ts.seed,
                                                    ts.method, ts.undefined, ts.permutation_by_level())
        return cache[(a, b)]

    reps = {r: rep.likert_repeats(v, d2, docs, systems, human, ts) for r, v in m.items()}
    out = []
    for col in [c for c in columns_of(spec) if c.dimension == dim]:
        judges = {r: _likert_judge(ev, r, rr, col, per_row[r], people, reps[r][col.level], margin)
                  for r, rr in _rows(ev)}
        out.append(ColumnFacts(col, judges, people.rows(col.level), lambda a, b, _lv=col.level: test(a, b)[_lv],
                               people))
    return out


def _rows(ev: DatasetEvidence, variant: str = "base"):
    return [(r, rr) for (r, v), rr in ev.rows.items() if v == variant]


def _likert_judge(ev, row, rr: RowRun, col: Column, agg, people, reps: dict, margin) -> JudgeFacts:
    valid = ~np.isnan(agg)
    extra = {**reps, **length_bias(ev.spec, ev.data, agg, margin)}
    return JudgeFacts(row, rr.judge, ev.cell(row, col.dimension, col.level), len(agg), int(valid.sum()),
                      modal_share(agg), people.judge_loo(row, col.level), extra, agg)


# ------------------------------------------------------------------ accuracy columns (per question)

def accuracy_column(ev: DatasetEvidence, col: Column, ts: TableSettings, board) -> ColumnFacts:
    spec, data, margin = ev.spec, ev.data, board.longer_margin
    tie = spec.proto.tie_answer
    dec = decisions(data, spec, col.gold, ts.pairwise_labels)
    if tie is not None and ts.pairwise_ties == "decided":
        dec = dec[dec["gold"] != tie].reset_index(drop=True)
    gold, clusters = dec["gold"].to_numpy(float), dec["cluster"].to_numpy()
    label = spec.label_columns[0]
    rows = _rows(ev, col.variant)
    correct, reps = {}, {}
    for r, rr in rows:
        m = samples(rr.run, label, dec["unit_id"], lambda s, _rr=rr: aligned_predictions(s, dec, spec, _rr.run.path))
        pred = rep.aggregate(m, "label")
        c = correctness(pred, gold, "drop")
        correct[r] = score_ties(c, pred, gold, tie, ts.pairwise_ties) if tie is not None else c
        reps[r] = rep.accuracy_repeats(m, correct[r], clusters, ts)
    units = hum.unit_decisions(data, spec, col.gold)
    answers = {r: rep.aggregate(samples(rr.run, label, units["unit_id"],
                                        lambda s, _rr=rr: aligned_predictions(s, units, spec, _rr.run.path)),
                                "label") for r, rr in rows}
    people = hum.label_humans(spec, data, col, answers, ts, margin, board.alt_test.min_instances, units)
    judges = {}
    for r, rr in rows:
        extra = {**reps[r], **hum.orders(ev, rr, col),
                 **(length_bias(spec, data, answers[r], margin) if not spec.proto.per_item else {})}
        judges[r] = JudgeFacts(r, rr.judge, ev.cell(r, col.dimension, col.level), len(answers[r]),
                               int((~np.isnan(answers[r])).sum()), modal_share(answers[r]), people.judge_loo(r),
                               extra, answers[r])

    def test(a, b):
        return cluster_paired_accuracy(correct[a], correct[b], clusters, ts.permutation_resamples, ts.seed)

    return ColumnFacts(col, judges, people.rows(), test, people)


def dataset_columns(ev: DatasetEvidence, ts: TableSettings, board) -> list[ColumnFacts]:
    """Every column of one dataset, in the registry's order (``board``: LeaderboardSettings)."""
    if ev.spec.proto.per_dimension:
        return [f for d in sorted(ev.spec.dimensions) for f in likert_columns(ev, d, ts, board)]
    return [accuracy_column(ev, c, ts, board) for c in columns_of(ev.spec)]
