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
    r"^\W*(?:(?:here is|here's|below is)\s+(?:a|an|the|my)?\s*(?:new|revised|improved|better|possible|"
    r"concise|brief|short)?\s*summary|(?:new|revised|improved|better)\s+summary\s*:|summary\s*:|tl;?dr\s*:)",
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
_SCALE = re.compile(r"\(?\b1\s*(?:\(\s*worst\s*\))?\s*(?:-|–|—|to)\s*5\b\s*(?:\(\s*best\s*\))?\)?", re.IGNORECASE)
# "4/5", "4 out of 5", "4 / 5.0": keep the 4, drop the denominator
_DENOMINATOR = re.compile(r"(?<=\d)\s*(?:/|out of)\s*5(?:\.0)?\b", re.IGNORECASE)
# list markers at line starts: "1. Relevance: 4" must not read 1 as a score
_LIST_MARKER = re.compile(r"(?m)^([ \t>*#-]*)\d{1,2}[.)](?=\s)")


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


def parse_likert(reply: str, dimensions: Sequence[str], finish_reason: str | None = None, *,
                 summary: str | None = None, article: str | None = None,
                 low: int = 1, high: int = 5) -> Parsed:
    """Four 1-5 scores, each found after its dimension's name.

    For each mention of a dimension, the score is the first number between that
    mention and the next mention of any dimension (or the start of that mention's
    line, when it is on a later line), after blanking scale phrases
    ("1-5", "1 (worst) to 5 (best)"), denominators ("/5", "out of 5") and list
    markers ("2."). A dimension mentioned several times takes the first mention
    that is followed by a number. Decimals are kept (4.5).
    """
    text = reply or ""
    clean = _blank(_blank(_blank(text, _SCALE), _DENOMINATOR), _LIST_MARKER)
    pat, alias_to_dim = _alias_pattern(dimensions)
    mentions = [(m.start(), m.end(), alias_to_dim[re.sub(r"\s+", " ", m.group(1).lower())])
                for m in pat.finditer(clean)]
    labels: dict[str, Any] = {d: None for d in dimensions}
    spans: dict[str, tuple[int, int]] = {}
    bad: list[str] = []
    for i, (_, end, dim) in enumerate(mentions):
        if labels[dim] is not None or dim in spans:
            continue
        stop = mentions[i + 1][0] if i + 1 < len(mentions) else len(clean)
        # a number on the next dimension's line belongs to that line ("2 (fluency)")
        line_start = clean.rfind("\n", 0, stop) + 1
        if line_start > end:
            stop = line_start
        m = _NUMBER.search(clean, end, stop)
        if not m:
            continue
        value = float(m.group(0))
        spans[dim] = (m.start(), m.end())
        if low <= value <= high:
            labels[dim] = int(value) if value.is_integer() else value
        else:
            bad.append(f"{dim}={m.group(0)}")
    if bad:
        return Parsed.invalid(labels, "out_of_range", ", ".join(bad), spans=spans)
    missing = [d for d in dimensions if labels[d] is None]
    if not missing:
        return Parsed(labels, spans=spans)
    if len(missing) == len(dimensions):
        return Parsed.invalid(labels, explain_no_label(text, finish_reason, summary=summary, article=article),
                              spans=spans)
    if finish_reason == "length":
        return Parsed.invalid(labels, "truncated", "missing " + ", ".join(missing), spans=spans)
    return Parsed.invalid(labels, "missing_dimension", ", ".join(missing), spans=spans)


def weighted_likert(reply: str, spans: dict[str, tuple[int, int]], logprobs: list[dict] | None,
                    low: int = 1, high: int = 5) -> dict[str, float]:
    """G-Eval's probability-weighted score per dimension, where the server gave
    ``top_logprobs``: sum of p(d) * d over the digits ``low..high`` at the token that
    holds the parsed score, renormalised over those digits. NaN where unavailable."""
    out = {d: math.nan for d in spans}
    if not logprobs:
        return out
    starts, pos = [], 0
    for tok in logprobs:
        starts.append(pos)
        pos += len(tok.get("token") or "")
    digits = {str(k): k for k in range(low, high + 1)}
    for dim, (start, _) in spans.items():
        idx = next((i for i in range(len(starts) - 1, -1, -1) if starts[i] <= start), None)
        if idx is None:
            continue
        probs = {}
        for alt in logprobs[idx].get("top_logprobs") or []:
            d = (alt.get("token") or "").strip()
            if d in digits and alt.get("logprob") is not None:
                probs[digits[d]] = probs.get(digits[d], 0.0) + math.exp(alt["logprob"])
        total = sum(probs.values())
        if total > 0:
            out[dim] = sum(k * p for k, p in probs.items()) / total
    return out


# ---------------------------------------------------------------- pairwise

_SUMMARY_REF = re.compile(r"\bsummary\s*#?\s*([01])\b", re.IGNORECASE)
_BETTER = re.compile(r"\bsummary\s*#?\s*([01])\s+(?:is|was|seems|appears)\s+(?:\w+\s+)?(?:better|superior|preferable|more)",
                     re.IGNORECASE)


def parse_pairwise(reply: str, finish_reason: str | None = None) -> Parsed:
    """0 or 1: the reply is just "0" or "1", or names only one of the two summaries,
    or names both and says "Summary X is better"."""
    text = (reply or "").strip()
    bare = re.fullmatch(r"[\W_]*(?:answer\s*:\s*)?([01])[\W_]*", text, re.IGNORECASE)
    if bare:
        return Parsed({"choice": int(bare.group(1))})
    named = {int(x) for x in _SUMMARY_REF.findall(text)}
    if len(named) == 1:
        return Parsed({"choice": named.pop()})
    if len(named) == 2:
        better = {int(x) for x in _BETTER.findall(text)}
        if len(better) == 1:
            return Parsed({"choice": better.pop()})
        return Parsed.invalid({"choice": None}, "ambiguous", "names both summaries")
    return Parsed.invalid({"choice": None}, explain_no_label(text, finish_reason, default="no_choice"))


# ---------------------------------------------------------------- Pyramid

_YESNO = re.compile(r"\b(yes|no)\b", re.IGNORECASE)
_PAIR = re.compile(r"(?<!\d)(\d{1,3})\s*[.):\-]\s*\**\s*(yes|no)\b", re.IGNORECASE)
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

_NOT_SUPPORTED = re.compile(r"\b(?:is\s+not|isn't|not)\s+supported\b", re.IGNORECASE)
_SUPPORTED = re.compile(r"\b(?:is\s+)?supported\b", re.IGNORECASE)


def parse_binary(reply: str, finish_reason: str | None = None) -> Parsed:
    """1 for Yes, 0 for No: the first word, else the only one of the two that occurs,
    else "not supported" / "supported"."""
    text = (reply or "").strip()
    lead = re.match(r"[\W_]*(yes|no)\b", text, re.IGNORECASE)
    if lead:
        return Parsed({"label": int(lead.group(1).lower() == "yes")})
    kinds = {w.lower() for w in _YESNO.findall(text)}
    if len(kinds) == 1:
        return Parsed({"label": int(kinds.pop() == "yes")})
    if _NOT_SUPPORTED.search(text):
        return Parsed({"label": 0})
    if len(kinds) == 0 and _SUPPORTED.search(text):
        return Parsed({"label": 1})
    if len(kinds) == 2:
        return Parsed.invalid({"label": None}, "ambiguous", "says both Yes and No")
    return Parsed.invalid({"label": None}, explain_no_label(text, finish_reason, default="no_answer"))


def parse_reply(protocol: str, reply: str, finish_reason: str | None, unit: dict[str, Any],
                dimensions: Sequence[str] = ()) -> Parsed:
    """Dispatch on the protocol; ``unit`` is the dataset row (for context heuristics)."""
    if protocol == "likert":
        return parse_likert(reply, dimensions, finish_reason, summary=unit.get("summary"),
                            article=unit.get("article"))
    if protocol == "pairwise":
        return parse_pairwise(reply, finish_reason)
    if protocol == "pyramid":
        return parse_pyramid(reply, len(unit["scus"]), finish_reason)
    if protocol == "binary":
        return parse_binary(reply, finish_reason)
    raise ValueError(f"unknown protocol {protocol!r}")
