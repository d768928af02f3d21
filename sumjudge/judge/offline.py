"""What a judge job needs before it may send anything (docs/judge.md, "Sharing results/").

A job whose requests are all cached needs nothing: no key, no network, no
llama-cpp-python, no model file. Only when some request must be sent does
:func:`require_sender` check that it can be, and otherwise stop with a message that
names the judge, what is missing (the key variable, the engine) and how many
requests need it, and any cache entries quarantined on the way.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from .client import FatalJudgeError
from .embedded import EmbeddedError, engine_version
from .spec import JudgeSettings


def _why_missing(n: int, total: int, quarantined: Sequence[Path]) -> str:
    text = f"{n} of {total} requests are not in the cache"
    if quarantined:
        text += (f" ({len(quarantined)} of them had damaged entries, moved to "
                 f"{', '.join(str(q) for q in quarantined)}; `python -m sumjudge.judge.cache verify` "
                 f"lists every damaged entry, those of other jobs too)")
    return text


def require_sender(spec: JudgeSettings, label: str, n_missing: int, total: int,
                   quarantined: Sequence[Path] = ()) -> None:
    """Raise a clear error when ``n_missing`` requests must be sent and cannot be."""
    if not n_missing:
        return
    name = spec.name
    if spec.embedded:
        if engine_version() == "not-installed":
            raise EmbeddedError(
                f"{label}: {_why_missing(n_missing, total, quarantined)}, and sending them needs the embedded "
                f"judge's engine, but llama-cpp-python is not installed: pip install "
                f"'llama-cpp-python[server]==0.3.36' (or get the missing replies from whoever shared results/)")
        return
    env = spec.api_key_env
    if env and not os.environ.get(env):
        raise FatalJudgeError(
            "auth", f"{label}: {_why_missing(n_missing, total, quarantined)}, and sending them needs the key "
                    f"of judge '{name}': environment variable {env} is not set (config key "
                    f"judges.{name}.api_key_env). Set it, or get the missing replies from whoever shared results/")


def with_context(err: Exception, label: str, n_missing: int, total: int, quarantined: Sequence[Path]) -> Exception:
    """The same error, its message prefixed with what could not be answered from the cache."""
    text = f"{label}: {_why_missing(n_missing, total, quarantined)}; {err}"
    return FatalJudgeError(err.kind, text) if isinstance(err, FatalJudgeError) else type(err)(text)
