"""Statistics: correlation levels, accuracies, bootstrap intervals and permutation tests."""
from .accuracy import AccuracyResult, accuracy, clopper_pearson, correctness  # noqa: F401
from .bootstrap import BootBoth, ClusterBootstrap, Interval, boot_both_levels, percentile_interval  # noqa: F401
from .correlation import LEVELS, CorrelationResult, correlate, correlation_levels  # noqa: F401
from .permutation import (PermutationResult, paired_accuracy_test, paired_correlation_test,  # noqa: F401
                          paired_permutation_test, sign_test_p)
