"""Reply parsing against hand-written replies, one protocol at a time."""
import math

import pytest

from sumjudge.judge.parse import (INVALID_REASONS, parse_binary, parse_likert, parse_pairwise, parse_pyramid,
                                  weighted_likert)

SE = ("consistency", "relevance", "fluency", "coherence")
NR = ("coherence", "fluency", "informativeness", "relevance")


def reason(p):
    return p.reason.split(":")[0] if p.reason else None


# ------------------------------------------------------------------ Likert

@pytest.mark.parametrize("reply, expected", [
    ("Relevance: 4\nFaithfulness: 5\nFluency: 3\nCoherence: 2", (5, 4, 3, 2)),
    ("Relevance: 4/5, Faithfulness: 5/5, Fluency: 3/5, Coherence: 2/5", (5, 4, 3, 2)),
    ("1. Relevance: 4\n2. Faithfulness: 5\n3. Fluency: 3\n4. Coherence: 2", (5, 4, 3, 2)),
    ("**Relevance** (1-5): 4\n**Faithfulness** (1-5): 5\n**Fluency** (1-5): 3\n**Coherence** (1-5): 2", (5, 4, 3, 2)),
    ("Relevance - 4 out of 5. The summary covers the key points.\nFaithfulness - 5 out of 5.\n"
     "Fluency - 3 out of 5.\nCoherence - 2 out of 5.", (5, 4, 3, 2)),
    ("Relevance: The summary captures the main event but misses the verdict. Score: 3\n"
     "Consistency: 4\nFluency: 5\nCoherence: 4", (4, 3, 5, 4)),
    ("Relevance: 4.5\nFaithfulness: 5\nFluency: 3\nCoherence: 2", (5, 4.5, 3, 2)),
    ("On a scale from 1 (worst) to 5 (best): relevance 3, faithfulness 4, fluency 5, coherence 5.", (4, 3, 5, 5)),
])
def test_likert_valid(reply, expected):
    p = parse_likert(reply, SE)
    assert p.status == "ok", p.reason
    assert tuple(p.labels[d] for d in SE) == expected


def test_likert_newsroom_dimensions():
    p = parse_likert("Relevance: 2\nInformativeness: 3\nFluency: 4\nCoherence: 5", NR)
    assert p.status == "ok"
    assert p.labels == {"coherence": 5, "fluency": 4, "informativeness": 3, "relevance": 2}


def test_likert_missing_dimension_keeps_what_was_given():
    p = parse_likert("Relevance: 4\nFaithfulness: 5\nFluency: 3", SE)
    assert p.status == "invalid" and p.reason == "missing_dimension: coherence"
    assert p.labels["coherence"] is None and p.labels["fluency"] == 3


def test_likert_out_of_range_is_never_a_score():
    p = parse_likert("Relevance: 7\nFaithfulness: 5\nFluency: 0\nCoherence: 2", SE)
    assert p.status == "invalid" and reason(p) == "out_of_range"
    assert "relevance=7" in p.reason and "fluency=0" in p.reason
    assert p.labels["relevance"] is None and p.labels["fluency"] is None


def test_likert_echoed_scale_is_not_a_score():
    # the embedded 0.5B model's typical reply to Figure 1: the scale, no dimension
    p = parse_likert("1 (worst)\n2 (best)\n3 (best)\n4 (best)", SE)
    assert p.status == "invalid" and p.reason == "no_score"
    assert all(v is None for v in p.labels.values())
    assert parse_likert("4/5", SE).reason == "no_score"


def test_likert_numbers_of_other_lines_are_not_taken():
    # the embedded model's Newsroom reply: numbers precede the names, they are not scores
    p = parse_likert("1 (worst)\n2 (informativeness)\n3 (fluency)\n4 (coherence)", NR)
    assert p.status == "invalid" and p.reason == "no_score"
    assert all(v is None for v in p.labels.values())
    # a score on the line after its name is still found
    p = parse_likert("Relevance:\n4\nFaithfulness: 5\nFluency: 3\nCoherence: 2", SE)
    assert p.status == "ok" and p.labels["relevance"] == 4


def test_likert_truncated():
    p = parse_likert("Relevance: 4\nFaithfulness: 5\nFlu", SE, finish_reason="length")
    assert p.status == "invalid" and reason(p) == "truncated"


def test_likert_invalid_categories_of_table8():
    summary = "Paul Merson was brought on with only seven minutes remaining in his team 's 0-0 draw with Burnley ."
    article = ("Paul Merson has restarted his row with Andros Townsend after the Tottenham midfielder was brought "
               "on with only seven minutes remaining in his team 's 0-0 draw with Burnley on Sunday . "
               "Townsend was brought on in the 83rd minute for Tottenham as they drew 0-0 against Burnley .")
    assert parse_likert("I'm sorry, but as an AI language model I cannot rate summaries.", SE).reason == "refusal"
    assert parse_likert("", SE).reason == "empty"
    assert parse_likert("Summary: Paul Merson restarted his row with Andros Townsend.", SE,
                        summary=summary, article=article).reason == "rewrote_summary"
    assert parse_likert("Townsend was brought on in the 83rd minute for Tottenham as they drew 0-0 against "
                        "Burnley on Sunday .", SE, summary=summary, article=article).reason == "rewrote_summary"
    assert parse_likert("draw with Burnley . Townsend then scored in the next game against Italy .", SE,
                        summary=summary, article=article).reason == "continued_summary"
    assert parse_likert("and the manager was not happy with that decision at all .", SE,
                        summary=summary, article=article).reason == "continued_summary"


def test_likert_reason_vocabulary():
    for reply in ("", "I'm sorry", "Summary: x", "4/5", "Relevance: 9", "Relevance: 4"):
        assert reason(parse_likert(reply, SE)) in INVALID_REASONS


def test_weighted_likert_from_top_logprobs():
    reply = "Relevance: 4"
    p = parse_likert(reply + "\nFaithfulness: 5\nFluency: 3\nCoherence: 2", SE)
    tokens = [{"token": "Relevance", "top_logprobs": []}, {"token": ":", "top_logprobs": []},
              {"token": " ", "top_logprobs": []},
              {"token": "4", "top_logprobs": [{"token": "4", "logprob": math.log(0.6)},
                                              {"token": "3", "logprob": math.log(0.2)},
                                              {"token": "5", "logprob": math.log(0.1)},
                                              {"token": "Hello", "logprob": math.log(0.1)}]}]
    w = weighted_likert(reply, {"relevance": p.spans["relevance"]}, tokens)
    assert w["relevance"] == pytest.approx((4 * 0.6 + 3 * 0.2 + 5 * 0.1) / 0.9)
    assert math.isnan(weighted_likert(reply, p.spans, None)["coherence"])


# ------------------------------------------------------------------ pairwise

@pytest.mark.parametrize("reply, choice", [
    ("Summary 0", 0), ("Summary 1", 1), ("summary 1.", 1), ("1", 1), ('"Summary 0"', 0),
    ("Answer: Summary 1", 1), ("I think Summary 1 is better.", 1),
    ("Summary 1 is better than Summary 0 because it is concise.", 1),
    ("Both are fine, but Summary 0 is more accurate than Summary 1.", 0),
])
def test_pairwise_valid(reply, choice):
    p = parse_pairwise(reply)
    assert p.status == "ok" and p.labels["choice"] == choice


@pytest.mark.parametrize("reply, why", [
    ("Summary 0 and Summary 1 are equally good.", "ambiguous"),
    ("Both summaries are good.", "no_choice"),
    ("I'm sorry, I cannot decide.", "refusal"),
    ("", "empty"),
])
def test_pairwise_invalid(reply, why):
    p = parse_pairwise(reply)
    assert p.status == "invalid" and reason(p) == why and p.labels["choice"] is None


# ------------------------------------------------------------------ Pyramid

def test_pyramid_numbered():
    p = parse_pyramid("1. Yes\n2. No\n3. Yes", 3)
    assert p.status == "ok" and p.labels["scu_labels"] == [True, False, True]


def test_pyramid_echoed_scu_text_with_no_inside():
    reply = ("1. There were no casualties in the attack - Yes\n"
             "2. The mayor resigned: No\n"
             "3. Yes, the bridge was closed")
    p = parse_pyramid(reply, 3)
    assert p.labels["scu_labels"] == [True, False, True]


def test_pyramid_one_line_and_unnumbered():
    assert parse_pyramid("1: Yes, 2: No, 3: No", 3).labels["scu_labels"] == [True, False, False]
    assert parse_pyramid("Yes\nNo\nYes", 3).labels["scu_labels"] == [True, False, True]


def test_pyramid_missing_and_truncated():
    p = parse_pyramid("1. Yes\n2. No", 4)
    assert p.status == "invalid" and p.reason.startswith("missing_scu: 2 of 4")
    assert p.labels["scu_labels"] == [True, False, None, None]
    assert reason(parse_pyramid("1. Yes\n2. N", 4, finish_reason="length")) == "truncated"
    # a runaway list of unnumbered answers is not read in order
    assert parse_pyramid("Yes\n" * 40, 3, finish_reason="length").reason == "truncated"
    assert parse_pyramid("Yes", 5).reason == "no_answer"


def test_pyramid_ignores_numbers_beyond_the_scus():
    p = parse_pyramid("1. Yes\n2. No\n3. Yes", 2)
    assert p.status == "ok" and p.labels["scu_labels"] == [True, False]


# ------------------------------------------------------------------ binary

@pytest.mark.parametrize("reply, label", [
    ("Yes", 1), ("No", 0), ("Yes.", 1), ("no, it is not.", 0), ("**Yes**", 1),
    ("The sentence is supported by the article. Yes.", 1),
    ("The sentence is not supported by the article.", 0),
    ("Answer: No", 0),
])
def test_binary_valid(reply, label):
    p = parse_binary(reply)
    assert p.status == "ok" and p.labels["label"] == label


@pytest.mark.parametrize("reply, why", [
    ("It says yes in one place and no in another.", "ambiguous"),
    ("The article discusses several events.", "no_answer"),
    ("I'm sorry, I can't answer that.", "refusal"),
    ("", "empty"),
])
def test_binary_invalid(reply, why):
    p = parse_binary(reply)
    assert p.status == "invalid" and reason(p) == why and p.labels["label"] is None


# ------------------------------------------------------------------ linear time

# Replies are model output: a runaway reply must not take minutes. Each of these took more
# than 3 s at 16 KB before the patterns were made linear (two adjacent runs that take the
# same characters, a start tried at every newline of a long run, a slice per number): at
# least 3 minutes at the 128 KB here (quadratic), hours at 1 MB. A run of N characters now
# costs O(N): measured at 1 MB, at most about 1 s per parser on 2 loaded cores.
MB = 1 << 17  # 128 KB: keeps the unit tier quick
ADVERSARIAL = {
    "dashes": "-" * MB,
    "quotes": '" ' * (MB // 2),
    "space dash": " -" * (MB // 2),
    "Summary, then spaces": "Summary" + " " * MB + " x",
    "so, then newlines": "so" + "\n" * MB + " x",
    "answer:, then spaces": "answer:" + " " * MB + " x",
    "here is, then spaces": "here is" + " " * MB + " x",
    "I prefer, then newlines": "I prefer" + "\n" * MB + " x",
    "1., then spaces": "1." + " " * MB + " x",
    "Relevance, then spaces": "Relevance" + " " * MB + " x 4",
    "Relevance, then 1a": "Relevance: " + "1a" * (MB // 2) + " x 4",
    "1, then newlines": "1" + "\n" * MB + " x 4",
    "dots": "." * MB + " x",
}
PARSE_ALL = """
import sys, time
from sumjudge.judge import parse as P
from test_parse import ADVERSARIAL
worst = 0.0
for name, reply in ADVERSARIAL.items():
    start = time.monotonic()
    P.parse_likert(reply, ["relevance", "consistency", "fluency", "coherence"], summary="s t u v w x y z", article="a b c")
    P.parse_likert(reply, ["overall"], low=0, high=100)
    P.parse_pairwise(reply); P.parse_pairwise_tie(reply); P.parse_pyramid(reply, 5); P.parse_binary(reply)
    worst = max(worst, time.monotonic() - start)
print(f"{worst:.2f}")
"""


@pytest.mark.slow
def test_a_long_adversarial_reply_is_parsed_in_seconds():
    import os
    import subprocess
    import sys
    from support.harness import REPO
    out = subprocess.run([sys.executable, "-c", PARSE_ALL], capture_output=True, text=True, timeout=120, cwd=REPO,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests"), str(REPO / "tests/judge")])})
    assert out.returncode == 0, out.stderr[-2000:]
    assert float(out.stdout) < 5, f"the slowest 128 KB reply took {out.stdout.strip()} s for all six parsers"
