"""The ``arc`` writer's gzip members come from the shared member writer: compressed on a thread
per core, in record order, with today's zlib bytes, and read back by warcio."""

from __future__ import annotations

import threading
import zlib
from pathlib import Path

import pytest
from crawlmill.core import InputFile, WriteContext, open_reader
from crawlmill.formats.codecs import member_writer
from crawlmill.formats.codecs.member_writer import MemberWriter
from crawlmill.plugins.readers.arc import ArcReader
from crawlmill.plugins.writers.arc import ArcWriter

from tests.helpers import convert

ARC = "kris-sigur-jwat/jwat-arc/src/test/resources/IAH-20080430204825-00000-blackbook.arc.gz"
WARC = "kris-sigur-jwat/jwat-warc/src/test/resources/IAH-20080430204825-00000-blackbook.warc.gz"


def _convert(src: Path, out: Path, *options: str) -> Path:
    code = convert(src, "arc", out, option=options).exit_code
    assert code in (0, 3)  # 3: records ARC cannot hold went to the quarantine
    (arc,) = sorted(out.glob("*.arc.gz"))
    return arc


def _members(data: bytes) -> list[tuple[bytes, bytes]]:
    """Each gzip member of ``data`` and what it decompresses to."""
    out = []
    while data:
        d = zlib.decompressobj(31)
        raw = d.decompress(data)
        assert d.eof
        size = len(data) - len(d.unused_data)
        out.append((data[:size], raw))
        data = d.unused_data
    return out


def _today(raw: bytes, level: int) -> bytes:
    """The member the ARC writer wrote for ``raw`` before the shared member writer."""
    comp = zlib.compressobj(level, zlib.DEFLATED, 31)
    return comp.compress(raw) + comp.flush()


@pytest.mark.parametrize("sample", [ARC, WARC], ids=["arc", "warc"])
@pytest.mark.parametrize("level", [1, 6])
def test_every_member_is_the_zlib_member_written_before(samples, tmp_path, sample, level):
    arc = _convert(
        samples / sample, tmp_path, "reuse_members=false", f"gzip_level={level}"
    ).read_bytes()
    members = _members(arc)
    assert len(members) > 10
    for member, raw in members:
        assert member == _today(raw, level)


def test_isal_backend_gives_the_same_records_and_warcio_reads_them(samples, tmp_path, need):
    archive_iterator = need("warcio.archiveiterator").ArchiveIterator
    zlib_arc = _convert(samples / ARC, tmp_path / "zlib", "reuse_members=false")
    auto_arc = _convert(
        samples / ARC, tmp_path / "auto", "reuse_members=false", "gzip_backend=auto"
    )
    assert [raw for _, raw in _members(auto_arc.read_bytes())] == [
        raw for _, raw in _members(zlib_arc.read_bytes())
    ]
    with open(auto_arc, "rb") as fh:
        records = [
            (r.rec_headers.get_header("WARC-Target-URI"), r.content_stream().read())
            for r in archive_iterator(fh, arc2warc=True)
        ]
    assert len(records) == len(_members(zlib_arc.read_bytes()))
    assert records[1][0] and records[1][1]


def test_members_are_compressed_on_pool_threads_in_record_order(samples, tmp_path, monkeypatch):
    workers: set[str] = set()
    compress_batch = MemberWriter._compress_batch

    def spy(self, jobs):
        workers.add(threading.current_thread().name)
        return compress_batch(self, jobs)

    monkeypatch.setattr(MemberWriter, "_compress_batch", spy)
    monkeypatch.setattr(member_writer, "default_threads", lambda: 3)
    threaded = _convert(samples / ARC, tmp_path / "threads", "reuse_members=false").read_bytes()
    assert workers and all(name.startswith("crawlmill-arc-writer") for name in workers)
    assert not [t for t in threading.enumerate() if t.name.startswith("crawlmill-arc-writer")]

    monkeypatch.setattr(member_writer, "default_threads", lambda: 0)
    workers.clear()
    plain = _convert(samples / ARC, tmp_path / "plain", "reuse_members=false").read_bytes()
    assert workers == {threading.current_thread().name}
    assert threaded == plain


def test_copied_members_are_counted_once_written(samples, tmp_path):
    src = samples / ARC
    ctx = WriteContext(
        InputFile(str(src), src.name),
        1,
        lambda rel: (tmp_path / rel).open("wb"),
        lambda r, why: None,
    )
    writer = ArcWriter(ArcWriter.Options())
    writer.open(ctx)
    for record in open_reader(src, ArcReader):
        writer.write(record)
    writer.close()
    assert (tmp_path / src.name).read_bytes() == src.read_bytes()  # every member copied
    (entry,) = ctx.notes["files"]
    assert entry["copied_members"] == len(_members(src.read_bytes()))  # the filedesc too
    assert entry["records"] == entry["copied_members"] - 1


class _FullDisk:
    """An output stream that fails once ``limit`` bytes were written."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self.closed = False

    def write(self, data) -> int:
        if self.size + len(data) > self.limit:
            raise OSError(28, "No space left on device")
        self.size += len(data)
        return len(data)

    def close(self) -> None:
        self.closed = True


def test_an_output_error_surfaces_and_leaves_no_thread(samples):
    src = samples / ARC
    disk = _FullDisk(100_000)
    ctx = WriteContext(InputFile(str(src), src.name), 1, lambda rel: disk, lambda r, why: None)
    writer = ArcWriter(ArcWriter.Options(reuse_members=False))
    writer.open(ctx)
    with pytest.raises(OSError, match="No space left"):
        try:
            for record in open_reader(src, ArcReader):
                writer.write(record)
        finally:
            writer.close()
    assert disk.closed
    assert not [t for t in threading.enumerate() if t.name.startswith("crawlmill-arc-writer")]
