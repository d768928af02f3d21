"""Cache keys do not drift: the keys of a fixed set of requests (every dataset and
prompt variant, three units each, six judge settings) equal the list stored in
tests/fixtures/cache_keys.json, written before the judge package was restructured
(issue 16). A key that changes would make every cached reply a miss and be paid
again, so a change here needs a migration (sumjudge.judge.cache), not a new list.

Regenerate only on purpose: ``python tests/judge/test_cache_keys.py --write``.
"""
from __future__ import annotations

import json
import sys

from support.harness import REPO

STORED = REPO / "tests" / "fixtures" / "cache_keys.json"

SETTINGS = {
    "embedded": {"embedded": "qwen2.5-coder-1.5b-instruct", "model": "qwen2.5-coder-1.5b-instruct"},
    "embedded-plain": {"embedded": "qwen2.5-coder-1.5b-instruct", "model": "qwen2.5-coder-1.5b-instruct",
                       "top_logprobs": None, "samples": 2, "temperature": 1.0},
    "remote": {"model": "gpt-3.5-turbo-0301", "base_url": "https://api.openai.com/v1",
               "api_key_env": "OPENAI_API_KEY"},
    "reasoning": {"model": "o4-mini", "base_url": "https://API.openai.com:443/v1/", "api_key_env": "OPENAI_API_KEY",
                  "temperature": None, "max_tokens": None, "max_completion_tokens": 4000,
                  "reasoning_effort": "low", "seed": None, "mode": "batch"},
    "local": {"model": "llama3", "base_url": "http://localhost:11434/v1", "cache_identity": "ollama-llama3",
              "top_p": 0.9, "top_logprobs": 5, "extra_body": {"repeat_penalty": 1.0}, "seed": 7},
}


def compute(prepared) -> dict[str, list[str]]:
    from sumjudge import datasets as ds
    from sumjudge.judge.prompts import load_template
    from sumjudge.judge.run import plan_requests
    from sumjudge.judge.spec import judge_spec

    out: dict[str, list[str]] = {}
    for name in ds.DATASETS:  # the paper's datasets: the default run's requests
        spec_ds = ds.get(name)
        df = prepared(name).head(3)
        for variant in spec_ds.variants:
            template = load_template(REPO / spec_ds.prompt_file(variant))
            for judge, settings in SETTINGS.items():
                planned = plan_requests(df, spec_ds, template, judge_spec(judge, settings))
                out[f"{name}/{variant}/{judge}"] = [f"{p.request.key} {p.label_key or '-'}" for p in planned]
    return out


def test_cache_keys_equal_the_stored_list(prepared):
    stored = json.loads(STORED.read_text())
    now = compute(prepared)
    assert set(now) == set(stored)
    changed = [k for k in stored if now[k] != stored[k]]
    assert not changed, f"cache keys changed for {changed[:5]} ({len(changed)} of {len(stored)} groups)"
    assert sum(len(v) for v in stored.values()) > 100


if __name__ == "__main__" and "--write" in sys.argv:
    sys.path.insert(0, str(REPO / "tests"))
    import conftest

    cache = {}

    def prepared(name):
        from sumjudge.data.prepare import locate, prepare_dataset, source_files
        if name not in cache:
            inputs = locate(source_files(name, conftest.DEFAULT_OPTIONS), conftest.MIRROR)
            cache[name] = prepare_dataset(name, inputs, conftest.DEFAULT_OPTIONS)
        return cache[name]

    STORED.write_text(json.dumps(compute(prepared), indent=1, sort_keys=True) + "\n")
    print(f"wrote {STORED}")
