"""The leaderboard's views: LaTeX, the HTML page and the frontier (the CSV frames are the
build's own). Judge cells print the judge's leave-one-out value beside the humans' (one
ruler); the Tables 1-5 value stays as its own, labelled part."""
from __future__ import annotations

import html
import math

import pandas as pd

from ..tables.latex import escape, fit

SUMMARY_VIEW = [("row", "Row"), ("alt_passes", "Alt-test"), ("within_human_loo", "Within human LOO range"),
                ("mean_rank", "Mean rank"), ("usd_per_1k", "USD / 1000 units"),
                ("seconds_per_1k", "Seconds / 1000 units"), ("flags", "Flags")]


def fmt(v, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def _int(v) -> str:
    return "" if v is None or pd.isna(v) else str(int(v))


def judge_text(r) -> str:
    """A judge cell: its leave-one-out value, the Tables 1-5 value, its rank or why not, the alt-test."""
    parts = [f"LOO {fmt(r['loo_value'])}" if not pd.isna(r["loo_value"]) else "LOO n/a",
             f"Tables 1-5 {fmt(r['value'])} [{fmt(r['ci_low'])}, {fmt(r['ci_high'])}] n={_int(r['n'])}"]
    if not pd.isna(r.get("flip_rate", float("nan"))):
        parts.append(f"flip {r['flip_rate']:.0%}{' (flagged > 10%)' if r['flip_flag'] in (True, 1) else ''}; "
                     f"acc original {fmt(r['acc_original'])}, agreement-else-tie {fmt(r['acc_agreement_else_tie'])}"
                     f", agreement-only {fmt(r['acc_agreement_only'])} ({_int(r['n_conflicts'])} conflicts left out)")
    if r["greyed"]:  # no rank, and the alt-test's "not tested" would restate the same reason
        parts.append(f"greyed (no rank, alt-test not tested): {r['reason']}")
        return " · ".join(parts)
    elif not pd.isna(r["rank_group"]):
        span = f" (range {int(r['rank_low'])}-{int(r['rank_high'])})" if r.get("rank_high") != r.get("rank_low") \
            and not pd.isna(r.get("rank_high")) else ""
        parts.append(f"rank {int(r['rank_group'])}{span}")
    elif isinstance(r.get("rank_reason"), str) and r["rank_reason"]:
        parts.append(f"no rank: {r['rank_reason']}")
    if isinstance(r.get("alt_verdict"), str) and r["alt_verdict"]:
        parts.append(f"alt-test: {r['alt_verdict']}")
    return " · ".join(parts)


def cell_text(r) -> str:
    if r["kind"] == "human":
        if pd.isna(r["value"]):
            return r["note"] if isinstance(r.get("note"), str) else ""
        return f"LOO {r['value']:.3f} (n={_int(r['n'])})"
    return judge_text(r)


def esc_tex(s) -> str:
    """The tables' LaTeX escape, brackets braced (a cell that starts with "[" after ``\\\\`` is
    text, not the row's optional argument)."""
    return escape(s).replace("[", "{[}").replace("]", "{]}")


def _tex_column(col: str, part: pd.DataFrame) -> list[str]:
    rows = [r"\begin{tabular}{llrrrl>{\raggedright\arraybackslash}p{0.4\textwidth}}", r"\hline",
            r"Row & Kind & LOO value & Tables 1-5 value & n & 95\% interval & Rank / verdict \\", r"\hline"]
    for _, r in part.iterrows():
        note = r["reason"] if r["greyed"] is True else (f"rank {int(r['rank_group'])}" if not pd.isna(r["rank_group"])
                                                        else (r["note"] if isinstance(r["note"], str) else ""))
        if isinstance(r.get("alt_verdict"), str) and r["alt_verdict"]:
            note += f"; alt-test {r['alt_verdict']}"
        ci = "" if pd.isna(r["ci_low"]) else f"[{fmt(r['ci_low'])}, {fmt(r['ci_high'])}]"
        table_value = fmt(r["value"]) if r["kind"] == "judge" else ""
        rows.append(f"{esc_tex(r['row'])} & {r['kind']} & {esc_tex(fmt(r['loo_value']))} & {esc_tex(table_value)} & "
                    f"{_int(r['n'])} & {esc_tex(ci)} & {esc_tex(note)} \\\\")
    return [r"\begin{table*}[ht]\centering\small", *fit(rows + [r"\hline", r"\end{tabular}"]),
            f"\\caption{{Leaderboard column {esc_tex(col)}: judges and human annotators on one ruler "
            r"(leave-one-out); the Tables 1-5 value beside.}", r"\end{table*}", ""]


def latex(cells: pd.DataFrame, summary: pd.DataFrame) -> str:
    lines = [r"% the judge leaderboard (sumjudge.leaderboard); one table per column, then the summary"]
    for col, part in cells.groupby("column", sort=False):
        lines += _tex_column(col, part)
    rows = [r"\begin{tabular}{lllrll}", r"\hline", " & ".join(h for _, h in SUMMARY_VIEW[:-1]) + r" \\", r"\hline"]
    rows += [" & ".join(esc_tex(fmt(s.get(k), 2)) for k, _ in SUMMARY_VIEW[:-1]) + r" \\" for _, s in summary.iterrows()]
    lines += [r"\begin{table*}[ht]\centering\small", *fit(rows + [r"\hline", r"\end{tabular}"])]
    return "\n".join(lines + [r"\caption{Judge leaderboard: the verdict per judge.}", r"\end{table*}", ""])


def _verdict_table(summary: pd.DataFrame) -> str:
    head = "".join(f"<th>{h}</th>" for _, h in SUMMARY_VIEW)
    body = "".join("<tr class=\"{}\">{}</tr>".format(html.escape(str(s.get("kind", ""))), "".join(
        f"<td>{html.escape(fmt(s.get(k), 2))}</td>" for k, _ in SUMMARY_VIEW)) for _, s in summary.iterrows())
    return f'<table id="verdict"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _dataset_table(label: str, part: pd.DataFrame) -> str:
    cols = list(dict.fromkeys(part["column"]))
    t = part.assign(text=[cell_text(r) for _, r in part.iterrows()])
    rows = list(dict.fromkeys(zip(t["kind"], t["row"])))
    rows.sort(key=lambda kr: kr[0] != "human")                      # humans first, judges below
    head = "<th>Row</th>" + "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = []
    for kind, row in rows:
        mine = t[(t["row"] == row) & (t["kind"] == kind)].set_index("column")
        tds = []
        for c in cols:
            grey = c in mine.index and mine.at[c, "greyed"] is True
            text = mine.at[c, "text"] if c in mine.index else ""
            cls = ' class="greyed"' if grey else ""
            tds.append(f"<td{cls}>{html.escape(str(text))}</td>")
        body.append(f'<tr class="{kind}"><th>{html.escape(row)}</th>{"".join(tds)}</tr>')
    return (f'<h3>{html.escape(label)}</h3><table class="dataset"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')


STYLE = """body{font-family:sans-serif;margin:1em;max-width:1380px} table{border-collapse:collapse;font-size:12px}
table.dataset{table-layout:fixed;width:100%} td,th{border:1px solid #ccc;padding:2px 4px;overflow-wrap:anywhere;
vertical-align:top} td.greyed{color:#999;background:#f3f3f3} tr.human td,tr.human th{font-style:italic}
.caveats{background:#fff8e1;border-left:4px solid #f0a000;padding:.4em 1em;font-size:13px}"""


def _caveats(lines) -> str:
    """The results' own caveats (their manifest's: a slice, which judges, which metrics)."""
    items = "".join(f"<li>{html.escape(x)}</li>" for x in lines)
    return f'<div class="caveats"><b>Read with care:</b><ul>{items}</ul></div>' if items else ""


def page(cells: pd.DataFrame, summary: pd.DataFrame, pairs: pd.DataFrame, frontier_svg: str = "",
         caveats: list[str] = ()) -> str:
    sections = "".join(_dataset_table(label, part) for label, part in cells.groupby("dataset", sort=False))
    sep = (pairs.groupby("column").apply(lambda g: f"{int((g['p_adjusted'] < 0.05).sum())} of {len(g)}",
                                         include_groups=False).to_dict() if len(pairs) else {})
    seps = "".join(f"<li>{html.escape(k)}: {html.escape(v)} judge pairs separable at 95 %</li>" for k, v in sep.items())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Judge leaderboard</title><style>{STYLE}</style></head><body>
<h1>Which judge is human-like?</h1>{_caveats(caveats)}
<h2>Verdict</h2>{_verdict_table(summary)}
<p>One line per judge (and its weighted-score row where it has one) and one for the humans, sorted by the verdict:
alt-test passes k of N (columns where it was tested), columns where its leave-one-out value lies within the
human leave-one-out range, mean rank; cost and time per 1000 units ("not priced" / "not measured" when unknown).
Cells below: the judge's leave-one-out value (the humans' ruler), the Tables 1-5 value [95 % interval] n, its
rank (ties by one-sided paired tests) and the alt-test. Greyed: too few valid replies or near-constant answers
(no rank, not tested). Definitions: docs/statistics.md, "The judge leaderboard".</p>
<h2>Columns by dataset</h2>{sections}
<h2>Separable judge pairs</h2><ul>{seps or '<li>fewer than two ranked judges in every column</li>'}</ul>
<h2>Frontier</h2>{frontier_svg}
</body></html>
"""


def frontier(summary: pd.DataFrame, path: str) -> None:
    """Seconds per 1000 units (x, log) against mean rank (y, lower is better), one point per
    judge row with both measured."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "sumjudge"
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    shown = 0
    for _, s in summary.iterrows():
        x, y = pd.to_numeric(s.get("seconds_per_1k"), errors="coerce"), pd.to_numeric(s.get("mean_rank"),
                                                                                       errors="coerce")
        if pd.isna(x) or pd.isna(y):
            continue
        shown += 1
        ax.scatter([x], [y])
        ax.annotate(f"{s['row']} ({s['usd_per_1k']} USD/1k)", (x, y), fontsize=7)
    if not shown:
        ax.text(0.5, 0.5, "no judge with a measured time and a rank", ha="center", transform=ax.transAxes)
    ax.set_xlabel("seconds per 1000 units")
    ax.set_ylabel("mean rank (lower is better)")
    ax.invert_yaxis()
    ax.set_title("Judge frontier: time against rank")
    fig.tight_layout()
    fmt_ = str(path).rsplit(".", 1)[-1]
    fig.savefig(path, format=fmt_, metadata={"Date": None} if fmt_ == "svg" else None, dpi=100)
    plt.close(fig)
