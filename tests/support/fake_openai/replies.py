"""What the fake server says when nothing goes wrong: the reply text, its logprobs and its token counts."""
from __future__ import annotations

import hashlib
import math
import re
from typing import Any


def default_reply(messages: list[dict[str, str]]) -> str:
    """A well-formed answer to any of the four protocols (deterministic per prompt)."""
    text = messages[-1]["content"]
    h = int(hashlib.sha256(text.encode()).hexdigest(), 16)
    if "Semantic content units:" in text:
        n = len(re.findall(r"(?m)^\d+\. ", text.split("Semantic content units:", 1)[1]))
        return "\n".join(f"{i}. {'Yes' if (h >> i) & 1 else 'No'}" for i in range(1, n + 1))
    if "which summary is better" in text:
        return f"Summary {h % 2}"
    if "Is the sentence supported" in text:
        return "Yes" if h % 3 else "No"
    m = re.search(r"four dimensions: (\w+), (\w+), (\w+), and (\w+)", text)
    # prompts/likert.txt (a user's Likert dataset): "on these dimensions: quality, clarity."
    mine = re.search(r"these dimensions: ([\w ,]+)\.", text)
    dims = m.groups() if m else tuple(d.strip() for d in mine.group(1).split(",")) if mine else \
        ("relevance", "consistency", "fluency", "coherence")
    return "\n".join(f"{d.capitalize()}: {1 + (h >> (3 * i)) % 5}" for i, d in enumerate(dims))


REASONING_TOKENS = {"minimal": 0, "low": 64, "medium": 192, "high": 512}

# the fake tokenizer: every digit, run of letters, run of spaces and other character a token
_TOKEN = re.compile(r"\d|[A-Za-z]+|[ \t]+|\n|[^\sA-Za-z\d]")


def logprob_item(token: str, logprob: float, top: list[tuple[str, float]]) -> dict[str, Any]:
    """One ``ChatCompletionTokenLogprob`` (the openai SDK's type) as JSON."""
    return {"token": token, "logprob": logprob, "bytes": list(token.encode("utf-8")),
            "top_logprobs": [{"token": t, "logprob": lp, "bytes": list(t.encode("utf-8"))} for t, lp in top]}


def default_logprobs(reply: str, k: int) -> list[dict[str, Any]]:
    """Deterministic logprobs for ``reply``: a digit gets 0.6 and its neighbours on 1..5
    0.15 each (the rest goes to ``" The"``), any other token 0.99; the top ``k`` listed,
    most probable first."""
    out = []
    for token in _TOKEN.findall(reply or ""):
        if token.isdigit() and 1 <= int(token) <= 5:
            d = int(token)
            probs = {str(d): 0.6, **{str(n): 0.15 for n in (d - 1, d + 1) if 1 <= n <= 5}}
            probs[" The"] = 1.0 - sum(probs.values())
        else:
            probs = {token: 0.99, " the" if token != " the" else " a": 0.01}
        top = sorted(((t, math.log(p)) for t, p in probs.items()), key=lambda x: -x[1])[:k]
        out.append(logprob_item(token, math.log(probs[token]), top))
    return out


def tokens(text: str) -> int:
    """The fake server's token count of ``text`` (4 characters a token, at least 1)."""
    return len(text) // 4 + 1
