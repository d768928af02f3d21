"""The 28-column chart draws no bar without an interval (issue 43): a margin whose interval is
missing, of zero width, or bootstrapped from one document (``n_clusters`` 1) is a hollow point
marked "no interval", never a bar."""
import numpy as np
import pandas as pd

from sumjudge.tables.chart import judge_vs_best, plot, svg_id, without_interval


def rows():
    base = {"judge": "j", "table": "Table 2", "dataset": "Newsroom", "status": "compared", "near_constant": False,
            "paper_margin": 0.1, "n": 7, "n_groups": np.nan, "level": "sample", "significant": False,
            "dimension": "coherence", "n_clusters": 3}
    return pd.DataFrame([{**base, "column": "Newsroom cohe. sample", "margin": 0.2, "margin_low": 0.2,
                          "margin_high": 0.2},
                         {**base, "column": "Newsroom flue. sample", "margin": 0.1, "margin_low": np.nan,
                          "margin_high": np.nan},
                         {**base, "column": "Newsroom rele. sample", "margin": 0.3, "margin_low": 0.1,
                          "margin_high": 0.5},
                         # an interval of width, but bootstrapped from one document: no interval
                         {**base, "column": "Newsroom cons. sample", "margin": 0.25, "margin_low": 0.2,
                          "margin_high": 0.3, "n_clusters": 1}])


def test_a_margin_without_an_interval_is_found():
    assert without_interval(rows()) == [True, True, False, True]


def test_the_chart_draws_no_bar_for_it_and_says_so(tmp_path):
    path = tmp_path / "chart.svg"
    plot(rows(), str(path))
    svg = path.read_text()
    assert svg.count("no interval") == 3 and svg.count("no interval (1 document)") == 1
    for d in ("cohe", "flue", "cons"):  # no bar, a hollow point in its place
        col = f"Newsroom {d}. sample"
        assert f'id="{svg_id("bar", "j", col)}"' not in svg
        point = svg.split(f'id="{svg_id("point", "j", col)}"', 1)[1].split("</g>", 1)[0]
        assert "<use" in point  # matplotlib draws a marker as a <use> of its path
    assert 'id="point-j-Newsroom-cons.-sample"' in svg
    bar = svg.split(f'id="{svg_id("bar", "j", "Newsroom rele. sample")}"', 1)[1].split("</g>", 1)[0]
    assert "fill: #2b8cbe" in bar  # the one with an interval: a filled bar


def test_judge_vs_best_carries_the_cluster_count():
    base = {"table": "Table 2", "dataset": "Newsroom", "dimension": "coherence", "level": "sample"}
    cells = pd.DataFrame([{**base, "row": "j", "kind": "judge", "value": 0.5, "compared_with": "ROUGE-1",
                           "delta": 0.1, "ci_low": 0.5, "ci_high": 0.5, "n": 7, "n_groups": 1, "n_clusters": 1,
                           "p_value": 1.0},
                          {**base, "row": "ROUGE-1", "kind": "metric", "value": 0.4, "n_clusters": 1}])
    out = judge_vs_best([cells])
    one = out[(out["dataset"] == "Newsroom") & (out["dimension"] == "coherence") & (out["level"] == "sample")]
    assert one["n_clusters"].tolist() == [1] and one["status"].tolist() == ["compared"]
    assert without_interval(one.reset_index(drop=True)) == [True]
