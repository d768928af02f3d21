"""The savings stage's calls into ppi_py (sumjudge/savings/library.py)."""

import pytest
from savings_helpers import H, Y


def test_without_ppi_py_the_stage_says_how_to_install_it(monkeypatch):
    import sys

    from sumjudge.errors import UserError
    from sumjudge.savings import library

    monkeypatch.setitem(sys.modules, "ppi_py", None)        # as if not installed
    with pytest.raises(UserError, match=r"pip install ppi-python==0\.2\.3.*envs/savings\.yaml"):
        library.labels_for_same_precision(Y, H, 4, 0.05)


def test_labels_for_same_precision_at_the_edges_of_the_correlation():
    """The first run's jury: answers uncorrelated with the labels to 2.5e-17 made ppi_py's optimal
    pair 0 / 0 (ValueError: cannot convert float NaN to integer). Such a judge saves nothing (n);
    an affine copy of the labels needs the fewest labels PPI++ can use (2); between, the library."""
    import numpy as np

    from sumjudge.savings import library

    y = np.array([2, 2, 13 / 3, 2, 8 / 3, 2, 7 / 3, 4 / 3, 1, 5 / 3, 4 / 3, 4 / 3])  # three experts' means
    h = np.array([4, 4, 4, 4, 3, 3, 4, 4, 4, 4, 3, 4.0])
    assert abs(np.corrcoef(y, h)[0, 1]) < 1e-15
    with pytest.raises(ValueError, match="NaN"):      # the library alone, on these answers
        library._ppi().ppi_mean_power(y, h, cost_Y=1.0, cost_Yhat=0.05, effective_n=10, n_max=len(y))
    assert library.labels_for_same_precision(y, h, 10, 0.05) == 10.0
    assert library.labels_for_same_precision(y, 3 * y + 1, 10, 0.05) == 2.0
    rng = np.random.default_rng(0)
    h = y + rng.normal(0, 0.3, len(y))
    got = library.labels_for_same_precision(y, h, 10, 0.05)
    assert 2 <= got < 10      # a well-correlated judge saves labels
