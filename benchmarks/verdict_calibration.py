"""How often each leaderboard verdict is wrong, measured with judges whose truth is known on every
built-in dataset's real human labels (definitions: docs/statistics.md, "Calibration of the verdicts").

Per dataset: the prepared table from the mirror is the population; each draw resamples its
documents, asks every known judge kind (tests/support/known_judges.py) afresh and runs the
verdicts in memory (tests/support/verdict_adapter.py); each kind's true value per column is the
column's statistic on copies of the full set, each answered afresh (the system level: its mean
over draws of the dataset's number of documents, the systems fixed). The positive controls: on
every dataset whose annotators are identified one column each, each annotator held out in turn
and entered as the judge against the others (tests/support/calibration.run_held_out), and a
simulated exchangeable annotator judged against a simulated panel (run_exchangeable: the
leak-free synthetic judge; the other informative kinds, built from the labels they are compared
with, give upper bounds of power only). Printed and written (CSV and Markdown, for the docs): both
sides of every verdict per dataset (uninformative judges passing the alt-test; held-out and
exchangeable annotators called "uninformative", passing, "inconclusive", "close"), "close" at several margins, how often a value lies outside its own interval, the
interval covers the true value (cells significantly below / above 95 % by an exact binomial
interval), ranks invert, rank 1 is vacant, and the smallest difference a column detects at 80 % power.

    PYTHONPATH=$PWD nice -n 10 .venv/bin/python benchmarks/verdict_calibration.py --mirror ../shared/data
    PYTHONPATH=$PWD .venv/bin/python benchmarks/verdict_calibration.py --small     # seconds
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")   # one process per core
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support import calibration as cal
from support import calibration_rates as rates
from support.harness import MIRROR, default_options
from support.known_judges import KINDS

from sumjudge.datasets import BUILTIN
from sumjudge.leaderboard.settings import LeaderboardSettings
from sumjudge.evidence.settings import TableSettings

BOARD = ("noise_mid", "repeats", "noise_high")
SMALL = {"datasets": ["qags_xsum", "helm_news"], "draws": 4, "bootstrap_resamples": 50, "truth_copies": 3}
_POPULATIONS: dict = {}


def settings(a) -> tuple[TableSettings, LeaderboardSettings]:
    import yaml

    config = yaml.safe_load((Path(__file__).resolve().parents[1] / "config.yaml").read_text())
    ts = TableSettings.from_config(config)
    ts = replace(ts, bootstrap_resamples=a.bootstrap_resamples,
                 permutation_resamples=a.permutation_resamples or ts.permutation_resamples)
    return ts, LeaderboardSettings.from_config(config)


def load(name: str, a) -> cal.Population:
    """The dataset's population, built once per process."""
    if name not in _POPULATIONS:
        from sumjudge.data.prepare import locate, prepare_dataset, source_files

        opts = default_options()
        data = prepare_dataset(name, locate(source_files(name, opts), a.mirror), opts)
        _POPULATIONS[name] = cal.population(BUILTIN[name], data, settings(a)[0], a.seed, a.kinds)
    return _POPULATIONS[name]


def task(name: str, draws: list[int], a) -> tuple[str, int, list[dict], list[dict], float, float]:
    """Some draws of one dataset (in a worker process): cells, significant pairs, wall and CPU seconds."""
    t, cpu = time.perf_counter(), time.process_time()
    pop, (ts, board) = load(name, a), settings(a)
    cells, pairs = [], []
    for k in draws:
        seed = (a.seed, list(BUILTIN).index(name))
        c, p = cal.run_draw(pop, ts, board, k, seed, a.board)
        if a.held_out and cal.positive_controls(pop):
            c += cal.run_held_out(pop, ts, board, k, seed) + cal.run_exchangeable(pop, ts, board, k, seed)
        cells += [{"dataset": name, **x} for x in c]
        pairs += [{"dataset": name, **x} for x in p]
    return name, draws[0], cells, pairs, time.perf_counter() - t, time.process_time() - cpu


PAIRS = ["dataset", "column", "better", "worse", "draw"]


def _raw(a) -> Path:
    """The folder of every finished chunk of draws, so that a stopped run resumes (``--resume``)
    and the rates can be drawn again from it (``--rates-only``); refused when the settings differ."""
    raw = Path(a.out) / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    mine = json.dumps({k: getattr(a, k) for k in ("seed", "board", "kinds", "bootstrap_resamples",
                                                   "permutation_resamples", "truth_copies", "chunk",
                                                   "held_out")}, sort_keys=True)
    path = raw / "settings.json"
    if path.exists() and path.read_text() != mine and (a.resume or a.rates_only):
        raise SystemExit(f"{raw}: its draws were made with {path.read_text()}, not {mine}; "
                         "rerun with the same options or another --out")
    path.write_text(mine)
    if not (a.resume or a.rates_only):
        (raw / "seconds.csv").unlink(missing_ok=True)
        (raw / "truths.pkl").unlink(missing_ok=True)
    return raw


def _save(raw: Path, name: str, first: int, cells, pairs, wall: float, cpu: float) -> None:
    pd.DataFrame(cells).to_parquet(raw / f"cells_{name}_{first:04d}.parquet")
    pd.DataFrame(pairs, columns=PAIRS).to_parquet(raw / f"pairs_{name}_{first:04d}.parquet")
    with open(raw / "seconds.csv", "a") as f:
        f.write(f"{name},{first},{wall:.2f},{cpu:.2f}\n")


def _truths(a, raw: Path | None = None) -> tuple[dict, dict]:
    """(scored, answered) {(dataset, kind, column): true value} (support.calibration.truths; minutes
    on a loaded machine), kept in ``raw/truths.pkl`` per dataset, so that ``--rates-only`` and
    ``--resume`` reuse them (the folder's settings are checked by :func:`_raw`)."""
    path = raw / "truths.pkl" if raw is not None else None
    kept = pickle.loads(path.read_bytes()) if path is not None and path.exists() else {}
    for n in a.datasets:
        if n not in kept:
            kept[n] = cal.truths(load(n, a), settings(a)[0], a.truth_copies, a.seed)
            if path is not None:
                path.write_bytes(pickle.dumps(kept))
    return tuple({(n, *k): v for n in a.datasets for k, v in kept[n][i].items()} for i in (0, 1))


def run(a) -> tuple[pd.DataFrame, pd.DataFrame, tuple[dict, dict]]:
    """Every draw of every dataset over ``a.workers`` processes, then every finished draw read back."""
    from tqdm import tqdm

    raw = _raw(a)
    chunks = [(n, list(range(s, min(s + a.chunk, a.draws)))) for s in range(0, a.draws, a.chunk) for n in a.datasets]
    todo = [] if a.rates_only else [(n, d) for n, d in chunks
                                    if not (a.resume and (raw / f"cells_{n}_{d[0]:04d}.parquet").exists())]
    with ProcessPoolExecutor(a.workers) as pool:
        futures = [pool.submit(task, n, d, a) for n, d in todo]
        truth = _truths(a, raw)
        for f in tqdm(as_completed(futures), total=len(futures), desc="draws", unit="chunk", file=sys.stderr):
            _save(raw, *f.result())
    def read(kind: str) -> pd.DataFrame:
        return pd.concat([pd.read_parquet(raw / f"{kind}_{n}_{d[0]:04d}.parquet") for n, d in chunks],
                         ignore_index=True)

    cells, pairs = read("cells"), read("pairs")
    return cells[cells["draw"] < a.draws], pairs[pairs["draw"] < a.draws], truth


def measures(cells: pd.DataFrame, pairs: pd.DataFrame, truths: tuple[dict, dict], board) -> dict[str, pd.DataFrame]:
    truth, answered = truths
    det = rates.detections(cells, pairs, board, truth)
    iv = rates.interval_rates(cells, truth, answered)
    return {"alt": rates.alt_rates(cells), "interval": iv, "close": rates.close_rates(cells),
            "coverage": rates.coverage_verdicts(iv),
            "rank": rates.rank_rates(cells, board, truth),
            "mdd": rates.smallest_detectable(det) if len(det) else pd.DataFrame(columns=["dataset", "level"]),
            "detections": det}


def long_table(m: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Every measured rate, one per line: dataset, level, kind, measure, value, n."""
    parts = [m["alt"].assign(level="", measure="alt_pass").rename(columns={"rate": "value"})]
    parts.append(m["alt"].assign(level="", measure="alt_uninformative").rename(columns={"uninformative": "value"}))
    parts.append(m["alt"].assign(level="", measure="alt_inconclusive").rename(columns={"inconclusive": "value"}))
    for mg in rates.MARGINS:
        parts.append(m["close"].assign(measure=f"close_{mg}").rename(columns={f"m{mg}": "value"}))
    for k in ("outside", "extended", "coverage", "cov_low", "cov_high", "above", "bias"):
        parts.append(m["interval"].assign(measure=k).rename(columns={k: "value"}))
    for k, n in (("inversions", "pairs"), ("vacant", "columns")):
        parts.append(m["rank"].assign(kind="", measure=k).rename(columns={k: "value", n: "n"}))
    parts.append(m["mdd"].assign(kind="", measure="mdd_80").rename(columns={"mdd": "value", "points": "n"}))
    cols = ["dataset", "level", "kind", "measure", "value", "n", "bound"]
    return pd.concat([p.reindex(columns=cols) for p in parts], ignore_index=True)


BOUND = {"=": "", "<=": "<= ", ">": "> "}


def _pct(x) -> str:
    return "" if pd.isna(x) else f"{100 * x:.0f}"


def alt_markdown(alt: pd.DataFrame) -> str:
    """Kinds x datasets: % of (draw, tested column) where the alt-test passes, and in brackets
    where it read "uninformative" (the judge's statistic not above its shuffles'). An informative
    kind of known_judges is built from the labels it is compared with: "(upper bound)" of power."""
    t, u = (alt.pivot(index="kind", columns="dataset", values=v) for v in ("rate", "uninformative"))
    t = t.reindex([k for k in [*KINDS, rates.HELD_OUT, rates.EXCHANGEABLE] if k in t.index])
    head = "| kind | " + " | ".join(t.columns) + " |\n|---|" + "---:|" * len(t.columns) + "\n"
    mark = {k: "" if k not in KINDS else " (uninformative)" if KINDS[k].uninformative else " (upper bound)"
            for k in t.index}

    def cell(k, d) -> str:
        return _pct(t.loc[k, d]) + (f" ({_pct(u.loc[k, d])})" if u.loc[k, d] > 0 else "")

    return head + "".join(f"| {k}{mark[k]} | " + " | ".join(cell(k, d) for d in t.columns) + " |\n" for k in t.index)


def _rate(x) -> str:
    return "n/a" if pd.isna(x) else f"{100 * x:.0f} %"


def _worst(d: pd.DataFrame, key: str, low: bool = False) -> str:
    row = d.loc[d[key].idxmin() if low else d[key].idxmax()]
    return f"{_rate(row[key])} ({row['kind']})"


def _column_line(ds: str, level: str, d: pd.DataFrame, r, md) -> str:
    mdd = f"{BOUND[md['bound']]}{md['mdd']:.3f}" if md is not None else "n/a"
    return (f"| {ds} | {level} | {_worst(d, 'outside')} | {_worst(d, 'extended')} | {_worst(d, 'coverage', True)} "
            f"| {_rate(d['coverage'].median())} | {_worst(d, 'above')} | {_rate(r.get('inversions'))} "
            f"| {_rate(r.get('vacant'))} | {mdd} |")


def column_markdown(m: dict[str, pd.DataFrame]) -> str:
    """Datasets x levels: outside-interval and missing its value (worst kind; flagged, never widened), coverage (worst kind, median),
    interval above the answered truth (worst kind), ranks, MDD."""
    iv = m["interval"]
    rank = m["rank"].set_index(["dataset", "level"])
    mdd = m["mdd"].set_index(["dataset", "level"]) if len(m["mdd"]) else pd.DataFrame()
    lines = ["| dataset | level | value outside its interval: worst kind | interval missing its value (flagged): worst kind "
             "| coverage: worst kind | coverage: median | interval above the answered truth: worst kind "
             "| ranks inverted | rank 1 vacant | smallest difference at 80 % power |",
             "|---|---|---|---|---|---:|---|---:|---:|---:|"]
    for (ds, lv_), d in iv.groupby(["dataset", "level"], sort=False):
        lines.append(_column_line(ds, lv_, d, rank.loc[(ds, lv_)] if (ds, lv_) in rank.index else {},
                                  mdd.loc[(ds, lv_)] if (ds, lv_) in mdd.index else None))
    return "\n".join(lines) + "\n"


def coverage_markdown(iv: pd.DataFrame) -> str:
    """(dataset, level) x kinds: % of draws whose interval holds the true value."""
    t = iv.pivot_table(index=["dataset", "level"], columns="kind", values="coverage", sort=False)
    t = t[[k for k in KINDS if k in t.columns]]
    head = "| dataset | level | " + " | ".join(t.columns) + " |\n|---|---|" + "---:|" * len(t.columns) + "\n"
    return head + "".join(f"| {ds} | {lv_} | " + " | ".join(_pct(v) for v in row) + " |\n"
                          for (ds, lv_), row in t.iterrows())


def _mdd(d: pd.DataFrame) -> str:
    if not len(d):
        return "n/a"
    bound = d["bound"].iloc[0]
    return f"{BOUND.get(bound, '') if isinstance(bound, str) else ''}{d['value'].iloc[0]:.3f}"


def _targets(long: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and level, from a long table (:func:`long_table`, or its CSV): the issue's
    targets (uninformative alt-test passes: worst kind; coverage within 93-97 %: count and worst
    kind; value outside its interval: worst; ranks inverted; rank 1 vacant; MDD at 80 % power)."""
    v = long.assign(level=long["level"].fillna(""), kind=long["kind"].fillna(""))
    alt = v[(v["measure"] == "alt_pass") & v["kind"].isin(rates.uninformative(KINDS))]
    worst_alt = {ds: f"{_rate(d['value'].max())} ({d.loc[d['value'].idxmax(), 'kind']})"
                 for ds, d in alt.groupby("dataset")}
    rows = []
    for (ds, lv_), d in v[v["level"] != ""].groupby(["dataset", "level"]):
        def get(m: str) -> pd.Series:
            return d[d["measure"] == m].set_index("kind")["value"]

        cov = get("coverage")
        rows.append({"dataset": ds, "level": lv_, "alt": worst_alt.get(ds, "n/a"),
                     "within": f"{int(cov.between(0.93, 0.97).sum())}/{len(cov)}",
                     "worst": f"{_rate(cov.min())} ({cov.idxmin()})" if len(cov) else "n/a",
                     "outside": _rate(get("outside").max()), "inversions": _rate(get("inversions").max()),
                     "vacant": _rate(get("vacant").max()), "mdd": _mdd(d[d["measure"] == "mdd_80"])})
    return pd.DataFrame(rows).set_index(["dataset", "level"])


def compare_markdown(before: pd.DataFrame, after: pd.DataFrame) -> str:
    """The targets of two runs side by side, "before -> after" per dataset and level."""
    b, a = _targets(before), _targets(after)
    cols = {"alt": "uninformative judge passes the alt-test (the dataset's worst kind)", "within": "coverage within 93-97 %",
            "worst": "coverage, worst kind", "inversions": "ranks inverted", "vacant": "rank 1 vacant",
            "outside": "value outside its interval, worst kind", "mdd": "smallest difference at 80 % power"}
    lines = ["| dataset | level | " + " | ".join(cols.values()) + " |", "|---|---|" + "---|" * len(cols)]
    for key in a.index.union(b.index):
        def cell(c: str) -> str:
            return " -> ".join(t.loc[key, c] if key in t.index else "n/a" for t in (b, a))

        lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(cell(c) for c in cols) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", default=str(MIRROR), help="the data mirror (shared/data)")
    ap.add_argument("--datasets", nargs="*", default=list(BUILTIN), help="default: all ten built-in datasets")
    ap.add_argument("--kinds", nargs="*", default=None, help=f"judge kinds (default all: {', '.join(KINDS)})")
    ap.add_argument("--board", nargs="*", default=list(BOARD), help="kinds ranked together in every column")
    ap.add_argument("--draws", type=int, default=200)
    ap.add_argument("--seed", type=int, default=2023)
    ap.add_argument("--bootstrap-resamples", type=int, default=200,
                    help="interval resamples per draw (config.yaml: 1000; a precision setting only)")
    ap.add_argument("--permutation-resamples", type=int, default=None, help="default: config.yaml's")
    ap.add_argument("--truth-copies", type=int, default=20, help="copies of the full set a true value is taken on")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=10, help="draws per task")
    ap.add_argument("--out", default="results/calibration", help="folder of verdict_calibration.{csv,md}")
    ap.add_argument("--resume", action="store_true", help="keep the draws a stopped run finished (same options)")
    ap.add_argument("--rates-only", action="store_true", help="no new draw: the rates of the finished ones")
    ap.add_argument("--small", action="store_true", help=f"a run of seconds: {SMALL}")
    ap.add_argument("--no-held-out", dest="held_out", action="store_false",
                    help="no positive controls (the held-out and the exchangeable annotators)")
    ap.add_argument("--before", default=None, help="another run's verdict_calibration.csv: its targets beside these")
    a = ap.parse_args(argv)
    if a.small:
        for k, v in SMALL.items():
            setattr(a, k, v)
    t = time.perf_counter()
    cells, pairs, truth = run(a)
    m = measures(cells, pairs, truth, a.board)
    report(a, m, cells, time.perf_counter() - t)


def headline(m: dict) -> str:
    """The issue's targets, both sides: an uninformative judge passes the alt-test at most 5 % of
    the time; a held-out annotator is called "uninformative" at most 5 % of the time; coverage
    cells significantly below (above) 95 % by their exact binomial interval."""
    alt = m["alt"][m["alt"]["kind"].isin(rates.uninformative(KINDS))]
    worst = alt.loc[alt["rate"].idxmax()] if len(alt) else None
    over = alt[alt["rate"] > 0.05]
    cov, v = m["interval"]["coverage"], m["coverage"]
    text = (f"uninformative judges passing the alt-test more than 5 % of the time: {len(over)} of {len(alt)} "
            f"(dataset, kind)" + (f"; worst {worst['kind']} on {worst['dataset']}, {_rate(worst['rate'])}"
                                  if worst is not None else ""))
    for kind, what in ((rates.HELD_OUT, "held-out annotators"), (rates.EXCHANGEABLE, "exchangeable simulated annotators")):
        h = m["alt"][m["alt"]["kind"] == kind]
        text += (f"\n{what} called \"uninformative\" more than 5 % of the time: "
                 f"{int((h['uninformative'] > 0.05).sum())} of {len(h)} datasets"
                 + "".join(f"; {r.dataset} {_rate(r.uninformative)}" for r in h.itertuples()))
    return text + (f"\ninterval coverage significantly below 95 % (exact binomial 95 % interval under it): {v['below']} "
                   f"of {v['cells']} (dataset, level, kind); significantly above: {v['above']}; within 93-97 %: "
                   f"{int(cov.between(0.93, 0.97).sum())}")


POWER_LEVELS = ("sample", "accuracy")   # where "close" is read as the power of a positive control


def _sides(alt: pd.DataFrame, close: pd.DataFrame, ds: str, kind: str) -> list[str]:
    """A positive control's cells: uninformative, passes, inconclusive, fails or not tested, close
    (margin .05, sample or accuracy level), columns."""
    h = alt[(alt["dataset"] == ds) & (alt["kind"] == kind)]
    if not len(h):
        return ["n/a"] * 5 + ["0"]
    h = h.iloc[0]
    c = close[(close["dataset"] == ds) & (close["kind"] == kind) & close["level"].isin(POWER_LEVELS)]
    rest = 1 - h["rate"] - h["uninformative"] - h["inconclusive"]
    close_rate = (c["m0.05"] * c["n"]).sum() / c["n"].sum() if len(c) else float("nan")
    return [_rate(h["uninformative"]), _rate(h["rate"]), _rate(h["inconclusive"]), _rate(rest), _rate(close_rate),
            str(int(h["n"]))]


def sides_markdown(m: dict) -> str:
    """Per dataset, both sides of the verdicts: uninformative judges passing (worst kind); the
    positive controls' alt-test results and "close" (the power): the real annotators held out,
    and the simulated exchangeable annotator against a simulated panel (no leakage)."""
    alt, close = m["alt"], m["close"]
    parts = ("uninformative", "passes", "inconclusive", "fails or not tested", "close", "columns")
    lines = ["| dataset | uninformative judges passing: worst kind | "
             + " | ".join(f"{w}: {p}" for w in ("held-out", "exchangeable") for p in parts) + " |",
             "|---|---|" + "---:|" * 2 * len(parts)]
    for ds, d in alt.groupby("dataset"):
        un = d[d["kind"].isin(rates.uninformative(KINDS))]
        worst = f"{_rate(un['rate'].max())} ({un.loc[un['rate'].idxmax(), 'kind']})" if len(un) else "n/a"
        cells = _sides(alt, close, ds, rates.HELD_OUT) + _sides(alt, close, ds, rates.EXCHANGEABLE)
        lines.append(f"| {ds} | {worst} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def close_markdown(close: pd.DataFrame) -> str:
    """"Close to the humans" at each margin: per dataset and level, the held-out and the
    exchangeable annotators (power) and the worst uninformative kind (type-I error)."""
    head = " / ".join(f"{m}" for m in rates.MARGINS)
    lines = [f"| dataset | level | held-out annotators close at margin {head} | exchangeable annotator close "
             f"at margin {head} | uninformative judges close (worst kind) at margin {head} |", "|---|---|---|---|---|"]
    for (ds, lv_), d in close.groupby(["dataset", "level"]):
        u = d[d["kind"].isin(rates.uninformative(KINDS))]

        def rates_of(k) -> str:
            h = d[d["kind"] == k]
            return " / ".join(_rate(h[f"m{m}"].iloc[0]) for m in rates.MARGINS) if len(h) else "n/a"

        us = " / ".join(_rate(u[f"m{m}"].max()) for m in rates.MARGINS) if len(u) else "n/a"
        lines.append(f"| {ds} | {lv_} | {rates_of(rates.HELD_OUT)} | {rates_of(rates.EXCHANGEABLE)} | {us} |")
    return "\n".join(lines) + "\n"


def report(a, m: dict, cells: pd.DataFrame, wall: float) -> None:
    out = Path(a.out)
    long_table(m).to_csv(out / "verdict_calibration.csv", index=False)
    m["detections"].to_csv(out / "verdict_calibration_pairs.csv", index=False)
    text = (f"Draws per dataset: {a.draws}; board: {', '.join(a.board)}; bootstrap resamples {a.bootstrap_resamples}; "
            f"seed {a.seed}.\n\n{headline(m)}\n\nBoth sides of the verdicts:\n\n{sides_markdown(m)}"
            f"\n\"Close to the humans\" by margin:\n\n{close_markdown(m['close'])}"
            f"\nAlt-test, % passing:\n\n{alt_markdown(m['alt'])}\nColumns:\n\n{column_markdown(m)}"
            f"\nInterval coverage of the true value, %:\n\n{coverage_markdown(m['interval'])}")
    if a.before:
        text += f"\nTargets, {a.before} -> this run:\n\n{compare_markdown(pd.read_csv(a.before), long_table(m))}"
    (out / "verdict_calibration.md").write_text(text)
    print(text)
    path = out / "raw" / "seconds.csv"
    secs = pd.read_csv(path, names=["dataset", "first", "wall", "cpu"]) if path.exists() else pd.DataFrame(
        columns=["dataset", "first", "wall", "cpu"])
    secs = secs[secs["dataset"].isin(a.datasets) & (secs["first"] < a.draws)].groupby("dataset")[["wall", "cpu"]].sum()
    print("worker seconds per dataset (wall / CPU): "
          + ", ".join(f"{n} {r.wall:.0f}/{r.cpu:.0f}" for n, r in secs.iterrows()))
    print(f"verdict calibration: {len(a.datasets)} datasets, {a.draws} draws, {rates._kind(cells['row']).nunique()} judge kinds, "
          f"{wall:.1f} s wall on {a.workers} workers; tables in {out}/verdict_calibration.{{csv,md}}")


if __name__ == "__main__":
    main()
