"""Tables 3 (TLDR pairwise), 4 (REALSumm SCU presence) and 5 (QAGS factuality):
accuracy of decisions against human labels, with cluster-bootstrap intervals and
a paired permutation test of every judge against the strongest metric.

Decisions and their clusters (docs/statistics.md):

- TLDR: one decision per comparison; gold = the worker's choice; clusters = posts.
- REALSumm: one decision per SCU of a summary; gold = the crowd label; clusters = summaries.
- QAGS: one decision per summary sentence; gold = the majority vote; clusters = summaries.

Which is which comes from the registry (sumjudge.datasets: gold column, cluster
column, dimension, table) and the protocol object (sumjudge.protocols: a Pyramid
dataset has one decision per SCU, a factuality metric's prediction column); a
``dataset`` below is a registry name or a DatasetSpec (a user's dataset: its spec).

A metric's TLDR tie (prediction -1: both summaries scored the same) is decided
by ``tldr.metric_ties`` (:func:`apply_metric_ties`): ``wrong`` (default, a
wrong decision), ``half`` (half right: the expected accuracy of a fair coin
flip) or ``skip`` (left out of that metric's accuracy, and of its test).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import datasets as _ds
from ..stats.accuracy import correctness, score_ties
from ..evidence.errors import TablesInputError
from ..stats.bootstrap import ClusterBootstrap, cluster_codes, percentile_interval
from ..stats.correction import adjust_table
from ..stats.permutation import paired_accuracy_test
from .common import COLUMNS, Row, finalize, mean_over_repeats, repeat_summary, strongest
from ..evidence.runs import JudgeRun, MetricTable
from .published import attach_published
from .rows import FACTUALITY_METRICS, SCORE_METRICS, labelled, metric_model, paper_judge_row
from ..evidence.columns import judge_row, table_name
from ..evidence.labels import LEVEL, aligned_predictions, decisions
from ..evidence.settings import TableSettings

TIE = -1  # a metric's TLDR prediction when both summaries score the same


def apply_metric_ties(correct: np.ndarray, pred: np.ndarray, rule: str = "wrong") -> np.ndarray:
    """Per-decision correctness with a metric's ties (``pred == -1``) decided by ``rule``."""
    correct = np.asarray(correct, dtype=float).copy()
    tie = np.asarray(pred, dtype=float) == TIE
    if rule == "wrong":
        correct[tie] = 0.0
    elif rule == "half":
        correct[tie] = 0.5
    elif rule == "skip":
        correct[tie] = np.nan
    else:
        raise TablesInputError(f"tldr.metric_ties must be 'wrong', 'half' or 'skip', not {rule!r}")
    return correct


# --------------------------------------------------------------------------- rows

def metric_rows(tables: list[MetricTable], dataset: str) -> list[Row]:
    """Pairwise (TLDR): a row per registered score whose ``{column}_choice`` is present;
    Pyramid / binary (REALSumm / QAGS): a row per factuality metric family (FactCC, DAE)."""
    spec = _ds.get(dataset)
    rows = []
    if spec.proto.compares:  # a decision between two summaries: from each score's two sides
        for spec in SCORE_METRICS:
            col = f"{spec.column}_choice"
            for t in tables:
                if col in t.frame:
                    model = metric_model(t.models, spec)
                    pred = pd.to_numeric(t.frame[col], errors="coerce").to_frame("pred")
                    rows.append(Row(labelled(spec.printed(True), model, spec), "metric", spec.printed(True),
                                    f"{t.path}:{col}", [pred], model=model))
                    break
        return rows
    col = spec.proto.metric_prediction
    by_family = {t.family: t for t in tables}
    for family, spec in FACTUALITY_METRICS.items():
        t = by_family.get(family)
        if t is None:
            continue
        if col not in t.frame:
            raise TablesInputError(f"{t.path}: expected prediction column {col!r}; rerun its metric rule "
                                   f"(snakemake --forcerun {t.path})")
        model = metric_model(t.models, spec)
        rows.append(Row(labelled(spec.name, model, spec), "metric", spec.name, f"{t.path}:{col}",
                        [t.frame[[col]].rename(columns={col: "pred"})], model=model))
    return rows


def judge_rows(runs: list[JudgeRun], dataset: str) -> list[Row]:
    spec = _ds.get(dataset)
    col = spec.label_columns[0]
    rows = []
    for run in runs:
        if run.dataset != spec.name or run.variant not in {v for _, _, v in spec.accuracy_questions}:
            continue
        data = [run.by_sample(s)[[col]].rename(columns={col: "pred"}) for s in run.samples]
        rows.append(Row(judge_row(run.judge), "judge", paper_judge_row(), run.path, data,
                        model=", ".join(run.model_ids) or None, judge=run.judge, variant=run.variant))
    return rows


# ---------------------------------------------------------------------- decisions


# --------------------------------------------------------------------------- table

def accuracy_table(human: pd.DataFrame, rows: list[Row], dataset: str, settings: TableSettings) -> pd.DataFrame:
    """One block per accuracy question of the dataset (``spec.accuracy_questions``: TL;DR one,
    HELM news two, overall and informative): metric rows against each, judge rows of the
    question's prompt variant (a row without a variant: the base prompt's)."""
    spec = _ds.get(dataset)
    blocks = []
    for gold, dimension, variant in spec.accuracy_questions:
        block = [r for r in rows if r.kind != "judge" or (r.variant or "base") == variant]
        blocks.append(_accuracy_block(human, block, spec, gold, dimension, settings))
    blocks = [b for b in blocks if len(b)]
    if not blocks:
        return finalize(pd.DataFrame(columns=COLUMNS))
    return blocks[0] if len(blocks) == 1 else pd.concat(blocks, ignore_index=True)


def _accuracy_block(human: pd.DataFrame, rows: list[Row], spec: _ds.DatasetSpec, gold: str, dimension: str,
                    settings: TableSettings) -> pd.DataFrame:
    pairwise = spec.proto.compares  # a metric's tie is scored by tables.metric_ties
    tie = spec.proto.tie_answer     # a protocol with a tie answer: tables.pairwise_ties
    dec = decisions(human, spec, gold, settings.pairwise_labels)
    if tie is not None and settings.pairwise_ties == "decided":
        dec = dec[dec["gold"] != tie].reset_index(drop=True)
    codes, k = cluster_codes(dec["cluster"])
    plan = ClusterBootstrap.draw(k, settings.bootstrap_resamples, settings.seed) if k else None
    cells, correct = [], {}
    for row in rows:
        per_repeat, boots, cs = [], [], []
        n_ties = 0
        n_counted = n_missing = 0
        for data in row.data:
            pred = aligned_predictions(data["pred"], dec, spec, row.source)
            if pairwise and row.kind == "metric" and tie is not None:
                n_ties = int((pred == TIE).sum())
                pred = np.where(pred == TIE, float(tie), pred)  # equal scores: the metric's tie answer
            c = correctness(pred, dec["gold"].to_numpy(), settings.invalid)
            if tie is not None:
                c = score_ties(c, pred, dec["gold"].to_numpy(), tie, settings.pairwise_ties)
            elif pairwise and row.kind == "metric":
                n_ties = int((pred == TIE).sum())
                c = apply_metric_ties(c, pred, settings.metric_ties)
            cs.append(c)
            per_repeat.append(float(np.nanmean(c)) if (~np.isnan(c)).any() else float("nan"))
            boots.append(plan.mean(c, codes) if plan else np.array([np.nan]))
            n_counted += int((~np.isnan(c)).sum())
            n_missing += int(np.isnan(pred).sum())
        correct[row.name] = mean_over_repeats(cs)
        ci = percentile_interval(mean_over_repeats(boots), settings.confidence)
        cells.append({
            "table": table_name(spec), "dataset": spec.label, "dimension": dimension,
            "level": LEVEL, "row": row.name, **repeat_summary(per_repeat), "boot_mean": ci.mean,
            "ci_low": ci.low, "ci_high": ci.high,
            "n_groups": k, "n": n_counted // len(row.data), "n_missing": n_missing // len(row.data),
            "kind": row.kind, "paper_row": row.paper_row, "source": row.source, "model": row.model,
            "subset": "all", "n_ties": n_ties if pairwise else np.nan,
            "metric_ties": (settings.metric_ties if tie is None else "tie answer")
            if pairwise and row.kind == "metric" else None,
            "bootstrap": f"clusters ({spec.cluster_column})", "bootstrap_resamples": settings.bootstrap_resamples,
            "permutation": "decisions", "permutation_resamples": settings.permutation_resamples,
            "correction": settings.correction, "seed": settings.seed, "n_clusters": k,
        })
    df = pd.DataFrame(cells)
    if df.empty:
        return finalize(pd.DataFrame(columns=COLUMNS))
    df = df.assign(compared_with=None, delta=np.nan, p_value=np.nan)
    best = strongest(df, ("metric",))
    for i, cell in df.iterrows():
        other = best.get((cell["dataset"], cell["dimension"], cell["level"]))
        if cell["kind"] != "judge" or other is None:
            continue
        test = paired_accuracy_test(correct[cell["row"]], correct[other], settings.permutation_resamples,
                                    settings.seed)
        df.at[i, "compared_with"] = other
        df.at[i, "delta"] = cell["value"] - df.loc[df["row"] == other, "value"].iloc[0]
        df.at[i, "p_value"] = test.p_value
    return finalize(attach_published(adjust_table(df, settings.correction)))
