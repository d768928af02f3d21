"""Repeats (samples > 1): the two-stage bootstrap and the sample-to-sample variance, by hand."""
import numpy as np
import pytest

from sumjudge.stats.repeats import sample_variance, two_stage_bootstrap

NAN = float("nan")


def test_sample_variance_by_hand():
    # unit 0: 1 0 1 -> mean 2/3, var (1/9 + 4/9 + 1/9) / 2 = 1/3; unit 1: 1 1 NaN -> 0; unit 2: one sample: out
    v, n = sample_variance([[1, 0, 1], [1, 1, NAN], [0, NAN, NAN]])
    assert n == 2 and v == pytest.approx((1 / 3 + 0) / 2)


def test_two_stage_bootstrap_draws_the_samples_too():
    # one cluster, one unit, samples (1, 0): stage 2 draws two of them with replacement, so the
    # mean is 1 with probability 1/4, 0.5 with 1/2, 0 with 1/4 (a one-stage bootstrap would give 0.5 always)
    iv, draws = two_stage_bootstrap([[1, 0]], ["c"], n_resamples=4000, seed=1)
    assert set(np.unique(draws)) == {0.0, 0.5, 1.0}
    assert (draws == 1.0).mean() == pytest.approx(0.25, abs=0.03)
    assert (draws == 0.5).mean() == pytest.approx(0.5, abs=0.03)
    assert (iv.low, iv.high) == (0.0, 1.0) and iv.mean == pytest.approx(0.5, abs=0.02)
    # identical samples: only the clusters vary; every unit right -> [1, 1]
    iv, _ = two_stage_bootstrap([[1, 1], [1, 1], [1, 1]], ["a", "a", "b"], n_resamples=200)
    assert (iv.low, iv.high) == (1.0, 1.0)


def test_leaderboard_cell_of_a_repeated_judge(tmp_path):
    """Two samples per unit: the sample variance by hand, and one aggregate per unit (the
    majority of its valid samples) feeds the leave-one-out value."""
    import pandas as pd

    from sumjudge.datasets import BUILTIN
    from support.board import run, table_cells
    data = pd.DataFrame({"unit_id": ["0/0", "0/1", "1/0"], "doc_id": ["0", "0", "1"], "sentence_idx": [0, 1, 0],
                         "votes": [[1, 1, 0], [0, 0, 1], [1, 1, 1]], "workers": [["a", "b", "c"]] * 3,
                         "label": [1, 0, 1]})
    judge = pd.DataFrame({"unit_id": ["0/0", "0/1", "1/0"] * 2, "sample": [0, 0, 0, 1, 1, 1], "status": "ok",
                          "label": [1, 0, 1, 1, 0, 0]})
    out = run(tmp_path, {"qags_cnn": data}, {("j", "qags_cnn"): judge},
              table_cells(BUILTIN["qags_cnn"], "j", 0.833, 3), config={"leaderboard": {"alt_test": {"min_instances": 2}}})
    r = out["cells"].set_index("row").loc["j"]
    # per unit labels (1, 1), (0, 0), (1, 0): variances 0, 0, 1/2 -> 1/6
    assert r["n_samples"] == 2 and r["sample_variance"] == pytest.approx(1 / 6)
    assert r["interval"] == "cluster bootstrap over documents of the per-unit aggregate"
    assert r["ci_low"] <= r["ci_high"] and r["n_invalid"] == 0
    # aggregate per unit: 1, 0 and (1, 0) -> 1. Split a (others b, c: tie, tie, 1) and split b (a, c: tie,
    # tie, 1) score unit 2 only, right; split c (a, b: 1, 0, 1) all three, right: mean 1.0
    assert r["loo_value"] == pytest.approx(np.mean([1.0, 1.0, 1.0]))


def test_two_stage_correlation_keeps_both_sources_of_noise():
    import numpy as np
    from sumjudge.stats.repeats import two_stage_correlation

    rng = np.random.default_rng(1)
    human = rng.normal(size=(12, 5))
    steady = np.stack([human + 0.1 * rng.normal(size=human.shape)] * 3)           # samples agree
    shaky = np.stack([human + 2.0 * rng.normal(size=human.shape) for _ in range(3)])  # samples disagree
    a = two_stage_correlation(steady, human, 300, seed=0)
    b = two_stage_correlation(shaky, human, 300, seed=0)
    for level in ("sample", "system", "dataset"):
        assert a[level].low <= a[level].high and b[level].low <= b[level].high
    # identical samples: the interval is the one-stage document bootstrap's; noisy samples widen it
    assert (b["dataset"].high - b["dataset"].low) > (a["dataset"].high - a["dataset"].low)
    assert a["dataset"].low > 0.9
    # one sample only: stage 2 has nothing to draw, and a perfect judge gives rho = 1 throughout
    one = two_stage_correlation(human[None], human, 50, seed=0)
    assert one["dataset"].low == pytest.approx(1.0) and one["sample"].high == pytest.approx(1.0)


def test_a_repeated_likert_judge_gets_intervals_at_every_level(tmp_path):
    import pandas as pd

    from support.board import run
    rng = np.random.default_rng(3)
    docs, systems = [f"d{i}" for i in range(6)], ["A", "B", "C", "D"]
    dims = ("coherence", "fluency", "informativeness", "relevance")
    rows = []
    for d in docs:
        for k, s in enumerate(systems):
            slots = {f"{m}_r{i}": float(rng.integers(1, 6)) for m in dims for i in range(3)}
            rows.append({"unit_id": f"{d}/{s}", "doc_id": d, "system": s, "summary": "x " * (k + 1), **slots,
                         **{m: np.mean([slots[f"{m}_r{i}"] for i in range(3)]) for m in dims}})
    data = pd.DataFrame(rows)
    replies = pd.DataFrame([{"unit_id": r.unit_id, "sample": k, "status": "ok",
                             **{m: float(getattr(r, m) + rng.integers(-1, 2)) for m in dims}}
                            for k in range(3) for r in data.itertuples()])
    out = run(tmp_path, {"newsroom": data}, {("j", "newsroom"): replies})
    c = out["cells"]
    judge = c[(c["kind"] == "judge") & (c["dimension"] == "fluency")]
    assert set(judge["level"]) == {"sample", "system", "dataset"}
    assert (judge["n_samples"] == 3).all() and judge["interval"].str.startswith("cluster bootstrap").all()
    assert (judge["ci_low"] <= judge["ci_high"]).all() and judge["ci_low"].notna().all()
    # the aggregate's own dataset-level Spearman (mean of the three samples per summary) lies in its interval
    from scipy.stats import spearmanr
    mean = replies.groupby("unit_id")["fluency"].mean().reindex(data["unit_id"])
    rho = spearmanr(mean.to_numpy(), data["fluency"].to_numpy()).statistic
    cell = judge.set_index("level").loc["dataset"]
    assert cell["ci_low"] <= rho <= cell["ci_high"]
    # Newsroom's raters are anonymous slots: no alt-test, and the cell says why
    assert judge["alt_verdict"].str.startswith("not tested: anonymous annotators").all()
