"""A per-record gzip WARC whose first member is no record (a gzip bomb of zeros, compressed
garbage) is still detected as WARC and its good records after that member are written; the
first member is damage. Before, detection saw only the first member's bytes: "format not
detected", exit 2, nothing run and every record lost."""

from __future__ import annotations

import gzip
import random
import zlib

from tests.helpers import convert, warc_record


def _deflate(data: bytes) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def _run(tmp_path, first: bytes):
    src = tmp_path / "crawl.warc.gz"
    src.write_bytes(first + b"".join(gzip.compress(warc_record(i), mtime=0) for i in range(200)))
    result = convert(src, "warc", tmp_path / "out", workers=1, progress=None)
    return result.exit_code, result.report


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
