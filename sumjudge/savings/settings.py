"""The savings stage's settings, typed and validated once (config block ``savings``;
definitions: docs/statistics.md, "How many human labels a judge replaces").

Defaults are config.yaml's own ``savings`` block: a config that sets part of it keeps
config.yaml's values for the rest.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from ..errors import UserError
from .ppi import INTERVALS

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "config.yaml"
PAIRS = ("adjacent", "all")


class SavingsConfigError(UserError, ValueError):
    """A ``savings`` setting cannot be used as written."""


@lru_cache(maxsize=1)
def _defaults() -> dict[str, Any]:
    import yaml

    try:
        block = (yaml.safe_load(DEFAULT_CONFIG.read_text()) or {}).get("savings")
    except OSError as err:
        raise SavingsConfigError(f"{DEFAULT_CONFIG}: cannot read the savings defaults ({err})") from None
    if not isinstance(block, dict):
        raise SavingsConfigError(f"{DEFAULT_CONFIG}: no `savings` block; restore it from the repository")
    return block


@dataclass(frozen=True)
class SavingsSettings:
    n_labelled: tuple[int, ...] = (10, 25, 50)   # human-labelled documents per draw
    resamples: int = 500                         # draws of the labelled documents per n
    interval: str = "pooled"                     # pooled | t | normal
    prior_documents: float = 3.0                 # pooled interval: documents the pooled dispersion weighs
    finite_population: bool = True               # the target is the mean over the documents at hand
    confidence: float = 0.95
    seed: int = 2023
    pairs: str = "adjacent"                      # differences: adjacent systems in the human ranking | all
    summary_n: int = 25                          # the n the summary and the LaTeX table report
    lambda_floor: float = 0.1                    # a mean lambda below it: "PPI++ cannot use this judge"
    annotator_coverage: float = 0.8              # an annotator held out must label this share of the cells
    judge_cost_ratio: float = 0.05               # power analysis: a judge answer's cost / a human label's

    def __post_init__(self):
        checks = [(len(self.n_labelled) > 0 and all(isinstance(n, int) and n >= 3 for n in self.n_labelled),
                   "n_labelled", "a list of integers of at least 3 (the t interval of PPI++ has n - 2 df)"),
                  (self.resamples >= 10, "resamples", "an integer of at least 10 (500 or more for coverage)"),
                  (self.interval in INTERVALS, "interval", f"one of {INTERVALS}"),
                  (isinstance(self.prior_documents, (int, float)) and self.prior_documents >= 0, "prior_documents",
                   "a number of at least 0"),
                  (0 < self.confidence < 1, "confidence", "between 0 and 1"),
                  (self.pairs in PAIRS, "pairs", f"one of {PAIRS}"),
                  (self.summary_n in self.n_labelled, "summary_n", "one of savings.n_labelled"),
                  (0 <= self.lambda_floor < 1, "lambda_floor", "at least 0 and under 1"),
                  (0 < self.annotator_coverage <= 1, "annotator_coverage", "above 0 and at most 1"),
                  (self.judge_cost_ratio > 0, "judge_cost_ratio", "above 0")]
        for ok, key, want in checks:
            if not ok:
                raise SavingsConfigError(f"config key savings.{key} must be {want}; fix it in config.yaml "
                                         "or the --configfile that sets it")

    def as_dict(self) -> dict[str, Any]:
        """Plain values: what rule ``savings`` passes as a param (Snakemake compares only plain
        values for reruns, so a changed setting rebuilds the ledger)."""
        return {**asdict(self), "n_labelled": list(self.n_labelled)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "SavingsSettings":
        try:
            return cls(**{**d, "n_labelled": tuple(int(n) for n in d["n_labelled"])})
        except (TypeError, ValueError) as err:
            raise SavingsConfigError(f"config block savings: {err}; see config.yaml for the keys and types") from None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "SavingsSettings":
        return cls.from_dict({**_defaults(), **(config.get("savings") or {})})
