"""Issue 20 item 1: a verbatim copy takes a record's compressed member from the reader's memory.

The gzip member reader lends the compressed bytes of the members whose pieces it hands out
(:class:`HeldMembers`); a record carries the lender in ``Provenance.held``; the WARC writer's
member copy (:class:`MemberSource`) takes the bytes from it and reads the input file only when
the reader has moved past them. The output is the same either way (the input, byte for byte).
"""

from __future__ import annotations

import gzip
import io
import os
import pickle
import random

import pytest
from crawlmill.core import InputFile, WriteContext, open_reader
from crawlmill.core.record import OffsetSpace, Provenance
from crawlmill.formats.codecs.compression import HeldMembers, MemberSource, Piece, iter_pieces
from crawlmill.plugins.readers.warc import WarcReader
from crawlmill.plugins.writers.warc import WarcWriter


def warc_record(i: int, size: int, rng: random.Random) -> bytes:
    block = rng.randbytes(size)  # incompressible: members as large as the records
    head = (
        b"WARC/1.1\r\nWARC-Type: resource\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n"
        b"WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/%d\r\n"
        b"Content-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n" % (i, i, len(block))
    )
    return head + block + b"\r\n\r\n"


def make_warc_gz(path, count: int, size: int) -> list[tuple[int, int]]:
    """A gzip-per-record WARC; returns each member's (offset, length)."""
    rng = random.Random(count * 7919 + size)
    spans, data = [], b""
    for i in range(count):
        member = gzip.compress(warc_record(i, size + rng.randrange(size), rng), mtime=0)
        spans.append((len(data), len(member)))
        data += member
    path.write_bytes(data)
    return spans


def write_task(out, records, relpath: str) -> tuple[WarcWriter, list[str]]:
    """Write ``records`` (any iterable: a reader's stream too) as one task into ``out``."""
    created: list[str] = []

    def create(rel: str):
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        created.append(rel)
        return open(out / rel, "wb")

    ctx = WriteContext(
        input=InputFile(path=str(out.parent / relpath), relpath=relpath),
        input_count=1,
        create=create,
        quarantine=lambda record, reason: pytest.fail(f"quarantined: {reason}"),
    )
    writer = WarcWriter(WarcWriter.Options(gzip_backend="zlib"))
    writer.open(ctx)
    for record in records:
        writer.write(record)
    writer.close()
    return writer, created


def test_held_members_lend_only_held_spans_until_released():
    held = HeldMembers()
    assert held.get(0, 1) is None  # nothing held yet
    buf = bytearray(b"....0123456789")
    held.hold(buf, 100, 110)  # buf[0] is file byte 100; bytes up to 110 are held
    assert held.get(102, 3) == b"..0"
    assert held.get(100, 10) == b"....012345"
    assert held.get(99, 2) is None and held.get(105, 6) is None  # not all held
    assert held.get(104, 0) is None
    copy = held.get(104, 2)
    buf[4:6] = b"xy"  # the copy is the caller's: writing the buffer does not change it
    assert copy == b"01"
    held.release()
    assert held.get(104, 2) is None


def test_a_record_sent_to_another_process_carries_no_buffer():
    held = HeldMembers()
    held.hold(b"x" * 1000, 0, 1000)
    source = Provenance("in.warc.gz", 0, 10, "warc", OffsetSpace.MEMBER, held)
    back = pickle.loads(pickle.dumps(source))
    assert back.held is None and back == source  # held is neither pickled nor compared
    assert len(pickle.dumps(source)) < 300
    assert "held" not in repr(source)


@pytest.mark.parametrize("threads", [0, 1, 2])
def test_the_member_reader_lends_the_members_it_hands_out(tmp_path, threads):
    path = tmp_path / "in.warc.gz"
    spans = make_warc_gz(path, 120, 6000)  # about 1 MiB: several chunks
    data = path.read_bytes()
    held = HeldMembers()
    seen = []
    with open(path, "rb") as fh:
        for item in iter_pieces(fh, "gzip", threads=threads, batch=True, held=held):
            assert isinstance(item, Piece)
            members = item.members or [(0, len(item.data), item.offset, item.length)]
            for _, _, offset, length in members:
                # every member whose bytes are out is lent, exactly as the file has it
                assert held.get(offset, length) == data[offset : offset + length]
                seen.append((offset, length))
    assert seen == spans
    assert held.get(0, spans[0][1]) is None  # released at the end


def test_a_streamed_copy_reads_no_member_back_from_the_input(tmp_path):
    src = tmp_path / "in.warc.gz"
    make_warc_gz(src, 300, 4000)  # over 1 MiB: the reader inflates in a worker thread
    assert os.path.getsize(src) > 1 << 20
    with open_reader(src, WarcReader) as records:
        writer, created = write_task(tmp_path / "out", records, "in.warc.gz")
    assert (tmp_path / "out" / created[0]).read_bytes() == src.read_bytes()
    sources = writer._sources
    assert (sources.from_memory, sources.from_file) == (300, 0)


def test_records_kept_past_the_readers_buffer_are_read_back_from_the_file(tmp_path):
    src = tmp_path / "in.warc.gz"
    make_warc_gz(src, 300, 4000)
    with open_reader(src, WarcReader) as it:
        records = list(it)  # the reader has moved past (and released) every buffer
    assert all(r.source.held is not None for r in records)
    writer, created = write_task(tmp_path / "out", records, "in.warc.gz")
    assert (tmp_path / "out" / created[0]).read_bytes() == src.read_bytes()
    assert (writer._sources.from_memory, writer._sources.from_file) == (0, 300)


def test_member_source_prefers_the_lender_and_falls_back_to_the_file(tmp_path):
    path = tmp_path / "in.bin"
    path.write_bytes(b"0123456789")
    held = HeldMembers()
    held.hold(b"ABCDEFGHIJ", 0, 10)  # a lender that differs from the file shows the source
    source = MemberSource()
    try:
        assert source.read(str(path), 2, 3, held) == b"CDE"
        held.release()
        assert source.read(str(path), 2, 3, held) == b"234"
        assert source.read(str(path), 2, 3) == b"234"
        assert (source.from_memory, source.from_file) == (1, 2)
    finally:
        source.close()


def test_codecs_that_cannot_lend_ignore_the_lender():
    zstandard = pytest.importorskip("zstandard")
    frames = [zstandard.ZstdCompressor().compress(b"record %d" % i) for i in range(3)]
    held = HeldMembers()
    items = list(iter_pieces(io.BytesIO(b"".join(frames)), "zstd", held=held))
    assert [i.data for i in items] == [b"record 0", b"record 1", b"record 2"]
    assert held.get(0, len(frames[0])) is None  # zstd frames are not lent
    items = list(iter_pieces(io.BytesIO(b"plain bytes"), None, held=held))
    assert [i.data for i in items] == [b"plain bytes"]


ARC = "kris-sigur-jwat/jwat-arc/src/test/resources/IAH-20080430204825-00000-blackbook.arc.gz"


@pytest.mark.parametrize("stream", [True, False])
def test_an_arc_copy_takes_its_members_from_the_readers_memory(samples, tmp_path, stream):
    from crawlmill.plugins.readers.arc import ArcReader
    from crawlmill.plugins.writers.arc import ArcWriter

    src = samples / ARC
    ctx = WriteContext(
        InputFile(str(src), src.name), 1, lambda rel: (tmp_path / rel).open("wb"),
        lambda r, why: pytest.fail(f"quarantined: {why}"),
    )  # fmt: skip
    writer = ArcWriter(ArcWriter.Options())
    writer.open(ctx)
    with open_reader(src, ArcReader) as it:
        records = it if stream else list(it)
        for record in records:
            writer.write(record)
    writer.close()
    assert (tmp_path / src.name).read_bytes() == src.read_bytes()  # every member copied
    (entry,) = ctx.notes["files"]
    taken = (writer._sources.from_memory, writer._sources.from_file)
    # streamed: from the reader's buffer; listed first: read back from the file
    assert taken == ((entry["copied_members"], 0) if stream else (0, entry["copied_members"]))
