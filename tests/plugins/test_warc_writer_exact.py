"""A verbatim copy whose parts are the very objects the reader made of its input member
(``HeldMembers.exact_parts``) copies the member without checking its CRC-32 again; a record a
filter rebuilt with other bytes of the same length (its provenance and extras kept, not marked
modified) is still checked, and compressed anew (plugins/writers/warc.py, ``_exact_parts``)."""

from __future__ import annotations

import dataclasses
import gzip
import io
from pathlib import Path

from crawlmill.core import open_reader
from crawlmill.formats.codecs import member_writer
from crawlmill.plugins.readers.warc import WarcReader

from tests.plugins.test_warc_writer import run_writer


def _input(path: Path, n: int = 3) -> list[bytes]:
    """``n`` responses written by warcio, one gzip member each; returns the payloads."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    bodies = [(b"<html><p>page %d</p>" % i) * (40 + i) for i in range(n)]
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for i, body in enumerate(bodies):
            head = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
            writer.write_record(
                writer.create_warc_record(
                    f"http://example.org/{i}",
                    "response",
                    payload=io.BytesIO(body),
                    http_headers=head,
                )  # fmt: skip
            )
    return bodies


def _crc_checks(monkeypatch) -> list[bytes]:
    """The parts whose CRC-32 the writer's threads check (``member_vouch.holds``)."""
    seen: list[bytes] = []
    real = member_writer.holds

    def holds(vouch, data):
        seen.append(b"".join(data) if type(data) is tuple else data)
        return real(vouch, data)

    monkeypatch.setattr(member_writer, "holds", holds)
    return seen


def test_the_readers_own_parts_are_copied_without_a_second_crc(tmp_path, monkeypatch):
    src = tmp_path / "in.warc.gz"
    _input(src)
    checked = _crc_checks(monkeypatch)
    out = tmp_path / "out"
    with open_reader(src, WarcReader) as records:
        notes, (path,) = run_writer(out, records, relpath="in.warc.gz")
    assert (out / path).read_bytes() == src.read_bytes()  # every member copied as it was
    assert notes["files"][0]["copied_members"] == 3
    assert checked == []  # the reader's word covered the very parts written


def test_a_record_rebuilt_with_other_bytes_is_checked_and_compressed_anew(tmp_path, monkeypatch):
    src = tmp_path / "in.warc.gz"
    bodies = _input(src)
    flipped = bodies[1].replace(b"page", b"PAGE")
    assert len(flipped) == len(bodies[1]) and flipped != bodies[1]
    checked = _crc_checks(monkeypatch)

    def swapped(records):
        for record in records:
            if record.payload == bodies[1]:
                # a filter that builds the record anew: same provenance and extras, same
                # lengths, not marked modified (dataclasses.replace bypasses evolve)
                record = dataclasses.replace(record, payload=bytes(flipped))
                assert not record.modified
            yield record

    out = tmp_path / "out"
    with open_reader(src, WarcReader) as records:
        notes, (path,) = run_writer(out, swapped(records), relpath="in.warc.gz")
    assert notes["files"][0]["copied_members"] == 2  # the changed record's member is not
    assert len(checked) == 1 and flipped in checked[0]  # checked, found other bytes
    data = gzip.decompress((out / path).read_bytes())
    assert flipped in data and bodies[1] not in data
    assert bodies[0] in data and bodies[2] in data
