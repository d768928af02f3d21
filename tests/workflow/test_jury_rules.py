"""Issue 36 item 4 through Snakemake: a jury of three imported judges (rule judge_import) is written by
rule jury as a judge table at results/judge/<jury>/<dataset>/<variant>.parquet that equals the median of
their scores files cell for cell, with 0 requests; jury.csv has its rows; and Table 1, Table 3 and the
leaderboard take the jury's tables as inputs like any judge's."""
import json

import numpy as np
import pandas as pd
import pytest

from sumjudge.jury import votes
from support import harness
from support.harness import write_config

pytestmark = pytest.mark.slow
DIMS = ["consistency", "relevance", "fluency", "coherence"]
MEMBERS = ("a", "b", "c")


def run(wd, mirror, *args):
    return harness.snakemake(wd, "--cores", "2", *args, configfiles=[harness.CONFIG, harness.SLICE, wd / "jury.yaml"],
                             config=[f"mirror={mirror}"], timeout=1200, cwd=wd, env=harness.workflow_env())


def write_scores(wd):
    """Each member's scores of the slice's SummEval summaries and TLDR pairs, seeded; member c leaves one
    summary's fluency out (its row is then invalid: the jury takes the two others' votes there)."""
    summeval = pd.read_parquet(wd / "results/data/summeval.parquet")
    tldr = pd.read_parquet(wd / "results/data/tldr.parquet")
    for i, m in enumerate(MEMBERS):
        rng = np.random.default_rng(i)
        long = pd.DataFrame([{"doc_id": d, "system": s, "dimension": k, "score": int(rng.integers(1, 6))}
                             for d, s in zip(summeval["doc_id"], summeval["system"]) for k in DIMS])
        if m == "c":
            long = long.drop(index=2)
        long.to_csv(wd / f"{m}.csv", index=False)
        pd.DataFrame({"unit_id": tldr["unit_id"], "choice": rng.integers(0, 2, len(tldr))}).to_csv(
            wd / f"{m}_tldr.csv", index=False)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, mirror):
    wd = tmp_path_factory.mktemp("jury-wf")
    write_config(wd / "jury.yaml", {
        "judges": {**{m: {"scores": {"summeval": f"{m}.csv", "tldr": f"{m}_tldr.csv"}} for m in MEMBERS},
                   "panel": {"jury": list(MEMBERS), "aggregate": "median"}},
        "judge": {"run": ["panel"]}})
    out = run(wd, mirror, "results/data/summeval.parquet", "results/data/tldr.parquet")
    assert out.returncode == 0, out.stderr[-4000:]
    write_scores(wd)
    out = run(wd, mirror, "results/judge/panel/jury.csv")
    assert out.returncode == 0, out.stderr[-4000:]
    return wd


def scores_file_votes(wd, units):
    """units x members: the members' scores straight from their files (NaN: an incomplete summary)."""
    data = pd.read_parquet(wd / "results/data/summeval.parquet").set_index("unit_id").loc[units]
    out = {}
    for m in MEMBERS:
        wide = pd.read_csv(wd / f"{m}.csv").pivot_table(index=["doc_id", "system"], columns="dimension",
                                                        values="score")
        wide = wide.reindex(list(zip(data["doc_id"], data["system"])))
        wide[wide.isna().any(axis=1)] = np.nan  # an incomplete summary is an invalid reply: no vote
        out[m] = wide
    return {d: np.stack([out[m][d].to_numpy(float) for m in MEMBERS], axis=1) for d in DIMS}


def test_the_jury_is_the_median_of_the_cached_scores_cell_for_cell_with_no_request(workdir):
    jury = pd.read_parquet(workdir / "results/judge/panel/summeval/base.parquet")
    units = pd.read_parquet(workdir / "results/data/summeval.parquet")["unit_id"].astype(str).tolist()
    assert sorted(jury["unit_id"]) == sorted(units) and (jury["status"] == "ok").all()
    jury = jury.set_index("unit_id").loc[units]
    for d, v in scores_file_votes(workdir, units).items():
        np.testing.assert_array_equal(jury[d].to_numpy(float), votes.scores(v, "median"))
    assert sorted(jury["n_votes"].unique()) == [2, 3]
    usage = json.loads((workdir / "results/judge/panel/summeval/base.usage.json").read_text())
    assert usage["requests_sent"] == 0 and usage["total_cost_usd"] == 0.0 and usage["jury"] == list(MEMBERS)
    tldr = pd.read_parquet(workdir / "results/judge/panel/tldr/base.parquet")
    files = np.stack([pd.read_csv(workdir / f"{m}_tldr.csv").set_index("unit_id").loc[tldr["unit_id"], "choice"]
                      for m in MEMBERS], axis=1).astype(float)
    np.testing.assert_array_equal(tldr["choice"].astype(float), votes.labels(files, "median"))


def test_jury_csv_has_a_row_per_dataset_dimension_and_level(workdir):
    t = pd.read_csv(workdir / "results/judge/panel/jury.csv")
    assert len(t) == 4 * 3 + 1 and set(t["dataset"]) == {"summeval", "tldr"}
    assert (t["members_cost_usd"] == 0).all() and (t["k"] == 3).all() and t["n_eff"].notna().all()
    assert ((t["ci_low"] <= t["delta"]) & (t["delta"] <= t["ci_high"])).all()


def test_tables_and_the_leaderboard_take_the_jury_as_a_judge(workdir, mirror):
    out = run(workdir, mirror, "-n", "--forceall", "results/tables/table1.csv", "results/tables/table3.csv",
              "results/leaderboard/leaderboard.csv")
    assert out.returncode == 0, out.stderr[-4000:]
    text = out.stdout + out.stderr
    jobs = {block.split("output: ")[1].split(",")[0].split("\n")[0]: block
            for block in text.split("\nrule ")[1:] if "output: " in block}
    for output in ("results/tables/table1.csv", "results/tables/table3.csv", "results/leaderboard/leaderboard.csv"):
        assert "results/judge/panel/" in jobs[output].split("output: ")[0], jobs[output][:800]
    assert "rule judge:" not in text  # nothing is asked of a model


def test_the_leaderboard_shows_the_jurys_votes_interval_and_cost(workdir, mirror):
    """The jury's row on the leaderboard built through Snakemake: its summary line and cells carry its
    jury.csv (effective votes, interval against its best member), its cost is its members' summed."""
    out = run(workdir, mirror, "results/leaderboard/leaderboard.html")
    assert out.returncode == 0, out.stderr[-4000:]
    board = workdir / "results/leaderboard"
    panel = pd.read_csv(board / "summary.csv").set_index("row").loc["panel"]
    t = pd.read_csv(workdir / "results/judge/panel/jury.csv")
    assert panel["jury"] == "median of a, b, c" and panel["jury_n_eff"] == pytest.approx(t["n_eff"].median())
    above, below = int((t["ci_low"] > 0).sum()), int((t["ci_high"] < 0).sum())
    assert panel["jury_vs_best"] == (f"above its best member in {above}, below in {below}, neither in "
                                     f"{len(t) - above - below} of {len(t)} columns")
    assert float(panel["usd_total"]) == 0.0  # imported members: their replies cost nothing
    cells = pd.read_csv(board / "leaderboard.csv")
    mine = cells[(cells["row"] == "panel") & cells["jury_delta"].notna()]
    assert len(mine) == len(t)
    row = mine[(mine["dimension"] == "coherence") & (mine["level"] == "system")].iloc[0]
    ref = t[(t["dimension"] == "coherence") & (t["level"] == "system")].iloc[0]
    assert row["jury_best_member"] == ref["best_member"]
    assert row["jury_delta"] == pytest.approx(ref["delta"]) and row["jury_delta_low"] == pytest.approx(ref["ci_low"])
    html = (board / "leaderboard.html").read_text()
    assert "<th>Jury</th>" in html and "jury - best member (" in html
