"""What a judge job says when it must send requests and cannot (docs/judge.md, "Sharing results/").

A job whose requests are all cached needs nothing: no key, no network, no
llama-cpp-python, no model file. Only when some request must be sent does the judge's
endpoint (:meth:`sumjudge.judge.endpoint.Endpoint.require_sender`) check that it can
be, and otherwise stop with a message that names the judge, what is missing (the key
variable, the engine) and how many requests need it, and any cache entries quarantined
on the way; :func:`why_missing` and :func:`with_context` word that part.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from .errors import with_message


def why_missing(n: int, total: int, quarantined: Sequence[Path]) -> str:
    text = f"{n} of {total} requests are not in the cache"
    if quarantined:
        text += (f" ({len(quarantined)} of them had damaged entries, moved to "
                 f"{', '.join(str(q) for q in quarantined)}; `python -m sumjudge.judge.cache verify` "
                 f"lists every damaged entry, those of other jobs too)")
    return text


def with_context(err: Exception, label: str, n_missing: int, total: int, quarantined: Sequence[Path]) -> Exception:
    """The same error, its message prefixed with what could not be answered from the cache."""
    text = f"{label}: {why_missing(n_missing, total, quarantined)}; {err}"
    return with_message(err, text)
