"""Both pairwise orders of a swappable protocol (sumjudge/stats/orders.py), by hand."""
import pytest

NAN = float("nan")


def test_both_orders_rules_by_hand():
    from sumjudge.stats.orders import both_orders
    # five pairs; gold = original index of the better summary
    original = [0, 1, 0, 0, NAN]
    swapped = [1, 0, 1, 1, 0]     # displayed positions; as original index: 0, 1, 0, 0, 1
    gold = [0, 0, 1, 0, 1]
    r = both_orders(original, swapped, gold)
    # pairs 0-3 valid in both orders, all consistent -> consistency 1, flip 0
    assert (r.n_pairs, r.consistency, r.flip_rate, r.n_conflicts, r.flagged) == (4, 1.0, 0.0, 0, False)
    # first position: original answers 0 1 0 0 (3 firsts), swapped 1 0 1 1 0 (2 firsts): 5 of 9
    assert r.first_position_rate == pytest.approx(5 / 9)
    # original only: right on pairs 0 and 3 of 4 valid -> .5
    assert r.acc_original == pytest.approx(0.5)
    r = both_orders([0, 0, 0, 1], [0, 0, 1, 1], [0, 1, 0, 1])
    # swapped as original index 1 1 0 0: pairs 2 agree (0), others conflict -> consistency 1/4, flip .75
    assert r.consistency == pytest.approx(0.25) and r.flagged and r.n_conflicts == 3
    # first position: 0 0 0 1 and 0 0 1 1 -> 5 of 8
    assert r.first_position_rate == pytest.approx(5 / 8)
    assert r.acc_original == pytest.approx(0.75)           # 0=0, 0!=1, 0=0, 1=1
    assert r.acc_agreement_else_tie == pytest.approx((0.5 + 0.5 + 1 + 0.5) / 4)
    assert r.acc_agreement_only == pytest.approx(1.0)      # the one agreeing pair is right
