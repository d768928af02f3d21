"""Before any job: every need of the configured run that would make one of its jobs fail.

The workflow asks :func:`needs` once, before the first job (docs/metrics.md, "Before any
job": Snakemake's ``onstart`` hook for a run, the end of parsing for a dry run), with
the jobs that are about to run, as ``(rule, wildcards)`` pairs. Each need that is not
met is one step of a numbered list (:func:`report`) naming the config key or the exact
command that fixes it:

- ``fetch`` with config ``mirror`` set: the mirror directory and each file to copy
  from it (a fetch from a mirror never falls back to a download);
- ``rouge`` with ``rouge.implementation: rouge-perl`` (the default) and no conda
  deployment: ``perl`` on PATH with the XML::Parser module (Debian
  ``libxml-parser-perl``), or ``rouge.implementation: rouge-score``;
- the learned metrics' rules: every model (a hub id in the cache or reachable, or a
  local directory that exists and holds the model's files) and DAE's spaCy pipeline
  (:func:`sumjudge.metrics.preflight.manual_steps`);
- a judge job of an embedded judge (``judges.<name>.embedded``): llama-cpp-python
  with its server extra, and the model (its assembled GGUF in ``judge.model_dir``, or
  the PyPI packages holding its parts).

No rule needs LaTeX (the tables stage writes ``.tex`` files and compiles none), so
LaTeX is never a need. Nothing is downloaded, loaded or written; the checks take well
under a second, except a hub id that is not cached (one TCP connection to the hub, at
most 5 s). A user's API key is not a need: a judge whose replies are all cached sends
no request (a job that must send one stops at once naming the variable).
"""
from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path
from typing import Any, Iterable, Mapping

from .metrics.preflight import MODEL_KEYS, manual_steps

Job = tuple[str, Mapping[str, str]]  # (rule name, wildcards)

# the rules whose jobs hold a judge's requests, either order (an imported judge's rule sends none)
JUDGE_RULES = ("judge", "judge_batch_submit")
LLAMA_SERVER_HINT = "pip install 'llama-cpp-python[server]==0.3.36'"


def enabled(config: Mapping[str, Any]) -> bool:
    """Config ``preflight`` (default true); the old key ``metrics.check_models: false``
    still switches the whole check off."""
    return bool(config.get("preflight", True)) and (config.get("metrics") or {}).get("check_models") is not False


def metric_of(rule: str, wildcards: Mapping[str, str]) -> str | None:
    """The learned metric whose model a job of rule ``metric`` loads: its ``{metric}``
    wildcard names a registry entry (``bartscore/bart`` is bartscore's). None for any other
    job (``metric_bartscore`` only joins the two checkpoints' parts)."""
    if rule != "metric":
        return None
    from .metrics.learned import LEARNED

    entry = LEARNED.get(wildcards.get("metric", ""))
    return entry.settings_key if entry is not None and entry.settings_key in MODEL_KEYS else None


def perl_step() -> str | None:
    """ROUGE-1.5.5's needs: ``perl`` on PATH, with XML::Parser."""
    fix = ("or set `rouge.implementation: rouge-score` (config.yaml, or "
           "`--config 'rouge={implementation: rouge-score}'`: Google's rouge-score, no Perl; docs/metrics.md \"ROUGE\")")
    if shutil.which("perl") is None:
        return ("rouge: rouge.implementation is rouge-perl (ROUGE-1.5.5) but there is no `perl` on PATH: install Perl "
                "and its XML::Parser (Debian/Ubuntu: `sudo apt-get install perl libxml-parser-perl`), or run with "
                f"`--software-deployment-method conda` (envs/rouge.yaml has both), {fix}")
    try:
        ok = subprocess.run(["perl", "-MXML::Parser", "-e", "1"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    if ok:
        return None
    return ("rouge: rouge.implementation is rouge-perl (ROUGE-1.5.5), which needs Perl's XML::Parser, and "
            "`perl -MXML::Parser -e 1` fails here: install it (Debian/Ubuntu: `sudo apt-get install "
            "libxml-parser-perl`), or run with `--software-deployment-method conda` (envs/rouge.yaml has it), "
            + fix)


def embedded_steps(judge: str, model: str, model_dir: str | None) -> list[str]:
    """An embedded judge's needs: the llama.cpp server package and the model's files."""
    from .judge.embedded import EMBEDDED_MODELS, EmbeddedError, default_model_dir, part_files

    steps = []
    if any(importlib.util.find_spec(m) is None for m in ("llama_cpp", "uvicorn")):
        steps.append(f"judge {judge}: the embedded judge (judges.{judge}.embedded: {model}) runs llama.cpp's server, "
                     f"and llama-cpp-python with its server extra is not installed: `{LLAMA_SERVER_HINT}`")
    gguf = Path(model_dir or default_model_dir()).expanduser() / f"{model}.gguf"
    if model in EMBEDDED_MODELS and not gguf.is_file():
        try:
            part_files(EMBEDDED_MODELS[model])
        except EmbeddedError as err:
            steps.append(f"judge {judge}: {err} (the model is assembled once into {gguf}; judge.model_dir sets "
                         "where)")
    return steps


def mirror_steps(mirror: str, paths: Iterable[str]) -> list[str]:
    root = Path(mirror).expanduser()
    if not root.is_dir():
        return [f"data: config key mirror is {mirror!r}, which is not a directory here ({Path.cwd()}). A mirror is "
                "a local copy of the upstream data files, laid out <dataset>/<owner>+<repo>/<path>: point mirror at "
                "such a folder, or drop the `--config mirror=...` option (or set `mirror: null`) to fetch each file "
                "from its pinned upstream URL (sumjudge/data/sources.py; checked by sha256)"]
    missing = sorted(p for p in paths if not (root / p).is_file())
    if not missing:
        return []
    shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    return [f"data: {len(missing)} file(s) to fetch are missing from the mirror {str(root)!r} (config key mirror): "
            f"{shown}; put them there (upstream URLs: sumjudge/data/sources.py), or leave mirror out (null) to "
            "download them"]


def needs(config: Mapping[str, Any], jobs: Iterable[Job], judges: Mapping[str, Any] | None = None,
          conda: bool = False) -> list[str]:
    """One line per unmet need of ``jobs`` (``(rule, wildcards)`` of the jobs about to run).
    ``judges``: judge name -> settings (``embedded`` attribute); ``conda``: rules run in
    their conda environments (envs/*.yaml bring Perl and its module)."""
    jobs = [(rule, dict(wc)) for rule, wc in jobs]
    rules = {rule for rule, _ in jobs}
    steps: list[str] = []
    if "fetch" in rules and config.get("mirror"):
        steps += mirror_steps(str(config["mirror"]), [wc["path"] for rule, wc in jobs if rule == "fetch"])
    if "rouge" in rules and not conda and \
            (config.get("rouge") or {}).get("implementation", "rouge-perl") == "rouge-perl":
        steps += [s for s in [perl_step()] if s]
    metrics = list(dict.fromkeys(m for rule, wc in jobs if (m := metric_of(rule, wc))))
    if metrics:
        steps += manual_steps(config["metrics"], metrics)
    judge_cfg = config.get("judge") or {}
    seen = set()
    for rule, wc in jobs:
        name = wc.get("judge")
        if rule not in JUDGE_RULES or name in seen or judges is None or name not in judges:
            continue
        seen.add(name)
        if getattr(judges[name], "embedded", None):
            steps += embedded_steps(name, judges[name].embedded, judge_cfg.get("model_dir"))
    return steps


def report(steps: list[str], config: Mapping[str, Any]) -> str:
    """The one message that stops the workflow before any job starts."""
    run = list((config.get("metrics") or {}).get("run") or [])
    keep = [m for m in run if not any(s.startswith(f"{m}:") for s in steps)]
    lines = [f"before any job: {len(steps)} need(s) of the jobs about to run are missing here, so those jobs could "
             "only fail (nothing has run). Fix each:"]
    lines += [f"  {i}. {s}" for i, s in enumerate(steps, 1)]
    if keep != run:
        lines.append(f"Or leave the learned metrics that miss a model out of this run: --config 'metrics={{run: "
                     f"[{', '.join(keep)}]}}' (docs/metrics.md).")
    lines.append("To skip this check: --config preflight=False (each job then stops with its own one-line message).")
    return "\n".join(lines)
