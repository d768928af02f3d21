"""The reply parsers' patterns were rewritten to run in linear time (docs/judge.md,
"Parsing and statuses"); each rewrite must match what the pattern it replaced matched.
The old patterns are written out here verbatim and compared on random short replies
made of the words and signs they look for (short: the old ones are quadratic)."""
import random
import re

import pytest

from sumjudge.judge import parse as P

OLD_S = r"(?:\*\*|__)?\bsummary\s*#?\s*([01])\b(?:\*\*|__)?"
OLD = {
    "_SCALE": re.compile(r"\(?\b1\s*(?:\(\s*worst\s*\))?\s*(?:-|–|—|to)\s*5\b\s*(?:\(\s*best\s*\))?\)?", re.I),
    "_LEAD": re.compile(r"[\s\"'*_:=|()\[\]\-–—>]*(?:(?:score|rating|rated)\b[\s\"'*_:=|()\-–—]*)?"
                        r"(?:(?:is|of|at|gets?|receives?)\s+(?:an?\s+)?)?[\s\"'*_:=|(\[]*$", re.I),
    "_LEAD_CHOICE": re.compile(r"^[\W_]*(?:(?:answer|choice|better\s+summary|best\s+summary)\s*[:\-]\s*)?[\W_]*"
                               r"(?:summary\s*#?\s*)?([01])\b(?!\s*(?:is|was|seems|and|or|,)\b)[\W_]*(?:$|\n|[.)]\s)", re.I),
    "_PICK": re.compile(r"(?:\b(?:prefer|preferred|choose|chose|pick|select|go\s+with|vote\s+for|recommend)\s+(?:is\s+)?"
                        r"(?:the\s+)?|\b(?:better|best|preferred|stronger)\s+(?:one|summary|option|choice)?\s*(?:is|would\s+be)\s*|"
                        r"\b(?:answer|choice|verdict|winner|decision|selection|preference)\s*(?:is|:|=|-)\s*|"
                        r"\b(?:therefore|thus|hence|so|overall|in\s+conclusion|in\s+summary|conclusion)\s*[,:]?\s*)"
                        r"[\s*_\"'(\[]*" + OLD_S, re.I),
    "_WINS": re.compile(OLD_S + r"\s+(?:wins|is\s+the\s+winner|is\s+preferred|is\s+chosen|is\s+my\s+(?:pick|choice)|"
                        r"(?:is\s+)?(?:preferred\s+)?over\s+summary\s*#?\s*[01])", re.I),
    "_SUMMARY_REF": re.compile(r"\bsummary\s*#?\s*([01])\b", re.I),
    "_PAIR": re.compile(r"(?<!\d)(\d{1,3})\s*[.):\-]\s*\**\s*(yes|no)\b", re.I),
    "_BIN_LEAD": re.compile(r"^[\W_]*(?:(?:final\s+)?answer\s*[:\-]?\s*|verdict\s*[:\-]\s*|label\s*[:\-]\s*)?[\W_]*"
                            r"(?:the\s+sentence\s+is\s+|it\s+is\s+|this\s+is\s+)?(?:(" + P._NEG_WORDS + r")|(" +
                            P._POS_WORDS + r"))\b", re.I),
    "_BIN_ANSWER": re.compile(r"\b(?:(?:final\s+)?answer|verdict|label)\s*(?:is|:|-|=)\s*[\W_]*(?:(" + P._NEG_WORDS +
                              r")|(" + P._POS_WORDS + r"))\b", re.I),
    "_YES_NO_WORD": re.compile(r"(?:^|[.!:\n*\"]\s*)(yes|no)\b(?![\s-]+(?:one|longer|doubt|evidence|mention|information|"
                               r"contradiction|errors?|indication|such|other|more|less|details?))", re.I),
    "_NEW_SUMMARY": re.compile(r"^\W*(?:(?:here is|here's|below is)\s+(?:a|an|the|my)?\s*(?:new|revised|improved|better|"
                               r"possible|concise|brief|short)?\s*summary|(?:new|revised|improved|better)\s+summary\s*:|"
                               r"summary\s*:|tl;?dr\s*:)", re.I),
}
WORDS = ["summary", "Summary", "#", "0", "1", "5", "is", "not", "better", "prefer", "the", "choose", "best", "one", "would",
         "be", "answer", "verdict", "label", "final", "so", "therefore", "in conclusion", ":", "-", "—", ",", "*", "**", "__",
         "\"", "(", ")", "[", ".", "!", "yes", "Yes", "no", "No", "supported", "not supported", "consistent", "it", "this",
         "sentence", "here is", "here's", "a", "an", "my", "new", "revised", "tl;dr", "to", "worst", "best", "score", "rating",
         "rated", "of", "gets", "receives", "wins", "over", "preferred", "evidence", "x", "1.", "2)", "3:", "\n", "\t", "_"]


# the words each pattern looks for, so that many random replies match it
FOR = {
    "_SCALE": ["1", "5", "(", "worst", "best", ")", "-", "—", "to", "x", "15"],
    "_PICK": ["prefer", "is", "the", "better", "one", "would be", "answer", ":", "so", ",", "therefore", "summary",
              "Summary", "#", "0", "1", "*", "**", "\"", "(", "x"],
    "_WINS": ["summary 1", "summary #0", "summary", "1", "#", "wins", "is", "the winner", "preferred", "over", "is my pick",
              "**", "x"],
    "_SUMMARY_REF": ["summary", "#", "0", "1", "x", "2", "summary1"],
    "_BIN_ANSWER": ["answer", "final", "verdict", "label", "is", ":", "-", "=", "*", "\"", "yes", "no", "not",
                    "supported", "true", "x"],
    "_NEW_SUMMARY": ["here is", "here's", "below is", "a", "an", "the", "my", "new", "revised", "summary", ":", "tl;dr",
                     "*", "x"],
}


def replies(seed: int, n: int = 4000, words=WORDS, most: int = 12):
    rng = random.Random(seed)
    for _ in range(n):
        yield "".join(rng.choice(words) + rng.choice(["", " ", " ", "  ", "\n", " \n "]) for _ in range(rng.randint(0, most)))


def found(pattern: re.Pattern, how: str, text: str):
    if how == "finditer":
        return [(m.start(), m.end(), m.group(1) if pattern.groups else None) for m in pattern.finditer(text)]
    m = pattern.match(text)
    return m and (m.start(), m.end())


@pytest.mark.parametrize("name, how", [("_SCALE", "finditer"), ("_PICK", "finditer"), ("_WINS", "finditer"),
                                       ("_SUMMARY_REF", "finditer"), ("_PAIR", "finditer"), ("_BIN_ANSWER", "finditer"),
                                       ("_LEAD_CHOICE", "match"), ("_BIN_LEAD", "match"), ("_NEW_SUMMARY", "match")])
def test_a_rewritten_pattern_matches_what_the_old_one_matched(name, how):
    new, old = getattr(P, name), OLD[name]
    hits = 0
    for text in replies(len(name), words=FOR.get(name, WORDS), most=6 if name == "_NEW_SUMMARY" else 12):
        assert found(new, how, text) == found(old, how, text), repr(text)
        if how == "match" and old.match(text):
            assert new.match(text).groups()[:2] == old.match(text).groups()[:2], repr(text)
        hits += bool(found(old, how, text))
    assert hits >= 20, f"only {hits} of the random replies match {name}: the comparison says little"


def test_the_lead_before_a_score_accepts_what_it_accepted():
    rng = random.Random(3)
    signs = [" ", "\n", "\"", "'", "*", "_", ":", "=", "|", "(", ")", "[", "]", "-", "–", ">", "score", "rating", "is", "of",
             "gets", "a", "an", "x"]
    accepted = 0
    for _ in range(20000):
        text = "".join(rng.choice(signs) for _ in range(rng.randint(0, 8)))
        assert bool(P._LEAD.match(text)) == bool(OLD["_LEAD"].match(text)), repr(text)
        accepted += bool(P._LEAD.match(text))
    assert accepted > 1000


def test_yes_no_answer_words_are_those_the_old_pattern_found():
    hits = 0
    for text in replies(11):
        words = [m.group(1) for m in OLD["_YES_NO_WORD"].finditer(text)]
        assert P._answer_words(text) == words, repr(text)
        hits += bool(words)
    assert hits >= 200
