"""A jury's config is refused with the key and the fix; what its rules build follows its members."""
import copy

import pytest
import yaml

from sumjudge.config import SCHEMA, ConfigError, validate
from sumjudge.judge.spec import JudgeConfigError, judge_specs
from sumjudge.jury import targets
from support.harness import REPO

REMOTE = {"model": "m", "base_url": "http://x/v1"}


@pytest.mark.parametrize("jury, words", [
    ({"jury": ["a"]}, "config key 'judges.j.jury': ['a'] is too short"),
    ({"jury": ["a", "a"]}, "config key 'judges.j.jury': ['a', 'a'] has non-unique elements"),
    ({"jury": ["a", "b"], "aggregate": "mode"}, "config key 'judges.j.aggregate': 'mode' is not allowed; "
                                                "allowed values: 'mean', 'median', 'majority'"),
])
def test_the_schema_refuses_a_jury_list_or_aggregate_naming_the_key(jury, words):
    config = copy.deepcopy(yaml.safe_load((REPO / "config.yaml").read_text()))
    config["judges"].update(a=REMOTE, b=REMOTE, j=jury)
    with pytest.raises(ConfigError) as err:
        validate(config, SCHEMA)
    assert words in str(err.value)


@pytest.mark.parametrize("judges, words", [
    ({"a": REMOTE, "j": {"jury": ["a", "j"]}}, "judges.j.jury: a jury cannot be its own member"),
    ({"a": REMOTE, "j": {"jury": ["a", "nope"]}}, "judges.j.jury: 'nope' is not under 'judges'"),
    ({"a": REMOTE, "b": REMOTE, "j": {"jury": ["a", "b"], "base_url": "http://y/v1"}}, "remove judges.j.base_url"),
    ({"a": REMOTE, "b": REMOTE, "j": {"jury": ["a", "b"]}, "k": {"jury": ["a", "j"]}}, "'j' is a jury itself"),
    ({"a": REMOTE, "b": {"aggregate": "mean", **REMOTE}}, "judges.b.jury: a list of at least two"),
])
def test_a_bad_jury_is_refused_naming_the_key(judges, words):
    with pytest.raises(JudgeConfigError) as err:
        judge_specs({"judges": judges})
    assert words in str(err.value)


def test_a_jury_spec_and_its_targets():
    specs = judge_specs({"judges": {"a": REMOTE, "b": {"scores": {"summeval": "b.csv"}},
                                    "j": {"jury": ["a", "b"]}}})
    j = specs["j"]
    assert j.aggregate == "mean" and j.model == "jury:a+b" and j.to_params()["jury"] == ["a", "b"]
    assert "jury" not in specs["a"].to_params()  # optional keys: other judges' params unchanged
    assert targets.with_members(["j", "a"], specs) == ["j", "a", "b"]
    available = {"r/judge/a/summeval/base.parquet", "r/judge/b/summeval/base.parquet", "r/judge/a/tldr/base.parquet"}
    assert targets.kept("r/judge/j/summeval/base.parquet", specs, available)
    assert targets.kept("r/judge/j/summeval/base.usage.json", specs,
                        {p.replace(".parquet", ".usage.json") for p in available})
    assert not targets.kept("r/judge/j/tldr/base.parquet", specs, available)  # b has no TLDR scores
    assert targets.kept("r/judge/a/tldr/base.parquet", specs, set())  # not a jury: untouched
