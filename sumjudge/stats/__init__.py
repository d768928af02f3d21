"""Statistics: correlation levels, accuracies, and (later) intervals and tests."""
from .correlation import LEVELS, CorrelationResult, correlate, correlation_levels  # noqa: F401
