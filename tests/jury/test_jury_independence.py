"""The effective number of independent votes of a jury, fed members whose truth is known: copies of
one judge are one vote, members erring independently are k votes, a shared error in between; the
reference's own noise does not make independent members look correlated."""
import numpy as np
import pytest

from sumjudge.jury.independence import (accuracy_errors, effective_votes, likert_errors, mean_error_correlation,
                                        residuals)

RNG = np.random.default_rng(7)
D, S = 60, 16
Y = RNG.normal(size=(D, S)) * 2 + RNG.normal(size=(D, 1))  # documents differ in level


def test_effective_votes_formula():
    assert effective_votes(3, 0.0) == 3 and effective_votes(3, 1.0) == 1
    assert effective_votes(3, 0.6) == pytest.approx(3 / 2.2)  # the anchor's r_bar 0.60: 1.36 votes
    assert np.isnan(effective_votes(3, np.nan)) and np.isnan(effective_votes(3, -0.6))


def test_residuals_are_ols():
    x, y = np.array([1.0, 2.0, 2.0, 5.0]), np.array([0.0, 1.0, 2.0, 3.0])
    slope, icpt = np.polyfit(y, x, 1)
    np.testing.assert_allclose(residuals(x, y), x - (slope * y + icpt), atol=1e-12)
    assert np.isnan(residuals(x, np.ones(4))).all()


@pytest.mark.parametrize("level", ["sample", "system", "dataset"])
def test_copies_of_one_judge_are_one_vote(level):
    x = Y + RNG.normal(size=(D, S))
    r_bar, pairs = mean_error_correlation(likert_errors([x, x.copy(), x.copy()], Y, level))
    assert pairs == 3 and r_bar == pytest.approx(1.0) and effective_votes(3, r_bar) == pytest.approx(1.0)


@pytest.mark.parametrize("level, tol", [("sample", 0.08), ("dataset", 0.08), ("system", 0.45)])
def test_independent_errors_are_k_votes(level, tol):
    members = [Y + RNG.normal(size=(D, S)) for _ in range(3)]
    r_bar, _ = mean_error_correlation(likert_errors(members, Y, level))
    assert abs(r_bar) < tol  # 16 system means: a noisy estimate, but centred on 0
    if level != "system":
        assert effective_votes(3, r_bar) == pytest.approx(3, rel=0.2)


def test_a_noisy_reference_biases_r_bar_upwards_as_documented():
    # dataset level: var(truth) = 4 + 1, reference noise 1, member noise 1: the least-squares slope on the
    # reference is 5/6, so each residual holds (1/6) truth - (5/6) noise of the reference, variance 5/6,
    # beside its own noise (variance 1): r_bar = (5/6) / (5/6 + 1) = 0.4545
    reference = Y + RNG.normal(size=(D, S))
    members = [Y + RNG.normal(size=(D, S)) for _ in range(3)]
    r_bar, _ = mean_error_correlation(likert_errors(members, reference, "dataset"))
    assert r_bar == pytest.approx(5 / 11, abs=0.04)
    # subtracting the reference instead would share all of its noise: r_bar 1/2
    naive = np.stack([(m - reference).ravel() for m in members])
    assert mean_error_correlation(naive)[0] == pytest.approx(0.5, abs=0.04)


def test_a_shared_error_lands_in_between():
    shared = RNG.normal(size=(D, S))
    members = [Y + shared + RNG.normal(size=(D, S)) for _ in range(3)]  # half the error variance shared
    r_bar, _ = mean_error_correlation(likert_errors(members, Y, "dataset"))
    assert r_bar == pytest.approx(0.5, abs=0.06)
    assert 1.4 < effective_votes(3, r_bar) < 1.6


def test_missing_scores_leave_those_points_out_for_every_member():
    a, b = Y + RNG.normal(size=(D, S)), Y + RNG.normal(size=(D, S))
    a[0, :5] = np.nan
    e = likert_errors([a, b], Y, "dataset")
    assert e.shape == (2, D * S - 5) and np.isfinite(e).all()


def test_accuracy_errors_correlate_wrong_decisions():
    wrong = RNG.random(400) < 0.3
    same = np.where(wrong, 0.0, 1.0)
    other = np.where(RNG.random(400) < 0.3, 0.0, 1.0)
    c = [same, same.copy(), other]
    c[2][:10] = np.nan  # a decision a member did not answer leaves it out for all
    e = accuracy_errors(c)
    assert e.shape == (3, 390)
    r_bar, pairs = mean_error_correlation(e)
    assert pairs == 3 and r_bar == pytest.approx((1 + 0 + 0) / 3, abs=0.08)
    never_wrong = [np.ones(50), np.ones(50), np.zeros(50)]
    assert mean_error_correlation(accuracy_errors(never_wrong)) == (pytest.approx(float("nan"), nan_ok=True), 0)
