"""One figure per dataset: every row's leave-one-out value and interval on one axis per
column, the humans (blue) and the judges (orange) together, so that "close to the
humans" is seen before it is read (docs/statistics.md, "Close to the humans"). Plain
inline SVG, drawn here: deterministic, no plotting library, no file.
"""
from __future__ import annotations

import html

import numpy as np
import pandas as pd

PANEL_W, LABEL_W, ROW_H, TOP = 250, 150, 14, 30
COLORS = {"human": "#1f77b4", "judge": "#ff7f0e"}


def _short(row: str, dataset) -> str:
    """A row's name without its dataset's label in front (the figure is the dataset's)."""
    prefix = f"{dataset} "
    return row[len(prefix):] if isinstance(dataset, str) and row.startswith(prefix) else row


def family_label(judge: str, family: str, q: float, width: int = 28) -> str:
    """A prompt family's row (:mod:`.families`) in the label space of ``width`` characters: its names
    differ at the end only, so "<judge> · <family>", cut to fit, then its quantile
    ("qwen-1.5b · summev… (median)", "qwen-1.5b · summeval_… (q10)")."""
    tail = " (median)" if q == 0.5 else f" (q{round(q * 100):02d})"
    head, room = f"{judge} · {family}", width - len(tail)
    return (head if len(head) <= room else head[:room - 1] + "…") + tail


def _points(part: pd.DataFrame) -> pd.DataFrame:
    """The rows with a leave-one-out value, humans first, labelled short (a human by its annotator's name)."""
    keep = part[part["loo_value"].notna()]
    keep = keep.iloc[np.argsort((keep["kind"] != "human").to_numpy(), kind="stable")].reset_index(drop=True)
    names = keep["annotator"] if "annotator" in keep else pd.Series([np.nan] * len(keep))
    label = [f"{a} (LOO)" if k == "human" and isinstance(a, str) else _short(str(r), d)
             for k, a, r, d in zip(keep["kind"], names, keep["row"], keep["dataset"])]
    if "prompt_quantile" in keep:  # a prompt family's rows: named by their quantile
        label = [family_label(j, f, q) if not pd.isna(q) else lab
                 for lab, j, f, q in zip(label, keep["judge"], keep["prompt_family"], keep["prompt_quantile"])]
    out = keep[["kind", "loo_value", "loo_low", "loo_high"]].assign(row=label)
    if "documents" in keep:  # a one-document bootstrap is no interval: drawn without one
        one = keep["documents"].eq(1).to_numpy()
        out.loc[one, ["loo_low", "loo_high"]] = np.nan
    return out


def _panel(col: str, pts: pd.DataFrame, x0: float, y0: float) -> list[str]:
    """One column: its rows' LOO dots and whiskers on an axis spanning their intervals."""
    vals = pts[["loo_value", "loo_low", "loo_high"]].to_numpy(float)
    lo, hi = np.nanmin(vals), np.nanmax(vals)
    lo, hi = (lo - 0.05, hi + 0.05) if hi - lo < 1e-9 else (lo - 0.02 * (hi - lo), hi + 0.02 * (hi - lo))
    left = x0 + LABEL_W

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (PANEL_W - 10)

    out = [f'<text x="{x0:.0f}" y="{y0 + 12:.0f}" font-size="11" font-weight="bold">{html.escape(col)}</text>']
    for i, r in pts.iterrows():
        y = y0 + TOP + i * ROW_H
        c = COLORS.get(r["kind"], "#555")
        out.append(f'<text x="{left - 4:.0f}" y="{y + 4:.0f}" font-size="9" text-anchor="end">'
                   f'{html.escape(str(r["row"])[:28])}</text>')
        if np.isnan(r["loo_low"]):  # no interval: a hollow dot, never a certain-looking mark
            out.append(f'<circle cx="{x(r["loo_value"]):.1f}" cy="{y:.0f}" r="3" fill="none" stroke="{c}">'
                       '<title>no interval</title></circle>')
            continue
        out.append(f'<line x1="{x(r["loo_low"]):.1f}" x2="{x(r["loo_high"]):.1f}" y1="{y:.0f}" y2="{y:.0f}" '
                   f'stroke="{c}"/>')
        out.append(f'<circle cx="{x(r["loo_value"]):.1f}" cy="{y:.0f}" r="3" fill="{c}"/>')
    yb = y0 + TOP + len(pts) * ROW_H
    out.append(f'<text x="{left:.0f}" y="{yb + 4:.0f}" font-size="9">{lo:.2f}</text>'
               f'<text x="{left + PANEL_W - 10:.0f}" y="{yb + 4:.0f}" font-size="9" text-anchor="end">{hi:.2f}</text>')
    return out


def dataset_figure(label: str, part: pd.DataFrame, per_row: int = 3) -> str:
    """The dataset's figure (empty when no column has a leave-one-out value)."""
    panels = [(col, _points(p)) for col, p in part.groupby("column", sort=False)]
    panels = [(c, p) for c, p in panels if len(p)]
    if not panels:
        return ""
    height = TOP + ROW_H * max(len(p) for _, p in panels) + 20
    w = LABEL_W + PANEL_W + 20
    body = [s for i, (c, p) in enumerate(panels) for s in _panel(c, p, (i % per_row) * w, (i // per_row) * height)]
    rows = -(-len(panels) // per_row)
    title = (f"{label}: leave-one-out value and 95 % interval of every row, humans (blue) and judges (orange); "
             f"each column on its own axis; a hollow dot has no interval (one document, or none computed)")
    svg = (f'<svg class="loo" xmlns="http://www.w3.org/2000/svg" width="{w * min(per_row, len(panels))}" '
           f'height="{rows * height}" role="img"><title>{html.escape(title)}</title>{"".join(body)}</svg>')
    return f'<figure class="loo">{svg}<figcaption>{html.escape(title)}</figcaption></figure>'  # the caption wraps
