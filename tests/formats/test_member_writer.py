"""The one per-record gzip member / zstd frame writer (formats.member_writer) at its boundaries:
empty and huge records, zstd, flush/close/error paths, ordered output under parallel
compression, and zlib members equal to what the writers produced before it existed."""

from __future__ import annotations

import io
import random
import threading
import zlib

import pytest
from crawlmill.formats.codecs import member_writer
from crawlmill.formats.codecs.member_writer import (
    MemberCompressor,
    MemberWriter,
    ReusedMember,
    default_threads,
)


def _pool_threads(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(name)]


def _split_gzip(data: bytes) -> list[bytes]:
    """Every gzip member of ``data``, decompressed one by one (each must stand alone)."""
    out = []
    while data:
        d = zlib.decompressobj(31)
        out.append(d.decompress(data))
        assert d.eof, "a member is cut"
        data = d.unused_data
    return out


class _Lazy:
    """A record serialised on the pool thread (what a WARC PendingRecord is)."""

    def __init__(self, data: bytes, fail: bool = False) -> None:
        self.data = data
        self.fail = fail

    def serialize(self) -> bytes:
        if self.fail:
            raise RuntimeError(f"cannot serialise a record of {len(self.data)} bytes")
        return self.data

    @property
    def size(self) -> int:
        return len(self.data)


def _records(seed: int, count: int) -> list[bytes]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.1:
            out.append(b"")
        elif kind < 0.5:
            out.append(rng.randbytes(rng.randint(1, 300)))
        else:
            out.append(b"word%d " % rng.randint(0, 99) * rng.randint(1, 3000))
    return out


def _write(records, threads, compression="gzip", level=None, backend="zlib", **kw):
    out = io.BytesIO()
    writer = MemberWriter(out, compression, level, backend=backend, threads=threads, **kw)
    landed: list[tuple[int, int, int]] = []
    for i, record in enumerate(records):
        job = _Lazy(record) if i % 3 == 0 and isinstance(record, bytes) else record
        writer.submit(job, lambda offset, length, i=i: landed.append((i, offset, length)))
    writer.close()
    return out.getvalue(), landed, writer


@pytest.mark.parametrize("level", [1, 6, 9])
def test_zlib_members_are_the_bytes_the_writers_wrote_before(level):
    """``zlib.compress(wbits=31)`` (the WARC writer) and a ``compressobj`` (the ARC writer's
    old ``_gzip_member``), whole or fed in pieces, give the same member: today's bytes."""
    data = b"".join(_records(level, 40))
    member = MemberCompressor("gzip", level, backend="zlib").compress(data)
    obj = zlib.compressobj(level, zlib.DEFLATED, 31)
    assert member == obj.compress(data) + obj.flush()
    obj = zlib.compressobj(level, zlib.DEFLATED, 31)
    pieces = [obj.compress(data[i : i + 7000]) for i in range(0, len(data), 7000)]
    assert member == b"".join(pieces) + obj.flush()
    assert member == zlib.compress(data, level, wbits=31)


@pytest.mark.parametrize("compression", ["gzip", "zstd", "none"])
@pytest.mark.parametrize("threads", [0, 2])
def test_an_empty_record_is_a_member_of_its_own(compression, threads):
    if compression == "zstd":
        pytest.importorskip("zstandard")
    data, landed, writer = _write([b"", b"abc", b""], threads, compression)
    assert [i for i, _, _ in landed] == [0, 1, 2]
    offsets = [(o, n) for _, o, n in landed]
    assert offsets[0][0] == 0 and sum(n for _, n in offsets) == len(data) == writer.position
    members = [data[o : o + n] for o, n in offsets]
    if compression == "gzip":
        assert [zlib.decompress(m, 31) for m in members] == [b"", b"abc", b""]
        assert all(n > 0 for _, n in offsets)  # an empty record is still a valid member
    elif compression == "zstd":
        import zstandard

        dctx = zstandard.ZstdDecompressor()
        assert [dctx.decompress(m) for m in members] == [b"", b"abc", b""]
    else:
        assert members == [b"", b"abc", b""]
    assert writer.records == 3 and writer.raw_bytes == 3


def test_a_record_larger_than_a_batch_goes_alone_and_lands_whole():
    big = b"0123456789abcdef" * (256 * 1024)  # 4 MiB, four times the batch size below
    records = [b"small one", big, b"small two", big[::-1]]
    data, landed, writer = _write(records, threads=2, batch_bytes=1 << 20, depth=2)
    assert [i for i, _, _ in landed] == [0, 1, 2, 3]
    for (i, offset, length), record in zip(landed, records, strict=True):
        assert zlib.decompress(data[offset : offset + length], 31) == record, i
    assert writer.raw_bytes == sum(map(len, records))


def test_zstd_frames_stand_alone_and_carry_their_size():
    zstandard = pytest.importorskip("zstandard")
    records = _records(7, 50)
    data, landed, _ = _write(records, threads=3, compression="zstd", level=5)
    dctx = zstandard.ZstdDecompressor()
    for (_, offset, length), record in zip(landed, records, strict=True):
        frame = data[offset : offset + length]
        assert zstandard.frame_content_size(frame) == len(record)
        assert dctx.decompress(frame) == record


def test_many_small_records_on_many_threads_come_out_in_order_and_equal_a_one_thread_run():
    records = _records(1, 3000)
    plain, plain_landed, _ = _write(records, threads=0)
    for threads, items in ((4, 5), (2, 64), (3, 1)):
        data, landed, writer = _write(records, threads=threads, batch_items=items)
        assert data == plain
        assert landed == plain_landed
        assert writer.records == len(records) and writer.position == len(data)
    assert _split_gzip(plain) == records
    assert not _pool_threads("crawlmill-member-writer")  # close() stopped the pool


def test_position_is_exact_after_flush_and_append_writes_after_submitted_records():
    out = io.BytesIO()
    writer = MemberWriter(out, "gzip", backend="zlib", threads=2)
    for record in _records(3, 20):
        writer.submit(record)
    writer.flush()
    assert writer.position == len(out.getvalue()) and writer.records == 20
    offset, length = writer.append(b"now")
    assert offset == writer.position - length == len(out.getvalue()) - length
    assert zlib.decompress(out.getvalue()[offset:], 31) == b"now"
    writer.close()
    writer.close()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        writer.submit(b"late")


def test_an_error_in_a_worker_surfaces_and_nothing_after_it_is_written():
    out = io.BytesIO()
    writer = MemberWriter(out, "gzip", backend="zlib", threads=2, batch_items=4)
    good = [b"record %d" % i for i in range(10)]
    landed: list[int] = []
    with pytest.raises(RuntimeError, match="cannot serialise a record of 4 bytes"):
        for i, record in enumerate(good):
            writer.submit(_Lazy(record), lambda o, n, i=i: landed.append(i))
        writer.submit(_Lazy(b"oops", fail=True))
        for record in good:
            writer.submit(record)
        writer.flush()
    assert landed == list(range(len(landed))) and len(landed) <= len(good)
    assert _split_gzip(out.getvalue()) == good[: len(landed)]
    with pytest.raises(RuntimeError, match="cannot serialise"):
        writer.submit(b"after")  # every later call raises the same error
    with pytest.raises(RuntimeError, match="cannot serialise"):
        writer.close()
    assert not _pool_threads("crawlmill-member-writer")


def test_an_error_without_a_pool_is_raised_by_submit():
    writer = MemberWriter(io.BytesIO(), "gzip", threads=0)
    with pytest.raises(RuntimeError, match="cannot serialise"):
        writer.submit(_Lazy(b"x", fail=True))
    assert writer.records == 0 and writer.position == 0


def test_a_reused_member_is_copied_only_when_it_holds_exactly_the_record():
    record = b"the record\n" * 100
    foreign = zlib.compress(record, 9, wbits=31)  # not what level 6 would write
    wrong = zlib.compress(record + b"!", 9, wbits=31)
    data, landed, writer = _write(
        [ReusedMember(foreign, record), ReusedMember(wrong, record)], threads=2
    )
    first, second = (data[o : o + n] for _, o, n in landed)
    assert first == foreign
    assert second == zlib.compress(record, 6, wbits=31)
    assert writer.reused == 1
    none, _, plain = _write([ReusedMember(foreign, record)], threads=0, compression="none")
    assert none == record and plain.reused == 0  # only gzip output copies members


def test_memory_in_flight_is_bounded_by_depth_batches():
    """A slow stream: submit waits for the oldest batches once ``depth`` are in flight, so
    what the writer holds does not grow with the input."""
    seen: list[int] = []

    class Probe(io.BytesIO):
        def write(self, data):  # called on a pool thread, in order
            seen.append(writer._batches.in_flight)
            return super().write(data)

    out = Probe()
    writer = MemberWriter(out, "none", threads=2, batch_bytes=1000, batch_items=1000, depth=3)
    for _ in range(500):
        writer.submit(b"x" * 400)
    writer.close()
    assert len(out.getvalue()) == 500 * 400
    assert max(seen) <= 3


def test_backends_levels_and_threads():
    assert default_threads() >= 1
    with pytest.raises(ValueError, match="unknown compression"):
        MemberCompressor("brotli")
    with pytest.raises(ValueError, match="level must be between 1 and 9"):
        MemberCompressor("gzip", 10)
    if member_writer.isal_available():
        comp = MemberCompressor("gzip", 6, backend="auto")
        assert comp.backend == "isal"
        assert zlib.decompress(comp.compress(b"abc" * 1000), 31) == b"abc" * 1000
    assert MemberCompressor("none").compress(b"raw") == b"raw"
    assert MemberWriter(io.BytesIO(), threads=None).threads == default_threads()
    assert MemberWriter(io.BytesIO(), threads=0).threads == 0


def test_with_a_pool_pool_threads_write_the_stream_and_callbacks_stay_on_the_caller():
    writers: set[str] = set()
    callbacks: set[str] = set()

    class Recording(io.BytesIO):
        def write(self, data):
            writers.add(threading.current_thread().name)
            return super().write(data)

    out = Recording()
    writer = MemberWriter(out, "gzip", backend="zlib", threads=2, batch_items=3)
    records = _records(9, 100)
    for record in records:
        writer.submit(record, lambda o, n: callbacks.add(threading.current_thread().name))
    writer.flush()
    assert writer.position == len(out.getvalue())  # flush: every member is in the stream
    writer.close()
    assert _split_gzip(out.getvalue()) == records
    assert writers and all(name.startswith("crawlmill-member-writer") for name in writers)
    assert threading.current_thread().name not in writers
    assert callbacks == {threading.current_thread().name}
