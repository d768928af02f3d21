"""The humans of a column, from the registry's annotators (``DatasetSpec.annotators``):
their leave-one-out rows, the judges on the same ruler, the labels the near-constant gate
compares with, and the alt-test's annotators (docs/statistics.md, "Annotators" and
"The judge leaderboard").

Persons and workers are people: one leave-one-out row each (:func:`sumjudge.stats.loo.loo_likert`
for scores, :func:`sumjudge.stats.loo.loo_column` for labels: the judge scored against the same
references as the left-out annotator; a worker with fewer than
``min_instances`` units shared with another annotator gets no row, counted in the note), and
the alt-test runs against them. Anonymous votes have no identity: one row by the order-free
exchangeable rule (:func:`sumjudge.stats.loo.loo_exchangeable`), anonymous rating slots none;
no alt-test (the page says why). A dataset with one label per unit has no human row, a note.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..datasets import DatasetSpec
from ..stats.loo import loo_column, loo_exchangeable, loo_likert
from ..stats.orders import both_orders
from ..tables.accuracy import decisions
from ..tables.settings import TableSettings
from .common import length_bias, matrix
from .evidence import samples
from .repeats import aggregate

SCORE_LEVELS = ("sample", "system", "dataset")


@dataclass(frozen=True)
class AltInputs:
    """The alt-test's annotators of one column: names and their labels per unit (NaN: not labelled)."""

    names: tuple[str, ...]
    labels: np.ndarray
    groups: np.ndarray | None = None     # per unit, its document (the `rank` score ranks within it)


@dataclass
class People:
    by_level: dict[str, list[dict]]
    gate_labels: np.ndarray                  # per unit: each annotator's labels (N x A) or the reference (N)
    gate_reference: np.ndarray | None = None  # the reference beside the annotators
    judges: dict[str, dict[str, float]] = field(default_factory=dict)   # row -> level -> LOO value
    alt: AltInputs | None = None
    note: str = ""

    def rows(self, level: str = "accuracy") -> list[dict]:
        return self.by_level.get(level, [])

    def judge_loo(self, row: str, level: str = "accuracy") -> float:
        return float(self.judges.get(row, {}).get(level, np.nan))


def why_not_tested(spec: DatasetSpec) -> str:
    a = spec.annotators
    if a is None:
        return "one label per unit, no annotator to compare with"
    return f"anonymous annotators ({a.note or 'no identity'})" if not a.identified else ""


def _human(label: str, name: str, value: float, n: int, **extra) -> dict:
    return {"row": f"{label} annotator {name} (LOO)", "kind": "human", "value": value, "n": n, "loo_value": value,
            **extra}


def _note(spec: DatasetSpec, text: str, levels, **extra) -> dict:
    row = {"row": f"{spec.label} humans", "kind": "human", "value": np.nan, "note": text, **extra}
    return {lv: [row] for lv in levels}


def likert_humans(spec: DatasetSpec, data, dim, d2, docs, systems, jm, ts: TableSettings, margin) -> People:
    a, ref = spec.annotators, data[dim].to_numpy(float)
    if a is None or not a.identified:
        text = ("one score per unit: no leave-one-out human row" if a is None else
                "anonymous rating slots: no leave-one-out row (their order within a unit is arbitrary)")
        return People(_note(spec, text, SCORE_LEVELS), ref, note=why_not_tested(spec))
    names, lab = a.matrix(data, dim)
    stack = np.stack([matrix(d2, lab[:, k], docs, systems) for k in range(len(names))])
    # each judge on the cells the left-out annotator and the reference have, its invalid cells left out
    res = loo_likert(stack, jm, ts.method, ts.undefined)
    rows = {lv: [_human(spec.label, n, res.annotators[lv][k], res.n_cells[k],
                        **length_bias(spec, data, lab[:, k], margin)) for k, n in enumerate(names)]
            for lv in SCORE_LEVELS}
    alt = AltInputs(tuple(names), lab, data[spec.cluster_column].astype(str).to_numpy())
    return People(rows, lab, ref, res.judges, alt)


def unit_decisions(data: pd.DataFrame, spec: DatasetSpec, gold: str) -> pd.DataFrame:
    """The alt-test's units of an accuracy column: one per unit, or per item (an SCU)."""
    if spec.proto.per_item:
        return decisions(data, spec, gold)
    return pd.DataFrame({"unit_id": data["unit_id"].astype(str)})


def _reference(data, spec: DatasetSpec, gold: str, units: pd.DataFrame) -> np.ndarray:
    """The gold label per alt-test unit (``units``: :func:`unit_decisions`)."""
    if spec.proto.per_item:
        return units["gold"].to_numpy(float)
    return pd.to_numeric(data[gold], errors="coerce").to_numpy(float)


def label_humans(spec: DatasetSpec, data, col, answers: dict, ts: TableSettings, margin,
                 min_instances: int = 0, units: pd.DataFrame | None = None) -> People:
    """``units``: the column's :func:`unit_decisions` (computed here when not given)."""
    units = unit_decisions(data, spec, col.gold) if units is None else units
    a, tie, ref = spec.annotators, spec.proto.tie_answer, _reference(data, spec, col.gold, units)
    if a is None:
        lb = {} if spec.proto.per_item else length_bias(spec, data, ref, margin)
        return People(_note(spec, "one label per unit: no leave-one-out human row", ["accuracy"], **lb), ref,
                      note=why_not_tested(spec))
    if not a.identified:
        return _anonymous_labels(spec, data, col, answers, ref)
    names, votes = a.matrix(data, col.gold, spec.proto.per_item)
    res = loo_column(votes, answers, kind="labels", names=list(names), tie=tie, ties=ts.pairwise_ties)
    seen = ~np.isnan(votes)
    shared = [int((seen[:, k] & np.delete(seen, k, axis=1).any(axis=1)).sum()) for k in range(len(names))]
    keep = [k for k in range(len(names)) if shared[k] >= min_instances]   # as the alt-test decides who is tested
    rows = [_human(spec.label, names[k], res.annotators[names[k]].values["accuracy"], res.annotators[names[k]].n)
            for k in keep]
    left = len(names) - len(keep)
    note = f"{left} annotator(s) with fewer than {min_instances} units have no row" if left else ""
    return People({"accuracy": rows}, votes, ref, {r: j.values for r, j in res.judges.items()},
                  AltInputs(tuple(names), votes), note)


def _anonymous_labels(spec, data, col, answers, ref) -> People:
    if spec.proto.tie_answer is not None:   # the exchangeable rule counts yes / no votes only
        return People(_note(spec, "anonymous votes with a tie answer: no leave-one-out row", ["accuracy"]), ref,
                      note=why_not_tested(spec))
    yes, n = spec.annotators.votes(data, col.gold, spec.proto.per_item)
    human = loo_exchangeable(yes, n)
    row = {"row": f"{spec.label} voter (LOO, exchangeable)", "kind": "human", "value": human.human,
           "n": human.n_units, "loo_value": human.human}
    judges = {r: {"accuracy": loo_exchangeable(yes, n, p).judge} for r, p in answers.items()}
    return People({"accuracy": [row]}, ref, None, judges, None, why_not_tested(spec))


def orders(ev, rr, col) -> dict:
    """Both orders of a swappable protocol (the judge asked again with the summaries swapped)."""
    if rr.swapped is None:
        return {}
    ids, label = ev.data["unit_id"], ev.spec.label_columns[0]
    o = aggregate(samples(rr.run, label, ids), "label")
    s = aggregate(samples(rr.swapped, label, ids), "label")
    b = both_orders(o, s, ev.data[col.gold].to_numpy(dtype=float))
    return {"flip_rate": b.flip_rate, "position_consistency": b.consistency,
            "first_position_rate": b.first_position_rate, "acc_original": b.acc_original,
            "acc_agreement_else_tie": b.acc_agreement_else_tie, "acc_agreement_only": b.acc_agreement_only,
            "n_conflicts": b.n_conflicts, "flip_flag": b.flagged}
