"""The leaderboard's settings, typed (config block ``leaderboard``; definitions:
docs/statistics.md, "The judge leaderboard"; the settings convention: :mod:`sumjudge.settings`).

The defaults are the fields' own; a config that sets part of a block keeps the defaults for
the rest. The alt-test's epsilons are not config keys of this block: each dataset's is in the
registry (:attr:`sumjudge.datasets.Annotators.epsilon`; a user's dataset:
``custom_datasets.<name>.annotators.epsilon``), so no run gets another margin. The near-constant
gate's threshold on the modal share is ``tables.near_constant``
(:class:`sumjudge.evidence.settings.TableSettings`), read there
(:meth:`LeaderboardSettings.gate`).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

from ..datasets import BUILTIN, CUSTOM_EPSILON
from ..stats.gates import NearConstantGate
from ..evidence.settings import TableSettings

LIKERT_SCORES = ("neg_rmse", "rank")


def default_epsilon(config: Mapping[str, Any] | None = None) -> tuple[tuple[str, float], ...]:
    """(dataset, epsilon) of every built-in dataset whose annotators' expertise sets one
    (:attr:`sumjudge.datasets.Annotators.epsilon`), then of ``config``'s user datasets with
    annotators (their entry's ``annotators.epsilon``, default the crowd's)."""
    out = {name: spec.annotators.epsilon for name, spec in BUILTIN.items()
           if spec.annotators is not None and spec.annotators.epsilon is not None}
    for name, entry in ((config or {}).get("custom_datasets") or {}).items():
        if (entry or {}).get("annotators"):
            out[name] = float(entry["annotators"].get("epsilon", CUSTOM_EPSILON))
    return tuple(out.items())


@dataclass(frozen=True)
class AltTestSettings:
    # (dataset name, epsilon): the registry's, never a config key of this block (module docstring)
    epsilon: tuple[tuple[str, float], ...] = field(default_factory=default_epsilon)
    epsilon_default: float = CUSTOM_EPSILON  # a dataset without one (in memory only): the crowd margin, the strictest
    q: float = 0.05                  # BY level over one judge's annotator x column tests of one dataset
    min_instances: int = 30          # an annotator with fewer units is left out (and counted)
    likert_score: str = "rank"       # neg_rmse | rank: the score alignment deciding pass / fail
    control_shuffles: int = 199      # the null control: shuffles of the judge's answers (a permutation test)

    def __post_init__(self):
        if (1 / (self.control_shuffles + 1)) > 0.05:
            raise ValueError(f"leaderboard.alt_test.control_shuffles {self.control_shuffles}: a permutation p "
                             "cannot reach 0.05 with fewer than 19 shuffles (config.yaml: 199)")

    def epsilon_for(self, dataset: str) -> float:
        return float(dict(self.epsilon).get(dataset, self.epsilon_default))

    @property
    def other_score(self) -> str:
        """The alignment score reported beside the deciding one."""
        return next(s for s in LIKERT_SCORES if s != self.likert_score)


@dataclass(frozen=True)
class LeaderboardSettings:
    alt_test: AltTestSettings = field(default_factory=AltTestSettings)
    longer_margin: float = 0.2       # leaderboard.longer_margin
    parse_gate: float = 0.95         # leaderboard.parse_gate: valid replies below this share: greyed
    near_constant_ratio: float = 0.5  # leaderboard.near_constant_ratio: labels, modal share above tables.near_constant
                                      # and a non-modal share under this fraction of the annotators'
    near_constant_sd_ratio: float = 0.25  # leaderboard.near_constant_sd_ratio: a scored judge whose answers'
                                          # SD is under this fraction of the least dispersed human's is greyed
    close_margin: float = 0.05       # leaderboard.close_margin: "close to the humans" = judge LOO minus the
                                     # humans' LOO above -margin, with confidence
    verdict_pass_share: float = 0.5  # leaderboard.verdict_pass_share: the page's verdict sentence says a judge can take
                                     # the annotators' place when it passes the alt-test in this share of the columns
    families: bool = False           # leaderboard.families: each prompt family of judge.prompt_families adds its
                                     # median and 10th-percentile template rows (sumjudge.leaderboard.families)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "LeaderboardSettings":
        """The settings of a validated config's ``leaderboard`` block, over the defaults; the
        epsilons the registry's and the config's user datasets' (:func:`default_epsilon`)."""
        block = dict(config.get("leaderboard") or {})
        alt = dict(block.pop("alt_test", None) or {})
        moved = sorted({"epsilon", "epsilon_default"} & set(alt))
        if moved:
            raise ValueError(f"config leaderboard.alt_test.{moved[0]} is gone: a built-in dataset's epsilon is the "
                             "registry's (sumjudge/datasets.py, docs/statistics.md \"Epsilon\"), a user's dataset's "
                             "is custom_datasets.<name>.annotators.epsilon")
        return cls(AltTestSettings(epsilon=default_epsilon(config), **alt), **block)

    def gate(self, tables: TableSettings) -> NearConstantGate:
        """The near-constant gate, what the leaderboard greys and the tables stage flags: its
        threshold on the modal share is ``tables.near_constant``, its ratios this block's."""
        return NearConstantGate(tables.near_constant, self.near_constant_ratio, self.near_constant_sd_ratio)

    def to_params(self) -> dict[str, Any]:
        """Plain values: what rule ``leaderboard`` passes as a param (Snakemake compares their repr)."""
        return asdict(self)

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> "LeaderboardSettings":
        alt = {**params["alt_test"], "epsilon": tuple(tuple(e) for e in params["alt_test"]["epsilon"])}
        return cls(AltTestSettings(**alt), **{k: v for k, v in params.items() if k != "alt_test"})
