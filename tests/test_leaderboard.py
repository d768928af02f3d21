"""The leaderboard build on small synthetic results: human rows left one out, judges on
the same references, rank groups from paired tests, validity gates, cost cells."""
import json

import numpy as np
import pandas as pd
import pytest

from sumjudge.tables.leaderboard import build, cost_row, latex, page

DOCS, SYSTEMS = ["d0", "d1", "d2", "d3"], ["s0", "s1", "s2"]
DIMS = ["coherence", "consistency", "fluency", "relevance"]


def _summeval(tmp_path):
    rng = np.random.default_rng(0)
    rows = []
    for d in DOCS:
        for s in SYSTEMS:
            ex = {f"{dim}_expert{k}": float(rng.integers(1, 6)) for dim in DIMS for k in range(3)}
            rows.append({"unit_id": f"{d}/{s}", "doc_id": d, "system": s, **ex,
                         **{dim: np.mean([ex[f"{dim}_expert{k}"] for k in range(3)]) for dim in DIMS}})
    data = pd.DataFrame(rows)
    p = tmp_path / "data" / "summeval.parquet"
    p.parent.mkdir(parents=True)
    data.to_parquet(p)
    return data, str(p)


def _judge(tmp_path, name, data, scores, status="ok"):
    d = tmp_path / "judge" / name / "summeval"
    d.mkdir(parents=True)
    df = pd.DataFrame({"unit_id": data["unit_id"], "sample": 0, "status": status,
                       **{dim: scores for dim in DIMS}})
    df.to_parquet(d / "base.parquet")
    (d / "base.usage.json").write_text(json.dumps({"n_units": len(df), "wall_s": 12.0, "total_cost_usd": 0.03,
                                                   "priced": True}))
    return str(d / "base.parquet")


def _table(tmp_path, judges):
    rows = [{"table": "Table 1", "dataset": "SummEval", "dimension": dim, "level": lv, "row": j, "kind": "judge",
             "value": v, "ci_low": v - 0.1, "ci_high": v + 0.1, "n": 12, "near_constant": False}
            for j, v in judges.items() for dim in DIMS for lv in ("sample", "system", "dataset")]
    p = tmp_path / "table1.csv"
    pd.DataFrame(rows).to_csv(p, index=False)
    return str(p)


@pytest.fixture
def board(tmp_path):
    data, dpath = _summeval(tmp_path)
    good = data["coherence"].to_numpy()                 # the judge that copies the expert mean
    judges = [_judge(tmp_path, "good", data, good), _judge(tmp_path, "noisy", data, good[::-1].copy()),
              _judge(tmp_path, "broken", data, good, status=["ok"] * 6 + ["invalid"] * 6)]
    table = _table(tmp_path, {"good": 0.9, "noisy": 0.1, "broken": 0.5})
    cfg = {"good": {"base_url": "https://api.example/v1"}, "noisy": {"embedded": "qwen2.5-coder-0.5b-instruct"},
           "broken": {"embedded": "x", "price_per_hour": 3.6}}
    return data, build([table], {"summeval": dpath}, judges, cfg,
                       {"seed": 1, "permutation": "documents", "permutation_resamples": 200},
                       {"min_instances": 5})


def test_humans_are_rows_scored_leave_one_out(board):
    data, out = board
    cells = out["cells"]
    col = cells[cells["column"] == "SummEval cohe. dataset"]
    humans = col[col["kind"] == "human"]
    assert len(humans) == 3 and set(humans["n"]) == {12}
    # annotator 0 against the mean of annotators 1 and 2, by hand with scipy
    from scipy.stats import spearmanr
    ref = data[["coherence_expert1", "coherence_expert2"]].mean(axis=1)
    expect = spearmanr(data["coherence_expert0"], ref).statistic
    got = humans.loc[humans["row"].str.contains("expert0"), "value"].iloc[0]
    assert got == pytest.approx(expect)


def test_judges_get_value_n_interval_rank_group_and_gates(board):
    _, out = board
    cells = out["cells"]
    judges = cells[cells["kind"] == "judge"]
    assert len(judges) == 3 * 12
    assert judges[["value", "n", "ci_low", "ci_high"]].notna().all().all()
    broken = judges[judges["row"] == "broken"]
    assert broken["greyed"].all() and broken["rank_group"].isna().all()
    assert broken["reason"].str.contains("parse rate 50% < 95%").all()
    ok = judges[judges["row"] != "broken"]
    assert ok["rank_group"].notna().all()
    # the best judge is in rank group 1 everywhere
    assert (ok.loc[ok["row"] == "good", "rank_group"] == 1).all()
    # the judge that copies the mean agrees with the left-out references better than the reversed one
    lo = ok.pivot_table(index="row", columns="column", values="loo_value")
    for col in ("SummEval cohe. dataset", "SummEval cohe. sample"):
        assert lo.loc["good", col] > lo.loc["noisy", col]
    assert set(out["pairs"]["column"]) == set(judges["column"]) and (out["pairs"]["a"] != "broken").all()


def test_summary_cost_and_alt_test(board):
    _, out = board
    s = out["summary"].set_index("row")
    assert s.loc["good", "usd_per_1k"] == pytest.approx(0.03 / 12 * 1000)
    assert s.loc["noisy", "usd_per_1k"] == "not priced"          # local, no price_per_hour: never 0
    assert s.loc["broken", "usd_per_1k"] == pytest.approx(3.6 * 12 / 3600 / 12 * 1000)
    assert s.loc["noisy", "seconds_per_1k"] == pytest.approx(1000.0)
    assert s.loc["good", "columns_won"] == 12 and s.loc["good", "mean_rank"] == 1.0
    assert s.loc["good", "alt_passes"].startswith("passes ") and s.loc["good", "alt_passes"].endswith(" of 4")
    assert out["alt"]["score_used"].sum() == 3 * 4 * 3  # judges x dimensions x annotators
    assert len(out["alt"]) == 2 * 3 * 4 * 3              # both Likert scores reported, one decides
    likert = out["cells"][(out["cells"]["kind"] == "judge") & (out["cells"]["level"] != "accuracy")]
    assert set(likert["alt_other_score"].dropna()) == {"rank"} and likert["alt_other_winning_rate"].notna().any()


def test_latex_and_page_render(board):
    _, out = board
    tex = latex(out["cells"], out["summary"])
    assert tex.count(r"\begin{table*}") == 13 and "expert0 (LOO)" in tex
    html = page(out["cells"], out["summary"], out["pairs"])
    assert "Which judge is human-like?" in html and "greyed: parse rate 50% &lt; 95%" in html


def test_cost_row_not_priced_for_unpriced_api():
    r = cost_row("x", [{"n_units": 10, "wall_s": 5, "total_cost_usd": 0, "priced": False}], {"base_url": "https://a"})
    assert r["usd_per_1k"] == "not priced" and r["seconds_per_1k"] == pytest.approx(500)


def test_tldr_both_orders_in_the_cell(tmp_path):
    """A TLDR judge asked in both orders: flip rate and the three accuracies in its cell."""
    data = pd.DataFrame({"unit_id": ["p0/0", "p0/1", "p1/0", "p1/1"], "post_id": ["p0", "p0", "p1", "p1"],
                         "summary_0": list("abcd"), "summary_1": list("efgh"), "choice": [0, 1, 0, 1]})
    dp = tmp_path / "data" / "tldr.parquet"
    dp.parent.mkdir(parents=True)
    data.to_parquet(dp)
    paths = []
    for variant, choice in (("base", [0, 1, 1, 1]), ("base_swapped", [1, 1, 1, 0])):
        d = tmp_path / "judge" / "j" / "tldr"
        d.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({"unit_id": data["unit_id"], "sample": 0, "status": "ok", "choice": choice}).to_parquet(
            d / f"{variant}.parquet")
        paths.append(str(d / f"{variant}.parquet"))
    t = tmp_path / "table3.csv"
    pd.DataFrame([{"table": "Table 3", "dataset": "TLDR", "dimension": "pairwise", "level": "accuracy", "row": "j",
                   "kind": "judge", "value": 0.75, "ci_low": 0.5, "ci_high": 1.0, "n": 4,
                   "near_constant": False}]).to_csv(t, index=False)
    out = build([str(t)], {"tldr": str(dp)}, paths, {"j": {"embedded": "x"}}, {"seed": 0, "permutation": "documents"})
    c = out["cells"]
    r = c[(c["row"] == "j")].iloc[0]
    # swapped picks as original index: 0 0 0 1; original 0 1 1 1 -> agree on pairs 0 and 3: flip .5
    assert r["flip_rate"] == pytest.approx(0.5) and r["flip_flag"]
    assert r["acc_original"] == pytest.approx(0.75)          # 0=0, 1=1, 1!=0, 1=1
    assert r["acc_agreement_else_tie"] == pytest.approx((1 + 0.5 + 0.5 + 1) / 4)
    assert r["acc_agreement_only"] == pytest.approx(1.0) and r["n_conflicts"] == 2
    human = c[c["kind"] == "human"].iloc[0]
    assert "one label per unit" in human["note"]
    assert "flip 50% (flagged &gt; 10%)" in page(c, out["summary"], out["pairs"])


def test_tldr_longer_preference_for_the_judge_and_the_humans(tmp_path):
    """The bias column: the same function scores the judge's choices and the human labels."""
    data = pd.DataFrame({"unit_id": ["p0/0", "p0/1", "p1/0", "p1/1"], "post_id": ["p0", "p0", "p1", "p1"],
                         "summary_0": ["a b c d e f", "a b", "a b c", "a b c d"],
                         "summary_1": ["a b", "a b c d e f", "a b c", "a b c d e"],
                         "choice": [1, 1, 0, 0]})
    # lengths 6/2, 2/6, 3/3, 4/5: pairs 0 and 1 differ by more than 20 %, 2 not, 3 by 25 %
    dp = tmp_path / "tldr.parquet"
    data.to_parquet(dp)
    d = tmp_path / "judge" / "j" / "tldr"
    d.mkdir(parents=True)
    pd.DataFrame({"unit_id": data["unit_id"], "sample": 0, "status": ["ok", "ok", "ok", "invalid"],
                  "choice": [0, 1, 1, 1]}).to_parquet(d / "base.parquet")
    out = build([], {"tldr": str(dp)}, [str(d / "base.parquet")], {"j": {}}, {"seed": 0, "permutation": "documents"},
                longer_margin=0.2)
    c = out["cells"].set_index("row")
    # judge: pairs 0, 1 qualify (3 is invalid); longer = 0, 1; picked 0, 1 -> 2 of 2
    assert c.loc["j", "length_bias"] == pytest.approx(1.0) and c.loc["j", "length_bias_n"] == 2
    # humans: pairs 0, 1, 3 qualify; longer = 0, 1, 1; chose 1, 1, 0 -> 1 of 3
    assert c.loc["TLDR humans", "length_bias"] == pytest.approx(1 / 3) and c.loc["TLDR humans", "length_bias_n"] == 3
