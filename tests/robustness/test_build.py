"""The robustness stage's tables from judge tables (sumjudge.robustness.build, .families)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from support.family_results import human_frame, judge_table
from support.prompt_grid import grid

from sumjudge.robustness.build import design_warnings, family_tables, markdown, paper_variants, table6_generalised
from sumjudge.robustness.families import Family, families, to_scale
from sumjudge.robustness.spread import SpreadSettings, spread

FAST = SpreadSettings(resamples=30)


def test_full_grid_tables_equal_the_spread_of_the_same_scores_and_map_a_ten_point_template_back():
    scores, human, _ = grid(n_prompts=4, n_docs=12, weights=[0.2, 0.4, 0.6, 0.8], seed=5)
    frame = human_frame(human)
    names = ("a", "b", "c", "ten")
    tables = {n: judge_table(frame, scores[i]) for i, n in enumerate(names[:3])}
    tables["ten"] = judge_table(frame, 1 + (scores[3] - 1) * 9 / 4)  # the same answers asked on 1-10
    fam = Family("f", "summeval", "", names, {"ten": (1, 10)}, per_document=None)
    summary, prompts = family_tables(frame, {"j": tables}, fam, FAST)
    assert len(summary) == 4 * 3 and len(prompts) == 4 * 4 * 3
    expected = {r["level"]: r for r in spread(scores, human, (1, 5), FAST, list(names))[0]}
    got = summary[summary["dimension"] == "fluency"].set_index("level")
    for lv in ("sample", "system", "dataset"):
        assert got.loc[lv, "q10"] == pytest.approx(expected[lv]["q10"])
        assert got.loc[lv, "share"] == pytest.approx(expected[lv]["share"])
    assert set(summary["requests_ratio"]) == {4.0}


@pytest.mark.slow  # the design estimator on every dimension: about 15 s on a quiet machine, 2 min under load
def test_design_tables_read_only_each_templates_documents():
    scores, human, _ = grid(n_prompts=6, n_docs=18, weights=np.linspace(0.2, 0.8, 6), seed=6)
    frame = human_frame(human)
    fam = Family("f", "summeval", "", tuple("abcdef"), per_document=2)
    tables = {t: judge_table(frame, scores[i], fam.documents(frame, t)) for i, t in enumerate(fam.templates)}
    assert sum(t["doc_id"].nunique() for t in tables.values()) == 2 * 18
    summary, prompts = family_tables(frame, {"j": tables}, fam, SpreadSettings(resamples=10))
    s = summary.set_index(["dimension", "level"])
    assert s.loc[("coherence", "sample"), "requests_ratio"] == 2.0
    assert all(np.isfinite(s.loc[("coherence", lv), "q10"]) for lv in ("sample", "system", "dataset"))
    assert np.isnan(s.loc[("coherence", "system"), "q10_low"])  # the design gives no interval
    assert set(prompts["n_documents"]) == {6}
    assert (prompts["valid_rate"] == 1.0).all()  # unasked documents are not invalid replies
    assert set(summary["template_documents"]) == {6}  # each template's 6 of the 18 documents


def test_table6_generalised_puts_the_paper_variants_beside_the_quantiles():
    scores, human, _ = grid(n_prompts=5, n_docs=10, seed=7)
    frame = human_frame(human)
    fam = Family("f", "summeval", "", ("a", "b"), per_document=None)
    tables = {"a": judge_table(frame, scores[0]), "b": judge_table(frame, scores[1])}
    summary, _ = family_tables(frame, {"j": tables}, fam, FAST)
    paper = paper_variants(frame, {"j": {v: judge_table(frame, scores[2 + i]) for i, v in enumerate(("base", "def"))}},
                           "summeval", FAST)
    table = table6_generalised(summary, paper)
    assert {"base", "def", "q10", "q10_low", "share"} <= set(table.columns) and len(table) == 12
    row = table[(table["dimension"] == "relevance") & (table["level"] == "dataset")].iloc[0]
    ok = ~np.isnan(human)
    from scipy import stats
    assert row["base"] == pytest.approx(stats.spearmanr(scores[2][ok], human[ok]).statistic)
    page = markdown(table)
    assert page.count("\n| j | f |") == 12 and "plausible worst prompt" in page
    assert set(table["template_documents"]) == {10} and "subset design" not in page  # the full grid: no warning


def test_the_page_warns_when_the_design_gives_a_template_few_documents():
    rows = pd.DataFrame({"judge": "j", "family": ["thin", "thin", "wide", "full"], "dimension": "relevance",
                         "level": "sample", "design": ["2.5 prompts per document"] * 3 + ["full grid"],
                         "template_documents": [3, 4, 25, 5]})
    warnings = design_warnings(rows)
    assert len(warnings) == 2 and warnings[0].startswith("**thin**: its subset design gives a template 3 document(s), "
                                                         "fewer than 20") and "design: null" in warnings[0]


def test_families_read_the_config_and_the_folder(tmp_path):
    for name in ("one", "two", "ten"):
        (tmp_path / f"{name}.txt").write_text("Rate {Article} {Summary}")
    cfg = {"prompt_families": {"f": {"dataset": "summeval", "dir": str(tmp_path), "scales": {"ten": [1, 10]},
                                     "design": {"prompts_per_document": 2}}}}
    fam = families(cfg)["f"]
    assert fam.templates == ("one", "ten", "two") and fam.per_document == 2 and fam.requests_ratio() == 2.0
    assert fam.spec("ten").likert_scale == (1, 10) and fam.spec("one").likert_scale == (1, 5)
    assert to_scale([1, 10, 5.5], (1, 10), (1, 5)) == pytest.approx([1, 5, 3])
    cfg["prompt_families"]["f"]["design"] = {"prompts_per_document": 2.5}  # the issue's 2.5x budget
    assert families(cfg)["f"].per_document == 2.5 and families(cfg)["f"].requests_ratio() == 2.5
    cfg["prompt_families"]["f"]["scales"] = {"eleven": [1, 11]}
    with pytest.raises(ValueError, match="scales names no template of .*: eleven"):
        families(cfg)


def test_the_shipped_summeval_family_parses_and_asks_every_dimension():
    import yaml
    from support.harness import REPO
    from sumjudge.judge.prompts import check_template, load_template
    cfg = yaml.safe_load((REPO / "config.yaml").read_text())["judge"]
    fam = families(cfg, str(REPO))["summeval_likert"]
    assert len(fam.templates) >= 8 and fam.scales == {"ten_point": (1, 10)}
    for t in fam.templates:
        template = load_template(fam.template_path(t))
        check_template(template, "summeval")
        text = " ".join(m for _, m in template.messages).lower()
        assert all(w in text for w in ("relevance", "faithful", "fluency", "coherence")), t
        assert ("1 (worst) to 10 (best)" in text) == (t == "ten_point"), t
