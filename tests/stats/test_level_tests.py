"""The leaderboard's paired tests of two rows' correlations (sumjudge/stats/level_tests.py):
the same statistic as the tables' permutation test, exact where both enumerate, the
normal approximation where patterns are drawn, and the floor known before testing."""
import numpy as np
import pytest

from sumjudge.stats.level_tests import floor_p, level_tests
from sumjudge.stats.permutation import paired_correlation_test

SCHEME = {"sample": "documents", "system": "systems", "dataset": "documents"}


def _rows(d, s, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(1, 6, size=(d, s)).astype(float)
    return y + rng.normal(scale=1.0, size=y.shape), rng.integers(1, 6, size=(d, s)).astype(float), y


def test_exact_where_both_enumerate():
    """5 documents, 5 systems: the tables' test enumerates the 32 patterns of each; the
    sample level's sign flip and the system level's enumeration give the same p-values."""
    x, z, y = _rows(5, 5)
    x[0, 0] = np.nan
    ours = level_tests(x, z, y, 1000, 0, scheme=SCHEME)
    theirs = paired_correlation_test(x, z, y, 1000, 0, scheme=SCHEME)
    for lv in ("sample", "system", "dataset"):
        assert ours[lv].exact and theirs[lv].exact, lv
        assert ours[lv].statistic == pytest.approx(theirs[lv].statistic, abs=1e-12), lv
        for k in ("p_value", "p_greater", "p_less"):
            assert getattr(ours[lv], k) == pytest.approx(getattr(theirs[lv], k), abs=1e-12), (lv, k)


def test_the_normal_approximation_where_patterns_are_drawn():
    """20 documents, 12 systems: the statistics are the tables'; the sample and dataset
    levels use the normal approximation (no 1/1001 floor), the system level enumerates its
    4,096 patterns; where the effect is small, the p-values agree with the tables' Monte
    Carlo ones."""
    rng = np.random.default_rng(4)
    y = rng.integers(1, 6, size=(20, 12)).astype(float)
    x = y + rng.normal(scale=3.0, size=y.shape)
    z = y + rng.normal(scale=3.3, size=y.shape)
    ours = level_tests(x, z, y, 400, 0, scheme=SCHEME)
    theirs = paired_correlation_test(x, z, y, 400, 0, scheme=SCHEME)
    assert [ours[lv].exact for lv in ("sample", "system", "dataset")] == [False, True, False]
    assert ours["system"].n_permutations == 2 ** 12
    for lv in ("sample", "system", "dataset"):
        assert ours[lv].statistic == pytest.approx(theirs[lv].statistic, abs=1e-12), lv
        assert ours[lv].p_value == pytest.approx(theirs[lv].p_value, abs=0.06), lv
    good = level_tests(y + rng.normal(scale=0.3, size=y.shape), z, y, 400, 0, scheme=SCHEME)
    # a much better row: far below the Monte Carlo floor of 400 draws (1/401)
    assert good["sample"].p_greater < 1e-4 and good["dataset"].p_greater < 1e-4


def test_floors_are_known_from_the_cells():
    cells = np.ones((100, 16), bool)
    assert floor_p(cells, "system", SCHEME) == (2.0 ** -16, 16, "systems")
    assert floor_p(cells, "sample", SCHEME) == (0.0, 100, "documents")          # normal approximation
    assert floor_p(cells, "dataset", SCHEME) == (0.0, 100, "documents")
    assert floor_p(np.ones((100, 3), bool), "system", SCHEME) == (1 / 8, 3, "systems")
    assert floor_p(np.ones((6, 4), bool), "dataset", SCHEME, n_resamples=1000) == (1 / 64, 6, "documents")
    assert floor_p(cells, "sample", "documents", undefined="skip") == (0.0, 100, "documents")
