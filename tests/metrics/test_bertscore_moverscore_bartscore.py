"""BERTScore, MoverScore and BARTScore end to end on small models: output shapes and
columns, determinism, provenance, and the direction a reference-based metric must have."""
import numpy as np
import pandas as pd
import pytest

from support.metric_models import tiny_models
from sumjudge.io import read_meta, write_parquet
from sumjudge.metrics import bartscore, bertscore, moverscore
from sumjudge.metrics.tiny import _CORPUS

UNRELATED = "The chef opened a small bakery that sells fresh bread every morning."
REFERENCE = "A storm closed schools across the region while engineers repaired power lines."


@pytest.fixture(scope="module")
def models():
    return tiny_models()


@pytest.fixture(scope="module")
def slices(prepared):
    se = prepared("summeval")
    # four summaries of one document (each with its 11 references): the 16 of the document took a minute
    return {"summeval": se[se["doc_id"] == se["doc_id"].iloc[0]].head(4).reset_index(drop=True),
            "newsroom": prepared("newsroom").head(5).reset_index(drop=True),
            "tldr": prepared("tldr").head(4).reset_index(drop=True)}


def direction_frame(reference: str, unrelated: str) -> pd.DataFrame:
    """Newsroom-shaped: unit 0's summary is its reference, unit 1's is unrelated."""
    return pd.DataFrame({"unit_id": ["same", "other"], "article": [reference, reference],
                         "summary": [reference, unrelated], "reference": [reference, reference]})


def check_shapes(out: pd.DataFrame, df: pd.DataFrame, dataset: str, names: list[str], model: str):
    assert out["unit_id"].tolist() == df["unit_id"].tolist()
    if dataset == "tldr":
        expected = [f"{n}_{k}" for n in names for k in (0, 1)] + [f"{n}_choice" for n in names]
        assert set(expected) <= set(out.columns)
        for n in names:
            assert set(out[f"{n}_choice"]) <= {0, 1, -1}
            s0, s1 = out[f"{n}_0"], out[f"{n}_1"]
            assert (out[f"{n}_choice"] == np.where(s1 > s0, 1, np.where(s0 > s1, 0, -1))).all()
    else:
        assert set(names) <= set(out.columns)
    scores = out[[c for c in out.columns if c.startswith(tuple(names)) and not c.endswith("_choice")]]
    assert np.isfinite(scores.to_numpy(float)).all()
    assert (out["model"] == model).all()


@pytest.mark.parametrize("dataset", ["summeval", "newsroom", "tldr"])
def test_bertscore(models, slices, dataset, tmp_path):
    scorer = bertscore.BERTScore(str(models["minilm"]), device="cpu", batch_size=16)
    df = slices[dataset]
    out = bertscore.score_dataset(df, dataset, scorer, progress=False)
    check_shapes(out, df, dataset, ["bertscore"], str(models["minilm"]))
    again = bertscore.score_dataset(df, dataset, scorer, progress=False)
    pd.testing.assert_frame_equal(out, again)
    write_parquet(out, tmp_path / "b.parquet", scorer.provenance())
    meta = read_meta(tmp_path / "b.parquet")
    assert meta["model"] == str(models["minilm"]) and meta["libraries"]["bert-score"] == "0.3.13"
    assert meta["num_layers"] == 6  # a local model not in bert-score's table: its last layer


def test_bertscore_direction_with_pretrained_minilm(models):
    scorer = bertscore.BERTScore(str(models["minilm"]), device="cpu")
    out = bertscore.score_dataset(direction_frame(REFERENCE, UNRELATED), "newsroom", scorer, progress=False)
    assert out["bertscore"][0] == pytest.approx(1.0, abs=1e-5)
    assert out["bertscore"][0] > out["bertscore"][1]


def test_bertscore_roberta_tokenizer_keeps_the_leading_space(models):
    """bert-score encodes RoBERTa inputs with a prefix space; transformers 5 ignores the
    per-call flag, so the scorer reloads the tokenizer with it (as for roberta-large)."""
    from bert_score.utils import sent_encode

    scorer = bertscore.BERTScore(str(models["roberta"]), device="cpu")
    tok = scorer.scorer._tokenizer
    assert scorer.prefix_space_fixed
    assert tok.convert_ids_to_tokens(sent_encode(tok, "hello world"))[1].startswith("\u0120")
    f1 = scorer.f1([REFERENCE, UNRELATED], [REFERENCE, REFERENCE], progress=False)
    assert f1[0] == pytest.approx(1.0, abs=1e-5) and f1[0] > f1[1]


@pytest.mark.parametrize("dataset", ["summeval", "tldr"])
def test_moverscore(models, slices, dataset):
    scorer = moverscore.MoverScore(str(models["minilm"]), device="cpu")
    df = slices[dataset]
    out = moverscore.score_dataset(df, dataset, scorer, progress=False)
    check_shapes(out, df, dataset, ["moverscore"], str(models["minilm"]))
    pd.testing.assert_frame_equal(out, moverscore.score_dataset(df, dataset, scorer, progress=False))


def test_moverscore_direction_and_definition(models):
    scorer = moverscore.MoverScore(str(models["minilm"]), device="cpu")
    # uniform weights when every token is in every document; identical texts: distance 0
    same = scorer.score([REFERENCE], [REFERENCE], progress=False)
    assert same[0] == pytest.approx(1.0, abs=1e-3)  # float32 embeddings: sqrt of ~1e-10
    out = moverscore.score_dataset(direction_frame(REFERENCE, UNRELATED), "newsroom", scorer, progress=False)
    assert out["moverscore"][0] > out["moverscore"][1]
    bigram = moverscore.MoverScore(str(models["minilm"]), device="cpu", n_gram=2)
    b = bigram.score([REFERENCE, UNRELATED], [REFERENCE, REFERENCE], progress=False)
    assert b[0] > b[1]


def test_moverscore_idf_is_smoothed():
    idf, unseen = moverscore.idf_weights([[1, 2], [2, 3], [2]])
    assert idf[2] == pytest.approx(np.log(4 / 4)) and idf[1] == pytest.approx(np.log(4 / 2))
    assert unseen == pytest.approx(np.log(4))


@pytest.mark.parametrize("dataset", ["summeval", "tldr"])
def test_bartscore_both_checkpoints_merge(models, slices, dataset):
    df = slices[dataset]
    parts = {}
    for key, prefix in bartscore.CHECKPOINTS.items():
        scorer = bartscore.BARTScore(str(models[key]), device="cpu", batch_size=8, max_length=256)
        parts[key] = bartscore.score_checkpoint(df, dataset, scorer, prefix, progress=False)
        pd.testing.assert_frame_equal(parts[key],
                                      bartscore.score_checkpoint(df, dataset, scorer, prefix, progress=False))
    out = bartscore.merge_checkpoints(df, dataset, parts, {k: str(models[k]) for k in parts})
    names = [f"{p}{d}" for p in bartscore.CHECKPOINTS.values() for d in bartscore.DIRECTIONS]
    assert len(names) == 6
    check_shapes(out.assign(model=out["model_bart"]), df, dataset, names, str(models["bart"]))
    assert (out["model_bart_cnn"] == str(models["bart_cnn"])).all()
    scores = out[[c for c in out.columns if c.startswith("bartscore") and not c.endswith("choice")]]
    assert (scores.to_numpy() < 0).all()  # mean log-likelihoods
    assert not np.allclose(out[names[0] + ("_0" if dataset == "tldr" else "")],
                           out[names[3] + ("_0" if dataset == "tldr" else "")])


def test_bartscore_direction_with_a_copy_trained_bart(models):
    """The stand-in BART was trained to copy the sentences of tiny._CORPUS: p(y | x) must
    then be higher for y == x than for another sentence, in both reference directions."""
    scorer = bartscore.BARTScore(str(models["bart"]), device="cpu")
    ref, other = _CORPUS[1], _CORPUS[4]
    out = bartscore.score_checkpoint(direction_frame(ref, other), "newsroom", scorer, "bartscore_",
                                     progress=False)
    for direction in ("r_h", "h_r", "s_h"):
        assert out[f"bartscore_{direction}"][0] > out[f"bartscore_{direction}"][1] + 0.1, direction
