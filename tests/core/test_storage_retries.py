"""A transient error of a store is retried with backoff by the store's library, with the
settings core/storage.py gives it: an S3 endpoint (a local stand-in) that answers the first
GetObject with ``503 SlowDown`` still gives the bytes, on the second request.

Issue 22: "retries with backoff on transient errors"."""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from crawlmill.core import storage

from tests.conftest import need

DATA = bytes(range(256)) * 64
SLOW_DOWN = (
    b"<?xml version='1.0' encoding='UTF-8'?><Error><Code>SlowDown</Code>"
    b"<Message>Please reduce your request rate.</Message></Error>"
)


class _FlakyS3(BaseHTTPRequestHandler):
    """One object at any key: HEAD answers its size; the first GET is a 503 SlowDown."""

    def log_message(self, *args) -> None:
        pass

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(DATA)))
        self.send_header("ETag", '"e"')
        self.end_headers()

    def do_GET(self) -> None:
        self.server.gets += 1
        if self.server.gets == 1:
            self.send_response(503)
            self.send_header("Content-Length", str(len(SLOW_DOWN)))
            self.end_headers()
            self.wfile.write(SLOW_DOWN)
            return
        m = re.fullmatch(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
        start, end = (int(m.group(1)), int(m.group(2)) + 1) if m else (0, len(DATA))
        self.send_response(206 if m else 200)
        self.send_header("Content-Length", str(end - start))
        self.send_header("ETag", '"e"')
        self.end_headers()
        self.wfile.write(DATA[start:end])


def test_a_slow_down_answer_is_retried(monkeypatch):
    s3fs = need("s3fs")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FlakyS3)
    server.gets = 0
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{server.server_address[1]}")
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
        s3fs.S3FileSystem.clear_instance_cache()
        fs, _ = storage.filesystem("s3://flaky/object")
        retries = fs.config_kwargs["retries"]
        assert retries == {"max_attempts": storage.RETRIES, "mode": "adaptive"}
        with storage.open_range("s3://flaky/object") as fh:
            fh.seek(1000)
            assert fh.read(300) == DATA[1000:1300]
        assert server.gets == 2  # the 503, then the retry that succeeded
    finally:
        server.shutdown()
        s3fs.S3FileSystem.clear_instance_cache()


def test_an_unknown_scheme_is_a_clear_error():
    with pytest.raises(storage.StorageError, match="nosuchstore"):
        storage.filesystem("nosuchstore://bucket/key")
