"""Pairwise judgements asked in both orders (definitions: docs/statistics.md, "The judge leaderboard").

A pair is asked as (summary_0, summary_1) (the paper's original order) and, with
``judge.pairwise_orders: [original, swapped]``, as (summary_1, summary_0). A reply
names a *displayed* position (0 = first); in the swapped order the original index
of the pick is ``1 - choice``. Per judge:

- position consistency: share of pairs (both answers valid) whose picked summary is
  the same in both orders; flip rate = 1 - consistency (flagged above ``flag``, 10 %);
- first-position pick rate: share of all valid answers (both orders) that pick the
  summary shown first;
- accuracy under three rules: ``original`` (original order only, as the paper),
  ``agreement_else_tie`` (a conflict counts as half right), ``agreement_only``
  (conflicting pairs left out, and counted).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

FLIP_FLAG = 0.10


@dataclass(frozen=True)
class BothOrders:
    n_pairs: int            # pairs with a valid answer in both orders
    consistency: float
    flip_rate: float
    first_position_rate: float
    acc_original: float
    acc_agreement_else_tie: float
    acc_agreement_only: float
    n_conflicts: int        # pairs left out by agreement_only
    flagged: bool           # flip rate above the flag

    def as_dict(self) -> dict:
        return asdict(self)


def both_orders(original, swapped, gold, flag: float = FLIP_FLAG) -> BothOrders:
    """``original``/``swapped``: the displayed position picked in each order (0/1, NaN = invalid);
    ``gold``: the human's original index of the better summary."""
    o = np.asarray(original, dtype=float)
    s = np.asarray(swapped, dtype=float)
    g = np.asarray(gold, dtype=float)
    if not (o.shape == s.shape == g.shape):
        raise ValueError(f"original, swapped and gold differ in length: {o.size}, {s.size}, {g.size}")
    back = 1 - s                                   # the swapped pick as an original index
    both = ~np.isnan(o) & ~np.isnan(s)
    agree = both & (o == back)
    n = int(both.sum())
    cons = float(agree.sum() / n) if n else float("nan")
    answers = np.concatenate([o[~np.isnan(o)], s[~np.isnan(s)]])
    first = float((answers == 0).mean()) if answers.size else float("nan")
    ok_o = ~np.isnan(o)
    acc_o = float((o[ok_o] == g[ok_o]).mean()) if ok_o.any() else float("nan")
    tie = np.where(agree, (o == g).astype(float), 0.5)[both]
    acc_t = float(tie.mean()) if n else float("nan")
    acc_a = float((o[agree] == g[agree]).mean()) if agree.any() else float("nan")
    flip = 1 - cons if n else float("nan")
    return BothOrders(n, cons, flip, first, acc_o, acc_t, acc_a, int(n - agree.sum()),
                      bool(n and flip > flag))
