"""WARC/0.18 (ClueWeb09's framing) round trips through every WARC writer/reader pair, gzip per
record and plain, with warcio and FastWARC as the independent readers (issue 19).

The dataset page: "The WARC formatting used conforms to the WARC ISO 28500 final draft (as of
June 18th, 2008), version 018." Its files count the record's closing blank line in
``Content-Length`` (shared/specs/collections.md 1.2, verified on the real samples), so warcio and
FastWARC (quirks mode) read every ClueWeb09 payload with a trailing ``\\n\\n``: a file we write in
0.18 must read that way in them (exactly like the real files), and exactly as the source in ours.
"""

from __future__ import annotations

import gzip
import io
import uuid
from pathlib import Path

import pytest
from crawlmill.core import open_reader
from crawlmill.core.record import RecordKind

from tests import helpers

DOCS = 12


def _bodies() -> list[bytes]:
    """Payloads that end every way a separator could be confused with: CRLF, LF, blank lines."""
    ends = [b"", b"\n", b"\r\n", b"\n\n", b"\r\n\r\n", b"x"]
    return [
        f"<html><body>doc {n}\r\nline two</body></html>".encode() + ends[n % len(ends)]
        for n in range(DOCS)
    ]


def clueweb09_file(path: Path, bodies: list[bytes], *, per_record_gzip: bool = False) -> None:
    """A ClueWeb09-style file built by hand: LF headers, bare warcinfo id, TREC ids, and
    ``Content-Length`` counting the trailing ``\\n\\n`` (no separator after the declared bytes)."""
    info = str(uuid.uuid5(uuid.NAMESPACE_URL, str(path)))
    fields = b"software: Nutch 1.0-dev (modified for clueweb09)\nformat: WARC file version 0.18\n"
    records = [
        b"WARC/0.18\nWARC-Type: warcinfo\nWARC-Date: 2009-03-01T12:48:17-0400\n"
        b"WARC-Record-ID: " + info.encode() + b"\nContent-Type: application/warc-fields\n"
        b"Content-Length: %d\n\n" % (len(fields) + 2) + fields + b"\n\n"
    ]
    for n, body in enumerate(bodies):
        block = b"HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Length: %d\n\n" % len(body)
        block += body + b"\n\n"
        records.append(
            b"WARC/0.18\nWARC-Type: response\nWARC-Date: 2009-03-01T08:43:19-0800\n"
            b"WARC-Record-ID: <urn:uuid:%s>\n"
            % str(uuid.uuid5(uuid.NAMESPACE_URL, str(n))).encode()
            + b"WARC-TREC-ID: clueweb09-en0040-54-%05d\n" % n
            + b"WARC-Target-URI: http://example.org/%d\n" % n
            + b"Content-Type: application/http;msgtype=response\n"
            + b"Content-Length: %d\n\n" % len(block)
            + block
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    if per_record_gzip:
        path.write_bytes(b"".join(gzip.compress(r, mtime=0) for r in records))
    else:
        path.write_bytes(b"".join(records))


def ours(path: Path) -> list[bytes]:
    """Response payloads as crawlmill's warc reader gives them (no damage allowed)."""
    with open_reader(str(path), "warc") as records:
        out = [r.payload for r in records if r.kind == RecordKind.RESPONSE]
    assert not records.damages, records.damages
    return out


def warcio_payloads(path: Path) -> list[bytes]:
    from warcio.archiveiterator import ArchiveIterator

    data = path.read_bytes()
    with io.BytesIO(data) as fh:
        return [
            r.content_stream().read()
            for r in ArchiveIterator(fh, check_digests=False)
            if r.rec_type == "response"
        ]


def fastwarc_payloads(path: Path) -> list[bytes]:
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    with open(path, "rb") as fh:
        return [
            r.reader.read()
            for r in ArchiveIterator(fh, quirks_mode=True, parse_http=True)
            if r.record_type == WarcRecordType.response
        ]


def convert(src: Path, out: Path, *options: str) -> Path:
    assert (
        helpers.convert(src, "warc", out, option=options, workers=1, progress=None).exit_code == 0
    )
    files = sorted(p for p in out.rglob("*.warc*") if ".crawlmill" not in p.parts)
    assert len(files) == 1, files
    return files[0]


@pytest.mark.parametrize("per_record_gzip", [False, True])
def test_a_clueweb09_file_reads_exactly(tmp_path, per_record_gzip):
    bodies = _bodies()
    suffix = ".warc.gz" if per_record_gzip else ".warc"
    src = tmp_path / "in" / "en0040" / f"54{suffix}"
    clueweb09_file(src, bodies, per_record_gzip=per_record_gzip)
    assert ours(src) == bodies


@pytest.mark.parametrize("compression", ["gzip", "none", "zstd"])
def test_clueweb09_to_11_to_018_to_11_changes_no_payload(tmp_path, compression):
    # the chain: ClueWeb09 -> 1.1 -> clueweb09 layout 0.18 -> 1.1
    bodies = _bodies()
    src = tmp_path / "in" / "en0040" / "54.warc"
    clueweb09_file(src, bodies)
    one = convert(src.parent.parent, tmp_path / "a", "version=1.1")
    assert ours(one) == bodies
    old = convert(
        tmp_path / "a",
        tmp_path / "b",
        "version=0.18",
        "layout=clueweb09",
        f"compression={compression}",
    )
    assert ours(old) == bodies
    back = convert(tmp_path / "b", tmp_path / "c", "version=1.1")
    assert ours(back) == bodies


@pytest.mark.oracle
@pytest.mark.parametrize("compression", ["gzip", "none"])
@pytest.mark.parametrize("version", ["1.1", "1.0", "0.18"])
def test_every_version_reads_back_in_warcio_fastwarc_and_ours(tmp_path, need, version, compression):
    need("warcio")
    need("fastwarc")
    bodies = _bodies()
    src = tmp_path / "in" / "en0040" / "54.warc"
    clueweb09_file(src, bodies)
    # FastWARC reads the source itself the ClueWeb09 way: the counted "\n\n" in the payload
    # (warcio stops at an uncompressed ClueWeb09 file's second record: no separator follows)
    clueweb = [b + b"\n\n" for b in bodies]
    assert fastwarc_payloads(src) == clueweb
    out = convert(
        src.parent.parent, tmp_path / "out", f"version={version}", f"compression={compression}"
    )
    want = clueweb if version == "0.18" else bodies
    if version != "0.18" or compression == "gzip":
        assert warcio_payloads(out) == want
    assert fastwarc_payloads(out) == want
    assert ours(out) == bodies
