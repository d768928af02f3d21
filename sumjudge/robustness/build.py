"""The robustness stage's tables from judge tables (rule ``robustness``; docs/robustness.md).

- :func:`family_tables`: per judge, dimension and level, the family's summary (quantiles,
  intervals, prompt share, rank agreement, sensitivity) and one row per template
  (correlation, valid-reply rate, scored correlation, documents scored).
- :func:`table6_generalised`: the paper's four SummEval variants beside the family's
  quantiles, one row per judge, dimension and level.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from .. import datasets as _ds
from ..stats.matrix import likert_matrix
from ..stats.repeats import aggregate_samples
from .design import estimate
from .families import Family, thin_design_note, to_scale
from .spread import SpreadSettings, spread

ID = ["judge", "family", "dimension", "level"]


def unit_scores(frame: pd.DataFrame, units: pd.Index, dimension: str) -> np.ndarray:
    """Per unit of ``units``: the mean of the judge table's valid samples (NaN: no valid
    sample, or the unit was not asked)."""
    wide = frame.pivot_table(index="unit_id", columns="sample", values=dimension, aggfunc="first", dropna=False)
    wide = wide.reindex(units.astype(str))
    return aggregate_samples(wide.to_numpy(dtype=float), "mean")


def _grid(human: pd.DataFrame, values: np.ndarray, docs, systems) -> np.ndarray:
    return likert_matrix(human[["doc_id", "system"]].assign(_s=values), "_s", docs, systems)


def stack(human: pd.DataFrame, tables: dict[str, pd.DataFrame], family: Family, dimension: str):
    """(``P x D x S`` scores on the dataset's scale, ``D x S`` human, ``P x D`` asked mask)."""
    spec = _ds.get(family.dataset)
    units = pd.Index(human["unit_id"].astype(str))
    docs, systems = sorted(human["doc_id"].unique()), sorted(human["system"].unique())
    mats, asked = [], []
    for t in family.templates:
        x = unit_scores(tables[t], units, dimension)
        if t in family.scales:
            x = to_scale(x, family.scales[t], spec.likert_scale)
        mats.append(_grid(human, x, docs, systems))
        seen = set(tables[t]["unit_id"].astype(str))
        asked.append(_grid(human, units.isin(seen).astype(float), docs, systems) == 1)
    mask = np.stack([a.any(axis=1) for a in asked])
    return np.stack(mats), likert_matrix(human, dimension, docs, systems), mask


def family_tables(human: pd.DataFrame, judge_tables: dict[str, dict[str, pd.DataFrame]], family: Family,
                  settings: SpreadSettings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary, prompts) frames of every judge and dimension (module docstring)."""
    spec = _ds.get(family.dataset)
    human = human.assign(unit_id=human["unit_id"].astype(str))
    summary, prompts = [], []
    for judge, tables in judge_tables.items():
        for dim in spec.dimensions:
            scores, h, mask = stack(human, tables, family, dim)
            key = {"judge": judge, "family": family.name, "dimension": dim}
            s_rows, p_rows = _spread(scores, h, mask, spec.likert_scale, settings, family)
            summary += [{**key, **r} for r in s_rows]
            prompts += [{**key, **r} for r in p_rows]
    return pd.DataFrame(summary), pd.DataFrame(prompts)


def _spread(scores, human, mask, scale, settings, family: Family):
    """The full grid's spread, or the design's quantiles with each template's rows on its
    own documents."""
    if mask.all():
        summary, rows = spread(scores, human, scale, settings, list(family.templates))
        return [{**r, "design": "full grid", "requests_ratio": float(len(scores)),
                 "template_documents": int(mask.shape[1])} for r in summary], \
            [{**r, "n_documents": int(mask.shape[1])} for r in rows]
    # unasked documents are no invalid replies: the scored cells only, nothing scored as the leaderboard would
    asked = dataclasses.replace(settings, estimand="valid", resamples=1)
    full, _ = spread(np.where(mask[:, :, None], scores, np.nan), human, scale, asked, list(family.templates))
    est = {r["level"]: r for r in estimate(scores, human, mask, scale, settings)}
    summary = []
    for r in full:  # rank agreement, sensitivity and valid rates read the scored cells; quantiles the design's
        e = est[r["level"]]
        quantiles = {k: e[k] for k in e if k.startswith("q")}
        bounds = {k: np.nan for k in r if k.startswith("q") and k.endswith(("_low", "_high"))}
        share = {k: np.nan for k in ("observed", "noise", "prompt", "share")}
        summary.append({**r, **quantiles, **bounds, **share, "valid_rate_min": np.nan,
                        "design": f"{family.per_document} prompts per document", "requests_ratio": e["requests_ratio"],
                        "template_documents": int(mask.sum(axis=1).min())})
    rows = []
    for p, name in enumerate(family.templates):
        docs = np.flatnonzero(mask[p])
        _, own = spread(scores[p:p + 1, docs], human[docs], scale, settings, [name])
        rows += [{**r, "n_documents": len(docs)} for r in own]
    return summary, rows


PAPER_VARIANTS = ("base", "def", "def_ins", "sys_prompt")


def paper_variants(human: pd.DataFrame, judge_tables: dict[str, dict[str, pd.DataFrame]], dataset: str,
                   settings: SpreadSettings) -> pd.DataFrame:
    """Each judge's correlation with each of the paper's variants it has (one row per judge,
    dimension, level and variant; the same estimand as the family's)."""
    spec = _ds.get(dataset)
    human = human.assign(unit_id=human["unit_id"].astype(str))
    rows = []
    for judge, tables in judge_tables.items():
        names = [v for v in PAPER_VARIANTS if v in tables]
        if not names:
            continue
        fam = Family("paper", dataset, "", tuple(names), per_document=None)
        for dim in spec.dimensions:
            scores, h, _ = stack(human, tables, fam, dim)
            _, own = spread(scores, h, spec.likert_scale, settings, names)
            column = "correlation_scored" if settings.estimand == "scored" else "correlation"
            rows += [{"judge": judge, "dimension": dim, "level": r["level"], "variant": r["prompt"],
                      "value": r[column]} for r in own]
    return pd.DataFrame(rows, columns=["judge", "dimension", "level", "variant", "value"])


def table6_generalised(summary: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """One row per judge, dimension and level: the paper's variants, then the family's
    10th percentile (the headline: a plausible worst prompt), median and 90th percentile
    with their intervals, the prompt share and the worst valid-reply rate."""
    wide = paper.pivot_table(index=["judge", "dimension", "level"], columns="variant", values="value").reset_index()
    wide = wide[[c for c in ["judge", "dimension", "level", *PAPER_VARIANTS] if c in wide.columns]]
    keep = [c for c in ["judge", "family", "dimension", "level", "n_prompts", "q10", "q10_low", "q10_high", "q50",
                        "q50_low", "q50_high", "q90", "q90_low", "q90_high", "share", "valid_rate_min",
                        "rank_tau_median", "sensitivity", "design", "requests_ratio", "template_documents"]
            if c in summary.columns]
    return summary[keep].merge(wide, on=["judge", "dimension", "level"], how="left")


def markdown(table: pd.DataFrame) -> str:
    """The generalised Table 6 as a Markdown page (values to 3 decimals)."""
    lines = ["# Table 6 generalised: the paper's prompt variants beside the family's quantiles", "",
             "q10 is the headline: a plausible worst prompt. [low, high]: document-bootstrap interval "
             "(prompts fixed); share: the noise-corrected prompt share of the variance (docs/robustness.md).", ""]
    lines += design_warnings(table)
    variants = [v for v in PAPER_VARIANTS if v in table.columns]
    head = ["judge", "family", "dimension", "level", *variants, "q10 [low, high]", "median", "q90", "share",
            "min valid rate"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in table.to_dict("records"):
        cells = [r["judge"], r["family"], r["dimension"], r["level"], *[_f(r[v]) for v in variants],
                 f"{_f(r['q10'])} [{_f(r['q10_low'])}, {_f(r['q10_high'])}]", _f(r["q50"]), _f(r["q90"]),
                 _f(r["share"]), _f(r["valid_rate_min"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def design_warnings(table: pd.DataFrame) -> list[str]:
    """One line per family whose subset design gives a template fewer than
    ``families.MIN_TEMPLATE_DOCUMENTS`` documents (its quantiles are then far from the full grid's)."""
    if "template_documents" not in table.columns:
        return []
    design = table[table["design"] != "full grid"]
    out = []
    for family, rows in design.groupby("family", sort=True):
        note = thin_design_note(int(rows["template_documents"].min()))
        if note:
            out += [f"**{family}**: {note}.", ""]
    return out


def _f(x) -> str:
    return "" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.3f}"
