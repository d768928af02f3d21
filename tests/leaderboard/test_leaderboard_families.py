"""A prompt family as rows of the leaderboard (leaderboard.families, sumjudge/leaderboard/families.py).

A synthetic family of three templates of known quality on a small SummEval: ``sharp`` copies the
expert mean, ``middle`` adds seeded noise to it, ``blunt`` reverses it (6 - the mean). Its summary
and prompts tables come from the robustness stage's own code (sumjudge.robustness.build). With three
templates the "lower" quantile pick is hand-computed: the median is position floor(0.5 x 2) = 1 of
the ascending correlations (middle), the 10th percentile floor(0.1 x 2) = 0 (blunt)."""
import numpy as np
import pandas as pd
import pytest

from sumjudge.leaderboard.families import FamilyInputs, pick, row_name
from sumjudge.leaderboard.figure import family_label
from sumjudge.leaderboard.render import latex, page, spread_bar
from sumjudge.robustness.build import family_tables
from sumjudge.robustness.families import Family
from sumjudge.robustness.spread import SpreadSettings
from support.board import judge_frame, run

DIMS = ["coherence", "consistency", "fluency", "relevance"]
CONFIG = {"leaderboard": {"alt_test": {"min_instances": 5}}}
# what a row's verdicts are: the same for the family row and the plain judge with the same answers
VERDICT = ["column", "value", "ci_low", "ci_high", "n", "loo_value", "loo_low", "loo_high", "close_verdict", "greyed",
           "alt_result", "alt_verdict", "alt_winning_rate", "alt_advantage", "alt_control_p", "parse_rate"]


def summeval(n_docs=8, n_systems=4, seed=3):
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_docs):
        for s in range(n_systems):
            ex = {f"{dim}_expert{k}": float(rng.integers(1, 6)) for dim in DIMS for k in range(3)}
            rows.append({"unit_id": f"d{d}/s{s}", "doc_id": f"d{d}", "system": f"s{s}", **ex,
                         **{dim: np.mean([ex[f"{dim}_expert{k}"] for k in range(3)]) for dim in DIMS}})
    return pd.DataFrame(rows)


def templates(data):
    rng = np.random.default_rng(11)
    noisy = {d: np.clip(np.round(data[d] + rng.normal(0, 1.2, len(data))), 1, 5) for d in DIMS}
    return {"sharp": judge_frame(data, {d: data[d].to_numpy() for d in DIMS}),
            "middle": judge_frame(data, noisy),
            "blunt": judge_frame(data, {d: 6 - data[d].to_numpy() for d in DIMS})}


@pytest.fixture(scope="module")
def boards(tmp_path_factory):
    root = tmp_path_factory.mktemp("families")
    data = summeval()
    tabs = templates(data)
    family = Family("trio", "summeval", str(root / "prompts"), ("blunt", "middle", "sharp"), per_document=None)
    paths = {}
    for t, df in tabs.items():
        p = root / "robustness" / "judge" / "qwen" / "trio" / f"{t}.parquet"
        p.parent.mkdir(parents=True, exist_ok=True)
        df.to_parquet(p)
        paths[("qwen", t)] = str(p)
    summary, prompts = family_tables(data, {"qwen": tabs}, family, SpreadSettings(resamples=20))
    fam = FamilyInputs(family, summary, prompts, paths, "scored")
    plain = {("plain-middle", "summeval"): tabs["middle"], ("plain-blunt", "summeval"): tabs["blunt"]}
    off = run(root / "off", {"summeval": data}, plain, config=CONFIG)
    on = run(root / "on", {"summeval": data}, plain, config=CONFIG, families=[fam])
    return {"off": off, "on": on, "prompts": prompts, "summary": summary, "data": data}


def test_the_quantile_pick_is_numpys_lower_rule_by_hand():
    three = {"a": 0.30, "b": 0.10, "c": 0.20}
    assert (pick(three, 0.5), pick(three, 0.1)) == ("c", "b")          # positions floor(1.0) = 1, floor(0.2) = 0
    nine = {f"t{i}": v for i, v in enumerate([.5, .1, .9, .3, .7, .2, .8, .4, .6])}
    assert (pick(nine, 0.5), pick(nine, 0.1), pick(nine, 0.9)) == ("t0", "t1", "t6")   # floor(4), floor(0.8), floor(7.2)
    assert pick({"a": np.nan, "b": 0.1, "c": 0.3}, 0.5) == "b"        # NaN left out: floor(0.5 x 1) = 0
    assert pick({"y": 0.2, "x": 0.2, "z": 0.5}, 0.1) == "x"            # a tie: by the template's name
    rng = np.random.default_rng(0)
    for n in (2, 3, 4, 7, 10):
        vals = rng.normal(size=n)
        for q in (0.1, 0.25, 0.5, 0.9):
            got = dict(zip(map(str, range(n)), vals))[pick(dict(zip(map(str, range(n)), vals)), q)]
            assert got == np.quantile(vals, q, method="lower")
    with pytest.raises(ValueError, match="no template has a correlation"):
        pick({"a": np.nan}, 0.5)


def test_the_family_stage_orders_the_templates_as_built(boards):
    p = boards["prompts"]
    sample = p[(p["level"] == "sample")].set_index(["dimension", "prompt"])["correlation_scored"]
    for d in DIMS:
        assert sample[(d, "blunt")] < sample[(d, "middle")] < sample[(d, "sharp")], d
        assert sample[(d, "sharp")] == pytest.approx(1.0) and sample[(d, "blunt")] == pytest.approx(-1.0)


def _row(out, name):
    c = out["cells"]
    return c[c["row"] == name].sort_values("column").reset_index(drop=True)


@pytest.mark.parametrize("label, template", [("median prompt", "middle"), ("10th percentile prompt", "blunt")])
def test_a_family_row_is_its_picked_template_through_the_same_verdict_path(boards, label, template):
    mine = _row(boards["on"], row_name("qwen", "trio", label))
    assert len(mine) == 12 and set(mine["prompt_template"]) == {template} and set(mine["prompt_family"]) == {"trio"}
    # its verdicts are those the same answers get as a plain judge (here on a board without families)
    plain = _row(boards["off"], f"plain-{template}")
    pd.testing.assert_frame_equal(mine[VERDICT], plain[VERDICT])
    assert (mine["alt_result"] != "not tested").any()             # the alt-test did run on its sample columns
    # and on the same board: the plain judge with the same answers shares its rank in every column
    same = _row(boards["on"], f"plain-{template}")
    pd.testing.assert_frame_equal(mine[VERDICT + ["rank_group"]], same[VERDICT + ["rank_group"]])


def test_each_family_cell_carries_the_familys_spread_at_its_level(boards):
    mine = _row(boards["on"], row_name("qwen", "trio", "median prompt"))
    s = boards["summary"].set_index(["dimension", "level"])
    for _, c in mine.iterrows():
        want = s.loc[(c["dimension"], c["level"])]
        assert c["prompt_spread"] == "q10-q90" and c["prompt_quantile"] == 0.5
        assert (c["prompt_spread_low"], c["prompt_median"], c["prompt_spread_high"]) == (
            want["q10"], want["q50"], want["q90"])
    sample = mine[mine["level"] == "sample"].iloc[0]
    # three templates at -1, the middle's r and 1: numpy's linear q10 = -1 + 0.2 (r + 1), q90 = r + 0.8 (1 - r)
    r = boards["prompts"].set_index(["dimension", "level", "prompt"]).loc[
        (sample["dimension"], "sample", "middle"), "correlation_scored"]
    assert sample["prompt_spread_low"] == pytest.approx(-1 + 0.2 * (r + 1))
    assert sample["prompt_spread_high"] == pytest.approx(r + 0.8 * (1 - r))


def test_the_rows_join_the_verdict_table_and_the_page_draws_their_spread(boards):
    on = boards["on"]
    rows = set(on["summary"]["row"])
    assert {row_name("qwen", "trio", "median prompt"), row_name("qwen", "trio", "10th percentile prompt")} <= rows
    html = page(on["cells"], on["summary"], on["pairs"])
    assert html.count('<svg class="spread"') == 24                   # 2 rows x 12 columns
    assert "template middle · prompt spread q10" in html and "template blunt" in html
    assert "&lt;judge&gt; · &lt;family&gt; (median prompt, 10th percentile prompt)" in html   # the glossary entry
    assert ">qwen · trio (median)</text>" in html and ">qwen · trio (q10)</text>" in html   # the LOO figure's labels
    # 28 characters: the head cut to 28 - 9 = 19 (18 and an ellipsis), then the quantile
    assert family_label("qwen-1.5b", "summeval_likert", 0.5) == "qwen-1.5b · summev… (median)"
    assert "template middle · prompt spread q10" in latex(on["cells"], on["summary"])   # the LaTeX note too
    # the bar on -1..1 over 2..118 px: q10 -0.5 at 2 + 0.5 x 58 = 31, q90 0.25 at 74.5, the median 0 at 60
    bar = spread_bar({"prompt_spread_low": -0.5, "prompt_spread_high": 0.25, "prompt_median": 0.0})
    assert '<rect x="31.0" y="3" width="43.5"' in bar and '<line x1="60.0" x2="60.0"' in bar
    off = boards["off"]
    plain = page(off["cells"], off["summary"], off["pairs"])
    assert 'class="spread"' not in plain and "prompt spread" not in plain


def test_without_families_the_frames_have_no_family_column_or_row(boards, tmp_path):
    off = boards["off"]
    assert not [c for c in off["cells"].columns if c.startswith("prompt_")]
    assert not off["cells"]["row"].str.contains("·").any()
    # families=None (the switch off) is the build as it was: the same frames, byte for byte
    again = run(tmp_path, {"summeval": boards["data"]},
                {("plain-middle", "summeval"): templates(boards["data"])["middle"],
                 ("plain-blunt", "summeval"): templates(boards["data"])["blunt"]}, config=CONFIG, families=[])
    for name in ("cells", "summary", "pairs", "alt"):
        assert again[name].to_csv(index=False) == off[name].to_csv(index=False), name
