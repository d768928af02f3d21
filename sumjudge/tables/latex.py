"""LaTeX (booktabs) for the correlation tables, laid out like the paper:
one row per metric, one column group per dimension with its three levels,
the best value of each column in bold."""
from __future__ import annotations

import math

import pandas as pd

from ..stats.correlation import LEVELS

_ESCAPE = {"_": r"\_", "&": r"\&", "%": r"\%", "#": r"\#"}


def escape(text: str) -> str:
    return "".join(_ESCAPE.get(c, c) for c in str(text))


def _fmt(value: float, digits: int) -> str:
    return "--" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def correlation_latex(df: pd.DataFrame, dimensions: tuple[str, ...], caption: str, label: str,
                      digits: int = 3) -> str:
    rows = list(dict.fromkeys(df["row"]))
    cols = [(d, lv) for d in dimensions for lv in LEVELS]
    grid = df.pivot_table(index="row", columns=["dimension", "level"], values="value", aggfunc="first")
    best = {c: grid[c].max() if c in grid else math.nan for c in cols}
    spec = "l" + "ccc" * len(dimensions)
    lines = [r"\begin{table*}[t]", r"\centering", r"\small", rf"\begin{{tabular}}{{{spec}}}", r"\toprule"]
    lines.append(" & " + " & ".join(rf"\multicolumn{{3}}{{c}}{{{d.capitalize()}}}" for d in dimensions) + r" \\")
    lines.append("".join(rf"\cmidrule(lr){{{2 + 3 * i}-{4 + 3 * i}}}" for i in range(len(dimensions))))
    lines.append("Metric & " + " & ".join(lv.capitalize() for _, lv in cols) + r" \\")
    lines.append(r"\midrule")
    for r in rows:
        cells = []
        for c in cols:
            v = grid.at[r, c] if c in grid and r in grid.index else math.nan
            s = _fmt(v, digits)
            if not math.isnan(v) and not math.isnan(best[c]) and round(v, digits) == round(best[c], digits):
                s = rf"\textbf{{{s}}}"
            cells.append(s)
        lines.append(escape(r) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{escape(caption)}}}", rf"\label{{{label}}}",
              r"\end{table*}"]
    return "\n".join(lines) + "\n"
