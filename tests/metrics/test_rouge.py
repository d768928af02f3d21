"""ROUGE per unit: hand-computed values, multi-reference averaging, TLDR choices,
the ROUGE-1.5.5 settings that reproduce the paper (SEE format, per-reference mean),
agreement of rouge-score with the original Perl ROUGE-1.5.5, and the 72 ROUGE cells
of Tables 1 and 2 against the published ones."""
import numpy as np
import pandas as pd
import pytest

from support.system import NEEDS
from sumjudge.metrics.rouge import RougePerlError, rouge_perl_batch, rouge_score_pair, score_dataset, \
    split_sentences
from sumjudge.tables.correlation import ROUGE_ROWS, correlation_rows
from sumjudge.tables.published import attach_published

# ROUGE-1.5.5 in Perl (the default implementation) needs perl with XML::Parser: those tests are slow
PERL = pytest.mark.system("rouge-perl")  # tests/support/system.py NEEDS


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


def test_sentence_splits():
    text = "Dr. Smith came. He left! Why? ok"
    assert split_sentences(text, "punctuation") == ["Dr.", "Smith came.", "He left!", "Why?", "ok"]
    # BARTScore's split on " . ": every piece gets its period back (the last one twice)
    assert split_sentences("a b . c d .", "period") == ["a b .", "c d . ."]
    assert split_sentences("a b . c d .", "punkt") == ["a b .", "c d ."]
    with pytest.raises(ValueError, match="rouge.sentences"):
        split_sentences(text, "commas")


def test_tldr_choice_and_tie():
    df = pd.DataFrame({"unit_id": ["a", "b"], "reference": ["the cat sat", "a dog ran"],
                       "summary_0": ["the cat sat", "a dog ran"], "summary_1": ["a bird flew", "a dog ran"]})
    out = score_dataset(df, "tldr", "rouge-score", workers=1, progress=False)
    assert list(out["rouge1_choice"]) == [0, -1]
    assert out.loc[0, "rouge1_0"] == pytest.approx(1.0) and out.loc[0, "rouge1_1"] == 0.0


@PERL
def test_parallel_equals_serial(prepared):
    df = prepared("newsroom").head(40)
    serial = score_dataset(df, "newsroom", workers=1, progress=False)
    parallel = score_dataset(df, "newsroom", workers=2, progress=False)
    pd.testing.assert_frame_equal(serial, parallel)


def test_no_rouge_without_references(prepared):
    with pytest.raises(ValueError, match="needs references"):
        score_dataset(prepared("qags_cnn").head(2), "qags_cnn", progress=False)


@pytest.fixture(scope="module")
def perl():
    # ROUGE-1.5.5 needs perl with XML::Parser: installed here when missing, never skipped
    NEEDS["rouge-perl"].install()


@PERL
def test_perl_see_format_keeps_a_sentence_up_to_its_first_angle_bracket(perl):
    # pyrouge's HTML reader takes `([^<]+)`: "the cat < unk > sat" is read as "the cat"
    see = rouge_perl_batch(["the cat < unk > sat"], [["the cat sat"]], input_format="see")[0]
    assert see["rouge1"] == pytest.approx(2 * (2 / 2) * (2 / 3) / (2 / 2 + 2 / 3), abs=1e-5)   # P 1, R 2/3: 0.8
    spl = rouge_perl_batch(["the cat < unk > sat"], [["the cat sat"]], input_format="spl")[0]
    assert spl["rouge1"] == pytest.approx(2 * (3 / 4) * 1 / (3 / 4 + 1), abs=1e-5)             # P 3/4, R 1: 6/7


@PERL
def test_perl_mean_over_references_versus_pooled(perl):
    refs = [["a b", "a c d e"]]
    mean = rouge_perl_batch(["a b"], refs, multi_reference="mean")[0]
    # reference 1: F 1; reference 2: P 1/2, R 1/4, F 1/3
    assert mean["rouge1"] == pytest.approx((1 + 1 / 3) / 2, abs=1e-5)
    pooled = rouge_perl_batch(["a b"], refs, multi_reference="pooled")[0]
    # ROUGE-1.5.5's model average pools the counts: R 3/6, P 3/4, F 0.6
    assert pooled["rouge1"] == pytest.approx(0.6, abs=1e-5)


@PERL
def test_perl_stems_with_m(perl):
    assert rouge_perl_batch(["running cats"], [["run cat"]])[0]["rouge1"] == pytest.approx(1.0)
    assert rouge_perl_batch(["running cats"], [["run cat"]], stemming=False)[0]["rouge1"] == 0.0


@PERL
def test_perl_failure_names_the_key_and_the_fix(perl, monkeypatch):
    import types

    from sumjudge.metrics import rouge

    class Failed:
        returncode, stdout, stderr = 2, "", "Can't locate XML/Parser.pm in @INC"

    monkeypatch.setattr(rouge, "subprocess", types.SimpleNamespace(run=lambda *a, **k: Failed()))
    with pytest.raises(RougePerlError, match=r"unit 'd1/A'.*libxml-parser-perl.*rouge.implementation: rouge-score"):
        rouge_perl_batch(["the cat"], [["the cat"]], labels=["newsroom unit 'd1/A'"])


def test_unknown_option_names_the_config_key():
    df = pd.DataFrame({"unit_id": ["a"], "reference": ["x"], "summary_0": ["x"], "summary_1": ["y"]})
    with pytest.raises(ValueError, match="rouge.implementation"):
        score_dataset(df, "tldr", "rouge-java", progress=False)
    with pytest.raises(ValueError, match="rouge.sentences"):
        score_dataset(df, "tldr", sentences="commas", progress=False)


@PERL
def test_perl_and_python_agree_on_summeval(prepared, perl):
    df = prepared("summeval").head(32)
    py = score_dataset(df, "summeval", "rouge-score", workers=1, progress=False)
    pl = score_dataset(df, "summeval", "rouge-perl", workers=1, progress=False)
    for col in ("rouge1", "rouge2", "rougeL"):
        diff = np.abs(py[col] - pl[col])
        assert diff.mean() < 0.01, (col, diff.describe())


# --- the paper's ROUGE rows: Table 1 (SummEval) and Table 2 (Newsroom) --------------

TOLERANCE = 0.005


@pytest.fixture(scope="module")
def paper_cells(prepared, perl):
    """The 36 ROUGE cells of each table with the default settings, beside the paper's."""
    out = {}
    for name in ("summeval", "newsroom"):
        human = prepared(name)
        scores = score_dataset(human, name, workers=2, progress=False)   # DEFAULTS: rouge-perl, see, mean
        out[name] = attach_published(correlation_rows(human, scores, ROUGE_ROWS, name))
    return out


@PERL
@pytest.mark.parametrize("name,table", [("summeval", "Table 1"), ("newsroom", "Table 2")])
def test_default_rouge_reproduces_every_published_cell(paper_cells, name, table):
    cells = paper_cells[name]
    assert len(cells) == 36 and set(cells["table"]) == {table} and cells["published"].notna().all()
    worst = cells.loc[cells["diff"].abs().idxmax()]
    assert cells["diff"].abs().max() <= TOLERANCE, worst.to_dict()
    # ROUGE-1 and ROUGE-2 are far closer than the tolerance (docs/metrics.md)
    assert cells.loc[cells["row"] != "ROUGE-L", "diff"].abs().max() < 0.001
