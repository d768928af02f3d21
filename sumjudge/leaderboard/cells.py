"""The leaderboard's cell columns, one spec each (docs/extending.md, "A leaderboard column"):
its name, whether higher is better, how the page prints it, and its glossary line. The cells
frame's columns (:data:`CELL_COLUMNS`, in this order), the page's formatting of a cell field
(:func:`show`) and the page's glossary (:data:`GLOSSARY`) are read from :data:`CELLS`; a new
statistic is one entry here (definitions: docs/statistics.md, "The judge leaderboard")."""
from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd


def fmt(v, digits: int = 3) -> str:
    """A number with ``digits`` decimals ("" for None or NaN); anything else as text."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def _count(v) -> str:
    return "" if v is None or pd.isna(v) else str(int(v))


def _text(v) -> str:
    return v if isinstance(v, str) else ""


def _flag(v) -> str:
    return "" if v is None or pd.isna(v) else str(bool(v)).lower()


# how the page prints a field of each format; "signed" and "share" are printed where the value is known
FORMATS = {"number": fmt, "count": _count, "signed": lambda v: f"{v:+.3f}", "share": lambda v: f"{v:.0%}",
           "text": _text, "flag": _flag}


@dataclass(frozen=True)
class Cell:
    """One cell column. ``higher_is_better``: True or False for a figure of merit, None for
    anything else (a name, a count, a text, a measure without a better side). ``term`` and
    ``term_text``: the page glossary's entry that this column carries, if any."""

    name: str
    format: str
    glossary: str
    higher_is_better: bool | None = None
    term: str = ""
    term_text: str = ""

    def __post_init__(self):
        if self.format not in FORMATS:
            raise ValueError(f"cell column {self.name!r}: unknown format {self.format!r} (one of {', '.join(FORMATS)})")
        if not self.glossary.strip():
            raise ValueError(f"cell column {self.name!r}: no glossary line")


VALUE = """the judge's correlation with the human reference (or its accuracy) at the column's level,
from one answer per unit (the mean of its samples, or their majority); an invalid answer counts as the worst answer
(a score: the scale's end farthest from the reference; a label: wrong). [a, b]: 95 % percentile bootstrap over
documents (system level: documents and systems). n: the summaries (cells) or decisions counted."""
LOO = """leave-one-out: each annotator scored against the others' mean (or majority); the judge against the
same references on the same units, averaged over the annotators' splits weighted by their units. One ruler for
humans and judges; the figure above each table draws every row's LOO value and interval."""
CLOSE = """judge LOO minus the humans' LOO, with its interval: "close" when its one-sided
95 % lower bound is above minus <code>leaderboard.close_margin</code>; n/a with fewer than 3 annotators.
"twin of X": the judge agrees with annotator X more than any two annotators agree with each other."""
RANK = """r = 1 + the number of judges significantly better in a one-sided paired test
(Holm over the column's pairs in both directions, 5 %); the range runs from that rank to the number of ranked
judges minus those significantly worse. "cannot separate: S systems": the test cannot reach 5 % with so few units,
so the column ranks nothing; "descriptive only": a system level with fewer than 6 systems."""
ALT = """the alternative annotator test (Calderon et al. 2025): passes when, for at least half of the
annotators, the judge represents the others at least as well as that annotator, within epsilon (one family per
dataset; on the level it tests: the sample column under ranks within documents). "uninformative": its advantage is
no higher than its own answers shuffled within documents (permutation p above 5 %). "inconclusive": it passes, but
so do more than 5 % of its shuffled answers: the test cannot tell information from the answer distribution there."""
SPA = """soft accuracy over system pairs (WMT24's SPA; system level): 1 minus the mean difference between the judge's and the
humans' p-values that one system beats another."""
COLUMN = """the first four letters of the dimension (coherence, consistency,
fluency, relevance); sample / system / dataset: the correlation level."""

CELLS: tuple[Cell, ...] = (
    Cell("row", "text", "the row: a judge (<judge>, <judge> [weighted]) or a human leave-one-out row"),
    Cell("kind", "text", "judge or human"),
    Cell("column", "text", "the leaderboard column: <dataset> <dimension, first four letters> <level>, or an accuracy "
         "column", term="cohe. cons. flue. rele. (and the like)", term_text=COLUMN),
    Cell("table", "text", "the paper table or dataset table the column comes from"),
    Cell("dataset", "text", "the dataset"),
    Cell("dimension", "text", "the dimension scored (or the question asked)"),
    Cell("level", "text", "sample, system or dataset correlation level, or accuracy"),
    Cell("value", "number", "the judge's per-unit aggregate against the human reference (a correlation or an "
         "accuracy); a human row's: its leave-one-out value", True, "value [a, b] n=", VALUE),
    Cell("n", "count", "the units (summaries, systems or decisions) the value counts"),
    Cell("ci_low", "number", "the value's 95 % percentile bootstrap interval, lower end"),
    Cell("ci_high", "number", "the value's 95 % percentile bootstrap interval, upper end"),
    Cell("interval", "text", "what the interval resamples"),
    Cell("interval_misses_value", "flag", "the value lies outside its own percentile interval (never widened)"),
    Cell("table_value", "number", "the judge's cell of Tables 1-5 or of the dataset's own table (another estimand, "
         "never ranked)", True),
    Cell("loo_value", "number", "the judge on the humans' leave-one-out ruler", True, "LOO", LOO),
    Cell("loo_low", "number", "the leave-one-out value's interval, lower end"),
    Cell("loo_high", "number", "the leave-one-out value's interval, upper end"),
    Cell("human_loo", "number", "the humans' leave-one-out value on the same units", True),
    Cell("close_diff", "signed", "judge leave-one-out minus the humans'", True),
    Cell("close_low", "signed", "that difference's interval, lower end"),
    Cell("close_high", "signed", "that difference's interval, upper end"),
    Cell("close_bound", "signed", "the one-sided 95 % lower bound compared with minus leaderboard.close_margin"),
    Cell("close", "flag", "the judge is shown close to the humans"),
    Cell("close_verdict", "text", "close, not shown close, or why not tested", term="close / not shown close",
         term_text=CLOSE),
    Cell("twin", "text", "the annotator the judge agrees with more than any two annotators agree with each other"),
    Cell("rank_group", "count", "1 + the judges significantly better in the column", False, "rank r (range a-b)", RANK),
    Cell("rank_low", "count", "the rank range's best end", False),
    Cell("rank_high", "count", "the rank range's worst end", False),
    Cell("rank_reason", "text", "why the column ranks nothing (cannot separate, descriptive only)"),
    Cell("rank_note", "text", "a note on the rank"),
    Cell("separable_pairs", "text", "the column's judge pairs separable at 5 % (k of N)"),
    Cell("spa", "number", "soft accuracy over system pairs (WMT24's SPA; system level)", True, "SPA", SPA),
    Cell("parse_rate", "number", "the share of the dataset's units with a valid answer", True),
    Cell("n_units", "count", "the column's units"),
    Cell("n_invalid", "count", "units without a valid answer", False),
    Cell("dispersion", "number", "the judge's answer dispersion (scores: SD of every sample; labels: modal share)"),
    Cell("human_dispersion", "number", "the least dispersed human's dispersion, by the same measure"),
    Cell("dispersion_measure", "text", "which dispersion measure the gate used"),
    Cell("greyed", "flag", "a gate greyed the cell: no rank, no alt-test verdict, no closeness verdict"),
    Cell("reason", "text", "why the cell is greyed"),
    Cell("alt_result", "text", "the alt-test's result: passes, fails, uninformative, inconclusive or not tested"),
    Cell("alt_verdict", "text", "the alt-test's verdict in words", term="alt-test", term_text=ALT),
    Cell("alt_winning_rate", "number", "the share of annotators the judge wins against (deciding score)", True),
    Cell("alt_advantage", "number", "the judge's mean advantage over the annotators (deciding score)", True),
    Cell("alt_passed", "flag", "true only where alt_result is passes"),
    Cell("alt_annotators", "count", "the annotators tested"),
    Cell("alt_left_out", "count", "annotators left out (fewer than alt_test.min_instances units)"),
    Cell("alt_family", "count", "annotator tests in the column's family"),
    Cell("alt_control_p", "number", "permutation p of the row's advantage against its shuffled answers'", False),
    Cell("alt_control_pass_rate", "number", "the share of shuffled answers that pass in the column's place", False),
    Cell("alt_raw_passed", "flag", "the alt-test alone passes, before its control"),
    Cell("alt_other_score", "text", "the other alignment score tested (no verdict of its own)"),
    Cell("alt_other_winning_rate", "number", "the winning rate under the other score", True),
    Cell("alt_other_advantage", "number", "the mean advantage under the other score", True),
    Cell("alt_other_passed", "flag", "the alt-test passes under the other score"),
    Cell("note", "text", "a note (a human row without figures says why)"),
    Cell("flip_rate", "share", "the share of pairs, valid in both orders, whose pick flips with the order", False),
    Cell("position_consistency", "number", "1 - flip_rate", True),
    Cell("first_position_rate", "number", "the share of picks of the summary shown first"),
    Cell("acc_original", "number", "accuracy under the original order", True),
    Cell("acc_agreement_else_tie", "number", "accuracy over both orders, a conflict counting half", True),
    Cell("acc_agreement_only", "number", "accuracy over the pairs both orders agree on", True),
    Cell("n_conflicts", "count", "pairs whose two orders disagree (left out of acc_agreement_only)"),
    Cell("flip_flag", "flag", "flip_rate above 10 %"),
    Cell("n_samples", "count", "samples per unit"),
    Cell("sample_variance", "number", "the mean per-unit variance over the samples"),
    Cell("length_bias", "number", "preference for longer summaries (a choice of two: the share picking the longer; "
         "a score: Spearman's rho with the length)"),
    Cell("length_bias_n", "count", "the pairs or units the length bias counts"),
    Cell("alt_key", "text", "the alt-test column the cell belongs to"),
    Cell("judge", "text", "the judge behind the row"),
    Cell("annotator", "text", "the annotator of a human leave-one-out row"),
)
FAMILY = """a judge answering with the templates of one prompt family (<code>leaderboard.families</code>;
docs/leaderboard.md): in each dimension the template at the family's median, or at its 10th percentile, of the
templates' sample-level correlations (numpy's "lower" rule: position floor(q (P - 1)) in the ascending values, so a
template that was asked), picked per dimension, the same for its three levels; its verdicts are computed on that
template's answers as any judge's. "prompt spread q10 a - q90 b": the family's 10th and 90th percentiles over its
templates at the cell's level (the bar: that range on -1 to 1, the tick at the median)."""

# a prompt family's row (leaderboard.families, sumjudge.leaderboard.families): columns its cells add, present in
# leaderboard.csv only where the run has such a row (so a run without one keeps its columns)
FAMILY_CELLS: tuple[Cell, ...] = (
    Cell("prompt_family", "text", "the prompt family of a family row", term="<judge> · <family> (median prompt, "
         "10th percentile prompt)", term_text=FAMILY),
    Cell("prompt_quantile", "number", "the quantile of the family's templates the row answers at (0.5, 0.1)"),
    Cell("prompt_template", "text", "the template the row answers with in this dimension"),
    Cell("prompt_spread", "text", "which quantiles the spread spans (the family stage's lowest and highest)"),
    Cell("prompt_spread_low", "number", "the family's lowest quantile over its templates at the cell's level", True),
    Cell("prompt_median", "number", "the family's median over its templates at the cell's level", True),
    Cell("prompt_spread_high", "number", "the family's highest quantile over its templates at the cell's level", True),
)
SPECS = {c.name: c for c in CELLS + FAMILY_CELLS}
CELL_COLUMNS = [c.name for c in CELLS]

# the page glossary's entries, in reading order (the columns that carry them)
GLOSSARY_ORDER = ("value", "loo_value", "close_verdict", "rank_group", "alt_verdict", "spa", "column")


def undescribed(names) -> list[str]:
    """The names of ``names`` without a spec (a field computed but never described)."""
    return [n for n in names if n not in SPECS]


def show(r, name: str) -> str:
    """Field ``name`` of cell ``r`` as the page prints it (its spec's format)."""
    return FORMATS[SPECS[name].format](r.get(name))


def glossary_html(order=GLOSSARY_ORDER) -> str:
    """The page's glossary list, each entry from the spec of the column that carries it."""
    entries = [f"<dt>{SPECS[n].term}</dt><dd>{SPECS[n].term_text}</dd>" for n in order]
    return "\n".join(['<dl class="glossary">', *entries, "</dl>"])


GLOSSARY = glossary_html()
