"""Prompt files, rendering, sending order and request planning."""

import pandas as pd
import pytest

from sumjudge.judge.prompts import (TemplateError, check_template, load_template, parse_template, unit_fields)
from sumjudge.datasets import BUILTIN
from sumjudge.judge.run import plan_requests, unit_order
from sumjudge.judge.spec import judge_spec
from support.harness import REPO

FIG1 = ("Evaluate the quality of summaries written for a news article. Rate each summary on four dimensions: "
        "relevance, faithfulness, fluency, and coherence. You should rate on a scale from 1 (worst) to 5 (best)."
        "\n\nArticle: A\nSummary: S")


def test_every_dataset_and_variant_has_a_prompt_file():
    for dataset, spec in BUILTIN.items():
        for v in spec.variants:
            path = REPO / spec.prompt_file(v)
            check_template(load_template(path), dataset)


def test_figure1_verbatim_and_sys_prompt():
    base = load_template(REPO / "prompts/likert_summeval.txt")
    assert base.render({"Article": "A", "Summary": "S"}) == [{"role": "user", "content": FIG1}]
    sys_ = load_template(REPO / "prompts/likert_summeval_sys_prompt.txt").render({"Article": "A", "Summary": "S"})
    assert sys_ == [{"role": "system", "content": "You are a human annotator that rates the quality of summaries."},
                    {"role": "user", "content": FIG1}]


def test_definitions_variants_and_figure_texts():
    d = (REPO / "prompts/likert_summeval_def.txt").read_text()
    di = (REPO / "prompts/likert_summeval_def_ins.txt").read_text()
    for text in (d, di):
        assert "Relevance: The rating measures how well the summary captures the key points" in text
        assert text.index("{Article}") < text.index("{Summary}")
    assert di.startswith("Imagine you are a human annotator now.")
    assert "which summary is better? Answer \"Summary 0\" or \"Summary 1\"" in (REPO / "prompts/pairwise_tldr.txt").read_text()
    assert "relevance, informativeness, fluency, and coherence" in (REPO / "prompts/likert_newsroom.txt").read_text()


def test_render_fills_only_known_fields_once():
    t = parse_template("Article: {Article}\nSummary: {Summary}\nKeep {this} as is.\n")
    out = t.render({"Article": "has {Summary} inside", "Summary": "S"})[0]["content"]
    assert out == "Article: has {Summary} inside\nSummary: S\nKeep {this} as is."
    with pytest.raises(TemplateError, match="no value for Summary"):
        t.render({"Article": "A"})


def test_template_errors():
    with pytest.raises(TemplateError, match="last message must be the user"):
        parse_template("### user\nhi\n### system\nyou are\n")
    with pytest.raises(TemplateError, match="needs"):
        check_template(parse_template("Rate this: {Article}"), "summeval")


def test_pyramid_fields_number_the_scus():
    row = {"summary": "S", "scus": ["first unit", "second unit"], "article": "A"}
    f = unit_fields("realsumm", row)
    assert f["SCUs"] == "1. first unit\n2. second unit"
    msg = load_template(REPO / "prompts/pyramid_realsumm.txt").render(f)[0]["content"]
    assert msg.endswith("Semantic content units:\n1. first unit\n2. second unit")


def test_article_order_groups_units_by_article():
    df = pd.DataFrame({"doc_id": ["b", "a", "b", "c", "a"], "unit_id": list("12345")})
    assert unit_order(df, "summeval", "article") == [0, 2, 1, 4, 3]
    assert unit_order(df, "summeval", "dataset") == [0, 1, 2, 3, 4]
    assert sorted(unit_order(df, "summeval", "shuffled")) == [0, 1, 2, 3, 4]


def test_plan_requests_keys_depend_on_what_determines_the_reply():
    df = pd.DataFrame({"unit_id": ["d/1", "d/2"], "doc_id": ["d", "d"], "article": ["A", "A"],
                       "summary": ["S1", "S2"]})
    t = load_template(REPO / "prompts/likert_summeval.txt")
    spec = judge_spec("j", {"model": "m", "base_url": "http://127.0.0.1:9/v1", "samples": 2})
    plan = plan_requests(df, "summeval", t, spec)
    assert [(p.row, p.sample) for p in plan] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert len({p.request.key for p in plan}) == 4  # sample index is in the key
    assert plan[0].prompt_hash == plan[1].prompt_hash
    assert plan[0].request.params["seed"] == 0 and plan[1].request.params["seed"] == 1

    def key(**change):
        s = judge_spec("j", {"model": "m", "base_url": "http://127.0.0.1:9/v1", **change})
        return plan_requests(df, "summeval", t, s)[0].request.key

    base = key()
    # settings that do not change the reply do not change the key
    assert key(price_input_per_1k=1.0, max_concurrency=9, timeout_s=5, api_key_env="SOME_KEY",
               requests_per_minute=10) == base
    assert key(base_url="http://127.0.0.1:9/v1/") == base
    # everything that can change the reply does
    for change in ({"model": "m2"}, {"temperature": 0.7}, {"max_tokens": 10}, {"seed": 3},
                   {"extra_body": {"repeat_penalty": 1.0}}, {"base_url": "http://127.0.0.1:8/v1"},
                   {"top_p": 0.5}):
        assert key(**change) != base, change


def test_label_columns_contract():
    from sumjudge.datasets import get

    def label_columns(name):
        return get(name).label_columns

    assert label_columns("summeval") == ("consistency", "relevance", "fluency", "coherence")
    assert label_columns("newsroom") == ("coherence", "fluency", "informativeness", "relevance")
    assert label_columns("tldr") == ("choice",)
    assert label_columns("realsumm") == ("scu_labels",)
    assert label_columns("qags_cnn") == label_columns("qags_xsum") == ("label",)
