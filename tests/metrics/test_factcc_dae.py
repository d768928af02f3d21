"""FactCC and DAE end to end on small models: REALSumm SCU decisions aligned with the
SCUs, QAGS sentence decisions, determinism, provenance, the checkpoint layout."""
import pandas as pd
import pytest

from support.metric_models import tiny_models
from sumjudge.metrics import dae, factcc
from sumjudge.metrics.loading import ModelUnavailable


@pytest.fixture(scope="module")
def models():
    return tiny_models()


@pytest.fixture(scope="module")
def slices(prepared):
    rs = prepared("realsumm")
    return {"realsumm": rs[rs["doc_id"] == rs["doc_id"].iloc[0]].head(6).reset_index(drop=True),
            "qags_cnn": prepared("qags_cnn").head(6).reset_index(drop=True),
            "qags_xsum": prepared("qags_xsum").head(4).reset_index(drop=True)}


def check(out: pd.DataFrame, df: pd.DataFrame, dataset: str, threshold: float = 0.5):
    assert out["unit_id"].tolist() == df["unit_id"].tolist()
    if dataset == "realsumm":
        for pred, prob, scus in zip(out["scu_pred"], out["scu_prob"], df["scus"]):
            assert len(pred) == len(prob) == len(scus)
            assert all((p >= threshold) == bool(d) for p, d in zip(prob, pred))
            assert all(0.0 <= p <= 1.0 for p in prob)
    else:
        assert set(out["pred"]) <= {0, 1}
        assert ((out["prob"] >= threshold).astype(int) == out["pred"]).all()
        assert out["prob"].between(0, 1).all()


@pytest.mark.parametrize("dataset", ["realsumm", "qags_cnn", "qags_xsum"])
def test_factcc(models, slices, dataset):
    scorer = factcc.FactCC(str(models["factcc"]), device="cpu")
    assert scorer.supported == 0  # the label named CORRECT
    df = slices[dataset]
    out = factcc.score_dataset(df, dataset, scorer, progress=False)
    check(out, df, dataset)
    assert (out["model"] == str(models["factcc"])).all()
    pd.testing.assert_frame_equal(out, factcc.score_dataset(df, dataset, scorer, progress=False))
    # a threshold of 0 accepts everything
    everything = factcc.score_dataset(df, dataset, scorer, threshold=0.0, progress=False)
    check(everything, df, dataset, threshold=0.0)


def test_factcc_label_detection():
    assert factcc.supported_index({0: "INCORRECT", 1: "CORRECT"}) == 1
    assert factcc.supported_index({0: "LABEL_0", 1: "LABEL_1"}) == 0
    assert factcc.supported_index({0: "CORRECT", 1: "INCORRECT"}, configured=1) == 1


@pytest.mark.parametrize("dataset", ["realsumm", "qags_cnn"])
def test_dae(models, slices, dataset):
    scorer = dae.DAE(str(models["dae"]), parser=str(models["spacy_parser"]), device="cpu")
    df = slices[dataset]
    out = dae.score_dataset(df, dataset, scorer, progress=False)
    check(out, df, dataset)
    assert (out["model"] == f'{models["dae"]} (parser: {models["spacy_parser"]})').all()
    assert (out["parser"] == str(models["spacy_parser"])).all()
    pd.testing.assert_frame_equal(out, dae.score_dataset(df, dataset, scorer, progress=False))
    meta = scorer.provenance()
    assert meta["parser"] == str(models["spacy_parser"]) and "CoreNLP" in meta["original_parser"]


def test_dae_arcs_and_aggregation(models):
    scorer = dae.DAE(str(models["dae"]), parser=str(models["spacy_parser"]), device="cpu")
    text = "Police arrested a man in the city ."
    words, arcs = scorer.arcs([text])[text]
    assert words[:2] == ["Police", "arrested"] and arcs
    assert all(rel not in dae.IGNORED_RELATIONS for rel, _, _ in arcs)
    assert all(0 <= c < len(words) and 0 <= h < len(words) and c != h for _, c, h in arcs)
    premise = "Officers arrested a man in the city centre on Monday ."
    (probs,) = scorer.arc_probs([premise.split()], [(words, arcs)])
    assert len(probs) == len(arcs)
    p_all = scorer.prob_supported([premise], [text], progress=False)[0]
    assert p_all == pytest.approx(probs.min())
    scorer.aggregate = "mean"
    assert scorer.prob_supported([premise], [text], progress=False)[0] == pytest.approx(probs.mean())
    # no arc left: nothing that could be unsupported
    assert scorer.prob_supported([premise], ["."], progress=False)[0] == 1.0


def test_dae_rejects_a_checkpoint_without_the_arc_classifier(models):
    with pytest.raises(ModelUnavailable, match="not a DAE checkpoint"):
        dae.DAE(str(models["factcc"]), parser=str(models["spacy_parser"]), device="cpu")
