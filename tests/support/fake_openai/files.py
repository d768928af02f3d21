"""``/v1/files``: upload (multipart), retrieve and content, as OpenAI's ``FileObject``."""
from __future__ import annotations

import email.parser
import email.policy
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from .errors import error
from .wire import send_bytes, send_json


class Files:
    """The Files side of :class:`~.server.FakeOpenAIServer` (``self.files``: id -> object and bytes)."""

    def _files_route(self, h: BaseHTTPRequestHandler, method: str, parts: list[str], raw: bytes) -> None:
        if method == "POST" and len(parts) == 1:
            return self._upload(h, raw)
        f = self.files.get(parts[1]) if len(parts) > 1 else None
        if f is None:
            return send_json(h, 404, error(f"No such File object: {parts[1:]}", param="id"))
        if len(parts) == 3 and parts[2] == "content":
            return send_bytes(h, 200, f["data"], "application/octet-stream")
        return send_json(h, 200, f["object"])

    def _upload(self, h: BaseHTTPRequestHandler, raw: bytes) -> None:
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + (h.headers.get("Content-Type") or "").encode() + b"\r\n\r\n" + raw)
        fields: dict[str, Any] = {}
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            fields[name] = (part.get_filename(), part.get_payload(decode=True))
        if "file" not in fields or "purpose" not in fields:
            return send_json(h, 400, error("Missing required parameter: 'file'.", param="file"))
        filename, data = fields["file"]
        fid = self._id("file-")
        obj = self._file_object(fid, data, filename or "upload", fields["purpose"][1].decode())
        with self.lock:
            self.files[fid] = {"object": obj, "data": data}
        send_json(h, 200, obj)

    def _store(self, data: bytes, filename: str, purpose: str) -> str:
        fid = self._id("file-")
        self.files[fid] = {"object": self._file_object(fid, data, filename, purpose), "data": data}
        return fid

    @staticmethod
    def _file_object(fid: str, data: bytes, filename: str, purpose: str) -> dict[str, Any]:
        return {"id": fid, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                "filename": filename, "purpose": purpose, "status": "processed",
                "expires_at": None, "status_details": None}
