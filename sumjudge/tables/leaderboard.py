"""The judge leaderboard: which judge is human-like, side by side with the humans
(definitions: docs/statistics.md, "The judge leaderboard").

Rows: every judge of ``judge.run`` and, per column whose dataset keeps
per-annotator labels, every human annotator scored leave-one-out
(:mod:`sumjudge.stats.loo`). Columns: the 28 paper columns of the margin chart
(:data:`sumjudge.tables.chart.COLUMNS_28`). Each judge cell holds the table's
value, n and interval (from Tables 1-5), the judge's value against the same
leave-one-out references as the humans, its rank group from paired tests between
judges (:mod:`sumjudge.stats.paired`, Holm over the column's pairs), the
validity gate (parse rate < 95 % or near-constant: greyed, no rank) and the
alt-test (:mod:`sumjudge.stats.alt_test`). Summary per judge: columns won, mean
rank, number of distinct rank groups, "passes k of N" alt-test columns, cost
and time per 1000 units.
"""
from __future__ import annotations

import html
import math
from pathlib import Path

import numpy as np
import pandas as pd

from ..datasets import BUILTIN, DatasetSpec
from ..stats import alt_test as at
from ..stats.orders import both_orders
from ..stats.repeats import sample_variance, two_stage_bootstrap, two_stage_correlation
from ..stats.loo import loo_labels, loo_likert, votes_from_counts
from ..stats import bias
from ..stats.matrix import likert_matrix
from ..stats.paired import cluster_paired_accuracy, pair_family, rank_groups, separable
from ..stats.permutation import level_schemes, paired_correlation_test
from .chart import COLUMNS_28, column_label
from .errors import read_parquet
from .inputs import parse_judge_path

PARSE_GATE = 0.95
DEFAULT_ALT = {"epsilon": {"summeval": 0.2, "newsroom": 0.15, "qags_cnn": 0.1, "qags_xsum": 0.1, "realsumm": 0.1},
               "q": 0.05, "min_instances": 30, "likert_score": "neg_rmse"}
LABEL_TO_NAME = {s.label: s.name for s in BUILTIN.values()}
CELL_COLUMNS = ["row", "kind", "column", "table", "dataset", "dimension", "level", "value", "n", "ci_low",
                "ci_high", "loo_value", "rank_group", "parse_rate", "near_constant", "greyed", "reason",
                "alt_winning_rate", "alt_advantage", "alt_passed", "alt_annotators", "alt_left_out", "note",
                "flip_rate", "position_consistency", "first_position_rate", "acc_original",
                "acc_agreement_else_tie", "acc_agreement_only", "n_conflicts", "flip_flag",
                "n_samples", "sample_variance", "interval", "length_bias", "length_bias_n",
                "alt_other_score", "alt_other_winning_rate", "alt_other_advantage", "alt_other_passed"]
LIKERT_SCORES = ("neg_rmse", "rank")


def _annotator_columns(data: pd.DataFrame, dim: str) -> list[str]:
    return sorted(c for c in data.columns if c.startswith(f"{dim}_expert") or c.startswith(f"{dim}_r")
                  and c[len(dim) + 2:].isdigit())


def _judge_frame(path: str) -> pd.DataFrame:
    df = pd.read_parquet(path)
    df["unit_id"] = df["unit_id"].astype(str)
    if "sample" in df:
        df = df[df["sample"] == df["sample"].min()]
    return df.set_index("unit_id")


def length_bias(spec: DatasetSpec, data: pd.DataFrame, frame: pd.DataFrame, column: str, margin: float) -> dict:
    """The bias column of one row, from ``frame[column]`` (a judge's frame, its invalid replies
    NaN, or the data's own human column; indexed by unit id):
    pairwise (a protocol that ``compares`` two summaries), the share choosing the longer summary;
    Likert, Spearman of score and length. Protocols without ``length_bias``: none
    (sumjudge/stats/bias.py)."""
    proto = spec.proto
    texts = list(proto.summary_columns) if proto.length_bias else []
    if not texts or not set(texts) <= set(data.columns):  # another protocol, or a table without the texts
        return {}
    ids = data["unit_id"].astype(str)
    labels = _ok(frame, column) if "status" in frame else pd.to_numeric(frame[column], errors="coerce")
    got = labels.reindex(ids).to_numpy(dtype=float)
    if proto.compares:
        b = bias.longer_preference(got, bias.words(data[texts[0]]), bias.words(data[texts[1]]), margin)
    else:
        b = bias.length_correlation(got, bias.words(data[texts[0]]))
    return {"length_bias": b.value, "length_bias_n": b.n}


def _ok(frame: pd.DataFrame, column: str) -> pd.Series:
    """A judge frame's column where the reply was valid (else NaN)."""
    return pd.to_numeric(frame[column], errors="coerce").where(frame["status"].astype(str) == "ok")


def _parse_rate(df: pd.DataFrame) -> float:
    return float((df["status"].astype(str) == "ok").mean()) if len(df) else float("nan")


def cost_row(judge: str, usages: list[dict], cfg: dict, seconds: float | None = None) -> dict:
    """USD and seconds per 1000 units and for the whole run; a local judge is priced only with price_per_hour.

    ``seconds``: the replies' own latencies (kept with cached replies, so a run answered from
    the cache still shows what the replies took to make); default: the runs' wall time."""
    units = sum(int(u.get("n_units") or 0) for u in usages)
    wall = seconds if seconds is not None and seconds > 0 else sum(float(u.get("wall_s") or 0.0) for u in usages)
    usd = sum(float(u.get("total_cost_usd", u.get("cost_usd")) or 0.0) for u in usages)
    # local: embedded, or a server on this machine without a token price (vLLM, Ollama)
    on_host = cfg.get("local_server", any(h in str(cfg.get("base_url", "")) for h in ("localhost", "127.0.0.1")))
    local = bool(cfg.get("embedded")) or (bool(on_host) and cfg.get("price_input_per_1k") is None)
    per_k = 1000 / units if units else float("nan")
    rec = {"row": judge, "units": units, "seconds_per_1k": wall * per_k, "wall_s": wall, "local": local}
    if local:
        pph = cfg.get("price_per_hour")
        if pph is None:
            rec.update(usd_per_1k="not priced", usd_total="not priced")
        else:
            rec.update(usd_per_1k=round(float(pph) * wall / 3600 * per_k, 6),
                       usd_total=round(float(pph) * wall / 3600, 6))
    else:
        priced = all(u.get("priced", True) for u in usages)
        rec.update(usd_per_1k=round(usd * per_k, 6) if priced else "not priced",
                   usd_total=round(usd, 6) if priced else "not priced")
    return rec


def _accuracy_units(spec: DatasetSpec, data: pd.DataFrame, judged: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(prediction, gold, cluster) per decision of an accuracy dataset; prediction NaN when invalid."""
    ok = judged["status"].astype(str) == "ok" if len(judged) else pd.Series(dtype=bool)
    ids = data["unit_id"].astype(str)
    if spec.proto.per_item:  # Pyramid: one decision per SCU
        pred, gold, clu = [], [], []
        col = spec.label_columns[0]
        for uid, labels, doc in zip(ids, data[spec.gold_columns[0]], data[spec.cluster_column]):
            jl = judged[col].get(uid) if uid in judged.index and ok.get(uid, False) else None
            for k, g in enumerate(labels):
                v = jl[k] if jl is not None and k < len(jl) and jl[k] is not None else None
                pred.append(float(bool(v)) if v is not None else np.nan)
                gold.append(float(bool(g)))
                clu.append(str(doc))
        return np.array(pred), np.array(gold), np.array(clu)
    col = spec.label_columns[0]
    p = pd.to_numeric(judged[col], errors="coerce").where(ok).reindex(ids).to_numpy(dtype=float) \
        if len(judged) else np.full(len(ids), np.nan)
    return p, data[spec.gold_columns[0]].to_numpy(dtype=float), data[spec.cluster_column].astype(str).to_numpy()


def _votes(spec: DatasetSpec, data: pd.DataFrame) -> np.ndarray | None:
    """Per-annotator labels (N decisions x A) of an accuracy dataset, or None (one label only)."""
    if spec.name.startswith("qags"):
        width = max(len(v) for v in data["votes"])
        return np.array([list(map(float, v)) + [np.nan] * (width - len(v)) for v in data["votes"]])
    if spec.name == "realsumm":
        yes = [y for ys in data["scu_votes_present"] for y in ys]
        n = [k for ks in data["scu_n_votes"] for k in ks]
        return votes_from_counts(yes, n)
    return None


def repeat_cells(spec: DatasetSpec, data: pd.DataFrame, path: str, dim: str, settings: dict, level: str = "accuracy") -> dict:
    """For a judge with samples > 1: its sample-to-sample variance on the column, and the
    column's two-stage bootstrap interval (documents, then samples within a unit)."""
    full = pd.read_parquet(path)
    if "sample" not in full or full["sample"].nunique() < 2:
        return {"n_samples": 1, "interval": "bootstrap (Tables 1-5)"}
    full["unit_id"] = full["unit_id"].astype(str)
    samples = sorted(full["sample"].unique())
    per = {s: full[full["sample"] == s].set_index("unit_id") for s in samples}
    if spec.proto.per_dimension:
        ids = data["unit_id"].astype(str)
        m = np.stack([_ok(per[s], dim).reindex(ids).to_numpy(dtype=float) for s in samples], axis=1)
        d2 = data.assign(doc_id=data["doc_id"].astype(str), system=data["system"].astype(str))
        docs, systems = sorted(d2["doc_id"].unique()), sorted(d2["system"].unique())
        stack = np.stack([likert_matrix(d2.assign(_j=m[:, k]), "_j", docs, systems) for k in range(m.shape[1])])
        iv = two_stage_correlation(stack, likert_matrix(d2, dim, docs, systems),
                                   int(settings.get("bootstrap_resamples", 1000)), int(settings.get("seed", 2023)),
                                   float(settings.get("confidence", 0.95)), settings.get("method", "spearman"),
                                   settings.get("undefined", "zero"))[level]
        return {"n_samples": len(samples), "sample_variance": sample_variance(m)[0], "ci_low": iv.low,
                "ci_high": iv.high, "interval": "two-stage bootstrap (documents, then samples)"}
    preds = [_accuracy_units(spec, data, per[s]) for s in samples]
    gold, clusters = preds[0][1], preds[0][2]
    m = np.stack([p[0] for p in preds], axis=1)
    correct = np.where(np.isnan(m), np.nan, (m == gold[:, None]).astype(float))
    iv, _ = two_stage_bootstrap(correct, clusters, int(settings.get("bootstrap_resamples", 1000)),
                                int(settings.get("seed", 2023)), float(settings.get("confidence", 0.95)))
    return {"n_samples": len(samples), "sample_variance": sample_variance(m)[0], "ci_low": iv.low,
            "ci_high": iv.high, "interval": "two-stage bootstrap (documents, then samples)"}


def _latency(base: dict, judge: str) -> float | None:
    """Sum of the replies' latency_s over a judge's base-prompt tables (None if not recorded)."""
    total, seen = 0.0, False
    for (j, _), p in base.items():
        if j == judge:
            df = pd.read_parquet(p, columns=None)
            if "latency_s" in df:
                total += float(pd.to_numeric(df["latency_s"], errors="coerce").fillna(0).sum())
                seen = True
    return total if seen else None


def build(table_csvs: list[str], data_paths: dict[str, str], judge_paths: list[str], judges_cfg: dict,
          settings: dict, alt: dict | None = None, longer_margin: float = 0.2) -> dict[str, pd.DataFrame]:
    """Every leaderboard frame: ``cells`` (one row per row x column), ``summary`` (per judge),
    ``pairs`` (every judge pair test), ``alt`` (every annotator test). ``longer_margin``: the
    length difference (share of the shorter summary) above which a pair counts for the
    longer-summary preference."""
    alt = {**DEFAULT_ALT, **(alt or {})}
    seed = int(settings.get("seed", 2023))
    resamples = int(settings.get("permutation_resamples", 1000))
    schemes = level_schemes(settings.get("permutation", "documents"))
    tables = pd.concat([pd.read_csv(p) for p in table_csvs], ignore_index=True) if table_csvs else pd.DataFrame()
    judge_rows = tables[tables.get("kind", pd.Series(dtype=str)) == "judge"] if len(tables) else tables
    base, swapped = {}, {}
    for p in judge_paths:
        parsed = parse_judge_path(p)
        if parsed and parsed[2] == "base":
            base[(parsed[0], parsed[1])] = p
        elif parsed and parsed[2] == "base_swapped":  # judge.pairwise_orders: [original, swapped]
            swapped[(parsed[0], parsed[1])] = p
    judges = list(dict.fromkeys(j for j, _ in base))
    frames = {k: _judge_frame(p) for k, p in base.items()}
    datas = {n: read_parquet(p, "dataset table") for n, p in data_paths.items()}
    cells, pairs_out, alt_tests, alt_left = [], [], {j: [] for j in judges}, {j: {} for j in judges}
    other_tests, other_left = {j: [] for j in judges}, {j: {} for j in judges}  # Likert: the score not deciding
    other_score = next(x for x in LIKERT_SCORES if x != alt["likert_score"])
    for key in COLUMNS_28:
        table, label, dim, level = key
        name = LABEL_TO_NAME.get(label)
        col = column_label(*key)
        if name not in datas:
            continue
        data, spec = datas[name], BUILTIN[name]
        present = [j for j in judges if (j, name) in frames]
        rec0 = {"column": col, "table": table, "dataset": label, "dimension": dim, "level": level}
        values, loo_vals, gates = {}, {}, {}
        for j in present:
            t = judge_rows[(judge_rows["row"] == j) & (judge_rows["table"] == table) & (judge_rows["dataset"] == label)
                           & (judge_rows["dimension"] == dim) & (judge_rows["level"] == level)] if len(judge_rows) else []
            r = t.iloc[0] if len(t) else {}
            pr = _parse_rate(frames[(j, name)])
            nc = str(r.get("near_constant", False)).lower() in ("true", "1") if len(t) else False
            reason = "; ".join(x for x in (f"parse rate {pr:.0%} < {PARSE_GATE:.0%}" if pr < PARSE_GATE else "",
                                           "near-constant answers" if nc else "") if x)
            values[j] = float(r["value"]) if len(t) else float("nan")
            gates[j] = reason
            orders = {}
            if (j, name) in swapped and spec.proto.swappable:
                f, fs = frames[(j, name)], _judge_frame(swapped[(j, name)])
                ids_ = data["unit_id"].astype(str)
                b = both_orders(_ok(f, "choice").reindex(ids_).to_numpy(dtype=float),
                                _ok(fs, "choice").reindex(ids_).to_numpy(dtype=float),
                                data["choice"].to_numpy(dtype=float))
                orders = {"flip_rate": b.flip_rate, "position_consistency": b.consistency,
                          "first_position_rate": b.first_position_rate, "acc_original": b.acc_original,
                          "acc_agreement_else_tie": b.acc_agreement_else_tie,
                          "acc_agreement_only": b.acc_agreement_only, "n_conflicts": b.n_conflicts,
                          "flip_flag": b.flagged}
            cells.append({**rec0, **orders, "row": j, "kind": "judge", "value": values[j],
                          "n": r.get("n") if len(t) else np.nan, "ci_low": r.get("ci_low") if len(t) else np.nan,
                          "ci_high": r.get("ci_high") if len(t) else np.nan, "parse_rate": pr,
                          "near_constant": nc, "greyed": bool(reason), "reason": reason,
                          **repeat_cells(spec, data, base[(j, name)], dim, settings, level),
                          **length_bias(spec, data, frames[(j, name)], spec.proto.label_columns((dim,))[0],
                                        longer_margin)})
        # humans (leave-one-out) and the judges against the same references; paired tests
        ids = data["unit_id"].astype(str)
        if level != "accuracy":
            ann_cols = _annotator_columns(data, dim)
            docs = sorted(data["doc_id"].astype(str).unique())
            systems = sorted(data["system"].astype(str).unique())
            d2 = data.assign(doc_id=data["doc_id"].astype(str), system=data["system"].astype(str))
            jm = {}
            for j in present:
                f = frames[(j, name)]
                s = _ok(f, dim).reindex(ids)
                jm[j] = likert_matrix(d2.assign(_j=s.to_numpy()), "_j", docs, systems)
            human = likert_matrix(d2, dim, docs, systems)
            if len(ann_cols) >= 2:
                stack = np.stack([likert_matrix(d2, c, docs, systems) for c in ann_cols])
                res = loo_likert(stack, jm, settings.get("method", "spearman"), settings.get("undefined", "zero"))
                for a, c in enumerate(ann_cols):
                    cells.append({**rec0, "row": f"{label} annotator {c.rsplit('_', 1)[1]} (LOO)", "kind": "human",
                                  "value": res.annotators[level][a], "n": res.n_cells[a], "loo_value": res.annotators[level][a],
                                  **length_bias(spec, data, data.set_index(ids), c, longer_margin)})
                loo_vals = {j: res.judges[j][level] for j in present}
                if level == "sample":  # the alt-test works on units; once per dimension, both Likert scores
                    lab = d2[ann_cols].to_numpy(dtype=float)
                    for j in present:
                        pred = jm[j][[docs.index(d) for d in d2["doc_id"]], [systems.index(s) for s in d2["system"]]]
                        for score, into, left_into in ((alt["likert_score"], alt_tests, alt_left),
                                                       (other_score, other_tests, other_left)):
                            pl, ll = pred, lab
                            if score == "rank":
                                pl = at.within_group_ranks(pred, d2["doc_id"])
                                ll = at.within_group_ranks(lab, d2["doc_id"])
                            tests, left = at.annotator_tests(f"{label} {dim}", pl, ll, ann_cols, score,
                                                             alt["epsilon"].get(name, 0.1), alt["min_instances"])
                            into[j] += tests
                            left_into[j][f"{label} {dim}"] = left

            def test(a, b, _lv=level):
                return paired_correlation_test(jm[a], jm[b], human, resamples, seed, settings.get("method", "spearman"),
                                               settings.get("undefined", "zero"), schemes)[_lv]
        else:
            votes = _votes(spec, data)
            preds = {j: _accuracy_units(spec, data, frames[(j, name)]) for j in present}
            gold, clusters = (_accuracy_units(spec, data, pd.DataFrame())[1:] if not present
                              else preds[present[0]][1:])
            if votes is not None:
                res = loo_labels(votes, {j: preds[j][0] for j in present})
                if name == "realsumm":  # anonymous voters: one row, averaged over the vote positions
                    cells.append({**rec0, "row": f"{label} voter (LOO, mean of positions)", "kind": "human",
                                  "value": float(np.nanmean(res.annotators)), "n": int(np.sum(res.n)),
                                  "loo_value": float(np.nanmean(res.annotators))})
                else:
                    for a, v in enumerate(res.annotators):
                        cells.append({**rec0, "row": f"{label} vote {a + 1} (LOO)", "kind": "human", "value": v,
                                      "n": res.n[a], "loo_value": v})
                loo_vals = dict(res.judges)
                for j in present:
                    tests, left = at.annotator_tests(label, preds[j][0], votes, [f"vote {a + 1}" for a in range(votes.shape[1])],
                                                     "accuracy", alt["epsilon"].get(name, 0.1), alt["min_instances"])
                    alt_tests[j] += tests
                    alt_left[j][label] = left

            def test(a, b):
                ca = np.where(np.isnan(preds[a][0]), np.nan, (preds[a][0] == gold).astype(float))
                cb = np.where(np.isnan(preds[b][0]), np.nan, (preds[b][0] == gold).astype(float))
                return cluster_paired_accuracy(ca, cb, clusters, resamples, seed)
            if votes is None:
                cells.append({**rec0, "row": f"{label} humans", "kind": "human", "value": np.nan,
                              "note": "one label per unit: no leave-one-out human row",
                              **length_bias(spec, data, data.set_index(ids), "choice", longer_margin)})
        ranked = [j for j in present if not gates[j] and not math.isnan(values[j])]
        fam = pair_family(ranked, test, settings.get("correction", "holm"))
        groups = rank_groups({j: values[j] for j in ranked}, fam)
        for r in fam:
            pairs_out.append({"column": col, **r})
        for c in cells:
            if c["column"] == col and c["kind"] == "judge":
                c["rank_group"] = groups.get(c["row"], np.nan)
                c["loo_value"] = loo_vals.get(c["row"], np.nan)
                c["separable_pairs"] = f"{separable(fam)} of {len(fam)}"
    alt_rows, summary = [], []
    for j in judges:
        done, verdicts = at.judge_alt_test(alt_tests[j], alt_left[j], alt["q"])
        alt_rows += [{"row": j, "score_used": True, **d.as_dict()} for d in done]
        vmap = {v.column: v for v in verdicts}
        other_done, other_verdicts = at.judge_alt_test(other_tests[j], other_left[j], alt["q"])
        alt_rows += [{"row": j, "score_used": False, **d.as_dict()} for d in other_done]
        omap = {v.column: v for v in other_verdicts}
        for c in cells:
            if c["row"] == j:
                key = c["dataset"] if c["level"] == "accuracy" else f"{c['dataset']} {c['dimension']}"
                v = vmap.get(key)
                if v is not None:
                    c.update(alt_winning_rate=v.winning_rate, alt_advantage=v.advantage, alt_passed=v.passed,
                             alt_annotators=v.n_annotators, alt_left_out=v.n_left_out)
                o = omap.get(key) if c["level"] != "accuracy" else None
                if o is not None:  # reported beside, never deciding pass/fail
                    c.update(alt_other_score=other_score, alt_other_winning_rate=o.winning_rate,
                             alt_other_advantage=o.advantage, alt_other_passed=o.passed)
        mine = [c for c in cells if c["row"] == j]
        ranks = [c["rank_group"] for c in mine if not pd.isna(c.get("rank_group", np.nan))]
        usages = []
        for (jj, _), p in base.items():
            up = Path(p).with_suffix(".usage.json")
            if jj == j and up.exists():
                import json
                usages.append(json.loads(up.read_text()))
        tested = [v for v in verdicts if v.n_annotators]
        summary.append({"row": j, "columns": len(mine), "columns_won": sum(1 for r in ranks if r == 1),
                        "mean_rank": float(np.mean(ranks)) if ranks else np.nan,
                        "rank_groups": len(set(ranks)), "greyed_columns": sum(1 for c in mine if c.get("greyed")),
                        "alt_passes": f"passes {sum(v.passed for v in tested)} of {len(tested)}",
                        **{k: v for k, v in cost_row(j, usages, judges_cfg.get(j, {}), _latency(base, j)).items()
                           if k != "row"}})
    cells_df = pd.DataFrame(cells)
    for c in CELL_COLUMNS + ["separable_pairs"]:
        if c not in cells_df:
            cells_df[c] = np.nan
    return {"cells": cells_df[CELL_COLUMNS + ["separable_pairs"]], "summary": pd.DataFrame(summary),
            "pairs": pd.DataFrame(pairs_out), "alt": pd.DataFrame(alt_rows)}


def _fmt(v, digits=3) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else (f"{v:.{digits}f}" if isinstance(v, float) else str(v))


def cell_text(r) -> str:
    if r["kind"] == "human":
        if pd.isna(r["value"]):
            return r["note"] if isinstance(r.get("note"), str) else ""
        return f"{r['value']:.3f} (n={int(r['n'])})"
    s = f"{_fmt(r['value'])} [{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}] n={_fmt(r['n'], 0) if pd.isna(r['n']) else int(r['n'])}"
    if not pd.isna(r.get("flip_rate", np.nan)):
        s += (f" flip {r['flip_rate']:.0%}{' (flagged > 10%)' if r['flip_flag'] in (True, 1) else ''}; acc original "
              f"{_fmt(r['acc_original'])}, agreement-else-tie {_fmt(r['acc_agreement_else_tie'])}, agreement-only "
              f"{_fmt(r['acc_agreement_only'])} ({int(r['n_conflicts'])} conflicts left out)")
    return s + (f" greyed: {r['reason']}" if r["greyed"] else f" rank {int(r['rank_group'])}" if not pd.isna(r["rank_group"]) else "")


def wide(cells: pd.DataFrame) -> pd.DataFrame:
    """One row per judge / human, one cell text per column (the LaTeX and HTML view)."""
    cols = list(dict.fromkeys(cells["column"]))
    t = cells.assign(text=[cell_text(r) for _, r in cells.iterrows()])
    w = t.pivot_table(index=["kind", "row"], columns="column", values="text", aggfunc="first").reindex(columns=cols)
    return w.fillna("").reset_index()


def latex(cells: pd.DataFrame, summary: pd.DataFrame) -> str:
    def esc(s):
        return str(s).replace("\\", r"\textbackslash{}").replace("&", r"\&").replace("%", r"\%").replace(
            "_", r"\_").replace("#", r"\#").replace("[", "{[}").replace("]", "{]}")
    lines = [r"% the judge leaderboard (sumjudge.tables.leaderboard); one cell per row and column"]
    for col, part in cells.groupby("column", sort=False):
        lines += [r"\begin{table*}[ht]\centering\small", r"\begin{tabular}{llrrrl}", r"\hline",
                  r"Row & Kind & Value & n & 95\% interval & Rank / note \\", r"\hline"]
        for _, r in part.iterrows():
            note = r["reason"] if r["greyed"] else (f"rank {int(r['rank_group'])}" if not pd.isna(r["rank_group"])
                                                    else (r["note"] if isinstance(r["note"], str) else ""))
            lines.append(f"{esc(r['row'])} & {r['kind']} & {esc(_fmt(r['value']))} & "
                         f"{'' if pd.isna(r['n']) else int(r['n'])} & "
                         f"{esc('' if pd.isna(r['ci_low']) else '[' + _fmt(r['ci_low']) + ', ' + _fmt(r['ci_high']) + ']')}"
                         f" & {esc(note)} \\\\")
        lines += [r"\hline", r"\end{tabular}", f"\\caption{{Leaderboard column {esc(col)}: judges (rank groups "
                  r"from Holm-corrected paired tests) and human annotators scored leave-one-out.}", r"\end{table*}", ""]
    lines += [r"\begin{table*}[ht]\centering\small", r"\begin{tabular}{lrrrll}", r"\hline",
              r"Judge & Columns won & Mean rank & Rank groups & Alt-test & USD / 1000 units \\", r"\hline"]
    for _, s in summary.iterrows():
        lines.append(f"{esc(s['row'])} & {s['columns_won']} & {esc(_fmt(s['mean_rank'], 2))} & {s['rank_groups']} & "
                     f"{esc(s['alt_passes'])} & {esc(s['usd_per_1k'])} \\\\")
    lines += [r"\hline", r"\end{tabular}", r"\caption{Judge leaderboard summary.}", r"\end{table*}", ""]
    return "\n".join(lines)


def page(cells: pd.DataFrame, summary: pd.DataFrame, pairs: pd.DataFrame, frontier_svg: str = "") -> str:
    esc = html.escape
    w = wide(cells)
    head = "".join(f"<th>{esc(c)}</th>" for c in w.columns)
    body = []
    for _, r in w.iterrows():
        tds = []
        for c in w.columns:
            v = str(r[c])
            cls = ' class="greyed"' if "greyed:" in v else ""
            tds.append(f"<td{cls}>{esc(v)}</td>")
        body.append(f"<tr class=\"{esc(str(r['kind']))}\">{''.join(tds)}</tr>")
    summ = summary.to_html(index=False, na_rep="", classes="summary", border=0)
    sep = (pairs.groupby("column").apply(lambda g: f"{int((g['p_adjusted'] < 0.05).sum())} of {len(g)}",
                                         include_groups=False).to_dict() if len(pairs) else {})
    seps = "".join(f"<li>{esc(k)}: {esc(v)} judge pairs separable at 95 %</li>" for k, v in sep.items())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Judge leaderboard</title>
<style>body{{font-family:sans-serif;margin:1em}} table{{border-collapse:collapse;font-size:12px}}
td,th{{border:1px solid #ccc;padding:2px 4px}} td.greyed{{color:#999;background:#f3f3f3}}
tr.human td{{font-style:italic}}</style></head><body>
<h1>Which judge is human-like?</h1>
<p>Judges and human annotators (scored leave-one-out against the others) per paper column. Judge cells:
value [95 % interval] n, rank group (Holm-corrected paired tests between judges; judges not significantly
worse than the best share rank 1). Greyed: parse rate below 95 % or near-constant answers (no rank).
Definitions: docs/statistics.md, "The judge leaderboard".</p>
<h2>Summary</h2>{summ}
<h2>Cells</h2><table id="leaderboard"><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>
<h2>Separable judge pairs</h2><ul>{seps or '<li>fewer than two ranked judges in every column</li>'}</ul>
<h2>Frontier</h2>{frontier_svg}
</body></html>
"""


def frontier(summary: pd.DataFrame, path: str) -> None:
    """Seconds per 1000 units (x, log) against mean rank (y, lower is better), one point per judge."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "sumjudge"
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for _, s in summary.iterrows():
        x, y = s.get("seconds_per_1k"), s.get("mean_rank")
        if pd.isna(x) or pd.isna(y):
            continue
        ax.scatter([x], [y])
        ax.annotate(f"{s['row']} ({s['usd_per_1k']} USD/1k)", (x, y), fontsize=7)
    if not len(summary):
        ax.text(0.5, 0.5, "no judge", ha="center", transform=ax.transAxes)
    ax.set_xlabel("seconds per 1000 units")
    ax.set_ylabel("mean rank group (lower is better)")
    ax.invert_yaxis()
    ax.set_title("Judge frontier: time against rank")
    fig.tight_layout()
    fmt = str(path).rsplit(".", 1)[-1]
    fig.savefig(path, format=fmt, metadata={"Date": None} if fmt == "svg" else None, dpi=100)
    plt.close(fig)
