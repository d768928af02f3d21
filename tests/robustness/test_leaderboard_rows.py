"""What rule `leaderboard` reads of the robustness stage for a family's rows (leaderboard.families;
sumjudge.leaderboard.families.rule_inputs and read_inputs): nothing when the switch is off, every
family's summary and prompts tables and every template's judge table when it is on, and a family
of the subset design stopped with the fix."""
import pandas as pd
import pytest

from sumjudge.errors import UserError
from sumjudge.leaderboard.families import read_inputs, rule_inputs
from sumjudge.robustness.families import Family

FULL = Family("fam", "summeval", "prompts/families/fam", ("a", "b", "c"), per_document=None)
DESIGN = Family("sub", "summeval", "prompts/families/sub", ("a", "b", "c"), per_document=2)


def test_off_asks_for_nothing_even_with_families_configured():
    assert rule_inputs("results", {"fam": FULL, "sub": DESIGN}, ["j"], on=False) == {
        "summaries": [], "prompts": [], "tables": [], "params": {}}


def test_on_reads_the_family_tables_and_every_templates_judge_table():
    got = rule_inputs("results", {"fam": FULL}, ["j1", "j2"], on=True, estimand="valid")
    assert got["summaries"] == ["results/robustness/fam/summary.csv"]
    assert got["prompts"] == ["results/robustness/fam/prompts.csv"]
    assert got["tables"] == [f"results/robustness/judge/{j}/fam/{t}.parquet" for j in ("j1", "j2") for t in "abc"]
    assert got["params"] == {"estimand": "valid", "families": {"fam": FULL.to_params()}}


def test_a_family_of_the_subset_design_or_no_family_stops_with_the_fix():
    with pytest.raises(UserError, match=r"family 'sub' uses the subset design \(2 prompts per document\).*"
                                        r"set judge.prompt_families.sub.design: null"):
        rule_inputs("results", {"fam": FULL, "sub": DESIGN}, ["j"], on=True)
    with pytest.raises(UserError, match="leaderboard.families is true but judge.prompt_families names no family"):
        rule_inputs("results", {}, ["j"], on=True)


def test_the_script_reads_them_back_per_family_judge_and_template(tmp_path):
    other = Family("two", "summeval", "prompts/families/two", ("x", "y"), per_document=None)
    got = rule_inputs(str(tmp_path), {"fam": FULL, "two": other}, ["j1"], on=True)
    for path in got["summaries"] + got["prompts"]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({"judge": ["j1"], "family": [path.split("/")[-2]]}).to_csv(tmp_path / path, index=False)
    fams = read_inputs(got["params"], got["summaries"], got["prompts"], got["tables"])
    assert [f.family for f in fams] == [FULL, other] and [f.estimand for f in fams] == ["scored", "scored"]
    assert fams[0].tables == {("j1", t): f"{tmp_path}/robustness/judge/j1/fam/{t}.parquet" for t in "abc"}
    assert fams[1].tables == {("j1", t): f"{tmp_path}/robustness/judge/j1/two/{t}.parquet" for t in "xy"}
    assert fams[1].summary["family"].tolist() == ["two"] and fams[1].judges == ["j1"]
