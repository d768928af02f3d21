"""The plan of one judge on some datasets, before anything is sent (``python -m sumjudge plan``;
docs/judge.md, "A plan before paying"). Sends no request: it reads the config, the prepared dataset
tables (results/data), the prompt files, the response cache (cached replies are free) and, where
they exist, the judge's own tables and the savings stage's ledger.

:func:`make_plan` returns four frames: ``prompts`` (requests and prompt tokens per dataset and prompt
variant, and the tokens the judge's server reported on units already judged), ``cost`` (USD live, with
the Batch API and with cached prefixes: :func:`sumjudge.judge.estimate.estimate`'s own figures),
``labels`` (human labels for the target interval, without and with the judge) and ``power`` (documents
to separate the judge from another, with ``compare``); and ``families``, where judge.prompt_families
has a family of a planned dataset, each template's requests, tokens and USD on its documents
(:mod:`sumjudge.robustness.cost`).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import UserError
from ..judge.cache import ResponseCache
from ..judge.estimate import estimate, to_send
from ..judge.prompts import load_template
from ..judge.run import plan_requests
from ..judge.spec import JudgeConfigError, JudgeSettings
from ..judge.targets import prompt_path
from ..settings import RunSettings
from ..evidence.errors import TablesInputError
from ..evidence.runs import load_judge_run
from ..robustness.cost import family_cost
from ..robustness.families import families, thin_design_note
from .labels import PAPER_LABEL_USD, labels_needed, savings_pilot, table_pilot
from .power import separate
from .tokens import counter

log = logging.getLogger(__name__)


class PlanError(UserError, ValueError):
    """The plan cannot be made as asked (a judge or dataset not in the config, data not prepared)."""


@dataclass(frozen=True)
class PlanRequest:
    judge: str
    datasets: tuple[str, ...]
    results: str = "results"
    variants: tuple[str, ...] | None = None   # None: the variants the config judges
    half_width: float = 0.1                   # of the interval of a system's mean human score / a rate
    confidence: float = 0.95
    label_usd: float = PAPER_LABEL_USD        # one human label (summary, pair, sentence)
    pool: int | None = None                   # documents in all (None: the dataset table's)
    compare: str | None = None                # another judge: documents to separate the two
    delta: float | None = None                # the difference to detect (None: the observed one)
    power: float = 0.8
    configfiles: tuple[str, ...] = ()         # the user's --configfile files: named in a command to run first
    mirror: str | None = None                 # the --config mirror= of the user's runs: named there too


def _judge(specs: dict[str, JudgeSettings], name: str) -> JudgeSettings:
    if name not in specs:
        raise PlanError(f"judge {name!r} is not under 'judges' in the config; defined: {', '.join(specs)}")
    if specs[name].jury or specs[name].scores:
        raise PlanError(f"judge {name!r} sends no request (a jury or imported scores): plan its members instead")
    return specs[name]


def prepare_command(paths: list[Path], configfiles: tuple[str, ...] = (), mirror: str | None = None) -> str:
    """The complete command that prepares ``paths``: the targets first (``--config`` takes every
    word after it), then the user's config files and mirror."""
    words = [".venv/bin/snakemake", "--cores", "1", *map(str, paths)]
    words += ["--configfile", *configfiles] if configfiles else []
    words += ["--config", f"mirror={mirror}"] if mirror else []
    return " ".join(words)


def _tables(request: PlanRequest, run: RunSettings) -> dict[str, pd.DataFrame]:
    unknown = [d for d in request.datasets if d not in run.specs]
    if unknown:
        raise PlanError(f"unknown dataset {unknown[0]!r}; known: {', '.join(run.specs)}")
    paths = {d: Path(request.results) / "data" / f"{d}.parquet" for d in request.datasets}
    missing = [p for p in paths.values() if not p.exists()]
    if missing:
        no_mirror = "" if request.mirror or run.mirror else " (add --mirror DIR to plan if your runs use a mirror)"
        raise PlanError(f"{', '.join(map(str, missing))} {'is' if len(missing) == 1 else 'are'} missing: the plan "
                        f"reads the units the run would judge; prepare them first: "
                        f"{prepare_command(missing, request.configfiles, request.mirror)}{no_mirror}")
    return {d: pd.read_parquet(p) for d, p in paths.items()}


def _reported(results: str, judge: str, dataset: str, variant: str) -> pd.DataFrame | None:
    """The judge's table of this dataset and variant, where it was run: prompt tokens its server reported."""
    path = Path(results) / "judge" / judge / dataset / f"{variant}.parquet"
    if not path.exists():
        return None
    t = pd.read_parquet(path)
    if "input_tokens" not in t:  # imported scores: no server, no tokens
        return None
    return t.loc[t["status"] != "api_error", ["unit_id", "sample", "input_tokens"]]


def prompt_rows(spec: JudgeSettings, tables: dict, variants: dict, run: RunSettings, results: str) -> pd.DataFrame:
    """Per dataset and variant: requests (one per unit and sample), those to send (distinct and not
    cached, as the estimate counts them), the prompt tokens of the distinct prompts (how counted), and
    the tokens the judge's server reported on the units it judged already, beside this count on the
    same units."""
    count, method = counter(spec, run.model_dir)
    cache = ResponseCache(run.cache_dir)
    rows = []
    for d, df in tables.items():
        ds = run.specs[d]
        for v in variants[d]:
            template = load_template(prompt_path(run.prompt_dir or "prompts", ds, v))
            planned = plan_requests(df, ds, template, spec, "article", cache.legacy)
            counted, by_key = {}, {}
            for p in planned:
                n = by_key.setdefault(p.request.key, count(p.request.messages))
                counted[(str(df["unit_id"].iloc[p.row]), p.sample)] = n
            rows.append({"dataset": d, "variant": v, "prompt_file": str(template.path), "requests": len(planned),
                         "to_send": len(to_send(planned, cache)), "prompt_tokens": sum(by_key.values()),
                         "tokens_counted_by": method,
                         **_against_reported(counted, _reported(results, spec.name, d, v))})
    return pd.DataFrame(rows)


def _against_reported(counted: dict, reported: pd.DataFrame | None) -> dict[str, Any]:
    if reported is None or reported.empty:
        return {"units_reported": 0, "reported_prompt_tokens": None, "counted_on_reported": None}
    keys = list(zip(reported["unit_id"].astype(str), reported["sample"].astype(int)))
    mine = [counted.get(k) for k in keys]
    known = [(m, int(r)) for m, r in zip(mine, reported["input_tokens"]) if m is not None]
    return {"units_reported": len(known), "reported_prompt_tokens": sum(r for _, r in known),
            "counted_on_reported": sum(m for m, _ in known)}


def cost_rows(spec: JudgeSettings, tables: dict, variants: dict, run: RunSettings) -> pd.DataFrame:
    """USD per dataset and variant of the requests not cached: live, Batch API, live with cached
    prefixes, and as configured (``usd_estimate``: the cost estimate's own ``cost_usd_expected``)."""
    def priced(s: JudgeSettings, cached: bool = False) -> pd.DataFrame:
        return estimate(tables, {spec.name: s}, variants, run.cache_dir, run.prompt_dir or "prompts",
                        cached_prefix=cached)

    out = priced(spec)[["dataset", "variant", "requests", "cached", "to_send", "input_tokens",
                        "output_tokens_expected", "cost_usd_expected", "assumes"]]
    out = out.rename(columns={"cost_usd_expected": "usd_estimate"})
    live = spec.replace(mode="live")
    out["usd_live"] = priced(live)["cost_usd_expected"].to_numpy()
    out["usd_cached_prefix"] = priced(live, cached=True)["cost_usd_expected"].to_numpy()
    try:
        out["usd_batch"] = priced(spec.replace(mode="batch"))["cost_usd_expected"].to_numpy()
    except JudgeConfigError:  # an embedded judge has no Batch API
        out["usd_batch"] = None
    return out


def label_rows(spec: JudgeSettings, tables: dict, request: PlanRequest, costs: pd.DataFrame,
               run: RunSettings) -> pd.DataFrame:
    """Per dataset and dimension (accuracy question): the pilot and the labels needed."""
    rows = []
    for d, human in tables.items():
        ds = run.specs[d]
        pilot = savings_pilot(request.results, spec.name, d)
        if pilot is None:
            pilot = table_pilot(_run(request.results, spec.name, ds, human), human, ds, run.tables)
        mine = costs[(costs["dataset"] == d) & (costs["variant"] == "base")]
        per_unit = float(mine["usd_estimate"].sum() / max(int(mine["requests"].sum()), 1)) if len(mine) else 0.0
        pool = request.pool or int(human[ds.doc_column].nunique())
        for _, p in pilot.iterrows():
            need = labels_needed(p["sd_human"], p["ppi_corr"], request.half_width, request.confidence, pool,
                                 request.label_usd, per_unit if pd.notna(per_unit) else 0.0)
            rows.append({"dataset": d, "dimension": p["dimension"], "sd_human": p["sd_human"],
                         "ppi_corr": p["ppi_corr"], "pilot_units": p["n_units"], "pool_documents": pool,
                         **need, "source": p["source"]})
    return pd.DataFrame(rows)


def _run(results: str, judge: str, ds, human: pd.DataFrame, variant: str = "base"):
    """The judge's table of the run's data as the tables read it, or None (not run, or not readable here)."""
    path = Path(results) / "judge" / judge / ds.name / f"{variant}.parquet"
    if not path.exists():
        return None
    try:
        return load_judge_run(path, ds.label_columns, None, pd.Index(human["unit_id"].astype(str)), ds)
    except TablesInputError as err:
        log.warning("%s", err)
        return None


def power_rows(spec: JudgeSettings, other: JudgeSettings, tables: dict, request: PlanRequest,
               run: RunSettings) -> pd.DataFrame:
    """Documents to separate ``spec`` from ``other`` per dataset (where both were run on its data)."""
    parts = []
    for d, human in tables.items():
        ds = run.specs[d]
        variant = "base" if ds.proto.per_dimension else ds.accuracy_questions[0][2]
        a, b = (_run(request.results, j, ds, human, variant) for j in (spec.name, other.name))
        if a is None or b is None:
            parts.append(pd.DataFrame([{"dataset": d, "note": f"needs both judges' tables of {d} ({variant})"}]))
            continue
        rows = separate(a, b, human, ds, run.tables, request.delta, request.power, 1 - request.confidence)
        parts.append(rows.assign(dataset=d, judge_a=spec.name, judge_b=other.name))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _family_rows(df: pd.DataFrame, family, spec: JudgeSettings, cache_dir: str) -> pd.DataFrame:
    """A family's cost per template, or one row saying why its design cannot be laid on these
    documents (a slice with fewer documents than the design needs)."""
    try:
        rows = family_cost(df, family, spec, cache_dir)
    except ValueError as err:
        return pd.DataFrame([{"family": family.name, "template": "(not priced)", "ratio": float("nan"),
                              "cost_usd_expected": float("nan"), "note": str(err)}])
    if family.per_document is not None:  # a design thin on documents: said before any request
        rows["note"] = thin_design_note(int(rows["documents"].min()))
    return rows


def make_plan(run: RunSettings, request: PlanRequest) -> dict[str, pd.DataFrame]:
    """The plan's frames (module docstring) for ``request`` under the run's settings."""
    spec = _judge(run.judges, request.judge)
    tables = _tables(request, run)
    variants = {d: list(request.variants or run.judge_variants[d]) for d in tables}
    costs = cost_rows(spec, tables, variants, run)
    out = {"prompts": prompt_rows(spec, tables, variants, run, request.results), "cost": costs,
           "labels": label_rows(spec, tables, request, costs, run)}
    shipped = Path(__file__).resolve().parents[2]  # a family's relative folder: under the workflow's, as the rules
    priced = [_family_rows(tables[f.dataset], f, spec, run.cache_dir)
              for f in families({"prompt_families": run.prompt_families}, str(shipped)).values()
              if f.dataset in tables]
    if priced:
        out["families"] = pd.concat(priced, ignore_index=True)
    if request.compare:
        out["power"] = power_rows(spec, run.judges.get(request.compare) or _judge(run.judges, request.compare),
                                  tables, request, run)
    return out
