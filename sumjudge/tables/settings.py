"""Statistical settings of the tables, from config blocks ``stats``, ``tables``
and ``tldr.metric_ties``."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ..catalog import METRIC_TIES_KEY
from .errors import TablesInputError

# default permutation scheme per correlation level (docs/statistics.md)
DEFAULT_PERMUTATION = {"sample": "documents", "system": "systems", "dataset": "documents"}
METRIC_TIES = ("wrong", "half", "skip")
PAIRWISE_LABELS = ("every", "majority")  # several annotators per pair: every label a decision | their majority


@dataclass(frozen=True)
class TableSettings:
    method: str = "spearman"          # stats.correlation
    undefined: str = "zero"           # stats.undefined
    confidence: float = 0.95          # tables.confidence
    bootstrap_resamples: int = 1000   # tables.bootstrap_resamples
    permutation_resamples: int = 1000 # tables.permutation_resamples
    seed: int = 2023                  # tables.seed (bootstrap and permutation draws)
    invalid: str = "drop"             # tables.invalid: how an invalid reply enters an accuracy
    repeats: int | None = None        # tables.repeats: judge samples used per unit (None: all)
    examples: int = 3                 # tables.examples: Tables 7 and 8, examples per group
    explanation_min_words: int = 8    # tables.explanation_min_words: Table 7's rule
    bootstrap: str = "documents"      # tables.bootstrap: documents | systems | both
    permutation: Any = field(default_factory=lambda: dict(DEFAULT_PERMUTATION))  # tables.permutation
    correction: str = "holm"          # tables.correction: none | holm | bh (daggers)
    near_constant: float = 0.8        # tables.near_constant: modal share above which a judge is flagged
    metric_ties: str = "wrong"        # tldr.metric_ties: a metric's tie on TLDR is wrong | half | skip
    pairwise_labels: str = "every"    # tables.pairwise_labels: several labels per pair: every | majority
    pairwise_ties: str = "exact"      # tables.pairwise_ties: a tie answer (pairwise_tie) is exact | half | decided

    def __post_init__(self):
        from ..stats.bootstrap import BOOTSTRAP_SCHEMES
        from ..stats.correction import CORRECTIONS
        from ..stats.correlation import METHODS
        from ..stats.permutation import level_schemes
        if self.method not in METHODS:
            raise TablesInputError(f"stats.correlation must be one of {METHODS}, not {self.method!r}; "
                                   f"set it in config.yaml or with --config stats='{{correlation: spearman}}'")
        if self.bootstrap not in BOOTSTRAP_SCHEMES:
            raise TablesInputError(f"tables.bootstrap must be one of {BOOTSTRAP_SCHEMES}, not {self.bootstrap!r}")
        if self.correction not in CORRECTIONS:
            raise TablesInputError(f"tables.correction must be one of {CORRECTIONS}, not {self.correction!r}")
        if self.metric_ties not in METRIC_TIES:
            raise TablesInputError(f"tldr.metric_ties must be one of {METRIC_TIES}, not {self.metric_ties!r}")
        from ..stats.accuracy import TIE_SCORING
        if self.pairwise_labels not in PAIRWISE_LABELS:
            raise TablesInputError(f"tables.pairwise_labels must be one of {PAIRWISE_LABELS}, "
                                   f"not {self.pairwise_labels!r}")
        if self.pairwise_ties not in TIE_SCORING:
            raise TablesInputError(f"tables.pairwise_ties must be one of {TIE_SCORING}, not {self.pairwise_ties!r}")
        level_schemes(self.permutation)  # raises on a bad scheme

    def permutation_by_level(self) -> dict[str, str]:
        from ..stats.permutation import level_schemes
        return level_schemes(self.permutation)

    def provenance(self) -> dict[str, Any]:
        """What a reader needs to redo the intervals and tests (CSV columns, manifest)."""
        return {"seed": self.seed, "bootstrap": self.bootstrap, "bootstrap_resamples": self.bootstrap_resamples,
                "confidence": self.confidence, "permutation": self.permutation_by_level(),
                "permutation_resamples": self.permutation_resamples, "correction": self.correction,
                "correlation": self.method, "undefined": self.undefined, "metric_ties": self.metric_ties}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "TableSettings":
        stats = config.get("stats") or {}
        tables = dict(config.get("tables") or {})
        values: dict[str, Any] = {}
        if "correlation" in stats:
            values["method"] = stats["correlation"]
        if "undefined" in stats:
            values["undefined"] = stats["undefined"]
        section, key = METRIC_TIES_KEY  # tldr.metric_ties: Table 3's scoring of a metric tie
        if key in (config.get(section) or {}):
            values["metric_ties"] = config[section][key]
        # every field name is accepted, so that {"tables": settings.as_dict()} round-trips; the
        # schema keeps a real config's `tables` block to the tables keys
        names = {f.name for f in fields(cls)}
        unknown = set(tables) - names
        if unknown:
            raise TablesInputError(f"unknown tables settings {sorted(unknown)}; allowed: {sorted(names)}")
        values.update(tables)
        return cls(**values)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TableSettings":
        return cls(**d)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
