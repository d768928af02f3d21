"""The paper's 28-column view: for every column of Tables 1-5 (12 + 12 + 1 + 1 + 2),
each judge's value minus the strongest other row's, with the permutation test's
verdict. Written as CSV and as an SVG chart (matplotlib)."""
from __future__ import annotations

import math

import pandas as pd

ALPHA = 0.05
TABLE_ORDER = ("Table 1", "Table 2", "Table 3", "Table 4", "Table 5")
SHORT = {"Table 1": "SummEval", "Table 2": "Newsroom", "Table 3": "TLDR", "Table 4": "REALSumm"}


def column_label(cell: pd.Series) -> str:
    if cell["table"] in ("Table 1", "Table 2"):
        return f"{SHORT[cell['table']]} {cell['dimension'][:4]}. {cell['level']}"
    if cell["table"] == "Table 5":
        return cell["dataset"]
    return SHORT.get(cell["table"], cell["table"])


def judge_vs_best(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """One row per (judge, column) where the judge was compared with another row."""
    cells = pd.concat([t for t in tables if len(t)], ignore_index=True) if any(len(t) for t in tables) \
        else pd.DataFrame(columns=["table", "kind", "compared_with"])
    cells = cells[cells["table"].isin(TABLE_ORDER) & (cells["kind"] == "judge") & cells["compared_with"].notna()]
    cols = ["judge", "table", "dataset", "dimension", "level", "column", "value", "compared_with",
            "delta", "p_value", "significant"]
    if cells.empty:
        return pd.DataFrame(columns=cols)
    out = cells.assign(judge=cells["row"], column=cells.apply(column_label, axis=1),
                       significant=cells["p_value"] < ALPHA)
    out["_t"] = out["table"].map({t: i for i, t in enumerate(TABLE_ORDER)})
    out = out.sort_values("_t", kind="stable")
    return out[cols].reset_index(drop=True)


def plot(df: pd.DataFrame, path: str) -> None:
    """Bars of judge minus strongest other row per column, one panel per judge;
    a star marks p < 0.05."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "sumjudge"  # reproducible SVG ids
    import matplotlib.pyplot as plt

    judges = list(dict.fromkeys(df["judge"])) if len(df) else []
    fig, axes = plt.subplots(max(1, len(judges)), 1, figsize=(12, 3.6 * max(1, len(judges))), squeeze=False)
    if not judges:
        ax = axes[0][0]
        ax.text(0.5, 0.5, "No judge row was compared with another row\n(no judge or no metric configured)",
                ha="center", va="center", fontsize=12)
        ax.set_axis_off()
    for ax, judge in zip(axes[:, 0], judges):
        d = df[df["judge"] == judge].reset_index(drop=True)
        colors = ["#2b8cbe" if v >= 0 else "#e34a33" for v in d["delta"].fillna(0)]
        ax.bar(range(len(d)), d["delta"].fillna(0), color=colors)
        ax.axhline(0, color="black", linewidth=0.8)
        for i, row in d.iterrows():
            if bool(row["significant"]) and not math.isnan(row["delta"]):
                v = row["delta"]
                ax.text(i, v + (0.01 if v >= 0 else -0.03), "*", ha="center", fontsize=12)
        ax.set_xticks(range(len(d)))
        ax.set_xticklabels(d["column"], rotation=70, ha="right", fontsize=8)
        ax.set_ylabel("judge - strongest other")
        lim = max(0.05, float(d["delta"].abs().max()) if d["delta"].notna().any() else 0.05)
        ax.set_ylim(-lim * 1.25, lim * 1.25)
        ax.set_title(f"{judge}: value minus the strongest other row per column (* p < {ALPHA})", fontsize=10)
        for i, t in enumerate(d["table"]):
            if i > 0 and t != d["table"][i - 1]:
                ax.axvline(i - 0.5, color="grey", linewidth=0.5, linestyle=":")
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)
