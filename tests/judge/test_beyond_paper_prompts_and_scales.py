"""What the datasets beyond the paper ask of the protocol, prompt and workflow code: a Likert
scale declared by the dataset (SQuALITY 0-100), a prompt that carries the question, their
prompts adapted from the paper's, and their own tables switched on by the `datasets` line
while the paper's run stays as it was."""
import pytest
import yaml

from sumjudge import datasets
from sumjudge.config import validate
from sumjudge.datasets import BUILTIN
from sumjudge.judge.prompts import TemplateError, check_template, load_template, parse_template, unit_fields
from sumjudge.catalog import judged_datasets
from sumjudge.tables.workflow import CHART_TABLES, custom_tables, numbered_tables
from support.harness import REPO

SQ = BUILTIN["squality"]


@pytest.mark.parametrize("reply, labels", [
    ("Correctness: 85\nCoverage: 60\nOverall quality: 70", {"correctness": 85, "coverage": 60, "overall": 70}),
    ("Correctness (0-100): 85\nCoverage (0 to 100): 40\nOverall: 55", {"correctness": 85, "coverage": 40,
                                                                        "overall": 55}),
    ("Correctness: 90/100, Coverage: 35 out of 100, Overall: 0", {"correctness": 90, "coverage": 35, "overall": 0}),
    ("- Correctness: 100\n- Selection: 12.5\n- Overall quality: 20", {"correctness": 100, "coverage": 12.5,
                                                                     "overall": 20}),
])
def test_squality_scores_are_read_on_its_0_100_scale(reply, labels):
    parsed = SQ.proto.parse_for(SQ, reply, "stop", {"summary": "s", "article": "a"})
    assert parsed.status == "ok" and parsed.labels == labels


def test_a_score_outside_the_datasets_scale_is_out_of_range():
    parsed = SQ.proto.parse_for(SQ, "Correctness: 101\nCoverage: 50\nOverall: 50", "stop", {})
    assert parsed.status == "invalid" and parsed.reason == "out_of_range: correctness=101"
    # the same reply on the paper's 1-5 scale: 50 is out of range there
    se = BUILTIN["summeval"]
    parsed = se.proto.parse_for(se, "Relevance: 4, Faithfulness: 50, Fluency: 3, Coherence: 2", "stop", {})
    assert parsed.reason == "out_of_range: consistency=50"
    assert se.likert_scale == (1, 5) and BUILTIN["dialsummeval"].likert_scale == (1, 5)


def test_the_squality_prompt_carries_the_question_after_the_story():
    template = load_template(REPO / SQ.prompt_file("base"))
    check_template(template, "squality")
    row = {"article": "THE STORY", "question": "What is the plot?", "summary": "THE SUMMARY"}
    text = template.render(unit_fields("squality", row))[0]["content"]
    assert text.index("Story: THE STORY") < text.index("Question: What is the plot?") < text.index(
        "Summary: THE SUMMARY")
    assert "on a scale from 0 (worst) to 100 (best)" in text and "correctness, coverage, and overall quality" in text
    with pytest.raises(TemplateError, match=r"a prompt for squality needs \{Question\}"):
        check_template(parse_template("Story: {Article}\nSummary: {Summary}"), "squality")


def test_prompts_are_the_papers_with_the_noted_changes():
    fig1 = (REPO / "prompts/likert_summeval.txt").read_text()
    dialogue = (REPO / "prompts/likert_dialsummeval.txt").read_text()
    assert dialogue == fig1.replace("for a news article", "for a dialogue").replace("Article: ", "Dialogue: ")
    squality = (REPO / "prompts/likert_squality.txt").read_text()
    assert squality.startswith("Evaluate the quality of summaries written for a story")
    notes = (REPO / "docs/judge.md").read_text()
    for name in ("likert_dialsummeval.txt", "likert_squality.txt"):
        assert f"| `{name}` |" in notes  # each prompt's one-line note of what changed


def test_the_default_run_keeps_the_papers_tables_and_datasets():
    default = list(datasets.DATASETS)
    assert numbered_tables(default) == [f"table{k}" for k in range(1, 10)]
    assert custom_tables(BUILTIN, "correlation", default) == [] and "dialsummeval" not in CHART_TABLES
    cfg = yaml.safe_load((REPO / "config.yaml").read_text())
    assert judged_datasets(default, cfg["judge"]) == default


def test_one_datasets_line_adds_the_beyond_paper_datasets():
    cfg = yaml.safe_load((REPO / "config.yaml").read_text())
    beyond = yaml.safe_load((REPO / "config/beyond_paper.yaml").read_text())
    four = ["dialsummeval", "helm_news", "cnndm_comparisons", "squality"]
    assert beyond["datasets"] == list(datasets.DATASETS) + four
    line = next(ln for ln in (REPO / "config.yaml").read_text().splitlines() if ln.startswith("# datasets: ["))
    assert yaml.safe_load(line[2:])["datasets"] == beyond["datasets"]
    # this branch's registry: the names it has (the pairwise two come with their own readers)
    mine = [d for d in beyond["datasets"] if d in BUILTIN]
    assert {"dialsummeval", "squality"} <= set(mine)
    cfg["datasets"] = mine
    validate(cfg, REPO / "workflow/schemas/config.schema.yaml")
    assert judged_datasets(mine, cfg["judge"]) == list(datasets.DATASETS) + [d for d in mine if d not in
                                                                              datasets.DATASETS]
    assert custom_tables(BUILTIN, "correlation", mine)[:2] == ["dialsummeval", "squality"]
    assert numbered_tables(mine) == [f"table{k}" for k in range(1, 10)]  # no new numbered table


def test_the_weighted_score_reads_the_datasets_scale():
    """G-Eval's weighted score sums one-digit scores: on SQuALITY's 0-100 scale it is not computed."""
    import math

    lp = [{"token": "X", "logprob": 0.0, "top_logprobs": []}, {"token": ":", "logprob": 0.0, "top_logprobs": []},
          {"token": " 4", "logprob": math.log(0.75), "top_logprobs": [{"token": " 4", "logprob": math.log(0.75)},
                                                                     {"token": " 2", "logprob": math.log(0.25)}]}]
    se = BUILTIN["newsroom"]
    one = {"summary": "s", "article": "a"}
    reply = "Coherence: 4"
    parsed = se.proto.parse(reply, "stop", one, ("coherence",))
    lp[0]["token"] = "Coherence"
    got = se.proto.extra_columns(reply, parsed, {"logprobs": lp}, ("coherence",), se.likert_scale)
    assert got["coherence_weighted"] == pytest.approx(3.5)
    reply = "Overall: 4"
    lp[0]["token"] = "Overall"
    parsed = SQ.proto.parse_for(SQ, reply, "stop", one)
    got = SQ.proto.extra_columns_for(SQ, reply, parsed, {"logprobs": lp})
    assert math.isnan(got["overall_weighted"]) and parsed.labels["overall"] == 4


def test_the_cost_estimate_covers_squality_and_its_shared_story_prefix(mirror, tmp_path):
    """SQuALITY's prompts are long (a ~5,000-word story each); in article order the 3 systems of
    a question share the instruction and the story, which the estimate counts as cached prefix."""
    from sumjudge.data.prepare import locate, prepare_dataset, source_files
    from sumjudge.judge.estimate import estimate
    from sumjudge.judge.transport import estimate_tokens

    df = prepare_dataset("squality", locate(source_files("squality"), mirror), {"subset": {"squality": {"docs": 1}}})
    judge = {"name": "paid", "model": "m", "base_url": "https://api.example.com/v1", "api_key_env": "K",
             "price_input_per_1k": 0.002, "price_output_per_1k": 0.002}
    t = estimate({"squality": df}, {"paid": judge}, {"squality": ["base"]}, str(tmp_path / "cache"),
                 str(REPO / "prompts")).iloc[0]
    story = estimate_tokens(df["article"].iloc[0])
    assert t["requests"] == t["to_send"] == 3 and t["input_tokens"] > 3 * story
    assert 2 * story * 0.9 < t["cached_prefix_tokens"] < 2 * (story + 200)  # requests 2 and 3 reuse the story
    assert t["cost_usd_expected"] == pytest.approx((t["input_tokens"] + t["output_tokens_expected"]) * 0.002 / 1000,
                                                   abs=1e-4)
