"""bzip2-compressed ARC (``.arc.bz2``) is read as ``.warc.bz2`` is (issue 25): a real ARC
sample compressed with Python's ``bz2`` (one stream for the file, or one stream per record)
gives the records the uncompressed file gives, and warcio reads the same number of them."""

from __future__ import annotations

import bz2
from pathlib import Path

import pytest
from crawlmill.core import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.core.record import OffsetSpace

from tests.conftest import need

_SAMPLE = "kris-sigur-jwat/jwat-arc/src/test/resources/1-1-20110922131213-00000-svc-VirtualBox.arc"


def _records(path: Path) -> list[tuple]:
    with open_reader(path) as got:
        return [(r.kind, r.url, r.date, r.http_head, r.payload) for r in got]


def _spans(path: Path) -> list[tuple[int, int]]:
    with open_reader(path) as got:
        return [(r.source.offset, r.source.length) for r in got]


def _warcio_count(path: Path) -> int:
    need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as fh:
        return sum(1 for _ in ArchiveIterator(fh, arc2warc=True))


@pytest.mark.parametrize("streams", ["single", "multi"])
def test_a_bz2_arc_reads_as_the_plain_arc(tmp_path, samples, streams, capsys):
    plain = tmp_path / "plain" / "sample.arc"
    plain.parent.mkdir()
    raw = (samples / _SAMPLE).read_bytes()
    plain.write_bytes(raw)
    expected = _records(plain)
    assert len(expected) == _warcio_count(plain) > 3
    src = tmp_path / "in" / "sample.arc.bz2"
    src.parent.mkdir()
    if streams == "single":
        src.write_bytes(bz2.compress(raw, 9))
    else:  # one stream per record, as a per-record .arc.gz
        spans = _spans(plain)
        assert spans[0][0] == 0 and sum(n for _, n in spans) <= len(raw)
        cuts = [o for o, _ in spans] + [len(raw)]
        src.write_bytes(
            b"".join(bz2.compress(raw[a:b]) for a, b in zip(cuts, cuts[1:], strict=False))
        )
    assert _records(src) == expected
    # one stream: no per-record offset (as a whole-file .arc.gz); per record: the stream's
    space = None if streams == "single" else OffsetSpace.MEMBER
    with open_reader(src) as got:
        assert {r.source.space for r in got} == {space}
    out = tmp_path / "out"
    code = main(["convert", str(src.parent), "--to", "warc", "-o", str(out), "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 0, err
    n = len(expected)  # the writer adds its warcinfo
    assert f"read {n} + added 1 by the writer = written {n + 1} + dropped 0 + quarantined 0" in err
