"""A jury's judge table from its members' tables, per protocol, equals the aggregate of the members'
valid answers cell for cell; its usage.json sends nothing and sums the members' cost."""
import json

import numpy as np
import pandas as pd
import pytest

from sumjudge.datasets import get
from sumjudge.judge.spec import judge_specs
from sumjudge.jury import votes
from sumjudge.jury.aggregate import INVALID, build_jury
from support.synthetic import judge_table

DIMS = ["consistency", "relevance", "fluency", "coherence"]


def likert_human():
    rng = np.random.default_rng(1)
    return pd.DataFrame([{"unit_id": f"d{d}/M{s}", "doc_id": f"d{d}", "system": f"M{s}",
                          **{k: float(rng.integers(1, 6)) for k in DIMS}} for d in range(6) for s in range(5)])


def specs(aggregate="mean", **member_settings):
    config = {"judges": {"a": {"model": "m", "base_url": "http://x/v1", "price_input_per_1k": 0.001,
                               "price_output_per_1k": 0.002},
                         "b": {"model": "m", "embedded": "qwen2.5-coder-0.5b-instruct", "price_per_hour": 3.6},
                         "c": {"scores": "c.csv"},
                         "j": {"jury": ["a", "b", "c"], "aggregate": aggregate}}}
    s = judge_specs(config)
    return s["j"], {m: s[m] for m in "abc"}


def write(tmp_path, tables: dict, dataset, usages=None):
    paths = {}
    for m, t in tables.items():
        p = tmp_path / "judge" / m / dataset / "base.parquet"
        p.parent.mkdir(parents=True, exist_ok=True)
        t.to_parquet(p)
        p.with_suffix(".usage.json").write_text(json.dumps((usages or {}).get(m, {"total_cost_usd": 0.0})))
        paths[m] = str(p)
    return paths


def member_votes(tables, col, units, sample=0):
    """units x members: each member's valid answer (NaN where its reply is not ok)."""
    cols = []
    for t in tables.values():
        t = t[t["sample"] == sample].set_index("unit_id")
        cols.append(pd.to_numeric(t[col].where(t["status"] == "ok"), errors="coerce").reindex(units).to_numpy(float))
    return np.stack(cols, axis=1)


@pytest.mark.parametrize("aggregate", ["mean", "median", "majority"])
def test_likert_jury_is_the_aggregate_of_its_members_cell_for_cell(tmp_path, aggregate):
    human = likert_human()
    tables = {m: judge_table(human, "summeval", seed=i, invalid_rate=0.2, weighted=True, samples=2)
              for i, m in enumerate("abc")}
    tables["c"] = tables["c"][tables["c"]["unit_id"] != "d0/M0"]  # a unit one member did not judge
    jury, members = specs(aggregate)
    table, usage = build_jury(jury, members, write(tmp_path, tables, "summeval"), human, get("summeval"), "base")
    units = human["unit_id"].tolist()
    assert len(table) == 2 * len(units) and sorted(table["sample"].unique()) == [0, 1]
    for s in (0, 1):
        mine = table[table["sample"] == s].set_index("unit_id").reindex(units)
        for d in DIMS:
            np.testing.assert_allclose(mine[d].to_numpy(float), votes.scores(member_votes(tables, d, units, s),
                                                                             aggregate), equal_nan=True)
            if aggregate != "majority":  # the weighted columns, aggregated alike; a vote has no weighted score
                np.testing.assert_allclose(mine[d + "_weighted"].to_numpy(float),
                                           votes.scores(member_votes(tables, d + "_weighted", units, s), aggregate),
                                           equal_nan=True)
        assert (mine["n_votes"].to_numpy() == (~np.isnan(member_votes(tables, DIMS[0], units, s))).sum(1)).all()
    assert ("consistency_weighted" in table) == (aggregate != "majority")
    assert set(table.loc[table["status"] == "ok", "score_mode"]) == {f"jury_{aggregate}"}
    assert usage["requests_sent"] == 0 and usage["jury"] == ["a", "b", "c"]


def test_a_unit_no_member_answered_is_invalid(tmp_path):
    human = likert_human().head(5)
    tables = {m: judge_table(human, "summeval", seed=i, invalid_rate=0.0) for i, m in enumerate("abc")}
    for t in tables.values():
        t.loc[t["unit_id"] == "d0/M0", "status"] = "invalid"
    jury, members = specs()
    table, usage = build_jury(jury, members, write(tmp_path, tables, "summeval"), human, get("summeval"), "base")
    bad = table.set_index("unit_id").loc["d0/M0"]
    assert bad["status"] == "invalid" and bad["invalid_reason"] == INVALID and np.isnan(bad["consistency"])
    assert usage["status"] == {"ok": 4, "invalid": 1}


def test_pairwise_binary_and_pyramid_juries(tmp_path):
    tldr = pd.DataFrame({"unit_id": [f"p{i}" for i in range(6)], "post_id": [f"q{i // 2}" for i in range(6)],
                         "choice": [0, 1, 0, 1, 1, 0]})
    tables = {m: judge_table(tldr, "tldr", seed=i, invalid_rate=0.3) for i, m in enumerate("abc")}
    jury, members = specs("majority")
    table, _ = build_jury(jury, members, write(tmp_path / "t", tables, "tldr"), tldr, get("tldr"), "base")
    v = member_votes(tables, "choice", tldr["unit_id"].tolist())
    expected = votes.labels(v, "majority")
    got = table.set_index("unit_id").reindex(tldr["unit_id"])["choice"]
    assert got.dtype == "Int64"
    np.testing.assert_array_equal(got.astype("float").to_numpy(), expected)
    np.testing.assert_allclose(table.set_index("unit_id").reindex(tldr["unit_id"])["agreement"],
                               votes.agreement(v, expected))
    real = pd.DataFrame({"unit_id": ["d0/s0", "d0/s1", "d1/s0"], "doc_id": ["d0", "d0", "d1"],
                         "scu_labels": [[True, False, True], [False, False], [True, True, True, True]]})
    tables = {m: judge_table(real, "realsumm", seed=i, invalid_rate=0.0) for i, m in enumerate("abc")}
    table, _ = build_jury(jury, members, write(tmp_path / "r", tables, "realsumm"), real, get("realsumm"), "base")
    for unit, labels in zip(table["unit_id"], table["scu_labels"]):
        member = [t.set_index("unit_id").loc[unit, "scu_labels"] for t in tables.values()]
        v = np.array([[np.nan if x is None else float(x) for x in m] for m in member]).T  # SCUs x members
        assert labels == [bool(x) for x in votes.labels(v, "majority")], unit


def test_pairwise_with_ties_jury(tmp_path):
    helm = pd.DataFrame({"unit_id": ["u0", "u1", "u2"], "doc_id": ["d0", "d1", "d2"]})
    answers = {"a": [0, 1, 2], "b": [0, 2, 2], "c": [1, 2, 1]}
    tables = {m: pd.DataFrame({"unit_id": helm["unit_id"], "sample": 0, "status": "ok",
                               "choice": pd.array(v, dtype="Int64")}) for m, v in answers.items()}
    jury, members = specs("mean")
    table, _ = build_jury(jury, members, write(tmp_path, tables, "helm_news"), helm, get("helm_news"), "base")
    # preference scale means: (0 + 0 + 1)/3 -> 0; (1 + .5 + .5)/3 = 2/3 -> 1; (.5 + .5 + 1)/3 = 2/3 -> 1
    assert table["choice"].tolist() == [0, 1, 1]


def test_usage_sums_the_members_cost_and_time(tmp_path):
    """A member is priced by the leaderboard's rule (sumjudge.judge.cost.runs_usd): the embedded member at
    price_per_hour x its run's wall time, never its replies' latencies; unknown stays unknown, with why."""
    human = likert_human().head(4)
    tables = {m: judge_table(human, "summeval", seed=i, invalid_rate=0.0) for i, m in enumerate("abc")}
    tables["b"] = tables["b"].assign(latency_s=2.5)  # 4 x 2.5 s of latencies: not what the leaderboard charges
    usages = {"a": {"total_cost_usd": 0.25, "priced": True, "wall_s": 7.0},
              "b": {"total_cost_usd": 0.0, "priced": True, "wall_s": 20.0},  # 20 s at 3.6 USD per hour
              "c": {"total_cost_usd": 0.0, "priced": True, "wall_s": 0.0}}
    jury, members = specs()

    def usage():
        return build_jury(jury, members, write(tmp_path, tables, "summeval", usages), human, get("summeval"),
                          "base")[1]

    u = usage()
    assert u["members_cost_usd"] == {"a": 0.25, "b": 0.02, "c": 0.0} and "cost_note" not in u
    assert u["total_cost_usd"] == pytest.approx(0.27) and u["priced"] is True
    assert u["wall_s"] == pytest.approx(7.0 + 20.0 + 0.0)
    # a rebuild of the embedded member from the cache took a rebuild's time, not the judge's: not measured
    usages["b"] = {"total_cost_usd": 0.0, "priced": True, "wall_s": 0.1, "cache_hits": 4}
    u = usage()
    assert u["members_cost_usd"]["b"] == "not measured" and u["cost_note"] == "not measured"
    assert u["total_cost_usd"] is None and u["priced"] is False and u["wall_s"] is None  # unknown, never 0
    usages["a"] = {"total_cost_usd": None, "priced": False}
    assert usage()["cost_note"] == "not priced"
