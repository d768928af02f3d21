"""The leaderboard's settings, typed and validated once (config blocks ``leaderboard`` and
``tables.near_constant``; definitions: docs/statistics.md, "The judge leaderboard").

Defaults are config.yaml's own ``leaderboard`` block: a config that sets only part of a
block (one dataset's epsilon, say) keeps config.yaml's values for the rest.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from ..stats.gates import NearConstantGate
from ..tables.errors import TablesInputError
from ..tables.settings import TableSettings

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "config.yaml"
LIKERT_SCORES = ("neg_rmse", "rank")


@lru_cache(maxsize=1)
def _defaults() -> dict[str, Any]:
    import yaml

    try:
        block = (yaml.safe_load(DEFAULT_CONFIG.read_text()) or {}).get("leaderboard")
    except OSError as err:
        raise TablesInputError(f"{DEFAULT_CONFIG}: cannot read the leaderboard defaults ({err})") from None
    if not isinstance(block, dict):
        raise TablesInputError(f"{DEFAULT_CONFIG}: no `leaderboard` block; restore it from the repository")
    return block


def _merged(default: Mapping[str, Any], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """``given`` over ``default``, key by key, into nested blocks."""
    out = dict(default)
    for k, v in (given or {}).items():
        out[k] = _merged(default[k], v) if isinstance(v, Mapping) and isinstance(default.get(k), Mapping) else v
    return out


@dataclass(frozen=True)
class AltTestSettings:
    epsilon: tuple[tuple[str, float], ...]  # leaderboard.alt_test.epsilon: (dataset name, epsilon)
    epsilon_default: float           # ... for a dataset not listed there (a user's)
    q: float                         # BY level over one judge's annotator x column tests
    min_instances: int               # an annotator with fewer units is left out (and counted)
    likert_score: str                # neg_rmse | rank: the score alignment deciding pass / fail
    control_shuffles: int = 20       # the null control: shuffles of the judge's answers through the same test

    def epsilon_for(self, dataset: str) -> float:
        return float(dict(self.epsilon).get(dataset, self.epsilon_default))

    @property
    def other_score(self) -> str:
        """The alignment score reported beside the deciding one."""
        return next(s for s in LIKERT_SCORES if s != self.likert_score)


@dataclass(frozen=True)
class LeaderboardSettings:
    alt_test: AltTestSettings
    longer_margin: float             # leaderboard.longer_margin
    parse_gate: float                # leaderboard.parse_gate: valid replies below this share: greyed
    near_constant: float             # tables.near_constant: modal share a near-constant judge exceeds
    near_constant_ratio: float       # leaderboard.near_constant_ratio: ... and its non-modal share is under
                                     # this fraction of the annotators' non-modal share (labels)
    near_constant_sd_ratio: float = 0.25  # leaderboard.near_constant_sd_ratio: a scored judge whose answers'
                                          # SD is under this fraction of the least dispersed human's is greyed
    close_margin: float = 0.05       # leaderboard.close_margin: "close to the humans" = judge LOO minus the
                                     # humans' LOO above -margin, with confidence

    def __post_init__(self):
        a = self.alt_test
        checks = [(a.likert_score in LIKERT_SCORES, "alt_test.likert_score", f"one of {LIKERT_SCORES}"),
                  (0 < a.q < 1, "alt_test.q", "between 0 and 1"),
                  (a.min_instances >= 2, "alt_test.min_instances", "an integer of at least 2"),
                  (a.control_shuffles >= 1, "alt_test.control_shuffles", "an integer of at least 1"),
                  (all(0 <= v <= 1 for v in [*(v for _, v in a.epsilon), a.epsilon_default]), "alt_test.epsilon",
                   "between 0 and 1 for every dataset"),
                  (self.longer_margin >= 0, "longer_margin", "0 or more"),
                  (0 < self.parse_gate <= 1, "parse_gate", "above 0 and at most 1"),
                  (0 < self.near_constant_ratio <= 1, "near_constant_ratio", "above 0 and at most 1"),
                  (0 < self.near_constant_sd_ratio <= 1, "near_constant_sd_ratio", "above 0 and at most 1"),
                  (0 <= self.close_margin < 1, "close_margin", "0 or more and under 1")]
        for ok, key, want in checks:
            if not ok:
                raise TablesInputError(f"config key leaderboard.{key} must be {want}; fix it in config.yaml "
                                       "or the --configfile that sets it")

    @property
    def gate(self) -> NearConstantGate:
        """The near-constant gate (what the tables stage flags with too)."""
        return NearConstantGate(self.near_constant, self.near_constant_ratio, self.near_constant_sd_ratio)

    def as_dict(self) -> dict[str, Any]:
        """Plain values: what rule ``leaderboard`` passes as a param (Snakemake compares only
        plain values for reruns, so a changed epsilon rebuilds the leaderboard)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "LeaderboardSettings":
        """The settings of :meth:`as_dict`'s values (validated again)."""
        alt = {**d["alt_test"], "epsilon": tuple(tuple(e) for e in d["alt_test"]["epsilon"])}
        return cls(AltTestSettings(**alt), **{k: v for k, v in d.items() if k != "alt_test"})

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "LeaderboardSettings":
        block = _merged(_defaults(), config.get("leaderboard") or {})
        alt = block["alt_test"]
        try:
            a = AltTestSettings(tuple((str(k), float(v)) for k, v in alt["epsilon"].items()),
                                float(alt["epsilon_default"]), float(alt["q"]), int(alt["min_instances"]),
                                str(alt["likert_score"]), int(alt["control_shuffles"]))
            return cls(a, float(block["longer_margin"]), float(block["parse_gate"]),
                       TableSettings.from_config(dict(config)).near_constant, float(block["near_constant_ratio"]),
                       float(block["near_constant_sd_ratio"]), float(block["close_margin"]))
        except (TypeError, ValueError) as err:
            raise TablesInputError(f"config block leaderboard: a value is not a number ({err}); "
                                   "see config.yaml for the expected types") from None
