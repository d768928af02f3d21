r"""LaTeX (booktabs) for every table, laid out like the paper: one row per metric
or judge, the best value of each column in bold. A judge's value is marked with
a dagger where the paired permutation test against its comparison row gives
p < 0.05 (the CSV has the p-values and intervals).

Fit for a paper (docs/tables.md):

- the caption never starts with "Table N:" (LaTeX numbers the float itself);
- every tabular is scaled down to ``\linewidth`` when wider (``\resizebox``
  from graphicx; never scaled up), so a ``table*`` fits ``\textwidth`` and a
  ``table`` the column of a two-column ACL page; the free-text column of Tables
  7-8 is ragged-right with break points in long tokens. Needs
  ``\usepackage{booktabs,graphicx,array}``;
- negative numbers get a real minus sign (``$-$``);
- **bold marks a unique best**: the column's best value after rounding to the
  printed digits, among rows that are not near-constant judges; when two or
  more rows share it, or the column has a single row, nothing in that column is bold;
- a near-constant judge's cells carry a section mark (``$^\S$``) and are never bold;
- **bold only where the column can separate rows** (:func:`can_separate`): not when its
  intervals come from one document (``n_clusters`` 1), nor when the permutation test between
  the best row and a row it is compared with gives p = 1. An accuracy cell whose interval
  comes from one cluster prints ``n/a (1 document)`` instead of a zero-width interval.
"""
from __future__ import annotations

import math
import re

import pandas as pd

from ..latex import PACKAGES, escape, fit, minus
from ..stats.correlation import LEVELS
from .common import one_cluster

ALPHA = 0.05
DAGGER = r"$^\dagger$"
NEAR_MARK = r"$^\S$"
_TABLE_PREFIX = re.compile(r"^\s*Table\s+\d+\s*:\s*")
_LONG_TOKEN = 24  # break points every this many characters in a token longer than that


def dagger_column(df: pd.DataFrame) -> str:
    """The p-value column that drives the daggers: the adjusted one (tables.correction) where present."""
    return "p_adjusted" if "p_adjusted" in df and df["p_adjusted"].notna().any() else "p_value"


def _breakable(token: str) -> str:
    if len(token) <= _LONG_TOKEN:
        return escape(token)
    return r"\allowbreak{}".join(escape(token[i:i + _LONG_TOKEN]) for i in range(0, len(token), _LONG_TOKEN))


def escape_text(text: str, limit: int = 600) -> str:
    """Free text (a judge's reply) for a p{} cell: escaped, newlines as ``\\newline``,
    long tokens breakable, cut at ``limit``."""
    s = "" if text is None or (isinstance(text, float) and math.isnan(text)) else str(text).strip()
    if len(s) > limit:
        s = s[:limit].rstrip() + " [...]"
    lines = [" ".join(_breakable(w) for w in line.split()) for line in s.splitlines()]
    return r" \newline ".join(line for line in lines if line.strip()) or "--"


def _nan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or (not isinstance(v, str) and pd.isna(v))


def _fmt(value: float, digits: int) -> str:
    return "--" if _nan(value) else minus(f"{value:.{digits}f}")


def significant(p) -> bool:
    """Whether a judge cell gets a dagger (the one place that decides it)."""
    return p is not None and not _nan(p) and p < ALPHA


def unique_best(values: dict, digits: int, lower_better: bool = False, exclude: set | None = None):
    """The key whose value, rounded to ``digits``, is the single best; None on a tie, when
    fewer than two rows have a value (nothing to be best against), or when no value is left
    after ``exclude`` (near-constant judges)."""
    if sum(1 for v in values.values() if not _nan(v)) < 2:
        return None
    vals = {k: round(v, digits) for k, v in values.items() if not _nan(v) and k not in (exclude or set())}
    if not vals:
        return None
    top = min(vals.values()) if lower_better else max(vals.values())
    keys = [k for k, v in vals.items() if v == top]
    return keys[0] if len(keys) == 1 else None


def can_separate(cells: pd.DataFrame, best) -> bool:
    """Whether a column's cells (long form: ``row``, ``n_clusters``, ``p_value``,
    ``compared_with``) can separate ``best`` from the other rows, so that it may be marked
    best (docs/tables.md): False when the column's intervals come from one resampling cluster
    (every resample the same value), or when a permutation test between ``best`` and another
    row (``best`` tested against it, or it against ``best``) gives p = 1."""
    if best is None:
        return False
    if "n_clusters" in cells and (pd.to_numeric(cells["n_clusters"], errors="coerce") == 1).any():
        return False
    if "p_value" not in cells or "compared_with" not in cells:
        return True
    touching = cells[(cells["row"] == best) | (cells["compared_with"] == best)]
    return not (pd.to_numeric(touching["p_value"], errors="coerce") >= 1).any()


def column_best(cells: pd.DataFrame, digits: int, lower_better: bool = False, exclude: set | None = None):
    """The row to mark best in one column (long-form ``cells``): the unique best
    (:func:`unique_best`) where the column can separate rows (:func:`can_separate`), else None.
    The LaTeX and the overview page both decide bold here."""
    g = cells.dropna(subset=["value"]).drop_duplicates("row")
    best = unique_best(g.set_index("row")["value"].to_dict(), digits, lower_better, exclude)
    return best if can_separate(cells, best) else None


def _cell(v, is_best: bool, digits: int, p=None, near: bool = False) -> str:
    s = _fmt(v, digits)
    if is_best and not near and not _nan(v):
        s = rf"\textbf{{{s}}}"
    if significant(p):
        s += DAGGER
    if near and not _nan(v):
        s += NEAR_MARK
    return s


def caption_text(caption: str) -> str:
    """The caption without a leading "Table N:" (the float numbers itself)."""
    return _TABLE_PREFIX.sub("", caption, count=1)


def _wrap(body: list[str], caption: str, label: str, wide: bool = True) -> str:
    env = "table*" if wide else "table"
    cap = caption_text(caption)
    cap = cap[:1].upper() + cap[1:]
    lines = [f"% {PACKAGES}", rf"\begin{{{env}}}[t]", r"\centering", r"\small", *body,
             rf"\caption{{{escape(cap)}}}", rf"\label{{{label}}}", rf"\end{{{env}}}"]
    return "\n".join(lines) + "\n"


def _empty(caption: str, label: str) -> str:
    return _wrap([r"\begin{tabular}{l}", r"\toprule", r"No rows: no metric or judge output is configured. \\",
                  r"\bottomrule", r"\end{tabular}"], caption, label, wide=False)


def _near_rows(df: pd.DataFrame) -> set[tuple]:
    """(row, dimension, level, dataset) of every near-constant judge cell."""
    if "near_constant" not in df:
        return set()
    flag = df["near_constant"].astype(str).str.lower().isin(("true", "1", "1.0"))
    d = df[flag]
    return set(zip(d["row"], d["dimension"], d["level"], d["dataset"]))


def correlation_latex(df: pd.DataFrame, dimensions: tuple[str, ...], caption: str, label: str,
                      digits: int = 3) -> str:
    """Rows x (dimension, level) columns, unique best per column in bold."""
    if df.empty:
        return _empty(caption, label)
    rows = list(dict.fromkeys(df["row"]))
    cols = [(d, lv) for d in dimensions for lv in LEVELS]
    grid = df.pivot_table(index="row", columns=["dimension", "level"], values="value", aggfunc="first")
    pcol = dagger_column(df)
    pvals = (df.pivot_table(index="row", columns=["dimension", "level"], values=pcol, aggfunc="first")
             if pcol in df and df[pcol].notna().any() else None)
    near = {(r, d, lv) for r, d, lv, _ in _near_rows(df)}
    best = {c: column_best(df[(df["dimension"] == c[0]) & (df["level"] == c[1])], digits,
                           exclude={r for r, d, lv in near if (d, lv) == c}) for c in cols}
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
            cells.append(_cell(v, best[c] == r, digits, p, (r, *c) in near))
        lines.append(escape(r) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return _wrap(fit(lines), caption, label)


def accuracy_latex(df: pd.DataFrame, datasets: list[str], caption: str, label: str, digits: int = 4) -> str:
    """Rows x datasets: accuracy with its interval below in small type, unique best in bold.
    A dataset with several questions (HELM news: overall, informative) has a column per question."""
    if df.empty:
        return _empty(caption, label)
    rows = list(dict.fromkeys(df["row"]))
    cols = []  # (dataset, dimension or None: the dataset's only one), header
    for d in datasets:
        dims = list(dict.fromkeys(df.loc[df["dataset"] == d, "dimension"]))
        cols += [((d, None), d)] if len(dims) <= 1 else [((d, dim), f"{d} {dim}") for dim in dims]

    def cells_of(c):
        d, dim = c
        sel = df[(df["dataset"] == d) & ((df["dimension"] == dim) if dim is not None else True)]
        return sel.drop_duplicates("row").set_index("row")

    frames = {c: cells_of(c) for c, _ in cols}
    pcol = dagger_column(df)
    near = {(r, ds, dim) for r, dim, _, ds in _near_rows(df)}

    def is_near(r, c):
        return any((r, c[0], dim) in near for dim in ([c[1]] if c[1] is not None else
                                                       set(frames[c].get("dimension", []))))

    best = {c: column_best(frames[c].reset_index(), digits,
                           exclude={r for r in frames[c].index if is_near(r, c)}) for c, _ in cols}
    lines = [rf"\begin{{tabular}}{{l{'c' * len(cols)}}}", r"\toprule",
             "Metric & " + " & ".join(escape(h) for _, h in cols) + r" \\", r"\midrule"]
    for r in rows:
        parts = []
        for col, _ in cols:
            cell = frames[col]
            if r not in cell.index:
                parts.append("--")
                continue
            c = cell.loc[r]
            s = _cell(c["value"], best[col] == r, digits, c.get(pcol), is_near(r, col))
            if one_cluster(c):  # a zero-width interval from one document is no interval
                s += rf" {{\scriptsize {escape(one_cluster(c))}}}"
            elif not _nan(c.get("ci_low")):
                s += (rf" {{\scriptsize[{_fmt(c['ci_low'], digits - 1)}, "
                      rf"{_fmt(c['ci_high'], digits - 1)}]}}")
            parts.append(s)
        lines.append(escape(r) + " & " + " & ".join(parts) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return _wrap(fit(lines), caption, label, wide=False)


def examples_latex(df: pd.DataFrame, caption: str, label: str, with_category: bool = False) -> str:
    """Qualitative tables (7, 8): judge, dataset, (category,) reply."""
    if df.empty:
        return _wrap([r"\begin{tabular}{l}", r"\toprule", r"No examples. \\", r"\bottomrule", r"\end{tabular}"],
                     caption, label, wide=False)
    head = ["Judge", "Dataset"] + (["Category"] if with_category else []) + ["Reply"]
    spec = "ll" + ("l" if with_category else "") + r">{\raggedright\arraybackslash}p{0.55\textwidth}"
    lines = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(head) + r" \\", r"\midrule"]
    for _, r in df.iterrows():
        cells = [_breakable(str(r["row"])), escape(r["dataset"])]
        if with_category:
            cells.append(escape(f"{r['category']} ({r['n_in_group']})"))
        cells.append(escape_text(r["reply"]))
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return _wrap(fit(lines), caption, label)


def table9_latex(df: pd.DataFrame, caption: str, label: str) -> str:
    """Invalid-reply rates (rows: judge and prompt; columns: datasets; lowest in
    bold), then the judge's fluency-coherence correlation (section 4.3)."""
    rates = df[df["dimension"] == "invalid_rate"] if len(df) else df
    corr = df[df["table"] == "Sec4.3-text"] if len(df) else df
    if rates.empty and corr.empty:
        return _empty(caption, label)
    lines: list[str] = []
    wide = False
    if not rates.empty:
        datasets = list(dict.fromkeys(rates["dataset"]))
        wide = len(datasets) > 3
        rows = list(dict.fromkeys(rates["row"]))
        cell = rates.set_index(["row", "dataset"])["value"]
        best = {d: column_best(rates[rates["dataset"] == d], 4, lower_better=True) for d in datasets}
        tab = [rf"\begin{{tabular}}{{l{'c' * len(datasets)}}}", r"\toprule",
               "Prompt & " + " & ".join(escape(d) for d in datasets) + r" \\", r"\midrule"]
        for r in rows:
            vals = [_cell(cell.get((r, d), math.nan), best[d] == r, 4) for d in datasets]
            tab.append(escape(r) + " & " + " & ".join(vals) + r" \\")
        tab += [r"\bottomrule", r"\end{tabular}"]
        lines += fit(tab)
    if not corr.empty:
        if lines:
            lines.append(r"\par\medskip")
        tab = [r"\begin{tabular}{lc}", r"\toprule", r"Prompt & Spearman(fluency, coherence) \\", r"\midrule"]
        for _, r in corr.iterrows():
            tab.append(rf"{escape(r['row'])} & {_fmt(r['value'], 3)} \\")
        tab += [r"\bottomrule", r"\end{tabular}"]
        lines += fit(tab)
    return _wrap(lines, caption, label, wide=wide)
