"""Spearman's rho over resampled or swapped copies sorted once (sumjudge/stats/ranked.py):
equal to ranking every copy, with ties and with continuous values."""
import numpy as np
import pytest

from sumjudge.stats.matrix import corr_last
from sumjudge.stats.ranked import resampled_spearman, swapped_spearman


@pytest.mark.parametrize("continuous", [False, True])
def test_equal_to_ranking_every_copy(continuous):
    rng = np.random.default_rng(0)
    d, s, b = 30, 6, 200
    doc = np.repeat(np.arange(d), s)
    x = rng.integers(1, 6, d * s).astype(float)           # Likert: many ties
    y = np.round(x + rng.normal(size=x.size), 0 if not continuous else 6)
    z = rng.integers(1, 6, d * s).astype(float)
    if continuous:
        x, z = x + rng.normal(scale=0.3, size=x.size), z + rng.normal(scale=0.3, size=z.size)
    draws = rng.integers(0, d, (b, d))
    counts = np.zeros((b, d))
    np.add.at(counts, (np.arange(b)[:, None], draws), 1)
    copies = (x.reshape(d, s)[draws].reshape(b, -1), y.reshape(d, s)[draws].reshape(b, -1))
    assert np.allclose(resampled_spearman(x, y, doc, counts), corr_last(*copies)[0], atol=1e-12)
    swap = rng.random((b, d)) < 0.5
    m = swap[:, doc]
    h = np.broadcast_to(y, m.shape)
    want = corr_last(np.where(m, z, x), h)[0] - corr_last(np.where(m, x, z), h)[0]
    assert np.allclose(swapped_spearman(x, z, y, doc, swap), want, atol=1e-12)


def test_a_constant_copy_is_undefined():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0])
    counts = np.array([[3.0, 0.0, 0.0], [1.0, 1.0, 1.0]])      # the first copy holds cell 0 three times
    got = resampled_spearman(x, y, np.arange(3), counts)
    assert np.isnan(got[0]) and got[1] == pytest.approx(0.5)
