"""What every transport of a judge shares (the live client, the Batch API runner).

Token estimates live here so that pacing (live), the enqueued-token budget (batch)
and the cost estimate count a prompt the same way.
"""
from __future__ import annotations

import math


def estimate_tokens(text: str) -> int:
    """~4 characters per token (English, GPT-style BPE); for pacing and cost estimates."""
    return max(1, math.ceil(len(text) / 4))


__all__ = ["estimate_tokens"]
