"""Tables 7-9: what the judge's replies look like.

- Table 7: explanations the judge wrote unasked. A reply *explains* when it is
  ``ok`` and has at least ``tables.explanation_min_words`` words that are not
  answer vocabulary (dimension names, "summary", "yes", "no", "score", "out of",
  ...; numbers are not words). Examples are picked per judge and dataset in a
  fixed pseudo-random order: ascending sha256 of ``variant/unit_id/sample``.
- Table 8: invalid replies by category (the judge's ``invalid_reason`` up to
  the first colon), ``tables.examples`` per judge and category, same order.
- Table 9: the share of invalid replies per judge, dataset and prompt variant,
  ``n_invalid / (n_ok + n_invalid)`` with a Clopper-Pearson interval; replies
  that never came (``api_error``) are counted apart, not as invalid. Beside it
  (as in the paper's section 4.3) the dataset-level correlation between the
  judge's own fluency and coherence scores on SummEval, per prompt variant.
- Usage: requests, cache hits, tokens and cost per judge, dataset and variant.
"""
from __future__ import annotations

import hashlib
import re

import numpy as np
import pandas as pd

from ..catalog import FLUENCY_COHERENCE
from ..stats.accuracy import clopper_pearson
from ..stats.bootstrap import BootBoth, boot_both_levels, percentile_interval
from ..stats.correlation import dataset_level
from ..stats.matrix import likert_matrix
from .common import DATASET_LABELS, bootstrap_clusters, finalize, mean_over_repeats, repeat_summary
from ..evidence.runs import JudgeRun
from .published import attach_published
from ..evidence.columns import VARIANT_ORDER, judge_row
from .rows import paper_judge_row
from ..evidence.settings import TableSettings

ANSWER_WORDS = frozenset("""
summary summaries yes no score scores scored rating ratings rate rated out of overall dimension dimensions
relevance consistency faithfulness fluency coherence informativeness relevant consistent faithful fluent
coherent informative semantic content unit units scu scus sentence answer
""".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")

SEC43 = "Sec4.3-text"
SEC43_DIMENSION = "fluency_vs_coherence_of_ChatGPT_scores"
SEC43_PAPER_ROWS = {"base": "ChatGPT (no definitions)", "def": "ChatGPT+def"}
USAGE_FIELDS = ("requests_sent", "cache_hits", "input_tokens", "output_tokens", "cost_usd",
                "cached_input_tokens", "reasoning_tokens", "batches_submitted", "total_cost_usd", "mixed_snapshots")


def explanation_words(reply: str | None) -> int:
    """Words of a reply beyond what an answer needs (Table 7's rule)."""
    if not isinstance(reply, str):
        return 0
    return sum(1 for w in _WORD.findall(reply) if w.lower().strip("'’-") not in ANSWER_WORDS)


def _order_key(variant: str, unit_id: str, sample: int) -> str:
    return hashlib.sha256(f"{variant}/{unit_id}/{sample}".encode()).hexdigest()


def _variant_rank(v: str) -> int:
    return VARIANT_ORDER.index(v) if v in VARIANT_ORDER else len(VARIANT_ORDER)


def _sorted_runs(runs: list[JudgeRun]) -> list[JudgeRun]:
    ds = list(DATASET_LABELS)
    return sorted(runs, key=lambda r: (r.judge, ds.index(r.dataset) if r.dataset in ds else 99,
                                       _variant_rank(r.variant), r.variant))


def _replies(runs: list[JudgeRun]) -> pd.DataFrame:
    parts = []
    for run in _sorted_runs(runs):
        f = run.frame[["unit_id", "sample", "status", "invalid_reason", "reply"]].copy()
        parts.append(f.assign(judge=run.judge, dataset=run.dataset, variant=run.variant))
    if not parts:
        return pd.DataFrame(columns=["unit_id", "sample", "status", "invalid_reason", "reply", "judge",
                                     "dataset", "variant"])
    df = pd.concat(parts, ignore_index=True)
    df["_key"] = [_order_key(v, u, s) for v, u, s in zip(df["variant"], df["unit_id"], df["sample"])]
    return df


EXAMPLE_COLUMNS = ["table", "dataset", "variant", "row", "category", "n_in_group", "n_replies",
                   "unit_id", "sample", "words", "invalid_reason", "reply"]


def explanation_examples(runs: list[JudgeRun], settings: TableSettings) -> pd.DataFrame:
    """Table 7: up to ``settings.examples`` explained replies per judge and dataset."""
    df = _replies(runs)
    df = df[df["status"] == "ok"].copy()
    df["words"] = df["reply"].map(explanation_words)
    out = []
    for (judge, dataset), g in df.groupby(["judge", "dataset"], sort=False):
        explained = g[g["words"] >= settings.explanation_min_words]
        for _, r in explained.sort_values("_key").head(settings.examples).iterrows():
            out.append({"table": "Table 7", "dataset": DATASET_LABELS.get(dataset, dataset),
                        "variant": r["variant"], "row": judge_row(judge, r["variant"]), "category": "explanation",
                        "n_in_group": len(explained), "n_replies": len(g), "unit_id": r["unit_id"],
                        "sample": r["sample"], "words": r["words"], "invalid_reason": None, "reply": r["reply"]})
    return pd.DataFrame(out, columns=EXAMPLE_COLUMNS)


def invalid_examples(runs: list[JudgeRun], settings: TableSettings) -> pd.DataFrame:
    """Table 8: up to ``settings.examples`` invalid replies per judge and category."""
    df = _replies(runs)
    totals = df.groupby("judge").size()
    df = df[df["status"] == "invalid"].copy()
    df["category"] = df["invalid_reason"].fillna("unspecified").astype(str).str.split(":").str[0].str.strip()
    out = []
    for (judge, category), g in df.groupby(["judge", "category"], sort=True):
        for _, r in g.sort_values("_key").head(settings.examples).iterrows():
            out.append({"table": "Table 8", "dataset": DATASET_LABELS.get(r["dataset"], r["dataset"]),
                        "variant": r["variant"], "row": judge_row(judge, r["variant"]), "category": category,
                        "n_in_group": len(g), "n_replies": int(totals[judge]),
                        "unit_id": r["unit_id"], "sample": r["sample"], "words": explanation_words(r["reply"]),
                        "invalid_reason": r["invalid_reason"], "reply": r["reply"]})
    return pd.DataFrame(out, columns=EXAMPLE_COLUMNS)


def invalid_rates(runs: list[JudgeRun], settings: TableSettings) -> pd.DataFrame:
    """Table 9 (rates): one cell per judge, dataset and prompt variant."""
    cells = []
    for run in _sorted_runs(runs):
        status = run.frame["status"]
        n_ok, n_invalid, n_err = (int(status.eq(s).sum()) for s in ("ok", "invalid", "api_error"))
        n = n_ok + n_invalid
        low, high = clopper_pearson(n_invalid, n, settings.confidence)
        cells.append({"table": "Table 9", "dataset": DATASET_LABELS.get(run.dataset, run.dataset),
                      "dimension": "invalid_rate", "level": "n/a", "row": judge_row(run.judge, run.variant),
                      "value": n_invalid / n if n else float("nan"), "ci_low": low, "ci_high": high,
                      "n": n, "n_missing": n_err, "n_invalid": n_invalid, "n_api_error": n_err,
                      "n_repeats": len(run.samples), "kind": "judge", "paper_row": paper_judge_row(run.variant),
                      "source": run.path, "model": ", ".join(run.model_ids) or None, "subset": "all"})
    return pd.DataFrame(cells)


def fluency_coherence(runs: list[JudgeRun], human: pd.DataFrame | None, settings: TableSettings) -> pd.DataFrame:
    """Section 4.3: dataset-level correlation of the judge's fluency and coherence
    scores on SummEval, per prompt variant, with a boot-both interval."""
    cells = []
    runs = [r for r in _sorted_runs(runs) if r.dataset in FLUENCY_COHERENCE.datasets]
    if not runs or human is None:
        return pd.DataFrame(cells)
    human = human.assign(unit_id=human["unit_id"].astype(str))
    docs, systems = sorted(human["doc_id"].unique()), sorted(human["system"].unique())
    plan = BootBoth.draw(len(docs), len(systems), settings.bootstrap_resamples, settings.seed, settings.bootstrap)
    for run in runs:
        values, boots, n = [], [], 0
        for s in run.samples:
            sc = run.by_sample(s)[["fluency", "coherence"]].reindex(human["unit_id"])
            frame = human[["doc_id", "system"]].assign(fluency=sc["fluency"].to_numpy(),
                                                        coherence=sc["coherence"].to_numpy())
            res = dataset_level(frame, "fluency", "coherence", settings.method)
            values.append(res.value)
            n = n or res.n_pairs
            x = likert_matrix(frame, "fluency", docs, systems)
            y = likert_matrix(frame, "coherence", docs, systems)
            boots.append(boot_both_levels(x, y, plan, settings.method, settings.undefined)["dataset"])
        ci = percentile_interval(mean_over_repeats(boots), settings.confidence)
        cells.append({"table": SEC43, "dataset": "SummEval", "dimension": SEC43_DIMENSION, "level": "dataset",
                      "row": judge_row(run.judge, run.variant), **repeat_summary(values),
                      "boot_mean": ci.mean, "ci_low": ci.low, "ci_high": ci.high, "n": n, "kind": "judge",
                      "paper_row": SEC43_PAPER_ROWS.get(run.variant, paper_judge_row(run.variant)),
                      "source": run.path, "model": ", ".join(run.model_ids) or None, "subset": "all",
                      "bootstrap": settings.bootstrap,
                      "n_clusters": bootstrap_clusters(settings.bootstrap, len(docs), len(systems))})
    return pd.DataFrame(cells)


def table9(runs: list[JudgeRun], summeval: pd.DataFrame | None, settings: TableSettings) -> pd.DataFrame:
    parts = [p for p in (invalid_rates(runs, settings), fluency_coherence(runs, summeval, settings)) if len(p)]
    if not parts:
        return finalize(pd.DataFrame(columns=["n_invalid", "n_api_error"]))
    return finalize(attach_published(pd.concat(parts, ignore_index=True)))


def usage_table(runs: list[JudgeRun]) -> pd.DataFrame:
    """Requests, cache hits, tokens and cost per judge, dataset and variant (from ``*.usage.json``)."""
    rows = []
    for run in _sorted_runs(runs):
        u = run.usage or {}
        rows.append({"judge": run.judge, "dataset": DATASET_LABELS.get(run.dataset, run.dataset),
                     "variant": run.variant, "units": run.frame["unit_id"].nunique(), "replies": len(run.frame),
                     **{f: u.get(f, np.nan) for f in USAGE_FIELDS}, "usage_file": bool(run.usage),
                     # the model snapshots behind the replies (issue 8): "id fingerprint: n; ..."
                     "models_seen": "; ".join(f"{m.get('model')} {m.get('system_fingerprint') or ''}".strip()
                                              + f": {m.get('count')}" for m in u.get("models_seen") or []) or None})
    cols = ["judge", "dataset", "variant", "units", "replies", *USAGE_FIELDS, "usage_file", "models_seen"]
    return pd.DataFrame(rows, columns=cols)
