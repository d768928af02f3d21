"""Every rule's params are plain values, which Snakemake compares (issue 35 item 2;
docs/sharing.md, "When a rule reruns"): Snakemake records the ``repr`` of each param whose own
type is a builtin one (str, numbers, lists, tuples, dicts, sets, ...) and reruns a job whose
recorded set differs; objects inside such a value are compared by their ``repr`` too, and a
param of any other type is not recorded at all. So every param must be built of plain values
(no objects, no sets: a set's ``repr`` follows the per-process string hash), and its ``repr``
the same in every process. The one param Snakemake must not compare is the manifest's
``invocation`` (the command line; a SimpleNamespace, not recorded on purpose).

And the rerun it buys: a changed ``judges.<name>.price_per_hour`` reruns the leaderboard, and
no judge, table or savings job."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from support import harness

pytestmark = pytest.mark.slow

# the one param not recorded on purpose, and why (workflow/rules/tables.smk, MANIFEST_INVOCATION)
UNRECORDED = {("manifest", "invocation"): "the command line: a -n or --report run must not rerun the manifest"}


def params(workdir, out, configfiles: list, targets: list[str], seed: str) -> dict:
    """Every job's params (tests/support/rule_params.py) under the string-hash seed ``seed``."""
    workdir.mkdir(exist_ok=True)
    res = subprocess.run([sys.executable, str(harness.REPO / "tests/support/rule_params.py"), str(workdir),
                          str(out), "--configfile", *map(str, configfiles), "--target", *targets],
                         capture_output=True, text=True, timeout=600, cwd=workdir,
                         env=harness.workflow_env(PYTHONHASHSEED=seed, PYTHONPATH=str(harness.REPO)))
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(out.read_text())


def new_params_are_recorded(jobs: dict) -> None:
    """The params main gained beside issue 35 are recorded as plain values: the near-constant gate
    of every table rule that flags (tables.near_constant, leaderboard.near_constant_ratio and
    near_constant_sd_ratio), and the savings settings the leaderboard reads its ledger with."""
    gate = "{'threshold': 0.8, 'ratio': 0.5, 'sd_ratio': 0.25}"
    flagging = {key.split()[0]: job["params"]["gate"]["recorded"] for key, job in jobs.items()
                if "gate" in job["params"]}
    assert set(flagging) == {"correlation_table", "accuracy_table", "variants_table", "judge_behaviour"}, flagging
    assert set(flagging.values()) == {gate}, flagging
    savings = jobs["leaderboard {}"]["params"]["savings"]["recorded"]
    assert "'interval': 'pooled'" in savings and "'prior_documents': 3" in savings, savings
    assert savings == jobs["savings {}"]["params"]["settings"]["recorded"]  # the same settings as the ledger's


def beyond_the_default(tmp_path) -> list:
    """A judge of today (remote, priced per hour), a batch judge, an imported one, a jury of two,
    both pairwise orders and the cost estimate: every rule of the workflow has a job."""
    scores = tmp_path / "scores.csv"
    scores.write_text("doc_id,system,dimension,score\n")
    local = {"model": "m", "base_url": "http://127.0.0.1:9/v1", "price_per_hour": 1.5}
    extra = {"judges": {"local": local, "batchy": {"model": "m", "base_url": "https://api.example/v1", "mode": "batch"},
                        "imported": {"scores": {"summeval": str(scores)}},
                        "panel": {"jury": ["local", "batchy"], "aggregate": "median"}},
             "judge": {"run": ["qwen-1.5b", "local", "batchy", "imported", "panel"],
                       "pairwise_orders": ["original", "swapped"]}}
    return [harness.CONFIG, harness.write_config(tmp_path / "beyond.yaml", extra)]


@pytest.mark.parametrize("name", ["default", "beyond"])
def test_every_rules_params_are_plain_and_the_same_in_every_process(tmp_path, name):
    files = [harness.CONFIG] if name == "default" else beyond_the_default(tmp_path)
    targets = ["all"] + ([] if name == "default" else ["results/judge/cost_estimate.csv"])
    first, second = (params(tmp_path / name, tmp_path / f"{seed}.json", files, targets, seed) for seed in ("1", "2"))
    rules = {key.split()[0] for key in first}
    if name == "beyond":  # every rule of the workflow
        assert rules >= {"judge", "judge_batch_submit", "judge_import", "jury", "jury_summary", "savings",
                         "leaderboard", "judge_cost_estimate", "manifest", "overview", "prepare_dataset", "fetch"}
    every = [(key.split()[0], p, v) for key, job in first.items() for p, v in job["params"].items()]
    assert sorted({(rule, p) for rule, p, v in every if not v["plain"]}) == sorted(UNRECORDED)
    assert sorted({(rule, p) for rule, p, v in every if v["recorded"] is None}) == sorted(UNRECORDED)
    assert first == second  # the same reprs under two string-hash seeds: no spurious rerun
    if name == "default":
        new_params_are_recorded(first)
    print(f"\n{name}: {len(first)} jobs of {len(rules)} rules, {len(every)} params, every one plain "
          f"but {sorted(UNRECORDED)}")


def test_a_changed_price_per_hour_reruns_the_leaderboard_and_no_judge_table_or_savings_job(tmp_path, mirror):
    """A finished run of two imported judges on SummEval's first 12 documents, one of them a
    local server's (priced per hour); then `snakemake -n` with its price_per_hour changed:
    the leaderboard reruns because its params changed (the price), and no judge, table or
    savings job does. The manifest records the config (its param config_sha256 changes with
    any key) and the overview prints the manifest: they are rebuilt too, as on every change
    of the config."""
    judges = harness.imported_judges(tmp_path, mirror, 12, {"copy": 0.2, "noisy": 1.5})
    judges["copy"].update(base_url="http://127.0.0.1:8000/v1", price_per_hour=1.0)  # a local vLLM's scores
    cfg = {"mirror": str(mirror), "datasets": ["summeval"], "subset": {"summeval": {"docs": 12}},
           "metrics": {"run": []}, "rouge": {"datasets": []}, "judges": judges,
           "judge": {"run": ["copy", "noisy"], "datasets": ["summeval"], "summeval_variants": ["base"]},
           "tables": {"bootstrap_resamples": 50, "permutation_resamples": 50},
           "savings": {"n_labelled": [4, 8], "resamples": 20, "summary_n": 4}}
    files = [harness.CONFIG, harness.write_config(tmp_path / "run.yaml", cfg)]
    res = harness.snakemake(tmp_path, "--cores", "2", configfiles=files, timeout=1800, env=harness.workflow_env(),
                            cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]

    def snakemake(price: float, *args: str) -> str:
        extra = harness.write_config(tmp_path / "price.yaml", {"judges": {"copy": {"price_per_hour": price}}})
        r = harness.snakemake(tmp_path, *args, "--cores", "1", configfiles=[*files, extra], timeout=600,
                              env=harness.workflow_env(), cwd=tmp_path)
        assert r.returncode == 0, r.stderr[-3000:]
        return r.stdout + r.stderr

    assert "Nothing to be done" in snakemake(1.0, "-n")
    changed = snakemake(2.0, "-n")
    reruns = set(re.findall(r"^(?:local)?rule (\w+):", changed, re.M)) - {"all"}
    assert reruns == {"leaderboard", "manifest", "overview"}, changed[-4000:]
    # whose own params changed (a dry run names one reason per job: the leaderboard's, its manifest input)
    jobs = params(tmp_path, tmp_path / "jobs.json", [*files, tmp_path / "price.yaml"], ["all"], "0")
    own = {key.split()[0] for key, job in jobs.items() if job["changed"]}
    assert own == {"leaderboard", "manifest"}, own  # the leaderboard's pricing; the manifest's config_sha256
    pricing = jobs["leaderboard {}"]["params"]["pricing"]["recorded"]
    assert "'copy': {'local': True, 'price_per_hour': 2.0}" in pricing, pricing
    print(f"\nprice_per_hour 1.0 -> 2.0 reruns {sorted(reruns)}; params changed: {sorted(own)}")
