"""The calibration run of the verdicts (tests/support/calibration.py, benchmarks/verdict_calibration.py):
its adapter gives the Tables' numbers, a few draws on the real labels give the outcomes a
statistician expects of the clear cases, and its rates are the hand-computed ones
(docs/statistics.md, "Calibration of the verdicts")."""
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from sumjudge.datasets import BUILTIN
from sumjudge.leaderboard.settings import LeaderboardSettings
from sumjudge.tables.correlation import correlation_table, table_name
from sumjudge.tables.settings import TableSettings
from support import calibration as cal
from support import calibration_rates as rates
from support import verdict_adapter as adapter
from support.known_judges import KINDS

TS = TableSettings(bootstrap_resamples=50, permutation_resamples=200)
BOARD = LeaderboardSettings.from_config({})


def draw_runs(pop, kinds, seed=0):
    rng = np.random.default_rng(seed)
    draw = cal.resample(pop, rng)
    frames = cal.judge_frames(pop, draw, {k: [KINDS[k].draw(i.q, s, rng) for i, s in zip(pop.items, draw.slots)]
                                          for k in kinds})
    return draw, {key: adapter.judge_run(pop.spec, *key, f) for key, f in frames.items()}


def test_the_adapters_likert_cells_are_the_tables_cells(prepared):
    """Value (mean over samples) of every row and the interval of single-sample rows, as
    correlation_table gives them, on a resampled SQuALITY draw."""
    spec = BUILTIN["squality"]
    pop = cal.population(spec, prepared("squality"), TS)
    draw, runs = draw_runs(pop, ["noise_mid", "invalid", "repeats"])
    data = draw.data[draw.data["doc_id"].isin(sorted(set(draw.data["doc_id"]))[:12])]   # 12 documents suffice
    mine = adapter._likert_cells(spec, data, runs, "coverage", TS)
    one = replace(spec, dimensions=("coverage",))
    table = correlation_table(data, adapter_rows(one, runs), one, table_name(spec), TS)
    assert len(table) == 3 * 3
    for r in table.itertuples():
        got = mine[(r.row, "coverage", r.level)]
        assert got["value"] == pytest.approx(r.value, abs=1e-12)
        if r.row != "repeats":                  # the leaderboard replaces a repeated judge's interval
            assert (got["ci_low"], got["ci_high"]) == pytest.approx((r.ci_low, r.ci_high), abs=1e-12)


def adapter_rows(spec, runs):
    from sumjudge.tables.common import Row

    return [Row(row, "judge", None, run.path, [run.by_sample(s)[list(spec.dimensions)] for s in run.samples])
            for (row, _), run in runs.items()]


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
    cells = pd.DataFrame([c for k in range(2) for c in cal.run_draw(pop, TS, BOARD, k, 7)[0]])
    alt = cells[cells["alt_passed"].notna()]
    assert alt.groupby("row")["alt_passed"].all().to_dict() == {"reference": True, never: False}
    assert alt[alt["row"] == never]["greyed"].all()                    # the gate stops it before the test
    ref = cells[(cells["row"] == "reference") & cells["focus"]]
    assert ((ref["ci_low"] <= ref["value"] + 1e-12) & (ref["value"] <= ref["ci_high"] + 1e-12)).all()


def test_truths_are_the_statistic_on_copies_of_the_full_set(prepared):
    pop = cal.population(BUILTIN["squality"], prepared("squality"), TS, names=["reference", "noise_low", "random"])
    t = cal.truths(pop, TS, copies=20, min_answers=0, system_copies=200)
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
