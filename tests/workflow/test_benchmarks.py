"""Every script in benchmarks/ runs at its smallest size and prints its figures
(a smoke test: the figures themselves are the benchmarks' business, not the tests')."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from support import alttest_format, family_results
from support.harness import REPO

# script -> (arguments for its smallest run, patterns its output must hold)
SMALLEST = {
    "alttest_reproduce.py": ([], [r"6 of 6 published numbers reproduced to two decimals"]),
    "judge_cost.py": (["--price-input", "0.0004", "--price-cached-input", "0.0001", "--price-output", "0.0016",
                       "--requests", "10"],
                      # 10,136 requests sent for 10,508 units x samples: 372 repeat a prompt of their document
                      [r"\n\s+live\s+10136\s", r"\n\s+batch\s+10136\s", r"live, cached prefixes\s+10136",
                       r"share of live: live 1\.000, batch 0\.500", r"achieved_rpm"]),
    "jury_coverage.py": (["--datasets", "2", "--docs", "10", "--resamples", "20", "--population", "200",
                          "--scenarios", "copies"], [r"copies: 2 datasets x 10 documents",
                                                     r"\ndataset\s+1\.0\s+0\.0\s+1\.0\s+1\.0"]),
    "judge_throughput.py": (["--skip-embedded", "--requests", "10"], [r"achieved_rpm", r"share_of_limit"]),
    "prompt_family_design.py": (["--draws", "1", "--docs", "24", "--prompts", "6", "--resamples", "10"],
                                [r"noise 0\.2 sample: 6 prompts x 24 docs x 16 systems, 2 prompts per document \(2\.00x\), summary: "
                                 r"\|diff\| of a quantile median [\d.]+", r"requests 2\.00x"]),
    "prompt_family_design_judge.py": (["--per-document", "2.5", "--seeds", "1", "--resamples", "10",
                                       "--dimensions", "fluency"],
                                      [r"qwen-1\.5b on summeval_likert: 9 templates x 12 documents x 16 summaries",
                                       r"fluency sample, 2\.5 per document \(2\.50x\): max \|diff\| of an assignment: "
                                       r"design median [\d.]+, max [\d.]+, within 0\.02 in \d of 1; unshrunk .*; "
                                       r"known parameters .*; own SD [\d.]+"]),
    "rouge_bench.py": (["--workers", "1", "--docs", "5"], [r"workers=1:\s+[\d.]+ s wall"]),
    "bootstrap_schemes.py": (["--schemes", "documents", "--docs", "5", "--resamples", "50"], [r"Table 1\s+ROUGE-1 consistency sample", r"documents"]),
    "rouge_settings.py": (["--tables", "2"], [r"Table 2 \(newsroom\): \d+/36 within 0.005, max [\d.]+"]),
    "leaderboard_build.py": (["--resamples", "50"], [r"leaderboard build, 2 judges, 50 resamples: [\d.]+ s \(134 cells"]),
    "leaderboard_slice.py": (["--judges", "fake-api"], [r"first run: rc=0 .* fake-server requests=\d+",
                                                        r"rerun: rc=0 .* fake-server requests=0",
                                                        r"dry run: rc=0 .* nothing-to-be-done=True",
                                                        r"leaderboard rows: \d+"]),
    "savings_ppi_check.py": (["--draws", "20"], [r"largest difference from ppi_py \(estimate, interval bounds\): \S+",
                                                 r"vectorised: [\d.]+ s; ppi_py, one call per cell: [\d.]+ s"]),
    "savings_summeval.py": (["--resamples", "20"], [r"2 imported judges \+ 3 held-out experts, 20 draws x n "
                                                    r"\[10, 25, 50\], interval pooled: [\d.]+ s wall, "
                                                    r"[\d.]+ s CPU \(1860 cells", r"== interval t: coverage",
                                                    r"largest difference from ppi_py on a first draw"]),
    "savings_abstain.py": (["--resamples", "20"], [r"\d+ cells, 20 draws per n: [\d.]+ s wall"]),
    "savings_coverage.py": (["--datasets", "summeval", "--resamples", "20", "--n", "25"],
                            [r"summeval: \d+ documents", r"\d+ cells, 20 draws per n: [\d.]+ s wall, [\d.]+ s CPU"]),
    "share_export.py": (["--report-mb", "1", "--files", "20"], [r"secret scan alone: [\d.]+ s",
                                                                 r"share export: [\d.]+ s wall"]),
    "verdict_calibration.py": (["--small"], [r"verdict calibration: 2 datasets, 4 draws, 21 judge kinds",
                                              # 19 kinds, the held-out and the exchangeable annotators (HELM
                                              # news); with 4 draws an
                                              # uninformative kind may pass by chance (the permutation control
                                              # errs at 5 %); the human reference passes on QAGS-XSum in every draw
                                              r"uninformative judges passing the alt-test more than 5 % of the "
                                              r"time: \d+ of 14",
                                              r"held-out annotators called \"uninformative\" more than 5 % of the "
                                              r"time: \d of 1 datasets; helm_news \d+ %",
                                              r"exchangeable simulated annotators called \"uninformative\" more "
                                              r"than 5 % of the time: \d of 1 datasets; helm_news \d+ %",
                                              r"\| reference \(upper bound\) \| \d+( \(\d+\))? \| 100 \|"]),
    "embedded_split.py": (["--judge", "qwen-0.5b", "--systems", "2", "--no-server", "--no-plain",
                           "--data", "absent.parquet"],
                          [r"limit \(bare llama.cpp loop\): \{\"pp_tok_s\": [\d.]+", r"with logprobs: \{\"units\": 2"]),
    "issue40_before_after.py": (["compare", "tests/fixtures/leaderboard_before", "tests/fixtures/leaderboard_before"],
                                [r"## cells\.csv: rows 60 -> 60", r"## pairs\.csv: rows 12 -> 12; keys \['column', 'a', 'b'\]"]),
    "weighted_scores.py": (["--judge", "qwen-0.5b", "--docs", "1", "--systems", "2", "--no-logits-all"],
                           [r"\nweighted\s+[\d.]+\s+[\d.]+", r"\ninteger\s+[\d.]+\s+1\.00"]),
}


def test_every_benchmark_has_a_smallest_run():
    scripts = {p.name for p in (REPO / "benchmarks").glob("*.py") if not p.name.startswith("_")}
    assert scripts == set(SMALLEST), f"add the new scripts to SMALLEST: {sorted(scripts ^ set(SMALLEST))}"


@pytest.mark.slow
@pytest.mark.system("rouge-perl")
@pytest.mark.parametrize("script", sorted(SMALLEST))
def test_benchmark_prints_its_figures(script, mirror, tmp_path):
    args, patterns = SMALLEST[script]
    if script == "alttest_reproduce.py":  # the alt-test repository's shape, with hand-computed numbers
        alttest_format.write(tmp_path / "alttest")
    if script == "prompt_family_design_judge.py":  # a full grid of the shipped family from the stand-in
        family_results.write(tmp_path / "results")
    extra = {"alttest_reproduce.py": [str(tmp_path / "alttest")], "bootstrap_schemes.py": ["--cache", str(tmp_path)], "leaderboard_build.py": ["--mirror", str(mirror)],
             "savings_ppi_check.py": ["--mirror", str(mirror)], "embedded_split.py": ["--mirror", str(mirror)], "savings_summeval.py": ["--mirror", str(mirror)],
             "savings_abstain.py": ["--mirror", str(mirror)], "savings_coverage.py": ["--mirror", str(mirror)],
             "leaderboard_slice.py": ["--workdir", str(tmp_path / "run"), "--log", str(tmp_path / "log"),
                                      "--mirror", str(mirror)],
             "prompt_family_design_judge.py": ["--results", str(tmp_path / "results")],
             "verdict_calibration.py": ["--mirror", str(mirror), "--out", str(tmp_path / "calibration")]}.get(script, [])
    out = subprocess.run([sys.executable, str(REPO / "benchmarks" / script), *args, *extra], capture_output=True,
                         text=True, timeout=1200, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 0, out.stderr[-3000:]
    for pattern in patterns:
        assert re.search(pattern, out.stdout), f"{script}: no {pattern!r} in\n{out.stdout[-3000:]}"
