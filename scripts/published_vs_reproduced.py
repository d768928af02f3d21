"""Rule `published_vs_reproduced`: every published cell beside its reproduced value."""
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log

from sumjudge.tables.build import write_csv
from sumjudge.tables.published import published_vs_reproduced, read_table_csv

log = _log.setup(snakemake)
tables = [read_table_csv(p) for p in snakemake.input]
df = published_vs_reproduced(tables)
write_csv(df, snakemake.output[0])
done = df["value"].notna()
log.info("%d published cells; %d reproduced rows beside them (%d cells without a reproduction)",
         df[["table", "dataset", "dimension", "level", "row"]].drop_duplicates().shape[0], int(done.sum()),
         int((~done).sum()))
