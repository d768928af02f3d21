"""What the workflow tests share: where the checkout and the data mirror are, a copy of
the checkout as a fresh clone has it, Snakemake run on a work folder, and a judge that
points at the fake OpenAI-compatible server (:mod:`support.fake_openai`).

    wd = tmp_path_factory.mktemp("mine")
    write_config(wd / "fake.yaml", {"judges": {"fake": fake_judge(server)}, "judge": {"run": ["fake"]}})
    out = snakemake(wd, "--cores", "2", configfiles=[CONFIG, SLICE, wd / "fake.yaml"],
                    config=[f"mirror={mirror}"], env=workflow_env(OPENAI_API_KEY=KEY), cwd=wd)
    assert out.returncode == 0, out.stderr[-4000:]

A test that runs Snakemake is in the slow tier (tests/support/tiers.py): mark it
``@pytest.mark.slow`` or ``@pytest.mark.system(...)``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterable

import yaml

REPO = Path(__file__).resolve().parents[2]
MIRROR = Path(os.environ.get("SUMJUDGE_MIRROR", REPO.parent / "shared" / "data")).resolve()
SNAKEFILE = REPO / "Snakefile"
CONFIG = REPO / "config.yaml"        # the shipped defaults
SLICE = REPO / "tests" / "slice.yaml"  # a few units of every dataset


def default_options() -> dict:
    """What a built-in dataset's reader is told under the shipped defaults, read from config.yaml as
    ``prepare_options`` in workflow/rules/common.smk builds it: each reader's config section
    (``DatasetSpec.options_key``) and ``subset``, tldr without ``metric_ties`` (Table 3's scoring only)."""
    from sumjudge.datasets import BUILTIN

    config = yaml.safe_load(CONFIG.read_text())
    keys = dict.fromkeys(s.options_key for s in BUILTIN.values() if s.options_key)
    options = {k: config.get(k) or {} for k in [*keys, "subset"]}
    options["tldr"] = {k: v for k, v in options["tldr"].items() if k != "metric_ties"}
    return options


def snakemake_cmd(workdir: Path, *args: str, configfiles: Iterable[Path | str] = (), config: Iterable[str] = (),
                  snakefile: Path | None = SNAKEFILE) -> list[str]:
    """``python -m snakemake --snakefile S --directory W --configfile F... --config K=V... ARGS``
    (no --snakefile, no --directory when ``snakefile`` is None: Snakemake finds the
    Snakefile in the folder it runs in)."""
    cmd = [sys.executable, "-m", "snakemake"]
    if snakefile is not None:
        cmd += ["--snakefile", str(snakefile), "--directory", str(workdir)]
    files = [str(f) for f in configfiles]
    if files:
        cmd += ["--configfile", *files]
    pairs = list(config)
    if pairs:
        cmd += ["--config", *pairs]
    return [*cmd, *map(str, args)]


def snakemake(workdir: Path, *args: str, configfiles: Iterable[Path | str] = (), config: Iterable[str] = (),
              snakefile: Path | None = SNAKEFILE, timeout: float = 900, **run) -> subprocess.CompletedProcess:
    """Run :func:`snakemake_cmd` to its end; stdout and stderr captured as text. ``run``
    goes to :func:`subprocess.run` (``env``, ``cwd``, ``umask``, ...)."""
    cmd = snakemake_cmd(workdir, *args, configfiles=configfiles, config=config, snakefile=snakefile)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **run)


def workflow_env(drop: Iterable[str] = (), **values: str) -> dict[str, str]:
    """This process's environment without a real ``OPENAI_API_KEY`` (a test never pays)
    nor the names in ``drop``, with ``values`` set."""
    gone = {"OPENAI_API_KEY", *drop}
    return {**{k: v for k, v in os.environ.items() if k not in gone}, **values}


def fake_judge(server, *, model: str = "fake-model", api_key_env: str = "OPENAI_API_KEY", max_concurrency: int = 4,
               **settings) -> dict:
    """A judge's config entry (under ``judges:``) that sends its requests to ``server``."""
    return {"model": model, "base_url": server.url, "api_key_env": api_key_env, "max_concurrency": max_concurrency,
            **settings}


def write_config(path: Path, config: dict) -> Path:
    """A config file for ``--configfile``."""
    path.write_text(yaml.safe_dump(config))
    return path


def clone(dst: Path, src: Path = REPO) -> Path:
    """The checkout as a fresh clone has it in ``dst``: its tracked and new (not ignored)
    files, in a git repository of one commit."""
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=src,
                           capture_output=True, text=True, check=True).stdout.split("\0")
    for f in filter(None, files):
        path = src / f
        if path.is_file() and not path.is_symlink():
            (dst / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, dst / f)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(dst)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "clone"], check=True)
    return dst


def imported_judges(folder: Path, mirror: Path, docs: int, spreads: dict[str, float]) -> dict:
    """``judges:`` entries of judges imported from score files (no request is sent): per name,
    SummEval's first ``docs`` documents' expert means plus Gaussian noise of that SD, written to
    ``folder/<name>.csv`` (docs/judge.md, "Scores from another tool")."""
    import numpy as np
    import pandas as pd

    from sumjudge.data.prepare import locate, prepare_dataset, source_files

    opts = {**default_options(), "subset": {"summeval": {"docs": docs}}}
    data = prepare_dataset("summeval", locate(source_files("summeval", opts), mirror), opts)
    rng, out = np.random.default_rng(0), {}
    for judge, sd in spreads.items():
        rows = [pd.DataFrame({"doc_id": data["doc_id"], "system": data["system"], "dimension": d,
                              "score": np.clip(np.round(data[d] + rng.normal(0, sd, len(data)), 2), 1, 5)})
                for d in ("consistency", "relevance", "fluency", "coherence")]
        path = folder / f"{judge}.csv"
        pd.concat(rows).to_csv(path, index=False)
        out[judge] = {"scores": {"summeval": str(path)}}
    return out
