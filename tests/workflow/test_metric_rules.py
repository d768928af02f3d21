"""The metric rules through Snakemake on a slice of the data: with every metric pointed
at small local models each rule writes its Parquet; with the default models and no hub,
each rule stops within seconds with the clear message and leaves no output behind."""
import re
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from support.metric_models import local_metrics_config, tiny_models
from sumjudge.io import read_meta
from support import harness
from support.harness import REPO

pytestmark = pytest.mark.system("rouge-perl")  # tests/support/system.py NEEDS

SLICE = {"summeval": {"docs": 1}, "tldr": {"units": 4}, "realsumm": {"docs": 1}, "qags_xsum": {"units": 4},
         "newsroom": {"docs": 1}, "qags_cnn": {"docs": 1}}
LOCAL = {"bertscore": ["summeval", "tldr"], "moverscore": ["summeval", "tldr"], "bartscore": ["summeval", "tldr"],
         "factcc": ["realsumm", "qags_xsum"], "dae": ["realsumm", "qags_xsum"]}
COLUMNS = {
    ("bertscore", "summeval"): ["bertscore"],
    ("bertscore", "tldr"): ["bertscore_0", "bertscore_1", "bertscore_choice"],
    ("moverscore", "summeval"): ["moverscore"],
    ("moverscore", "tldr"): ["moverscore_0", "moverscore_1", "moverscore_choice"],
    ("bartscore", "summeval"): [f"bartscore_{c}{d}" for c in ("", "cnn_") for d in ("s_h", "r_h", "h_r")],
    ("bartscore", "tldr"): [f"bartscore_{c}{d}_{k}" for c in ("", "cnn_") for d in ("s_h", "r_h", "h_r")
                            for k in ("0", "1", "choice")],
    ("factcc", "realsumm"): ["scu_prob", "scu_pred"], ("factcc", "qags_xsum"): ["prob", "pred"],
    ("dae", "realsumm"): ["scu_prob", "scu_pred", "parser"], ("dae", "qags_xsum"): ["prob", "pred", "parser"],
}


def snakemake(workdir: Path, mirror: Path, configfile: Path, *args: str, env=None) -> subprocess.CompletedProcess:
    # one thread per metric job, so that two jobs share the two cores
    return harness.snakemake(workdir, "--cores", "2", "--set-threads", "metric=1", *args,
                             configfiles=[harness.CONFIG, configfile], config=[f"mirror={mirror}"], env=env)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, mirror):
    work = tmp_path_factory.mktemp("metrics-pipeline")
    config = {"datasets": ["summeval", "tldr", "realsumm", "qags_xsum"], "subset": SLICE,
              "metrics": local_metrics_config(tiny_models(), LOCAL)}
    (work / "local.yaml").write_text(yaml.safe_dump(config))
    targets = [f"results/metrics/{m}/{d}.parquet" for m, ds in LOCAL.items() for d in ds]
    out = snakemake(work, mirror, work / "local.yaml", "--", *targets)
    assert out.returncode == 0, out.stderr[-4000:]
    return work


def test_every_metric_parquet_is_written_with_its_model(workdir):
    models = tiny_models()
    for (metric, dataset), columns in COLUMNS.items():
        path = workdir / f"results/metrics/{metric}/{dataset}.parquet"
        df = pd.read_parquet(path)
        data = pd.read_parquet(workdir / f"results/data/{dataset}.parquet")
        assert df["unit_id"].tolist() == data["unit_id"].tolist(), path
        assert set(columns) <= set(df.columns), (path, list(df.columns))
        meta = read_meta(path)
        assert meta["dataset"] == dataset
        if metric == "bartscore":
            assert {meta["checkpoints"][k]["model"] for k in ("bart", "bart_cnn")} == \
                {str(models["bart"]), str(models["bart_cnn"])}
            assert (df["model_bart"] == str(models["bart"])).all()
        else:
            assert meta["metric"] == metric and meta["libraries"]["transformers"]
            assert df["model"].nunique() == 1 and df["model"].iloc[0].startswith(meta["model"])
            if metric == "dae":  # the parse is not the original's: the label says which parser
                assert df["model"].iloc[0] == f'{meta["model"]} (parser: {meta["parser"]})'
            else:
                assert df["model"].iloc[0] == meta["model"]
        assert (workdir / f"logs/metrics/{metric}/{dataset}.log").read_text().strip()
    assert not list((workdir / "results/metrics").rglob("*.part"))


def test_default_run_stops_before_any_job_with_one_list_of_manual_steps(tmp_path, mirror):
    """Default config, HF_HUB_OFFLINE=1: `snakemake -n` (and so `snakemake`) stops before any
    job (the preflight, sumjudge/preflight.py), with every missing model in one numbered list; with `dae` added to
    metrics.run, its checkpoint and spaCy pipeline join the list. Nothing is written."""
    env = {"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf-home")}
    (tmp_path / "default.yaml").write_text(yaml.safe_dump({"subset": SLICE}))
    out = snakemake(tmp_path, mirror, tmp_path / "default.yaml", "-n", env=env)
    text = out.stdout + out.stderr
    assert out.returncode != 0 and "before any job:" in text and "(nothing has run)" in text, text[-3000:]
    keys = ["metrics.bertscore.model", "metrics.moverscore.model", "metrics.bartscore.models.bart",
            "metrics.bartscore.models.bart_cnn", "metrics.factcc.model"]
    for i, key in enumerate(keys, 1):
        assert re.search(rf"  {i}\. \w+: model .*\(config key {re.escape(key)}\)", text), (key, text[-3000:])
    assert "metrics.dae" not in text and "rule " not in text and not (tmp_path / "results").exists()
    (tmp_path / "dae.yaml").write_text(yaml.safe_dump({"subset": SLICE, "metrics": {"run": ["factcc", "dae"]}}))
    out = snakemake(tmp_path, mirror, tmp_path / "dae.yaml", "-n", env=env)
    text = out.stdout + out.stderr
    assert "(config key metrics.dae.model)" in text and "metrics.dae.parser" in text and "spacy download" in text
    assert "--config 'metrics={run: []}'" in text


def test_default_models_stop_each_rule_within_seconds(workdir, mirror):
    """Default models, the preflight off by its old key (metrics.check_models: false), HF_HUB_OFFLINE=1:
    every rule fails with the message, nothing written."""
    (workdir / "default.yaml").write_text(yaml.safe_dump({"subset": SLICE, "metrics": {"check_models": False}}))
    targets = [f"results/metrics/{m}/newsroom.parquet" for m in ("bertscore", "moverscore", "bartscore")] + \
              [f"results/metrics/{m}/qags_cnn.parquet" for m in ("factcc", "dae")]
    env = {"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "HF_HOME": str(workdir / "hf-home")}
    start = time.time()
    out = snakemake(workdir, mirror, workdir / "default.yaml", "--keep-going", "--rerun-triggers", "mtime",
                    "--", *targets, env=env)
    assert out.returncode != 0
    assert time.time() - start < 240
    defaults = yaml.safe_load((REPO / "config.yaml").read_text())["metrics"]
    expected = {
        "bertscore/newsroom": ("metrics.bertscore.model", defaults["bertscore"]["model"]),
        "moverscore/newsroom": ("metrics.moverscore.model", defaults["moverscore"]["model"]),
        "bartscore/bart/newsroom": ("metrics.bartscore.models.bart", defaults["bartscore"]["models"]["bart"]),
        "bartscore/bart_cnn/newsroom": ("metrics.bartscore.models.bart_cnn",
                                        defaults["bartscore"]["models"]["bart_cnn"]),
        "factcc/qags_cnn": ("metrics.factcc.model", defaults["factcc"]["model"]),
        "dae/qags_cnn": ("metrics.dae.model", defaults["dae"]["model"]),
    }
    for name, (key, model) in expected.items():
        log = (workdir / f"logs/metrics/{name}.log").read_text()
        assert f"{model!r} (config key {key})" in log and f"point {key} at it" in log, log
        assert not (workdir / f"results/metrics/{name}.parquet").exists()
    assert not list((workdir / "results/metrics").rglob("*.part"))
