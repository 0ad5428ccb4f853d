"""The reply head of a test HTTP server that serves byte ranges (RFC 9110): the storage
tests' servers (HTTP inputs, detection read-ahead, memory bounds, S3-less range counting)
share it, each adding only what it counts or refuses."""

from __future__ import annotations

import re
from http.server import BaseHTTPRequestHandler

_RANGE = re.compile(r"bytes=(\d+)-(\d*)")


def send_range_head(handler: BaseHTTPRequestHandler, size: int) -> tuple[int, int]:
    """Answer ``handler``'s request for an object of ``size`` bytes: 206 with
    ``Content-Range`` for a ``Range: bytes=a-b`` (or ``a-``) header, else 200, then
    ``Accept-Ranges`` and ``Content-Length``; the span ``[start, end)`` the body must hold."""
    start, end = 0, size
    m = _RANGE.fullmatch(handler.headers.get("Range", ""))
    if m:
        start = int(m.group(1))
        end = min(size, int(m.group(2)) + 1) if m.group(2) else size
        handler.send_response(206)
        handler.send_header("Content-Range", f"bytes {start}-{end - 1}/{size}")
    else:
        handler.send_response(200)
    handler.send_header("Accept-Ranges", "bytes")
    handler.send_header("Content-Length", str(end - start))
    handler.end_headers()
    return start, end
