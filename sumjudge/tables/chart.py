"""The paper's 28-column view: for every column of Tables 1-5 (12 + 12 + 1 + 1 + 2),
each judge's margin over the strongest other row, with its interval, the paper's
published margin beside it and the sample size. Written as CSV, SVG and PNG.

- Units: Tables 1-2 in correlation points (rho), Tables 3-5 in percentage points
  (accuracy x 100), as the paper's summary presents them.
- Margin: the judge's value minus the strongest other row's (the row the tables
  test it against, ``compared_with``). Interval: the paired bootstrap interval
  of the difference where the table has one (``delta_ci_low``/``delta_ci_high``),
  else the judge's own interval minus the other row's value
  (``margin_ci = "judge interval - other value"``).
- Paper margin: the published ChatGPT value minus the highest published value of
  the other rows printed in that column (metrics only), where this copy of the
  published values has both.
- Every one of the 28 columns is drawn for every judge: where the judge has no
  row to be compared with (no metric configured for that dataset), or did not
  run, the column says so instead of silently dropping out.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from ..catalog import LEVELS, TABLES
from .published import load_published
from .common import one_cluster

ALPHA = 0.05
# what a correlation level's groups are (its n_groups; at dataset level: the summaries, n itself)
GROUP_WORDS = {"sample": "document", "system": "system"}
# the paper's Tables 1-5 (sumjudge/catalog.py): a Likert dataset's dimensions (alphabetical)
# at three levels, an accuracy dataset's one column
_PAPER = [s for t in TABLES.values() if t.kind in ("correlation", "accuracy") for s in t.specs]
TABLE_ORDER = tuple(dict.fromkeys(s.paper_table for s in _PAPER))
SHORT = {t: ds[0].label for t in TABLE_ORDER if len(ds := [s for s in _PAPER if s.paper_table == t]) == 1}
COLUMNS_28: tuple[tuple[str, str, str, str], ...] = tuple(
    (s.paper_table, s.label, d, lv) for s in _PAPER
    for d, lvs in ([(d, LEVELS) for d in sorted(s.dimensions)] or [(s.accuracy_dimension, ("accuracy",))])
    for lv in lvs)
CSV_COLUMNS = ["judge", "table", "dataset", "dimension", "level", "column", "unit", "value", "compared_with",
               "other_value", "margin", "margin_low", "margin_high", "margin_ci", "p_value", "significant",
               "paper_margin", "paper_strongest", "n", "n_groups", "near_constant", "status", "n_clusters"]


def svg_id(*parts: str) -> str:
    """An SVG element id from free text (``bar-qwen-1.5b-SummEval-cohe.-sample``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", "-".join(parts)).strip("-")


def column_label(table: str, dataset: str, dimension: str, level: str) -> str:
    if table in ("Table 1", "Table 2"):
        return f"{SHORT[table]} {dimension[:4]}. {level}"
    if table == "Table 5":
        return dataset
    return SHORT.get(table, table)


def _scale(table: str) -> float:
    return 1.0 if table in ("Table 1", "Table 2") else 100.0


def paper_margins(published: pd.DataFrame | None = None) -> dict[tuple, tuple[float, str | None]]:
    """(table, dataset, dimension, level) -> (published ChatGPT minus strongest other, that row)."""
    pub = load_published() if published is None else published
    out = {}
    for key in COLUMNS_28:
        t, ds, dim, lv = key
        col = pub[(pub["table"] == t) & (pub["dataset"] == ds) & (pub["dimension"] == dim) & (pub["level"] == lv)]
        judge = col.loc[col["row"] == "ChatGPT", "value"]
        others = col[~col["row"].str.startswith(("ChatGPT", "Annotator"))].dropna(subset=["value"])
        if len(judge) and len(others) and not pd.isna(judge.iloc[0]):
            best = others.loc[others["value"].idxmax()]
            out[key] = (float(judge.iloc[0]) - float(best["value"]), str(best["row"]))
        else:
            out[key] = (math.nan, None)
    return out


def _flag(v) -> bool:
    return str(v).strip().lower() in ("true", "1", "1.0")


def judge_vs_best(tables: list[pd.DataFrame], published: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (judge, column) for all 28 columns of every judge in Tables 1-5."""
    frames = [t for t in tables if len(t)]
    cells = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["table", "kind", "row"])
    cells = cells[cells["table"].isin(TABLE_ORDER) & (cells["kind"] == "judge")]
    judges = list(dict.fromkeys(cells["row"]))
    margins = paper_margins(published)
    value_of = {}
    if frames:
        allc = pd.concat(frames, ignore_index=True)
        value_of = allc.set_index(["table", "dataset", "dimension", "level", "row"])["value"].to_dict()
    out = []
    for judge in judges:
        mine = cells[cells["row"] == judge].set_index(["table", "dataset", "dimension", "level"])
        for key in COLUMNS_28:
            t = key[0]
            scale = _scale(t)
            pm, pbest = margins[key]
            rec = {"judge": judge, "table": t, "dataset": key[1], "dimension": key[2], "level": key[3],
                   "column": column_label(*key), "unit": "rho" if scale == 1 else "percentage points",
                   "paper_margin": pm * scale if not math.isnan(pm) else math.nan, "paper_strongest": pbest}
            if key not in mine.index:
                weighted = str(judge).endswith(" [weighted]") and t in ("Table 3", "Table 4", "Table 5")
                out.append({**rec, "status": "weighted score: Likert tables only" if weighted
                            else "judge not run on this dataset"})
                continue
            c = mine.loc[key]
            c = c.iloc[0] if isinstance(c, pd.DataFrame) else c
            other = c.get("compared_with")
            rec.update(value=c["value"] * scale, n=c.get("n"), n_groups=c.get("n_groups"),
                       n_clusters=c.get("n_clusters"),
                       near_constant=_flag(c.get("near_constant")), p_value=c.get("p_value"))
            if other is None or (isinstance(other, float) and math.isnan(other)) or pd.isna(c.get("delta")):
                out.append({**rec, "status": "no other row to compare with (no metric configured)",
                            "significant": False})
                continue
            ov = value_of.get((*key, other), c["value"] - c["delta"])
            if not pd.isna(c.get("delta_ci_low", math.nan)):
                lo, hi, kind = c["delta_ci_low"], c["delta_ci_high"], "paired bootstrap"
            else:
                lo, hi, kind = c.get("ci_low", math.nan) - ov, c.get("ci_high", math.nan) - ov, \
                    "judge interval - other value"
            out.append({**rec, "compared_with": other, "other_value": ov * scale, "margin": c["delta"] * scale,
                        "margin_low": lo * scale, "margin_high": hi * scale, "margin_ci": kind,
                        "significant": bool(not pd.isna(c.get("p_value")) and c["p_value"] < ALPHA),
                        "status": "compared"})
    df = pd.DataFrame(out, columns=CSV_COLUMNS)
    return df


def _one_document(r) -> bool:
    return one_cluster(r) is not None


def without_interval(part: pd.DataFrame) -> list[bool]:
    """Per row, whether its margin has no interval to draw: none computed, one of zero width, or
    one bootstrapped from one resampling cluster (``n_clusters`` 1: a bootstrap over one document
    resamples the same value every time)."""
    low, high = part["margin_low"].astype(float), part["margin_high"].astype(float)
    return [bool(m == m and (lo != lo or hi != hi or lo == hi or _one_document(r)))
            for m, lo, hi, (_, r) in zip(part["margin"].astype(float), low, high, part.iterrows())]


def plot(df: pd.DataFrame, path: str, fmt: str | None = None) -> None:
    """Horizontal bars, one panel pair per judge: Tables 1-2 (rho) left, Tables 3-5
    (percentage points) right; the judge's margin with its interval, the paper's
    margin as a black diamond, n per column in the label; a star marks p < 0.05. A margin
    without an interval (:func:`without_interval`) gets no bar: a hollow point marked
    "no interval" (SVG id ``point-<judge>-<column>``; a bar: ``bar-...``; a column with no
    margin: its note, ``absent-...``)."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "sumjudge"  # reproducible SVG ids
    matplotlib.rcParams["svg.fonttype"] = "none"  # labels stay text: searchable, readable by screen readers
    import matplotlib.pyplot as plt

    fmt = fmt or str(path).rsplit(".", 1)[-1]
    judges = list(dict.fromkeys(df["judge"])) if len(df) else []
    n = max(1, len(judges))
    fig, axes = plt.subplots(n, 2, figsize=(9.5, 7.6 * n), squeeze=False,
                             gridspec_kw={"width_ratios": [3, 2]})
    if not judges:
        for ax in axes[0]:
            ax.set_axis_off()
        axes[0][0].text(0.5, 0.5, "No judge row in Tables 1-5\n(no judge configured)", ha="center", va="center")
    for (ax_rho, ax_pp), judge in zip(axes, judges):
        d = df[df["judge"] == judge].reset_index(drop=True)
        for ax, part, unit in ((ax_rho, d[d["table"].isin(("Table 1", "Table 2"))], "rho"),
                               (ax_pp, d[~d["table"].isin(("Table 1", "Table 2"))], "percentage points")):
            part = part.reset_index(drop=True)
            if len(part) and part["status"].str.startswith("weighted score").all():
                ax.set_axis_off()  # four "not run" boxes would say less than this
                ax.text(0.5, 0.5, "weighted scores: the Likert\ntables (1-2) only", ha="center", va="center",
                        fontsize=8, color="#444", transform=ax.transAxes)
                continue
            y = np.arange(len(part))[::-1]
            m = part["margin"].astype(float)
            edges = ["#bbbbbb" if _flag(nc) else ("#2b8cbe" if v >= 0 else "#e34a33")
                     for v, nc in zip(m.fillna(0), part["near_constant"])]
            bare = without_interval(part)  # no bar without an interval: a hollow point (issue 43)
            drawn = [not b and not pd.isna(v) for b, v in zip(bare, m)]
            lo = (m - part["margin_low"].astype(float)).clip(lower=0)
            hi = (part["margin_high"].astype(float) - m).clip(lower=0)
            if any(drawn):
                bars = ax.barh(y[drawn] + 0.18, m[drawn], height=0.36, color=np.array(edges)[drawn],
                               edgecolor=np.array(edges)[drawn], linewidth=0.8, label="judge margin (95% interval)",
                               xerr=[lo[drawn].fillna(0), hi[drawn].fillna(0)],
                               error_kw={"elinewidth": 0.8, "capsize": 2})
                for bar, col in zip(bars.patches, part["column"][drawn]):
                    bar.set_gid(svg_id("bar", judge, col))  # one SVG element per column: findable on the page
            for k, i in enumerate(np.flatnonzero(bare)):
                dot, = ax.plot([m[i]], [y[i] + 0.18], "o", markersize=4, markerfacecolor="none",
                               markeredgecolor=edges[i], markeredgewidth=0.8,
                               label="judge margin, no interval" if k == 0 else "_nolegend_")
                dot.set_gid(svg_id("point", judge, part["column"][i]))
            ax.barh(y - 0.18, part["paper_margin"].astype(float).fillna(0), height=0.36, color="none",
                    edgecolor="black", linewidth=0.6, label="paper's margin (ChatGPT)")
            ax.plot(part["paper_margin"].astype(float), y - 0.18, "kD", markersize=3)
            ax.axvline(0, color="black", linewidth=0.8)
            labels = []
            for i, r in part.iterrows():
                nn = "" if pd.isna(r["n"]) else f" n={int(r['n'])}"
                if not pd.isna(r.get("n_groups")) and r.get("level") in GROUP_WORDS:
                    k = int(r["n_groups"])
                    nn += f" in {k} {GROUP_WORDS[r['level']]}{'s' if k != 1 else ''}"
                if pd.isna(r["paper_margin"]):
                    nn += " (paper: n/a)"  # the published margin is not in this copy
                labels.append(f"{r['column']}{nn}")
                note = ""
                if r["status"] != "compared":
                    note = "no other row" if r["status"].startswith("no other") else "not run"
                elif _flag(r["near_constant"]):
                    note = "near-constant"
                elif bare[i]:
                    note = "no interval" + (" (1 document)" if _one_document(r) else "")
                elif bool(r["significant"]):
                    note = "*"
                if note:
                    # right of the bar and its interval (never over the bar): from 0 for a negative margin
                    ends = [v for v in (r["margin"], r["margin_high"]) if not pd.isna(v)]
                    x = max([0.0, *map(float, ends)])
                    text = ax.text(x, y[i] + 0.18, " " + note, va="center", fontsize=6.5, color="#444")
                    if pd.isna(r["margin"]):  # no margin, no bar: the note is the column's element
                        text.set_gid(svg_id("absent", judge, r["column"]))
            ax.set_yticks(y)
            ax.set_yticklabels(labels, fontsize=7)
            ax.set_xlabel(f"judge - strongest other row\n({unit})", fontsize=8)  # two lines: never clipped
            ax.tick_params(axis="x", labelsize=7)
            vals = pd.concat([m, part["margin_low"].astype(float), part["margin_high"].astype(float),
                              part["paper_margin"].astype(float)]).dropna()
            lim = max(0.05 if unit == "rho" else 5.0, float(vals.abs().max()) if len(vals) else 0.0) * 1.15
            ax.set_xlim(-lim, lim)
            for i in range(1, len(part)):
                if part["table"][i] != part["table"][i - 1]:
                    ax.axhline(y[i] + 0.5, color="grey", linewidth=0.5, linestyle=":")
        ax_rho.set_title(f"{judge}: Tables 1-2, margin over the strongest other row", fontsize=9)
        ax_pp.set_title(f"Tables 3-5 (* p < {ALPHA})", fontsize=9)  # the judge: in the title on its left
        if ax_pp.get_legend_handles_labels()[0]:
            ax_pp.legend(fontsize=6.5, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, format=fmt, metadata={"Date": None} if fmt == "svg" else None, dpi=100)
    plt.close(fig)
