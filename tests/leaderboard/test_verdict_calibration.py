"""The calibration run of the verdicts (tests/support/calibration.py, benchmarks/verdict_calibration.py):
its adapter gives the verdict path's own numbers, a few draws on the real labels give the outcomes a
statistician expects of the clear cases, the truths are the verdicts' estimand, and its rates are
the hand-computed ones (docs/statistics.md, "Calibration of the verdicts")."""

import numpy as np
import pandas as pd
import pytest

from sumjudge.datasets import BUILTIN
from sumjudge.leaderboard.frames import verdict_frames
from sumjudge.leaderboard.settings import LeaderboardSettings
from sumjudge.evidence.settings import TableSettings
from support import calibration as cal
from support import calibration_rates as rates
from support import verdict_adapter as adapter

TS = TableSettings(bootstrap_resamples=50, permutation_resamples=200)
BOARD = LeaderboardSettings.from_config({})
# cheaper, same rules: 19 shuffles, the fewest whose permutation p can reach .05
FEW = LeaderboardSettings.from_config({"leaderboard": {"alt_test": {"control_shuffles": 19}}})
SAME = ["value", "ci_low", "ci_high", "interval_misses_value", "greyed", "reason", "loo_value", "close_diff", "spa",
        "alt_result", "alt_winning_rate", "alt_control_pass_rate"]


def draw_answers(pop, kinds, seed=0):
    rng = np.random.default_rng(seed)
    draw = cal.resample(pop, rng)
    given = cal.answers(pop, draw, kinds, rng)
    return draw, [{k: given[k][n].samples for k in kinds} for n in range(len(pop.items))]


@pytest.mark.slow    # 2-3 s: three verdict calls over two SQuALITY dimensions
def test_rows_in_groups_give_the_verdicts_of_one_call(prepared):
    """The adapter's economy (the ranked rows together, every other row alone) changes no cell:
    per-row fields equal one verdict_frames call with every row, ranks and pair tests equal one
    call with the ranked rows, on a resampled SQuALITY draw (two questions, so the alt-test's
    family spans columns)."""
    spec = BUILTIN["squality"]
    pop = cal.population(spec, prepared("squality"), TS, names=["noise_mid", "near94", "invalid", "repeats"])
    draw, answers = draw_answers(pop, pop.kinds)
    keep = draw.data["doc_id"].isin(sorted(set(draw.data["doc_id"]))[:20]).to_numpy()    # 20 documents suffice
    data = draw.data[keep].reset_index(drop=True)
    answers = [{k: a[keep] for k, a in per.items()} for per in answers[:2]]
    inputs = [adapter.verdict_input(spec, data, i.q.name, TS) for i in pop.items[:2]]
    ranked = {"noise_mid", "repeats"}
    results = [adapter.input_result(inp, a, ranked, TS, FEW) for inp, a in zip(inputs, answers)]
    from sumjudge.leaderboard.frames import frames
    mine = frames(results, FEW)["cells"].set_index(["column", "row"])
    every = verdict_frames(list(zip(inputs, answers)), TS, FEW)["cells"].set_index(["column", "row"])
    assert (mine["kind"] == "judge").sum() == 2 * 3 * 4 and mine.index.sort_values().equals(every.index.sort_values())
    pd.testing.assert_frame_equal(mine.loc[every.index, SAME], every[SAME])
    two = verdict_frames([(i, {r: a[r] for r in ranked}) for i, a in zip(inputs, answers)], TS, FEW)
    got = mine.loc[two["cells"].set_index(["column", "row"]).index, ["rank_group", "rank_reason", "separable_pairs"]]
    pd.testing.assert_frame_equal(got, two["cells"].set_index(["column", "row"])[got.columns])
    cells, pairs = adapter.verdicts(inputs, answers, {0, 1}, ranked, TS, FEW)
    assert {c["row"] for c in cells if c["rank"] is not None} <= ranked
    p = two["pairs"]
    assert len(pairs) == int((p["p_one_sided_adjusted"] < 0.05).sum())


def test_resampled_documents_are_new_documents(prepared):
    pop = cal.population(BUILTIN["summeval"], prepared("summeval"), TS, names=["reference"])
    draw = cal.resample(pop, np.random.default_rng(3))
    assert len(draw.data) == 1600 and draw.data["unit_id"].is_unique
    assert draw.data["doc_id"].nunique() == 100                        # a copy of a document is another one
    assert draw.data["doc_id"].str.split("~").str[0].nunique() < 100   # some drawn twice, some not at all
    assert np.array_equal(pop.items[0].q.ref[draw.slots[0]], draw.data["consistency"].to_numpy())


@pytest.mark.parametrize("name, never", [("summeval", "constant"), ("helm_news", "first")])
def test_a_few_draws_pass_the_reference_and_never_an_uninformative_judge(prepared, name, never):
    pop = cal.population(BUILTIN[name], prepared(name), TS, names=["reference", never])
    cells = pd.DataFrame([c for k in range(2) for c in cal.run_draw(pop, TS, FEW, k, 7)[0]])
    alt = cells[cells["alt_passed"].notna()]
    assert alt.groupby("row")["alt_test"].all().to_dict() == {"reference": True, never: False}
    ref = alt[alt["row"] == "reference"]
    # a pass is printed where the test passes, the control's permutation p is at most .05 and at most 5 % of
    # the shuffles pass
    assert ref["alt_passed"].eq(ref["alt_test"] & (ref["alt_control_p"] <= 0.05) & (ref["alt_control"] <= 0.05)).all()
    assert (ref["alt_control_p"] == 1 / 20).all()                      # the reference beats all 19 shuffles
    assert alt[alt["row"] == never]["greyed"].all() and not alt[alt["row"] == never]["alt_passed"].any()
    ref = cells[(cells["row"] == "reference") & cells["focus"]]
    assert ((ref["ci_low"] <= ref["value"] + 1e-12) & (ref["value"] <= ref["ci_high"] + 1e-12)).all()


def test_truths_are_the_statistic_on_copies_of_the_full_set(prepared):
    pop = cal.population(BUILTIN["squality"], prepared("squality"), TS, names=["reference", "noise_low", "random"])
    t, answered = cal.truths(pop, TS, copies=20, min_answers=0, system_copies=200)
    assert answered == t                                                # nobody abstains
    assert t[("reference", "SQuALITY corr. dataset")] == pytest.approx(1.0)
    assert t[("reference", "SQuALITY corr. system")] == pytest.approx(1.0)
    assert 0.8 < t[("noise_low", "SQuALITY corr. sample")] < t[("noise_low", "SQuALITY corr. dataset")] < 1
    assert t[("random", "SQuALITY corr. sample")] == 0.0                  # no information, by definition


def cells_frame(rows):
    return pd.DataFrame([{"dataset": "d", "level": "sample", "focus": True, "greyed": False, **r} for r in rows])


def test_rank_rates_by_hand():
    """Column c1: truths a > b > c, ranks a 2, b 1, c 2 (b beats a: one inversion of three
    pairs; nobody missing rank 1). Column c2: ranks 2, 2, 3: rank 1 vacant, no inversion."""
    truth = {("d", k, c): t for c in ("c1", "c2") for k, t in (("a", .9), ("b", .8), ("c", .5))}
    rows = [{"draw": 0, "column": c, "row": k, "rank": r} for c, ranks in (("c1", (2, 1, 2)), ("c2", (2, 2, 3)))
            for k, r in zip("abc", ranks)]
    out = rates.rank_rates(cells_frame(rows), ["a", "b", "c"], truth).iloc[0]
    assert (out["inversions"], out["pairs"], out["vacant"], out["columns"]) == (1 / 6, 6, 0.5, 2)


def test_power_and_the_smallest_detectable_difference_by_hand():
    """Truths a .9, b .8, c .5 over four draws: a beats b in 1, b beats c in 4, a beats c in 4:
    power .25 at .1, 1 at .3 and .4; 80 % is reached at .1 + (.8 - .25) / (1 - .25) x .2."""
    truth = {("d", k, "c1"): t for k, t in (("a", .9), ("b", .8), ("c", .5))}
    cells = cells_frame([{"draw": d, "column": "c1", "row": k, "rank": 1} for d in range(4) for k in "abc"])
    sig = [("a", "b", 0)] + [(x, "c", d) for x in "ab" for d in range(4)]
    pairs = pd.DataFrame([{"dataset": "d", "column": "c1", "better": b, "worse": w, "draw": d} for b, w, d in sig])
    det = rates.detections(cells, pairs, "abc", truth).set_index(["better", "worse"])
    assert det.loc[("a", "b"), "power"] == 0.25 and det.loc[("b", "c"), "power"] == 1.0
    mdd = rates.smallest_detectable(det.reset_index()).iloc[0]
    assert mdd["mdd"] == pytest.approx(0.1 + 0.55 / 0.75 * 0.2) and mdd["bound"] == "="


def test_interval_rates_by_hand():
    truth = {("d", "a", "c1"): 0.5}
    rows = [{"draw": d, "column": "c1", "row": "a", "value": v, "ci_low": lo, "ci_high": hi}
            for d, (v, lo, hi) in enumerate([(.5, .4, .6), (.7, .6, .8), (.3, .4, .6), (.45, .55, .65)])]
    out = rates.interval_rates(cells_frame(rows), truth).iloc[0]
    assert (out["outside"], out["coverage"], out["above"]) == (0.5, 0.5, 0.5)
    assert out["bias"] == pytest.approx((0 + .2 - .2 - .05) / 4)


def test_the_system_level_truth_separates_noise_levels(prepared):
    """Review S2: the old truth (the correlation of the systems' expected answers) was .997-1.000
    for every unbiased noisy judge. The truth is now the statistic's mean over draws of the
    dataset's number of documents: the reference's is 1 on every draw, and more noise lowers it."""
    pop = cal.population(BUILTIN["summeval"], prepared("summeval"), TS, names=["reference", "noise_low", "noise_high"])
    t, _ = cal.truths(pop, TS, copies=2, min_answers=0, system_copies=100)
    col = "SummEval cons. system"
    assert t[("reference", col)] == pytest.approx(1.0)
    assert t[("noise_high", col)] < t[("noise_low", col)] - 0.05 < 0.95


def test_a_held_out_annotator_is_compared_with_the_others_only(prepared):
    """The positive control: annotator k's labels are the judge's answers, on the units k
    labelled; the input keeps the other annotators only, and a score's reference is their mean."""
    from sumjudge.evidence.columns import score_input

    inp = score_input(BUILTIN["squality"], prepared("squality"), "overall")
    k = 1
    sub, answers = cal.held_out(inp, k)
    mine = ~np.isnan(inp.annotators[:, k])
    assert sub.names == tuple(n for j, n in enumerate(inp.names) if j != k) and len(answers) == mine.sum()
    assert np.array_equal(answers, inp.annotators[mine, k])
    assert sub.reference == pytest.approx(np.nanmean(np.delete(inp.annotators[mine], k, axis=1), axis=1))


def test_coverage_is_judged_against_its_monte_carlo_error_by_hand():
    """200 draws (Clopper-Pearson): 180 covered (90 %; exact 95 % interval [.850, .938]) is
    significantly below 95 %; 186 (93 %, [.885, .961]) is not; 199 (99.5 %, [.973, 1.0]) is above."""
    iv = pd.DataFrame({"cov_low": [0.8498, 0.8853, 0.9725], "cov_high": [0.9378, 0.9612, 0.9999]})
    assert rates.coverage_verdicts(iv) == {"below": 1, "above": 1, "cells": 3}
    truth = {("d", "a", "c1"): 0.5}
    rows = [{"draw": d, "column": "c1", "row": "a", "value": 0.5, "ci_low": 0.4 if d < 180 else 0.6, "ci_high": 0.7}
            for d in range(200)]
    out = rates.interval_rates(cells_frame(rows), truth).iloc[0]
    assert out["coverage"] == 0.9 and (round(out["cov_low"], 4), round(out["cov_high"], 4)) == (0.8498, 0.9378)


def test_close_rates_at_each_margin_by_hand():
    """Lower bounds -.01, -.04, -.08, -.12 and a greyed row's +.1: close at .02 in 1 of 4 ungreyed
    ... at .15 in 4 of 4; the greyed row is never close; "held-out <name>" rows pool as one kind."""
    rows = [{"draw": d, "column": "c", "row": f"held-out e{d}", "close_bound": b, "greyed": False}
            for d, b in enumerate([-0.01, -0.04, -0.08, -0.12])]
    rows.append({"draw": 9, "column": "c", "row": "x", "close_bound": 0.1, "greyed": True})
    out = rates.close_rates(cells_frame(rows)).set_index("kind")
    assert out.loc["held-out", ["m0.02", "m0.05", "m0.1", "m0.15"]].tolist() == [0.25, 0.5, 0.75, 1.0]
    assert out.loc["x", "m0.15"] == 0.0 and out.loc["held-out", "n"] == 4


def test_the_exchangeable_judge_never_reads_the_labels_it_is_compared_with():
    """The simulated panel (calibration.simulated_panel) reads of the real labels only which units
    each annotator labelled: every real label changed, the same generator gives the same panel,
    reference and judge; the panel's labels are its own (its reference its mean), not the real ones."""
    from dataclasses import replace

    from sumjudge.evidence.inputs import LabelInput, ScoreInput
    from support.known_judges import Question
    from support.latent_truth import fit_dawid_skene, fit_likert

    rng = np.random.default_rng(21)
    real = np.clip(np.round(rng.normal(3, 1, 200)[:, None] + rng.standard_normal((200, 3))), 1, 5)
    real[rng.random(real.shape) < 0.2] = np.nan
    inp = ScoreInput.of(real, np.repeat(np.arange(20), 10).astype(str), np.tile(np.arange(10), 20).astype(str), (1, 5))
    item = cal.Item(Question("q", inp.reference, np.arange(1.0, 6.0), np.arange(200), np.ones(200), True,
                             fit_likert(real, (1, 5))), "q", "base", ())
    other = np.where(np.isnan(real), np.nan, 6 - real)                  # every real label changed
    changed = ScoreInput.of(other, inp.docs, inp.systems, (1, 5))
    slots = np.arange(200)
    (a, ja), (b, jb) = (cal.simulated_panel(item, i, slots, np.random.default_rng(5)) for i in (inp, changed))
    assert np.array_equal(a.annotators, b.annotators, equal_nan=True) and np.array_equal(ja, jb)
    assert np.array_equal(a.reference, b.reference, equal_nan=True)
    assert np.array_equal(np.isnan(a.annotators), np.isnan(real))
    assert np.nanmean(a.annotators == real) < 0.6                       # fresh labels, not the real ones
    seen = ~np.isnan(a.annotators).all(axis=1)
    assert a.reference[seen] == pytest.approx(np.nanmean(a.annotators[seen], axis=1))

    votes = (rng.random((200, 3)) < 0.3).astype(float)
    votes[0, 2] = np.nan
    lab = LabelInput.of(votes, np.repeat(np.arange(20), 10).astype(str))
    item = replace(item, q=replace(item.q, likert=False, values=np.array([0.0, 1.0]), model=fit_dawid_skene(votes, 2)))
    sim, judge = cal.simulated_panel(item, lab, slots, np.random.default_rng(6))
    again, _ = cal.simulated_panel(item, replace(lab, annotators=np.where(np.isnan(votes), np.nan, 1 - votes)), slots,
                                   np.random.default_rng(6))
    assert np.array_equal(sim.annotators, again.annotators, equal_nan=True)
    unit, pos = np.nonzero(~np.isnan(sim.annotators))                  # every label a decision, row by row
    assert np.array_equal(sim.dec_unit, unit) and np.array_equal(sim.dec_gold, sim.annotators[unit, pos])
    assert len(sim.dec_gold) == 599 and set(np.unique(judge)) <= {0.0, 1.0}


def test_an_exchangeable_annotator_gets_verdicts_on_the_drawn_documents(prepared):
    """run_exchangeable on CNN/DM comparisons: one row ``exchangeable`` with an alt-test outcome
    (two simulated workers: a judge against two annotators is tested, where a held-out worker,
    against one, is not); on a dataset without identified annotators, no cells."""
    pop = cal.population(BUILTIN["cnndm_comparisons"], prepared("cnndm_comparisons"), TS, names=["reference"])
    cells = cal.run_exchangeable(pop, TS, FEW, 0, 7)
    assert {c["row"] for c in cells} == {rates.EXCHANGEABLE} and all(c["draw"] == 0 for c in cells)
    assert [c["alt_result"] for c in cells if c["alt_passed"] is not None] in (["passes"], ["inconclusive"],
                                                                              ["fails"])
    assert cal.run_exchangeable(cal.population(BUILTIN["qags_xsum"], prepared("qags_xsum"), TS,
                                               names=["reference"]), TS, FEW, 0, 7) == []
