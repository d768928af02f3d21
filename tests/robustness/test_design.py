"""The subset design and its estimator of a family's quantiles (sumjudge.robustness.design)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from support.prompt_grid import grid

from sumjudge.robustness.assignment import per_document_counts
from sumjudge.robustness.design import (_shrunk_quantiles, additive_fit, assign, complete_grids,
                                        document_correlations, estimate, expected_correlations, factor_fit,
                                        jackknife_variance, level_estimates, prompt_estimates, requests_ratio)
from sumjudge.robustness.spread import SpreadSettings, spread
from sumjudge.stats.matrix import levels_stack


def test_assignment_is_stratified_connected_and_costs_k_times_one_prompt():
    key = np.arange(24)[::-1]  # documents ranked in reverse order
    mask = assign(24, 6, 2, key)
    assert mask.sum(axis=0).tolist() == [2] * 24  # every document twice
    assert mask.sum(axis=1).tolist() == [8] * 6  # every prompt 2 x 24 / 6 documents
    assert requests_ratio(mask) == 2.0
    # blocks of 3 documents by rank (the largest key first): each prompt exactly once per block
    for start in range(0, 24, 3):
        docs = 23 - np.arange(start, start + 3)
        assert mask[:, docs].sum(axis=1).tolist() == [1] * 6
    # the random deals connect the prompts through shared documents (one connected component:
    # the graph Laplacian has one zero eigenvalue)
    shared = (mask.astype(int) @ mask.T.astype(int) > 0).astype(float)
    np.fill_diagonal(shared, 0)
    laplacian = np.diag(shared.sum(axis=1)) - shared
    assert (np.linalg.eigvalsh(laplacian) < 1e-9).sum() == 1
    assert (assign(24, 6, 2, key, seed=0) == mask).all() and not (assign(24, 6, 2, key, seed=1) == mask).all()


def test_assignment_refuses_more_prompts_per_document_than_the_family_has():
    with pytest.raises(ValueError, match="prompts_per_document must be between 1 and the family's 3 prompts"):
        assign(10, 3, 4)
    with pytest.raises(ValueError, match="4 documents x 2 prompts per document leave some of the family's 9"):
        assign(4, 9, 2)


def test_every_prompt_gets_documents_when_the_blocks_leave_one_out():
    for seed in range(20):  # 9 prompts, blocks of 4 documents: one prompt left out of each block
        counts = assign(8, 9, 2, seed=seed).sum(axis=1)
        assert counts.min() >= 1 and counts.max() - counts.min() <= 1


def test_a_fractional_share_alternates_two_and_three_prompts_and_costs_two_and_a_half():
    assert per_document_counts(6, 2.5).tolist() == [2, 3, 2, 3, 2, 3]
    mask = assign(24, 12, 2.5, key=np.arange(24))
    assert mask.sum(axis=0).tolist() == [2, 3] * 12  # in key order: 2, 3, 2, 3, ...
    assert requests_ratio(mask) == 2.5
    assert mask.sum(axis=1).tolist() == [5] * 12  # 60 slots over 12 prompts
    # a fresh deal of the 12 prompts when the next document's share would not fit: documents
    # 0-4 take 2 + 3 + 2 + 3 + 2 = 12 slots (each prompt once), 5-8 take 3 + 2 + 3 + 2 = 10
    assert mask[:, :5].sum(axis=1).tolist() == [1] * 12
    assert mask[:, 5:9].sum(axis=1).max() == 1 and mask[:, 5:9].sum() == 10


def test_noise_free_linear_prompts_give_every_prompts_full_grid_correlation_exactly():
    """Prompts scoring ``a_p + g_p h + b_p z`` (one shared factor ``z``, no noise): the model
    holds exactly, so an unscored cell's expected correlation is its full-grid one, the
    Spearman correlation of ``g_p h + b_p z`` with ``h`` on that document."""
    rng = np.random.default_rng(0)
    h, z = rng.normal(0, 1, (24, 8)), rng.normal(0, 1, (24, 8))
    a, g, b = np.array([0, 1, 2, 3, -1, 0.5]), np.array([1, 0.5, 0.2, 0.8, 1.5, 0.3]), np.array([0.5, 1, 1, 0.2, 0.7, -0.6])
    y = a[:, None, None] + g[:, None, None] * h + b[:, None, None] * z
    s = SpreadSettings(estimand="valid")
    mask = assign(24, 6, 2)
    asked = np.where(mask[:, :, None], y, np.nan)  # what the design asks; the rest never read
    fit = factor_fit(asked, h)
    assert fit.gamma == pytest.approx(g, abs=1e-3) and fit.sigma2 == pytest.approx(np.zeros(6), abs=1e-6)
    assert np.abs(fit.beta) / np.abs(fit.beta[0]) == pytest.approx(np.abs(b) / np.abs(b[0]), rel=1e-3)
    full = document_correlations(y, h, (1, 5), s)  # P x D, every cell
    doc3 = [np.corrcoef(np.argsort(np.argsort(g[p] * h[3] + b[p] * z[3])), np.argsort(np.argsort(h[3])))[0, 1]
            for p in range(6)]  # by hand: ranks (no ties), Pearson on ranks
    assert full[:, 3] == pytest.approx(doc3)
    assert expected_correlations(asked, h, mask, (1, 5), s) == pytest.approx(full, abs=1e-9)
    assert prompt_estimates(asked, h, mask, (1, 5), s) == pytest.approx(full.mean(axis=1), abs=1e-9)


def test_noise_free_linear_prompts_give_every_prompts_full_grid_system_and_dataset_correlation():
    """The same noise-free prompts: every completed copy is the full grid (up to the fit's
    floor on the noise), so each prompt's system- and dataset-level estimate is its full-grid
    correlation at that level, computed as the full grid computes it."""
    rng = np.random.default_rng(0)
    h, z = rng.normal(0, 1, (24, 8)), rng.normal(0, 1, (24, 8))
    a, g, b = np.array([0, 1, 2, 3, -1, 0.5]), np.array([1, 0.5, 0.2, 0.8, 1.5, 0.3]), np.array([0.5, 1, 1, 0.2, 0.7, -0.6])
    y = a[:, None, None] + g[:, None, None] * h + b[:, None, None] * z
    mask = assign(24, 6, 2)
    est, _ = level_estimates(np.where(mask[:, :, None], y, np.nan), h, mask, (1, 5), SpreadSettings(estimand="valid"))
    full = levels_stack(y, np.broadcast_to(h, y.shape))
    from scipy import stats
    assert full["system"][2] == pytest.approx(stats.spearmanr(y[2].mean(axis=0), h.mean(axis=0)).statistic)
    assert full["dataset"][2] == pytest.approx(stats.spearmanr(y[2].ravel(), h.ravel()).statistic)
    assert np.ptp(full["system"]) > 0.7 and np.ptp(full["dataset"]) > 0.7  # the prompts differ at both levels
    assert est["sample"] == pytest.approx(full["sample"], abs=1e-6)
    assert est["system"] == pytest.approx(full["system"], abs=1e-6)
    # dataset: Spearman over all 192 cells, where two cells closer than the fit's noise floor may
    # swap ranks in a copy (one swap moves the correlation by 12 / (192^3 - 192) = 1.7e-6)
    assert est["dataset"] == pytest.approx(full["dataset"], abs=2e-4)


def test_factor_fit_recovers_a_simulated_models_parameters():
    rng = np.random.default_rng(1)
    h, z = rng.normal(0, 1, (300, 16)), rng.normal(0, 1, (300, 16))
    alpha, gamma, beta, sd = np.array([3, 2.5, 3.5]), np.array([0.8, 0.4, 0.6]), np.array([0.6, 0.9, 0.5]), \
        np.array([0.3, 0.5, 0.4])
    y = (alpha[:, None, None] + gamma[:, None, None] * h + beta[:, None, None] * z
         + sd[:, None, None] * rng.normal(0, 1, (3, 300, 16)))
    fit = factor_fit(y, h)
    assert fit.gamma == pytest.approx(gamma, abs=0.02)
    assert np.abs(fit.beta) == pytest.approx(beta, abs=0.03)
    assert np.sqrt(fit.sigma2) == pytest.approx(sd, abs=0.03)
    few = y.copy()
    few[2] = np.nan
    few[2, 0, :3] = 3.0  # the third prompt: 3 replies
    with pytest.raises(ValueError, match="every prompt needs at least 4 scored replies"):
        factor_fit(few, h)


def test_invalid_replies_are_imputed_at_the_prompts_rate_and_scored_as_the_leaderboard_scores_them():
    scores, human, _ = grid(4, 60, 16, [0.5, 0.5, 0.5, 0.5], noise=0.3, invalid=[0.0, 0.0, 0.0, 0.3], seed=2)
    mask = assign(60, 4, 2)
    full = document_correlations(scores, human, (1, 5), SpreadSettings())  # scored: invalid -> worst answers
    est = prompt_estimates(scores, human, mask, (1, 5), SpreadSettings())
    # the prompt missing 30 % of its replies falls well below the others in the full grid, and in the estimate
    assert full.mean(axis=1)[3] < full.mean(axis=1)[:3].min() - 0.2
    assert est == pytest.approx(full.mean(axis=1), abs=0.05)


def test_prompts_differing_in_bias_and_scale_use_are_followed_at_their_own_correlation():
    """The stand-in with each prompt's own offset and stretch of the 1-5 scale (so its rounding
    and clipping differ): a linear per-prompt model with the scale's grid and range must
    still follow each prompt's full-grid correlation (measured: mean abs. error 0.022,
    largest 0.056, with 20 documents per prompt)."""
    errors = []
    for seed in range(3):
        scores, human, _ = grid(6, 60, 16, [0.3, 0.4, 0.5, 0.6, 0.7, 0.8], noise=0.3, seed=seed,
                                bias=[-1, 0.5, 0, 1, -0.5, 0.8], stretch=[0.6, 1.5, 1, 0.8, 1.3, 0.7])
        full = document_correlations(scores, human, (1, 5), SpreadSettings()).mean(axis=1)
        est = prompt_estimates(scores, human, assign(60, 6, 2, np.nanmean(human, axis=1)), (1, 5), SpreadSettings())
        errors += list(est - full)
    assert np.mean(np.abs(errors)) < 0.03 and np.max(np.abs(errors)) < 0.07


def test_constrained_bayes_pulls_the_estimates_together_by_hand():
    # V = var([0, 1, 2, 3, 4], ddof 1) = 2.5; excess noise 0.9: lam = sqrt(1.6 / 2.5) = 0.8, so the
    # values become 2 + 0.8 (x - 2) = 0.4, 1.2, 2, 2.8, 3.6; q10 at position 0.4: 0.4 + 0.4 * 0.8 = 0.72
    out = _shrunk_quantiles(np.arange(5.0), 0.9, SpreadSettings())
    assert out.pop("unshrunk") == pytest.approx({"q10": 0.4, "q50": 2.0, "q90": 3.6})
    assert out == pytest.approx({"q10": 0.72, "q50": 2.0, "q90": 3.28, "shrink": 0.8})
    assert _shrunk_quantiles(np.arange(5.0), 3.0, SpreadSettings())["shrink"] == 0.0  # all noise: the mean


def test_a_prompt_with_no_valid_reply_keeps_its_own_documents_and_the_others_are_still_modelled():
    scores, human, _ = grid(4, 40, 16, [0.4, 0.5, 0.6, 0.7], noise=0.3, seed=3)
    scores[2] = np.nan  # a parse collapse: every reply of the third prompt invalid
    mask = assign(40, 4, 2)
    cells = document_correlations(scores, human, (1, 5), SpreadSettings())  # invalid -> the worst answers
    est = prompt_estimates(scores, human, mask, (1, 5), SpreadSettings())
    assert est[2] == pytest.approx(cells[2][mask[2]].mean())  # its own 20 documents only
    assert est[2] < -0.5  # the worst answers run against the human scores
    assert np.isnan(expected_correlations(scores, human, mask, (1, 5), SpreadSettings())[2][~mask[2]]).all()
    full = cells.mean(axis=1)
    assert np.abs(np.delete(est - full, 2)).max() < 0.06


def test_additive_fit_recovers_exact_prompt_and_document_effects():
    a = np.array([0.1, -0.2, 0.3, -0.2])
    b = np.linspace(-0.3, 0.3, 12)
    cells = 0.5 + a[:, None] + b[None, :]
    mask = assign(12, 4, 2)
    est, var, sigma2 = additive_fit(np.where(mask, cells, 99.0), mask)  # unscored cells never read
    assert est == pytest.approx(0.5 + a + b.mean())
    assert sigma2 == pytest.approx(0.0, abs=1e-20)


@pytest.mark.slow
def test_design_quantiles_follow_the_full_grid_at_twice_the_requests():
    s = SpreadSettings(resamples=20)
    diffs = []
    for seed in range(3):
        w = np.random.default_rng(seed).uniform(0.1, 0.9, 12)
        scores, human, _ = grid(12, 100, 16, w, noise=0.3, seed=seed)
        full = spread(scores, human, (1, 5), s)[0][0]
        est = estimate(scores, human, assign(100, 12, 2, np.nanmean(human, axis=1)), (1, 5), s)
        assert est[0]["requests_ratio"] == 2.0
        assert all(np.isfinite(e[k]) for e in est for k in ("q10", "q50", "q90"))  # every level estimated
        diffs += [abs(full[k] - est[0][k]) for k in ("q10", "q50", "q90")]
    # measured by benchmarks/prompt_family_design.py (docs/robustness.md): a quantile's median error 0.008-0.014
    assert np.median(diffs) < 0.03 and max(diffs) < 0.08


@pytest.mark.slow  # several EM fits and a jackknife: 8-16 s on a quiet machine
def test_design_with_equal_prompts_finds_about_the_full_grids_narrow_spread():
    s = SpreadSettings(resamples=20)
    for seed in range(3):
        scores, human, _ = grid(8, 40, 16, np.full(8, 0.6), noise=0.3, seed=seed)
        full = spread(scores, human, (1, 5), s)[0][0]
        est = estimate(scores, human, assign(40, 8, 2), (1, 5), s)[0]
        assert abs((est["q90"] - est["q10"]) - (full["q90"] - full["q10"])) < 0.05


@pytest.mark.slow
def test_design_with_equal_prompts_is_narrow_at_the_system_and_dataset_levels_too():
    """Equal prompts: the full grid's spread at the system and dataset levels is sampling
    noise only, and the design's must stay about as narrow (measured, docs/robustness.md: the
    dataset level within 0.02 of the full grid's width; the system level, whose delete-a-group
    jackknife overstates the noise of a rank correlation over 16 system means, up to 0.07 wider)."""
    s = SpreadSettings(resamples=20)
    for seed in range(3):
        scores, human, _ = grid(8, 40, 16, np.full(8, 0.6), noise=0.3, seed=seed)
        full = {r["level"]: r for r in spread(scores, human, (1, 5), s)[0]}
        est = {r["level"]: r for r in estimate(scores, human, assign(40, 8, 2), (1, 5), s)}
        width = {lv: (est[lv]["q90"] - est[lv]["q10"], full[lv]["q90"] - full[lv]["q10"]) for lv in est}
        assert abs(width["dataset"][0] - width["dataset"][1]) < 0.025
        assert width["system"][0] < width["system"][1] + 0.08
        assert abs(est["dataset"]["q10"] - full["dataset"]["q10"]) < 0.02


def test_known_parameters_complete_the_grid_as_the_fit_would_with_the_same_parameters():
    scores, human, _ = grid(4, 30, 8, [0.3, 0.5, 0.6, 0.8], noise=0.3, seed=4)
    mask = assign(30, 4, 2, seed=1)
    s = SpreadSettings(resamples=1)
    fitted = factor_fit(np.where(mask[:, :, None], scores, np.nan), human)
    by_fit = complete_grids(scores, human, mask, s, draws=20)
    by_known = complete_grids(scores, human, mask, s, draws=20, known=fitted)
    for a, b in zip(by_fit, by_known):
        np.testing.assert_allclose(a.grid, b.grid, atol=1e-9, equal_nan=True)
    # other parameters: other simulated cells, the scored ones the same observed replies
    other = dataclasses.replace(fitted, gamma=fitted.gamma * 0.5)
    moved = complete_grids(scores, human, mask, s, draws=20, known=other)
    p = 0
    np.testing.assert_array_equal(moved[p].grid[:, mask[p]], by_fit[p].grid[:, mask[p]])
    assert not np.allclose(moved[p].grid[:, ~mask[p]], by_fit[p].grid[:, ~mask[p]])


def test_fewer_documents_than_jackknife_groups_delete_one_document_at_a_time():
    scores, human, _ = grid(3, 6, 8, [0.3, 0.6, 0.8], noise=0.3, seed=2)
    mask = np.ones((3, 6), bool)
    mask[0, 5] = mask[1, 4] = mask[2, 3] = False
    s = SpreadSettings(resamples=1)
    var = jackknife_variance(scores, human, mask, (1, 5), s)
    reps = []
    for d in range(6):  # by hand: the delete-one jackknife of r_p - mean_q r_q
        keep = np.arange(6) != d
        est, _ = level_estimates(scores[:, keep], human[keep], mask[:, keep], (1, 5), s)
        reps.append(est["sample"] - est["sample"].mean())
    reps = np.array(reps)
    np.testing.assert_allclose(var["sample"], 5 / 6 * ((reps - reps.mean(axis=0)) ** 2).sum(axis=0))


def test_a_design_too_small_to_measure_its_noise_is_not_shrunk():
    # 3 documents, each of 9 prompts on one (the slice's SummEval units): the residual variance
    # of the additive fit has no degrees of freedom, and deleting a document leaves prompts with
    # none, so no noise is known and the estimates stay as they are
    scores, human, _ = grid(9, 3, 16, np.linspace(0.3, 0.8, 9), noise=0.3, seed=3)
    mask = assign(3, 9, 3, seed=0)
    s = SpreadSettings(resamples=1)
    with pytest.raises(ValueError, match="no degrees of freedom"):
        additive_fit(document_correlations(scores, human, (1, 5), s), mask)
    for row in estimate(scores, human, mask, (1, 5), s):
        assert np.isnan(row["shrink"]) and row["unshrunk"] == {k: row[k] for k in ("q10", "q50", "q90")}


def test_unshrunk_quantiles_are_the_estimates_quantiles_before_constrained_bayes():
    est = np.array([0.1, 0.2, 0.3, 0.5, 0.9])
    out = _shrunk_quantiles(est, 0.02, SpreadSettings())
    assert out["unshrunk"] == pytest.approx({"q10": 0.14, "q50": 0.3, "q90": 0.74})
    assert out["shrink"] < 1 and out["q10"] > out["unshrunk"]["q10"]
