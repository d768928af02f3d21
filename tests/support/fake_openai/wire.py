"""Writing a response on the handler's connection: a JSON body, or raw bytes."""
from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any


def send_bytes(h: BaseHTTPRequestHandler, status: int, data: bytes, content_type: str,
               headers: dict[str, str] | None = None, length: int | None = None) -> None:
    """``data`` with a Content-Length of ``length`` (``len(data)`` unless told otherwise)."""
    h.send_response(status)
    h.send_header("Content-Type", content_type)
    h.send_header("Content-Length", str(len(data) if length is None else length))
    for k, v in (headers or {}).items():
        h.send_header(k, v)
    h.end_headers()
    h.wfile.write(data)


def send_json(h: BaseHTTPRequestHandler, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
    send_bytes(h, status, json.dumps(obj).encode(), "application/json", headers)
