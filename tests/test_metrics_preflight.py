"""A run stops before any job when a learned metric's model or parser is missing, with
every manual step in one message (sumjudge/metrics/preflight.py)."""
from __future__ import annotations

import copy
from pathlib import Path

import yaml

from sumjudge.metrics.preflight import applies, manual_steps, report
from support.harness import REPO


def local_metrics(tmp_path: Path) -> dict:
    """The config's metrics section with every model a local directory under tmp_path."""
    metrics = copy.deepcopy(yaml.safe_load((REPO / "config.yaml").read_text())["metrics"])
    for key, sub in (("bertscore", None), ("moverscore", None), ("factcc", None), ("dae", None)):
        metrics[key]["model"] = str(tmp_path / key)
    metrics["bartscore"]["models"] = {"bart": str(tmp_path / "bart"), "bart_cnn": str(tmp_path / "bart_cnn")}
    metrics["dae"]["parser"] = str(tmp_path / "parser")
    for name in ("bertscore", "moverscore", "factcc", "dae", "bart", "bart_cnn"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.json").write_text("{}")
    (tmp_path / "parser").mkdir()
    return metrics


def test_nothing_to_do_when_every_model_is_here(tmp_path):
    metrics = local_metrics(tmp_path)
    assert manual_steps(metrics, ["bertscore", "moverscore", "bartscore", "factcc", "dae"]) == []


def test_default_run_leaves_dae_out():
    run = yaml.safe_load((REPO / "config.yaml").read_text())["metrics"]["run"]
    assert "dae" not in run and set(run) == {"bertscore", "moverscore", "bartscore", "factcc"}


def test_every_missing_piece_is_one_step_naming_its_key(tmp_path):
    metrics = local_metrics(tmp_path)
    (tmp_path / "bart_cnn" / "config.json").unlink()
    (tmp_path / "parser").rmdir()
    metrics["dae"]["model"] = str(tmp_path / "no-such-checkpoint")
    steps = manual_steps(metrics, ["bertscore", "bartscore", "dae"])
    assert len(steps) == 3, steps
    assert steps[0].startswith("bartscore:") and "metrics.bartscore.models.bart_cnn" in steps[0] \
        and "config.json" in steps[0]
    assert steps[1].startswith("dae:") and "metrics.dae.model" in steps[1] and "dae-factuality" in steps[1]
    assert steps[2].startswith("dae:") and "metrics.dae.parser" in steps[2] and "spacy download" in steps[2]
    # only pending metrics are asked about: a metric already built needs nothing
    assert manual_steps(metrics, ["bertscore"]) == []
    msg = report(steps, ["bertscore", "bartscore", "dae"])
    assert "nothing has run" in msg and "  1. bartscore:" in msg and "  3. dae:" in msg
    assert "--config 'metrics={run: [bertscore]}'" in msg


def test_the_check_applies_to_runs_and_dry_runs_only():
    assert applies(["snakemake", "--cores", "8"]) and applies(["snakemake", "-n"])
    for argv in (["snakemake", "--unlock"], ["snakemake", "--lint"], ["snakemake", "--report=r.html"],
                 ["snakemake", "--summary"], ["snakemake", "--touch"]):
        assert not applies(argv), argv
    assert not applies(["snakemake", "--cores", "1"], main_process=False)  # a job on a cluster node
