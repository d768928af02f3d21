"""The leaderboard's views: LaTeX, the HTML page (with one leave-one-out figure per
dataset) and the frontier; the CSV frames are the build's own. A judge cell prints its
value with its interval (one estimand: the per-unit aggregate), its leave-one-out value
beside the humans' (one ruler), whether it is close to them, its rank, the alt-test."""
from __future__ import annotations

import html

import numpy as np
import pandas as pd

from ..latex import escape, fit
from .cells import FORMATS, GLOSSARY, SPECS, fmt, show
from .figure import dataset_figure

SUMMARY_VIEW = [("row", "Row"), ("alt_passes", "Alt-test"), ("close_to_humans", "Close to the humans"),
                ("mean_rank", "Mean rank"), ("ranked", "Ranked"), ("usd_per_1k", "USD / 1000 units"),
                ("seconds_per_1k", "Seconds / 1000 units"), ("flags", "Flags")]
SAVED, JURY = ("labels_saved", "Labels per human label (n_eff / n)"), ("jury_text", "Jury")


def summary_view(summary: pd.DataFrame) -> list[tuple[str, str]]:
    """The verdict table's columns: the labels saved where the savings stage ran, a jury column
    where a jury is ranked, before the flags."""
    extra = [SAVED] if SAVED[0] in summary else []
    extra += [JURY] if "jury" in summary and summary["jury"].notna().any() else []
    return SUMMARY_VIEW[:-1] + extra + SUMMARY_VIEW[-1:]


def jury_text(s) -> str:
    """A jury's line (sumjudge.leaderboard.beside): members, effective votes, against its best member."""
    if not isinstance(s.get("jury"), str):
        return ""
    n_eff = f"; n_eff {s['jury_n_eff']:.1f} (median)" if not pd.isna(s.get("jury_n_eff")) else ""
    return f"{s['jury']}{n_eff}; {s['jury_vs_best']}; cost: its members' summed"


def _saved_short(s) -> str:
    v = s.get("savings_neff_ratio")
    return "n/a" if v is None or pd.isna(v) else f"{v:.1f}" + ("*" if _text(s, "savings_note") else "")


def greyed(r) -> bool:
    """The cell is greyed (True as a Python or NumPy bool; NaN or missing is not)."""
    v = r.get("greyed")
    return isinstance(v, (bool, np.bool_)) and bool(v)


def one_document(r) -> bool:
    """An interval resting on one resampling cluster (one document): no interval at all."""
    return r.get("documents") == 1


ONE_DOC = "n/a (1 document)"


def interval(r, low: str, high: str) -> str:
    """Fields ``low`` and ``high`` of ``r`` as "[a, b]", "n/a (1 document)" for a one-document
    bootstrap, "" without one."""
    if one_document(r):
        return ONE_DOC
    return "" if pd.isna(r.get(low)) else f"[{show(r, low)}, {show(r, high)}]"


def _text(r, key: str) -> str:
    v = r.get(key)
    return v if isinstance(v, str) else ""


def _rank(r) -> str:
    if not pd.isna(r["rank_group"]):
        span = (f" (range {show(r, 'rank_low')}-{show(r, 'rank_high')})"
                if not pd.isna(r.get("rank_high")) and r.get("rank_high") != r.get("rank_low") else "")
        note = f" ({r['rank_note']})" if _text(r, "rank_note") else ""
        return f"rank {show(r, 'rank_group')}{span}{note}"
    return f"no rank: {r['rank_reason']}" if _text(r, "rank_reason") else ""


def _close(r) -> str:
    if pd.isna(r.get("loo_value")):
        return "LOO n/a"
    out = f"LOO {show(r, 'loo_value')}"
    iv = interval(r, "loo_low", "loo_high")
    out += f" {iv}" if iv else ""
    verdict = _text(r, "close_verdict")
    if verdict and not pd.isna(r.get("close_low")) and not one_document(r):
        verdict += (f" (LOO - humans' {show(r, 'close_diff')} [{show(r, 'close_low')}, "
                    f"{show(r, 'close_high')}])")
    twin = f"; twin of {r['twin']}" if _text(r, "twin") else ""
    return f"{out}: {verdict}{twin}" if verdict else out + twin


def prompt_text(r) -> str:
    """A prompt family's row (:mod:`.families`): its template and the family's spread at the cell's level."""
    if not _text(r, "prompt_template"):
        return ""
    out = f"template {r['prompt_template']}"
    if not pd.isna(r.get("prompt_spread_low", float("nan"))):
        low, _, high = _text(r, "prompt_spread").partition("-")   # "q10-q90": the quantiles it spans
        out += (f" · prompt spread {low} {show(r, 'prompt_spread_low')} - {high} {show(r, 'prompt_spread_high')}"
                f" (median {show(r, 'prompt_median')})")
    return out


def _bar_x(v: float) -> float:
    """A correlation (-1 to 1, clipped) as the spread bar's x (2 to 118 pixels)."""
    return 2 + (min(max(float(v), -1.0), 1.0) + 1) * 58


def spread_bar(r) -> str:
    """The family's spread at the cell's level drawn on -1 to 1: a bar from its lowest to its highest
    quantile, a tick at its median ("" for any other cell)."""
    low, high, mid = (pd.to_numeric(r.get(k, float("nan")), errors="coerce")
                      for k in ("prompt_spread_low", "prompt_spread_high", "prompt_median"))
    if pd.isna(low) or pd.isna(high):
        return ""
    tick = "" if pd.isna(mid) else \
        f'<line x1="{_bar_x(mid):.1f}" x2="{_bar_x(mid):.1f}" y1="1" y2="11" stroke="#333"/>'
    title = html.escape(prompt_text(r))
    # as wide as the cell, at most 120 px: a page of 12 columns still fits 1400 px
    return (f'<svg class="spread" style="display:block;margin-top:2px;width:100%;max-width:120px;height:12px" '
            f'viewBox="0 0 120 12" preserveAspectRatio="none" role="img" aria-label="{title}"><title>{title}</title>'
            f'<line x1="2" x2="118" y1="6" y2="6" stroke="#ccc"/>'
            f'<line x1="60" x2="60" y1="2" y2="10" stroke="#ccc"/><rect x="{_bar_x(low):.1f}" y="3" '
            f'width="{max(_bar_x(high) - _bar_x(low), 1):.1f}" height="6" fill="#9ecae1"/>{tick}</svg>')


def judge_text(r) -> str:
    """A judge cell: value [interval], leave-one-out and closeness, rank, alt-test, Tables 1-5 value
    (a prompt family's row: then its template and the family's spread)."""
    family = prompt_text(r)
    if greyed(r):  # the value, and one flag word: the reason is said once, beside the row's name
        return f"{show(r, 'value')} n={show(r, 'n')} · greyed" + (f" · {family}" if family else "")
    iv = interval(r, "ci_low", "ci_high")
    parts = [f"{show(r, 'value')}{' ' + iv if iv else ''} n={show(r, 'n')}", _close(r)]
    if not pd.isna(r.get("spa", float("nan"))):
        parts.append(f"SPA {show(r, 'spa')}")
    if not pd.isna(r.get("flip_rate", float("nan"))):
        parts.append(f"flip {show(r, 'flip_rate')}{' (flagged > 10%)' if r['flip_flag'] in (True, 1) else ''}; "
                     f"acc original {show(r, 'acc_original')}, agreement-else-tie {show(r, 'acc_agreement_else_tie')}"
                     f", agreement-only {show(r, 'acc_agreement_only')} ({show(r, 'n_conflicts')} conflicts left out)")
    parts += [p for p in (_rank(r), f"alt-test: {r['alt_verdict']}" if _text(r, "alt_verdict") else "") if p]
    if not pd.isna(r.get("table_value", float("nan"))):
        parts.append(f"Tables 1-5 {show(r, 'table_value')}")
    if _text(r, "jury_best_member"):
        k = FORMATS["count"](r["jury_k"])
        n_eff = f"; n_eff {r['jury_n_eff']:.1f} of {k}" if not pd.isna(r.get("jury_n_eff")) else ""
        parts.append(f"jury - best member ({r['jury_best_member']}) {r['jury_delta']:+.3f} "
                     f"[{r['jury_delta_low']:+.3f}, {r['jury_delta_high']:+.3f}]{n_eff}")
    return " · ".join(parts + ([family] if family else []))


def cell_text(r) -> str:
    if r["kind"] == "human":
        if pd.isna(r["value"]):
            return _text(r, "note")
        iv = interval(r, "loo_low", "loo_high")
        return f"LOO {show(r, 'value')}{' ' + iv if iv else ''} (n={show(r, 'n')})"
    return judge_text(r)


def esc_tex(s) -> str:
    """The tables' LaTeX escape, brackets braced (a cell that starts with "[" after ``\\\\`` is
    text, not the row's optional argument)."""
    return escape(s).replace("[", "{[}").replace("]", "{]}")


def _tex_note(r) -> str:
    if greyed(r):  # one table per column: the row's one cell, flag word and reason once
        return f"greyed: {r['reason']}"
    note = _rank(r) if r["kind"] == "judge" else _text(r, "note")
    for key in ("close_verdict", "alt_verdict"):
        if _text(r, key):
            note += f"; {'close' if key == 'close_verdict' else 'alt-test'}: {r[key]}"
    family = prompt_text(r)   # a prompt family's row: its template and the family's spread
    return f"{note}; {family}" if family else note


def _tex_column(col: str, part: pd.DataFrame) -> list[str]:
    rows = [r"\begin{tabular}{llrlrl>{\raggedright\arraybackslash}p{0.4\textwidth}}", r"\hline",
            r"Row & Kind & Value & 95\% interval & n & LOO & Rank / verdicts \\", r"\hline"]
    for _, r in part.iterrows():
        ci = "" if greyed(r) else interval(r, "ci_low", "ci_high")  # the page's rules: n/a (1 document)
        value = show(r, "value") if r["kind"] == "judge" else ""
        rows.append(f"{esc_tex(r['row'])} & {r['kind']} & {esc_tex(value)} & {esc_tex(ci)} & {show(r, 'n')} & "
                    f"{esc_tex(show(r, 'loo_value'))} & {esc_tex(_tex_note(r))} \\\\")
    return [r"\begin{table*}[ht]\centering\small", *fit(rows + [r"\hline", r"\end{tabular}"]),
            f"\\caption{{Leaderboard column {esc_tex(col)}: each judge's value and interval (its per-unit "
            r"aggregate), and judges and human annotators on one ruler (leave-one-out).}", r"\end{table*}", ""]


def latex(cells: pd.DataFrame, summary: pd.DataFrame) -> str:
    lines = [r"% the judge leaderboard (sumjudge.leaderboard); one table per column, then the summary"]
    for col, part in cells.groupby("column", sort=False):
        lines += _tex_column(col, part)
    saved = SAVED in summary_view(summary)
    view = SUMMARY_VIEW[:-1] + ([("_saved", "n_eff / n")] if saved else [])
    text = summary.assign(_saved=[_saved_short(s) for _, s in summary.iterrows()]) if saved else summary
    rows = [r"\begin{tabular}{" + "l" * len(view) + "}", r"\hline", " & ".join(esc_tex(h) for _, h in view) + r" \\", r"\hline"]
    rows += [" & ".join(esc_tex(fmt(s.get(k), 2)) for k, _ in view) + r" \\" for _, s in text.iterrows()]
    lines += [r"\begin{table*}[ht]\centering\small", *fit(rows + [r"\hline", r"\end{tabular}"])]
    return "\n".join(lines + [rf"\caption{{{esc_tex(summary_caption(summary))}}}", r"\end{table*}", ""])


def summary_caption(summary: pd.DataFrame) -> str:
    out = "Judge leaderboard: the verdict per judge."
    if "savings_n" in summary and summary["savings_n"].notna().any():
        n = int(summary["savings_n"].dropna().iloc[0])
        out += (f" n_eff / n: how many human labels alone one human label with the judge is worth, with {n} "
                "human-labelled documents and the judge on the others (PPI++, the median over systems and "
                "dimensions; the humans' line: a held-out annotator); * PPI++ cannot use the judge (lambda near 0).")
    return out


def _verdict_table(summary: pd.DataFrame) -> str:
    view = summary_view(summary)
    summary = summary.assign(jury_text=[jury_text(s) for _, s in summary.iterrows()])
    head = "".join(f"<th>{h}</th>" for _, h in view)
    body = "".join("<tr class=\"{}\">{}</tr>".format(html.escape(str(s.get("kind", ""))), "".join(
        f"<td>{html.escape(fmt(s.get(k), 2))}</td>" for k, _ in view)) for _, s in summary.iterrows())
    return f'<table id="verdict"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def greyed_reasons(mine: pd.DataFrame) -> str:
    """A row's greyed cells, said once: how many, and each distinct reason (the first cell's
    figures; the CSV has every cell's)."""
    grey = mine[[greyed(r) for _, r in mine.iterrows()]] if "greyed" in mine else mine.iloc[:0]
    if not len(grey):
        return ""
    reasons = grey["reason"].dropna().astype(str)
    kinds = dict.fromkeys(reasons.str.split(":").str[0])
    said = "; ".join(next(r for r in reasons if r.split(":")[0] == k) for k in kinds)
    return (f"greyed in {len(grey)} of {len(mine)} columns (no rank, no alt-test): {said}"
            + ("; each cell's own figures in leaderboard.csv" if len(grey) > len(kinds) else ""))


def _dataset_table(label: str, part: pd.DataFrame) -> str:
    cols = list(dict.fromkeys(part["column"]))
    t = part.assign(text=[cell_text(r) for _, r in part.iterrows()])
    rows = list(dict.fromkeys(zip(t["kind"], t["row"])))
    rows.sort(key=lambda kr: kr[0] != "human")                      # humans first, judges below
    head = "<th>Row</th>" + "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = []
    for kind, row in rows:
        mine = t[(t["row"] == row) & (t["kind"] == kind)].drop_duplicates("column").set_index("column")
        tds = []
        for c in cols:
            grey = c in mine.index and greyed(mine.loc[c])
            text = mine.at[c, "text"] if c in mine.index else ""
            cls = ' class="greyed"' if grey else ""
            bar = spread_bar(mine.loc[c]) if c in mine.index else ""
            tds.append(f"<td{cls}>{html.escape(str(text))}{bar}</td>")
        why = greyed_reasons(mine)
        why = f'<div class="why">{html.escape(why)}</div>' if why else ""
        body.append(f'<tr class="{kind}"><th>{html.escape(row)}{why}</th>{"".join(tds)}</tr>')
    return (f'<h3>{html.escape(label)}</h3>{dataset_figure(label, part)}<table class="dataset"><thead><tr>{head}'
            f'</tr></thead><tbody>{"".join(body)}</tbody></table>')


STYLE = """body{font-family:sans-serif;margin:1em;max-width:1380px} table{border-collapse:collapse;font-size:12px}
table.dataset{table-layout:fixed;width:100%} td,th{border:1px solid #ccc;padding:2px 4px;overflow-wrap:anywhere;
vertical-align:top} td.greyed{color:#999;background:#f3f3f3} th .why{font-weight:normal;font-size:11px;color:#666}
p.answer{font-size:17px;background:#eef5ff;border-left:4px solid #1f77b4;padding:.5em 1em} tr.human td,tr.human th{font-style:italic}
.caveats{background:#fff8e1;border-left:4px solid #f0a000;padding:.4em 1em;font-size:13px}
dl.glossary dt{font-weight:bold} figure.loo{margin:4px 0} svg.loo{display:block}
figure.loo figcaption{font-size:11px}"""



GLOSS_SAVED = """<dt>Labels per human label (n_eff / n)</dt><dd>from the savings stage (section below): with n
human-labelled documents and the judge scoring the others, how many human labels alone one human label with the judge is
worth for the same precision of each system's value (PPI++; the median over systems and dimensions, then per dataset with
its interval over draws of the labelled documents and the dataset's D documents). It means the same at any n and D; the
labels saved per 100 beside it are "at this dataset's size", capped at 100 (1 - n/D). The humans' line holds a held-out
annotator used as if it were a judge, the reference point. "PPI++ cannot use this judge (lambda near 0)": its answers do not
help.</dd>
"""
GLOSS_JURY = """<dt>Jury</dt><dd>a judge computed from its members' answers (mean, median or majority; no request of its
own): n_eff, its effective number of independent votes from the members' error correlations; against its best member, a paired
document-bootstrap 95 % interval of the difference per column (above 0: the jury is better there). Its cost is its
members' summed cost.</dd>
"""


def glossary(summary: pd.DataFrame, cells: pd.DataFrame | None = None) -> str:
    """The glossary, with the savings and jury entries where the verdict table has those columns, and
    the prompt family's where ``cells`` has a family row."""
    view = summary_view(summary)
    extra = (GLOSS_SAVED if SAVED in view else "") + (GLOSS_JURY if JURY in view else "")
    if cells is not None and "prompt_template" in cells and cells["prompt_template"].notna().any():
        spec = SPECS["prompt_family"]
        extra += f"<dt>{html.escape(spec.term)}</dt><dd>{spec.term_text}</dd>\n"
    return GLOSSARY.replace("<dt>cohe.", extra + "<dt>cohe.", 1)


def _caveats(lines) -> str:
    """The results' own caveats (their manifest's: a slice, which judges, which metrics)."""
    items = "".join(f"<li>{html.escape(x)}</li>" for x in lines)
    return f'<div class="caveats"><b>Read with care:</b><ul>{items}</ul></div>' if items else ""


def page(cells: pd.DataFrame, summary: pd.DataFrame, pairs: pd.DataFrame, frontier_svg: str = "",
         caveats: list[str] = (), savings_html: str = "", verdict: str = "") -> str:
    """The page; ``savings_html``: the savings stage's section (:func:`sumjudge.savings.html_fragment`);
    ``verdict``: the one-sentence answer, above the verdict table."""
    sections = "".join(_dataset_table(label, part) for label, part in cells.groupby("dataset", sort=False))
    ranked = set(cells.loc[cells["rank_group"].notna(), "column"]) if "rank_group" in cells else set()
    pairs = pairs[pairs["column"].isin(ranked)] if len(pairs) else pairs  # no pair where one judge is ranked
    answer = f'<p class="answer" id="answer">{html.escape(verdict)}</p>' if verdict else ""
    sep = (pairs.groupby("column").apply(lambda g: f"{int((g['p_one_sided_adjusted'] < 0.05).sum())} of {len(g)}",
                                         include_groups=False).to_dict() if len(pairs) else {})
    seps = "".join(f"<li>{html.escape(k)}: {html.escape(v)} judge pairs separable at 5 %</li>" for k, v in sep.items())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Judge leaderboard</title><style>{STYLE}</style></head><body>
<h1>Which judge is human-like?</h1>{_caveats(caveats)}
<h2>Verdict</h2>{answer}{_verdict_table(summary)}
<p>One line per judge (and its weighted-score row where it has one) and one for the humans, sorted by the verdict:
the alt-test passes k of N (N: every column of the run with an alt-test; a greyed, untested, uninformative or inconclusive
column is not a pass), close to the humans in k of N columns, then the mean rank over every ranked column (a judge without a rank
there counts one below the last); cost and time per 1000 units ("not priced" / "not measured" when unknown; a local
judge without <code>price_per_hour</code> is free). Greyed cells: too few valid replies or near-constant answers (no
rank, not tested). Definitions: docs/statistics.md, "The judge leaderboard".</p>
{glossary(summary, cells)}
<h2>Columns by dataset</h2>{sections}
{savings_html}
<h2>Separable judge pairs</h2><ul>{seps or '<li>fewer than two judges ranked in every column</li>'}</ul>
<h2>Frontier</h2>{frontier_svg}
</body></html>
"""


def frontier(summary: pd.DataFrame, path: str) -> None:
    """Seconds per 1000 units (x, log) against mean rank (y, lower is better), one point per
    judge row with both measured; with fewer than two such rows, says so instead."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "sumjudge"
    import matplotlib.pyplot as plt

    pts = [(pd.to_numeric(s.get("seconds_per_1k"), errors="coerce"), pd.to_numeric(s.get("mean_rank"), errors="coerce"),
            str(s["row"])) for _, s in summary.iterrows() if s.get("kind") == "judge"]
    pts = [p for p in pts if not (pd.isna(p[0]) or pd.isna(p[1]))]
    fig, ax = plt.subplots(figsize=(8, 4))
    if len(pts) < 2:
        ax.axis("off")
        ax.text(0.5, 0.5, f"{len(pts)} judge row(s) with a measured time and a mean rank:\nno frontier to draw "
                "(it compares two or more)", ha="center", va="center", transform=ax.transAxes)
    else:
        # named in a legend, not beside the points: a judge and its weighted row share their time and
        # often their rank, and labels beside them overlapped
        for x, y, name in sorted(pts):
            ax.scatter([x], [y], label=name)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
        ax.set_xscale("log")
        ax.set_xlabel("seconds per 1000 units (wall time)")
        ax.set_ylabel("mean rank (lower is better)")
        ax.invert_yaxis()
        ax.set_title("Judge frontier: time against mean rank")
    fig.tight_layout()
    fmt_ = str(path).rsplit(".", 1)[-1]
    fig.savefig(path, format=fmt_, metadata={"Date": None} if fmt_ == "svg" else None, dpi=100)
    plt.close(fig)
