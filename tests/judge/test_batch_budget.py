"""batch.max_enqueued_tokens (issue 16): the estimated input tokens of a judge's batches in
flight at once stay within it, chunks beyond it wait for earlier batches to finish, jobs of
one judge share it through the journal, and a batch refused at OpenAI's enqueued-token limit
names the setting. Against the fake server with a batch completion delay; no Snakemake."""
import pytest

from sumjudge.judge.batch import input_tokens
from sumjudge.judge.errors import BatchTokenLimit, FatalJudgeError
from sumjudge.judge.prompts import load_template
from sumjudge.judge.run import plan_requests, submit_batches
from support.fake_openai import FakeOpenAIServer
from test_openai_api_today import TEMPLATE, batch_spec, run, units

DELAY_S = 0.4


def tokens_per_request(df, s) -> list[int]:
    return [input_tokens(p.request) for p in plan_requests(df, "summeval", load_template(TEMPLATE), s)]


def in_flight_intervals(srv) -> dict[str, list[float]]:
    """batch id -> [created, final] from the server's event times."""
    spans: dict[str, list[float]] = {}
    for t, bid, status in srv.batch_events:
        if status == "validating":
            spans[bid] = [t, float("inf")]
        elif status in ("completed", "failed", "expired", "cancelled"):
            spans[bid][1] = t
    return spans


def most_at_once(spans: dict[str, list[float]]) -> int:
    return max(sum(1 for a, b in spans.values() if a <= t < b) for t, _ in spans.values())


@pytest.mark.parametrize("per_budget", [1, 2])
def test_no_more_batches_are_in_flight_than_the_budget_holds(tmp_path, per_budget):
    df = units(6)
    s0 = batch_spec("http://unused", "o-b", max_requests=2)
    per_chunk = max(sum(pair) for pair in zip(*[iter(tokens_per_request(df, s0))] * 2))
    with FakeOpenAIServer(reasoning_models=("o-fake",), batch_delay_s=DELAY_S) as srv:
        s = batch_spec(srv.url, "o-b", max_requests=2, max_enqueued_tokens=per_budget * per_chunk)
        table, usage = run(df, s, tmp_path / "c")
        spans = in_flight_intervals(srv)
        assert srv.batches_created == 3 and srv.requests_received == 0
    assert (table["status"] == "ok").all() and usage["batches_submitted"] == 3
    assert most_at_once(spans) == per_budget  # 1: one after another; 2: two, then the third
    ordered = sorted(spans.values())
    if per_budget == 1:
        assert all(ordered[i + 1][0] >= ordered[i][1] for i in range(len(ordered) - 1))


def test_a_budget_smaller_than_a_chunk_splits_the_chunk(tmp_path):
    df = units(4)
    toks = tokens_per_request(df, batch_spec("http://unused", "o-b"))
    with FakeOpenAIServer(reasoning_models=("o-fake",), batch_delay_s=0.1) as srv:
        table, usage = run(df, batch_spec(srv.url, "o-b", max_enqueued_tokens=max(toks)), tmp_path / "c")
        sizes = [b["request_counts"]["total"] for b in srv.batches.values()]
    assert sizes == [1, 1, 1, 1] and (table["status"] == "ok").all()  # no batch alone over the budget


def test_jobs_of_one_judge_share_the_budget_and_the_waiting_job_submits_what_was_held_back(tmp_path):
    a, b = units(3), units(6).iloc[3:].reset_index(drop=True)  # two jobs, other requests
    budget = max(sum(tokens_per_request(a, batch_spec("http://unused", "o-b"))),
                 sum(tokens_per_request(b, batch_spec("http://unused", "o-b"))))
    with FakeOpenAIServer(reasoning_models=("o-fake",), batch_delay_s=DELAY_S) as srv:
        s = batch_spec(srv.url, "o-b", max_enqueued_tokens=budget)
        first = submit_batches(a, "summeval", "base", TEMPLATE, s, cache_dir=tmp_path / "c")
        second = submit_batches(b, "summeval", "def", TEMPLATE, s, cache_dir=tmp_path / "c")
        assert first["submitted_now"] == 1 and first["chunks_held_back"] == 0
        assert second["submitted_now"] == 0 and second["chunks_held_back"] == 1  # no room: a's batch in flight
        again = submit_batches(a, "summeval", "base", TEMPLATE, s, cache_dir=tmp_path / "c")
        assert again["submitted_now"] == 0 and again["batches"] == first["batches"]  # never paid twice
        table_b, usage_b = run(b, s, tmp_path / "c")  # waits for room, then submits its own
        table_a, usage_a = run(a, s, tmp_path / "c")
        spans = in_flight_intervals(srv)
        assert srv.batches_created == 2 and srv.requests_received == 0
    a_span, b_span = spans[first["batches"][0]], spans[next(i for i in spans if i != first["batches"][0])]
    assert b_span[0] >= a_span[1]  # b's batch was created only once a's had finished
    assert (table_a["status"] == "ok").all() and (table_b["status"] == "ok").all()
    # each table counts the batch made for it: a's by its submit step, b's by itself
    assert usage_a["batches_submitted"] == 1 and usage_b["batches_submitted"] == 1


@pytest.mark.parametrize("budget", [None, 50000])
def test_a_batch_refused_at_the_enqueued_token_limit_names_max_enqueued_tokens(tmp_path, budget):
    with FakeOpenAIServer(reasoning_models=("o-fake",), batch_outcomes=["token_limit"]) as srv:
        with pytest.raises(FatalJudgeError, match="enqueued-token limit") as err:
            run(units(3), batch_spec(srv.url, "o-b", max_enqueued_tokens=budget), tmp_path / "c")
    msg = str(err.value)
    now = "null, no limit" if budget is None else str(budget)
    assert f"set judges.o-b.batch.max_enqueued_tokens (now {now}) below that limit" in msg
    assert isinstance(err.value, BatchTokenLimit) and err.value.kind == "batch_token_limit"


def test_a_journal_batch_the_server_does_not_know_does_not_count_against_the_budget(tmp_path):
    from sumjudge.judge.batch import Journal
    with FakeOpenAIServer(reasoning_models=("o-fake",), batch_delay_s=0.1) as srv:
        Journal(tmp_path / "c/batches").write({"chunk_id": "0" * 32, "judge": "o-b", "base_url": srv.url.rstrip("/"),
                                               "keys": ["k" * 64], "state": "submitted", "batch_id": "batch_gone",
                                               "est_tokens": 10 ** 9})  # e.g. made with another organisation's key
        table, usage = run(units(2), batch_spec(srv.url, "o-b", max_enqueued_tokens=100000), tmp_path / "c")
    assert (table["status"] == "ok").all() and usage["batches_submitted"] == 1
