"""Issue 8's "Must show" through Snakemake on tests/slice.yaml, with the fake server
standing in for a reasoning model of today: temperature 0 stops after one request;
configured right every unit is ok and usage.json shows cached and reasoning tokens;
mode: batch sends no live request, costs the batch factor, and a rerun sends nothing."""
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from support import harness
from support.fake_openai import FakeOpenAIServer

pytestmark = pytest.mark.system("rouge-perl")  # tests/support/system.py NEEDS

KEY = "sk-today-0123456789abcdef"
RUNS = [("summeval", v) for v in ("base", "def", "def_ins", "sys_prompt")] + \
       [(d, "base") for d in ("newsroom", "tldr", "realsumm", "qags_cnn", "qags_xsum")]
PRICES = {"price_input_per_1k": 0.002, "price_output_per_1k": 0.008}
REASONING = {"model": "o-fake", "api_key_env": "OPENAI_API_KEY", "temperature": None, "max_tokens": None,
             "max_completion_tokens": 2000, "reasoning_effort": "low", "seed": None, "max_concurrency": 4, **PRICES}


def targets(judge):
    return [f"results/judge/{judge}/{d}/{v}.{ext}" for d, v in RUNS for ext in ("parquet", "usage.json")]


def snakemake(workdir: Path, mirror: Path, *args: str):
    return harness.snakemake(workdir, "--cores", "2", *args,
                             configfiles=[harness.CONFIG, harness.SLICE, workdir / "today.yaml"],
                             config=[f"mirror={mirror}"], timeout=1200, env=harness.workflow_env(OPENAI_API_KEY=KEY),
                             cwd=workdir)


def usage(workdir, judge, dataset, variant):
    return json.loads((workdir / f"results/judge/{judge}/{dataset}/{variant}.usage.json").read_text())


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer(reasoning_models=("o-fake",), api_key=KEY, prompt_cache_min_tokens=256,
                          prompt_cache_block=64) as srv:
        yield srv


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, server):
    wd = tmp_path_factory.mktemp("judge-today")
    cfg = {"judges": {"o-mini": {**REASONING, "base_url": server.url, "temperature": 0},
                      "o-live": {**REASONING, "base_url": server.url},
                      # seed 1: other cache keys than o-live's (the fake's replies do not depend on it)
                      "o-batch": {**REASONING, "base_url": server.url, "seed": 1, "mode": "batch",
                                  "batch": {"poll_s": 0.05}}},
           "judge": {"run": ["o-live"]}}
    (wd / "today.yaml").write_text(yaml.safe_dump(cfg))
    return wd


def test_temperature_zero_stops_after_one_request(workdir, mirror, server):
    before = server.requests_received
    out = snakemake(workdir, mirror, "results/judge/o-mini/qags_xsum/base.parquet")
    assert out.returncode != 0
    assert server.requests_received - before == 1
    log = (workdir / "logs/judge/o-mini/qags_xsum/base.log").read_text()
    assert "judges.o-mini.temperature: this model accepts no temperature; set it to null" in log
    assert not (workdir / "results/judge/o-mini/qags_xsum/base.parquet").exists()


def test_configured_right_every_unit_is_ok_with_cached_and_reasoning_tokens(workdir, mirror, server):
    before = server.requests_received
    out = snakemake(workdir, mirror, *targets("o-live"))
    assert out.returncode == 0, out.stderr[-4000:]
    sent = cached = reasoning = 0
    for dataset, variant in RUNS:
        t = pd.read_parquet(workdir / f"results/judge/o-live/{dataset}/{variant}.parquet")
        assert (t["status"] == "ok").all(), (dataset, variant, t["invalid_reason"].value_counts())
        u = usage(workdir, "o-live", dataset, variant)
        assert u["reasoning_tokens"] == 64 * u["replies_received"]  # the fake's effort-low spend
        assert u["total_cached_input_tokens"] == int(t["cached_input_tokens"].sum())
        sent += u["requests_sent"]
        cached += u["cached_input_tokens"]
        reasoning += u["reasoning_tokens"]
    assert server.requests_received - before == sent
    assert cached > 0 and reasoning > 0
    print(f"\nslice, o-live: {sent} requests, {cached} cached input tokens, {reasoning} reasoning tokens")


def test_batch_mode_sends_no_live_request_and_a_rerun_sends_nothing(workdir, mirror, server):
    live_before, batches_before = server.requests_received, server.batches_created
    out = snakemake(workdir, mirror, *targets("o-batch"))
    assert out.returncode == 0, out.stderr[-4000:]
    assert server.requests_received == live_before  # zero live chat requests
    created = server.batches_created - batches_before
    assert created == len(RUNS)  # one per rule
    for dataset, variant in RUNS:
        t = pd.read_parquet(workdir / f"results/judge/o-batch/{dataset}/{variant}.parquet")
        assert (t["status"] == "ok").all() and (t["via"] == "batch").all()
        u, live = usage(workdir, "o-batch", dataset, variant), usage(workdir, "o-live", dataset, variant)
        assert u["batches_submitted"] == 1 and u["requests_sent"] == 0
        # same prompts, same tokens (cached prefixes priced as input): half the live cost
        assert u["cost_usd"] == pytest.approx(0.5 * live["cost_usd"], rel=1e-6)
    calls = sum(server.calls.values())
    shutil.rmtree(workdir / "results/judge/o-batch")
    out = snakemake(workdir, mirror, *targets("o-batch"))
    assert out.returncode == 0, out.stderr[-4000:]
    assert sum(server.calls.values()) == calls and server.batches_created - batches_before == created
    assert all(usage(workdir, "o-batch", d, v)["batches_submitted"] == 0 for d, v in RUNS)
    print(f"\nslice, o-batch: {created} batches, 0 live requests; rerun: 0 calls")
