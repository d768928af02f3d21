"""Statistics: correlation levels, accuracies, bootstrap intervals and permutation tests."""
from .accuracy import AccuracyResult, accuracy, clopper_pearson, correctness  # noqa: F401
from .bootstrap import (BOOTSTRAP_SCHEMES, BootBoth, ClusterBootstrap, Interval, boot_both_levels,  # noqa: F401
                        percentile_interval)
from .correction import CORRECTIONS, adjust, adjust_table  # noqa: F401
from .correlation import LEVELS, CorrelationResult, correlate, correlation_levels  # noqa: F401
from .permutation import (PERMUTATION_SCHEMES, PermutationResult, cell_swap_masks,  # noqa: F401
                          paired_accuracy_test, paired_correlation_test, paired_permutation_test, sign_test_p)
from .gates import Gate, ParseGate, alt_test_allowed, near_constant, parse_gate  # noqa: F401
from .ranks import Rank, rank_judges  # noqa: F401
