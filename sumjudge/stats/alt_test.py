"""The alternative annotator test ("alt-test"; Calderon, Reichart and Dror, ACL 2025).

Question: may a judge replace the human annotators? For each annotator ``j``
(left out in turn) and each unit ``i`` that ``j`` labelled (with at least one
other label), compare how well the judge and annotator ``j`` agree with the
*other* annotators (definitions: docs/statistics.md, "The judge leaderboard"):

    S(f, i, j)  = alignment of the judge's label with the others' labels on i
    S(h_j, i, j) = alignment of annotator j's label with the others' labels on i
    W^f_ij = 1[S(f) >= S(h_j)],   W^h_ij = 1[S(h_j) >= S(f)]   (a tie wins for both)
    rho^f_j = mean_i W^f_ij  (the judge's advantage probability over annotator j)
    d_i = W^h_ij - W^f_ij ;  H0: mean(d) >= epsilon  vs  H1: mean(d) < epsilon
    t = (mean(d) - epsilon) / (sd(d) / sqrt(n)),  sd with n - 1,  p = P(T_{n-1} <= t)

Alignment (``score``): ``accuracy`` = share of the others' labels equal to the
source's (labels); ``neg_rmse`` = -sqrt(mean of squared differences to the
others' scores) (Likert); ``rank`` = ``neg_rmse`` on tie-aware average ranks of
the scores within a document (Likert; see :func:`within_group_ranks`).

The p-values of all annotator x column tests of one judge form one family,
adjusted by Benjamini-Yekutieli at ``q`` (FDR under any dependence); a caller that
fixes the family's size (``family_size``: every test the run's columns hold, whatever
was gated) counts the tests not run as p = 1. Per column: winning rate = share of its
(kept) annotators whose H0 is rejected; average advantage probability = mean of
rho^f_j; pass = winning rate >= 0.5. An annotator with fewer than ``min_instances``
units is left out and counted.

:func:`shuffle_within` draws the null control: the judge's own answers permuted
within groups (same answers, no link to the units), which a caller runs through the
same test.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np
from scipy import stats as _st

SCORES = ("accuracy", "neg_rmse", "rank")


def alignment(source, others, score: str = "accuracy") -> np.ndarray:
    """Per unit, alignment of ``source`` (N) with ``others`` (N x K, NaN = no label); NaN if no other label."""
    source = np.asarray(source, dtype=float)
    others = np.asarray(others, dtype=float)
    if others.ndim == 1:
        others = others[:, None]
    valid = ~np.isnan(others) & ~np.isnan(source)[:, None]
    k = valid.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if score == "accuracy":
            hit = np.where(valid, others == source[:, None], False).sum(axis=1)
            return np.where(k > 0, hit / np.maximum(k, 1), np.nan)
        if score in ("neg_rmse", "rank"):
            sq = np.where(valid, (others - source[:, None]) ** 2, 0.0).sum(axis=1)
            return np.where(k > 0, -np.sqrt(sq / np.maximum(k, 1)), np.nan)
    raise ValueError(f"alt-test score must be one of {SCORES}, not {score!r}")


def within_group_ranks(values, groups) -> np.ndarray:
    """Average (tie-aware) ranks of ``values`` within each group (a document); NaN stays NaN.

    ``values`` is N or N x K (each column ranked on its own). One sort per column (by group,
    then value): a tie block's rank is the mean of its positions, counted from its group's
    first position (the leaderboard ranks every row's answers and 20 shuffles of them)."""
    values = np.asarray(values, dtype=float)
    flat = values.ndim == 1
    v = values[:, None] if flat else values
    g = np.unique(np.asarray(groups), return_inverse=True)[1].ravel()
    out = np.full(v.shape, np.nan)
    for k in range(v.shape[1]):
        idx = np.flatnonzero(~np.isnan(v[:, k]))
        order = idx[np.lexsort((v[idx, k], g[idx]))]
        gs, xs = g[order], v[order, k]
        pos = np.arange(order.size)
        new_group = np.r_[True, gs[1:] != gs[:-1]] if order.size else np.zeros(0, bool)
        new_block = new_group | np.r_[True, xs[1:] != xs[:-1]] if order.size else new_group
        start = np.maximum.accumulate(np.where(new_group, pos, 0))       # the group's first position
        first = pos[new_block]
        last = np.r_[first[1:], order.size] - 1
        out[order, k] = ((first + last) / 2 - start[first] + 1)[np.cumsum(new_block) - 1]
    return out[:, 0] if flat else out


def one_sided_t(d, epsilon: float) -> tuple[float, float]:
    """(t, p) of H0: mean(d) >= epsilon against mean(d) < epsilon.

    With no spread (every d equal) the test is decided by the sign: p = 0 if the
    mean is below epsilon, else 1 (t = -inf / +inf)."""
    d = np.asarray(d, dtype=float)
    n = d.size
    if n < 2:
        return float("nan"), float("nan")
    mean = d.mean()
    sd = d.std(ddof=1)
    if sd == 0:
        return (float("-inf"), 0.0) if mean < epsilon else (float("inf"), 1.0)
    t = (mean - epsilon) / (sd / np.sqrt(n))
    return float(t), float(_st.t.cdf(t, n - 1))


def by_adjust(p_values) -> np.ndarray:
    """Benjamini-Yekutieli adjusted p-values: min(1, p_(i) m c(m) / i) made monotone
    from the largest down, c(m) = sum_{k<=m} 1/k. NaN stays NaN (not in the family)."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return out
    q = p[ok]
    order = np.argsort(q, kind="stable")
    c = np.sum(1.0 / np.arange(1, m + 1))
    raw = np.minimum(1.0, q[order] * m * c / np.arange(1, m + 1))
    adj = np.minimum.accumulate(raw[::-1])[::-1]
    back = np.empty(m)
    back[order] = adj
    out[ok] = back
    return out


@dataclass(frozen=True)
class AnnotatorTest:
    column: str
    annotator: str
    n: int
    rho_judge: float     # advantage probability of the judge over this annotator
    rho_human: float
    t: float
    p_value: float
    p_adjusted: float = float("nan")
    rejected: bool = False
    n_invalid: int = 0   # units of this annotator the judge did not answer validly (losses under "loss")

    def as_dict(self) -> dict:
        return asdict(self)


INVALID = ("drop", "loss")


def annotator_tests(column: str, pred, labels, annotators: list[str] | None = None, score: str = "accuracy",
                    epsilon: float = 0.1, min_instances: int = 30, *, answered=None,
                    invalid: str = "drop") -> tuple[list[AnnotatorTest], list[str]]:
    """The per-annotator tests of one column (unadjusted) and the annotators left out (too few units).

    ``pred``: N judge labels (NaN = no valid label), ``labels``: N x A annotator labels
    (NaN = not labelled). For ``rank``, pass ranks already (:func:`within_group_ranks`).
    ``answered``: N booleans, False where the judge was asked and gave no valid label
    (default: every NaN label is a unit not asked); ``invalid``: ``drop`` leaves such a
    unit out, ``loss`` counts it as a loss for the judge (module docstring)."""
    pred = np.asarray(pred, dtype=float)
    labels = np.asarray(labels, dtype=float)
    if labels.ndim != 2 or labels.shape[0] != pred.shape[0]:
        raise ValueError(f"labels must be N x A with N = {pred.shape[0]}, got {labels.shape}")
    if invalid not in INVALID:
        raise ValueError(f"alt-test invalid must be one of {INVALID}, not {invalid!r}")
    bad = np.zeros(pred.shape, bool) if answered is None else ~np.asarray(answered, dtype=bool)
    if bad.shape != pred.shape:
        raise ValueError(f"answered must have one flag per unit ({pred.shape[0]}), got shape {bad.shape}")
    bad = bad & np.isnan(pred)     # a valid label is valid whatever the mask says
    names = annotators or [str(a) for a in range(labels.shape[1])]
    tests, left_out = [], []
    for a, name in enumerate(names):
        others = np.delete(labels, a, axis=1)
        own = labels[:, a]
        labelled = ~np.isnan(own) & (~np.isnan(others)).any(axis=1)
        lost = labelled & bad
        use = labelled & (~np.isnan(pred) | (lost if invalid == "loss" else False))
        n = int(use.sum())
        if n < max(2, min_instances):
            left_out.append(name)
            continue
        s_f = alignment(pred[use], others[use], score)
        s_h = alignment(own[use], others[use], score)
        gone = lost[use]
        w_f = np.where(gone, 0.0, (s_f >= s_h).astype(float))
        w_h = np.where(gone, 1.0, (s_h >= s_f).astype(float))
        t, p = one_sided_t(w_h - w_f, epsilon)
        tests.append(AnnotatorTest(column, name, n, float(w_f.mean()), float(w_h.mean()), t, p,
                                   n_invalid=int(lost.sum())))
    return tests, left_out


@dataclass(frozen=True)
class ColumnVerdict:
    column: str
    n_annotators: int      # annotators tested
    n_left_out: int        # annotators with fewer than min_instances units
    winning_rate: float    # share of tested annotators whose H0 was rejected
    advantage: float       # mean advantage probability of the judge
    passed: bool           # winning rate >= 0.5
    n_invalid: int = 0     # units of the column the judge did not answer validly
    reason: str = ""       # why there is no verdict (e.g. "not tested: near-constant ...")

    def as_dict(self) -> dict:
        return asdict(self)


def judge_alt_test(tests: list[AnnotatorTest], left_out: dict[str, list[str]], q: float = 0.05,
                   n_invalid: dict[str, int] | None = None,
                   family_size: int | None = None) -> tuple[list[AnnotatorTest], list[ColumnVerdict]]:
    """BY over all of one judge's annotator x column tests, then one verdict per column.

    ``left_out``: column -> annotators left out (a column with only left-out annotators
    gets a verdict with NaN rates and ``passed=False``). ``n_invalid``: column -> units
    the judge did not answer validly (default: the most over the column's annotator tests).
    ``family_size``: the family's size when it is fixed beforehand (at least the tests
    given; the tests not run count as p = 1)."""
    pad = max(0, (family_size or 0) - len(tests))
    adj = by_adjust([t.p_value for t in tests] + [1.0] * pad)[:len(tests)]
    done = [replace(t, p_adjusted=float(a), rejected=bool(a <= q)) for t, a in zip(tests, adj)]
    columns = list(dict.fromkeys([t.column for t in done] + list(left_out)))
    verdicts = []
    for col in columns:
        mine = [t for t in done if t.column == col]
        if mine:
            wr = float(np.mean([t.rejected for t in mine]))
            adv = float(np.mean([t.rho_judge for t in mine]))
        else:
            wr = adv = float("nan")
        bad = (n_invalid or {}).get(col, max([t.n_invalid for t in mine], default=0))
        verdicts.append(ColumnVerdict(col, len(mine), len(left_out.get(col, [])), wr, adv,
                                      bool(mine) and wr >= 0.5, int(bad)))
    return done, verdicts


def shuffle_within(values, groups=None, seed: int = 0) -> np.ndarray:
    """``values`` (N, or N x samples: rows move together) permuted within each group
    (``groups``: N keys; None: one group). Units of groups with a single unit cannot
    move there, so they are shuffled together as one group."""
    v = np.asarray(values, dtype=float)
    return _shuffled(v, _shuffle_groups(groups, v.shape[0]), seed)


def _shuffle_groups(groups, n: int) -> list[np.ndarray]:
    """The units of each group of :func:`shuffle_within`, in its order (the groups by sorted key,
    the single-unit groups pooled first; each group's units ascending), found once for many shuffles."""
    keys = np.zeros(n, int) if groups is None else np.unique(np.asarray(groups), return_inverse=True)[1]
    keys = np.where(np.bincount(keys)[keys] > 1, keys, -1)
    order = np.argsort(keys, kind="stable")
    bounds = np.flatnonzero(np.diff(keys[order])) + 1
    return np.split(order, bounds)


def _shuffled(v: np.ndarray, parts: list[np.ndarray], seed: int) -> np.ndarray:
    """One shuffle of :func:`shuffle_within`: each group's units permuted by ``default_rng(seed)``,
    group after group (the same draws, in the same order, as one permutation call per group)."""
    rng = np.random.default_rng(seed)
    out = v.copy()
    out[np.concatenate(parts)] = v[np.concatenate([rng.permutation(idx) for idx in parts])]
    return out


def not_tested(column: str, reason: str, n_invalid: int = 0) -> ColumnVerdict:
    """The verdict of a column where a gate keeps the judge out of the alt-test
    (:func:`sumjudge.stats.gates.alt_test_allowed`): no rates, not passed, not counted
    among the tested columns; ``reason`` starts "not tested: "."""
    why = reason if reason.startswith("not tested") else f"not tested: {reason}"
    return ColumnVerdict(column, 0, 0, float("nan"), float("nan"), False, int(n_invalid), why)


def control_tests(column: str, answers, labels, annotators: list[str], groups, score: str, epsilon: float,
                  min_instances: int, shuffles: int, seed: int = 0) -> list[tuple[list[AnnotatorTest], list[str]]]:
    """The null control's tests: ``answers`` (N; NaN: no valid answer, a loss) permuted
    ``shuffles`` times, shuffle ``k`` by :func:`shuffle_within` with seed ``seed + k``, each
    through the tests of :func:`annotator_tests` under ``score`` (``invalid="loss"``; the same
    numbers, every shuffle at once). Under ``rank`` the answers move within ``groups``
    (documents: the alignment compares ranks within one, so a within-document shuffle keeps
    every document's answers and breaks only their order); under another score over every
    unit. Ranks within a group do not change when the group's answers are permuted, so they
    are computed once and permuted."""
    answers = np.asarray(answers, dtype=float)
    labels = np.asarray(labels, dtype=float)
    within = groups if score == "rank" else None
    pred, lab = (within_group_ranks(answers, groups), within_group_ranks(labels, groups)) if score == "rank" \
        else (answers, labels)
    parts = _shuffle_groups(within, pred.shape[0])
    moved = np.stack([_shuffled(pred, parts, seed + k) for k in range(shuffles)], axis=1)
    out: list[tuple[list[AnnotatorTest], list[str]]] = [([], []) for _ in range(shuffles)]
    for a, name in enumerate(annotators):
        others, own = np.delete(lab, a, axis=1), lab[:, a]
        use = ~np.isnan(own) & (~np.isnan(others)).any(axis=1)
        if int(use.sum()) < max(2, min_instances):
            for tests, left in out:
                left.append(name)
            continue
        for k, t in enumerate(_shuffled_tests(column, name, moved[use], own[use], others[use], score, epsilon)):
            out[k][0].append(t)
    return out


def _shuffled_tests(column: str, name: str, moved: np.ndarray, own: np.ndarray, others: np.ndarray, score: str,
                    epsilon: float) -> list[AnnotatorTest]:
    """One annotator's test of every shuffle (``moved``: n x R), as :func:`annotator_tests`."""
    s_h = alignment(own, others, score)
    x = np.transpose(others)[:, :, None]                      # K x n x 1 against n x R
    valid = ~np.isnan(x) & ~np.isnan(moved)[None]
    k = valid.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        if score == "accuracy":
            s_f = np.where(valid, x == moved[None], False).sum(axis=0) / np.maximum(k, 1)
        else:
            s_f = -np.sqrt(np.where(valid, (x - moved[None]) ** 2, 0.0).sum(axis=0) / np.maximum(k, 1))
    gone = np.isnan(moved)
    w_f = np.where(gone, 0.0, (s_f >= s_h[:, None]).astype(float))
    w_h = np.where(gone, 1.0, (s_h[:, None] >= s_f).astype(float))
    n = moved.shape[0]
    t, p = _one_sided_ts(w_h - w_f, epsilon)
    rho_f, rho_h, lost = w_f.mean(axis=0), w_h.mean(axis=0), gone.sum(axis=0)
    return [AnnotatorTest(column, name, n, float(rho_f[r]), float(rho_h[r]), float(t[r]), float(p[r]),
                          n_invalid=int(lost[r])) for r in range(moved.shape[1])]


def _one_sided_ts(d: np.ndarray, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`one_sided_t` of every column of ``d`` (n x R, n >= 2) at once."""
    n = d.shape[0]
    mean, sd = d.mean(axis=0), d.std(axis=0, ddof=1)
    flat = sd == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (mean - epsilon) / (sd / np.sqrt(n))
    t = np.where(flat, np.where(mean < epsilon, -np.inf, np.inf), t)
    p = np.where(flat, np.where(mean < epsilon, 0.0, 1.0), _st.t.cdf(t, n - 1))
    return t, p


def permutation_p(observed: float, shuffled) -> float:
    """The permutation p of ``observed`` against its ``shuffled`` values (R of them):
    (1 + #{shuffled >= observed}) / (R + 1) (Phipson and Smyth 2010: never 0, exact under
    exchangeability); NaN where nothing was observed or shuffled."""
    s = np.asarray(shuffled, dtype=float)
    s = s[~np.isnan(s)]
    if np.isnan(observed) or not s.size:
        return float("nan")
    return float((1 + np.sum(s >= observed - 1e-12)) / (s.size + 1))
