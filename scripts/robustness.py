"""Rule `robustness_family`: a family's judge tables (+ the paper's SummEval variants) ->
results/robustness/{family}/{summary,prompts,table6}.csv and table6.md."""
import os
import sys
from pathlib import Path

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log

import pandas as pd

from sumjudge.io import write_text
from sumjudge.robustness.build import design_warnings, family_tables, markdown, paper_variants, table6_generalised
from sumjudge.robustness.families import Family
from sumjudge.robustness.spread import SpreadSettings

log = _log.setup(snakemake)
p = snakemake.params
family = Family.from_params(p.family)
settings = SpreadSettings(**{**p.settings, "quantiles": tuple(p.settings["quantiles"])})
human = pd.read_parquet(snakemake.input.data)


def by_judge(paths, name):
    """judge -> {template or variant: table}: results/.../{judge}/.../{name}.parquet."""
    out = {}
    for path in map(Path, paths):
        judge = path.parts[-3]
        out.setdefault(judge, {})[name(path)] = pd.read_parquet(path)
    return out


family_judges = by_judge(snakemake.input.family, lambda path: path.stem)
paper = paper_variants(human, by_judge(snakemake.input.paper, lambda path: path.stem), family.dataset, settings)
summary, prompts = family_tables(human, family_judges, family, settings)
table = table6_generalised(summary, paper)
summary.to_csv(snakemake.output.summary, index=False)
prompts.to_csv(snakemake.output.prompts, index=False)
table.to_csv(snakemake.output.table6, index=False)
write_text(markdown(table), snakemake.output.table6_md)
for warning in filter(None, design_warnings(table)):
    log.warning(warning.replace("**", ""))
log.info("%s: %d judges x %d templates; requests %.1fx one prompt's", family.name, len(family_judges),
         len(family.templates), family.requests_ratio())
