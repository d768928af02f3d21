"""Issue 10: bootstrap schemes, permutation schemes (exhaustive enumeration),
multiple-comparison adjustment, TLDR metric ties and counts, provenance."""
import csv
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sumjudge.stats.bootstrap import BootBoth, boot_both_levels, percentile_interval
from sumjudge.stats.correction import adjust, adjust_table
from sumjudge.stats.correlation import LEVELS, correlation_levels
from sumjudge.stats.matrix import UNDEFINED_ROWS, levels_stack
from sumjudge.stats.permutation import cell_swap_masks, level_schemes, paired_correlation_test, standardize
from sumjudge.tables.common import Row
from sumjudge.tables.settings import TableSettings
from support.harness import REPO, default_options
from support.synthetic import tidy


# --------------------------------------------------------------------------- bootstrap schemes

def test_schemes_share_their_draws_and_fix_the_other_dimension():
    both = BootBoth.draw(5, 4, n_resamples=7, seed=3, scheme="both")
    docs = BootBoth.draw(5, 4, n_resamples=7, seed=3, scheme="documents")
    syst = BootBoth.draw(5, 4, n_resamples=7, seed=3, scheme="systems")
    assert np.array_equal(docs.docs, both.docs) and np.array_equal(syst.systems, both.systems)
    assert (docs.systems == np.arange(4)).all() and (syst.docs == np.arange(5)).all()
    x = np.arange(20.0).reshape(5, 4)
    assert np.array_equal(docs.take(x)[2], x[both.docs[2]])
    with pytest.raises(ValueError, match="tables.bootstrap"):
        BootBoth.draw(5, 4, scheme="inputs")


def test_documents_scheme_manufactures_no_undefined_documents_and_both_does():
    # 40 documents x 6 systems; in every document only one system differs from the rest in
    # the human score, so dropping that system (as a system resample often does) makes the
    # document constant, i.e. undefined
    rng = np.random.default_rng(0)
    y = np.full((40, 6), 4.0)
    y[np.arange(40), rng.integers(0, 6, 40)] = 2.0
    y[:3] = 5.0                                    # 3 documents constant in the data
    x = y + rng.normal(size=y.shape)
    point = levels_stack(x, y, count_undefined=True)
    assert float(point[UNDEFINED_ROWS]) == 3
    docs = BootBoth.draw(40, 6, 400, seed=1, scheme="documents")
    got = boot_both_levels(x, y, docs, count_undefined=True)[UNDEFINED_ROWS]
    # per resample: exactly the number of draws that hit one of the 3 constant documents
    assert np.array_equal(got, (docs.docs < 3).sum(axis=1))
    assert got.mean() == pytest.approx(3, abs=0.3)
    both = BootBoth.draw(40, 6, 400, seed=1, scheme="both")
    assert boot_both_levels(x, y, both, count_undefined=True)[UNDEFINED_ROWS].mean() > 10


def test_interval_reports_mean_and_position():
    ci = percentile_interval([0.0, 1.0, 2.0, 3.0, 4.0, np.nan], 0.5)
    assert ci.mean == pytest.approx(2.0) and (ci.low, ci.high) == pytest.approx((1.0, 3.0))
    assert ci.position(1.5) == pytest.approx(0.25) and ci.position(3.0) == pytest.approx(1.0)
    assert math.isnan(percentile_interval([1.0, 1.0]).position(1.0))


# --------------------------------------------------------------------------- permutation schemes

def _levels_reference(a: np.ndarray, y: np.ndarray) -> dict[str, float]:
    return {lv: r.value for lv, r in correlation_levels(tidy(a, y), "metric", "human").items()}


def _enumerated_p(x, z, y, scheme: str) -> dict[str, float]:
    """The exact two-sided p-value by brute force: every swap pattern of the scheme's units,
    each level from the pandas reference implementation (not the matrix code)."""
    xs, zs = standardize(x), standardize(z)
    d, s = x.shape
    n_units = {"summaries": d * s, "documents": d, "systems": s, "both": d + s}[scheme]
    obs = {lv: _levels_reference(xs, y)[lv] - _levels_reference(zs, y)[lv] for lv in LEVELS}
    extreme = {lv: 0 for lv in LEVELS}
    patterns = list(itertools.product((False, True), repeat=n_units))
    swapped = {}  # a mask's levels: b of mask m is a of mask ~m, so each is computed once

    def levels_taking_z_at(m):
        key = m.tobytes()
        if key not in swapped:
            swapped[key] = _levels_reference(np.where(m, zs, xs), y)
        return swapped[key]

    for bits in patterns:
        bits = np.array(bits)
        if scheme == "summaries":
            m = bits.reshape(d, s)
        elif scheme == "documents":
            m = np.repeat(bits[:, None], s, axis=1)
        elif scheme == "systems":
            m = np.repeat(bits[None, :], d, axis=0)
        else:
            m = bits[:d, None] ^ bits[None, d:]
        ra, rb = levels_taking_z_at(m), levels_taking_z_at(~m)  # np.where(m, zs, xs), np.where(m, xs, zs)
        for lv in LEVELS:
            extreme[lv] += abs(ra[lv] - rb[lv]) >= abs(obs[lv]) - 1e-12 * max(1.0, abs(obs[lv]))
    return {lv: extreme[lv] / len(patterns) for lv in LEVELS}


@pytest.mark.parametrize("scheme", ["summaries", "documents", "systems", "both"])
def test_every_scheme_equals_exhaustive_enumeration(scheme):
    rng = np.random.default_rng(11)
    y = rng.integers(1, 6, size=(3, 3)).astype(float)
    y[0] = [1.0, 3.0, 5.0]                           # no constant document
    x = y + rng.normal(scale=0.8, size=y.shape)
    z = rng.normal(size=y.shape)
    res = paired_correlation_test(x, z, y, n_resamples=1000, seed=0, scheme=scheme)
    expected = _enumerated_p(x, z, y, scheme)
    n_patterns = {"summaries": 512, "documents": 8, "systems": 8, "both": 64}[scheme]
    for lv in LEVELS:
        assert res[lv].exact and res[lv].n_permutations == n_patterns, lv
        assert res[lv].p_value == pytest.approx(expected[lv], abs=1e-12), lv


def test_three_systems_can_never_reject_at_system_level():
    # A = the human scores, B = their negation; system means of A (standardised) are
    # (-2.33, 0.67, 1.67) / sd. A swap flips the sign of those systems' means in A (and B = -A),
    # so delta = 2 * rho(A'). Of the 8 sign patterns, +++, +-+ (0.67 -> -0.67 keeps the order),
    # --- and -+- keep A' monotone: p = 4/8, the smallest p three systems allow.
    y = np.array([[1.0, 4.0, 5.0], [1.0, 4.0, 5.0]])
    res = paired_correlation_test(y, -y, y, n_resamples=1000, scheme="systems")["system"]
    assert res.exact and res.n_permutations == 8
    assert res.statistic == pytest.approx(2.0)
    assert res.p_value == pytest.approx(0.5)
    # per-summary swaps of the same data (2^6 patterns) claim more
    assert paired_correlation_test(y, -y, y, 1000, scheme="summaries")["system"].p_value < 0.5


def test_a_scheme_per_level_and_unit_masks():
    cells = np.ones((2, 3), dtype=bool)
    cells[1, 2] = False
    masks, exact = cell_swap_masks(cells, "documents", 1000)
    assert exact and masks.shape == (4, 5)
    assert all(m[:3].all() or not m[:3].any() for m in masks)     # document 0 swaps as one
    masks, _ = cell_swap_masks(cells, "both", 1000)
    assert masks.shape == (2 ** 5, 5)
    assert level_schemes("both") == {"sample": "both", "system": "both", "dataset": "both"}
    with pytest.raises(ValueError, match="tables.permutation"):
        level_schemes({"sample": "documents"})
    with pytest.raises(ValueError, match="permutation scheme"):
        cell_swap_masks(cells, "inputs")


def test_summaries_scheme_is_the_old_per_summary_test():
    rng = np.random.default_rng(2)
    y = rng.integers(1, 6, size=(8, 5)).astype(float)
    x, z = y + rng.normal(size=y.shape), rng.normal(size=y.shape)
    by_level = paired_correlation_test(x, z, y, 300, 4, scheme={"sample": "summaries", "system": "systems",
                                                                 "dataset": "summaries"})
    flat = paired_correlation_test(x, z, y, 300, 4, scheme="summaries")
    assert by_level["sample"] == flat["sample"] and by_level["dataset"] == flat["dataset"]
    assert by_level["system"].n_permutations == 32 and by_level["system"].exact


# --------------------------------------------------------------------------- corrections

def test_holm_and_bh_hand_computed():
    p = [0.01, 0.04, 0.03, 0.005, np.nan]
    # holm: sorted 0.005*4, 0.01*3, 0.03*2, 0.04*1 -> 0.02, 0.03, 0.06, max(0.06, 0.04)
    assert adjust(p, "holm")[:4] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # bh: sorted 0.005*4/1, 0.01*4/2, 0.03*4/3, 0.04*4/4 -> 0.02, 0.02, 0.04, 0.04
    assert adjust(p, "bh")[:4] == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert adjust(p, "none")[:4] == pytest.approx(p[:4])
    assert all(math.isnan(adjust(p, m)[4]) for m in ("none", "holm", "bh"))
    assert adjust([0.5, 0.9], "holm") == pytest.approx([1.0, 1.0])
    with pytest.raises(ValueError, match="tables.correction"):
        adjust(p, "bonferroni")


def test_families_are_the_columns_of_one_row():
    df = pd.DataFrame({"table": ["T"] * 4, "row": ["j1", "j1", "j2", "j2"], "p_value": [0.02, 0.04, 0.02, np.nan]})
    out = adjust_table(df, "holm")
    assert out["p_adjusted"].tolist()[:3] == pytest.approx([0.04, 0.04, 0.02])
    assert math.isnan(out["p_adjusted"].iloc[3])


def test_latex_daggers_follow_the_adjusted_p_values():
    from sumjudge.tables.latex import DAGGER, correlation_latex

    cells = []
    for row, p, padj in (("judge-a", 0.01, 0.2), ("judge-b", 0.2, 0.01)):
        for lv in LEVELS:
            cells.append({"row": row, "dimension": "coherence", "level": lv, "value": 0.3,
                          "p_value": p, "p_adjusted": padj})
    tex = correlation_latex(pd.DataFrame(cells), ("coherence",), "c", "l")
    line_a = next(line for line in tex.splitlines() if line.startswith("judge-a"))
    line_b = next(line for line in tex.splitlines() if line.startswith("judge-b"))
    assert DAGGER not in line_a and line_b.count(DAGGER) == 3


def test_correlation_table_records_adjusted_p_and_the_scheme():
    from sumjudge.tables.correlation import correlation_table

    rng = np.random.default_rng(5)
    docs, systems = [f"d{i}" for i in range(12)], [f"s{j}" for j in range(5)]
    human = pd.DataFrame([(f"{d}/{s}", d, s) for d in docs for s in systems], columns=["unit_id", "doc_id", "system"])
    dims = ("consistency", "relevance", "fluency", "coherence")
    for d in dims:
        human[d] = rng.integers(1, 6, len(human)).astype(float)
    good = pd.DataFrame({d: human[d] + rng.normal(size=len(human)) for d in dims}).set_index(human["unit_id"])
    noise = pd.DataFrame({d: rng.normal(size=len(human)) for d in dims}).set_index(human["unit_id"])
    rows = [Row("noise", "metric", None, "m", [noise]), Row("judge", "judge", None, "j", [good])]
    settings = TableSettings(bootstrap_resamples=200, permutation_resamples=200, seed=7)
    df = correlation_table(human, rows, "summeval", "Table 1", settings)
    j = df[df["row"] == "judge"]
    assert j["p_value"].notna().all()
    assert j["p_adjusted"].to_numpy() == pytest.approx(adjust(j["p_value"].to_numpy(), "holm"))
    assert (j["p_adjusted"] >= j["p_value"] - 1e-15).all()
    assert set(df["bootstrap"]) == {"documents"} and set(df["seed"]) == {7}
    assert df.set_index("level")["permutation"].to_dict() == {"sample": "documents", "system": "systems",
                                                              "dataset": "documents"}
    assert df["boot_mean"].notna().all() and df["bootstrap_resamples"].eq(200).all()
    assert list(df.columns[:9]) == ["table", "dataset", "dimension", "level", "row", "value", "published", "diff",
                                    "boot_mean"]


# --------------------------------------------------------------------------- TLDR metric ties

@pytest.mark.parametrize("rule,expected", [("wrong", 2 / 5), ("half", 3 / 5), ("skip", 2 / 3)])
def test_metric_ties_rule(rule, expected):
    from sumjudge.tables.accuracy import accuracy_table

    human = pd.DataFrame({"unit_id": [f"u{i}" for i in range(5)], "post_id": ["p0", "p0", "p1", "p2", "p2"],
                          "choice": [0, 1, 1, 0, 1]})
    # right, wrong... : u0 right, u1 tie, u2 right, u3 tie, u4 wrong
    pred = pd.DataFrame({"pred": [0, -1, 1, -1, 0]}, index=human["unit_id"])
    judge = pd.DataFrame({"pred": [0, 1, 1, 0, 1]}, index=human["unit_id"])
    rows = [Row("ROUGE-1", "metric", None, "m", [pred]), Row("judge", "judge", None, "j", [judge])]
    df = accuracy_table(human, rows, "tldr", TableSettings(metric_ties=rule, bootstrap_resamples=50))
    m = df.set_index("row").loc["ROUGE-1"]
    assert m["value"] == pytest.approx(expected)
    assert m["n_ties"] == 2 and m["n"] == (3 if rule == "skip" else 5) and m["metric_ties"] == rule
    assert df.set_index("row").loc["judge", "value"] == pytest.approx(1.0)  # a judge's row is never touched


def test_settings_read_the_new_keys_and_name_bad_ones():
    s = TableSettings.from_config({"tables": {"bootstrap": "both", "permutation": "systems", "correction": "bh"},
                                   "tldr": {"metric_ties": "half"}})
    assert (s.bootstrap, s.correction, s.metric_ties) == ("both", "bh", "half")
    assert s.permutation_by_level() == {"sample": "systems", "system": "systems", "dataset": "systems"}
    prov = TableSettings().provenance()
    assert prov["bootstrap"] == "documents" and prov["permutation"]["system"] == "systems"
    assert {"seed", "bootstrap_resamples", "permutation_resamples", "correction"} <= set(prov)
    for key, bad in (("bootstrap", "inputs"), ("correction", "bonferroni"), ("permutation", "rows")):
        with pytest.raises(ValueError, match=key):
            TableSettings.from_config({"tables": {key: bad}})
    with pytest.raises(ValueError, match="tldr.metric_ties"):
        TableSettings.from_config({"tldr": {"metric_ties": "coin"}})


def test_config_defaults_match_the_code():
    import yaml

    config = yaml.safe_load((REPO / "config.yaml").read_text())
    s = TableSettings.from_config(config)
    assert s.provenance() == TableSettings().provenance()


def test_manifest_records_the_statistics(tmp_path):
    from sumjudge.tables.manifest import build_manifest

    m = build_manifest({"tables": {"seed": 5, "bootstrap": "both"}}, REPO, [], [], [], [])
    assert m["statistics"]["seed"] == 5 and m["statistics"]["bootstrap"] == "both"
    assert m["statistics"]["permutation"]["system"] == "systems"


# --------------------------------------------------------------------------- TLDR facts

def test_published_table3_is_out_of_1847_comparisons():
    rows = [r for r in csv.reader((REPO / "sumjudge/tables/published.csv").open()) if r and r[0] == "Table 3"]
    values = [float(r[-1]) for r in rows]
    assert len(values) == 12
    fits = [n for n in range(2, 5000) if all(abs(v - round(v * n) / n) <= 0.00005 + 1e-12 for v in values)]
    assert fits[0] == 1847
    assert round(values[0] * 1847) == 1084 and round(values[-1] * 1847) == 1141  # ROUGE-1, ChatGPT


def _write_batch(path: Path, rows):
    with path.open("w") as fh:
        for post, policies, split in rows:
            fh.write(json.dumps({"info": {"id": post}, "summaries": [{"policy": p} for p in policies],
                                 "split": split, "batch": path.stem}) + "\n")


def test_tldr_counts_hand_computed(tmp_path, capsys):
    from sumjudge.data import tldr_counts

    _write_batch(tmp_path / "b1.json", [("p1", ["ref", "m"], "valid1"), ("p1", ["m", "n"], "valid1"),
                                        ("p2", ["m", "n"], "valid2"), ("p1", ["n", "m"], "train")])
    _write_batch(tmp_path / "b2.json", [("p2", ["ref", "n"], "valid2"), ("p3", ["m", "n"], "valid2")])
    df = tldr_counts.load(tldr_counts.batch_files([str(tmp_path)]))
    assert tldr_counts.count(df, ["b1"], ["valid1", "valid2", "train"], False, False) == 4
    assert tldr_counts.count(df, ["b1"], ["valid1", "valid2", "train"], True, True) == 2   # p1's non-ref pairs
    assert tldr_counts.count(df, ["b1", "b2"], ["valid2"], True, True) == 1                 # p2 gets b2's reference
    assert tldr_counts.main([str(tmp_path), "--target", "1"]) == 0
    out = capsys.readouterr().out
    assert "6 comparisons in 2 file(s)" in out
    assert "batches b1+b2, splits valid2, drop_reference_pairs true, require_reference true" in out
    assert tldr_counts.main([str(tmp_path / "absent")]) == 2


def test_tldr_counts_of_the_offline_batches(mirror):
    from sumjudge.data import tldr_counts

    df = tldr_counts.load(tldr_counts.batch_files([str(mirror / "tldr")]))
    assert len(df) == 1097 + 674
    t = default_options()["tldr"]  # the default subset (config.yaml's tldr section)
    assert tldr_counts.count(df, t["batches"], t["splits"], t["drop_reference_pairs"], t["require_reference"]) == 335
    assert tldr_counts.count(df, ["batch13"], ["valid1", "valid2"], False, False) == 1097
    assert tldr_counts.find(df, 1847) == []   # no combination of the offline batches has the paper's 1847


def test_schema_accepts_the_new_keys_and_rejects_bad_values():
    import copy

    import yaml

    from sumjudge.config import ConfigError, validate

    schema = REPO / "workflow/schemas/config.schema.yaml"
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    validate(config, schema)
    ok = copy.deepcopy(config)
    ok["tables"].update(permutation="both", bootstrap="both", correction="bh")
    ok["tldr"]["metric_ties"] = "skip"
    validate(ok, schema)
    for section, key, bad in (("tables", "bootstrap", "inputs"), ("tables", "correction", "bonferroni"),
                              ("tables", "permutation", "rows"), ("tables", "permutation", {"sample": "documents"}),
                              ("tldr", "metric_ties", "coin")):
        broken = copy.deepcopy(config)
        broken[section][key] = bad
        with pytest.raises(ConfigError, match=key):
            validate(broken, schema)
