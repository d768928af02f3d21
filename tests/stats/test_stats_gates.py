"""Gates before verdicts (docs/statistics.md, "Gates before verdicts"): the near-constant
gate measured against the humans, on the real SummEval experts and by hand; the
parse gate over the dataset's units."""
import numpy as np
import pytest

from sumjudge.stats.gates import Gate, ParseGate, alt_test_allowed, modal_share, near_constant, parse_gate

NAN = float("nan")


@pytest.fixture(scope="module")
def consistency(prepared):
    df = prepared("summeval")
    experts = df[[f"consistency_expert{i}" for i in range(3)]].to_numpy(dtype=float)
    return df["consistency"].to_numpy(dtype=float), experts


def test_summeval_consistency_modal_shares(consistency):
    mean, experts = consistency
    assert len(mean) == 1600 and np.allclose(mean, experts.mean(axis=1))
    # the expert mean is 5.0 for 1306 of 1600 summaries; each expert answers 5 for 85-89 %
    assert modal_share(mean) == pytest.approx(0.81625)
    assert [modal_share(experts[:, a]) for a in range(3)] == pytest.approx([0.854375, 0.86, 0.890625])


def test_judge_equal_to_the_human_mean_is_not_greyed_and_a_constant_judge_is(consistency):
    mean, experts = consistency
    g = near_constant(mean, experts, threshold=0.8)
    # the old absolute gate (modal share > .8) greyed it; against the experts (s_H = .8906) it is not
    assert g == Gate(False, pytest.approx(0.81625), pytest.approx(0.890625), "")
    for a in range(3):  # a judge that copies any single expert
        assert not near_constant(experts[:, a], experts).flagged
    const = near_constant(np.full(1600, 5.0), experts)
    assert const.flagged and const.modal_share == 1.0 and "one answer" in const.reason
    assert not alt_test_allowed(const)[0]


def test_near_constant_boundary_on_real_experts(consistency):
    _, experts = consistency
    # flagged when 1 - s_J < .5 * (1 - .890625) = .0546875, i.e. s_J > .9453125 (1512.5 of 1600)
    rng = np.random.default_rng(0)
    order = rng.permutation(1600)

    def judge(n_other):
        j = np.full(1600, 5.0)
        j[order[:n_other]] = 3.0
        return j

    assert near_constant(judge(87), experts).flagged            # s_J = 1513/1600 = .9456
    g = near_constant(judge(88), experts)                       # s_J = 1512/1600 = .945
    assert not g.flagged and g.modal_share == pytest.approx(0.945)
    # invalid answers do not count in the judge's share
    j = judge(88)
    j[order[88:400]] = NAN
    assert near_constant(j, experts).modal_share == pytest.approx((1600 - 400) / (1600 - 312))


def test_near_constant_by_hand_and_with_a_reference_only():
    humans = np.array([[1, 1], [1, 0], [0, 1], [1, 1], [0, 0]], dtype=float)  # shares .6 and .6
    # with the default min_units (30), annotators of 5 units do not count: no human share
    assert np.isnan(near_constant([1, 1, 1, 1, 0], humans).human_modal_share)
    # judge 1 1 1 1 0: s_J .8, not above .8 -> not flagged
    assert not near_constant([1, 1, 1, 1, 0], humans, min_units=5).flagged
    # threshold .7: .8 > .7 and .2 < .5 * .4 = .2? no (equal) -> not flagged; ratio .6: .2 < .24 -> flagged
    assert not near_constant([1, 1, 1, 1, 0], humans, threshold=0.7, min_units=5).flagged
    g = near_constant([1, 1, 1, 1, 0], humans, threshold=0.7, ratio=0.6, min_units=5)
    assert g.flagged and g.human_modal_share == pytest.approx(0.6) and "0.200" in g.reason
    # no per-annotator labels: the reference (1-d) plays the humans
    ref = np.array([1, 1, 1, 1, 1, 1, 1, 1, 1, 0], dtype=float)                  # .9
    assert not near_constant(ref, ref).flagged
    assert near_constant(np.ones(10), ref).flagged
    # a reference beside the annotators counts in s_H
    assert near_constant([1, 1, 1, 1, 0], humans, 0.7, 0.6, reference=[1, 1, 1, 1, 0], min_units=5).flagged is False
    # a worker with a handful of labels (share 1.0) does not set the humans' share
    workers = np.full((40, 3), NAN)
    workers[:, 0] = np.r_[np.ones(24), np.zeros(16)]          # 40 labels, share .6
    workers[:2, 1] = 1                                        # 2 labels, share 1
    judge = np.r_[np.ones(37), np.zeros(3)]                   # .925: .075 < .5 * .4
    assert near_constant(judge, workers).flagged
    assert near_constant(judge, workers, min_units=2).human_modal_share == 1.0
    assert not near_constant(judge, workers, min_units=2).flagged
    assert near_constant([NAN, NAN], np.ones((2, 2)), min_units=1) == Gate(False, pytest.approx(NAN, nan_ok=True), 1.0, "")
    with pytest.raises(ValueError, match="same order"):
        near_constant([1, 2, 3], np.ones((2, 2)))


def test_parse_gate_counts_the_dataset_units():
    # an imported file with 50 valid scores for a 100-unit dataset: .5, flagged, whatever rows it had
    g = parse_gate(50, 100)
    assert g == ParseGate(True, 0.5, 50, 100, "parse rate 0.500 (50 of 100 units) under 0.95")
    assert parse_gate(95, 100) == ParseGate(False, 0.95, 95, 100, "")
    assert parse_gate(0, 0).flagged
    with pytest.raises(ValueError, match="each unit once"):
        parse_gate(101, 100)
    ok, why = alt_test_allowed(parse_gate(95, 100), None, Gate(False, 0.5, 0.9))
    assert ok and why == ""
    ok, why = alt_test_allowed(g, Gate(True, 1.0, 0.9, "near-constant: one answer for every unit"))
    assert not ok and why == ("not tested: parse rate 0.500 (50 of 100 units) under 0.95; "
                              "near-constant: one answer for every unit")
