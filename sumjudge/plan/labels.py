"""How many human labels a target interval needs, without and with the judge (docs/judge.md, "A plan
before paying").

The estimand is the one the savings stage reports first: a system's mean human score (Likert, per
dimension) or a rate of human labels (binary, pairwise, Pyramid SCUs; a tie answer counts 1/2), from
human-labelled documents, with the judge scoring the documents left unlabelled. Two numbers decide it:
``sd_human``, the human labels' standard deviation within a system, and ``ppi_corr``, the correlation
between the judge's answer and the human's on the same unit, within a system (PPI's correlation,
Broska, Howes and van Loon 2024). They come from the savings stage's ledger where it exists
(:func:`savings_pilot`), else from a pilot: the judge's existing table of the run's data
(:func:`table_pilot`).

- humans only: ``n = ceil((z * sd_human / h)^2)`` labelled documents for a half-width ``h`` at the
  confidence's ``z`` (the normal interval of a mean);
- with the judge: the cheapest PPI design with the same effective sample size, from ``ppi-python``'s
  power analysis (``ppi_py.ppi_power``: its ``n`` human labels and ``N`` judge-only documents), at
  ``label_usd`` a human label and the judge's price per unit, with at most ``pool`` documents in all.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ..jury.summary import label_answers, likert_answers, scored_decisions

PILOT_COLUMNS = ["dimension", "sd_human", "ppi_corr", "n_units", "source"]
PAPER_LABEL_USD = 60 / 1600  # the paper: 60 USD for one annotator's 1600 SummEval summaries


def savings_pilot(results: str | Path, judge: str, dataset: str) -> pd.DataFrame | None:
    """The one reader of the savings stage's results (results/savings/ledger.csv; its format may
    still change): per dimension the median ``sd_human`` and ``ppi_corr`` of the judge's
    system-mean cells; None where the file or those columns are absent."""
    path = Path(results) / "savings" / "ledger.csv"
    need = {"dataset", "row", "dimension", "estimand", "sd_human", "ppi_corr"}
    if not path.exists():
        return None
    ledger = pd.read_csv(path)
    if not need <= set(ledger.columns):
        return None
    mine = ledger[(ledger["row"] == judge) & (ledger["dataset"] == dataset) & (ledger["estimand"] == "system")]
    if mine.empty:
        return None
    out = mine.groupby("dimension", sort=False).agg(sd_human=("sd_human", "median"), ppi_corr=("ppi_corr", "median"),
                                                    n_units=("ppi_corr", "size")).reset_index()
    return out.assign(source=f"savings ledger ({path})")[PILOT_COLUMNS]


def within_groups(y: np.ndarray, yhat: np.ndarray, groups: np.ndarray) -> tuple[float, float, int]:
    """(pooled within-group sd of ``y``, within-group correlation of ``y`` and ``yhat``, pairs) over
    the pairs where both are present (groups: the systems; one group where a dataset has none)."""
    ok = ~np.isnan(y) & ~np.isnan(yhat)
    frame = pd.DataFrame({"y": y[ok], "h": yhat[ok], "g": groups[ok]})
    centred = frame[["y", "h"]] - frame.groupby("g")[["y", "h"]].transform("mean")
    dof = len(frame) - frame["g"].nunique()
    if dof < 2 or centred["y"].std() == 0 or centred["h"].std() == 0:
        return float("nan"), float("nan"), len(frame)
    sd = float(np.sqrt((centred["y"] ** 2).sum() / dof))
    return sd, float(np.corrcoef(centred["y"], centred["h"])[0, 1]), len(frame)


def table_pilot(run, human: pd.DataFrame, spec, settings) -> pd.DataFrame:
    """Per dimension (or accuracy question): ``sd_human`` and ``ppi_corr`` from the judge's table
    ``run`` of the run's data (a JudgeRun) against the human labels of ``human``; ``run`` None: the
    human spread alone (``ppi_corr`` NaN: no judge table to pilot on)."""
    human = human.assign(unit_id=human["unit_id"].astype(str))
    rows = []
    if spec.proto.per_dimension:
        for dim in spec.dimensions:
            y = human[dim].to_numpy(float)
            yhat = y if run is None else likert_answers(run, dim, human["unit_id"]).to_numpy(float)
            rows.append((dim, *within_groups(y, yhat, human["system"].to_numpy())))
    else:
        system = human.set_index("unit_id")[spec.system_column] if spec.system_column in human else None
        for gold, dimension, _ in spec.accuracy_questions:
            dec = scored_decisions(human, spec, gold, settings)
            groups = (dec["unit_id"].map(system) if system is not None else pd.Series(0, index=dec.index)).to_numpy()
            tie = spec.proto.tie_answer
            as_rate = (lambda v: np.where(v == tie, 0.5, v)) if tie is not None else (lambda v: v)
            y = as_rate(dec["gold"].to_numpy(float))
            rows.append((dimension, *within_groups(y, y if run is None else as_rate(label_answers(run, dec, spec)),
                                                   groups)))
    if run is None:
        return pd.DataFrame([(d, sd, np.nan, n, "human labels only: no judge table to pilot on")
                             for d, sd, _, n in rows], columns=PILOT_COLUMNS)
    return pd.DataFrame([(d, sd, r, n, f"pilot: {run.path}") for d, sd, r, n in rows], columns=PILOT_COLUMNS)


def labels_needed(sd_human: float, ppi_corr: float, half_width: float, confidence: float, pool: int,
                  label_usd: float = PAPER_LABEL_USD, judge_usd: float = 0.0) -> dict:
    """Human labels (documents) for a ``half_width`` interval: humans only, and with the judge on up to
    ``pool`` documents in all (module docstring)."""
    z = stats.norm.ppf(0.5 + confidence / 2)
    if not (np.isfinite(sd_human) and half_width > 0):
        return {"humans_only": None, "with_judge": None, "judge_only_documents": None, "note": "the human spread cannot be measured: too few documents per system"}
    n0 = max(1, math.ceil((z * sd_human / half_width) ** 2))
    out = {"humans_only": n0, "with_judge": None, "judge_only_documents": None, "note": ""}
    if n0 > pool:  # with the judge too: n + N <= pool documents are worth at most pool labelled ones
        out["note"] = f"not reachable: more than the {pool} documents there are, with or without the judge"
        return out
    if not np.isfinite(ppi_corr):
        out["note"] = "no judge correlation: run the judge on a pilot first"
        return out
    from ppi_py import ppi_power

    design = ppi_power(float(np.clip(ppi_corr, -0.999, 0.999)), 0.0, label_usd, max(judge_usd, 1e-9),
                       effective_n=n0, n_max=pool)
    out.update(with_judge=int(design["n"]), judge_only_documents=int(design["N"]))
    return out
