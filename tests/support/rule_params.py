"""Every job's params of a workflow as Snakemake compares them (tests/workflow/test_rule_params.py).

    python tests/support/rule_params.py WORKDIR OUT.json [--configfile FILE ...] [--target FILE ...]

Builds the DAG of the targets in WORKDIR with the given config files, every job forced (in an
empty working directory: every rule that the config reaches), and writes, per job, each
param's type, whether it is plain, and the string Snakemake records for it (its ``repr``; null
for a param it does not record), and whether the params differ from those recorded when the
job last ran there (Snakemake's ``params`` trigger; ``snakemake --list-params-changes`` of
Snakemake 9.27 lists one output of every job with a record, changed or not):
``{"<rule> <wildcards>": {"params": {"<param>": {"plain": bool, "recorded": str | null,
"type": str}}, "changed": bool}}``.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def plain(value) -> bool:
    """str, int, float, bool, None, and lists, tuples and str-keyed dicts of those: their repr is
    the same in every process (a set's is not: it follows the per-process string hash)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(plain(v) for v in value)
    return value is None or type(value) in (str, int, float, bool)


def jobs_params(workdir: Path, configfiles: list[str], targets: list[str]) -> dict:
    from snakemake.api import SnakemakeApi
    from snakemake.persistence import UNREPRESENTABLE
    from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings

    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        wf_api = api.workflow(resource_settings=ResourceSettings(cores=1), snakefile=REPO / "Snakefile",
                              config_settings=ConfigSettings(configfiles=[Path(f) for f in configfiles]),
                              workdir=workdir)
        dag_api = wf_api.dag(dag_settings=DAGSettings(targets=set(targets), forceall=True))
        workflow = dag_api.workflow_api._workflow
        workflow._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=True, nolock=True)
        workflow._build_dag()
        persistence = workflow.persistence
        out = {}
        for job in workflow.dag.jobs:
            if job.rule.name == "all":
                continue
            key = f"{job.rule.name} {json.dumps(dict(job.wildcards_dict), sort_keys=True)}"
            recorded = {name: persistence._serialize_param(value) for name, value in job.params.items()}
            out[key] = {"changed": bool(persistence.params_changed(job)),
                        "params": {name: {"plain": plain(value), "type": type(value).__name__,
                                          "recorded": None if recorded[name] is UNREPRESENTABLE else recorded[name]}
                                   for name, value in job.params.items()}}
        return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("workdir", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--configfile", nargs="*", default=[])
    ap.add_argument("--target", nargs="*", default=[])
    a = ap.parse_args()
    a.workdir.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(REPO))
    a.out.write_text(json.dumps(jobs_params(a.workdir, a.configfile, a.target), sort_keys=True))


if __name__ == "__main__":
    main()
