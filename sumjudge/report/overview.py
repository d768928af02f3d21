"""One self-contained HTML page with every table, the judge-vs-strongest chart,
the judge's own answer distribution, invalid rates, cost, prompt texts and
hashes and the config (embedded in the Snakemake report).

Above everything: a table of contents and the caveats of the run (slice or full
data, which judge and that it is not the paper's ChatGPT, which metrics ran);
above every table its own caveats (:func:`sumjudge.tables.caveats.table_caveats`).
Bold marks the unique best of a column among rows that are not near-constant
judges (ties: none), and only in a column that can separate rows (not from one
document, no permutation test at p = 1), as in the LaTeX; an interval from one
document reads "n/a (1 document)"."""
from __future__ import annotations

import html
import math
from typing import Any

import pandas as pd
import yaml

from ..tables.common import one_cluster

CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1400px;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:12px}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}
th{background:#f3f3f3} td.l,th.l{text-align:left} .ci,.pub{color:#666;font-size:10px}
.best{font-weight:bold} .sig{color:#b30000} pre{background:#f6f6f6;padding:.6em;font-size:11px;overflow:auto}
td.reply{text-align:left;white-space:pre-wrap;max-width:700px}
.caveats{background:#fff8e1;border-left:4px solid #f0a000;padding:.4em 1em;margin:.4em 0 .8em;font-size:13px}
.near{color:#8a5a00;font-size:10px} svg{max-width:100%;height:auto} nav.toc{columns:2;font-size:13px}
div.wide{overflow-x:auto;max-width:100%} td.row{min-width:11em;max-width:16em}
"""

NOTES = {
    "table3": '"BARTScore" is BERTScore: the paper prints it so in Table 3; the name is kept so its value attaches.',
    "table6": "Annotator rows: each expert against the three-expert mean, on the summaries with per-expert "
              "scores (all 16 systems). Judge rows: all summaries; prompt variants tested against the base prompt.",
    "table9": "Invalid rate = invalid / (ok + invalid) replies; replies that never arrived (api_error) are "
              "counted apart. Below: dataset-level Spearman between the judge's own fluency and coherence.",
}

TITLES = {
    "table1": "Table 1: SummEval, correlation at three levels",
    "table2": "Table 2: Newsroom, correlation at three levels",
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


def _flag(v) -> bool:
    return str(v).strip().lower() in ("true", "1", "1.0")


def _cell(c: pd.Series, digits: int, is_best: bool) -> str:
    v = c.get("value")
    near = _flag(c.get("near_constant"))
    cls = "best" if is_best and not near else ""
    parts = [f'<span class="{cls}">{_num(v, digits)}</span>']
    if near:
        parts.append('<br><span class="near">near-constant judge: not meaningful</span>')
    if one_cluster(c):  # a zero-width interval from one document is no interval
        parts.append(f'<br><span class="ci">{_e(one_cluster(c))}</span>')
    elif not pd.isna(c.get("ci_low", math.nan)):
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
    elif "published_note" in c and isinstance(c.get("published_note"), str):
        parts.append('<br><span class="pub">paper: not in this copy</span>')
    return "".join(parts)


def _column_best(g: pd.DataFrame, digits: int, lower_better: bool):
    """The LaTeX's rule (latex.column_best): the single best of at least two rows, not a
    near-constant judge, in a column that can separate rows (latex.can_separate)."""
    from ..tables.latex import column_best

    near = set(g.loc[g["near_constant"].map(_flag), "row"]) if "near_constant" in g else set()
    return column_best(g, digits, lower_better, exclude=near)


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
    best = {c: (_column_best(df[df["_col"] == c], digits, lower_better) if bold else None) for c in cols}
    out = ['<div class="wide"><table><tr><th class="l">Row</th>' + "".join(f"<th>{c}</th>" for c in cols)
           + "</tr>"]
    for r in rows:
        first = cell.loc[r].iloc[0] if r in cell.index.get_level_values(0) else pd.Series(dtype=object)
        kind = first.get("kind", "")
        note = first.get("model_note")
        if isinstance(note, str) and note.startswith(f"{kind} "):
            kind = ""  # "judge qwen-1.5b (...)": the note already says it
        note = f'<br><span class="ci">{_e(note)}</span>' if isinstance(note, str) else ""
        tds = "".join(f"<td>{_cell(cell.loc[(r, c)], digits, best[c] == r)}</td>" if (r, c) in cell.index
                      else "<td>–</td>" for c in cols)
        out.append(f'<tr><td class="l row">{_e(r)} <span class="ci">{_e(kind)}</span>{note}</td>{tds}</tr>')
    out.append("</table></div>")
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
    return '<div class="wide">' + df.to_html(index=False, na_rep="–", border=0,
                                             float_format=lambda v: f"{v:.4g}") + "</div>"


def caveat_box(lines: list[str], cls: str = "caveats") -> str:
    if not lines:
        return ""
    return f"<div class='{cls}'><b>Read with care:</b><ul>" + "".join(f"<li>{_e(x)}</li>" for x in lines) \
        + "</ul></div>"


def landing_caveats(manifest: dict[str, Any], tables: dict[str, pd.DataFrame]) -> list[str]:
    """The landing page's caveats: the results' own (their manifest's ``caveats``: what data,
    which judges, which metrics), then each near-constant judge the tables flag."""
    from .caveats import run_caveats as from_manifest

    lines = list(manifest.get("caveats") or from_manifest(manifest))
    near = sorted({f"{r} ({d})" for t in tables.values() if "near_constant" in t
                   for r, d, f in zip(t["row"], t["dataset"], t["near_constant"]) if _flag(f)})
    if near:
        lines.append("Near-constant judge: correlations and accuracies are not meaningful for " + ", ".join(near)
                     + "; these cells are never marked best.")
    return lines


def render(tables: dict[str, pd.DataFrame], chart_svg: str, judge_vs_best: pd.DataFrame, usage: pd.DataFrame,
           manifest: dict[str, Any], context: dict[str, Any], behaviour_svg: str = "",
           behaviour: pd.DataFrame | None = None, prompts: dict[str, str] | None = None) -> str:
    """The page; ``context``: the tables' context (:func:`sumjudge.report.caveats.table_context`,
    the rule's param) for each table's caveats."""
    from ..datasets import BUILTIN
    from ..tables.caveats import table_caveats

    def kind(df) -> str:
        return "accuracy" if _accuracy(df) else "correlation at three levels"

    titles = {**TITLES, **{k: (f"{BUILTIN[k].label}, beyond the paper ({kind(df)})" if k in BUILTIN
                               else f"Your dataset {k} ({kind(df)})")
                           for k, df in tables.items() if k not in TITLES}}  # own tables: beyond the paper, custom
    toc = [("caveats", "Caveats"), ("chart", "The 28-column view"), ("behaviour", "The judge's own answers")]
    toc += [(k, t) for k, t in titles.items() if tables.get(k) is not None]
    toc += [("usage", "Requests, tokens and cost"), ("judges", "Judges"), ("prompts", "Prompt texts"),
            ("config", "Configuration")]
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>sumjudge tables</title>"
             f"<style>{CSS}</style></head><body>",
             "<h1>Human-like Summarization Evaluation with ChatGPT: reproduction</h1>",
             f"<p>Code version <b>{_e(manifest.get('code_version'))}</b>, written {_e(manifest.get('created'))}. "
             "Every cell: value, 95% bootstrap interval, the permutation test's p-value against the compared "
             "row (judge rows), the spread over repeats, and the paper's value. Definitions: docs/statistics.md, "
             "docs/tables.md.</p>",
             "<p>Which judge is human-like? <a href='../leaderboard/leaderboard.html'>The judge leaderboard</a> "
             "(judges beside leave-one-out human annotators, rank groups, alt-test, cost; built when judge.run "
             "names a judge).</p>",
             "<nav class='toc'><b>Contents</b><ol>" + "".join(f"<li><a href='#{k}'>{_e(t)}</a></li>" for k, t in toc)
             + "</ol></nav>",
             "<h2 id='caveats'>Caveats</h2>", caveat_box(landing_caveats(manifest, tables)),
             "<h2 id='chart'>The 28-column view: judge minus the strongest other row</h2>",
             "<p>Tables 1-2 in correlation points, Tables 3-5 in percentage points; hollow bars and diamonds: the "
             "paper's published margin for ChatGPT; n per column, and the documents or systems it spans; grey: "
             "near-constant judge. A margin without an interval (none computed, or bootstrapped from one "
             "document) gets no bar: a hollow point marked \"no interval\". Data: judge_vs_best.csv.</p>", chart_svg,
             "<details><summary>Chart data</summary>", plain_table(judge_vs_best), "</details>",
             "<h2 id='behaviour'>The judge's own answers</h2>",
             "<p>Share of each answer per judge and dataset (base prompt), beside the human gold balance where "
             "there is one. A judge whose answers vary much less than the humans' own is near-constant (the "
             "leaderboard's gate: a score's SD, every sample counted, under leaderboard.near_constant_sd_ratio of "
             "the least dispersed human's; a label's modal share above tables.near_constant with its other answers "
             "under leaderboard.near_constant_ratio of the humans'): its correlations and accuracies are not "
             "meaningful. Data: judge_behaviour.csv.</p>",
             behaviour_svg]
    if behaviour is not None and len(behaviour):
        from ..tables.behaviour import summary

        parts.append(plain_table(summary(behaviour)))
    for key, title in titles.items():
        df = tables.get(key)
        if df is None:
            continue
        parts.append(f"<h2 id='{key}'>{_e(title)}</h2>")
        parts.append(caveat_box(table_caveats(df, context) or _reply_caveats(df, context)))
        if key in NOTES:
            parts.append(f"<p>{_e(NOTES[key])}</p>")
        if key in ("table7", "table8"):
            parts.append(examples_table(df))
        elif key == "table9":
            parts.append(numeric_table(df[df["dimension"] == "invalid_rate"], 4, lower_better=True))
            parts.append(numeric_table(df[df["dimension"] != "invalid_rate"], 3, bold=False))
        else:
            parts.append(numeric_table(df, 4 if key in ("table3", "table4", "table5") or _accuracy(df) else 3))
    parts += ["<h2 id='usage'>Requests, tokens and cost</h2>", usage_section(usage)]
    judges = {j: v for j, v in manifest.get("judges", {}).items() if v.get("outputs")}  # those that ran
    rows = [{"judge": j, "served model ids": ", ".join(v.get("served_model_ids", [])),
             "configured model": (v.get("config") or {}).get("model")} for j, v in judges.items()]
    parts += ["<h2 id='judges'>Judges</h2>", plain_table(pd.DataFrame(rows)),
              "<p>Every raw reply (unit, prompt hash, reply, parsed label, status): replies.html and replies.csv "
              "beside this page.</p>"]
    prompt_hashes = manifest.get("prompt_templates", {})
    parts.append("<h2 id='prompts'>Prompt texts</h2>")
    parts.append("<p>Prompt hash: " + _e(manifest.get("prompt_hash_definition", "")) + "</p>")
    for name, text in sorted((prompts or {}).items()):
        h = next((v for k, v in prompt_hashes.items() if k.endswith(name)), "")
        parts.append(f"<details><summary>{_e(name)} <code>{_e(str(h)[:12])}</code></summary><pre>{_e(text)}</pre>"
                     "</details>")
    prompts_df = pd.DataFrame(sorted(prompt_hashes.items()), columns=["template", "sha256"])
    parts += ["<details><summary>Template hashes</summary>", plain_table(prompts_df), "</details>"]
    hashes = [{"judge": j, "output": o, "prompt hashes": ", ".join(e.get("prompt_hashes", []))}
              for j, v in judges.items() for o, e in v.get("outputs", {}).items()]
    parts += ["<details><summary>Per-request prompt hashes (one per rendered prompt)</summary>",
              plain_table(pd.DataFrame(hashes)), "</details>"]
    parts += ["<h2 id='config'>Configuration</h2>",
              f"<pre>{_e(yaml.safe_dump(manifest.get('config', {}), sort_keys=False))}</pre>",
              "</body></html>"]
    return "\n".join(parts)


# the cost table's columns a reader needs, by the usage table's (tables/replies.py usage_table) names
USAGE_SHOWN = {"judge": "judge", "dataset": "dataset", "variant": "prompt", "units": "units",
               "requests_sent": "requests sent", "cache_hits": "from the cache", "input_tokens": "input tokens",
               "output_tokens": "output tokens", "cost_usd": "USD"}


def usage_section(usage: pd.DataFrame) -> str:
    """What each judge run cost, in the columns a reader needs, then every column of
    usage.csv folded away."""
    if usage is None or usage.empty:
        return "<p>No judge ran.</p>"
    shown = usage[[c for c in USAGE_SHOWN if c in usage]].rename(columns=USAGE_SHOWN)
    return ("<p>Per judge, dataset and prompt: the units judged, the requests sent now and the replies taken from "
            "the cache (a run from a full cache sends none). Requests and cache hits can be fewer than units: "
            "units with the same prompt (a summary repeated in a document) share one request. USD: the judge's "
            "configured prices (0 for an embedded judge, empty when no price is set).</p>"
            + plain_table(shown) + "<details><summary>Every column of usage.csv</summary>" + plain_table(usage)
            + "</details>")


def _accuracy(df: pd.DataFrame) -> bool:
    """An accuracy table (level ``accuracy``), not a correlation table."""
    return df is not None and "level" in df and len(df) > 0 and bool((df["level"] == "accuracy").all())


def _reply_caveats(df: pd.DataFrame, context: dict) -> list[str]:
    """Tables 7-9: which judge wrote the replies."""
    if df is None or df.empty or "row" not in df:
        return []
    judges = sorted({str(r).split("+")[0] for r in df["row"]})
    return ["Judge " + context["judges"].get(j, f"{j} (not the paper's ChatGPT)") + "." for j in judges]
