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
    import pandas as pd

    from sumjudge.tables.leaderboard import build
    data = pd.DataFrame({"unit_id": ["0/0", "0/1", "1/0"], "doc_id": [0, 0, 1], "sentence_idx": [0, 1, 0],
                         "votes": [[1, 1, 0], [0, 0, 1], [1, 1, 1]], "label": [1, 0, 1]})
    dp = tmp_path / "data" / "qags_cnn.parquet"
    dp.parent.mkdir(parents=True)
    data.to_parquet(dp)
    d = tmp_path / "judge" / "j" / "qags_cnn"
    d.mkdir(parents=True)
    pd.DataFrame({"unit_id": ["0/0", "0/1", "1/0"] * 2, "sample": [0, 0, 0, 1, 1, 1], "status": "ok",
                  "label": [1, 0, 1, 1, 1, 1]}).to_parquet(d / "base.parquet")
    t = tmp_path / "table5.csv"
    pd.DataFrame([{"table": "Table 5", "dataset": "QAGS_CNN", "dimension": "factuality", "level": "accuracy",
                   "row": "j", "kind": "judge", "value": 0.833, "ci_low": 0.5, "ci_high": 1.0, "n": 3,
                   "near_constant": False}]).to_csv(t, index=False)
    out = build([str(t)], {"qags_cnn": str(dp)}, [str(d / "base.parquet")], {}, {"seed": 0})
    cells = out["cells"]
    r = cells[cells["kind"] == "judge"].iloc[0]
    # per unit labels (1, 1), (0, 1), (1, 1): variances 0, 1/2, 0 -> 1/6
    assert r["n_samples"] == 2 and r["sample_variance"] == pytest.approx(1 / 6)
    assert r["interval"].startswith("two-stage") and 0 <= r["ci_low"] <= r["ci_high"] <= 1


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


def test_a_repeated_likert_judge_gets_two_stage_intervals_at_every_level(tmp_path):
    import pandas as pd

    from sumjudge.tables.leaderboard import build
    rng = np.random.default_rng(3)
    docs, systems = [f"d{i}" for i in range(6)], ["A", "B", "C", "D"]
    dims = ("coherence", "fluency", "informativeness", "relevance")
    data = pd.DataFrame([{"unit_id": f"{d}/{s}", "doc_id": d, "system": s, "summary": "x " * (k + 1),
                          **{m: float(rng.integers(1, 6)) for m in dims}} for d in docs for k, s in enumerate(systems)])
    dp = tmp_path / "newsroom.parquet"
    data.to_parquet(dp)
    d = tmp_path / "judge" / "j" / "newsroom"
    d.mkdir(parents=True)
    rows = [{"unit_id": r.unit_id, "sample": k, "status": "ok",
             **{m: float(getattr(r, m) + rng.integers(-1, 2)) for m in dims}} for k in range(3) for r in data.itertuples()]
    pd.DataFrame(rows).to_parquet(d / "base.parquet")
    out = build([], {"newsroom": str(dp)}, [str(d / "base.parquet")], {}, {"seed": 0, "bootstrap_resamples": 200})
    c = out["cells"]
    judge = c[(c["kind"] == "judge") & (c["dimension"] == "fluency")]
    assert set(judge["level"]) == {"sample", "system", "dataset"}
    assert (judge["n_samples"] == 3).all() and judge["interval"].str.startswith("two-stage").all()
    assert (judge["ci_low"] <= judge["ci_high"]).all() and judge["ci_low"].notna().all()
