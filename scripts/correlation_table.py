"""Rule `correlation_table`: Table 1 (SummEval) or 2 (Newsroom) as CSV and LaTeX."""
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log  # noqa: E402

import pandas as pd  # noqa: E402

from sumjudge.io import write_text  # noqa: E402
from sumjudge.tables.correlation import (DIMENSIONS, LABELS, ROUGE_ROWS, TABLES,  # noqa: E402
                                         correlation_rows, order_rows)
from sumjudge.tables.latex import correlation_latex  # noqa: E402
from sumjudge.tables.published import attach_published  # noqa: E402

log = _log.setup(snakemake)
dataset = snakemake.params.dataset
human = pd.read_parquet(snakemake.input.data)
rouge = pd.read_parquet(snakemake.input.rouge)
rows = correlation_rows(human, rouge, ROUGE_ROWS, dataset, snakemake.params.method,
                        snakemake.params.undefined)
table = order_rows(attach_published(rows), dataset)
write_text(table.to_csv(index=False, float_format="%.6g"), snakemake.output.csv)
caption = (f"{TABLES[dataset]}: {snakemake.params.method.capitalize()} correlation with human "
           f"judgments on {LABELS[dataset]} at sample, system and dataset level.")
write_text(correlation_latex(table, DIMENSIONS[dataset], caption, f"tab:{snakemake.wildcards.table}"),
           snakemake.output.tex)
compared = table["published"].notna()
if compared.any():
    log.info("%d cells beside a published value; max |diff| %.4f", compared.sum(),
             table.loc[compared, "diff"].abs().max())
