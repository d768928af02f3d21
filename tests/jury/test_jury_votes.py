"""Issue 36 item 4: how a jury's members' answers on a unit become its own, per protocol, against
hand-worked votes (invalid members left out, ties broken as docs/judge.md "Juries" says)."""
import numpy as np
import pytest

from sumjudge.jury import votes

N = np.nan
LIKERT = np.array([[2, 3, 4], [4, 4, 1], [5, N, 3], [N, N, N], [1, 2, 2]], dtype=float)


@pytest.mark.parametrize("how, expected", [
    ("mean", [3.0, 3.0, 4.0, N, 5 / 3]),
    ("median", [3.0, 4.0, 4.0, N, 2.0]),
    # a tie between scores (2, 3, 4; 5, 3) is broken by the median of the valid votes
    ("majority", [3.0, 4.0, 4.0, N, 2.0]),
])
def test_likert_scores(how, expected):
    np.testing.assert_allclose(votes.scores(LIKERT, how), expected)


BINARY = np.array([[1, 1, 0], [0, N, 1], [N, 0, 1], [N, N, N], [0, 0, 0], [1, 0, N]], dtype=float)


@pytest.mark.parametrize("how", ["mean", "median", "majority"])
def test_binary_labels_are_a_majority_vote_with_the_chair_on_a_split(how):
    # [0, N, 1]: split, the first member that voted (the chair) decides 0; [N, 0, 1]: the second member, 0;
    # [1, 0, N]: the chair 1
    np.testing.assert_array_equal(votes.labels(BINARY, how), [1, 0, 0, N, 0, 1])


TIE = 2
PAIRS = np.array([[0, 1, 2], [0, 0, 2], [1, 2, 2], [0, 1, N], [2, N, N], [0, 2, 1]], dtype=float)


@pytest.mark.parametrize("how, expected", [
    # preference scale 0 < tie (1/2) < 1: means 0.5, 1/6, 2/3, 0.5, 0.5, 0.5
    ("mean", [2, 0, 1, 2, 2, 2]),
    # medians 0.5, 0, 0.5, 0.5, 0.5, 0.5
    ("median", [2, 0, 2, 2, 2, 2]),
    # most votes: a three-way split, 0, tie, a split (0 vs 1), tie, a three-way split: ties give the tie answer
    ("majority", [2, 0, 2, 2, 2, 2]),
])
def test_pairwise_with_a_tie_answer(how, expected):
    np.testing.assert_array_equal(votes.labels(PAIRS, how, tie_answer=TIE), expected)


def test_agreement_and_votes():
    answer = votes.labels(BINARY, "majority")
    np.testing.assert_allclose(votes.agreement(BINARY, answer), [2 / 3, 0.5, 0.5, N, 1.0, 0.5])
    np.testing.assert_array_equal(votes.n_votes(BINARY), [3, 2, 2, 0, 3, 2])


def test_an_unknown_aggregate_is_refused():
    with pytest.raises(ValueError, match="mean, median, majority|'mode'"):
        votes.scores(LIKERT, "mode")
