"""A prompt family as rows of the leaderboard (``leaderboard.families``; docs/leaderboard.md,
"A prompt family as a row"; the family stage: docs/robustness.md).

Per judge and family, two rows: ``<judge> · <family> (median prompt)`` and ``<judge> · <family>
(10th percentile prompt)``. In each dimension the row answers with one template of the family,
picked by the template's sample-level correlation in the family stage's ``prompts.csv`` (the
stage's estimand, ``robustness.estimand``): the template at the quantile's place in the sorted
correlations, numpy's ``"lower"`` rule (position ``floor(q (P - 1))``, 0-based, ascending; ties
by the template's name), so the pick is a template that was asked, never better than the
family's interpolated quantile. The same template gives the dimension's three columns (sample,
system, dataset). Its answers then go through the leaderboard's own per-judge path
(:func:`sumjudge.leaderboard.columns.likert_columns` and the verdict path), like any judge's:
value, interval, leave-one-out, rank, alt-test.

Each cell also carries the template it answered with and the family's spread at its level (the
lowest and highest quantile of ``summary.csv``, by default q10 and q90, and the median), drawn
as a bar on the page. A family needs every template on every document (``design: null``): a
template of the subset design has answered only its share of the documents.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ..errors import UserError
from ..evidence.runs import load_judge_run
from ..io import parse_judge_path
from ..robustness.families import Family, template_tables, to_scale
from ..stats.correlation import LEVELS
from .evidence import DatasetEvidence, RowRun

ROW_QUANTILES = (("median prompt", 0.5), ("10th percentile prompt", 0.1))   # (label, q), in the page's order
QUANTILE_COLUMN = re.compile(r"^q\d\d$")


def pick(correlations: Mapping[str, float], q: float) -> str:
    """The template at quantile ``q`` of ``correlations`` (template -> value; NaN left out):
    numpy's "lower" rule, position ``floor(q (n - 1))`` in the ascending values, ties by name."""
    ranked = sorted((float(v), t) for t, v in correlations.items() if not pd.isna(v))
    if not ranked:
        raise ValueError(f"no template has a correlation to pick from: {dict(correlations)}")
    return ranked[math.floor(q * (len(ranked) - 1) + 1e-9)][1]


def row_name(judge: str, family: str, label: str) -> str:
    return f"{judge} · {family} ({label})"


@dataclass(frozen=True)
class FamilyInputs:
    """What the leaderboard reads of one family (rule ``robustness_family``'s and
    ``robustness_judge``'s outputs)."""

    family: Family
    summary: pd.DataFrame                     # results/robustness/{family}/summary.csv
    prompts: pd.DataFrame                     # results/robustness/{family}/prompts.csv
    tables: Mapping[tuple[str, str], str]     # (judge, template) -> its judge table
    estimand: str = "scored"                  # robustness.estimand: which correlation the pick reads

    @property
    def judges(self) -> list[str]:
        return list(dict.fromkeys(j for j, _ in self.tables))

    def correlations(self, judge: str, dimension: str) -> dict[str, float]:
        """template -> its sample-level correlation (the family stage's estimand)."""
        column = "correlation_scored" if self.estimand == "scored" else "correlation"
        p = self.prompts
        mine = p[(p["judge"] == judge) & (p["dimension"] == dimension) & (p["level"] == "sample")]
        return dict(zip(mine["prompt"].astype(str), mine[column].astype(float)))

    def spread(self, judge: str, dimension: str, level: str) -> dict[str, Any]:
        """The family's spread at one level: its lowest, median and highest quantile."""
        s = self.summary
        hit = s[(s["judge"] == judge) & (s["dimension"] == dimension) & (s["level"] == level)]
        names = sorted(c for c in s.columns if QUANTILE_COLUMN.match(c))
        if not len(hit) or not names:
            return {}
        r = hit.iloc[0]
        return {"prompt_spread": f"{names[0]}-{names[-1]}", "prompt_spread_low": float(r[names[0]]),
                "prompt_median": float(r["q50"]) if "q50" in r else np.nan,
                "prompt_spread_high": float(r[names[-1]])}


def rule_inputs(results: str, families: Mapping[str, Family], judges: list[str], on: bool,
                estimand: str = "scored") -> dict[str, Any]:
    """Rule ``leaderboard``'s inputs and param for the family rows: every family's summary and
    prompts tables and its templates' judge tables (``judges``: ``robustness.judges``), and the
    param ``{"estimand": robustness.estimand, "families": {name: Family params}}``; all empty
    when ``on`` (``leaderboard.families``) is false, so a plain run asks for no family."""
    out = {"summaries": [], "prompts": [], "tables": [], "params": {}}
    if not on:
        return out
    if not families:
        raise UserError("leaderboard.families is true but judge.prompt_families names no family")
    for name, fam in families.items():
        if fam.per_document is not None:
            raise UserError(f"leaderboard.families: family {name!r} uses the subset design ({fam.per_document} "
                             "prompts per document), so each template answered a share of the documents only; a "
                             f"leaderboard row needs every template on every document: set "
                             f"judge.prompt_families.{name}.design: null")
        out["summaries"].append(f"{results}/robustness/{name}/summary.csv")
        out["prompts"].append(f"{results}/robustness/{name}/prompts.csv")
        out["tables"] += [t for j in judges for t in template_tables(results, j, fam)]
        out["params"].setdefault("families", {})[name] = fam.to_params()
    out["params"]["estimand"] = estimand
    return out


def read_inputs(params: Mapping[str, Any], summaries: list[str], prompts: list[str],
                tables: list[str]) -> list[FamilyInputs]:
    """The families of rule ``leaderboard``'s param and inputs (:func:`rule_inputs`), in that order."""
    out, estimand = [], params["estimand"]
    for (name, p), summary, prompt in zip(params["families"].items(), summaries, prompts):
        mine = {}
        for path in tables:
            parsed = parse_judge_path(path)      # results/robustness/judge/{judge}/{family}/{template}.parquet
            if parsed and parsed[1] == name:
                mine[(parsed[0], parsed[2])] = path
        out.append(FamilyInputs(Family.from_params(p), pd.read_csv(summary), pd.read_csv(prompt), mine, estimand))
    return out


def _template_run(fam: Family, path: str, ev: DatasetEvidence, repeats: int | None):
    """A template's judge table read by the leaderboard's own loader, its scores mapped back to
    the dataset's scale where the template asks on another one."""
    run = load_judge_run(path, ev.spec.label_columns, repeats, pd.Index(ev.unit_ids), ev.spec)
    template = Path(path).stem
    if template not in fam.scales:
        return run
    frame = run.frame.copy()
    for dim in ev.spec.label_columns:
        frame[dim] = to_scale(frame[dim], fam.scales[template], ev.spec.likert_scale)
    return dataclasses.replace(run, frame=frame)


def family_rows(ev: DatasetEvidence, fam: FamilyInputs, repeats: int | None = None) -> dict[tuple[str, str], RowRun]:
    """(row, "base") -> RowRun of every judge's median and 10th-percentile rows of one family."""
    if not ev.spec.proto.per_dimension:
        raise ValueError(f"family {fam.family.name!r}: its dataset {ev.spec.name} is not scored per dimension; a "
                         "family row picks a template per dimension")
    rows = {}
    for judge in fam.judges:
        runs = {t: _template_run(fam.family, fam.tables[(judge, t)], ev, repeats)
                for t in fam.family.templates if (judge, t) in fam.tables}
        for label, q in ROW_QUANTILES:
            picked = {dim: pick(fam.correlations(judge, dim), q) for dim in ev.spec.dimensions}
            fields = {(dim, lv): {"prompt_family": fam.family.name, "prompt_quantile": q, "prompt_template": t,
                                  **fam.spread(judge, dim, lv)}
                      for dim, t in picked.items() for lv in LEVELS}
            name = row_name(judge, fam.family.name, label)
            by_dim = {dim: runs[t] for dim, t in picked.items()}
            rows[(name, "base")] = RowRun(name, judge, next(iter(by_dim.values())), by_dimension=by_dim,
                                          cell_fields=fields)
    return rows


def with_family_rows(evidence: list[DatasetEvidence], families: list[FamilyInputs],
                     repeats: int | None = None) -> list[DatasetEvidence]:
    """``evidence`` with each family's rows added to its dataset's."""
    by_name = {ev.spec.name: ev for ev in evidence}
    missing = sorted({f.family.dataset for f in families} - set(by_name))
    if missing:
        raise ValueError(f"leaderboard.families: the families' dataset(s) {', '.join(missing)} are not among the "
                         "run's datasets")
    out = []
    for ev in evidence:
        extra = {k: v for f in families if f.family.dataset == ev.spec.name for k, v in family_rows(ev, f, repeats).items()}
        out.append(dataclasses.replace(ev, rows={**ev.rows, **extra}) if extra else ev)
    return out
