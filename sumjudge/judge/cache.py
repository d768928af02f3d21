"""Content-addressed cache of judge replies.

Key: sha256 of the canonical JSON of everything that determines a reply — the
server identity (the API's base URL, or the embedded model's sha256 and engine
version, never a port), the model, the messages, the sampling parameters and the
sample index. Value: one JSON file ``<root>/<key[:2]>/<key>.json`` with the raw
reply, finish reason, token usage, the model id the server resolved, its system
fingerprint, a timestamp and the request that produced it.

- Each reply is written as soon as it arrives (temp file + atomic rename), so a
  crash loses only requests in flight, and two processes writing the same or
  different keys at once are safe (the same key always holds the same content's
  equivalent; the last rename wins).
- Only successful replies are stored: errors are never cached.
- Neither the API key nor any request header ever reaches the cache: entries are
  built from an explicit whitelist of fields (see :func:`make_entry`).
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from ..io import tmp_beside

CACHE_FORMAT = 1


def canonical(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def request_key(identity: dict[str, Any]) -> str:
    """The cache key of a request: sha256 over its canonical JSON."""
    return hashlib.sha256(canonical({"cache_format": CACHE_FORMAT, **identity}).encode()).hexdigest()


def make_entry(key: str, identity: dict[str, Any], completion: dict[str, Any], latency_s: float) -> dict[str, Any]:
    """The stored value: whitelisted fields of an OpenAI chat completion (as a dict)."""
    choice = (completion.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    usage = completion.get("usage") or {}
    logprobs = (choice.get("logprobs") or {}).get("content")
    return {
        "key": key,
        "request": identity,
        "reply": message.get("content"),
        "finish_reason": choice.get("finish_reason"),
        "usage": {"prompt_tokens": usage.get("prompt_tokens"),
                  "completion_tokens": usage.get("completion_tokens")},
        "model": completion.get("model"),
        "system_fingerprint": completion.get("system_fingerprint"),
        "response_id": completion.get("id"),
        "logprobs": [{"token": t.get("token"), "logprob": t.get("logprob"),
                      "top_logprobs": [{"token": a.get("token"), "logprob": a.get("logprob")}
                                       for a in (t.get("top_logprobs") or [])]}
                     for t in logprobs] if logprobs else None,
        "latency_s": round(latency_s, 3),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


class ResponseCache:
    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            with open(self.path(key), encoding="utf-8") as fh:
                entry = json.load(fh)
        except FileNotFoundError:
            return None
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None  # cannot happen with atomic writes; treat as a miss if it does
        return entry if entry.get("key") == key else None

    def __contains__(self, key: str) -> bool:
        return self.path(key).is_file()

    def put(self, key: str, entry: dict[str, Any]) -> None:
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = tmp_beside(path, prefix=f".{key[:12]}.")  # the umask's mode, not mkstemp's 0600
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(entry, fh, ensure_ascii=False, sort_keys=True)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    def __len__(self) -> int:
        return sum(1 for _ in self.root.glob("??/*.json")) if self.root.is_dir() else 0
