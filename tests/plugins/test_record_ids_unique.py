"""Record ids are unique per record (WARC 1.1 section 5.2: "The WARC-Record-ID field ... is a
globally unique identifier ... assigned by the creating software"), also where several records
share a source offset (the entries of one BLOCK-compressed SequenceFile block)."""

from __future__ import annotations

import io
from pathlib import Path

from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.sequencefile import SequenceFileWriter

from tests.formats.hadoop.seqdata import text
from tests.helpers import assert_unique_ids_under, assert_unique_record_ids, record_ids

H = "org.apache.hadoop.io."


def _block_file(path: Path, keys: list[str], codec: str | None = None) -> None:
    buf = io.BytesIO()
    w = SequenceFileWriter(buf, H + "Text", H + "Text", compression="block", block_size=1 << 20)
    for i, key in enumerate(keys):
        w.append(text(key.encode()), text(f"value {i}".encode()))
    w.close()
    path.write_bytes(buf.getvalue())


def test_block_entries_get_one_id_each(tmp_path):
    src = tmp_path / "in.seq"
    _block_file(src, ["name"] * 50 + [f"http://example.com/{i}" for i in range(5)] * 2)
    out = tmp_path / "out"
    assert main(["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"]) in (0, 1)
    (warc,) = [p for p in out.rglob("*.warc.gz")]
    ids = record_ids(warc)
    assert ids is not None and len(ids) == 1 + 60
    assert assert_unique_record_ids(warc) == 61


def test_the_check_finds_a_repeated_id(tmp_path):
    from tests.helpers import warc_record

    info = (
        b"WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Date: 2020-01-01T00:00:00Z\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-00000000000a>\r\n"
        b"Content-Type: application/warc-fields\r\nContent-Length: 26\r\n\r\n"
        b"software: crawlmill/0.1.0\n\r\n\r\n"
    )
    path = tmp_path / "sub" / "x.warc"
    path.parent.mkdir()
    path.write_bytes(info + warc_record(1) + warc_record(1))
    try:
        assert_unique_ids_under(tmp_path)
    except AssertionError as exc:
        assert "share WARC-Record-ID" in str(exc)
    else:
        raise AssertionError("a repeated id was not found")
    path.write_bytes(info + warc_record(1) + warc_record(2))
    assert assert_unique_ids_under(tmp_path) == 1
