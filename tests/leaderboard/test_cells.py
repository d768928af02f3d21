"""The cell columns' specs (sumjudge/leaderboard/cells.py): every column the verdict path
writes has one, with a glossary line; the page prints each field by its spec's format and
reads its glossary from the specs."""
import numpy as np
import pytest

from sumjudge.evidence.inputs import ScoreInput
from sumjudge.evidence.settings import TableSettings
from sumjudge.leaderboard import cells
from sumjudge.leaderboard.cells import CELL_COLUMNS, CELLS, GLOSSARY_ORDER, SPECS, Cell, show, undescribed
from sumjudge.leaderboard.frames import verdict_frames


def test_every_cell_column_has_one_spec_with_a_glossary_line():
    assert undescribed(CELL_COLUMNS) == [] and len(CELLS) == len(CELL_COLUMNS) == 71
    # a prompt family's row adds its columns only where a run has one (sumjudge/leaderboard/families.py)
    assert len(SPECS) == 71 + len(cells.FAMILY_CELLS) and not set(CELL_COLUMNS) & {c.name for c in cells.FAMILY_CELLS}
    assert all(c.glossary.strip() for c in CELLS)
    assert undescribed(CELL_COLUMNS + ["new_statistic"]) == ["new_statistic"]   # a missing spec is found
    with pytest.raises(ValueError, match="cell column 'new_statistic': no glossary line"):
        Cell("new_statistic", "number", " ")
    with pytest.raises(ValueError, match="unknown format 'percent'"):
        Cell("new_statistic", "percent", "a share")


def test_the_verdict_path_writes_exactly_the_spec_columns_in_their_order():
    """A scored column with three annotators, two judges: the cells frame's columns are the specs'."""
    rng = np.random.default_rng(4)
    docs, systems = np.repeat(np.arange(30), 6), np.tile(np.arange(6), 30)
    truth = rng.normal(size=docs.size) + systems * 0.3
    labels = np.stack([np.clip(np.round(3 + truth + rng.normal(0, 0.7, docs.size)), 1, 5) for _ in range(3)], axis=1)
    answers = {f"j{k}": np.clip(np.round(3 + truth + rng.normal(0, 0.5 + k, docs.size)), 1, 5) for k in range(2)}
    out = verdict_frames([(ScoreInput.of(labels, docs, systems, (1, 5)), answers)],
                         TableSettings(bootstrap_resamples=50, permutation_resamples=50, seed=1))
    assert list(out["cells"].columns) == CELL_COLUMNS
    assert undescribed(out["cells"].columns) == []


def test_each_format_prints_as_the_page_did():
    r = {"value": 0.12345, "n": 12.0, "close_diff": -0.0421, "flip_rate": 0.125, "rank_group": np.nan,
         "twin": np.nan, "rank_reason": "cannot separate: 7 systems", "greyed": True}
    assert [show(r, k) for k in r] == ["0.123", "12", "-0.042", "12%", "", "", "cannot separate: 7 systems", "true"]
    assert show({}, "value") == "" and show({"n": None}, "n") == ""


def test_the_page_glossary_is_read_from_the_specs_in_reading_order():
    terms = [SPECS[n].term for n in GLOSSARY_ORDER]
    assert terms == ["value [a, b] n=", "LOO", "close / not shown close", "rank r (range a-b)", "alt-test", "SPA",
                     "cohe. cons. flue. rele. (and the like)"]
    html = cells.glossary_html()
    assert html.startswith('<dl class="glossary">\n<dt>value [a, b] n=</dt><dd>the judge\'s correlation')
    assert [html.index(f"<dt>{t}</dt>") for t in terms] == sorted(html.index(f"<dt>{t}</dt>") for t in terms)
    assert html.count("<dt>") == 7 and html.endswith("</dd>\n</dl>")
    assert cells.glossary_html(("spa",)) == f'<dl class="glossary">\n<dt>SPA</dt><dd>{cells.SPA}</dd>\n</dl>'


def test_the_direction_of_the_figures_of_merit():
    better = {c.name for c in CELLS if c.higher_is_better}
    worse = {c.name for c in CELLS if c.higher_is_better is False}
    assert {"value", "loo_value", "spa", "parse_rate", "alt_winning_rate"} <= better
    assert {"rank_group", "n_invalid", "flip_rate"} <= worse and not better & worse
    assert SPECS["row"].higher_is_better is None and SPECS["length_bias"].higher_is_better is None
