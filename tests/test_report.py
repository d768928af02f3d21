"""The table rules and the Snakemake report end to end, on a small slice of the real
data, with ROUGE and a synthetic judge ('stub', 2 samples per unit) whose outputs
are written in the judge stage's contract before the table rules run."""
import base64
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent / "stub_judge"))
from synthetic import write_judge  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DATASETS = ("summeval", "newsroom", "tldr", "realsumm", "qags_cnn", "qags_xsum")
SUMMEVAL_VARIANTS = ("base", "def", "def_ins", "sys_prompt")


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
           "--configfile", str(workdir / "config.yaml"), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900)


def slice_config(mirror: Path) -> dict:
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    config["mirror"] = str(mirror)
    config["subset"] = {"summeval": {"docs": 3}, "newsroom": {"docs": 3}, "tldr": {"units": 30},
                        "realsumm": {"docs": 1}, "qags_cnn": {"units": 30}, "qags_xsum": {"units": 30}}
    metrics = config.get("metrics") or {}  # learned metrics need model downloads: none here
    for spec in metrics.values():
        if isinstance(spec, dict) and "datasets" in spec:
            spec["datasets"] = []
    if "run" in metrics:
        metrics["run"] = []
    if "judge" in config:  # the stub judge: its outputs exist before the table rules run
        config.setdefault("judges", {})["stub"] = {"model": "stub-model", "base_url": "http://127.0.0.1:9/v1"}
        config["judge"]["run"] = ["stub"]
        config["judge"]["summeval_variants"] = list(SUMMEVAL_VARIANTS)
    config["tables"].update(bootstrap_resamples=100, permutation_resamples=100)
    return config


def data_uris(html: str) -> dict[str, bytes]:
    """filename -> decoded content of every file the report embeds."""
    found = re.findall(r"data:[^;\"]+;charset=[^;\"]+;filename=([^;\"]+);base64,([A-Za-z0-9+/=]+)", html)
    return {name: base64.b64decode(payload) for name, payload in found}


@pytest.fixture(scope="module")
def run(tmp_path_factory, mirror):
    workdir = tmp_path_factory.mktemp("report")
    config = slice_config(mirror)
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    data = [f"results/data/{d}.parquet" for d in DATASETS]
    out = snakemake(workdir, "--cores", "2", *data)
    assert out.returncode == 0, out.stderr[-3000:]
    judged = "judge" in config
    if judged:
        for d in DATASETS:
            human = pd.read_parquet(workdir / f"results/data/{d}.parquet")
            for v in SUMMEVAL_VARIANTS if d == "summeval" else ("base",):
                write_judge(human, d, workdir / f"results/judge/stub/{d}/{v}.parquet", v, samples=2)
        plan = snakemake(workdir, "-n", "--quiet", "rules")
        assert plan.returncode == 0, plan.stderr[-3000:]
        assert not re.search(r"^\s*judge\s", plan.stdout, re.M), "the judge rule would run:\n" + plan.stdout
    out = snakemake(workdir, "--cores", "2")
    assert out.returncode == 0, out.stderr[-3000:]
    rep = snakemake(workdir, "--report", "results/report.html")
    assert rep.returncode == 0, rep.stderr[-3000:]
    return workdir, judged


def test_every_table_in_csv_and_latex(run):
    workdir, judged = run
    for k in range(1, 10):
        for ext in ("csv", "tex"):
            assert (workdir / f"results/tables/table{k}.{ext}").exists(), (k, ext)
    t1 = pd.read_csv(workdir / "results/tables/table1.csv")
    assert {"ROUGE-1", "ROUGE-2", "ROUGE-L"} <= set(t1["row"])
    assert t1[["ci_low", "ci_high"]].notna().all().all()
    pvr = pd.read_csv(workdir / "results/tables/published_vs_reproduced.csv")
    assert len(pvr) >= 200
    if judged:
        assert "stub" in set(t1["row"]) and t1.loc[t1["row"] == "stub", "p_value"].notna().all()
        t9 = pd.read_csv(workdir / "results/tables/table9.csv")
        assert "stub+def+ins" in set(t9["row"])
    manifest = (workdir / "results/manifest.json").read_text()
    assert '"code_version"' in manifest and '"prompt_templates"' in manifest


def test_report_holds_tables_and_chart(run):
    workdir, judged = run
    html = (workdir / "results/report.html").read_text()
    files = data_uris(html)
    for k in range(1, 10):
        assert f"table{k}.csv" in files, sorted(files)
    assert "published_vs_reproduced.csv" in files and "manifest.json" in files and "usage.csv" in files
    assert files["judge_vs_best.svg"].lstrip().startswith(b"<?xml") and b"<svg" in files["judge_vs_best.svg"]
    assert b"ROUGE-1" in files["table1.csv"]
    overview = files["overview.html"].decode()
    assert "Table 1: SummEval" in overview and "<svg" in overview and "Configuration" in overview
    if judged:
        assert b"stub" in files["table1.csv"] and "stub-model-1" in overview


def test_second_run_has_nothing_to_do(run):
    workdir, _ = run
    out = snakemake(workdir, "-n")
    assert "Nothing to be done" in out.stdout + out.stderr
