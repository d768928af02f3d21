"""Statistical settings of the tables, from config blocks ``stats`` and ``tables``."""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


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
    near_constant: float = 0.8        # tables.near_constant: modal share above which a judge is flagged

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "TableSettings":
        stats = config.get("stats") or {}
        tables = dict(config.get("tables") or {})
        values: dict[str, Any] = {}
        if "correlation" in stats:
            values["method"] = stats["correlation"]
        if "undefined" in stats:
            values["undefined"] = stats["undefined"]
        names = {f.name for f in fields(cls)} - {"method", "undefined"}
        unknown = set(tables) - names
        if unknown:
            raise ValueError(f"unknown tables settings {sorted(unknown)}; allowed: {sorted(names)}")
        values.update(tables)
        return cls(**values)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TableSettings":
        return cls(**d)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
