"""One self-contained HTML page with every table, the judge-vs-strongest chart,
invalid rates, cost, prompt hashes and the config (embedded in the Snakemake report)."""
from __future__ import annotations

import html
import math
from typing import Any

import pandas as pd
import yaml

CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1400px;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:12px}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}
th{background:#f3f3f3} td.l,th.l{text-align:left} .ci,.pub{color:#666;font-size:10px}
.best{font-weight:bold} .sig{color:#b30000} pre{background:#f6f6f6;padding:.6em;font-size:11px;overflow:auto}
td.reply{text-align:left;white-space:pre-wrap;max-width:700px}
"""

NOTES = {
    "table3": '"BARTScore" is BERTScore: the paper prints it so in Table 3; the name is kept so its value attaches.',
    "table6": "Annotator rows: each expert against the three-expert mean, on the summaries with per-expert "
              "scores (12 of 16 systems). Judge rows: all summaries; prompt variants tested against the base prompt.",
    "table9": "Invalid rate = invalid / (ok + invalid) replies; replies that never arrived (api_error) are "
              "counted apart. Below: dataset-level Spearman between the judge's own fluency and coherence.",
}

TITLES = {
    "table1": "Table 1: SummEval, Spearman at three levels",
    "table2": "Table 2: Newsroom, Spearman at three levels",
    "table3": "Table 3: TLDR pairwise accuracy",
    "table4": "Table 4: REALSumm SCU accuracy",
    "table5": "Table 5: QAGS factuality accuracy",
    "table6": "Table 6: SummEval prompt variants and annotators",
    "table7": "Table 7: explanations the judge wrote unasked",
    "table8": "Table 8: invalid replies by category",
    "table9": "Table 9: invalid-reply rates; judge's fluency vs coherence",
}


def _e(v: Any) -> str:
    return html.escape("" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v))


def _num(v, digits: int) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def _cell(c: pd.Series, digits: int, best: float | None) -> str:
    v = c.get("value")
    cls = "best" if best is not None and not pd.isna(v) and round(v, digits) == round(best, digits) else ""
    parts = [f'<span class="{cls}">{_num(v, digits)}</span>']
    if not pd.isna(c.get("ci_low", math.nan)):
        parts.append(f'<br><span class="ci">[{_num(c["ci_low"], digits)}, {_num(c["ci_high"], digits)}]</span>')
    p = c.get("p_value", math.nan)
    if not pd.isna(p):
        sig = " sig" if p < 0.05 else ""
        parts.append(f'<br><span class="ci{sig}">p={p:.3g} vs {_e(c.get("compared_with"))}</span>')
    if not pd.isna(c.get("repeat_sd", math.nan)):
        sd = _num(c["repeat_sd"], digits)
        parts.append(f'<br><span class="ci">sd over {int(c["n_repeats"])} repeats {sd}</span>')
    if not pd.isna(c.get("published", math.nan)):
        parts.append(f'<br><span class="pub">paper {_num(c["published"], digits)}</span>')
    return "".join(parts)


def numeric_table(df: pd.DataFrame, digits: int, lower_better: bool = False, bold: bool = True) -> str:
    """Rows x columns (dimension/level or dataset), each cell with CI, p-value and the paper's value."""
    if df.empty:
        return "<p>No rows (no metric or judge output configured for this table).</p>"
    df = df.copy()
    multi_level = df["level"].nunique() > 1 or df["dimension"].nunique() > 1
    if df["dataset"].nunique() > 1 and not multi_level:
        df["_col"] = df["dataset"]
    elif df["dataset"].nunique() > 1:
        df["_col"] = df["dataset"] + " " + df["dimension"] + " " + df["level"]
    else:
        df["_col"] = df["dimension"] + "<br>" + df["level"] if multi_level else df["dimension"]
    cols = list(dict.fromkeys(df["_col"]))
    rows = list(dict.fromkeys(df["row"]))
    cell = df.drop_duplicates(["row", "_col"]).set_index(["row", "_col"])
    best = {c: (None if not bold else df.loc[df["_col"] == c, "value"].min() if lower_better
                else df.loc[df["_col"] == c, "value"].max()) for c in cols}
    out = ['<table><tr><th class="l">Row</th>' + "".join(f"<th>{c}</th>" for c in cols) + "</tr>"]
    for r in rows:
        kind = cell.loc[r].iloc[0].get("kind", "") if r in cell.index.get_level_values(0) else ""
        tds = "".join(f"<td>{_cell(cell.loc[(r, c)], digits, best[c])}</td>" if (r, c) in cell.index
                      else "<td>–</td>" for c in cols)
        out.append(f'<tr><td class="l">{_e(r)} <span class="ci">{_e(kind)}</span></td>{tds}</tr>')
    out.append("</table>")
    return "\n".join(out)


def examples_table(df: pd.DataFrame) -> str:
    if df.empty:
        return "<p>No examples.</p>"
    head = ["row", "dataset", "category", "n_in_group", "unit_id", "words", "invalid_reason", "reply"]
    out = ["<table><tr>" + "".join(f'<th class="l">{h}</th>' for h in head) + "</tr>"]
    for _, r in df.iterrows():
        out.append("<tr>" + "".join(f'<td class="{"reply" if h == "reply" else "l"}">{_e(r.get(h))}</td>'
                                    for h in head) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def plain_table(df: pd.DataFrame) -> str:
    if df.empty:
        return "<p>None.</p>"
    return df.to_html(index=False, na_rep="–", border=0, float_format=lambda v: f"{v:.4g}")


def render(tables: dict[str, pd.DataFrame], chart_svg: str, judge_vs_best: pd.DataFrame, usage: pd.DataFrame,
           manifest: dict[str, Any]) -> str:
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>sumjudge tables</title>"
             f"<style>{CSS}</style></head><body>",
             "<h1>Human-like Summarization Evaluation with ChatGPT: reproduction</h1>",
             f"<p>Code version <b>{_e(manifest.get('code_version'))}</b>, written {_e(manifest.get('created'))}. "
             "Every cell: value, 95% bootstrap interval, the permutation test's p-value against the compared "
             "row (judge rows), the spread over repeats, and the paper's value. Definitions: docs/statistics.md.</p>",
             "<h2 id='chart'>Judge minus the strongest other row, per column</h2>", chart_svg,
             plain_table(judge_vs_best)]
    for key, title in TITLES.items():
        df = tables.get(key)
        if df is None:
            continue
        parts.append(f"<h2 id='{key}'>{_e(title)}</h2>")
        if key in NOTES:
            parts.append(f"<p>{_e(NOTES[key])}</p>")
        if key in ("table7", "table8"):
            parts.append(examples_table(df))
        elif key == "table9":
            parts.append(numeric_table(df[df["dimension"] == "invalid_rate"], 4, lower_better=True))
            parts.append(numeric_table(df[df["dimension"] != "invalid_rate"], 3, bold=False))
        else:
            parts.append(numeric_table(df, 4 if key in ("table3", "table4", "table5") else 3))
    parts += ["<h2 id='usage'>Requests, tokens and cost</h2>", plain_table(usage)]
    judges = manifest.get("judges", {})
    rows = [{"judge": j, "served model ids": ", ".join(v.get("served_model_ids", [])),
             "configured model": (v.get("config") or {}).get("model")} for j, v in judges.items()]
    parts += ["<h2 id='judges'>Judges</h2>", plain_table(pd.DataFrame(rows))]
    prompts = pd.DataFrame(sorted(manifest.get("prompt_templates", {}).items()), columns=["template", "sha256"])
    parts += ["<h2 id='prompts'>Prompt templates (sha256)</h2>", plain_table(prompts)]
    hashes = [{"judge": j, "output": o, "prompt hashes": ", ".join(e.get("prompt_hashes", []))}
              for j, v in judges.items() for o, e in v.get("outputs", {}).items()]
    parts.append(plain_table(pd.DataFrame(hashes)))
    parts += ["<h2 id='config'>Configuration</h2>",
              f"<pre>{_e(yaml.safe_dump(manifest.get('config', {}), sort_keys=False))}</pre>",
              "</body></html>"]
    return "\n".join(parts)
