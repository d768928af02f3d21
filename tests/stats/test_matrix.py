"""The correlation levels on documents x systems matrices (sumjudge/stats/matrix.py): equal
to the pandas reference implementation, ranks that skip missing values, the matrix layout."""
import math

import numpy as np
import pandas as pd
import pytest

from sumjudge.stats.correlation import LEVELS, correlation_levels
from sumjudge.stats.matrix import levels_stack, likert_matrix, rank_last
from support.synthetic import tidy


@pytest.mark.parametrize("method", ["spearman", "kendall"])
@pytest.mark.parametrize("undefined", ["zero", "skip"])
def test_matrix_levels_equal_the_reference_implementation(method, undefined):
    rng = np.random.default_rng(7)
    x = rng.integers(1, 5, size=(9, 6)).astype(float)   # many ties
    y = rng.integers(1, 4, size=(9, 6)).astype(float)
    y[2] = 3.0                                           # a constant document: undefined
    x[4, :5] = np.nan                                    # a document with a single valid pair
    x[5] = np.nan                                        # a document with none
    y[0, 1] = np.nan
    ref = correlation_levels(tidy(x, y), "metric", "human", method=method, undefined=undefined)
    got = levels_stack(x, y, method, undefined)
    for lv in LEVELS:
        assert float(got[lv]) == pytest.approx(ref[lv].value, abs=1e-12), lv


def test_ranks_ignore_missing_values():
    from scipy.stats import rankdata

    rng = np.random.default_rng(4)
    a = rng.integers(1, 4, size=(5, 7, 9)).astype(float)
    a[rng.random(a.shape) < 0.3] = np.nan
    expected = rankdata(a, axis=-1, nan_policy="omit")
    assert np.array_equal(np.isnan(rank_last(a)), np.isnan(a))
    assert np.allclose(rank_last(a), expected, equal_nan=True)


def test_likert_matrix_layout_and_duplicates():
    df = pd.DataFrame({"doc_id": ["a", "a", "b"], "system": ["s1", "s2", "s1"], "v": [1.0, 2.0, 3.0]})
    m = likert_matrix(df, "v", ["a", "b"], ["s1", "s2"])
    assert m[0].tolist() == [1.0, 2.0] and m[1, 0] == 3.0 and math.isnan(m[1, 1])
    with pytest.raises(ValueError, match="more than one row"):
        likert_matrix(pd.concat([df, df.iloc[:1]]), "v", ["a", "b"], ["s1", "s2"])
