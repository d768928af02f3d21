"""The humans of a column, from the registry's annotators (``DatasetSpec.annotators``):
their leave-one-out rows, the judges on the same ruler, and the alt-test's annotators
(docs/statistics.md, "Annotators" and "The judge leaderboard").

Persons and workers are people: one leave-one-out row each (an annotator with fewer than
``min_instances`` units gets none; counted in the note), and the alt-test runs against
them. Anonymous slots or votes have no identity: one row by a rule that does not depend
on the order of the votes, and no alt-test (the page says why). A dataset with one label
per unit has no human row, only a note.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..datasets import DatasetSpec
from ..stats.loo import loo_labels, loo_likert, votes_from_counts
from ..stats.orders import both_orders
from ..tables.accuracy import decisions
from ..tables.settings import TableSettings
from .common import length_bias, matrix
from .evidence import samples


@dataclass(frozen=True)
class AltInputs:
    """The alt-test's annotators of one column: names and their labels per unit (NaN: not labelled)."""

    names: tuple[str, ...]
    labels: np.ndarray
    groups: np.ndarray | None = None     # per unit, its document (the `rank` score ranks within it)


@dataclass
class People:
    by_level: dict[str, list[dict]]
    modal_share: float
    judges: dict[str, dict[str, float]] = field(default_factory=dict)   # row -> level -> LOO value
    alt: AltInputs | None = None
    note: str = ""

    def rows(self, level: str = "accuracy") -> list[dict]:
        return self.by_level.get(level, [])

    def judge_loo(self, row: str, level: str = "accuracy") -> float:
        return float(self.judges.get(row, {}).get(level, np.nan))


def pooled_modal_share(labels) -> float:
    """Modal share of every individual human label pooled (the same whatever their order)."""
    v = np.asarray(labels, dtype=float).ravel()
    v = v[~np.isnan(v)]
    if not v.size:
        return float("nan")
    return float(np.unique(v, return_counts=True)[1].max() / v.size)


def why_not_tested(spec: DatasetSpec) -> str:
    a = spec.annotators
    if a is None:
        return "one label per unit, no annotator to compare with"
    return f"anonymous annotators ({a.note or 'no identity'})" if not a.identified else ""


def _human(label: str, name: str, value: float, n: int, **extra) -> dict:
    return {"row": f"{label} annotator {name} (LOO)", "kind": "human", "value": value, "n": n, "loo_value": value,
            **extra}


def likert_humans(spec: DatasetSpec, data, dim, d2, docs, systems, jm, ts: TableSettings, margin) -> People:
    a = spec.annotators
    if a is None:
        note = {"row": f"{spec.label} humans", "kind": "human", "value": np.nan,
                "note": "one score per unit: no leave-one-out human row"}
        return People({lv: [note] for lv in ("sample", "system", "dataset")},
                      pooled_modal_share(data[dim].to_numpy(float)), note=why_not_tested(spec))
    names, lab = a.matrix(data, dim)
    stack = np.stack([matrix(d2, lab[:, k], docs, systems) for k in range(len(names))])
    # TODO(i25-stats): anonymous slots by the order-free exchangeable rule of stats.loo once merged
    res = loo_likert(stack, jm, ts.method, ts.undefined)
    rows = {lv: [_human(spec.label, n, res.annotators[lv][k], res.n_cells[k],
                        **length_bias(spec, data, lab[:, k], margin)) for k, n in enumerate(names)]
            for lv in res.annotators}
    alt = AltInputs(tuple(names), lab, data[spec.cluster_column].astype(str).to_numpy()) if a.identified else None
    return People(rows, pooled_modal_share(lab), res.judges, alt, why_not_tested(spec))


def unit_decisions(data: pd.DataFrame, spec: DatasetSpec, gold: str) -> pd.DataFrame:
    """The alt-test's units of an accuracy column: one per unit, or per item (an SCU)."""
    if spec.proto.per_item:
        return decisions(data, spec, gold)
    return pd.DataFrame({"unit_id": data["unit_id"].astype(str)})


def label_humans(spec: DatasetSpec, data, col, answers: dict, ts: TableSettings, margin,
                 min_instances: int = 0) -> People:
    a, tie = spec.annotators, spec.proto.tie_answer
    if a is None:
        gold = data[col.gold]
        lb = {} if spec.proto.per_item else length_bias(spec, data, gold.to_numpy(float), margin)
        row = {"row": f"{spec.label} humans", "kind": "human", "value": np.nan,
               "note": "one label per unit: no leave-one-out human row", **lb}
        flat = [float(x) for v in gold for x in (v if spec.proto.per_item else [v])]
        return People({"accuracy": [row]}, pooled_modal_share(flat), note=why_not_tested(spec))
    if not a.identified:
        return _anonymous_labels(spec, data, col, answers, ts)
    names, votes = a.matrix(data, col.gold, spec.proto.per_item)
    res = loo_labels(votes, answers, tie, ts.pairwise_ties)
    seen = ~np.isnan(votes)
    shared = [int((seen[:, k] & np.delete(seen, k, axis=1).any(axis=1)).sum()) for k in range(len(names))]
    keep = [k for k in range(len(names)) if shared[k] >= min_instances]   # as the alt-test decides who is tested
    rows = [_human(spec.label, names[k], res.annotators[k], res.n[k]) for k in keep]
    left = len(names) - len(keep)
    note = f"{left} annotator(s) with fewer than {min_instances} units have no row" if left else ""
    return People({"accuracy": rows}, pooled_modal_share(votes), {r: {"accuracy": v} for r, v in res.judges.items()},
                  AltInputs(tuple(names), votes), note)


def _anonymous_labels(spec, data, col, answers, ts) -> People:
    yes, n = spec.annotators.votes(data, col.gold, spec.proto.per_item)
    # TODO(i25-stats): the order-free exchangeable LOO rule of stats.loo once merged
    votes = votes_from_counts(yes, n)
    res = loo_labels(votes, answers, spec.proto.tie_answer, ts.pairwise_ties)
    v = float(np.nanmean(res.annotators))
    row = {"row": f"{spec.label} voter (LOO, mean of positions)", "kind": "human", "value": v,
           "n": int(np.sum(res.n)), "loo_value": v}
    share = float(np.nansum(yes) / np.nansum(n)) if np.nansum(n) else float("nan")
    return People({"accuracy": [row]}, max(share, 1 - share), {r: {"accuracy": x} for r, x in res.judges.items()},
                  None, why_not_tested(spec))


def orders(ev, rr, col) -> dict:
    """Both orders of a swappable protocol (the judge asked again with the summaries swapped)."""
    if rr.swapped is None:
        return {}
    from .repeats import aggregate

    ids, label = ev.data["unit_id"], ev.spec.label_columns[0]
    o = aggregate(samples(rr.run, label, ids), "label")
    s = aggregate(samples(rr.swapped, label, ids), "label")
    b = both_orders(o, s, ev.data[col.gold].to_numpy(dtype=float))
    return {"flip_rate": b.flip_rate, "position_consistency": b.consistency,
            "first_position_rate": b.first_position_rate, "acc_original": b.acc_original,
            "acc_agreement_else_tie": b.acc_agreement_else_tie, "acc_agreement_only": b.acc_agreement_only,
            "n_conflicts": b.n_conflicts, "flip_flag": b.flagged}
