"""Issue 40's before/after frames (docs/statistics.md, "Before and after issue 40"): full SummEval,
two imported judges, the leaderboard built by the code at d96706d and by main; the frames compared.

    .venv/bin/python benchmarks/issue40_before_after.py scores results/data/summeval.parquet /work/ba-scores
    .venv/bin/python benchmarks/issue40_before_after.py compare /work/ba-before/results/leaderboard \
        /work/ba-after/results/leaderboard > /work/ba-scores/compare.txt

``scores`` writes imp_a.csv (a good judge: the mean of experts 0 and 1 plus N(0, 0.3), rounded to 1-5)
and imp_b.csv (a noisy judge: the experts' mean plus N(0, 1.5), rounded to 1-5; 4 % of the summaries
keep their coherence score only, so the importer marks them invalid, within the 5 % parse gate). Seed 40.
``compare`` prints, per frame both folders hold, the columns on one side only and, per shared
column, how many cells differ (rows matched on the frame's key columns) with examples.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

DIMENSIONS = ["coherence", "consistency", "fluency", "relevance"]
SEED = 40
DROP_SHARE = 0.04


def _long(data: pd.DataFrame, score: dict[str, np.ndarray]) -> pd.DataFrame:
    rows = [pd.DataFrame({"doc_id": data["doc_id"], "system": data["system"], "dimension": d, "score": s})
            for d, s in score.items()]
    return pd.concat(rows, ignore_index=True)


def make_scores(summeval: Path, out: Path) -> None:
    data = pd.read_parquet(summeval)
    rng = np.random.default_rng(SEED)
    a, b = {}, {}
    for d in DIMENSIONS:
        experts01 = data[[f"{d}_expert0", f"{d}_expert1"]].mean(axis=1).to_numpy()
        a[d] = np.clip(np.rint(experts01 + rng.normal(0, 0.3, len(data))), 1, 5)
        b[d] = np.clip(np.rint(data[d].to_numpy() + rng.normal(0, 1.5, len(data))), 1, 5)
    out.mkdir(parents=True, exist_ok=True)
    _long(data, a).to_csv(out / "imp_a.csv", index=False)
    drop = rng.choice(len(data), size=round(DROP_SHARE * len(data)), replace=False)
    kept = data.drop(index=data.index[drop])
    b_long = _long(data, b)
    whole = b_long.set_index(["doc_id", "system"]).index.isin(kept.set_index(["doc_id", "system"]).index)
    b_long = b_long[whole | (b_long["dimension"] == DIMENSIONS[0])]  # one score left: an invalid answer
    b_long.to_csv(out / "imp_b.csv", index=False)
    print(f"imp_a.csv: {len(data) * len(DIMENSIONS)} rows; imp_b.csv: {len(b_long)} rows "
          f"({len(drop)} of {len(data)} summaries with {DIMENSIONS[0]} only: invalid)")


KEYS = {"leaderboard.csv": ["row", "kind", "column"], "summary.csv": ["row", "kind"],
        "pairs.csv": ["column", "a", "b"], "alt_test.csv": ["row", "test", "score_used", "column", "annotator"]}


def _fmt(v) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def compare(before: Path, after: Path, examples: int = 3) -> None:
    for f in sorted(p.name for p in before.glob("*.csv")):
        if not (after / f).exists():
            print(f"## {f}: only before")
            continue
        old, new = pd.read_csv(before / f), pd.read_csv(after / f)
        only_old = [c for c in old if c not in new]
        only_new = [c for c in new if c not in old]
        keys = [k for k in KEYS.get(f, []) if k in old and k in new]
        print(f"## {f}: rows {len(old)} -> {len(new)}; keys {keys}")
        if only_old:
            print(f"  only before: {only_old}")
        if only_new:
            print(f"  only after: {only_new}")
        if keys:
            m = old.merge(new, on=keys, how="outer", suffixes=("@old", "@new"), indicator=True)
            lost = (m["_merge"] != "both").sum()
            if lost:
                print(f"  rows on one side only: {m['_merge'].value_counts().to_dict()}")
            m = m[m["_merge"] == "both"]
        else:
            n = min(len(old), len(new))
            m = old.iloc[:n].add_suffix("@old").join(new.iloc[:n].add_suffix("@new"))
        for c in [c for c in old if c in new and c not in keys]:
            o, n = m[f"{c}@old"], m[f"{c}@new"]
            both_num = pd.api.types.is_numeric_dtype(o) and pd.api.types.is_numeric_dtype(n)
            if both_num:
                same = np.isclose(o, n, rtol=1e-9, atol=1e-12, equal_nan=True)
            else:
                same = ((o.astype(str) == n.astype(str)) | (o.isna() & n.isna())).to_numpy()
            diff = m[~same]
            if len(diff) and "level@old" in m:
                by = diff["level@old"].fillna("-").value_counts().sort_index().to_dict()
                print(f"  {c}: by level {by}")
            if len(diff):
                ex = "; ".join(f"{'/'.join(_fmt(r[k]) for k in keys)}: {_fmt(r[f'{c}@old'])} -> {_fmt(r[f'{c}@new'])}"
                               for _, r in diff.head(examples).iterrows())
                print(f"  {c}: {len(diff)} of {len(m)} differ; {ex}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scores")
    s.add_argument("summeval", type=Path)
    s.add_argument("out", type=Path)
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    a = ap.parse_args(argv)
    if a.cmd == "scores":
        make_scores(a.summeval, a.out)
    else:
        compare(a.before, a.after)


if __name__ == "__main__":
    sys.exit(main())
