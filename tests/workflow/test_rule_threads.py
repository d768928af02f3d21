"""No rule asks for more threads than the config allows (a cluster grants a job only
what a node has: docs/cluster.md). A dry run with 64 cores, so nothing is capped,
over every rule group: each job's threads come from `threads:` or the judge's
server.n_threads, never from a number written in a rule."""
import re

import pytest
import yaml

from support import harness
from support.harness import REPO


@pytest.mark.slow  # Snakemake
def test_every_job_takes_its_threads_from_the_config(tmp_path, mirror):
    cfg = {"threads": {"rouge": 3, "metrics": 5}, "metrics": {"check_models": False},  # stand-ins not built here
           "judges": {"qwen-1.5b": {"server": {"n_threads": 7}}},
           "judge": {"run": ["qwen-1.5b"], "datasets": ["qags_xsum"]}}
    (tmp_path / "threads.yaml").write_text(yaml.safe_dump(cfg))
    out = harness.snakemake(tmp_path, "--cores", "64", "-n", configfiles=[
        harness.CONFIG, harness.SLICE, REPO / "tests/metrics_local.yaml", tmp_path / "threads.yaml"],
        config=[f"mirror={mirror}"], timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    threads: dict[str, set[int]] = {}
    for block in re.split(r"\n(?=rule \w+:)", out.stdout + out.stderr):
        m = re.match(r"rule (\w+):", block)
        if m:
            t = re.search(r"\n\s+threads: (\d+)", block)
            threads.setdefault(m.group(1), set()).add(int(t.group(1)) if t else 1)
    assert threads["rouge"] == {3}
    assert threads["metric"] == {5}  # every learned metric, both BARTScore checkpoints
    assert threads["judge"] == {7}
    single = {r: t for r, t in threads.items() if r not in ("rouge", "judge", "metric")}
    assert single and all(t == {1} for t in single.values()), single
    assert threads.get("metric_bartscore") == {1}
