"""JudgeSettings (sumjudge.judge.spec): one typed, frozen object per judge that keeps
today's settings dict for Snakemake, sends its request fields from its own field list,
agrees with the config schema key for key and type, and prices replies with one formula.
The response cache's legacy keys belong to a cache, not to the module."""
from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
import yaml

from support.harness import REPO

from sumjudge.judge.cache import LegacyKeys, ResponseCache, make_entry, request_key
from sumjudge.judge.spec import (BATCH_DEFAULTS, BATCH_OPTIONAL_KEYS, EMBEDDED_SERVER_DEFAULTS, JUDGE_DEFAULTS,
                                 OPTIONAL_KEYS, PARAM_KEYS, JudgeSettings, judge_spec)

REMOTE = {"model": "m", "base_url": "http://x/v1"}

# the dict every earlier version passed to a judge job for REMOTE (Snakemake compares it)
REMOTE_DICT = {
    "model": "m", "base_url": "http://x/v1", "api_key_env": None, "embedded": None, "temperature": 0.0,
    "max_tokens": 256, "max_completion_tokens": None, "reasoning_effort": None, "top_p": None, "seed": 0,
    "samples": 1, "top_logprobs": None, "extra_body": {}, "price_input_per_1k": None,
    "price_cached_input_per_1k": None, "price_output_per_1k": None, "batch_price_factor": 0.5, "mode": "live",
    "batch": {"poll_s": 30, "window": "24h", "max_requests": 50000, "max_bytes": 200000000, "wait": True,
              "fallback": "resubmit"},
    "rate_limit_group": None, "max_concurrency": 1, "requests_per_minute": None, "tokens_per_minute": None,
    "timeout_s": 120.0, "max_retries": 6, "backoff_base_s": 1.0, "backoff_max_s": 60.0, "server": {},
    "cache_identity": None, "name": "j"}


def test_the_settings_dict_is_todays_and_round_trips():
    s = judge_spec("j", REMOTE)
    assert repr(s.to_params()) == repr(REMOTE_DICT)  # same keys, order and values: no Snakemake rerun
    back = JudgeSettings.from_params(s.to_params())
    assert back == s and repr(back.to_params()) == repr(REMOTE_DICT)
    assert JudgeSettings.of(s) is s and JudgeSettings.of(REMOTE_DICT) == s
    # optional keys appear only when set, after the others, as before
    d = judge_spec("j", {**REMOTE, "price_per_hour": 2}).to_params()
    assert list(d)[-2:] == ["price_per_hour", "name"] and "scores" not in d


def test_fields_are_typed_once_and_frozen():
    s = judge_spec("e", {"model": "q", "embedded": "qwen2.5-coder-0.5b-instruct", "temperature": 0,
                         "timeout_s": 5, "max_concurrency": 2, "server": {"n_threads": 3}, "batch": {"poll_s": 1}})
    assert s.timeout_s == 5.0 and isinstance(s.timeout_s, float) and s.max_concurrency == 2
    assert s.server.n_threads == 3 and s.server.n_ctx == 8192 and s.batch.poll_s == 1.0
    # a request field keeps what config gave: `temperature: 0` was sent (and keyed) as the integer 0
    assert s.request_params(0)["temperature"] == 0 and isinstance(s.request_params(0)["temperature"], int)
    assert s.to_params()["timeout_s"] == 5 and s.to_params()["server"]["n_threads"] == 3
    assert s.price_input_per_1k == 0.0 and s.priced  # embedded: a known price of 0
    assert judge_spec("r", REMOTE).server is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.max_concurrency = 3


def _schema_judge() -> dict:
    schema = yaml.safe_load((REPO / "workflow/schemas/config.schema.yaml").read_text())
    return schema["properties"]["judges"]["additionalProperties"]["properties"]


SCHEMA_TYPES = {"int": "integer", "int | None": "integer", "float": "number", "float | None": "number",
                "bool": "boolean", "str": "string", "str | None": "string"}


@pytest.mark.parametrize("cls, props", [
    (JudgeSettings, lambda p: p), (type(judge_spec("j", REMOTE).batch), lambda p: p["batch"]["properties"]),
    (type(judge_spec("e", {"model": "q", "embedded": "qwen2.5-coder-0.5b-instruct"}).server),
     lambda p: p["server"]["properties"])])
def test_every_setting_has_its_schema_line_of_the_same_type(cls, props):
    schema = props(_schema_judge())
    keys = {f.name for f in dataclasses.fields(cls)} - {"name", "source"}
    assert keys == set(schema)
    for f in dataclasses.fields(cls):
        if f.type in SCHEMA_TYPES and "type" in schema.get(f.name, {}):
            types = schema[f.name]["type"]
            assert SCHEMA_TYPES[f.type] in (types if isinstance(types, list) else [types]), f.name
    assert set(JUDGE_DEFAULTS) | set(OPTIONAL_KEYS) == set(_schema_judge())
    assert set(BATCH_DEFAULTS) | set(BATCH_OPTIONAL_KEYS) == set(_schema_judge()["batch"]["properties"])
    assert set(EMBEDDED_SERVER_DEFAULTS) == set(_schema_judge()["server"]["properties"])


SET = {"temperature": 0.7, "max_tokens": None, "max_completion_tokens": 99, "reasoning_effort": "low",
       "top_p": 0.5, "seed": 3, "top_logprobs": 4, "extra_body": {"repeat_penalty": 1.1}}


def test_request_fields_are_sent_in_order_from_the_field_list():
    s = judge_spec("j", {**REMOTE, **SET})
    assert s.request_params(2) == {"model": "m", "temperature": 0.7, "max_completion_tokens": 99,
                                   "reasoning_effort": "low", "top_p": 0.5, "seed": 5, "logprobs": True,
                                   "top_logprobs": 4, "extra_body": {"repeat_penalty": 1.1}}
    assert list(s.request_params(0)) == ["model", "temperature", "max_completion_tokens", "reasoning_effort",
                                         "top_p", "seed", "logprobs", "top_logprobs", "extra_body"]
    # an error the server gives about any field sent names the config key that set it
    sent = {k for k in s.request_params(0) if k != "extra_body"}
    assert sent <= set(PARAM_KEYS) and PARAM_KEYS["logprobs"] == "top_logprobs"
    assert PARAM_KEYS["max_tokens"] == "max_tokens" and set(PARAM_KEYS.values()) <= set(JUDGE_DEFAULTS) | set(OPTIONAL_KEYS)
    plain = judge_spec("j", {**REMOTE, "temperature": None, "max_tokens": None, "seed": None})
    assert plain.request_params(0) == {"model": "m"}


def test_one_cost_formula_live_batch_cached_input():
    s = judge_spec("p", {**REMOTE, "price_input_per_1k": 2.0, "price_cached_input_per_1k": 0.5,
                         "price_output_per_1k": 8.0, "batch_price_factor": 0.4})
    # 1000 prompt tokens of which 400 cached, 100 completion tokens (30 of them reasoning)
    usage = {"prompt_tokens": 1000, "completion_tokens": 100, "prompt_tokens_details": {"cached_tokens": 400},
             "completion_tokens_details": {"reasoning_tokens": 30}}
    live = (600 * 2.0 + 400 * 0.5 + 100 * 8.0) / 1000  # 2.2 USD
    assert s.cost(usage) == pytest.approx(2.2) == pytest.approx(live)
    assert s.cost(usage, "batch") == pytest.approx(2.2 * 0.4)
    assert s.token_cost(1000, 100, 400, "live") == s.cost(usage)
    assert s.token_cost(1000, 100, 5000) == pytest.approx(s.token_cost(1000, 100, 1000))  # cached <= prompt
    assert judge_spec("q", REMOTE).cost(usage) is None and not judge_spec("q", REMOTE).priced


def test_legacy_keys_belong_to_a_cache(tmp_path):
    spec = judge_spec("j", {"model": "m", "base_url": "http://x/v1/"})
    ident = {"server": spec.server_identity(), "messages": [{"role": "user", "content": "hi"}],
             "params": spec.request_params(0), "sample": 0}
    old_ident = {**ident, "server": {"base_url": "http://x/v1"}}  # the key before base URLs were normalised
    old = request_key(old_ident)
    ResponseCache(tmp_path).put(old, make_entry(old, old_ident, {"choices": [{"message": {"content": "4"}}]}, 0.1))
    legacy = LegacyKeys()
    legacy.remember(ident, spec)
    assert legacy.old_keys(request_key(ident)) == (old,)
    assert ResponseCache(tmp_path).get(request_key(ident)) is None  # another cache has learnt nothing
    cache = ResponseCache(tmp_path, legacy)
    entry = cache.get(request_key(ident))
    assert entry["migrated_from"] == old and entry["request"] == ident and cache.migrated == 1
    assert ResponseCache(tmp_path).get(request_key(ident))["reply"] == "4"  # copied under the new key


def test_the_cache_does_not_import_its_command():
    code = ("import sys, sumjudge.judge.cache; "
            "assert 'sumjudge.judge.cache_cli' not in sys.modules, 'cache imports cache_cli'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
    out = subprocess.run([sys.executable, "-m", "sumjudge.judge.cache", "--help"], capture_output=True, text=True,
                         cwd=REPO)
    assert out.returncode == 0 and "stats,verify,prune,export" in out.stdout


def test_cache_stats_price_old_entries_with_the_same_formula(tmp_path):
    """An entry written before entries stored their cost is priced by the cache command
    as usage.json would price it: cached input at its price, a batch reply at the factor."""
    import pandas as pd

    from sumjudge.io import write_parquet
    from sumjudge.judge.cache_cli import stats

    prices = {"price_input_per_1k": 2.0, "price_cached_input_per_1k": 0.5, "price_output_per_1k": 8.0}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({"judges": {"j": {**REMOTE, **prices}}}))
    ident = {"server": {"api": "http://x/v1"}, "messages": [{"role": "user", "content": "hi"}],
             "params": {"model": "m"}, "sample": 0}
    key = request_key(ident)
    usage = {"prompt_tokens": 1000, "completion_tokens": 100, "prompt_tokens_details": {"cached_tokens": 400}}
    entry = make_entry(key, ident, {"choices": [{"message": {"content": "4"}}], "usage": usage}, 0.1, via="batch")
    del entry["cost_usd"]
    ResponseCache(tmp_path / "cache").put(key, entry)
    write_parquet(pd.DataFrame({"request_key": [key]}), tmp_path / "results/judge/j/summeval/base.parquet", {})
    [row] = stats(str(tmp_path / "cache"), str(tmp_path / "results"), str(tmp_path / "config.yaml"))
    assert row["judge"] == "j" and row["via"] == "batch"
    assert row["cost_usd"] == pytest.approx((600 * 2.0 + 400 * 0.5 + 100 * 8.0) / 1000 * 0.5)  # 1.1 USD


def test_changed_settings_are_validated_again_and_keep_to_params_true():
    s = judge_spec("j", REMOTE)
    t = s.replace(max_concurrency=4, batch={"wait": False})
    assert t.max_concurrency == 4 and t.to_params()["max_concurrency"] == 4 and t.batch.wait is False
    assert s.max_concurrency == 1  # frozen: the original is unchanged
    with pytest.raises(TypeError, match="settings.replace"):  # its to_params would still say 1
        dataclasses.replace(s, max_concurrency=3)
    with pytest.raises(TypeError, match="from_config"):
        JudgeSettings(name="j", model="m")
