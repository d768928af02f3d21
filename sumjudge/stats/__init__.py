"""Statistics: correlation levels, accuracies, bootstrap intervals and permutation tests."""
from .accuracy import AccuracyResult, accuracy, clopper_pearson, correctness
from .bootstrap import (BOOTSTRAP_SCHEMES, BootBoth, ClusterBootstrap, Interval, boot_both_levels,
                        percentile_interval)
from .correction import CORRECTIONS, adjust, adjust_table
from .correlation import LEVELS, CorrelationResult, correlate, correlation_levels
from .permutation import (PERMUTATION_SCHEMES, PermutationResult, cell_swap_masks,
                          paired_accuracy_test, paired_correlation_test, paired_permutation_test, sign_test_p)
from .gates import Gate, ParseGate, alt_test_allowed, near_constant, parse_gate
from .ranks import Rank, rank_judges

__all__ = [
    "AccuracyResult", "accuracy", "clopper_pearson", "correctness", "BOOTSTRAP_SCHEMES", "BootBoth",
    "ClusterBootstrap", "Interval", "boot_both_levels", "percentile_interval", "CORRECTIONS", "adjust",
    "adjust_table", "LEVELS", "CorrelationResult", "correlate", "correlation_levels", "PERMUTATION_SCHEMES",
    "PermutationResult", "cell_swap_masks", "paired_accuracy_test", "paired_correlation_test",
    "paired_permutation_test", "sign_test_p", "Gate", "ParseGate", "alt_test_allowed", "near_constant",
    "parse_gate", "Rank", "rank_judges",
]
