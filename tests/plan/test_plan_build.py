"""`python -m sumjudge plan` (sumjudge/plan/build.py): the cost estimate's own dollar figures
(live, Batch API, cached prefixes), prompts and tokens, the prompt family, a jury's members."""

import pytest
from plan_helpers import human, request
from support.harness import REPO

from sumjudge.judge.estimate import estimate
from sumjudge.judge.spec import judge_specs
from sumjudge.plan.build import PlanError, PlanRequest, make_plan
from sumjudge.plan.tokens import ESTIMATED
from sumjudge.settings import RunSettings


def test_tokens_and_dollars_are_the_estimates(workdir):
    tmp_path, config = workdir
    plan = make_plan(RunSettings.from_config(config), request(tmp_path))
    spec = judge_specs(config)["priced"]
    tables = {"summeval": human()}
    args = ({"summeval": ["base", "def"]}, config["judge"]["cache_dir"], config["judge"]["prompt_dir"])
    est = estimate(tables, {"priced": spec}, *args)
    batch = estimate(tables, {"priced": spec.replace(mode="batch")}, *args)
    cached = estimate(tables, {"priced": spec}, *args, cached_prefix=True)
    cost, prompts = plan["cost"], plan["prompts"]
    assert cost["usd_live"].tolist() == cost["usd_estimate"].tolist() == est["cost_usd_expected"].tolist()
    assert cost["usd_batch"].tolist() == batch["cost_usd_expected"].tolist()
    assert cost["usd_cached_prefix"].tolist() == cached["cost_usd_expected"].tolist()
    # by hand: 0.0004 USD / 1K prompt tokens, 0.0016 / 1K completion tokens (40 expected per Likert reply)
    row = est.iloc[0]
    assert row["cost_usd_expected"] == round((row["input_tokens"] * 0.0004 + 40 * 40 * 0.0016) / 1000, 4) > 0
    # a remote judge: its tokens are the estimate's, and the plan says so
    assert prompts["prompt_tokens"].tolist() == est["input_tokens"].tolist()
    assert set(prompts["tokens_counted_by"]) == {ESTIMATED} and (prompts["requests"] == 40).all()


def test_the_plan_prices_the_prompt_family_on_its_documents(workdir):
    tmp_path, config = workdir
    plan = make_plan(RunSettings.from_config(config), request(tmp_path))
    fam = plan["families"]
    n_templates = len(list((REPO / "prompts/families/summeval_likert").glob("*.txt")))
    # 8 documents x 5 systems, 2.5 templates per document (2, 3, 2, 3, ...): 20 document slots,
    # 100 requests, 2.5 times one prompt's 40
    assert len(fam) == n_templates and fam["requests"].sum() == 100 and fam["ratio"].iloc[0] == 2.5
    assert fam["documents"].sum() == 20 and (fam["documents"] >= 1).all()
    # 2-3 documents a template: the plan says so before any request
    assert fam["note"].str.startswith("its subset design gives a template 2 document(s), fewer than 20").all()
    assert (fam["cost_usd_expected"] > 0).all()


def test_the_estimate_prices_a_jurys_members_not_the_jury(workdir):
    tmp_path, config = workdir
    config["judges"]["panel"] = {"jury": ["priced", "other"]}
    specs = judge_specs(config)
    est = estimate({"summeval": human()}, specs, {"summeval": ["base"]}, config["judge"]["cache_dir"],
                   config["judge"]["prompt_dir"])
    assert est["judge"].tolist() == ["priced", "other"]
    with pytest.raises(PlanError, match="sends no request"):
        make_plan(RunSettings.from_config(config), PlanRequest("panel", ("summeval",), str(tmp_path / "results")))



def test_a_family_whose_design_does_not_fit_the_documents_is_named_not_priced(monkeypatch):
    """A slice's 3 documents cannot carry a 9-template family at 2 templates a document: the plan
    names the family 'not priced' with the design's reason instead of stopping (docs/robustness.md)."""
    import numpy as np
    import pandas as pd

    import sumjudge.plan.build as pb

    reason = ("3 documents x 2 prompts per document leave some of the family's 9 prompts without a document; "
              "raise prompts_per_document or use the full grid")

    def too_few(*_):
        raise ValueError(reason)

    monkeypatch.setattr(pb, "family_cost", too_few)
    family = type("Family", (), {"name": "summeval_likert", "dataset": "summeval"})()
    row = pb._family_rows(pd.DataFrame(), family, None, "results/cache/judge")
    assert row[["family", "template", "note"]].values.tolist() == [["summeval_likert", "(not priced)", reason]]
    assert np.isnan(row["ratio"].iloc[0]) and np.isnan(row["cost_usd_expected"].iloc[0])
