"""Where an embedded judge's reply time goes, unit by unit, beside the machine's limit
(a benchmark, not a test; docs/judge.md, "The embedded judge's time").

For the slice's SummEval units (``--docs`` documents x 16 systems, each prompt variant of
``--variants``), in the order the judge sends them (:func:`sumjudge.judge.run.plan_requests`,
article order), with the judge's own request fields:

1. **Limit**: the same model, threads and batch size in a bare llama.cpp loop: the prompt
   processing rate (a real first-of-document prompt, evaluated from an empty cache) and the
   decoding rate (one token at a time, no sampling).
2. **In process**: each request through llama-cpp-python's chat completion with this
   project's server patches (sumjudge.judge.llama_server), split by llama.cpp's own counters
   into prompt tokens processed vs reused from the cache, prompt-processing ms, decoding ms,
   and the rest (sampling, the logprobs' top-k, detokenising). Run twice, with and without
   logprobs: the difference is the logprobs' cost.
3. **Server**: the same requests, in the same order, through the judge's llama.cpp server over
   HTTP; its wall time minus the in-process wall time is the round trip.

Each unit's limit is its own batches at the bare loop's rates (:func:`limit_ms`): for a free
reply ``processed / pp_rate + decoded / tg_rate``; a grammar answer's one small batch per answer
slot is charged a decoding step's fixed cost each.

    .venv/bin/python benchmarks/embedded_split.py --data results/data/summeval.parquet
    .venv/bin/python benchmarks/embedded_split.py --data ... --docs 1 --variants base def --judge qwen-1.5b
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as the judge's server (sumjudge.judge.embedded._server_env)

from sumjudge import datasets as ds
from sumjudge.judge import llama_server
from sumjudge.judge.embedded import llama_server as serve
from sumjudge.judge.embedded import model_file
from sumjudge.judge.prompts import load_template
from sumjudge.judge.run import plan_requests
from sumjudge.judge.spec import judge_specs
from judge_throughput import summeval_units  # the same units as the throughput benchmark


def load_llama(path: Path, server: dict):
    llama_server._patch_model_params(bool(server.get("extra_buffers", False)))
    llama_server._patch_sparse_logprobs()
    from llama_cpp import Llama

    return Llama(model_path=str(path), n_ctx=server["n_ctx"], n_threads=server["n_threads"],
                 n_threads_batch=server["n_threads"], n_batch=server["n_batch"], logits_all=server["logits_all"],
                 chat_format=server.get("chat_format"), verbose=False)


def perf(llm) -> dict[str, float]:
    import llama_cpp

    llama_cpp.llama_synchronize(llm._ctx.ctx)  # the counters of evaluations still in flight are added here
    d = llama_cpp.llama_perf_context(llm._ctx.ctx)
    return {"pp_n": d.n_p_eval, "pp_ms": d.t_p_eval_ms, "tg_n": d.n_eval, "tg_ms": d.t_eval_ms}


def limit(llm, tokens: list[int], decode_steps: int = 16, repeats: int = 2) -> dict[str, float]:
    """Bare prompt-processing and decoding rates (tokens/s), medians of ``repeats``."""
    pp, tg = [], []
    for _ in range(repeats):
        llm.reset()
        llm._ctx.kv_cache_clear()
        t = time.perf_counter()
        llm.eval(tokens)
        pp.append(len(tokens) / (time.perf_counter() - t))
        t = time.perf_counter()
        for _ in range(decode_steps):
            llm.eval([tokens[-1]])
        tg.append(decode_steps / (time.perf_counter() - t))
    llm.reset()
    llm._ctx.kv_cache_clear()
    return {"pp_tok_s": statistics.median(pp), "tg_tok_s": statistics.median(tg), "pp_tokens": len(tokens)}


def chat_kwargs(params: dict, logprobs: bool) -> dict:
    kw = {k: v for k, v in params.items() if k not in ("model", "extra_body", "logprobs", "top_logprobs")}
    kw.update(params.get("extra_body") or {})
    if logprobs and params.get("top_logprobs"):
        kw.update(logprobs=True, top_logprobs=params["top_logprobs"])
    if kw.get("grammar"):  # answer: grammar (the server turns the body's string into this object too)
        from llama_cpp import LlamaGrammar
        kw["grammar"] = LlamaGrammar.from_string(kw["grammar"], verbose=False)
    return kw


def counting_batches(llm) -> list[int]:
    """Record the size of every batch llama.cpp evaluates (``Llama.eval`` splits a call into
    ``n_batch`` chunks): a free reply's prompt and then one token a step, a grammar answer's
    prompt and then one batch per answer slot."""
    sizes: list[int] = []
    plain = llm.eval

    def eval_counted(tokens):
        tokens = list(tokens)
        sizes.extend(min(llm.n_batch, len(tokens) - i) for i in range(0, len(tokens), llm.n_batch))
        return plain(tokens)

    llm.eval = eval_counted
    return sizes


def in_process(llm, requests: list, logprobs: bool) -> list[dict]:
    llm.reset()
    llm._ctx.kv_cache_clear()
    sizes = counting_batches(llm)
    rows = []
    for r in requests:
        sizes.clear()
        before = perf(llm)  # llama.cpp's counters add up: this request's share is the difference
        t = time.perf_counter()
        out = llm.create_chat_completion(messages=r.messages, **chat_kwargs(r.params, logprobs))
        wall = time.perf_counter() - t
        p = {k: v - before[k] for k, v in perf(llm).items()}
        usage = out["usage"]
        rows.append({"prompt_tokens": usage["prompt_tokens"], "processed": p["pp_n"],
                     "reused": usage["prompt_tokens"] - p["pp_n"], "completion_tokens": usage["completion_tokens"],
                     "pp_ms": p["pp_ms"], "tg_n": p["tg_n"], "tg_ms": p["tg_ms"], "wall_ms": wall * 1000,
                     "batches": len(sizes), "batched_tokens": sum(sizes),
                     "reply": out["choices"][0]["message"]["content"]})
        print(f"  unit {len(rows)}: {json.dumps({k: v for k, v in rows[-1].items() if k != 'reply'})}", flush=True)
    del llm.eval  # the class's own again
    return rows


def through_server(path: Path, alias: str, server: dict, requests: list) -> list[float]:
    import httpx

    walls = []
    with serve(path, alias, server) as running, httpx.Client(timeout=900) as client:
        for r in requests:
            body = {k: v for k, v in r.params.items() if k != "extra_body"}
            body.update(r.params.get("extra_body") or {})
            t = time.perf_counter()
            resp = client.post(f"{running.url}/chat/completions", json={**body, "messages": r.messages})
            walls.append((time.perf_counter() - t) * 1000)
            resp.raise_for_status()
    return walls


def limit_ms(rows: pd.DataFrame, lim: dict) -> pd.Series:
    """Each unit's limit: its batches at the bare loop's rates. A batch costs a fixed part and a
    part per token: one decoded token (a batch of 1) takes ``1 / tg``, a long prompt ``b / pp``, so
    a batch of ``b`` tokens takes ``(1 / tg - 1 / pp) + b / pp``. A free reply (one prompt batch,
    then one token a step) comes to ``processed / pp + decoded / tg``, the earlier formula; a
    grammar answer's small per-slot batches are charged their fixed part too."""
    fixed = 1 / lim["tg_tok_s"] - 1 / lim["pp_tok_s"]
    return (rows["batches"] * fixed + rows["batched_tokens"] / lim["pp_tok_s"]) * 1000


def summarise(rows: pd.DataFrame, lim: dict) -> dict[str, float]:
    first = rows["reused"] < rows["prompt_tokens"] * 0.5
    lim_ms = limit_ms(rows, lim)
    return {"units": len(rows), "wall_s_per_unit": rows["wall_ms"].mean() / 1000,
            "median_wall_s": rows["wall_ms"].median() / 1000,
            "prompt_tokens_median": rows["prompt_tokens"].median(),
            "processed_median_first_of_doc": rows.loc[first, "processed"].median(),
            "processed_median_rest": rows.loc[~first, "processed"].median(),
            "completion_tokens_median": rows["completion_tokens"].median(),
            "pp_tok_s": rows["processed"].sum() / rows["pp_ms"].sum() * 1000,
            "tg_tok_s": rows["tg_n"].sum() / rows["tg_ms"].sum() * 1000 if rows["tg_ms"].sum() else float("nan"),
            "batches_median": rows["batches"].median(),
            "share_pp": rows["pp_ms"].sum() / rows["wall_ms"].sum(),
            "share_tg": rows["tg_ms"].sum() / rows["wall_ms"].sum(),
            "share_other": 1 - (rows["pp_ms"].sum() + rows["tg_ms"].sum()) / rows["wall_ms"].sum(),
            "limit_s_per_unit": lim_ms.mean() / 1000,
            "x_limit": rows["wall_ms"].sum() / lim_ms.sum()}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=REPO / "results/data/summeval.parquet",
                    help="the slice's SummEval table (else prepared from --mirror)")
    ap.add_argument("--mirror", type=Path, default=REPO.parent / "shared/data")
    ap.add_argument("--docs", type=int, default=1, help="first N documents of the table")
    ap.add_argument("--systems", type=int, default=16, help="first N summaries of each document")
    ap.add_argument("--variants", nargs="+", default=["base"])
    ap.add_argument("--judge", default="qwen-1.5b", help="a judge of --config")
    ap.add_argument("--config", action="append", default=[str(REPO / "config.yaml")],
                    help="config files, merged in order (judges.<name> of the last wins)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=YAML",
                    help="override a key of the judge, e.g. server={n_threads: 2, n_batch: 256}")
    ap.add_argument("--no-server", action="store_true", help="skip part 3 (the HTTP round trip)")
    ap.add_argument("--no-plain", action="store_true", help="skip the run without logprobs")
    ap.add_argument("--only-server", action="store_true", help="part 3 only: the judge's server over HTTP")
    ap.add_argument("--json", help="write every unit's row here")
    a = ap.parse_args(argv)

    judges: dict = {}
    for f in a.config:
        judges.update((yaml.safe_load(Path(f).read_text()) or {}).get("judges") or {})
    block = dict(judges[a.judge])
    for kv in a.set:
        key, value = kv.split("=", 1)
        block[key] = yaml.safe_load(value)
    spec = judge_specs({"judges": {a.judge: block}})[a.judge]
    server = spec.server.to_params()
    path = model_file(spec)

    df = summeval_units(a.docs, a.systems, a.data, a.mirror)
    dataset = ds.get("summeval")
    docs = df[dataset.doc_column].unique()
    requests = [p.request for v in a.variants
                for p in plan_requests(df, dataset, load_template(REPO / dataset.prompt_file(v)), spec)]
    print(f"judge {a.judge}: {path.name}, n_threads {server['n_threads']}, n_batch {server['n_batch']}; "
          f"{len(requests)} requests ({len(docs)} docs x variants {a.variants})", flush=True)

    if a.only_server:
        walls = through_server(path, spec.model, server, requests)
        print(f"server: {sum(walls) / len(walls) / 1000:.3f} s/unit (mean), first {walls[0] / 1000:.1f} s, the rest "
              f"median {statistics.median(walls[1:]) / 1000:.3f} s", flush=True)
        return
    llm = load_llama(path, server)
    first = llm.tokenize("\n".join(m["content"] for m in requests[0].messages).encode())
    lim = limit(llm, first)
    print("limit (bare llama.cpp loop): " + json.dumps({k: round(v, 1) for k, v in lim.items()}), flush=True)

    rows = pd.DataFrame(in_process(llm, requests, logprobs=True))
    s = summarise(rows, lim)
    print("with logprobs: " + json.dumps({k: round(float(v), 3) for k, v in s.items()}), flush=True)
    if not a.no_plain:
        plain = pd.DataFrame(in_process(llm, requests, logprobs=False))
        p = summarise(plain, lim)
        print("without logprobs: " + json.dumps({k: round(float(v), 3) for k, v in p.items()}), flush=True)
        print(f"logprobs' cost: {(rows['wall_ms'].sum() - plain['wall_ms'].sum()) / len(rows):.0f} ms/unit; "
              f"same replies: {(rows['reply'] == plain['reply']).mean():.3f}", flush=True)
    del llm
    if not a.no_server:
        walls = through_server(path, spec.model, server, requests)
        rt = [w - r for w, r in zip(walls, rows["wall_ms"])]
        print(f"server: {sum(walls) / len(walls) / 1000:.3f} s/unit; round trip (server - in process) median "
              f"{statistics.median(rt):.0f} ms, mean {sum(rt) / len(rt):.0f} ms", flush=True)
    if a.json:
        rows.to_json(a.json, orient="records", lines=True)


if __name__ == "__main__":
    main()
