"""The one base class of every error a user can fix.

A :class:`UserError`'s message already names the file, config key or missing need and
the fix, on one line. A rule script's entry code (``scripts/_log.py``) logs it as that
one line, to the terminal and to the rule's ``log:`` file, and exits with status 1,
without a Python traceback (``SUMJUDGE_DEBUG=1`` keeps the traceback, docs/metrics.md
"When a job fails"). Any other exception is a bug and keeps its traceback.

The stages' own error classes inherit from it (``ConfigError``, ``DatasetConfigError``,
``DataError``, ``FetchError``, ``ModelUnavailable``, ``RougePerlError``, the judge's
``JudgeError`` family, ``JudgeConfigError``, ``TemplateError``, ``ScoresError``,
``TablesInputError``). This module imports nothing, so that every rule's environment
can import it (tests/test_rule_envs.py).
"""


class UserError(Exception):
    """A failure the user can fix: the message names the file, key or need and the fix."""


__all__ = ["UserError"]
