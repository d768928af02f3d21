"""Rule `judge_chart`: judge minus the strongest other row, per column of Tables 1-5."""
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log

from sumjudge.tables.build import write_csv
from sumjudge.tables.chart import judge_vs_best, plot
from sumjudge.tables.published import read_table_csv

log = _log.setup(snakemake)
df = judge_vs_best([read_table_csv(p) for p in snakemake.input])
write_csv(df, snakemake.output.csv)
plot(df, snakemake.output.svg)
plot(df, snakemake.output.png)
log.info("%d judge columns (%d compared, %d significant at 0.05)", len(df), int((df["status"] == "compared").sum()),
         int(df["significant"].fillna(False).astype(bool).sum()) if len(df) else 0)
