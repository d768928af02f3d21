"""Tables 1 (SummEval), 2 (Newsroom) and 6 (SummEval prompt variants and
annotators): correlation with human Likert scores at three levels, with
bootstrap confidence intervals (scheme ``tables.bootstrap``) and paired
permutation tests (scheme ``tables.permutation``, p-values adjusted per
``tables.correction``).

Values come from :func:`sumjudge.stats.correlation.correlation_levels` (the
definitions that reproduce the paper's ROUGE rows); intervals and tests from the
vectorised matrix form (:mod:`sumjudge.stats.matrix`), which gives the same
values. A judge's cell is the mean over its repeats; its interval is the
percentile interval of that mean over resamples that are identical for every
repeat and every row.
"""
from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from .. import datasets as _ds
from ..stats.bootstrap import BootBoth, boot_both_levels, percentile_interval
from ..evidence.errors import TablesInputError
from ..stats.correction import adjust_table
from ..stats.correlation import LEVELS, correlation_levels
from ..stats.matrix import UNDEFINED_ROWS, likert_matrix
from ..stats.permutation import paired_correlation_test
from .common import COLUMNS, Row, bootstrap_clusters, finalize, mean_over_repeats, repeat_summary, strongest
from ..evidence.runs import JudgeRun, MetricTable
from .published import attach_published
from .rows import SCORE_METRICS, labelled, metric_model, paper_judge_row
from ..evidence.columns import judge_row, table_name
from ..evidence.runs import WEIGHTED, WEIGHTED_ROW, has_weighted_row
from ..evidence.settings import TableSettings

log = logging.getLogger(__name__)

# A dataset (``dataset`` below) is a registry name or a DatasetSpec (sumjudge.datasets;
# a user's dataset: its spec): its dimensions, label and table come from there.
DIMENSIONS = {n: s.dimensions for n, s in _ds.BUILTIN.items() if s.table_kind == "correlation"}


ROUGE_ROWS = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeL": "ROUGE-L"}
N_EXPERTS = 3
EXPERT_SUBSET = "systems with per-expert scores"


# --------------------------------------------------------------------------- rows

def metric_rows(tables: list[MetricTable], dataset: str) -> list[Row]:
    """One row per registered score column found in the metric tables, in the paper's order."""
    dims = _ds.get(dataset).dimensions
    found = {}
    for t in tables:
        for spec in SCORE_METRICS:
            if spec.column in t.frame:
                if spec.column in found:
                    raise TablesInputError(f"column {spec.column!r} is in both {found[spec.column][0].path} and {t.path}; "
                                           f"drop it from one of the two metric rules")
                found[spec.column] = (t, spec)
    rows = []
    for spec in SCORE_METRICS:
        if spec.column not in found:
            continue
        t, spec = found[spec.column]
        model = metric_model(t.models, spec)
        scores = pd.DataFrame({d: pd.to_numeric(t.frame[spec.column], errors="coerce") for d in dims})
        rows.append(Row(labelled(spec.name, model, spec), "metric", spec.name, f"{t.path}:{spec.column}",
                        [scores], model=model))
    return rows


def judge_rows(runs: list[JudgeRun], dataset: str, variants: tuple[str, ...] | None = ("base",),
               weighted: bool = False) -> list[Row]:
    """One row per judge (and prompt variant): the judge's Likert scores, one frame per repeat.

    ``weighted``: also a row ``<judge> [weighted]`` from the ``<dimension>_weighted``
    columns (G-Eval's probability-weighted score) where the judge table has them
    filled; it answers no published row."""
    spec = _ds.get(dataset)
    dims = list(spec.dimensions)
    rows = []
    for run in runs:
        if run.dataset != spec.name or (variants is not None and run.variant not in variants):
            continue
        data = [run.by_sample(s)[dims] for s in run.samples]
        model = ", ".join(run.model_ids) or None
        rows.append(Row(judge_row(run.judge, run.variant), "judge", paper_judge_row(run.variant), run.path,
                        data, model=model, judge=run.judge, variant=run.variant))
        if weighted and has_weighted_row(run, spec):
            wcols = [d + WEIGHTED for d in dims]
            wdata = [run.by_sample(s)[wcols].set_axis(dims, axis=1) for s in run.samples]
            rows.append(Row(judge_row(run.judge, run.variant) + WEIGHTED_ROW, "judge", None,
                            f"{run.path}:*{WEIGHTED}", wdata, model=model, judge=run.judge, variant=run.variant))
    return rows


def annotator_rows(human: pd.DataFrame, spec: "_ds.DatasetSpec") -> list[Row]:
    """Table 6: each SummEval expert against the three-expert mean, on the
    summaries that have per-expert scores (all 16 systems with the default sources)."""
    dims = spec.dimensions
    have = human[[f"{d}_expert{k}" for d in dims for k in range(N_EXPERTS)]].notna().all(axis=1)
    units = pd.Index(human.loc[have, "unit_id"].astype(str))
    n_sys = human.loc[have, "system"].nunique()
    rows = []
    for k in range(N_EXPERTS):
        scores = pd.DataFrame({d: human[f"{d}_expert{k}"].to_numpy() for d in dims},
                              index=human["unit_id"].astype(str))
        rows.append(Row(f"Annotator_{k}", "annotator", f"Annotator_{k}", f"expert {k}", [scores],
                        subset=f"{n_sys} {EXPERT_SUBSET}", units=units))
    return rows


# --------------------------------------------------------------------------- table

class _UnitSet:
    """Documents, systems, resampling plan and human matrices for one set of units."""

    def __init__(self, human: pd.DataFrame, dims, settings: TableSettings):
        self.human = human
        self.docs = sorted(human["doc_id"].unique())
        self.systems = sorted(human["system"].unique())
        self.plan = BootBoth.draw(len(self.docs), len(self.systems), settings.bootstrap_resamples, settings.seed,
                                  settings.bootstrap)
        self.y = {d: likert_matrix(human, d, self.docs, self.systems) for d in dims}

    def matrix(self, scores: pd.Series) -> np.ndarray:
        frame = self.human[["doc_id", "system"]].assign(_s=scores.reindex(self.human["unit_id"]).to_numpy())
        return likert_matrix(frame, "_s", self.docs, self.systems)


def correlation_table(human: pd.DataFrame, rows: list[Row], dataset: str, table: str,
                      settings: TableSettings, compare: str = "strongest") -> pd.DataFrame:
    """Long-form cells of a correlation table with intervals and tests.

    ``compare``: ``"strongest"`` tests every judge row against the strongest
    metric row of each column (Tables 1, 2); ``"base"`` tests every prompt
    variant against the same judge's base prompt (Table 6)."""
    spec = _ds.get(dataset)
    dims = spec.dimensions
    human = human.assign(unit_id=human["unit_id"].astype(str))
    unit_sets: dict[tuple, _UnitSet] = {}
    matrices: dict[tuple[str, str], np.ndarray] = {}   # (row, dim) -> repeat-mean matrix
    cells = []
    for row in rows:
        sub = human if row.units is None else human[human["unit_id"].isin(row.units)]
        key = tuple(sub["unit_id"])
        if key not in unit_sets:
            unit_sets[key] = _UnitSet(sub.reset_index(drop=True), dims, settings)
        us = unit_sets[key]
        for dim in dims:
            per_repeat = {lv: [] for lv in LEVELS}
            boots = {lv: [] for lv in LEVELS}
            undefined_per_resample = []
            counts = None
            mats = []
            for data in row.data:
                scores = data[dim].reindex(us.human["unit_id"])
                merged = us.human[["doc_id", "system", dim]].assign(_score=scores.to_numpy())
                res = correlation_levels(merged, "_score", dim, method=settings.method,
                                         undefined=settings.undefined)
                x = us.matrix(data[dim])
                mats.append(x)
                boot = boot_both_levels(x, us.y[dim], us.plan, settings.method, settings.undefined,
                                        count_undefined=True)
                undefined_per_resample.append(boot[UNDEFINED_ROWS])
                for lv in LEVELS:
                    per_repeat[lv].append(res[lv].value)
                    boots[lv].append(boot[lv])
                if counts is None:  # group counts of the first repeat
                    counts = res
            matrices[(row.name, dim)] = mean_over_repeats(mats)
            boot_undefined = float(np.mean(undefined_per_resample))  # documents, mean over resamples
            for lv in LEVELS:
                summary = repeat_summary(per_repeat[lv])
                ci = percentile_interval(mean_over_repeats(boots[lv]), settings.confidence)
                cells.append({
                    "table": table, "dataset": spec.label, "dimension": dim, "level": lv,
                    "row": row.name, **summary, "boot_mean": ci.mean, "ci_low": ci.low, "ci_high": ci.high,
                    "n_groups": counts[lv].n_groups, "n_undefined": counts[lv].n_undefined,
                    "boot_n_undefined": boot_undefined if lv == "sample" else np.nan,
                    "n": counts[lv].n_pairs, "n_missing": len(us.human) - counts[lv].n_pairs,
                    "kind": row.kind, "paper_row": row.paper_row, "source": row.source, "model": row.model,
                    "subset": row.subset, "_units": key,
                    **resampling_columns(settings, lv),
                    "n_clusters": bootstrap_clusters(settings.bootstrap, len(us.docs), len(us.systems)),
                })
    df = pd.DataFrame(cells)
    if df.empty:
        return finalize(pd.DataFrame(columns=COLUMNS))
    df = _tests(df, rows, matrices, unit_sets, settings, compare)
    df = adjust_table(df, settings.correction)
    return finalize(attach_published(df.drop(columns="_units")))


def resampling_columns(settings: TableSettings, level: str) -> dict:
    """How a correlation cell's interval and test were computed (one CSV column each)."""
    return {"bootstrap": settings.bootstrap, "bootstrap_resamples": settings.bootstrap_resamples,
            "permutation": settings.permutation_by_level()[level],
            "permutation_resamples": settings.permutation_resamples, "correction": settings.correction,
            "seed": settings.seed}


def _tests(df: pd.DataFrame, rows: list[Row], matrices, unit_sets, settings: TableSettings,
           compare: str) -> pd.DataFrame:
    """``compared_with``, ``delta`` (value minus the other row's value) and ``p_value``."""
    by_name = {r.name: r for r in rows}
    df = df.assign(compared_with=None, delta=np.nan, p_value=np.nan)
    if compare == "strongest":
        best = strongest(df, ("metric",))
        def other_of(cell):
            return best.get((cell["dataset"], cell["dimension"], cell["level"]))
    elif compare == "base":
        def other_of(cell):
            r = by_name[cell["row"]]
            base = judge_row(r.judge, "base") if r.variant not in (None, "base") else None
            if base is not None and r.name.endswith(WEIGHTED_ROW):  # weighted against weighted
                base += WEIGHTED_ROW
            return base if base in by_name else None
    else:
        raise ValueError(f"compare must be 'strongest' or 'base', not {compare!r}")
    value = df.set_index(["row", "dimension", "level"])["value"]
    tests: dict[tuple[str, str, str], dict] = {}
    for i, cell in df.iterrows():
        if cell["kind"] != "judge":
            continue
        other = other_of(cell)
        if other is None:
            continue
        if df.loc[df["row"] == other, "_units"].iloc[0] != cell["_units"]:
            log.warning("%s and %s cover different units; no test", cell["row"], other)
            continue
        key = (cell["row"], other, cell["dimension"])
        if key not in tests:
            us = unit_sets[cell["_units"]]
            tests[key] = paired_correlation_test(
                matrices[(cell["row"], cell["dimension"])], matrices[(other, cell["dimension"])],
                us.y[cell["dimension"]], settings.permutation_resamples, settings.seed, settings.method,
                settings.undefined, settings.permutation_by_level())
        df.at[i, "compared_with"] = other
        df.at[i, "delta"] = cell["value"] - value[(other, cell["dimension"], cell["level"])]
        df.at[i, "p_value"] = tests[key][cell["level"]].p_value
    return df


def correlation_rows(human: pd.DataFrame, scores: pd.DataFrame, rows: dict[str, str], dataset: str,
                     method: str = "spearman", undefined: str = "zero") -> pd.DataFrame:
    """Point values only, for every (score column, dimension, level) of ``scores``
    (``unit_id`` plus the columns named in ``rows``: column -> printed name)."""
    spec = _ds.get(dataset)
    merged = human.merge(scores, on="unit_id", how="inner", validate="one_to_one")
    if len(merged) != len(human):
        raise TablesInputError(f"{spec.name}: scores cover {len(merged)} of {len(human)} units; rerun the rule "
                               f"that scores it (snakemake --forcerun <its output>)")
    out = []
    for column, row_name in rows.items():
        for dim in spec.dimensions:
            for level, res in correlation_levels(merged, column, dim, method=method,
                                                 undefined=undefined).items():
                out.append({"table": table_name(spec), "dataset": spec.label, "dimension": dim,
                            "level": level, "row": row_name, "value": res.value,
                            "n_groups": res.n_groups, "n_undefined": res.n_undefined})
    return pd.DataFrame(out)
