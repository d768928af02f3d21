"""The page answers in one sentence and shows no degenerate statistic as a result (issue 43): the
verdict sentence, the labels-saved column's reason, no rank of a judge ranked alone, "n/a (1
document)" for a one-document interval, no whisker (a hollow dot) without an interval, and a
greyed cell's reason once per row."""
import numpy as np
import pandas as pd

from sumjudge.leaderboard.build import labels_saved_reason, with_labels_saved
from sumjudge.leaderboard.figure import dataset_figure
from sumjudge.leaderboard.render import _tex_column, cell_text, greyed_reasons, page
from sumjudge.leaderboard.summary import ALONE_REASON, HUMANS_ROW, verdict_sentence, without_lone_ranks


def line(row, alt, alt_rate, close, mean_rank, saved):
    return {"row": row, "kind": "judge", "alt_passes": alt, "alt_rate": alt_rate, "close_to_humans": close,
            "mean_rank": mean_rank, "labels_saved": saved}


HUMANS = {"row": HUMANS_ROW, "kind": "human", "alt_passes": "the reference", "close_to_humans": "the reference"}


def test_the_verdict_sentence_names_the_judge_how_sure_and_the_labels_it_saves():
    summary = pd.DataFrame([line("qwen-1.5b", "passes 3 of 4", 0.75, "close in 5 of 12", 1.25,
                                 "x2.4 per human label at n=25 (SummEval x2.6 [1.9, 3.4] (D=100; 56 saved / 100 at this size))"),
                            line("qwen-0.5b", "passes 1 of 4", 0.25, "close in 1 of 12", 1.75,
                                 "x1.2 per human label at n=25 (SummEval x1.2 [1.0, 1.5] (D=100; 20 saved / 100 at this size))"),
                            HUMANS])
    assert verdict_sentence(summary) == (
        "qwen-1.5b can take the annotators' place on this run: it passes the alt-test in 3 of 4 columns and is "
        "close to the humans in 5 of 12; mean rank 1.25 of 2 judge rows; one human label with it is worth 2.4 without "
        "it (n_eff / n, with 25 labelled documents; SummEval x2.6 [1.9, 3.4] (D=100; 56 saved / 100 at this size)).")
    assert verdict_sentence(summary, pass_share=0.8).startswith(
        "No judge can take the annotators' place on this run (that needs the alt-test passed in 80% of the "
        "columns): the best, qwen-1.5b, passes the alt-test in 3 of 4 columns")


def test_the_verdict_sentence_says_why_not_on_a_slice():
    summary = pd.DataFrame([line("qwen-1.5b", "passes 0 of 4", 0.0, "close in 0 of 12", np.nan,
                                 "not computable with 3 SummEval documents; needs more than 25 (savings.summary_n)"),
                            HUMANS])
    assert verdict_sentence(summary) == (
        "No judge can take the annotators' place on this run (that needs the alt-test passed in 50% of the "
        "columns): its one judge row, qwen-1.5b, passes the alt-test in 0 of 4 columns and is close to the humans "
        "in 0 of 12; no rank (no column ranks two or more judges: each column says why); labels saved: not computable with 3 SummEval documents; "
        "needs more than 25 (savings.summary_n).")
    none = pd.DataFrame([line("j", "no alt-test column", np.nan, "n/a: no column with 3 annotators", 1.0, ""), HUMANS])
    assert "j, has no alt-test column here and has no column with 3 annotators to be close to" in verdict_sentence(none)
    assert verdict_sentence(pd.DataFrame([HUMANS])) == "No judge ran: nothing here can take the annotators' place."


def test_the_labels_saved_column_says_why_it_is_empty():
    assert labels_saved_reason({"SummEval": 3, "Newsroom": 1}, 25) == (
        "not computable with 3 SummEval documents, 1 Newsroom document; needs more than 25 (savings.summary_n)")
    assert labels_saved_reason({"SummEval": 100}, 25) == "no savings cell of this row at n=25"
    assert labels_saved_reason({"SummEval": 3}, None) == "not computed (the savings stage did not run)"
    lines = pd.DataFrame({"row": ["a", "b"], "labels_saved": ["53 at n=25 (SummEval 53)", ""],
                          "labels_saved_per_100": [53.0, np.nan]})
    assert with_labels_saved(lines, {"SummEval": 100}, 25)["labels_saved"].tolist() == [
        "53 at n=25 (SummEval 53)", "no savings cell of this row at n=25"]


def cells(rows, column="SummEval cohe. sample", **extra):
    """Judge cells of one column: (row, judge, rank_group)."""
    return pd.DataFrame([{"row": r, "judge": j, "kind": "judge", "column": column, "dataset": "SummEval",
                          "rank_group": g, "rank_low": g, "rank_high": g, "rank_reason": np.nan, **extra}
                         for r, j, g in rows])


def test_a_judge_ranked_alone_gets_no_rank():
    alone = without_lone_ranks(pd.concat([cells([("j", "j", 1.0), ("j [weighted]", "j", 1.0)]),
                                          cells([("j", "j", 1.0), ("k", "k", 2.0)], column="Newsroom")]))
    one = alone[alone["column"] == "SummEval cohe. sample"]
    assert one["rank_group"].isna().all() and one["rank_reason"].eq(ALONE_REASON).all()  # a judge and its weighted row
    two = alone[alone["column"] == "Newsroom"]
    assert two["rank_group"].tolist() == [1.0, 2.0] and two["rank_reason"].isna().all()


def judge_row(**extra):
    base = {"kind": "judge", "value": 0.483, "ci_low": 0.483, "ci_high": 0.483, "n": 7, "loo_value": 0.4,
            "loo_low": 0.4, "loo_high": 0.4, "greyed": False, "rank_group": np.nan, "rank_reason": np.nan,
            "documents": 1, "close_verdict": np.nan, "alt_verdict": np.nan, "reason": np.nan}
    return pd.Series({**base, **extra})


def test_a_one_document_interval_reads_n_a():
    text = cell_text(judge_row())
    assert text.startswith("0.483 n/a (1 document) n=7 · LOO 0.400 n/a (1 document)") and "[0.483" not in text
    assert cell_text(judge_row(documents=3)).startswith("0.483 [0.483, 0.483] n=7 · LOO 0.400 [0.400, 0.400]")
    human = judge_row(kind="human", value=0.5, loo_low=0.4, loo_high=0.6)
    assert cell_text(human) == "LOO 0.500 n/a (1 document) (n=7)"


def test_the_figure_draws_no_whisker_without_an_interval():
    part = pd.DataFrame([{"row": "j", "kind": "judge", "column": "c", "dataset": "Newsroom", "loo_value": 0.4,
                          "loo_low": 0.3, "loo_high": 0.5, "documents": d} for d in (1, 5)])
    one, five = dataset_figure("Newsroom", part.iloc[:1]), dataset_figure("Newsroom", part.iloc[1:])
    assert "<line" not in one and 'fill="none"' in one and "<title>no interval</title>" in one
    assert "<line" in five and 'fill="none"' not in five


def test_greyed_cells_carry_one_word_and_the_row_its_reason_once():
    why = "near-constant: its answers' SD 0.204 under 0.25 x the least dispersed human's (0.924)"
    mine = pd.DataFrame([judge_row(greyed=True, reason=why, documents=3), judge_row(greyed=True, reason=why.replace(
        "0.204", "0.3"), documents=3), judge_row(documents=3)])
    assert cell_text(mine.iloc[0]) == "0.483 n=7 · greyed"
    assert greyed_reasons(mine) == (f"greyed in 2 of 3 columns (no rank, no alt-test): {why}; each cell's own "
                                    "figures in leaderboard.csv")


def test_the_latex_follows_the_page_rules():
    """The LaTeX printed "[0.483, 0.483]" for a one-document interval and a greyed cell's interval."""
    why = "near-constant: its answers' SD 0.204 under 0.25 x the least dispersed human's (0.924)"
    part = pd.DataFrame([judge_row(row="one"), judge_row(row="three", documents=3, ci_low=0.4, ci_high=0.6),
                         judge_row(row="grey", documents=3, greyed=True, reason=why, ci_low=0.4, ci_high=0.6)])
    rows = {x.split(" & ")[0]: x.split(" & ") for x in _tex_column("c", part) if " & judge & " in x}
    assert rows["one"][3] == "n/a (1 document)" and "[0.483, 0.483]" not in "".join(_tex_column("c", part))
    assert rows["three"][3] == "{[}0.400, 0.600{]}"
    assert rows["grey"][3] == "" and rows["grey"][6].startswith("greyed: near-constant")


def test_the_page_puts_the_sentence_above_the_verdict_table():
    summary = pd.DataFrame([line("j", "passes 0 of 4", 0.0, "close in 0 of 12", np.nan, "n/a"), HUMANS])
    c = cells([("j", "j", np.nan)]).assign(value=0.5, ci_low=0.4, ci_high=0.6, n=10, loo_value=np.nan, loo_low=np.nan,
                                           loo_high=np.nan, greyed=False,
                                           documents=3, table="Table 1", dimension="coherence", level="sample")
    html = page(c, summary, pd.DataFrame(), verdict="No judge can take the annotators' place on this run.")
    assert html.index('id="answer"') < html.index('id="verdict"')
    assert "fewer than two judges ranked in every column" in html
