"""The parser on realistic judge replies (tests/fixtures/replies_*.yaml): every
reply gets the label a reader takes from it, or is invalid for the stated reason."""
from pathlib import Path

import pytest
import yaml

from sumjudge.judge.parse import INVALID_REASONS, parse_binary, parse_likert, parse_pairwise, parse_pyramid

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DIMS = ["consistency", "relevance", "fluency", "coherence"]


def load(protocol):
    cases = yaml.safe_load((FIXTURES / f"replies_{protocol}.yaml").read_text())
    return [pytest.param(c, id=str(c["id"])) for c in cases]


def parse(protocol, case):
    fr = case.get("finish_reason")
    if protocol == "likert":
        return parse_likert(case["reply"], DIMS, fr), None
    if protocol == "pairwise":
        return parse_pairwise(case["reply"], fr), "choice"
    if protocol == "binary":
        return parse_binary(case["reply"], fr), "label"
    return parse_pyramid(case["reply"], case["n"], fr), "scu_labels"


@pytest.mark.parametrize("protocol", ["likert", "pairwise", "binary", "pyramid"])
def test_enough_fixtures_per_protocol(protocol):
    cases = yaml.safe_load((FIXTURES / f"replies_{protocol}.yaml").read_text())
    assert len(cases) >= 30
    assert len({str(c["id"]) for c in cases}) == len(cases)
    assert all(("expect" in c) != ("invalid" in c) for c in cases)
    assert {c["invalid"] for c in cases if "invalid" in c} <= set(INVALID_REASONS)


def check(protocol, case):
    parsed, col = parse(protocol, case)
    if "expect" in case:
        assert parsed.status == "ok", (parsed.reason, case["reply"])
        assert (parsed.labels if col is None else parsed.labels[col]) == case["expect"]
    else:
        assert parsed.status == "invalid", (parsed.labels, case["reply"])
        assert parsed.reason.split(":")[0] == case["invalid"], parsed.reason
        values = [x for v in parsed.labels.values() for x in (v if isinstance(v, list) else [v])]
        assert all(v is None for v in values) or case["invalid"] in (
            "missing_dimension", "missing_scu", "truncated", "out_of_range")


@pytest.mark.parametrize("case", load("likert"))
def test_likert_fixture(case):
    check("likert", case)


@pytest.mark.parametrize("case", load("pairwise"))
def test_pairwise_fixture(case):
    check("pairwise", case)


@pytest.mark.parametrize("case", load("binary"))
def test_binary_fixture(case):
    check("binary", case)


@pytest.mark.parametrize("case", load("pyramid"))
def test_pyramid_fixture(case):
    check("pyramid", case)


def test_the_issues_five_replies():
    """The replies issue 9 found labelled wrongly with status ok."""
    r = parse_likert("Relevance: The summary covers 2 of the 3 key points. Score: 4", ["relevance"])
    assert (r.status, r.labels) == ("ok", {"relevance": 4})
    r = parse_likert("Relevance - 3 sentences, all on topic: 5", ["relevance"])
    assert (r.status, r.labels) == ("ok", {"relevance": 5})
    assert parse_pairwise("Summary 0 is more confusing than Summary 1").labels == {"choice": 1}
    assert parse_pairwise("Summary 1 is not better than Summary 0").labels == {"choice": 0}
    assert parse_binary("Supported. There is no contradiction with the article.").labels == {"label": 1}


def test_ambiguous_reasons_say_what_pointed_both_ways():
    r = parse_pairwise("Summary 0 is better at covering the facts, but Summary 1 is better overall.")
    assert r.reason.startswith("ambiguous: points both ways") and "-> 0" in r.reason and "-> 1" in r.reason
    r = parse_likert("Consistency: 4\nRelevance: 3\nFluency: 5\nCoherence: 4\nOn reflection: Consistency: 2", DIMS)
    assert r.reason.startswith("ambiguous: consistency 2 or 4") and r.labels["relevance"] is None
