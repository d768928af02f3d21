"""The alternative annotator test (sumjudge/stats/alt_test.py): alignment, the one-sided
t-test and Benjamini-Yekutieli by hand, a family fixed beforehand, the null control's
shuffle, invalid replies as losses, judges whose truth is known on the real SummEval
experts, and the authors' own numbers reproduced (benchmarks/alttest_reproduce.py)."""
import importlib.util
import json
import math

import numpy as np
import pytest

from sumjudge.stats import alt_test as at
from sumjudge.stats.alt_test import (AnnotatorTest, alignment, annotator_tests, by_adjust, judge_alt_test,
                                     one_sided_t, shuffle_within, within_group_ranks)
from sumjudge.stats.gates import alt_test_allowed, near_constant
from support import alttest_format
from support.harness import REPO

NAN = float("nan")
H0 = [1, 0, 1, 1, 0]
H1 = [1, 1, 1, 0, 0]
LABELS = np.array([H0, H1], dtype=float).T


def test_alignment_scores():
    # 1 vs (1, 0): one of two agree; 0 vs (1, 1): none
    assert alignment([1, 0], [[1, 0], [1, 1]], "accuracy").tolist() == [0.5, 0.0]
    assert alignment([3.0], [[1.0, 4.0]], "neg_rmse")[0] == pytest.approx(-math.sqrt((4 + 1) / 2))
    assert np.isnan(alignment([1.0], [[NAN]], "accuracy")[0])
    assert within_group_ranks([3, 3, 1, 2], ["a", "a", "b", "b"]).tolist() == [1.5, 1.5, 1.0, 2.0]
    with pytest.raises(ValueError, match="alt-test score"):
        alignment([1], [[1]], "kappa")


def test_one_sided_t_by_hand():
    d = np.array([0, -1, 1, -1, 0], dtype=float)
    # mean -0.2, sd^2 = (0.04 + 0.64 + 1.44 + 0.64 + 0.04) / 4 = 0.7
    t_hand = (-0.2 - 0.2) / (math.sqrt(0.7) / math.sqrt(5))
    # Student t with 4 degrees of freedom in closed form: F(t) = 1/2 + t (t^2 + 6) / (2 (t^2 + 4)^1.5)
    p_hand = 0.5 + t_hand * (t_hand ** 2 + 6) / (2 * (t_hand ** 2 + 4) ** 1.5)
    t, p = one_sided_t(d, 0.2)
    assert t == pytest.approx(-1.069045, abs=1e-6) and t == pytest.approx(t_hand)
    assert p == pytest.approx(p_hand, abs=1e-12)
    assert one_sided_t([0, 0, 0], 0.1) == (-math.inf, 0.0)   # no spread, below epsilon: rejected
    assert one_sided_t([1, 1], 0.1) == (math.inf, 1.0)


def test_by_adjust_by_hand():
    # m = 4, c(4) = 1 + 1/2 + 1/3 + 1/4 = 25/12; sorted .01 .03 .04 .20
    # raw p m c / i: .01*25/3 = .08333, .03*25/6 = .125, .04*25/9 = .11111, .2*25/12 = .41667
    # monotone from the largest down: .08333 .11111 .11111 .41667
    out = by_adjust([0.01, 0.04, 0.03, 0.20])
    assert out == pytest.approx([1 / 12, 1 / 9, 1 / 9, 5 / 12])
    assert np.isnan(by_adjust([NAN, 0.5])[0]) and by_adjust([NAN, 0.5])[1] == pytest.approx(0.5)


def test_annotator_tests_by_hand():
    h0 = [1, 0, 1, 1, 0]
    h1 = [1, 1, 1, 0, 0]
    pred = [1, 1, 0, 0, 0]
    tests, left = annotator_tests("c", pred, np.array([h0, h1], dtype=float).T, ["h0", "h1"],
                                  "accuracy", epsilon=0.2, min_instances=2)
    assert left == []
    t0, t1 = tests
    # j = h0: S_f = pred==h1 = 1 1 0 1 1, S_h = h0==h1 = 1 0 1 0 1 -> W_f = 1 1 0 1 1, W_h = 1 0 1 0 1
    assert t0.rho_judge == pytest.approx(0.8) and t0.rho_human == pytest.approx(0.6)
    assert t0.t == pytest.approx(-1.069045, abs=1e-6) and t0.p_value == pytest.approx(0.172636, abs=1e-6)
    # j = h1: S_f = pred==h0 = 1 0 0 0 1, S_h = 1 0 1 0 1 -> d = 0 0 1 0 0: mean .2 = epsilon -> t 0, p .5
    assert t1.rho_judge == pytest.approx(0.8) and t1.t == pytest.approx(0.0) and t1.p_value == pytest.approx(0.5)
    done, verdicts = judge_alt_test(tests, {"c": left}, q=0.05)
    # BY, m = 2, c = 1.5: .172636 * 3 = .51791; .5 * 3 / 2 = .75
    assert [d.p_adjusted for d in done] == pytest.approx([0.172636 * 3, 0.75], abs=1e-5)
    (v,) = verdicts
    assert v.winning_rate == 0.0 and v.advantage == pytest.approx(0.8) and not v.passed
    # with min_instances above the units, both annotators are left out and counted
    tests, left = annotator_tests("c", pred, np.array([h0, h1], dtype=float).T, ["h0", "h1"], min_instances=30)
    assert tests == [] and left == ["h0", "h1"]
    _, (v,) = judge_alt_test([], {"c": left})
    assert v.n_left_out == 2 and not v.passed and np.isnan(v.winning_rate)


def test_judge_alt_test_family_spans_columns():
    def mk(col, a, p, rho):
        return AnnotatorTest(col, a, 40, rho, 0.5, -3.0, p)
    tests = [mk("x", "a", 0.001, 0.9), mk("x", "b", 0.3, 0.5), mk("y", "a", 0.002, 0.7)]
    done, verdicts = judge_alt_test(tests, {"x": [], "y": ["b"]}, q=0.05)
    # m = 3, c = 11/6: .001*5.5 = .0055, .002*5.5/2 = .0055, .3*5.5/3 = .55
    assert [d.p_adjusted for d in done] == pytest.approx([0.0055, 0.55, 0.0055])
    assert [d.rejected for d in done] == [True, False, True]
    x, y = verdicts
    assert (x.winning_rate, x.passed, x.advantage) == (0.5, True, pytest.approx(0.7))
    assert (y.winning_rate, y.passed, y.n_left_out) == (1.0, True, 1)


def test_a_family_fixed_beforehand_counts_the_tests_not_run_as_p_1():
    def mk(col, a, p):
        return AnnotatorTest(col, a, 40, 0.9, 0.5, -3.0, p)
    tests = [mk("x", "a", 0.01), mk("x", "b", 0.02)]
    # m = 2, c = 1.5: .01 x 3 = .03, .02 x 3 / 2 = .03; with a family of 6 (four gated tests as p = 1):
    # c(6) = 2.45, .01 x 6 x 2.45 = .147, .02 x 6 x 2.45 / 2 = .147
    assert [t.p_adjusted for t in judge_alt_test(tests, {"x": []})[0]] == pytest.approx([0.03, 0.03])
    done, (v,) = judge_alt_test(tests, {"x": []}, family_size=6)
    assert [t.p_adjusted for t in done] == pytest.approx([0.147, 0.147]) and not v.passed


def test_shuffle_within_keeps_each_groups_answers():
    values = np.arange(8, dtype=float)
    groups = ["a", "a", "a", "b", "b", "c", "d", "e"]
    out = shuffle_within(values, groups, seed=3)
    assert sorted(out[:3]) == [0, 1, 2] and sorted(out[3:5]) == [3, 4]
    # single-unit groups (c, d, e) cannot move alone: shuffled together
    assert sorted(out[5:]) == [5, 6, 7] and not np.array_equal(out, values)
    assert np.array_equal(shuffle_within(values, groups, seed=3), out)            # seeded
    rows = shuffle_within(np.arange(8.0).reshape(4, 2), None, seed=1)            # samples move with their unit
    assert sorted(rows[:, 0]) == [0, 2, 4, 6] and (rows[:, 1] == rows[:, 0] + 1).all()


def test_within_group_ranks_are_scipys_average_ranks():
    from scipy.stats import rankdata

    rng = np.random.default_rng(0)
    v = rng.integers(1, 6, (60, 3)).astype(float)
    v[rng.random(v.shape) < 0.1] = NAN
    g = rng.integers(0, 7, 60).astype(str)
    got = within_group_ranks(v, g)
    for k in np.unique(g):
        for c in range(3):
            x = v[g == k, c]
            want = np.full(x.shape, NAN)
            want[~np.isnan(x)] = rankdata(x[~np.isnan(x)])
            assert np.array_equal(got[g == k, c], want, equal_nan=True)



# ---------------------------------------------------------------- invalid replies, the gates, real SummEval

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
    assert not g.flagged and g.judge == pytest.approx(0.2, abs=0.02)
    for score in ("neg_rmse", "rank"):
        assert not _verdict(df, "consistency", longer, score)[1].passed


# ---------------------------------------------------------------- the authors' numbers (benchmarks/alttest_reproduce.py)

def _script():
    spec = importlib.util.spec_from_file_location("alttest_reproduce", REPO / "benchmarks/alttest_reproduce.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_hand_computed_numbers_are_reproduced(tmp_path, capsys):
    folder = alttest_format.write(tmp_path)
    script = _script()
    for (dataset, llm), want in alttest_format.BY_HAND.items():
        humans = json.loads((folder / "data" / dataset / "human_annotations.json").read_text())
        llms = json.loads((folder / "data" / dataset / "llm_annotations.json").read_text())
        wr, ap = script.ours(humans, llms[llm], {"cat": "accuracy", "stars": "neg_rmse"}[dataset], 0.2)
        assert (round(wr, 2), round(ap, 2)) == want, (dataset, llm)
    assert script.main([str(folder)]) == 0
    out = capsys.readouterr().out
    assert "6 of 6 published numbers reproduced" in out and "differs" not in out


def test_a_number_that_differs_is_flagged_and_fails(tmp_path, capsys):
    published = {**alttest_format.BY_HAND, ("cat", "bad"): (0.50, 0.50)}
    assert _script().main([str(alttest_format.write(tmp_path, published))]) == 1
    out = capsys.readouterr().out
    assert "5 of 6 published numbers reproduced" in out
    assert [line.split()[:2] for line in out.splitlines() if "differs" in line] == [["cat", "bad"]]


def test_units_with_one_human_label_or_no_llm_label_are_left_out(tmp_path):
    humans = {"h0": {"u0": "a", "u1": "a", "u2": "b"}, "h1": {"u0": "a", "u2": "b"}}
    names, labels, pred = _script().matrices(humans, {"u0": "a", "u1": "b"})
    assert names == ["h0", "h1"] and labels.tolist() == [[0.0, 0.0]] and pred.tolist() == [0.0]


# ---------------------------------------------------------------- the null control (issue 40)


def test_the_permutation_p_is_a_hand_count():
    """p = (1 + #{shuffles >= the judge}) / (R + 1) (Phipson and Smyth 2010): a tie counts."""
    shuffled = [0.5, 0.8, 0.9, 0.3]
    assert at.permutation_p(0.8, shuffled) == pytest.approx(3 / 5)     # .8 and .9 reach it
    assert at.permutation_p(0.95, shuffled) == pytest.approx(1 / 5)    # none: the smallest p of 4 shuffles
    assert at.permutation_p(0.1, shuffled) == 1.0
    assert np.isnan(at.permutation_p(np.nan, shuffled)) and np.isnan(at.permutation_p(0.5, []))


@pytest.mark.parametrize("score", ["rank", "neg_rmse", "accuracy"])
def test_the_control_is_each_shuffle_through_the_annotator_tests(score):
    """control_tests (every shuffle at once; ranks permuted rather than recomputed) gives the
    numbers of shuffling the raw answers (within documents under rank, over every unit
    otherwise), ranking them and running annotator_tests, shuffle by shuffle."""
    rng = np.random.default_rng(4)
    groups = np.repeat(np.arange(30), 5)
    labels = rng.integers(1, 6, (150, 3)).astype(float)
    labels[rng.random((150, 3)) < 0.1] = np.nan
    answers = np.round(np.nanmean(labels, axis=1) + rng.normal(0, 1, 150))
    answers[:4] = np.nan                                                   # invalid: losses
    got = at.control_tests("c", answers, labels, ["a", "b", "c"], groups, score, 0.2, 30, 7, seed=11)
    lab = at.within_group_ranks(labels, groups) if score == "rank" else labels
    for k, (tests, left) in enumerate(got):
        raw = at.shuffle_within(answers, groups if score == "rank" else None, 11 + k)
        pred = at.within_group_ranks(raw, groups) if score == "rank" else raw
        want, wleft = at.annotator_tests("c", pred, lab, ["a", "b", "c"], score, 0.2, 30, answered=~np.isnan(pred),
                                         invalid="loss")
        assert left == wleft and len(tests) == len(want) == 3
        for t, w in zip(tests, want):
            assert (t.annotator, t.n, t.n_invalid) == (w.annotator, w.n, w.n_invalid)
            assert (t.rho_judge, t.rho_human) == (w.rho_judge, w.rho_human)
            assert t.p_value == pytest.approx(w.p_value, rel=1e-9, abs=1e-15)


def _shuffle_within_before(values, groups=None, seed: int = 0) -> np.ndarray:
    """shuffle_within as it was before the calibration's speed-up (a mask and a permutation per group)."""
    v = np.asarray(values, dtype=float)
    keys = np.zeros(v.shape[0], int) if groups is None else np.unique(np.asarray(groups), return_inverse=True)[1]
    sizes = np.bincount(keys)
    keys = np.where(sizes[keys] > 1, keys, -1)
    rng = np.random.default_rng(seed)
    out = v.copy()
    for k in np.unique(keys):
        idx = np.flatnonzero(keys == k)
        out[idx] = v[rng.permutation(idx)]
    return out


@pytest.mark.parametrize("case", ["documents", "singletons", "one group", "samples", "all single"])
def test_shuffle_within_gives_the_numbers_it_gave_before_its_speed_up(case):
    """The same seed, the same shuffles: groups of unequal sizes in scrambled order with single-unit
    groups pooled, one group, rows of samples moving together, and only single-unit groups."""
    rng = np.random.default_rng(0)
    values = rng.normal(size=(300, 3) if case == "samples" else 300)
    values[rng.random(300) < 0.1] = np.nan
    groups = {"documents": rng.integers(0, 40, 300).astype(str), "singletons": np.r_[rng.integers(0, 20, 290), 100 + np.arange(10)],
              "one group": None, "samples": rng.integers(0, 7, 300), "all single": np.arange(300)}[case]
    for seed in range(25):
        assert np.array_equal(at.shuffle_within(values, groups, seed), _shuffle_within_before(values, groups, seed),
                              equal_nan=True)


def test_judge_alt_test_adjusts_copies_of_the_tests_it_is_given():
    """The adjusted tests are the given ones with p_adjusted and rejected set (dataclasses.replace,
    as the asdict round trip before it did), the given tests untouched."""
    tests = [AnnotatorTest("x", "a", 40, 0.7, 0.5, 2.5, 0.01), AnnotatorTest("y", "b", 40, 0.6, 0.5, 1.0, 0.2, n_invalid=3)]
    done, _ = judge_alt_test(tests, {"x": [], "y": []})
    before = [AnnotatorTest(**{**t.as_dict(), "p_adjusted": d.p_adjusted, "rejected": d.p_adjusted <= 0.05})
              for t, d in zip(tests, done)]
    assert done == before and math.isnan(tests[0].p_adjusted) and [d.rejected for d in done] == [True, False]
