"""Rule `judge_swapped`: rule `judge` on the dataset table with the two summaries of every
pair exchanged (judge.pairwise_orders: [original, swapped]); scripts/judge.py does the work."""
import os
import runpy
import sys
import tempfile
from pathlib import Path

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge

import pandas as pd  # noqa: E402

from sumjudge.judge.targets import swap_pairs  # noqa: E402

with tempfile.TemporaryDirectory() as tmp:
    swapped = Path(tmp) / Path(snakemake.input.data).name
    swap_pairs(pd.read_parquet(snakemake.input.data)).to_parquet(swapped)
    snakemake.input.data = str(swapped)
    runpy.run_path(str(Path(snakemake.scriptdir) / "judge.py"), init_globals={"snakemake": snakemake},
                   run_name="__main__")
