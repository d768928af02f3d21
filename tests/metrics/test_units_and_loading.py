"""Shared metric plumbing: how pairs roll up into the datasets' questions, the TLDR
tie rule, the config block, and the offline failure message."""
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from sumjudge.config import ConfigError, validate
from sumjudge.metrics.loading import ModelUnavailable, resolve_model, split_sentences, unavailable_message
from sumjudge.metrics.units import (Side, answer_questions, assemble, claims_for, mean_over_references,
                                    pairwise_choice, sides_for)
from support.harness import REPO

SCHEMA = REPO / "workflow/schemas/config.schema.yaml"


def test_tldr_choice_higher_wins_and_ties_are_minus_one():
    s0 = np.array([0.2, 0.5, 0.3, np.nan])
    s1 = np.array([0.4, 0.1, 0.3, 0.9])
    assert pairwise_choice(s0, s1).tolist() == [1, 0, -1, -1]


def test_mean_over_references_averages_per_unit():
    side = Side("", ["a", "b"], [["x", "y", "z"], ["w"]], ["", ""])
    seen = []

    def score(h, r):
        seen.append((list(h), list(r)))
        return [1.0, 2.0, 6.0, 5.0]

    assert mean_over_references(side, score).tolist() == [3.0, 5.0]
    assert seen == [(["a", "a", "a", "b"], ["x", "y", "z", "w"])]
    # swap: references come first (BARTScore r_h)
    mean_over_references(side, score, swap=True)
    assert seen[-1] == (["x", "y", "z", "w"], ["a", "a", "a", "b"])


def test_sides_for_each_dataset(prepared):
    se = prepared("summeval").head(3)
    (side,) = sides_for(se, "summeval")
    assert side.suffix == "" and all(len(r) == 11 for r in side.references)
    tl = prepared("tldr").head(2)
    s0, s1 = sides_for(tl, "tldr")
    assert (s0.suffix, s1.suffix) == ("_0", "_1") and s0.sources == list(tl["post"])
    out = assemble(tl, "tldr", {"m_0": [1.0, 2.0], "m_1": [2.0, 2.0]})
    assert list(out.columns) == ["unit_id", "m_0", "m_1", "m_choice"]
    assert out["m_choice"].tolist() == [1, -1]
    with pytest.raises(ValueError, match="reference-based"):
        sides_for(prepared("qags_xsum"), "qags_xsum")


def test_realsumm_scu_present_if_one_summary_sentence_supports_it(prepared):
    df = prepared("realsumm").head(2)
    claims = claims_for(df, "realsumm", "sentence")
    n_sent = [len(split_sentences(s)) for s in df["summary"]]
    assert len(claims.claims) == sum(len(s) * n for s, n in zip(df["scus"], n_sent))
    # support only from the last sentence of each summary, for even SCUs
    last = np.array([k == n_sent[u] - 1 for u, k in zip(claims.unit, claims.part)])
    prob = np.where(last & (claims.item % 2 == 0), 0.9, 0.1)
    out = answer_questions(df, "realsumm", claims, prob)
    assert list(out.columns) == ["unit_id", "scu_prob", "scu_pred"]
    for preds, scus in zip(out["scu_pred"], df["scus"]):
        assert len(preds) == len(scus)
        assert preds == [j % 2 == 0 for j in range(len(scus))]
    whole = claims_for(df, "realsumm", "summary")
    assert len(whole.claims) == sum(len(s) for s in df["scus"]) and set(whole.premises) == set(df["summary"])


def test_qags_sentence_supported_only_if_every_piece_is(prepared):
    df = prepared("qags_cnn").head(4).copy()
    df.loc[df.index[0], "sentence"] = "The first claim holds. The second one does not."
    claims = claims_for(df, "qags_cnn")
    assert claims.unit.tolist().count(0) == 2 and all(p == a for p, a in zip(
        claims.premises, df["article"].to_numpy()[claims.unit]))
    prob = np.where((claims.unit == 0) & (claims.item == 1), 0.2, 0.8)
    out = answer_questions(df, "qags_cnn", claims, prob)
    assert out["pred"].tolist() == [0, 1, 1, 1]
    assert out["prob"].tolist() == pytest.approx([0.2, 0.8, 0.8, 0.8])


def test_punkt_needs_no_download():
    assert split_sentences("Dr. Smith went home. He was tired.") == ["Dr. Smith went home.", "He was tired."]
    assert split_sentences("") == []


def test_metrics_config_block_is_validated():
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    validate(config, SCHEMA)
    local = yaml.safe_load((REPO / "tests/metrics_local.yaml").read_text())
    validate({**config, **local}, SCHEMA)
    config["metrics"]["factcc"]["realsumm_premise"] = "article"
    with pytest.raises(ConfigError, match=r"'metrics.factcc.realsumm_premise': 'article' is not allowed; "
                                          r"allowed values: 'sentence', 'summary'"):
        validate(config, SCHEMA)


def test_missing_local_directory_names_the_key(tmp_path):
    with pytest.raises(ModelUnavailable, match=r"metrics.dae.model.*no directory"):
        resolve_model(str(tmp_path / "nothing-here"), "metrics.dae.model")


@pytest.mark.slow
def test_default_models_fail_fast_offline_with_a_clear_message(tmp_path):
    """Every default model, HF_HUB_OFFLINE=1 and an empty hub cache: each scorer stops
    within seconds, naming the model and its config key."""
    script = textwrap.dedent("""
        import time, yaml
        from sumjudge.metrics.loading import ModelUnavailable
        from sumjudge.metrics import bartscore, bertscore, dae, factcc, moverscore
        m = yaml.safe_load(open("config.yaml"))["metrics"]
        cases = [
            (lambda: bertscore.BERTScore(m["bertscore"]["model"]), m["bertscore"]["model"], "metrics.bertscore.model"),
            (lambda: moverscore.MoverScore(m["moverscore"]["model"]), m["moverscore"]["model"], "metrics.moverscore.model"),
            (lambda: bartscore.BARTScore(m["bartscore"]["models"]["bart"]), m["bartscore"]["models"]["bart"],
             "metrics.bartscore.models.bart"),
            (lambda: bartscore.BARTScore(m["bartscore"]["models"]["bart_cnn"],
                                         config_key="metrics.bartscore.models.bart_cnn"),
             m["bartscore"]["models"]["bart_cnn"], "metrics.bartscore.models.bart_cnn"),
            (lambda: factcc.FactCC(m["factcc"]["model"]), m["factcc"]["model"], "metrics.factcc.model"),
            (lambda: dae.DAE(m["dae"]["model"], m["dae"]["parser"]), m["dae"]["model"], "metrics.dae.model"),
            (lambda: dae.load_parser(m["dae"]["parser"]), m["dae"]["parser"], "metrics.dae.parser"),
        ]
        for make, model, key in cases:
            t = time.time()
            try:
                make()
            except ModelUnavailable as err:
                msg = str(err)
                assert repr(model) in msg and key in msg and "point " + key in msg, msg
                print(f"OK {key} {time.time() - t:.2f}s", flush=True)
            else:
                raise SystemExit(f"{key}: no error")
    """)
    env = {"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf"), "PATH": "/usr/bin:/bin"}
    start = time.time()
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:] + out.stdout
    assert out.stdout.count("OK ") == 7
    # seconds, not the minutes of the hub client's retries (generous: the CPUs may be shared)
    assert all(float(line.split()[-1][:-1]) < 20 for line in out.stdout.splitlines() if line.startswith("OK"))
    assert time.time() - start < 60


def test_longest_first_batches_cover_every_index_once_longest_first():
    from sumjudge.metrics.loading import longest_first_batches

    batches = list(longest_first_batches([3, 9, 1, 9, 5], batch_size=2, desc="t", progress=False))
    # lengths 9, 9 (ties in input order), then 5, 3, then 1
    assert batches == [[1, 3], [4, 0], [2]]


def test_the_download_command_is_one_the_installed_hub_client_accepts(tmp_path, monkeypatch):
    """huggingface_hub 0.34+ ships `hf` (this environment: no `huggingface-cli`); an older one
    `huggingface-cli`: the message names the one beside this Python."""
    import shutil

    here = Path(sys.executable).parent
    expected = "hf" if (here / "hf").is_file() else "huggingface-cli"
    assert f"`{expected} download roberta-large --local-dir models/roberta-large`" in \
        unavailable_message("roberta-large", "metrics.bertscore.model")
    old = tmp_path / "bin"
    old.mkdir()
    (old / "huggingface-cli").write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "executable", str(old / "python"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert "`huggingface-cli download facebook/bart-large --local-dir models/bart-large`" in \
        unavailable_message("facebook/bart-large", "metrics.bartscore.models.bart")
