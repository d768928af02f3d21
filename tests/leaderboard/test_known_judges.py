"""The calibration run's judges (tests/support/known_judges.py) and latent-truth models
(tests/support/latent_truth.py): fits that recover known parameters, and judges with the
properties they declare, on the real human labels (docs/statistics.md, "Calibration of the verdicts")."""
import numpy as np
import pytest

from sumjudge.datasets import BUILTIN
from sumjudge.evidence.settings import TableSettings
from support import known_judges as kj
from support.calibration import population
from support.latent_truth import fit_dawid_skene, fit_likert

TS = TableSettings()


@pytest.fixture(scope="module")
def pops(prepared):
    return {n: population(BUILTIN[n], prepared(n), TS) for n in ("summeval", "helm_news", "tldr", "qags_cnn")}


def answers(pop, kind, item=0, seed=0):
    q = pop.items[item].q
    return q, kj.KINDS[kind].draw(q, np.arange(len(q.ref)), np.random.default_rng(seed))


def test_likert_fit_recovers_known_biases_and_noise():
    rng = np.random.default_rng(5)
    bias, noise = np.array([-0.4, 0.1, 0.3]), np.array([0.5, 0.8, 1.2])
    x = rng.normal(3, 1, 4000)[:, None] + bias + rng.standard_normal((4000, 3)) * noise
    x[rng.random(x.shape) < 0.2] = np.nan                     # a fifth of the labels missing
    m = fit_likert(x, (1, 5))
    assert np.abs(m.bias - bias).max() < 0.06
    assert np.abs(m.noise - noise).max() < 0.1
    assert m.typical_noise == pytest.approx(np.sqrt(np.mean(m.noise ** 2)))


CONFUSION = np.array([[[.9, .1], [.2, .8]], [[.7, .3], [.05, .95]], [[.85, .15], [.15, .85]], [[.6, .4], [.4, .6]]])


def known_labels(seed: int, n: int) -> np.ndarray:
    """``n x 4`` binary labels of four annotators with the confusion matrices ``CONFUSION``, a
    latent class 1 on 35 % of the units, a quarter of the labels missing."""
    rng = np.random.default_rng(seed)
    z = (rng.random(n) < 0.35).astype(int)
    labels = np.stack([(rng.random(n) < CONFUSION[a, z, 1]).astype(float) for a in range(4)], axis=1)
    labels[rng.random(labels.shape) < 0.25] = np.nan
    return labels


def test_dawid_skene_recovers_known_confusion_matrices():
    conf, labels = CONFUSION, known_labels(6, 4000)
    m = fit_dawid_skene(labels, 2)
    assert m.prior[1] == pytest.approx(0.35, abs=0.03)
    assert np.abs(m.confusion - conf).max() < 0.05


def test_the_peer_agrees_with_a_reference_as_a_held_out_annotator_does(prepared):
    """Fitted on two SummEval experts, the peer correlates with their mean as the third expert
    does (averaged over the three choices of the held-out expert)."""
    data = prepared("summeval")
    for dim in BUILTIN["summeval"].dimensions:
        _, lab = BUILTIN["summeval"].annotators.matrix(data, dim)
        held, peer = [], []
        for k in range(3):
            two = lab[:, [j for j in range(3) if j != k]]
            ref = two.mean(axis=1)
            held.append(np.corrcoef(lab[:, k], ref)[0, 1])
            draw = fit_likert(two, (1, 5)).peer(np.arange(len(ref)), np.random.default_rng(k))
            peer.append(np.corrcoef(draw, ref)[0, 1])
        assert np.mean(peer) == pytest.approx(np.mean(held), abs=0.06), dim


def test_near_constant_judges_answer_the_mode_on_their_share(pops):
    for name in ("summeval", "qags_cnn"):
        for kind in ("near85", "near94", "near99", "near94i"):
            q, a = answers(pops[name], kind)
            x = a.samples[:, 0]
            assert np.mean(x == q.mode) == pytest.approx(kj.NEAR[kind[:6]], abs=0.001), (name, kind)
    q, a = answers(pops["summeval"], "near94i")
    off = a.samples[:, 0] != q.mode                            # informative: the reference where it answers
    assert np.array_equal(a.samples[off, 0], q.rounded(q.ref[off]))


def test_noise_levels_are_graded_and_labels_flip_at_their_rate(pops):
    corr = [np.corrcoef(answers(pops["summeval"], k)[1].samples[:, 0], pops["summeval"].items[0].q.ref)[0, 1]
            for k in ("noise_low", "noise_mid", "noise_high")]
    assert corr[0] > corr[1] > corr[2] > 0
    q, a = answers(pops["qags_cnn"], "noise_mid")
    assert np.mean(a.samples[:, 0] != q.ref) == pytest.approx(0.25, abs=0.04)


def test_the_invalid_judge_abstains_on_its_worst_units_just_under_the_gate(pops):
    q, a = answers(pops["summeval"], "invalid")
    gone = np.isnan(a.samples[:, 0])
    assert gone.sum() == int(kj.INVALID_SHARE * len(q.ref)) == 78
    err = np.abs(a.underlying[:, 0] - q.ref)
    assert err[gone].min() >= err[~gone].max()
    assert np.array_equal(a.underlying[~gone, 0], a.samples[~gone, 0])


def test_position_and_length_biased_judges(pops):
    _, first = answers(pops["tldr"], "first")
    assert (first.samples == 0).all()
    _, mostly = answers(pops["helm_news"], "mostly_first")
    assert np.mean(mostly.samples == 0) == pytest.approx(kj.MOSTLY_FIRST, abs=0.08)   # 112 units
    q, longer = answers(pops["tldr"], "longer")
    a, b = q.length[:, 0], q.length[:, 1]
    assert np.array_equal(longer.samples[a != b, 0], (b > a)[a != b].astype(float))
    q, longer = answers(pops["summeval"], "longer")            # a longer summary never scores lower
    x, n = longer.samples[:, 0], q.length
    assert not ((n[:, None] < n[None, :]) & (x[:, None] > x[None, :])).any()
    assert np.array_equal(np.sort(x), np.sort(q.rounded(q.ref)))


def test_reference_shuffled_and_repeats(pops):
    q, ref = answers(pops["summeval"], "reference")
    assert np.array_equal(ref.samples[:, 0], q.ref)
    _, shuffled = answers(pops["summeval"], "shuffled")
    assert np.array_equal(np.sort(shuffled.samples[:, 0]), np.sort(q.ref))
    assert abs(np.corrcoef(shuffled.samples[:, 0], q.ref)[0, 1]) < 0.1
    _, rep = answers(pops["summeval"], "repeats")
    assert rep.samples.shape == (len(q.ref), kj.SAMPLES)
    single, mean = (np.corrcoef(x, q.ref)[0, 1] for x in (rep.samples[:, 0], rep.samples.mean(axis=1)))
    assert mean > single + 0.1


def test_kinds_that_do_not_apply_are_left_out(pops):
    assert "first" not in pops["summeval"].kinds and "first" in pops["tldr"].kinds
    assert "peer" not in pops["tldr"].kinds                      # one label per unit: no annotator to fit
    assert "peer" in pops["helm_news"].kinds and "peer" in pops["qags_cnn"].kinds


def test_a_simulated_panel_has_the_fitted_biases_noise_and_missing_labels():
    """A panel simulated from a fit (latent_truth.LikertModel.panel), fitted again, recovers the
    known biases and noise the real labels were drawn with (a 0-100 scale: rounding adds 1/12 to a
    variance), and labels exactly the units each real annotator labelled."""
    rng = np.random.default_rng(11)
    bias, noise = np.array([-4.0, 0.0, 4.0]), np.array([4.0, 8.0, 12.0])
    x = np.round(rng.normal(50, 15, 4000)[:, None] + bias + rng.standard_normal((4000, 3)) * noise)
    x[rng.random(x.shape) < 0.2] = np.nan
    labelled = ~np.isnan(x)
    panel, judge = fit_likert(x, (0, 100)).panel(np.arange(4000), labelled, np.random.default_rng(12))
    assert np.array_equal(~np.isnan(panel), labelled) and not np.isnan(judge).any()
    again = fit_likert(panel, (0, 100))
    assert np.abs(again.bias - bias).max() < 0.6
    assert np.abs(again.noise - noise).max() < 0.6


def test_a_simulated_label_panel_has_the_fitted_confusion_matrices():
    conf, labels = CONFUSION, known_labels(13, 8000)
    panel, judge = fit_dawid_skene(labels, 2).panel(np.arange(8000), ~np.isnan(labels), np.random.default_rng(14))
    assert np.array_equal(np.isnan(panel), np.isnan(labels)) and set(np.unique(judge)) == {0.0, 1.0}
    assert np.abs(fit_dawid_skene(panel, 2).confusion - conf).max() < 0.06


def test_the_simulated_judge_is_exchangeable_with_the_simulated_annotators():
    """Annotators of equal noise (their biases differ; a correlation ignores them): the judge's
    agreement with the mean of two annotators equals an annotator's with the other two, over 40
    simulated panels of 500 units, within three standard errors of the difference."""
    rng = np.random.default_rng(15)
    x = np.round(rng.normal(50, 10, 500)[:, None] + np.array([-3.0, 0.0, 3.0]) + 8 * rng.standard_normal((500, 3)))
    model = fit_likert(x, (0, 100))
    diffs = []
    for k in range(40):
        panel, judge = model.panel(np.arange(500), np.ones((500, 3), bool), np.random.default_rng(100 + k))
        loo = [np.corrcoef(panel[:, a], np.delete(panel, a, axis=1).mean(axis=1))[0, 1] for a in range(3)]
        mine = [np.corrcoef(judge, np.delete(panel, a, axis=1).mean(axis=1))[0, 1] for a in range(3)]
        diffs.append(np.mean(mine) - np.mean(loo))
    assert abs(np.mean(diffs)) < 3 * np.std(diffs, ddof=1) / np.sqrt(len(diffs))
    assert 0.5 < np.mean(mine) < 0.9                                    # agreement far from 0 and from 1
