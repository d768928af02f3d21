"""The full-SummEval leaderboard scenario recorded before the rebuild (issue 25):
the prepared SummEval table (1,600 summaries) and two synthetic judges
(tests/support/synthetic.py; seeded noise on the expert mean, 5 % invalid replies),
their Table 1 cells and usage files. tests/fixtures/leaderboard_before/ holds the four
frames the old ``sumjudge.tables.leaderboard.build`` wrote from it; the rebuilt
package's frames are compared with them (tests/leaderboard/test_leaderboard_before.py)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from support.synthetic import write_judge

JUDGES = {"alpha": {"noise": 0.6, "seed": 0}, "beta": {"noise": 1.4, "seed": 1}}
LEVELS = ("sample", "system", "dataset")
RESAMPLES = 200


def summeval(mirror: str | Path) -> pd.DataFrame:
    from sumjudge.data.prepare import locate, prepare_dataset, source_files

    return prepare_dataset("summeval", locate(source_files("summeval", {}), mirror), {"subset": {}})


def write(root: Path, data: pd.DataFrame) -> dict:
    """Inputs of one leaderboard build under ``root``: data, judge tables, Table 1 cells."""
    (root / "data").mkdir(parents=True, exist_ok=True)
    data.to_parquet(root / "data" / "summeval.parquet")
    paths, rows = [], []
    rng = np.random.default_rng(7)
    for j, kw in JUDGES.items():
        p = write_judge(data, "summeval", root / "judge" / j / "summeval" / "base.parquet", **kw)
        usage = json.loads(p.with_suffix(".usage.json").read_text())
        p.with_suffix(".usage.json").write_text(json.dumps({**usage, "n_units": len(data), "wall_s": 321.0,
                                                            "total_cost_usd": usage["cost_usd"], "priced": True}))
        paths.append(str(p))
        for dim in sorted(("consistency", "relevance", "fluency", "coherence")):
            for lv in LEVELS:
                v = round(float(rng.uniform(0.1, 0.6)), 4)
                rows.append({"table": "Table 1", "dataset": "SummEval", "dimension": dim, "level": lv, "row": j,
                             "kind": "judge", "value": v, "ci_low": v - 0.05, "ci_high": v + 0.05, "n": 1600,
                             "near_constant": False})
    pd.DataFrame(rows).to_csv(root / "table1.csv", index=False)
    return {"tables": [str(root / "table1.csv")], "data": {"summeval": str(root / "data" / "summeval.parquet")},
            "judges": paths}
