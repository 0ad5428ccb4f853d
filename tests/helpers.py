"""Small builders shared by several test files (fixtures live in tests/conftest.py)."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import pytest

#: the fake plugin distributions the core tests load through entry points.
FAKE_DIR = Path(__file__).resolve().parent / "core" / "fake_plugins"


def gz(data: bytes, level: int = 6) -> bytes:
    """``data`` as one gzip member."""
    c = zlib.compressobj(level, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def put_fake_plugins_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the fake plugins importable here and in subprocesses, with no plugin env filters."""
    monkeypatch.syspath_prepend(str(FAKE_DIR))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(FAKE_DIR), os.environ.get("PYTHONPATH", "")])
    )
    monkeypatch.delenv("CRAWLMILL_LOAD_PLUGINS", raising=False)
    monkeypatch.delenv("CRAWLMILL_DISABLE_PLUGINS", raising=False)


def warc_record(i: int) -> bytes:
    """An uncompressed WARC/1.0 resource record numbered ``i`` (text ``record number i``)."""
    body = f"record number {i}\n".encode()
    head = (
        "WARC/1.0\r\nWARC-Type: resource\r\n"
        f"WARC-Target-URI: http://example.com/{i}\r\n"
        "WARC-Date: 2020-01-01T00:00:00Z\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{i:012d}>\r\n"
        f"Content-Type: text/plain\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    return head + body + b"\r\n\r\n"
