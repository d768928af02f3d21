"""The alt-test with invalid replies counted as losses, and composed with the gates
(docs/statistics.md, "Gates before verdicts"), by hand and on the real SummEval experts."""
import math

import numpy as np
import pytest

from sumjudge.stats import alt_test as at
from sumjudge.stats.gates import alt_test_allowed, near_constant

NAN = float("nan")
H0 = [1, 0, 1, 1, 0]
H1 = [1, 1, 1, 0, 0]
LABELS = np.array([H0, H1], dtype=float).T


def test_invalid_reply_is_a_loss_by_hand():
    pred = [1, 1, NAN, 0, 0]
    answered = [True, True, False, True, True]
    (t0, _), _ = at.annotator_tests("c", pred, LABELS, ["h0", "h1"], "accuracy", 0.2, 2,
                                    answered=answered, invalid="loss")
    # j = h0: units 0 1 3 4 as in the old hand test give W_f 1 1 1 1, W_h 1 0 0 1; unit 2 is a loss:
    # W_f 0, W_h 1 -> d = 0 -1 1 -1 0, the one_sided_t hand example: t -1.069045, p .172636
    assert (t0.n, t0.n_invalid) == (5, 1)
    assert (t0.rho_judge, t0.rho_human) == pytest.approx((0.8, 0.6))
    assert t0.t == pytest.approx(-1.069045, abs=1e-6) and t0.p_value == pytest.approx(0.172636, abs=1e-6)
    # dropped (the reference procedure): d = 0 -1 -1 0, mean -.5, sd sqrt(1/3): t = -.7 / (sqrt(1/3) / 2)
    (d0, _), _ = at.annotator_tests("c", pred, LABELS, ["h0", "h1"], "accuracy", 0.2, 2, answered=answered)
    assert (d0.n, d0.n_invalid, d0.rho_judge) == (4, 1, 1.0)
    assert d0.t == pytest.approx(-0.7 / (math.sqrt(1 / 3) / 2))
    # a NaN where answered is True is a unit not asked: left out, not invalid, under both rules
    (n0, _), _ = at.annotator_tests("c", pred, LABELS, ["h0", "h1"], "accuracy", 0.2, 2, invalid="loss")
    assert (n0.n, n0.n_invalid) == (4, 0) and n0.t == pytest.approx(d0.t)
    with pytest.raises(ValueError, match="invalid must be"):
        at.annotator_tests("c", pred, LABELS, invalid="skip")
    with pytest.raises(ValueError, match="one flag per unit"):
        at.annotator_tests("c", pred, LABELS, answered=[True])


def test_verdict_reports_invalid_units_and_not_tested():
    pred = [1, 1, NAN, 0, 0]
    tests, left = at.annotator_tests("c", pred, LABELS, ["h0", "h1"], "accuracy", 0.2, 2,
                                     answered=[True, True, False, True, True], invalid="loss")
    _, (v,) = at.judge_alt_test(tests, {"c": left})
    assert v.n_invalid == 1 and v.reason == ""
    _, (v,) = at.judge_alt_test(tests, {"c": left}, n_invalid={"c": 7})
    assert v.n_invalid == 7
    nt = at.not_tested("c", "near-constant: one answer for every unit", 3)
    assert (nt.passed, nt.n_annotators, nt.n_invalid) == (False, 0, 3) and math.isnan(nt.winning_rate)
    assert nt.reason == "not tested: near-constant: one answer for every unit"


@pytest.fixture(scope="module")
def summeval(prepared):
    return prepared("summeval")


def _verdict(df, dim, pred, score, **kw):
    lab = df[[f"{dim}_expert{i}" for i in range(3)]].to_numpy(dtype=float)
    pl, ll = pred, lab
    if score == "rank":
        pl, ll = at.within_group_ranks(pred, df["doc_id"]), at.within_group_ranks(lab, df["doc_id"])
    tests, left = at.annotator_tests(dim, pl, ll, ["e0", "e1", "e2"], score, 0.2, 30, **kw)
    done, (v,) = at.judge_alt_test(tests, {dim: left}, 0.05)
    return done, v


def test_constant_judge_on_real_summeval_consistency(summeval):
    df = summeval
    five = np.full(len(df), 5.0)
    # what the alt-test alone says (review H1): neg_rmse passes it, rank fails it
    done, v = _verdict(df, "consistency", five, "neg_rmse")
    assert v.passed and v.winning_rate == 1.0
    assert [t.rho_judge for t in done] == pytest.approx([0.9, 0.905625, 0.899375])
    done, v = _verdict(df, "consistency", five, "rank")
    assert not v.passed and v.winning_rate == 0.0
    assert v.advantage == pytest.approx(0.3008, abs=1e-4)
    # with the gate first, it is not tested under either score
    experts = df[[f"consistency_expert{i}" for i in range(3)]].to_numpy(dtype=float)
    ok, why = alt_test_allowed(near_constant(five, experts))
    assert not ok and why == "not tested: near-constant: one answer for every unit"


def test_known_truth_judges_on_real_summeval(summeval):
    df = summeval
    experts = df[[f"consistency_expert{i}" for i in range(3)]].to_numpy(dtype=float)
    mean = df["consistency"].to_numpy(dtype=float)
    # the expert mean (it contains the left-out expert, so it wins): not greyed, passes both scores
    assert alt_test_allowed(near_constant(mean, experts)) == (True, "")
    for score in ("neg_rmse", "rank"):
        assert _verdict(df, "consistency", mean, score)[1].passed
    # a random judge (uniform 1-5) fails both
    rand = np.random.default_rng(0).integers(1, 6, len(df)).astype(float)
    for score in ("neg_rmse", "rank"):
        assert _verdict(df, "consistency", rand, score)[1].winning_rate == 0.0
    # the mean judge that fails to answer half the units: dropped, it still passes on its half;
    # counted as losses, it fails (rho_judge at most about .5)
    half = mean.copy()
    half[::2] = NAN
    answered = ~np.isnan(half)
    assert _verdict(df, "consistency", half, "neg_rmse", answered=answered)[1].passed
    done, v = _verdict(df, "consistency", half, "neg_rmse", answered=answered, invalid="loss")
    assert not v.passed and v.n_invalid == 800 and max(t.rho_judge for t in done) <= 0.5


def test_length_biased_judge_is_not_greyed_and_fails(summeval):
    df = summeval
    experts = df[[f"consistency_expert{i}" for i in range(3)]].to_numpy(dtype=float)
    words = df["summary"].str.split().str.len().to_numpy(dtype=float)
    longer = 1.0 + np.searchsorted(np.quantile(words, [0.2, 0.4, 0.6, 0.8]), words, side="right")  # length quintile
    g = near_constant(longer, experts)
    assert not g.flagged and g.modal_share == pytest.approx(0.2, abs=0.02)
    for score in ("neg_rmse", "rank"):
        assert not _verdict(df, "consistency", longer, score)[1].passed
