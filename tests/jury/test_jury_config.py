"""A jury's config is refused with the key and the fix; what its rules build follows its members."""
import pytest

from sumjudge.judge.spec import JudgeConfigError, judge_specs
from sumjudge.jury import targets

REMOTE = {"model": "m", "base_url": "http://x/v1"}


@pytest.mark.parametrize("judges, words", [
    ({"a": REMOTE, "j": {"jury": ["a"]}}, "judges.j.jury: a list of at least two different judge names"),
    ({"a": REMOTE, "j": {"jury": ["a", "a"]}}, "judges.j.jury: a list of at least two"),
    ({"a": REMOTE, "j": {"jury": ["a", "j"]}}, "judges.j.jury: a jury cannot be its own member"),
    ({"a": REMOTE, "j": {"jury": ["a", "nope"]}}, "judges.j.jury: 'nope' is not under 'judges'"),
    ({"a": REMOTE, "b": REMOTE, "j": {"jury": ["a", "b"], "aggregate": "mode"}},
     "judges.j.aggregate: 'mode'; allowed values: mean, median, majority"),
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
    assert j.aggregate == "mean" and j.model == "jury:a+b" and j.to_dict()["jury"] == ["a", "b"]
    assert "jury" not in specs["a"].to_dict()  # optional keys: other judges' params unchanged
    assert targets.with_members(["j", "a"], specs) == ["j", "a", "b"]
    available = {"r/judge/a/summeval/base.parquet", "r/judge/b/summeval/base.parquet", "r/judge/a/tldr/base.parquet"}
    assert targets.kept("r/judge/j/summeval/base.parquet", specs, available)
    assert targets.kept("r/judge/j/summeval/base.usage.json", specs,
                        {p.replace(".parquet", ".usage.json") for p in available})
    assert not targets.kept("r/judge/j/tldr/base.parquet", specs, available)  # b has no TLDR scores
    assert targets.kept("r/judge/a/tldr/base.parquet", specs, set())  # not a jury: untouched
