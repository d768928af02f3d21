"""Gates before verdicts (sumjudge/stats/gates.py; docs/statistics.md, "Gates before
verdicts"): the near-constant gates measured against the humans, on the real SummEval
experts, SQuALITY's 0-100 reviewers and by hand; the parse gate over the dataset's units."""
import numpy as np
import pytest

from sumjudge.stats.gates import (Gate, ParseGate, alt_test_allowed, dispersion_gate, modal_share, near_constant,
                                  parse_gate)

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
    assert const.flagged and const.judge == 1.0 and "one answer" in const.reason
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
    assert not g.flagged and g.judge == pytest.approx(0.945)
    # invalid answers do not count in the judge's share
    j = judge(88)
    j[order[88:400]] = NAN
    assert near_constant(j, experts).judge == pytest.approx((1600 - 400) / (1600 - 312))


def test_near_constant_by_hand_and_with_a_reference_only():
    humans = np.array([[1, 1], [1, 0], [0, 1], [1, 1], [0, 0]], dtype=float)  # shares .6 and .6
    # with the default min_units (30), annotators of 5 units do not count: no human share
    assert np.isnan(near_constant([1, 1, 1, 1, 0], humans).human)
    # judge 1 1 1 1 0: s_J .8, not above .8 -> not flagged
    assert not near_constant([1, 1, 1, 1, 0], humans, min_units=5).flagged
    # threshold .7: .8 > .7 and .2 < .5 * .4 = .2? no (equal) -> not flagged; ratio .6: .2 < .24 -> flagged
    assert not near_constant([1, 1, 1, 1, 0], humans, threshold=0.7, min_units=5).flagged
    g = near_constant([1, 1, 1, 1, 0], humans, threshold=0.7, ratio=0.6, min_units=5)
    assert g.flagged and g.human == pytest.approx(0.6) and "0.200" in g.reason
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
    assert near_constant(judge, workers, min_units=2).human == 1.0
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


# ---------------------------------------------------------------- scores: dispersion against the humans


def test_dispersion_gate_by_hand():
    humans = np.array([[1, 2], [3, 2], [5, 2], [1, 4], [5, 4]], dtype=float)
    # annotator 0: mean 3, SD sqrt((4 + 0 + 4 + 4 + 4) / 5) = 1.7889; annotator 1: mean 2.8, SD .9798
    judge = np.array([3, 3, 3, 3, 4], dtype=float)           # mean 3.2, SD .4
    g = dispersion_gate(judge, humans, ratio=0.5, min_units=5)
    assert (g.judge, g.human, g.measure) == (pytest.approx(0.4), pytest.approx(0.9798, abs=1e-4), "SD")
    assert g.flagged and "SD 0.4 under 0.5 x the least dispersed human's (0.98)" in g.reason
    assert not dispersion_gate(judge, humans, ratio=0.25, min_units=5).flagged        # .4 >= .245
    assert dispersion_gate(np.full(5, 3.0), humans, min_units=5).reason == "near-constant: one answer for every unit"
    # every sample counts: samples (3, 5) per unit have SD 1 although their means are all 4
    samples = np.tile([3.0, 5.0], (5, 1))
    assert dispersion_gate(samples, humans, 0.5, min_units=5).judge == pytest.approx(1.0)
    # the reference counts beside the annotators; NaN answers do not count
    assert dispersion_gate([NAN, 3, 4, 3, 4], humans, 0.5, reference=[3, 3, 3, 3, 3.1], min_units=5).human == \
        pytest.approx(0.04)
    assert np.isnan(dispersion_gate([NAN] * 5, humans, min_units=5).judge)


def test_dispersion_gate_on_real_summeval_consistency(consistency):
    """The least dispersed human is the third expert (SD .866): a judge answering 5, else 4, is
    flagged when sqrt(p (1 - p)) < .25 x .866, i.e. above 95.1 % fives. The 94 % judge of the
    review (N1) goes on to the alt-test, whose null control answers it; 96 % is greyed."""
    mean, experts = consistency
    order = np.random.default_rng(0).permutation(1600)

    def judge(n_fours):
        j = np.full(1600, 5.0)
        j[order[:n_fours]] = 4.0
        return j

    ref = dispersion_gate(mean, experts, 0.25, mean)
    assert not ref.flagged and ref.human == pytest.approx(0.866, abs=1e-3)
    assert not any(dispersion_gate(experts[:, a], experts, 0.25, mean).flagged for a in range(3))
    assert not dispersion_gate(judge(96), experts, 0.25, mean).flagged                  # 94 % fives
    assert dispersion_gate(judge(64), experts, 0.25, mean).flagged                      # 96 % fives
    assert dispersion_gate(np.full(1600, 5.0), experts, 0.25, mean).flagged


def test_dispersion_gate_works_on_the_0_100_scale_and_on_samples(prepared):
    """SQuALITY (0-100): a judge answering 58 +- 2 has a modal share of about .25, which the
    modal-share rule never flags; its SD (1.4) is far under a quarter of the least dispersed
    reviewer's (14.5). The verdict does not depend on the scale. A judge whose every sample
    is 5 with probability .97 (else 4) is near-constant sample by sample (SD .17); the mean
    of its five samples looked varied to the modal-share rule (N8), the samples do not."""
    df = prepared("squality")
    lab = df[[f"correctness_expert{k}" for k in (2, 3, 6, 8)]].to_numpy(float)
    ref = df["correctness"].to_numpy(float)
    rng = np.random.default_rng(1)
    narrow = np.round(58 + rng.normal(0, 1.4, len(df)))
    assert not near_constant(narrow, lab, 0.8, 0.5, ref).flagged
    g = dispersion_gate(narrow, lab, 0.25, ref)
    assert g.flagged and g.human == pytest.approx(14.53, abs=0.01)
    assert dispersion_gate(narrow / 20, lab / 20, 0.25, ref / 20).flagged             # any scale
    assert not dispersion_gate(lab[:, 0], lab, 0.25, ref).flagged                     # a reviewer's copy
    samples = np.where(rng.random((1600, 5)) < 0.97, 5.0, 4.0)
    experts = prepared("summeval")[[f"consistency_expert{i}" for i in range(3)]].to_numpy(float)
    assert not near_constant(samples.mean(axis=1), experts).flagged                    # the old escape
    assert dispersion_gate(samples, experts, 0.25).flagged
