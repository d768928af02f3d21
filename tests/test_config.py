"""Config validation: one clear line naming the key and the allowed values."""
import copy

import pytest
import yaml

from sumjudge.config import ConfigError, validate
from support import harness
from support.harness import REPO
SCHEMA = REPO / "workflow/schemas/config.schema.yaml"


@pytest.fixture
def config():
    return yaml.safe_load((REPO / "config.yaml").read_text())


def test_default_config_is_valid(config):
    validate(config, SCHEMA)


def test_unknown_key(config):
    config["rouge"]["stemmer"] = True
    with pytest.raises(ConfigError, match=r"'rouge.stemmer' is not allowed here; allowed keys: "
                                          r"datasets, implementation, input_format, multi_reference, sentences, stemming"):
        validate(config, SCHEMA)


def test_bad_value_lists_allowed_values(config):
    config["stats"]["undefined"] = "nan"
    with pytest.raises(ConfigError, match=r"config key 'stats.undefined': 'nan' is not allowed; "
                                          r"allowed values: 'zero', 'skip'"):
        validate(config, SCHEMA)


def test_bad_dataset_name(config):
    bad = copy.deepcopy(config)
    bad["datasets"] = ["summeval", "cnndm"]
    with pytest.raises(ConfigError, match=r"'datasets.1': 'cnndm' is not allowed"):
        validate(bad, SCHEMA)


@pytest.mark.slow  # Snakemake
def test_snakemake_stops_before_running_anything(tmp_path):
    out = harness.snakemake(tmp_path, "-n", configfiles=[harness.CONFIG],
                            config=["stats={correlation: pearson, undefined: zero}"], timeout=120)
    assert out.returncode != 0
    assert "config key 'stats.correlation': 'pearson' is not allowed; allowed values: " \
           "'spearman', 'kendall'" in out.stdout + out.stderr
    assert not (tmp_path / "results").exists()


def test_batch_window_is_openais_only_value(config):
    config["judges"]["qwen-1.5b"]["batch"] = {"window": "12h"}
    with pytest.raises(ConfigError, match=r"batch.window': '12h' is not allowed; allowed values: '24h'"):
        validate(config, SCHEMA)
