"""Every failure of the judge stage that reaches the user, one class each.

A rule entry point (scripts/judge*.py) catches :class:`JudgeError` and prints the
message; the message names the judge, what went wrong and the fix (the key, the
setting, the command). ``kind`` is the machine-readable cause (``auth``,
``invalid_request``, ``batch_token_limit``, ...), the same word ``usage.json`` and the
logs use for per-request errors.
"""
from __future__ import annotations

from ..errors import UserError


class JudgeError(UserError, RuntimeError):
    """Base of the failures below."""


class FatalJudgeError(JudgeError):
    """An error no retry can fix and that every request would hit: stop the judge."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class FixedKind(FatalJudgeError):
    """A fatal error whose ``kind`` is its class's (``class X(FixedKind, kind=...)``):
    raised with the message alone."""

    kind = "fatal"

    def __init_subclass__(cls, kind: str = "fatal", **kw):
        super().__init_subclass__(**kw)
        cls.kind = kind

    def __init__(self, message: str):
        JudgeError.__init__(self, message)


# one line each: the failure, and the kind it reports
class InvalidRequest(FixedKind, kind="invalid_request"): """The server rejects a request field for every unit."""
class MissingKey(FixedKind, kind="auth"): """Requests must be sent; the judge's api_key_env variable is not set."""
class ServerDied(FixedKind, kind="server_died"): """The judge's own (embedded) server died mid-run."""
class BatchFailed(FixedKind, kind="batch_failed"): """A batch failed the server's validation as a whole."""
class BatchPending(FixedKind, kind="batch_pending"): """batch.wait: false and batches are still in flight."""
class BatchTokenLimit(FixedKind, kind="batch_token_limit"): """Refused at OpenAI's enqueued-token limit."""


class EmbeddedError(JudgeError):
    """The embedded model or its server cannot be used."""


# what the user wrote cannot work (found before any request: a ValueError, as bad input is)
class JudgeConfigError(UserError, ValueError): """A judge's settings (config judges.<name>) cannot work."""
class TemplateError(UserError, ValueError): """A prompt template file cannot be used for its dataset."""
class ScoresError(UserError, ValueError): """Another tool's scores file (judges.<name>.scores) cannot be read or matched."""


def with_message(err: Exception, message: str) -> Exception:
    """The same failure (its class and ``kind``) with another message."""
    new = type(err).__new__(type(err))
    new.__dict__.update(err.__dict__)  # kind, for a FatalJudgeError
    new.args = (message,)
    return new


__all__ = ["JudgeError", "FatalJudgeError", "FixedKind", "InvalidRequest", "MissingKey", "ServerDied", "BatchFailed",
           "BatchPending", "BatchTokenLimit", "EmbeddedError", "JudgeConfigError", "TemplateError", "ScoresError",
           "with_message"]
