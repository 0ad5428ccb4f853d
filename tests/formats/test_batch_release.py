"""The read path lets each inflated batch go before the next one is made.

A batch of whole gzip members inflates to a few MiB; while the previous batch is still held
(by the inflate generator's locals, a finished job, the stream's buffer, the framer's or the
reader's last record), the next one cannot reuse its memory and lands in fresh pages: about
16,000 page faults (0.03-0.08 s of system time) per 160 MiB read. Each holder is checked by
counting the references to the previous batch's bytes at the moment the next one is made.
"""

from __future__ import annotations

import io
import random
import sys

from crawlmill.core import open_reader
from crawlmill.formats.codecs import gzip_parallel as gp
from crawlmill.formats.codecs.pieces import Piece
from crawlmill.formats.codecs.stream import MemberStream
from crawlmill.formats.warc.framer import WarcFramer
from crawlmill.plugins.readers.warc import WarcReader

from tests.helpers import gz


def _warc_gz(records: int, size: int) -> bytes:
    """``records`` resource records of ``size`` bytes that barely compress (a few MiB of gzip:
    several batches), one member each."""
    rng = random.Random(5)
    out = []
    for i in range(records):
        block = b"%06d " % i + rng.randbytes(size)
        head = (
            b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Date: 2024-01-01T00:00:00Z\r\n"
            b"WARC-Target-URI: http://example.com/%d\r\nContent-Length: %d\r\n\r\n"
            % (i, len(block))
        )
        out.append(gz(head + block + b"\r\n\r\n", level=1))
    return b"".join(out)


class _Watching:
    """Wraps the batch inflate; at each call, counts the references left to the bytes the
    previous call returned (only this wrapper's own: 2 with getrefcount's argument)."""

    def __init__(self, fn):
        self.fn, self.prev, self.held = fn, None, []

    def __call__(self, *args):
        if self.prev is not None:
            self.held.append(sys.getrefcount(self.prev) - 2)
        got = self.fn(*args)
        if isinstance(got, tuple):
            self.prev = got[0]
        return got


def test_inflate_generator_keeps_no_batch(monkeypatch):
    """iter_gzip_parallel (inline, batches) holds no reference to a handed-out batch while it
    inflates the next (a finished job kept its value; the loop kept ``data`` and ``result``)."""
    watch = _Watching(gp._inflate_batch)
    monkeypatch.setattr(gp, "_inflate_batch", watch)
    data = _warc_gz(400, 20000)
    total = 0
    for piece in gp.iter_gzip_parallel(io.BytesIO(data), 1 << 40, 1 << 30, 0, True):
        total += len(piece.data)
        del piece  # the consumer lets it go
    assert len(watch.held) > 3
    assert watch.held == [0] * len(watch.held)
    assert total > 8_000_000


def test_stream_drops_a_read_buffer_before_the_next_piece():
    """MemberStream (held damage, the WARC framer's) lets a fully read buffer go before it
    asks for the next piece."""
    seen = []

    def items():
        prev = None
        for i in range(5):
            if prev is not None:
                seen.append(sys.getrefcount(prev) - 2)
            prev = bytes([65 + i]) * 1000
            yield Piece(prev, None, member=0)

    s = MemberStream(items())
    while s.more():
        s.pos = len(s.buf)  # read everything
    assert seen == [0, 0, 0, 0]
    assert s.base == 5000


def test_framer_keeps_no_record_of_the_previous_batch(monkeypatch):
    """The framer's loop and the stream let the last record of a batch go before the next
    batch is made (the consumer holding nothing)."""
    watch = _Watching(gp._inflate_batch)
    monkeypatch.setattr(gp, "_inflate_batch", watch)
    data = _warc_gz(400, 20000)
    n = 0
    for item in WarcFramer(gp.iter_gzip_parallel(io.BytesIO(data), 1 << 40, 1 << 30, 0, True)):
        n += 1
        del item
    assert n == 400
    assert len(watch.held) > 3
    assert watch.held == [0] * len(watch.held)


def test_reader_lets_each_batch_go(tmp_path, monkeypatch):
    """Through open_reader, as a user reads a file (``inflate_threads: 0``): while a batch is
    inflated, nothing holds the previous one, and every record is read."""
    watch = _Watching(gp._inflate_batch)
    monkeypatch.setattr(gp, "_inflate_batch", watch)
    path = tmp_path / "big.warc.gz"
    path.write_bytes(_warc_gz(400, 20000))
    n = 0
    with open_reader(path, WarcReader, inflate_threads=0) as records:
        for record in records:
            n += 1
            assert record.payload.startswith(b"%06d " % (n - 1))
    assert n == 400 and not records.damages
    assert len(watch.held) > 3
    assert watch.held == [0] * len(watch.held)
