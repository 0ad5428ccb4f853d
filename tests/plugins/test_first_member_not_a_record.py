"""A per-record gzip WARC whose first member is no record (a gzip bomb of zeros, compressed
garbage) is still detected as WARC and its good records after that member are written; the
first member is damage. Before, detection saw only the first member's bytes: "format not
detected", exit 2, nothing run and every record lost."""

from __future__ import annotations

import gzip
import json
import random
import zlib

from crawlmill.core.cli import main

from tests.helpers import warc_record


def _deflate(data: bytes) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def _run(tmp_path, first: bytes):
    src = tmp_path / "crawl.warc.gz"
    src.write_bytes(first + b"".join(gzip.compress(warc_record(i), mtime=0) for i in range(200)))
    out = tmp_path / "out"
    code = main(["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"])
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    return code, report


def test_compressed_garbage_first(tmp_path):
    garbage = random.Random(25).randbytes(300_000)  # 300 KB compressed: past the 64 KiB scan
    code, report = _run(tmp_path, _deflate(garbage))
    assert code == 3  # damage reported, the rest converted
    assert report["written"] == 200
    assert report["damages"]


def test_a_bomb_first(tmp_path):
    bomb = zlib.compressobj(9, zlib.DEFLATED, 31)
    member = b"".join(bomb.compress(bytes(1 << 20)) for _ in range(16)) + bomb.flush()
    code, report = _run(tmp_path, member)
    assert code == 3
    assert report["written"] == 200
