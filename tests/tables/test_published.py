"""The package's copy of the paper's printed numbers matches shared/paper/published.csv
and attaches to reproduced rows by (table, dataset, dimension, level, row)."""
import pandas as pd
import pytest

from sumjudge.tables.published import PUBLISHED_CSV, attach_published, load_published, published_vs_reproduced

from support.harness import MIRROR


def test_copy_matches_the_shared_paper_file():
    shared = MIRROR.parent / "paper" / "published.csv"
    if not shared.is_file():
        pytest.fail(f"{shared} not found beside the data mirror")
    assert PUBLISHED_CSV.read_bytes() == shared.read_bytes()


def test_published_counts():
    pub = load_published()
    assert len(pub) == 344
    assert (pub["table"] == "Table 1").sum() == 144  # 12 rows x 4 dimensions x 3 levels
    assert (pub["table"] == "Table 2").sum() == 144  # the same 12 rows for Newsroom


def test_attach_published_diff():
    ours = pd.DataFrame([{"table": "Table 1", "dataset": "SummEval", "dimension": "consistency",
                          "level": "system", "row": "ROUGE-1", "value": 0.75},
                         {"table": "Table 2", "dataset": "Newsroom", "dimension": "fluency",
                          "level": "system", "row": "ROUGE-1", "value": 0.3},
                         {"table": "Table 3", "dataset": "TLDR", "dimension": "overall",
                          "level": "pair", "row": "no such row", "value": 0.5}])
    out = attach_published(ours)
    assert out.loc[0, "published"] == 0.744 and out.loc[0, "diff"] == pytest.approx(0.006)
    assert out.loc[1, "published"] == 0.429 and out.loc[1, "diff"] == pytest.approx(-0.129)
    assert pd.isna(out.loc[2, "published"]) and pd.isna(out.loc[2, "diff"])


def test_a_one_document_interval_covers_nothing():
    """ROUGE-1, Newsroom coherence, system level, published 0.429: an interval [0.3, 0.5] from 3
    documents covers it; the same interval from one document is no interval (issue 43)."""
    key = {"table": "Table 2", "dataset": "Newsroom", "dimension": "coherence", "level": "system",
           "row": "ROUGE-1", "value": 0.4, "ci_low": 0.3, "ci_high": 0.5, "kind": "metric"}
    for n_clusters, covers in ((3, True), (1, None)):
        out = published_vs_reproduced([pd.DataFrame([{**key, "n_clusters": n_clusters}])])
        cell = out[(out["reproduced_row"] == "ROUGE-1") & (out["level"] == "system")
                   & (out["dimension"] == "coherence") & (out["dataset"] == "Newsroom")].iloc[0]
        assert cell["published"] == 0.429 and cell["n_clusters"] == n_clusters
        assert (pd.isna(cell["ci_covers_published"]) if covers is None else cell["ci_covers_published"] == covers)
