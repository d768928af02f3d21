"""The slice of DialSummEval and SQuALITY (tests/slice_beyond_likert.yaml) end to end through
Snakemake with the embedded judge: every judged unit is ok or counted invalid, each dataset's own
table has ROUGE and the judge at the three levels, linked from the overview page; a second run
sends nothing."""
import pandas as pd
import pytest

from support import harness

pytestmark = [pytest.mark.slow, pytest.mark.system("rouge-perl")]

SLICE = harness.REPO / "tests" / "slice_beyond_likert.yaml"
UNITS = {"dialsummeval": 5, "squality": 3}


@pytest.fixture(scope="module")
def run(tmp_path_factory, mirror):
    wd = tmp_path_factory.mktemp("beyond")
    out = harness.snakemake(wd, "--cores", "2", configfiles=[harness.CONFIG, SLICE], config=[f"mirror={mirror}"],
                            timeout=3600)
    assert out.returncode == 0, out.stderr[-4000:]
    return wd


def test_every_judged_unit_is_ok_or_counted_invalid(run):
    for name, n in UNITS.items():
        data = pd.read_parquet(run / f"results/data/{name}.parquet")
        assert len(data) == n
        judged = pd.read_parquet(run / f"results/judge/qwen-1.5b/{name}/base.parquet")
        assert sorted(judged["unit_id"]) == sorted(data["unit_id"])
        assert set(judged["status"]) <= {"ok", "invalid"}, judged[["unit_id", "status", "error"]]
        assert judged.loc[judged["status"] == "invalid", "invalid_reason"].notna().all()
    sq = pd.read_parquet(run / "results/judge/qwen-1.5b/squality/base.parquet")
    scores = sq.loc[sq["status"] == "ok", ["correctness", "coverage", "overall"]].to_numpy().ravel()
    assert ((scores >= 0) & (scores <= 100)).all()
    usage = pd.read_csv(run / "results/tables/usage.csv")
    assert set(usage["dataset"]) >= {"DialSummEval", "SQuALITY"}


def test_each_dataset_has_its_own_table_with_rouge_and_the_judge(run):
    for name, label in (("dialsummeval", "DialSummEval"), ("squality", "SQuALITY")):
        table = pd.read_csv(run / f"results/tables/{name}.csv")
        assert set(table["dataset"]) == {label} and set(table["level"]) == {"sample", "system", "dataset"}
        assert {"ROUGE-1", "ROUGE-2", "ROUGE-L"} <= set(table["row"]) and "qwen-1.5b" in set(table["row"])
        assert "\\begin{table" in (run / f"results/tables/{name}.tex").read_text()
    overview = (run / "results/tables/overview.html").read_text()
    assert "dialsummeval" in overview and "squality" in overview
    assert not (run / "results/tables/table1.csv").exists()  # the paper's datasets are not in this slice


def test_a_second_run_has_nothing_to_do(run, mirror):
    out = harness.snakemake(run, "--cores", "1", "-n", configfiles=[harness.CONFIG, SLICE],
                            config=[f"mirror={mirror}"], timeout=600)
    assert out.returncode == 0 and "Nothing to be done" in out.stdout + out.stderr
