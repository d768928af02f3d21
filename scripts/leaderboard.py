"""Rule `leaderboard`: judges and leave-one-out humans side by side (CSV, LaTeX, HTML, frontier)."""
import json
import os
import sys
from pathlib import Path

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log

from sumjudge.datasets import registry
from sumjudge.io import write_text
from sumjudge.jury.summary import read_summaries
from sumjudge.leaderboard.beside import savings_columns
from sumjudge.leaderboard.build import build
from sumjudge.leaderboard.families import read_inputs
from sumjudge.leaderboard.render import frontier, latex, page
from sumjudge.leaderboard.settings import LeaderboardSettings
from sumjudge.leaderboard.summary import JudgePricing
from sumjudge.savings import html_fragment, read_ledger
from sumjudge.savings.settings import SavingsSettings
from sumjudge.evidence.settings import TableSettings

log = _log.setup(snakemake)
p = snakemake.params
known = registry(snakemake.config)  # the built-in datasets and custom_datasets
ledger = list(snakemake.input.savings)[:1]  # results/savings/ledger.csv where the savings stage ran
savings = SavingsSettings.from_params(p.savings) if ledger else None
i = snakemake.input
# leaderboard.families: the prompt families' median and 10th-percentile rows (none when it is off)
families = read_inputs(p.families, list(i.family_summaries), list(i.family_prompts),
                       list(i.family_tables)) if p.families else None
out = build(list(snakemake.input.tables), dict(zip(p.datasets, snakemake.input.data)), list(snakemake.input.judges),
            {d: known[d] for d in p.datasets}, TableSettings.from_params(p.tables),
            LeaderboardSettings.from_params(p.board), {j: JudgePricing.from_params(v) for j, v in p.pricing.items()},
            savings_columns(read_ledger(ledger[0]), savings.summary_n, savings.lambda_floor) if ledger else None,
            read_summaries(list(snakemake.input.juries)), savings.summary_n if ledger else None, families)
o = snakemake.output
Path(o.csv).parent.mkdir(parents=True, exist_ok=True)
out["cells"].to_csv(o.csv, index=False)
out["summary"].to_csv(o.summary, index=False)
out["pairs"].to_csv(o.pairs, index=False)
out["alt"].to_csv(o.alt, index=False)
write_text(latex(out["cells"], out["summary"]), o.tex)
frontier(out["summary"], o.svg)
frontier(out["summary"], o.png)
svg = Path(o.svg).read_text()
caveats = json.loads(Path(snakemake.input.manifest).read_text()).get("caveats", [])  # the run's own (a slice, ...)
fragment = html_fragment(Path(ledger[0]).parent, savings) if ledger else ""
write_text(page(out["cells"], out["summary"], out["pairs"], svg[svg.find("<svg"):], caveats, fragment, out["verdict"]),
           o.html)
write_text(out["verdict"] + "\n", o.verdict)  # the run's closing summary says it (workflow/rules/common.smk)
log.info("verdict: %s", out["verdict"])
for _, s in out["summary"].iterrows():
    log.info("%s: alt-test %s, %s, mean rank %s, %s USD per 1000 units%s",
             s["row"], s["alt_passes"], s["close_to_humans"], s.get("mean_rank"), s.get("usd_per_1k"),
             f"; n_eff / n (labels per human label): {s['labels_saved']}" if s.get("labels_saved") else "")
for col, g in (out["pairs"].groupby("column") if len(out["pairs"]) else []):
    log.info("%s: %d of %d judge pairs separable at 5%%", col, int((g["p_one_sided_adjusted"] < 0.05).sum()), len(g))
