"""Issue 36 item 6: every judge row says how its score was made, and a weighted Likert score never
silently becomes a top-token one: without logprobs the judge stops with one line naming
judges.<name>.allow_score_fallback, and with it the fallback is named on each row."""
import json

import pytest

from sumjudge.judge.run import judge_dataset
from sumjudge.judge.score_mode import NO_LOGPROBS, NOT_LISTED, ScoreFallbackError
from sumjudge.judge.spec import judge_spec
from support.fake_openai import FakeOpenAIServer, default_logprobs
from support.harness import REPO
from support.judge_units import summeval_units

TEMPLATE = REPO / "prompts/likert_summeval.txt"
DIMS = ["relevance", "consistency", "fluency", "coherence"]


def remote(url, **kw):
    return judge_spec("fake", {"model": "fake-model", "base_url": url, "max_retries": 0, "cache_identity": "fake-api",
                               **kw})


def run(tmp_path, spec, n=4, **server):
    with FakeOpenAIServer(**server) as srv:
        spec = spec(srv.url)
        return judge_dataset(summeval_units(n), "summeval", "base", TEMPLATE, spec, cache_dir=tmp_path,
                             progress=False)


def no_logprobs(reply, k):
    return None  # choices[0].logprobs {"content": null}: a server that gives none


def test_a_forced_fallback_stops_with_one_line_naming_the_key(tmp_path):
    with pytest.raises(ScoreFallbackError) as err:
        run(tmp_path, lambda url: remote(url, top_logprobs=5), logprobs=no_logprobs)
    msg = str(err.value)
    assert "\n" not in msg and "judges.fake.allow_score_fallback: true" in msg
    assert f"4 of 4: {NO_LOGPROBS}" in msg and msg.startswith("fake/summeval/base: 4 weighted")
    assert err.value.kind == "score_fallback"
    # the replies are cached: allowing the fallback afterwards sends nothing
    table, usage = run(tmp_path, lambda url: remote(url, top_logprobs=5, allow_score_fallback=True),
                       logprobs=no_logprobs)
    assert usage["requests_sent"] == 0


def test_an_allowed_fallback_is_named_on_each_row_and_takes_the_top_token_score(tmp_path):
    table, usage = run(tmp_path, lambda url: remote(url, top_logprobs=5, allow_score_fallback=True),
                       logprobs=no_logprobs)
    assert (table["score_mode"] == "top_token").all()
    assert (table["score_fallback"] == f"logprob_expectation -> top_token: {NO_LOGPROBS}").all()
    for d in DIMS:
        assert table[d + "_weighted"].tolist() == table[d].astype(float).tolist()
    assert usage["score_modes"] == {"top_token": 4, "fallback": 4}


def test_only_the_units_without_logprobs_fall_back(tmp_path):
    # logprobs for every reply, but one's stop before its first score (its score tokens are not listed)
    def some(reply, k):
        return default_logprobs(reply, k)[:3] if "Relevance: 1" in reply else default_logprobs(reply, k)

    replies = ["Relevance: 1\nConsistency: 2\nFluency: 3\nCoherence: 4"] + \
              ["Relevance: 2\nConsistency: 2\nFluency: 3\nCoherence: 4"] * 3
    order = iter(replies)
    table, _ = run(tmp_path, lambda url: remote(url, top_logprobs=5, allow_score_fallback=True),
                   logprobs=some, reply=lambda m: next(order))
    fell = table["score_fallback"].notna()
    assert fell.sum() == 1 and table.loc[fell, "score_fallback"].iloc[0].endswith(NOT_LISTED)
    assert (table.loc[~fell, "score_mode"] == "logprob_expectation").all()
    assert (table.loc[fell, "score_mode"] == "top_token").all()


@pytest.mark.parametrize("settings, mode", [({}, "top_token"), ({"top_logprobs": 5}, "logprob_expectation"),
                                            ({"samples": 2}, "k_sample_mean")])
def test_each_row_records_the_mode_asked(tmp_path, settings, mode):
    table, usage = run(tmp_path, lambda url: remote(url, **settings), n=2)
    assert (table["score_mode"] == mode).all() and table["score_fallback"].isna().all()
    assert usage["score_modes"] == {mode: len(table), "fallback": 0}
    json.dumps(usage)  # usage.json stays plain JSON


def test_an_invalid_reply_has_no_mode_and_is_no_fallback(tmp_path):
    table, _ = run(tmp_path, lambda url: remote(url, top_logprobs=5), n=1,
                   reply=lambda m: "I'm sorry, but I cannot evaluate this summary.", logprobs=no_logprobs)
    assert table["status"].tolist() == ["invalid"] and table["score_mode"].isna().all()
