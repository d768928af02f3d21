"""ROUGE per unit: hand-computed values, multi-reference averaging, TLDR choices,
and agreement of rouge-score with the original Perl ROUGE-1.5.5."""
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from _system import ensure_ready
from sumjudge.metrics.rouge import rouge_score_pair, score_dataset


def test_hand_computed_single_reference():
    s = rouge_score_pair("the cat sat on the mat", ["the cat was on the mat"])
    # unigrams overlap 5 of 6 each way; bigrams 3 of 5; LCS "the cat on the mat" = 5 of 6
    assert s["rouge1"] == pytest.approx(5 / 6)
    assert s["rouge2"] == pytest.approx(3 / 5)
    assert s["rougeL"] == pytest.approx(5 / 6)


def test_mean_over_references():
    s = rouge_score_pair("the cat sat on the mat", ["the cat was on the mat", "the cat sat on the mat"])
    assert s["rouge1"] == pytest.approx((5 / 6 + 1) / 2)
    assert s["rouge2"] == pytest.approx((3 / 5 + 1) / 2)


def test_rouge_l_is_summary_level_over_sentences():
    # Flat LCS would match "a b" across the sentence boundary; summary-level LCS
    # takes the union of per-sentence LCS hits against each reference sentence.
    ref = ["police arrested the man. he was released later."]
    hyp = "he was released later. police arrested the man."
    assert rouge_score_pair(hyp, ref)["rougeL"] == pytest.approx(1.0)


def test_tldr_choice_and_tie():
    df = pd.DataFrame({"unit_id": ["a", "b"], "reference": ["the cat sat", "a dog ran"],
                       "summary_0": ["the cat sat", "a dog ran"], "summary_1": ["a bird flew", "a dog ran"]})
    out = score_dataset(df, "tldr", workers=1, progress=False)
    assert list(out["rouge1_choice"]) == [0, -1]
    assert out.loc[0, "rouge1_0"] == pytest.approx(1.0) and out.loc[0, "rouge1_1"] == 0.0


def test_parallel_equals_serial(prepared):
    df = prepared("newsroom").head(40)
    serial = score_dataset(df, "newsroom", workers=1, progress=False)
    parallel = score_dataset(df, "newsroom", workers=2, progress=False)
    pd.testing.assert_frame_equal(serial, parallel)


def test_no_rouge_without_references(prepared):
    with pytest.raises(ValueError, match="needs references"):
        score_dataset(prepared("qags_cnn").head(2), "qags_cnn", progress=False)


def _perl_ready() -> bool:
    if not shutil.which("perl"):
        return False
    return subprocess.run(["perl", "-MXML::Parser", "-e", "1"], capture_output=True).returncode == 0


def test_perl_and_python_agree_on_summeval(prepared):
    # ROUGE-1.5.5 needs perl with XML::Parser: installed here when missing, never skipped
    ensure_ready(_perl_ready, ["perl", "libxml-parser-perl"], "perl with XML::Parser not found")
    df = prepared("summeval").head(32)
    py = score_dataset(df, "summeval", "rouge-score", workers=1, progress=False)
    pl = score_dataset(df, "summeval", "rouge-perl", workers=1, progress=False)
    for col in ("rouge1", "rouge2", "rougeL"):
        diff = np.abs(py[col] - pl[col])
        assert diff.mean() < 0.01, (col, diff.describe())
