"""ROUGE settings against the paper: the 36 ROUGE cells of Table 1 (SummEval) and
Table 2 (Newsroom) for one setting, scored on the full data with the project's code.

    .venv/bin/python benchmarks/rouge_settings.py [--implementation rouge-perl] \\
        [--sentences punctuation|period|punkt] [--input-format see|spl] \\
        [--multi-reference mean|pooled] [--no-stemming] [--tables 1 2] [--workers 2] [--cells]

Prints, per table, the cells within 0.005 of the paper (per row and level), the largest
and the mean absolute difference; ``--cells`` prints every cell. The figures in
docs/metrics.md ("ROUGE: which setting reproduces the paper") come from this script.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from sumjudge.data.prepare import locate, prepare_dataset, source_files
from sumjudge.metrics.rouge import DEFAULTS, IMPLEMENTATIONS, INPUT_FORMATS, MULTI_REFERENCE, SENTENCE_SPLITS, \
    score_dataset
from sumjudge.tables.correlation import ROUGE_ROWS, correlation_rows
from sumjudge.tables.published import attach_published

TABLES = {1: "summeval", 2: "newsroom"}
TOLERANCE = 0.005


def rouge_cells(dataset: str, mirror: str, workers: int = 1, **options) -> pd.DataFrame:
    """The 36 ROUGE cells of ``dataset``'s table beside the published values."""
    human = prepare_dataset(dataset, locate(source_files(dataset), mirror))
    scores = score_dataset(human, dataset, workers=workers, progress=False, **options)
    return attach_published(correlation_rows(human, scores, ROUGE_ROWS, dataset))


def summary(cells: pd.DataFrame) -> str:
    d = cells["diff"].abs()
    ok = cells.assign(ok=d <= TOLERANCE).pivot_table(index="row", columns="level", values="ok", aggfunc="sum")
    per = "; ".join(f"{row} " + " ".join(f"{lv} {int(ok.loc[row, lv])}/4" for lv in ("sample", "system", "dataset"))
                    for row in ok.index)
    return f"{int((d <= TOLERANCE).sum())}/{len(cells)} within {TOLERANCE}, max {d.max():.4f}, mean {d.mean():.4f} ({per})"


def main() -> None:
    here = Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", default=str(here.parent / "shared" / "data"))
    ap.add_argument("--implementation", default=DEFAULTS["implementation"], choices=IMPLEMENTATIONS)
    ap.add_argument("--sentences", default=DEFAULTS["sentences"], choices=list(SENTENCE_SPLITS))
    ap.add_argument("--input-format", default=DEFAULTS["input_format"], choices=INPUT_FORMATS)
    ap.add_argument("--multi-reference", default=DEFAULTS["multi_reference"], choices=MULTI_REFERENCE)
    ap.add_argument("--no-stemming", action="store_true")
    ap.add_argument("--tables", type=int, nargs="+", default=[1, 2], choices=sorted(TABLES))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cells", action="store_true", help="print every cell")
    args = ap.parse_args()
    options = dict(implementation=args.implementation, stemming=not args.no_stemming, sentences=args.sentences,
                   input_format=args.input_format, multi_reference=args.multi_reference)
    print(" ".join(f"{k}={v}" for k, v in options.items()))
    for k in args.tables:
        cells = rouge_cells(TABLES[k], args.mirror, args.workers, **options)
        print(f"Table {k} ({TABLES[k]}): {summary(cells)}")
        if args.cells:
            print(cells[["row", "dimension", "level", "value", "published", "diff"]].round(4).to_string(index=False))


if __name__ == "__main__":
    main()
