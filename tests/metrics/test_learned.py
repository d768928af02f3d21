"""sumjudge/metrics/learned.py: the one rule `metric` over the learned metrics (issue 28)."""
import pytest

from sumjudge.datasets import BUILTIN
from sumjudge.metrics import bartscore, learned


def test_the_registry_names_every_learned_output_and_its_config_section():
    assert list(learned.LEARNED) == ["bertscore", "moverscore", "bartscore/bart", "bartscore/bart_cnn", "factcc", "dae"]
    assert {m.settings_key for m in learned.LEARNED.values()} == {"bertscore", "moverscore", "bartscore", "factcc", "dae"}
    assert learned.get("bartscore/bart_cnn").part == "bart_cnn" and learned.get("bartscore/bart_cnn").module is bartscore
    with pytest.raises(KeyError, match="unknown learned metric 'rouge'"):
        learned.get("rouge")


def test_a_metric_scores_only_the_datasets_of_its_family():
    assert learned.scored_dataset("factcc", BUILTIN["qags_xsum"]) == "qags_xsum"
    assert learned.scored_dataset("bartscore/bart", BUILTIN["tldr"]) == "tldr"
    with pytest.raises(ValueError, match=r"results/metrics/factcc/summeval.parquet: factcc scores datasets with "
                                         r"factuality metrics; summeval has reference"):
        learned.scored_dataset("factcc", BUILTIN["summeval"])


def test_a_metric_job_builds_its_scorer_from_its_settings(monkeypatch):
    seen = {}

    class Fake:
        def __init__(self, **kw):
            seen.update(kw)

    monkeypatch.setattr(bartscore, "BARTScore", Fake)
    settings = {"models": {"bart": "m-bart", "bart_cnn": "m-cnn"}, "batch_size": 4, "max_length": 64}
    scorer, score, provenance = learned.get("bartscore/bart_cnn").job(settings, "cpu", 3)
    assert isinstance(scorer, Fake) and callable(score) and callable(provenance)
    assert seen == {"model": "m-cnn", "config_key": "metrics.bartscore.models.bart_cnn", "batch_size": 4,
                    "max_length": 64, "device": "cpu", "threads": 3}
