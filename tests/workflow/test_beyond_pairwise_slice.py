"""tests/slice_beyond.yaml through Snakemake with the embedded judge (no key, no network):
HELM news (the units of its first 2 articles, both questions) and 4 CNN/DM pairs are
prepared from the mirror, judged, and tabled; every judged unit is ``ok`` or counted
invalid; a second run has nothing to do (issue 26, the pairwise side)."""
import json

import pandas as pd
import pytest

from support import harness
from support.harness import REPO

pytestmark = pytest.mark.system("rouge-perl")  # tests/support/system.py NEEDS (ROUGE rows of the CNN/DM table)

SLICE = REPO / "tests" / "slice_beyond.yaml"
RUNS = [("helm_news", "base"), ("helm_news", "informative"), ("cnndm_comparisons", "base")]


def snakemake(workdir, mirror, *args):
    return harness.snakemake(workdir, "--cores", "2", *args, configfiles=[harness.CONFIG, SLICE],
                             config=[f"mirror={mirror}"], timeout=1800, env=harness.workflow_env(), cwd=workdir)


@pytest.fixture(scope="module")
def run(tmp_path_factory, mirror):
    wd = tmp_path_factory.mktemp("beyond_pairwise")
    out = snakemake(wd, mirror)
    assert out.returncode == 0, out.stderr[-4000:]
    return wd


def test_every_unit_is_judged_ok_or_counted_invalid(run):
    helm = pd.read_parquet(run / "results/data/helm_news.parquet")
    cnndm = pd.read_parquet(run / "results/data/cnndm_comparisons.parquet")
    assert helm["doc_id"].nunique() == 2 and len(cnndm) == 4
    for dataset, variant in RUNS:
        table = pd.read_parquet(run / f"results/judge/qwen-1.5b/{dataset}/{variant}.parquet")
        units = helm if dataset == "helm_news" else cnndm
        assert sorted(table["unit_id"]) == sorted(units["unit_id"])
        assert set(table["status"]) <= {"ok", "invalid"}
        ok = table[table["status"] == "ok"]
        assert ok["choice"].isin([0, 1, 2] if dataset == "helm_news" else [0, 1]).all()
        usage = json.loads((run / f"results/judge/qwen-1.5b/{dataset}/{variant}.usage.json").read_text())
        assert usage["n_units"] == len(units)
        assert sum(usage["status"].values()) == len(units)


def test_tables_are_built_per_question_and_linked_from_the_overview(run):
    helm = pd.read_csv(run / "results/tables/helm_news.csv")
    judge = helm[helm["kind"] == "judge"]
    assert list(judge["dimension"]) == ["overall", "informative"] and set(judge["row"]) == {"qwen-1.5b"}
    n_labels = int(pd.read_parquet(run / "results/data/helm_news.parquet")["n_evaluators"].sum())
    assert (judge["n"] + judge["n_missing"] <= n_labels).all()
    cnndm = pd.read_csv(run / "results/tables/cnndm_comparisons.csv")
    assert {"ROUGE-1", "qwen-1.5b"} <= set(cnndm["row"])
    tex = (run / "results/tables/helm_news.tex").read_text()
    assert r"HELM\_news overall & HELM\_news informative" in tex
    page = (run / "results/tables/overview.html").read_text()
    assert "<a href='#helm_news'>HELM_news, beyond the paper (accuracy)</a>" in page
    assert "<a href='#cnndm_comparisons'>CNNDM_comparisons, beyond the paper (accuracy)</a>" in page


def test_a_second_run_has_nothing_to_do(run, mirror):
    out = snakemake(run, mirror, "-n")
    assert out.returncode == 0 and "Nothing to be done" in out.stdout + out.stderr
