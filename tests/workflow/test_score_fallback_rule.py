"""Issue 36 item 6 through Snakemake: the fake OpenAI server answers without logprobs, so a judge that
asks for weighted Likert scores would silently fall back to top-token scores; rule judge stops with one
line naming judges.<name>.allow_score_fallback, and with that key set it writes the table with 0 new
requests, the fallback named on every row."""
import json

import pandas as pd
import pytest

from support import harness
from support.fake_openai import FakeOpenAIServer
from support.harness import fake_judge, write_config

pytestmark = pytest.mark.slow
TARGET = "results/judge/fake/summeval/base.parquet"
KEY = "sk-test-fallback"


def run(wd, mirror, config):
    write_config(wd / "fake.yaml", config)
    return harness.snakemake(wd, "--cores", "1", TARGET, configfiles=[harness.CONFIG, harness.SLICE, wd / "fake.yaml"],
                             config=[f"mirror={mirror}"], timeout=900, cwd=wd,
                             env=harness.workflow_env(OPENAI_API_KEY=KEY))


def test_a_forced_fallback_stops_the_rule_with_one_line_naming_the_key(tmp_path, mirror):
    with FakeOpenAIServer(logprobs=lambda reply, k: None) as srv:  # "logprobs": {"content": null}
        judge = fake_judge(srv, top_logprobs=5)
        out = run(tmp_path, mirror, {"judges": {"fake": judge}, "judge": {"run": ["fake"]}})
        assert out.returncode != 0
        errors = [line for line in (tmp_path / "logs/judge/fake/summeval/base.log").read_text().splitlines()
                  if "ERROR" in line]
        assert len(errors) == 1 and "set judges.fake.allow_score_fallback: true" in errors[0], errors
        assert "48 of 48: the reply came without logprobs" in errors[0]
        assert "judges.fake.allow_score_fallback" in out.stderr and not (tmp_path / TARGET).exists()
        sent = srv.requests_received
        out = run(tmp_path, mirror, {"judges": {"fake": {**judge, "allow_score_fallback": True}},
                                     "judge": {"run": ["fake"]}})
        assert out.returncode == 0, out.stderr[-3000:]
        assert srv.requests_received == sent  # the replies were cached before the stop
    table = pd.read_parquet(tmp_path / TARGET)
    assert (table["score_mode"] == "top_token").all() and table["score_fallback"].str.endswith("logprobs").all()
    usage = json.loads((tmp_path / TARGET.replace(".parquet", ".usage.json")).read_text())
    assert usage["requests_sent"] == 0 and usage["score_modes"]["fallback"] == 48
