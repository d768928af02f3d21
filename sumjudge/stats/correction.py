"""Multiple-comparison adjustment of p-values (definitions: docs/statistics.md).

A table tests one judge row against another row in every column (Table 1: 4
dimensions x 3 levels = 12 tests per judge). At p < 0.05 about one column in
twenty is "significant" by chance alone, so the daggers follow adjusted
p-values (``tables.correction``):

- ``holm`` (default): Holm (1979) step-down; controls the family-wise error
  rate (the chance of even one false dagger in the family) under any
  dependence between the tests.
- ``bh``: Benjamini and Hochberg (1995) step-up; controls the false discovery
  rate (the expected share of false daggers among the daggers). Valid for
  independent or positively dependent tests, which columns of one table
  (the same summaries at three levels) plausibly are.
- ``none``: the raw p-values.

NaN p-values (no test) are not part of the family and stay NaN.
"""
from __future__ import annotations

import numpy as np

CORRECTIONS = ("none", "holm", "bh")


def adjust(p_values, method: str = "holm") -> np.ndarray:
    """Adjusted p-values, in the input order, of one family of tests."""
    if method not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}, not {method!r} (config tables.correction)")
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if method == "none" or not ok.any():
        out[ok] = p[ok]
        return out
    q = p[ok]
    m = q.size
    order = np.argsort(q, kind="stable")
    ranked = q[order]
    k = np.arange(1, m + 1)
    if method == "holm":
        # p_(i) * (m - i + 1), made monotone from the smallest upwards
        adj = np.maximum.accumulate(np.minimum(1.0, (m - k + 1) * ranked))
    else:
        # p_(i) * m / i, made monotone from the largest downwards
        adj = np.minimum.accumulate(np.minimum(1.0, ranked * m / k)[::-1])[::-1]
    back = np.empty(m)
    back[order] = adj
    out[ok] = back
    return out


def adjust_table(df, method: str = "holm", family=("table", "row"), column: str = "p_value",
                 target: str = "p_adjusted"):
    """``df`` with ``target`` = ``column`` adjusted within each family (default:
    the columns of one table for one row, i.e. one judge or prompt variant)."""
    df = df.copy()
    df[target] = np.nan
    if len(df) == 0 or column not in df:
        return df
    for _, idx in df.groupby(list(family), sort=False, dropna=False).groups.items():
        df.loc[idx, target] = adjust(df.loc[idx, column].to_numpy(dtype=float), method)
    return df
