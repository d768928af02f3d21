"""The plan as text (what ``python -m sumjudge plan`` prints) or as JSON (``--json``)."""
from __future__ import annotations

import json
import math

import pandas as pd

from .build import PlanRequest


def _table(frame: pd.DataFrame, columns: list[str]) -> str:
    cols = [c for c in columns if c in frame]
    with pd.option_context("display.width", 220, "display.max_columns", 30, "display.max_colwidth", 60):
        return frame[cols].to_string(index=False) if len(frame) else "  (none)"


def _reported(prompts: pd.DataFrame) -> str:
    have = prompts[prompts["units_reported"] > 0]
    if have.empty:
        return "No judge table of these units yet: nothing to check the count against."
    counted, reported = have["counted_on_reported"].sum(), have["reported_prompt_tokens"].sum()
    return (f"On the {int(have['units_reported'].sum())} units already judged its server reported {int(reported)} "
            f"prompt tokens; counted here {int(counted)} ({(counted - reported) / reported:+.2%}).")


def render(plan: dict[str, pd.DataFrame], request: PlanRequest, model: str) -> str:
    prompts, cost, labels = plan["prompts"], plan["cost"], plan["labels"]
    method = prompts["tokens_counted_by"].iloc[0] if len(prompts) else ""
    total = cost[["to_send", "input_tokens", "usd_live", "usd_batch", "usd_cached_prefix", "usd_estimate"]].sum(
        min_count=1)

    def usd(v) -> str:
        return "unknown (no price configured)" if v is None or pd.isna(v) else f"${v:.4f}"

    parts = [
        f"Plan for judge {request.judge} (model {model}) on {', '.join(request.datasets)}: no request is sent.",
        "", f"Prompts and tokens ({method}):",
        _table(prompts, ["dataset", "variant", "prompt_file", "requests", "to_send", "prompt_tokens",
                         "units_reported", "reported_prompt_tokens", "counted_on_reported"]),
        _reported(prompts),
        "", "Cost of the requests not cached (cached replies are free; the estimate's own figures):",
        _table(cost, ["dataset", "variant", "to_send", "input_tokens", "output_tokens_expected", "usd_live",
                      "usd_batch", "usd_cached_prefix", "usd_estimate", "assumes"]),
        f"Total: {int(total['to_send'])} requests; live {usd(total['usd_live'])}, Batch API {usd(total['usd_batch'])}, "
        f"live with cached prefixes {usd(total['usd_cached_prefix'])}; as configured (the cost estimate) "
        f"{usd(total['usd_estimate'])}.",
        "", f"Human labels for a +/-{request.half_width:g} interval ({request.confidence:.0%}) of a system's mean "
            f"score or a rate, at ${request.label_usd:.4f} a label:",
        _table(labels, ["dataset", "dimension", "sd_human", "ppi_corr", "humans_only", "with_judge",
                        "judge_only_documents", "pool_documents", "note", "source"]),
    ]
    if "families" in plan:
        fam = plan["families"]
        ratios = ", ".join(f"{f} {r:.2f}x" if not pd.isna(r) else f"{f} not priced"
                           for f, r in fam.groupby("family", sort=False)["ratio"].first().items())
        notes = fam.get("note", pd.Series(dtype=object)).fillna("").astype(str)
        said = [f"{f}: {n}." for f, n in dict.fromkeys(zip(fam["family"], notes)) if n]  # each once
        parts += ["", "Prompt families (docs/robustness.md), each template on its documents:",
                  _table(fam, ["family", "template", "documents", "requests", "to_send", "input_tokens",
                               "output_tokens_expected", "cost_usd_expected", "assumes"]),
                  f"Requests over one prompt's on every unit: {ratios}; "
                  f"{usd(fam['cost_usd_expected'].sum(min_count=1))} for the requests not cached.", *said]
    if "power" in plan:
        parts += ["", f"Documents to separate {request.judge} from {request.compare} at {request.power:.0%} power "
                      f"(two-sided, alpha {1 - request.confidence:.2f}):",
                  _table(plan["power"], ["dataset", "dimension", "level", "value_a", "value_b", "difference",
                                         "se_difference", "documents_now", "delta", "documents_needed", "note"])]
    return "\n".join(parts)


def as_json(plan: dict[str, pd.DataFrame]) -> str:
    def clean(v):
        return None if isinstance(v, float) and (math.isnan(v) or math.isinf(v)) else v

    return json.dumps({k: [{c: clean(v) for c, v in r.items()} for r in f.to_dict("records")]
                       for k, f in plan.items()}, indent=2, default=str)
