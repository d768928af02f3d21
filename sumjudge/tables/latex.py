"""LaTeX (booktabs) for every table, laid out like the paper: one row per metric
or judge, the best value of each column in bold. A judge's value is marked with
a dagger where the paired permutation test against its comparison row gives
p < 0.05 (the CSV has the p-values and intervals)."""
from __future__ import annotations

import math

import pandas as pd

from ..stats.correlation import LEVELS

_ESCAPE = {"_": r"\_", "&": r"\&", "%": r"\%", "#": r"\#", "$": r"\$", "{": r"\{", "}": r"\}",
           "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}
ALPHA = 0.05
DAGGER = r"$^\dagger$"


def dagger_column(df: pd.DataFrame) -> str:
    """The p-value column that drives the daggers: the adjusted one (tables.correction) where present."""
    return "p_adjusted" if "p_adjusted" in df and df["p_adjusted"].notna().any() else "p_value"


def escape(text: str) -> str:
    return "".join(_ESCAPE.get(c, c) for c in str(text))


def escape_text(text: str, limit: int = 600) -> str:
    """Free text (a judge's reply) for a p{} cell: escaped, newlines as ``\\newline``, cut at ``limit``."""
    s = "" if text is None or (isinstance(text, float) and math.isnan(text)) else str(text).strip()
    if len(s) > limit:
        s = s[:limit].rstrip() + " [...]"
    lines = [escape(line) for line in s.splitlines()]
    return r" \newline ".join(line for line in lines if line.strip()) or "--"


def _nan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _fmt(value: float, digits: int) -> str:
    return "--" if _nan(value) else f"{value:.{digits}f}"


def _cell(v, best, digits: int, p=None) -> str:
    s = _fmt(v, digits)
    if not _nan(v) and not _nan(best) and round(v, digits) == round(best, digits):
        s = rf"\textbf{{{s}}}"
    if p is not None and not _nan(p) and p < ALPHA:
        s += DAGGER
    return s


def _wrap(body: list[str], caption: str, label: str, wide: bool = True) -> str:
    env = "table*" if wide else "table"
    lines = [rf"\begin{{{env}}}[t]", r"\centering", r"\small", *body,
             rf"\caption{{{escape(caption)}}}", rf"\label{{{label}}}", rf"\end{{{env}}}"]
    return "\n".join(lines) + "\n"


def _empty(caption: str, label: str) -> str:
    return _wrap([r"\begin{tabular}{l}", r"\toprule", r"No rows: no metric or judge output is configured. \\",
                  r"\bottomrule", r"\end{tabular}"], caption, label, wide=False)


def correlation_latex(df: pd.DataFrame, dimensions: tuple[str, ...], caption: str, label: str,
                      digits: int = 3) -> str:
    """Rows x (dimension, level) columns, best per column in bold."""
    if df.empty:
        return _empty(caption, label)
    rows = list(dict.fromkeys(df["row"]))
    cols = [(d, lv) for d in dimensions for lv in LEVELS]
    grid = df.pivot_table(index="row", columns=["dimension", "level"], values="value", aggfunc="first")
    pcol = dagger_column(df)
    pvals = (df.pivot_table(index="row", columns=["dimension", "level"], values=pcol, aggfunc="first")
             if pcol in df and df[pcol].notna().any() else None)
    best = {c: grid[c].max() if c in grid else math.nan for c in cols}
    spec = "l" + "ccc" * len(dimensions)
    lines = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule"]
    lines.append(" & " + " & ".join(rf"\multicolumn{{3}}{{c}}{{{d.capitalize()}}}" for d in dimensions) + r" \\")
    lines.append("".join(rf"\cmidrule(lr){{{2 + 3 * i}-{4 + 3 * i}}}" for i in range(len(dimensions))))
    lines.append("Metric & " + " & ".join(lv.capitalize() for _, lv in cols) + r" \\")
    lines.append(r"\midrule")
    for r in rows:
        cells = []
        for c in cols:
            v = grid.at[r, c] if c in grid and r in grid.index else math.nan
            p = pvals.at[r, c] if pvals is not None and c in pvals and r in pvals.index else None
            cells.append(_cell(v, best[c], digits, p))
        lines.append(escape(r) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return _wrap(lines, caption, label)


def accuracy_latex(df: pd.DataFrame, datasets: list[str], caption: str, label: str, digits: int = 4) -> str:
    """Rows x datasets: accuracy with its interval below in small type, best in bold."""
    if df.empty:
        return _empty(caption, label)
    rows = list(dict.fromkeys(df["row"]))
    cell = df.set_index(["row", "dataset"])
    pcol = dagger_column(df)
    best = {d: df.loc[df["dataset"] == d, "value"].max() for d in datasets}
    lines = [rf"\begin{{tabular}}{{l{'c' * len(datasets)}}}", r"\toprule",
             "Metric & " + " & ".join(escape(d) for d in datasets) + r" \\", r"\midrule"]
    for r in rows:
        parts = []
        for d in datasets:
            if (r, d) not in cell.index:
                parts.append("--")
                continue
            c = cell.loc[(r, d)]
            s = _cell(c["value"], best[d], digits, c.get(pcol))
            if not _nan(c.get("ci_low")):
                s += rf" {{\scriptsize[{c['ci_low']:.{digits - 1}f}, {c['ci_high']:.{digits - 1}f}]}}"
            parts.append(s)
        lines.append(escape(r) + " & " + " & ".join(parts) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return _wrap(lines, caption, label, wide=False)


def examples_latex(df: pd.DataFrame, caption: str, label: str, with_category: bool = False) -> str:
    """Qualitative tables (7, 8): judge, dataset, (category,) reply."""
    if df.empty:
        return _wrap([r"\begin{tabular}{l}", r"\toprule", r"No examples. \\", r"\bottomrule", r"\end{tabular}"],
                     caption, label, wide=False)
    head = ["Judge", "Dataset"] + (["Category"] if with_category else []) + ["Reply"]
    spec = "ll" + ("l" if with_category else "") + "p{0.55\\textwidth}"
    lines = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(head) + r" \\", r"\midrule"]
    for _, r in df.iterrows():
        cells = [escape(r["row"]), escape(r["dataset"])]
        if with_category:
            cells.append(escape(f"{r['category']} ({r['n_in_group']})"))
        cells.append(escape_text(r["reply"]))
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return _wrap(lines, caption, label)


def table9_latex(df: pd.DataFrame, caption: str, label: str) -> str:
    """Invalid-reply rates (rows: judge and prompt; columns: datasets; lowest in
    bold), then the judge's fluency-coherence correlation (section 4.3)."""
    rates = df[df["dimension"] == "invalid_rate"] if len(df) else df
    corr = df[df["table"] == "Sec4.3-text"] if len(df) else df
    if rates.empty and corr.empty:
        return _empty(caption, label)
    lines = []
    if not rates.empty:
        datasets = list(dict.fromkeys(rates["dataset"]))
        rows = list(dict.fromkeys(rates["row"]))
        cell = rates.set_index(["row", "dataset"])["value"]
        best = {d: rates.loc[rates["dataset"] == d, "value"].min() for d in datasets}
        lines += [rf"\begin{{tabular}}{{l{'c' * len(datasets)}}}", r"\toprule",
                  "Prompt & " + " & ".join(escape(d) for d in datasets) + r" \\", r"\midrule"]
        for r in rows:
            vals = [_cell(cell.get((r, d), math.nan), best[d], 4) for d in datasets]
            lines.append(escape(r) + " & " + " & ".join(vals) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
    if not corr.empty:
        if lines:
            lines.append(r"\par\medskip")
        lines += [r"\begin{tabular}{lc}", r"\toprule", r"Prompt & Spearman(fluency, coherence) \\", r"\midrule"]
        for _, r in corr.iterrows():
            lines.append(rf"{escape(r['row'])} & {_fmt(r['value'], 3)} \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
    return _wrap(lines, caption, label, wide=False)
