"""Turn a judge's reply into labels, or say why it cannot be used.

The paper extracts labels with "simple rules" and calls a reply without one
*invalid* (Table 8: refusing, writing a new summary, continuing the summary).
Every parser returns a :class:`Parsed` with

- ``labels``: the label values the reply gave (``None`` where it gave none or an
  impossible one: a value is never guessed),
- ``status``: ``"ok"`` only when every label is present and valid, else ``"invalid"``,
- ``reason``: for invalid replies, one of :data:`INVALID_REASONS` (followed by
  ``": details"`` where there are some).

The rules are documented with examples in docs/judge.md.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from .protocols import DIMENSION_ALIASES

INVALID_REASONS = (
    "empty",              # no text at all
    "refusal",            # "I'm sorry, ...", "As an AI ..."
    "rewrote_summary",    # wrote a (new) summary instead of judging
    "continued_summary",  # continued the summary's text
    "no_score",           # Likert: no dimension with a score
    "missing_dimension",  # Likert: some dimensions without a score
    "out_of_range",       # Likert: a score outside 1-5
    "no_choice",          # pairwise: neither summary named
    "ambiguous",          # pairwise/binary: both answers given, no rule decides
    "no_answer",          # binary: neither Yes nor No; pyramid: no SCU answered
    "missing_scu",        # pyramid: some SCUs without an answer
    "truncated",          # the reply hit max_tokens before it was complete
)


@dataclass
class Parsed:
    labels: dict[str, Any]
    status: str = "ok"
    reason: str | None = None
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)  # where each score was read

    @classmethod
    def invalid(cls, labels: dict[str, Any], reason: str, detail: str | None = None, **kw) -> "Parsed":
        return cls(labels, "invalid", f"{reason}: {detail}" if detail else reason, **kw)


# ---------------------------------------------------------------- shared heuristics

_REFUSAL = re.compile(
    r"\b(I'?m sorry|I am sorry|I apologi[sz]e|as an AI|as a language model|"
    r"I (?:cannot|can't|can not|am unable to|am not able to|won't be able to)|"
    r"unable to (?:provide|evaluate|rate|determine))\b", re.IGNORECASE)
_NEW_SUMMARY = re.compile(
    r"^\W*(?:(?:here is|here's|below is)\s+(?:(?:a|an|the|my)\s*)?(?:(?:new|revised|improved|better|possible|"
    r"concise|brief|short)\s*)?summary|(?:new|revised|improved|better)\s+summary\s*:|summary\s*:|tl;?dr\s*:)",
    re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9']+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _ngrams(words: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def explain_no_label(reply: str, finish_reason: str | None = None, *, summary: str | None = None,
                     article: str | None = None, default: str = "no_score") -> str:
    """Why a reply without any label is invalid (Table 8's categories where they fit)."""
    text = (reply or "").strip()
    if not text:
        return "empty"
    if _REFUSAL.search(text):
        return "refusal"
    words = _words(text)
    if summary:
        sw = _words(summary)
        # continuing: the reply picks up where the summary ends, or repeats the summary
        # and goes on
        if sw and len(words) >= 3:
            tail = sw[-5:]
            if words[:len(tail)] == tail or (text[:1].islower() and not _NEW_SUMMARY.match(text)):
                return "continued_summary"
            shared = _ngrams(words, 4) & _ngrams(sw, 4)
            if len(sw) >= 8 and len(shared) >= 0.6 * max(1, len(_ngrams(sw, 4))):
                return "continued_summary"
    if _NEW_SUMMARY.match(text):
        return "rewrote_summary"
    if article and len(words) >= 12:
        grams = _ngrams(words, 3)
        if grams and len(grams & _ngrams(_words(article), 3)) >= 0.5 * len(grams):
            return "rewrote_summary"
    if finish_reason == "length":
        return "truncated"
    return default


# ---------------------------------------------------------------- Likert

_NUMBER = re.compile(r"(?<![\d.])-?\d+(?:\.\d+)?(?![\d])")
# "1-5", "(1 to 5)", "1 (worst) to 5 (best)", "on a scale of 1-5": the scale, not a score
_SCALE = re.compile(r"\(?\b1\s*(?:\(\s*worst\s*\)\s*)?(?:-|–|—|to)\s*5\b\s*(?:\(\s*best\s*\))?\)?", re.IGNORECASE)
# "4/5", "4 out of 5", "4 / 5.0": keep the 4, drop the denominator
_DENOMINATOR = re.compile(r"(?<=\d)\s*(?:/|out of)\s*5(?:\.0)?\b", re.IGNORECASE)
# list markers at line starts: "1. Relevance: 4" must not read 1 as a score
_LIST_MARKER = re.compile(r"(?m)^([ \t>*#-]*)\d{1,2}[.)](?=\s)")




def _scale_patterns(low: float, high: float) -> tuple[re.Pattern, re.Pattern]:
    """The scale-phrase and denominator patterns of a ``low..high`` scale (1-5: the two above;
    0-100: "0-100", "0 (worst) to 100 (best)", "85/100", "85 out of 100")."""
    if (low, high) == (1, 5):
        return _SCALE, _DENOMINATOR
    lo, hi = (re.escape(f"{v:g}") for v in (low, high))
    scale = re.compile(rf"\(?(?<![\d.]){lo}\s*(?:\(\s*worst\s*\)\s*)?(?:-|–|—|to)\s*{hi}\b\s*"
                       rf"(?:\(\s*best\s*\))?\)?", re.IGNORECASE)
    denominator = re.compile(rf"(?<=\d)\s*(?:/|out of)\s*{hi}(?:\.0)?\b", re.IGNORECASE)
    return scale, denominator


def _blank(text: str, pattern: re.Pattern) -> str:
    """Replace matches by spaces (same length, so positions stay valid)."""
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def _alias_pattern(dims: Sequence[str]) -> tuple[re.Pattern, dict[str, str]]:
    alias_to_dim = {}
    for d in dims:
        for a in DIMENSION_ALIASES.get(d, (d,)):
            alias_to_dim[a] = d
    names = sorted(alias_to_dim, key=len, reverse=True)
    pat = re.compile(r"\b(" + "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in names) + r")\b",
                     re.IGNORECASE)
    return pat, alias_to_dim


# what may stand between a dimension's name and its score: "Relevance: 4",
# "**Relevance**: 4", "Relevance (1-5) - 4", '"relevance": 4', "| Relevance | 4 |",
# "Relevance score: 4", "Relevance is 4", "Relevance = 4"
# Each run is matched atomically, (?=(X*))\1 (Python 3.10 has no possessive X*+): what
# follows a run starts with a letter or is a run of a subset of its characters up to the
# end, so giving characters back never helps, and without it a long run of spaces between
# a name and a number took time quadratic in its length.
_LEAD = re.compile(r"(?=([\s\"'*_:=|()\[\]\-–—>]*))\1(?:(?:score|rating|rated)\b(?=([\s\"'*_:=|()\-–—]*))\2)?"
                   r"(?:(?:is|of|at|gets?|receives?)(?=(\s+))\3(?:an?(?=(\s+))\4)?)?[\s\"'*_:=|(\[]*$", re.IGNORECASE)
# a score marker inside a dimension's text: "Score: 4", "Rating - 4", "score of 4",
# "I would give it a 4", "rated 4"
_MARKER = re.compile(r"(?:\b(?:score|rating)\b\s*(?:[:=\-–—]|\bof\b|\bis\b)?|\brated\b|\bgives?\s+(?:it\s+)?an?\b|"
                     r"\bgive\s+(?:it|this(?:\s+summary)?)\s+an?\b)[\s*_\"']*$", re.IGNORECASE)
# a number that is a score stands alone: not "3 sentences", "2 of the 3 key points"
_ALONE_AFTER = re.compile(r"\s*(?:$|[.,;:!?)\]}|*\"'/\-–—(]|\n|\s[A-Z(])|"
                          r"\s+(?:and|but|because|as|since|while|though|although|for|overall)\b")

_RANK_NAMES = {1: "after its name", 2: "after Score:", 3: "last on its line"}


def _likert_candidates(clean: str, end: int, stop: int, low: float = 1,
                       high: float = 5) -> list[tuple[int, float, tuple[int, int]]]:
    """(rank, value, span) of the scores one mention of a dimension offers: rank 1 a
    number right after the name, 2 a number after a score marker, 3 the last
    standalone in-range number on the mention's own line."""
    out = []
    numbers = [m for m in _NUMBER.finditer(clean, end, stop)]
    # from `tail` on, the segment holds only " \t,;" (one pass, not one slice per number)
    tail = end + len(clean[end:stop].rstrip(" \t,;"))
    alone = [m for m in numbers if _ALONE_AFTER.match(clean, m.end()) or m.end() >= tail]
    if numbers and _LEAD.match(clean[end:numbers[0].start()]) and numbers[0] in alone:
        m = numbers[0]
        out.append((1, float(m.group(0)), (m.start(), m.end())))
    for m in alone:
        window = clean[max(end, m.start() - 40):m.start()]
        if _MARKER.search(window):
            out.append((2, float(m.group(0)), (m.start(), m.end())))
    line_end = clean.find("\n", end, stop)
    line_end = stop if line_end < 0 else line_end
    on_line = [m for m in alone if m.start() < line_end and low <= float(m.group(0)) <= high]
    if on_line:
        m = on_line[-1]
        out.append((3, float(m.group(0)), (m.start(), m.end())))
    return out


def parse_likert(reply: str, dimensions: Sequence[str], finish_reason: str | None = None, *,
                 summary: str | None = None, article: str | None = None,
                 low: int = 1, high: int = 5) -> Parsed:
    """One ``low``-``high`` score per dimension (1-5 unless the dataset declares its own
    ``scale``), each read where the reply gives it for its dimension.

    The text is cleaned first: scale phrases ("1-5", "1 (worst) to 5 (best)"; 0-100:
    "0-100", ...), denominators ("/5", "out of 5"; "/100") and list markers ("2.") are blanked. A
    dimension's *segment* runs from a mention of its name to the next mention of
    any dimension (or to the start of that mention's line). Only a *standalone*
    number can be a score: one not followed by a word ("3 sentences", "2 of the 3
    key points" are explanation). In each segment, in order of precedence:

    1. the number right after the name ("Relevance: 4", "**Relevance**: 4",
       '"relevance": 4', "Relevance score is 4");
    2. a number introduced by ``Score:`` / ``Rating:`` / "score of" / "give it a";
    3. the last in-range standalone number on the name's own line.

    Over all mentions of a dimension the best rank wins; mentions of that rank that
    disagree make the reply ``ambiguous``. A rank-1 or rank-2 score outside
    ``low..high`` makes it ``out_of_range``. Decimals are kept (4.5).
    """
    text = reply or ""
    scale, denominator = _scale_patterns(low, high)
    clean = _blank(_blank(_blank(text, scale), denominator), _LIST_MARKER)
    pat, alias_to_dim = _alias_pattern(dimensions)
    mentions = [(m.start(), m.end(), alias_to_dim[re.sub(r"\s+", " ", m.group(1).lower())])
                for m in pat.finditer(clean)]
    labels: dict[str, Any] = {d: None for d in dimensions}
    spans: dict[str, tuple[int, int]] = {}
    found: dict[str, list[tuple[int, float, tuple[int, int]]]] = {d: [] for d in dimensions}
    for i, (_, end, dim) in enumerate(mentions):
        stop = mentions[i + 1][0] if i + 1 < len(mentions) else len(clean)
        # a number on the next dimension's line belongs to that line ("2 (fluency)")
        line_start = clean.rfind("\n", end, stop) + 1  # 0 (not after end) when none: as from 0
        if i + 1 < len(mentions) and line_start > end:
            stop = line_start
        found[dim] += _likert_candidates(clean, end, stop, low, high)
    bad: list[str] = []
    unclear: list[str] = []
    for dim in dimensions:
        if not found[dim]:
            continue
        best = min(r for r, _, _ in found[dim])
        top = [(v, sp) for r, v, sp in found[dim] if r == best]
        values = sorted({v for v, _ in top})
        value, span = top[0]
        spans[dim] = span
        if len(values) > 1:
            unclear.append(f"{dim} {' or '.join(f'{v:g}' for v in values)} ({_RANK_NAMES[best]})")
        elif low <= value <= high:
            labels[dim] = int(value) if value.is_integer() else value
        else:
            bad.append(f"{dim}={value:g}")
    if bad:
        return Parsed.invalid(labels, "out_of_range", ", ".join(bad), spans=spans)
    if unclear:
        return Parsed.invalid({d: None for d in dimensions}, "ambiguous", "; ".join(unclear), spans=spans)
    missing = [d for d in dimensions if labels[d] is None]
    if not missing:
        return Parsed(labels, spans=spans)
    if len(missing) == len(dimensions):
        return Parsed.invalid(labels, explain_no_label(text, finish_reason, summary=summary, article=article),
                              spans=spans)
    if finish_reason == "length":
        return Parsed.invalid(labels, "truncated", "missing " + ", ".join(missing), spans=spans)
    return Parsed.invalid(labels, "missing_dimension", ", ".join(missing), spans=spans)


def token_offsets(reply: str, logprobs: list[dict]) -> list[int]:
    """Where each logprobs token starts in ``reply``. The tokens' texts normally add up
    to the reply; a character the server could not show per token (a multi-byte
    character split across tokens comes back as "" pieces) is skipped over by finding
    each token at or shortly after the previous one's end."""
    starts, pos = [], 0
    for tok in logprobs:
        text = tok.get("token") or ""
        at = reply.find(text, pos) if text else pos
        if at < 0 or at - pos > 8:
            at = pos
        starts.append(at)
        pos = at + len(text)
    return starts


def weighted_scale(scale: Sequence[float] | None) -> bool:
    """Whether a Likert scale's scores can be weighted: each a single digit (1-5 yes, 0-100 no)."""
    low, high = scale or (1, 5)
    return 0 <= low <= high <= 9


def weighted_likert(reply: str, spans: dict[str, tuple[int, int]], logprobs: list[dict] | None,
                    low: int = 1, high: int = 5) -> dict[str, float]:
    """G-Eval's probability-weighted score per dimension, where the server gave
    ``top_logprobs`` (docs/judge.md, "Weighted Likert scores (G-Eval)").

    At the token that holds the parsed score's first character, every listed
    alternative that reads as one of the scores ``low..high`` adds its probability to
    that score: the alternative's text with whitespace stripped, and the characters
    the sampled token carried before the score (``": 4"``: the ``:``) stripped from its
    front, must start with the digit and not continue with another digit (``" 4"``,
    ``"4"`` and ``"4."`` all count for 4; ``"45"`` and ``"Hello"`` for none). The score
    is ``sum(p(s) * s) / sum(p(s))``: renormalised over the scores listed, so a score
    missing from the top-k counts as probability 0. NaN where there are no logprobs,
    the score's token cannot be found, no score is listed, or the scale has scores of
    more than one digit (a "10" is two tokens for many tokenizers)."""
    out = {d: math.nan for d in spans}
    if not logprobs or not weighted_scale((low, high)):
        return out
    starts = token_offsets(reply, logprobs)
    digits = {str(k): k for k in range(low, high + 1)}
    for dim, (start, _) in spans.items():
        idx = next((i for i in range(len(starts) - 1, -1, -1) if starts[i] <= start), None)
        if idx is None:
            continue
        token = logprobs[idx].get("token") or ""
        offset = start - starts[idx]
        if not (0 <= offset < len(token)) or token[offset] != reply[start:start + 1]:
            continue  # the score's character is not in the token found: misaligned
        lead = set(token[:offset]) - set(" \t\n")  # e.g. ":" of ": 4", "*" of "**4"
        probs: dict[int, float] = {}
        for alt in logprobs[idx].get("top_logprobs") or []:
            text = (alt.get("token") or "").strip()
            while text and text[0] in lead:
                text = text[1:].lstrip()
            if text[:1] in digits and not text[1:2].isdigit() and alt.get("logprob") is not None:
                probs[digits[text[0]]] = probs.get(digits[text[0]], 0.0) + math.exp(alt["logprob"])
        total = sum(probs.values())
        if total > 0:
            out[dim] = sum(k * p for k, p in probs.items()) / total
    return out


# ---------------------------------------------------------------- pairwise

_SUMMARY_REF = re.compile(r"\bsummary\s*(?:#\s*)?([01])\b", re.IGNORECASE)
_S = r"(?:\*\*|__)?\bsummary\s*(?:#\s*)?([01])\b(?:\*\*|__)?"
_ADV = r"(?:(?:much|far|slightly|clearly|significantly|somewhat|a\s+bit|considerably|overall|definitely|a\s+little|even|also|the)\s+)*"
# adjectives after "more"/"less" that are faults: "more confusing" prefers the other one
_FAULTS = ("confusing", "verbose", "redundant", "repetitive", "misleading", "inaccurate", "difficult", "complicated",
           "convoluted", "unclear", "awkward", "vague", "wordy", "biased", "incoherent", "ambiguous", "incomplete",
           "error-prone", "generic", "rambling", "disjointed", "choppy", "cluttered", "irrelevant", "speculative")
_GOOD = r"(?:better|superior|preferable|preferred|stronger|clearer|best|winner|the\s+better\s+(?:one|summary|choice)|" \
        r"the\s+best|the\s+winner|my\s+choice|the\s+clear\s+choice)"
_BAD = r"(?:worse|inferior|weaker|poorer|the\s+worse\s+(?:one|summary))"
# "Summary X is [not] [much] better / worse / more|less ADJ [than Summary Y]"
_COMPARE = re.compile(_S + r"\s+(?:is|was|seems|appears|looks|reads|remains|would\s+be|comes\s+across\s+as)\s+"
                      r"(not\s+|n't\s+)?" + _ADV + r"(?:(" + _GOOD + r")|(" + _BAD + r")|(more|less)\s+(\w[\w-]*)|"
                      r"(as\s+good\s+as|on\s+par|equally|just\s+as))", re.IGNORECASE)
_COMPARE_NEG = re.compile(_S + r"\s+(?:isn't|is\s+not|wasn't)\s+" + _ADV + r"(?:(" + _GOOD + r")|(" + _BAD +
                          r")|(more|less)\s+(\w[\w-]*)|(as\s+good\s+as))", re.IGNORECASE)
# "I prefer Summary X", "I would choose Summary X", "the better summary is Summary X",
# "Answer: Summary X", "Therefore, Summary X", "Summary X wins", "Summary X over Summary Y"
# (whitespace at the end of each branch is left to the run after it: two adjacent runs
# that both take spaces made a long run of spaces quadratic)
_PICK = re.compile(r"(?:\b(?:prefer|preferred|choose|chose|pick|select|go\s+with|vote\s+for|recommend)(?=\s)"
                   r"(?:\s+is(?=\s))?(?:\s+the(?=\s))?|"
                   r"\b(?:better|best|preferred|stronger)\s+(?:(?:one|summary|option|choice)\s*)?(?:is|would\s+be)|"
                   r"\b(?:answer|choice|verdict|winner|decision|selection|preference)\s*(?:is|:|=|-)|"
                   r"\b(?:therefore|thus|hence|so|overall|in\s+conclusion|in\s+summary|conclusion)(?:\s*[,:])?)"
                   r"[\s*_\"'(\[]*" + _S, re.IGNORECASE)
_WINS = re.compile(_S + r"\s+(?:wins|is\s+the\s+winner|is\s+preferred|is\s+chosen|is\s+my\s+(?:pick|choice)|"
                   r"(?:is\s+)?(?:preferred\s+)?over\s+summary\s*(?:#\s*)?[01])", re.IGNORECASE)
_LEAD_CHOICE = re.compile(r"^[\W_]*(?:(?:answer|choice|better\s+summary|best\s+summary)\s*[:\-][\W_]*)?"
                          r"(?:summary\s*(?:#\s*)?)?([01])\b(?!\s*(?:is|was|seems|and|or|,)\b)[\W_]*(?:$|\n|[.)]\s)",
                          re.IGNORECASE)
_TIE = re.compile(r"\b(?:both\s+(?:summaries\s+)?(?:are|were)\s+(?:\w+\s+)?(?:equally|similar|equal|the\s+same|"
                  r"good|comparable)|equally\s+(?:good|bad|clear|confusing)|neither\s+(?:summary\s+)?is|"
                  r"no\s+clear\s+(?:winner|preference)|it'?s\s+a\s+tie)\b", re.IGNORECASE)


def _pair_votes(text: str) -> list[tuple[int, str]]:
    """Every statement of preference: (preferred summary, the words that said so)."""
    votes = []
    for pat, negated_form in ((_COMPARE, False), (_COMPARE_NEG, True)):
        for m in pat.finditer(text):
            x = int(m.group(1))
            if negated_form:
                neg, good, bad, moreless, adj, tie = True, m.group(2), m.group(3), m.group(4), m.group(5), m.group(6)
            else:
                neg, good, bad, moreless, adj, tie = bool(m.group(2)), m.group(3), m.group(4), m.group(5), m.group(6), m.group(7)
            if tie and not neg:
                continue  # "as good as": no preference either way
            if tie:  # "not as good as"
                pos, neg = False, False
            elif good:
                pos = True
            elif bad:
                pos = False
            else:
                fault = adj.lower() in _FAULTS
                pos = (moreless.lower() == "more") != fault
            if neg:
                pos = not pos
            votes.append((x if pos else 1 - x, m.group(0).strip()))
    for pat in (_PICK, _WINS):
        for m in pat.finditer(text):
            before = text[max(0, m.start() - 12):m.start()].lower()
            if re.search(r"\b(?:not|n't|never)\s*$", before):
                continue
            votes.append((int(m.group(1)), m.group(0).strip()))
    return votes


def parse_pairwise(reply: str, finish_reason: str | None = None) -> Parsed:
    """0 or 1 (docs/judge.md, "Pairwise"): the reply is just "0"/"1"/"Summary 1", or
    starts with one; else the statements of preference ("Summary 1 is better",
    "Summary 0 is more confusing" = 1, "Summary 1 is not better than Summary 0" = 0,
    "I prefer Summary 0", "Therefore, Summary 1") must all agree; else a reply that
    names only one summary, without any comparison, chose it. Statements that
    disagree, or a tie, make it ``ambiguous``."""
    text = (reply or "").strip()
    bare = re.fullmatch(r"[\W_]*(?:answer\s*:\s*)?(?:summary\s*(?:#\s*)?)?([01])[\W_]*", text, re.IGNORECASE)
    if bare:
        return Parsed({"choice": int(bare.group(1))})
    votes = _pair_votes(text)
    lead = _LEAD_CHOICE.match(text)
    if lead:
        votes.insert(0, (int(lead.group(1)), lead.group(0).strip()))
    choices = {v for v, _ in votes}
    if len(choices) == 1:
        return Parsed({"choice": choices.pop()})
    if len(choices) == 2:
        said = "; ".join(f"{w!r} -> {v}" for v, w in votes[:4])
        return Parsed.invalid({"choice": None}, "ambiguous", f"points both ways ({said})")
    named = {int(x) for x in _SUMMARY_REF.findall(text)}
    if len(named) == 2:
        return Parsed.invalid({"choice": None}, "ambiguous", "names both summaries without preferring one")
    if _TIE.search(text):
        return Parsed.invalid({"choice": None}, "no_choice", "calls it a tie")
    if len(named) == 1:
        return Parsed({"choice": named.pop()})
    return Parsed.invalid({"choice": None}, explain_no_label(text, finish_reason, default="no_choice"))


TIE_CHOICE = 2  # a tie answer of a pairwise protocol with a tie (sumjudge.protocols: ``tie_answer``)
_TIE_BARE = re.compile(r"[\W_]*(?:answer\s*:\s*)?(?:(?:both\s+(?:are\s+|summaries\s+are\s+)?)?equally\s+good|"
                       r"tie|a\s+tie|equal|the\s+same|same|both)[\W_]*", re.IGNORECASE)


def parse_pairwise_tie(reply: str, finish_reason: str | None = None) -> Parsed:
    """0, 1 or :data:`TIE_CHOICE` (docs/judge.md, "Pairwise with a tie"): the reply is just
    "Equally good" (or "tie", "equal", "both"), or reads as a tie and prefers neither summary
    (the cases :func:`parse_pairwise` calls ``no_choice: calls it a tie`` or ``names both
    summaries without preferring one`` when it also says they are equal); otherwise as
    :func:`parse_pairwise`."""
    text = (reply or "").strip()
    if _TIE_BARE.fullmatch(text):
        return Parsed({"choice": TIE_CHOICE})
    parsed = parse_pairwise(reply, finish_reason)
    if parsed.status != "ok" and parsed.reason and (
            parsed.reason.startswith("no_choice: calls it a tie")
            or (parsed.reason.startswith("ambiguous: names both") and _TIE.search(text))
            or re.match(r"[\W_]*(?:answer\s*:\s*)?equally\s+good\b", text, re.IGNORECASE)):
        return Parsed({"choice": TIE_CHOICE})
    return parsed


# ---------------------------------------------------------------- Pyramid

_YESNO = re.compile(r"\b(yes|no)\b", re.IGNORECASE)
_PAIR = re.compile(r"(?<!\d)(\d{1,3})\s*[.):\-]\s*(?:\*+\s*)?(yes|no)\b", re.IGNORECASE)
_NUMBERED_LINE = re.compile(r"^[\s>*#-]*(?:scu\s*|unit\s*)?(\d{1,3})\s*[.):\-]?\s+(.*)$", re.IGNORECASE)


def parse_pyramid(reply: str, n_scus: int, finish_reason: str | None = None) -> Parsed:
    """Yes/No per SCU number. A numbered line answers its SCU: with the Yes/No right
    after the number, else the last Yes/No on the line (an echoed SCU text may itself
    contain "no"). Several "1: Yes, 2: No" pairs on one line count each. Without any
    numbers, exactly ``n_scus`` Yes/No words are read in order."""
    text = reply or ""
    answers: dict[int, bool] = {}

    def put(k: int, word: str):
        if 1 <= k <= n_scus and k not in answers:
            answers[k] = word.lower() == "yes"

    for line in text.splitlines():
        pairs = _PAIR.findall(line)
        if len(pairs) >= 2:
            for k, w in pairs:
                put(int(k), w)
            continue
        m = _NUMBERED_LINE.match(line)
        if not m:
            continue
        rest = m.group(2)
        lead = re.match(r"[\W_]*(yes|no)\b", rest, re.IGNORECASE)
        words = _YESNO.findall(rest)
        if lead:
            put(int(m.group(1)), lead.group(1))
        elif words:
            put(int(m.group(1)), words[-1])
    if not answers:
        words = _YESNO.findall(text)
        if len(words) == n_scus and n_scus > 0:
            answers = {i: w.lower() == "yes" for i, w in enumerate(words, 1)}
    labels = [answers.get(i) for i in range(1, n_scus + 1)]
    if not answers:
        return Parsed.invalid({"scu_labels": labels}, explain_no_label(text, finish_reason, default="no_answer"))
    missing = [i for i in range(1, n_scus + 1) if i not in answers]
    if missing:
        reason = "truncated" if finish_reason == "length" else "missing_scu"
        return Parsed.invalid({"scu_labels": labels}, reason,
                              f"{len(missing)} of {n_scus} unanswered ({', '.join(map(str, missing[:8]))}"
                              f"{', ...' if len(missing) > 8 else ''})")
    return Parsed({"scu_labels": labels})


# ---------------------------------------------------------------- binary

# answer words: Yes-like and No-like, as the first word or after "Answer:"
_POS_WORDS = r"(?:yes|supported|consistent|true|correct|entailed|faithful|accurate)"
_NEG_WORDS = r"(?:no|not\s+supported|unsupported|inconsistent|not\s+consistent|false|incorrect|contradicted|" \
             r"not\s+entailed|unfaithful|inaccurate|not\s+true|not\s+correct)"
_BIN_LEAD = re.compile(r"^[\W_]*(?:(?:(?:final\s+)?answer|verdict\s*[:\-]|label\s*[:\-])[\W_]*)?"
                       r"(?:the\s+sentence\s+is\s+|it\s+is\s+|this\s+is\s+)?(?:(" + _NEG_WORDS + r")|(" + _POS_WORDS +
                       r"))\b", re.IGNORECASE)
_BIN_ANSWER = re.compile(r"\b(?:(?:final\s+)?answer|verdict|label)\s*(?:is|:|-|=)[\W_]*(?:(" + _NEG_WORDS + r")|(" +
                         _POS_WORDS + r"))\b", re.IGNORECASE)
_BIN_STATE_NEG = re.compile(r"\b(?:is|are)\s+(?:not|n't)\s+(?:supported|consistent|entailed|true)\b|"
                            r"\bisn't\s+(?:supported|consistent|entailed|true)\b|\bnot\s+supported\b|"
                            r"\bcontradicts\b|\bis\s+(?:unsupported|inconsistent|contradicted|false)\b", re.IGNORECASE)
_BIN_STATE_POS = re.compile(r"\b(?:is|are)\s+(?:fully\s+|directly\s+|clearly\s+|well\s+)?(?:supported|entailed|"
                            r"consistent\s+with)\b", re.IGNORECASE)
# "yes"/"no" that answer, not "no contradiction", "no evidence": at the start, or after one of
# . ! : newline * " and whitespace (what `(?:^|[.!:\n*"]\s*)(yes|no)\b(?!...)` matches; as one
# pattern it tried a start at every newline of a long run of them: quadratic)
_YES_NO_WORD = re.compile(r"\b(yes|no)\b(?![\s-]+(?:one|longer|doubt|evidence|mention|information|"
                          r"contradiction|errors?|indication|such|other|more|less|details?))", re.IGNORECASE)
_ANSWER_OPENERS = '.!:\n*"'


def _answer_words(text: str) -> list[str]:
    """The yes/no words of :data:`_YES_NO_WORD` that start the text or follow an opener
    and whitespace; each whitespace run is walked once."""
    out = []
    for m in _YES_NO_WORD.finditer(text):
        r = m.start()
        while r > 0 and text[r - 1].isspace() and text[r - 1] != "\n":
            r -= 1
        if m.start() == 0 or (r > 0 and text[r - 1] in _ANSWER_OPENERS):
            out.append(m.group(1))
    return out


def parse_binary(reply: str, finish_reason: str | None = None) -> Parsed:
    """1 for Yes, 0 for No (docs/judge.md, "Binary"): the answer word at the start
    ("Yes", "No", "Supported", "Not supported", "Answer: No") wins over any "no"
    later in the sentence; else an "Answer: ..." anywhere; else statements ("is not
    supported", "is supported", "contradicts") and sentence-initial Yes/No words,
    which must all agree (else ``ambiguous``)."""
    text = (reply or "").strip()
    lead = _BIN_LEAD.match(text)
    if lead and re.match(r"\s*(?:and|or|/|but)\s+(?:" + (_POS_WORDS if lead.group(1) else _NEG_WORDS) + r")\b",
                         text[lead.end():], re.IGNORECASE):
        return Parsed.invalid({"label": None}, "ambiguous", f"starts with both answers ({text[:30]!r})")
    if lead:
        return Parsed({"label": 0 if lead.group(1) else 1})
    answers = {0 if m.group(1) else 1 for m in _BIN_ANSWER.finditer(text)}
    if len(answers) == 1:
        return Parsed({"label": answers.pop()})
    if len(answers) == 2:
        return Parsed.invalid({"label": None}, "ambiguous", "gives both answers")
    kinds = set()
    if _BIN_STATE_NEG.search(text):
        kinds.add(0)
    if _BIN_STATE_POS.search(_blank(text, _BIN_STATE_NEG)):
        kinds.add(1)
    kinds |= {int(w.lower() == "yes") for w in _answer_words(text)}
    if len(kinds) == 1:
        return Parsed({"label": kinds.pop()})
    if len(kinds) == 2:
        return Parsed.invalid({"label": None}, "ambiguous", "says both Yes and No")
    if {w.lower() for w in _YESNO.findall(text)} == {"yes", "no"}:
        return Parsed.invalid({"label": None}, "ambiguous", "says both yes and no")
    return Parsed.invalid({"label": None}, explain_no_label(text, finish_reason, default="no_answer"))

