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


#: files the suite-wide record-id check reads (bigger ones are skipped to keep the suite fast).
ID_CHECK_MAX_BYTES = 64 << 20


def record_ids(path: Path) -> list[str] | None:
    """The ``WARC-Record-ID`` of every record of ``path`` in file order (FastWARC reads it, an
    independent reader), or ``None`` when FastWARC is missing or the file is not one
    crawlmill built: its first record is not crawlmill's warcinfo (``software: crawlmill/``),
    so its ids are the input's (a WARC -> WARC copy) or the test's own (an input). Reading
    stops at bytes FastWARC refuses (a damaged input a test wrote)."""
    try:
        from fastwarc.warc import ArchiveIterator, WarcRecordType
    except ImportError:
        return None
    ids: list[str] = []
    with open(path, "rb") as fh:
        try:
            for n, rec in enumerate(ArchiveIterator(fh, parse_http=False)):
                if n == 0:
                    if rec.record_type != WarcRecordType.warcinfo:
                        return None
                    if b"software: crawlmill/" not in rec.reader.read(4096):
                        return None
                ids.append(rec.headers.get("WARC-Record-ID") or "")
        except OSError:  # a test's own damaged file (or one a test cut): the ids read so far
            pass
    return ids or None


def assert_unique_record_ids(path: Path) -> int:
    """Fail when a WARC file crawlmill built holds two records with the same (or no)
    ``WARC-Record-ID`` (WARC 1.1 section 5.2: "globally unique"); returns the records checked."""
    ids = record_ids(path)
    if not ids:
        return 0
    seen: dict[str, int] = {}
    for n, rid in enumerate(ids):
        assert rid, f"{path}: record {n} has no WARC-Record-ID"
        assert rid not in seen, f"{path}: records {seen[rid]} and {n} share WARC-Record-ID {rid}"
        seen[rid] = n
    return len(ids)


WARC_SUFFIXES = (".warc", ".warc.gz")


def assert_unique_ids_under(root: Path) -> int:
    """:func:`assert_unique_record_ids` on every ``*.warc``/``*.warc.gz`` file below ``root``
    (at most :data:`ID_CHECK_MAX_BYTES` each); returns the files checked."""
    checked = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            if not name.endswith(WARC_SUFFIXES):
                continue
            path = Path(dirpath, name)
            try:
                if path.stat().st_size > ID_CHECK_MAX_BYTES:
                    continue
            except OSError:
                continue
            if assert_unique_record_ids(path):
                checked += 1
    return checked


def run_convert(src: Path, out: Path, *args: str) -> int:
    """``crawlmill convert SRC -o OUT ARGS...`` run in this process, with no progress line;
    its exit code."""
    from crawlmill.core.cli import main

    return main(["convert", str(src), "-o", str(out), "--progress", "never", *args])
