"""How often each verdict is wrong, from the calibration run's draws (docs/statistics.md,
"Calibration of the verdicts"). Inputs: the cells and significant pairs of
:func:`support.calibration.run_draw` (with a ``dataset`` column) and the true values of
:func:`support.calibration.truths` ({(dataset, kind, column): value}: the verdicts' estimand, and
for ``above`` the answered truth, what an abstaining judge would have scored had it answered)."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from .known_judges import KINDS

POWER = 0.8
TIE = 0.01       # true values closer than this are "equal": no pair is inverted or detected between them


def _with_truth(cells: pd.DataFrame, truth: dict) -> pd.DataFrame:
    keys = zip(cells["dataset"], cells["row"], cells["column"])
    return cells.assign(truth=[truth.get(k, np.nan) for k in keys])


def alt_rates(cells: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and kind (a held-out annotator: ``held-out``; the simulated annotator:
    ``exchangeable``): the share of (draw, tested
    column) where the alt-test passes (a greyed row does not pass; nor do "uninformative" and
    "inconclusive"), and the shares read "uninformative" and "inconclusive"."""
    c = cells[cells["alt_passed"].notna()]
    c = c.assign(p=c["alt_passed"].astype(float), u=(c["alt_result"] == "uninformative").astype(float),
                 i=(c["alt_result"] == "inconclusive").astype(float), row=_kind(c["row"]))
    g = c.groupby(["dataset", "row"])
    out = g.agg(rate=("p", "mean"), uninformative=("u", "mean"), inconclusive=("i", "mean"), n=("p", "size"))
    return out.reset_index().rename(columns={"row": "kind"})


HELD_OUT = "held-out"
EXCHANGEABLE = "exchangeable"   # the simulated annotator-quality judge (support.calibration.run_exchangeable)


def _kind(rows: pd.Series) -> pd.Series:
    """A held-out annotator's row ("held-out <name>") as one kind, ``held-out``."""
    return rows.where(~rows.str.startswith(HELD_OUT + " "), HELD_OUT)


MARGINS = (0.02, 0.05, 0.1, 0.15)   # "close" margins of the sensitivity table (config: leaderboard.close_margin)


def close_rates(cells: pd.DataFrame, margins=MARGINS) -> pd.DataFrame:
    """Per dataset, level and kind: the share of (draw, column) read "close to the humans" at
    each margin ``m`` (the one-sided lower bound of judge LOO minus the humans' above -m; the
    verdict at ``leaderboard.close_margin`` is one of them), where closeness is tested (3 or
    more annotators; a greyed row is not close)."""
    c = cells[np.isfinite(cells["close_bound"].astype(float))] if "close_bound" in cells else cells.iloc[:0]
    c = c.assign(row=_kind(c["row"]), **{f"m{m}": (c["close_bound"] > -m) & ~c["greyed"].astype(bool)
                                         for m in margins})
    out = c.groupby(["dataset", "level", "row"])[[f"m{m}" for m in margins]].mean()
    out["n"] = c.groupby(["dataset", "level", "row"]).size()
    return out.reset_index().rename(columns={"row": "kind"})


def interval_rates(cells: pd.DataFrame, truth: dict, answered: dict | None = None) -> pd.DataFrame:
    """Per dataset, level and kind: value outside its own interval; interval missing its
    value, flagged (``extended``; never widened); interval covering the truth; interval entirely above the answered
    truth (``above``: abstaining paid; ``answered`` defaults to ``truth``); mean value minus truth."""
    c = _with_truth(cells[cells["focus"]], truth)
    c = c.assign(answered=_with_truth(c, answered or truth)["truth"])
    c = c[np.isfinite(c["value"]) & np.isfinite(c["ci_low"]) & np.isfinite(c["ci_high"])]
    tol = 1e-9
    c = c.assign(outside=(c["value"] < c["ci_low"] - tol) | (c["value"] > c["ci_high"] + tol),
                 covered=(c["ci_low"] - tol <= c["truth"]) & (c["truth"] <= c["ci_high"] + tol),
                 above=c["ci_low"] - tol > c["answered"], bias=c["value"] - c["truth"],
                 extended=c["extended"].astype(bool) if "extended" in c else False)
    c = c[np.isfinite(c["truth"])]
    g = c.groupby(["dataset", "level", "row"])
    out = g.agg(outside=("outside", "mean"), extended=("extended", "mean"), coverage=("covered", "mean"),
                above=("above", "mean"), bias=("bias", "mean"), n=("outside", "size"), k=("covered", "sum"))
    out = out.reset_index().rename(columns={"row": "kind"})
    ci = [binomtest(int(k), int(n)).proportion_ci(0.95, "exact") for k, n in zip(out["k"], out["n"])]
    return out.assign(cov_low=[c.low for c in ci], cov_high=[c.high for c in ci]).drop(columns="k")


def coverage_verdicts(iv: pd.DataFrame, nominal: float = 0.95) -> dict[str, int]:
    """Cells whose coverage is significantly below ``nominal`` (its exact binomial 95 % interval
    entirely under it), significantly above, and in all (issue 40: judged against its Monte
    Carlo error, not a band)."""
    return {"below": int((iv["cov_high"] < nominal).sum()), "above": int((iv["cov_low"] > nominal).sum()),
            "cells": len(iv)}


def _board(cells: pd.DataFrame, board, truth: dict) -> pd.DataFrame:
    """The focus cells of the ranked rows, with their true values."""
    return _with_truth(cells[cells["focus"] & cells["row"].isin(list(board))], truth)


def rank_rates(cells: pd.DataFrame, board, truth: dict) -> pd.DataFrame:
    """Per dataset and level: the share of ranked pairs (true values apart by more than TIE)
    where the truly worse row has the strictly better rank; the share of ranked columns where
    no row has rank 1."""
    rows = []
    c = _board(cells, board, truth)
    for (ds, lv_), c in c[c["rank"].notna()].groupby(["dataset", "level"]):
        inverted = pairs = vacant = columns = 0
        for _, col in c.groupby(["draw", "column"]):
            t, r = col["truth"].to_numpy(), col["rank"].to_numpy(float)
            worse = t[:, None] < t[None, :] - TIE                       # row i truly worse than row j
            pairs += int(worse.sum())
            inverted += int((worse & (r[:, None] < r[None, :])).sum())
            vacant += int(r.min() > 1)
            columns += 1
        rows.append({"dataset": ds, "level": lv_, "inversions": inverted / pairs if pairs else np.nan,
                     "pairs": pairs, "vacant": vacant / columns, "columns": columns})
    return pd.DataFrame(rows)


def detections(cells: pd.DataFrame, pairs: pd.DataFrame, board, truth: dict) -> pd.DataFrame:
    """Per dataset, column and pair of ranked kinds whose true values differ by more than TIE:
    the difference, and the share of the draws measuring that column where the truly better
    one is significantly better."""
    hits = pairs.groupby(["dataset", "column", "better", "worse"]).size() if len(pairs) else pd.Series(dtype=int)
    out = []
    for (ds, col), c in _board(cells, board, truth).groupby(["dataset", "column"]):
        t = c.groupby("row")["truth"].first()
        draws = c["draw"].nunique()
        for a in t.index:
            for b in t.index:
                if t[a] > t[b] + TIE:
                    out.append({"dataset": ds, "column": col, "level": c["level"].iloc[0], "better": a, "worse": b,
                                "delta": t[a] - t[b], "power": hits.get((ds, col, a, b), 0) / draws, "draws": draws})
    return pd.DataFrame(out)


def smallest_detectable(det: pd.DataFrame, power: float = POWER) -> pd.DataFrame:
    """Per dataset and level: the smallest true difference detected with ``power``: the
    detection rates made monotone in the difference (pool adjacent violators, weighted by draws),
    then interpolated linearly; ``bound`` says ">" when no tested difference reaches it (the
    largest is given) and "<=" when the smallest already does."""
    rows = []
    for (ds, lv_), d in det.groupby(["dataset", "level"]):
        d = d.sort_values("delta")
        x, y = d["delta"].to_numpy(), _monotone(d["power"].to_numpy(), d["draws"].to_numpy(float))
        if y[-1] < power:
            mdd, bound = x[-1], ">"
        elif y[0] >= power:
            mdd, bound = x[0], "<="
        else:
            k = int(np.argmax(y >= power))
            mdd, bound = x[k - 1] + (power - y[k - 1]) * (x[k] - x[k - 1]) / (y[k] - y[k - 1]), "="
        rows.append({"dataset": ds, "level": lv_, "mdd": float(mdd), "bound": bound, "points": len(d)})
    return pd.DataFrame(rows)


def _monotone(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Non-decreasing least-squares fit of ``y`` (weights ``w``): pool adjacent violators."""
    blocks = []                                   # [value, weight, size]
    for v, wt in zip(y, w):
        blocks.append([v, wt, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, n2 = blocks.pop()
            v1, w1, n1 = blocks.pop()
            blocks.append([(v1 * w1 + v2 * w2) / (w1 + w2), w1 + w2, n1 + n2])
    return np.concatenate([[v] * n for v, _, n in blocks])


def uninformative(kinds) -> list[str]:
    return [k for k in kinds if KINDS[k].uninformative]
