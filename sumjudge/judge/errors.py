"""Every failure of the judge stage that reaches the user, one class each.

A rule entry point (scripts/judge*.py) catches :class:`JudgeError` and prints the
message; the message names the judge, what went wrong and the fix (the key, the
setting, the command). ``kind`` is the machine-readable cause (``auth``,
``invalid_request``, ``batch_token_limit``, ...), the same word ``usage.json`` and the
logs use for per-request errors.
"""
from __future__ import annotations


class JudgeError(RuntimeError):
    """Base of the failures below."""


class FatalJudgeError(JudgeError):
    """An error no retry can fix and that every request would hit: stop the judge."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class BatchPending(FatalJudgeError):
    """``batch.wait: false`` and batches are still in flight: stop the rule, collect later."""

    def __init__(self, message: str):
        super().__init__("batch_pending", message)


class BatchTokenLimit(FatalJudgeError):
    """A batch refused at OpenAI's enqueued-token limit (``batch.max_enqueued_tokens``)."""

    def __init__(self, message: str):
        super().__init__("batch_token_limit", message)


class EmbeddedError(JudgeError):
    """The embedded model or its server cannot be used."""


__all__ = ["JudgeError", "FatalJudgeError", "BatchPending", "BatchTokenLimit", "EmbeddedError"]
