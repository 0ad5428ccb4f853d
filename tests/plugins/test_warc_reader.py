"""The ``warc`` reader on every sample WARC (counts from independent oracles), byte identity,
damage and resync, strict mode, limits, zstd, and the record mapping.

Count oracles, per sample file (see ``WARCIO``, ``FASTWARC_QUIRKS``, ``SOURCES``,
``VERSION_LINES`` below): warcio where warcio reads the file without error; FastWARC in quirks
mode where warcio fails (whole-file gzip, ClueWeb09 framing); the sample folder's SOURCES.md
where both fail or disagree with it; a plain count of version lines at line starts for the
hand-edited LF-only jwat fixtures that no tool reads whole.
"""

from __future__ import annotations

import gzip
import io
import json
import random
import re
import struct
import tracemalloc
import zlib
from pathlib import Path

import pytest
from crawlmill.core import Limits, RecordKind, open_reader
from crawlmill.formats.codecs.compression import ZSTD_WARC_DICT_MAGIC, read_head
from crawlmill.plugins.readers import warc as warc_plugin
from crawlmill.plugins.readers.warc import WarcReader, parse_warc_date

from tests.helpers import gz

WARCIO = [
    "chatnoir-eu-chatnoir-resiliparse/tests/data/block-sized-records.warc.gz",
    "chatnoir-eu-chatnoir-resiliparse/tests/data/clueweb-quirk.warc.gz",
    "chatnoir-eu-chatnoir-resiliparse/tests/data/warcfile.warc.gz",
    "iipc-jwarc/test-resources/org/netpreserve/jwarc/cc.warc.gz",
    "iipc-jwarc/test-resources/org/netpreserve/jwarc/gzip_extra_sl.warc.gz",
    "iipc-warc-specifications/primers/web-archive-formats/hello-world.warc.gz",
    "iipc-warc-specifications/specifications/warc-deduplication/samples/20130729-heritrix-revisit-with-http-headers.warc.gz",
    "iipc-warc-specifications/specifications/warc-deduplication/samples/20141124-heritrix-server-not-modified.warc.gz",
    "iipc-warc-specifications/specifications/warc-deduplication/samples/20141129-heritrix-original.warc.gz",
    "iipc-warc-specifications/specifications/warc-deduplication/samples/20141129-heritrix-revisit-with-http-headers-and-new-warc-headers.warc.gz",
    "kris-sigur-jwat/jwat-warc/src/test/resources/IAH-20080430204825-00000-blackbook.warc.gz",
    "ukwa-webarchive-discovery/warc-indexer/src/test/resources/IAH-20080430204825-00000-blackbook-truncated.warc.gz",
    "ukwa-webarchive-discovery/warc-indexer/src/test/resources/IAH-urls-wget.warc.gz",
    "ukwa-webarchive-discovery/warc-indexer/src/test/resources/compression/transfer_compression_brotli.warc.gz",
    "ukwa-webarchive-discovery/warc-indexer/src/test/resources/compression/transfer_compression_gzip.warc.gz",
    "ukwa-webarchive-discovery/warc-indexer/src/test/resources/compression/transfer_compression_none.warc.gz",
    "ukwa-webarchive-discovery/warc-indexer/src/test/resources/gov.uk-revisit-warcs/BL-20140325122341434-00000-32090~opera~8443.warc.gz",
    "ukwa-webarchive-discovery/warc-indexer/src/test/resources/ip-host-testcase.warc.gz",
    "ukwa-webarchive-discovery/warc-indexer/src/test/resources/truncated_datetime.warc",
    "webrecorder-pywb/sample_archive/warcs/dupes.warc.gz",
    "webrecorder-pywb/sample_archive/warcs/example-extra.warc",
    "webrecorder-pywb/sample_archive/warcs/example-url-agnostic-orig.warc.gz",
    "webrecorder-pywb/sample_archive/warcs/example-url-agnostic-revisit.warc.gz",
    "webrecorder-pywb/sample_archive/warcs/example-wget-1-14.warc.gz",
    "webrecorder-pywb/sample_archive/warcs/example-wpull.warc.gz",
    "webrecorder-pywb/sample_archive/warcs/httpbin-resource.warc.gz",
    "webrecorder-pywb/sample_archive/warcs/iana.warc.gz",
    "webrecorder-pywb/sample_archive/warcs/missing-status-text.warc",
    "webrecorder-warcio/test/data/example-digest.warc",
    "webrecorder-warcio/test/data/example-iana.org-chunked.warc",
    "webrecorder-warcio/test/data/example-resource.warc.gz",
    "webrecorder-warcio/test/data/example-space-in-target-uri.warc.gz",
    "webrecorder-warcio/test/data/example-wget-bad-target-uri.warc.gz",
    "webrecorder-warcio/test/data/example.warc",
    "webrecorder-warcio/test/data/example.warc.gz",
    "webrecorder-warcio/test/data/post-test.warc.gz",
]
#: warcio reads these but delivers a damaged record as good; ours report it as damage, so
#: records + damaged ranges == warcio's count.
WARCIO_WITH_DAMAGE = [
    "webrecorder-warcio/test/data/example-trunc.warc",
    "chatnoir-eu-chatnoir-resiliparse/tests/data/clipped.warc.gz",
]
FASTWARC_QUIRKS = [
    "sqs-freequery/test/dumps/ClueWeb09_English_Sample",
    "sqs-freequery/test/dumps/ClueWeb09_Chinese_Sample",
    "castorini-anserini/sample_docs/cw09/collection1/segment1.warc.gz",
    "castorini-anserini/sample_docs/cw12/collection1/segment1.warc.gz",
    "castorini-anserini/sample_docs/commoncrawl/wet/collection1/segment1.warc.wet.gz",
    "webrecorder-warcio/test/data/example-bad-non-chunked.warc.gz",
    "webrecorder-warcio/test/data/example-bad.warc.gz.bad",
    "webrecorder-warcio/test/data/example-wrong-chunks.warc.gz",
    # LZ4 (FastWARC's own format; warcio cannot read it)
    "chatnoir-eu-chatnoir-resiliparse/tests/data/warcfile.warc.lz4",
    "chatnoir-eu-chatnoir-resiliparse/tests/data/block-sized-records.warc.lz4",
]
#: counts stated in the folder's SOURCES.md ("warcinfo + response")
SOURCES = {"castorini-anserini/sample_docs/commoncrawl/warc/collection1/segment1.warc.gz": 2}
VERSION_LINES = [
    "castorini-anserini/sample_docs/commoncrawlnewsen/collection1/segment1.warc.gz"
] + sorted(
    f"kris-sigur-jwat/jwat-warc/src/test/resources/{name}"
    for name in [
        "invalid-warcfile-digest-fields.warc",
        "invalid-warcfile-duplicate-fields.warc",
        "invalid-warcfile-fields-invalidformat.warc",
        "invalid-warcfile-segment-number-response.warc",
        "valid-warcfile-contenttype-continuation.warc",
        "valid-warcfile-fields-continuation.warc",
        "valid-warcfile-non-warc-headers.warc",
        "valid-warcfile-upper-lower-case.warc",
        "valid-warcfile-utf8.warc",
    ]
)
ALL = WARCIO + WARCIO_WITH_DAMAGE + FASTWARC_QUIRKS + list(SOURCES) + VERSION_LINES


class Run:
    """One read of a file: records, damage, warnings and the order they came in."""

    def __init__(self, path, options=None, limits=None):
        self.events = []
        with open_reader(
            path, WarcReader, limits=limits, on_damage=self.events.append, **(options or {})
        ) as it:
            self.records = []
            for record in it:
                self.records.append(record)
                self.events.append(record)
        self.damage = it.damages
        #: ``(offset, "code: message")``: the code first, as the WARC framer words a quirk
        self.warnings = [(w.offset, f"{w.code}: {w.message}") for w in it.warnings]


#: damage reasons of a length repair: the repaired record is delivered too.
REPAIRS = ("cr-counted-length", "no-content-length")


def record_bytes(r) -> bytes:
    w = r.extras["warc"]
    return w["raw_header"] + (r.http_head or b"") + r.payload + w["separator"]


def cl_block(r) -> bytes:
    """The bytes Content-Length counts (what warcio and warc3 return)."""
    w = r.extras["warc"]
    return (
        (r.http_head or b"") + r.payload + (w["separator"] if w["cl_includes_separator"] else b"")
    )


def inflate(data: bytes) -> bytes:
    """The decompressed bytes of gzip members or LZ4 frames (as the standard tools give them)."""
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    if data[:4] == b"\x04\x22\x4d\x18":
        import lz4.frame

        out = []
        while data:
            dec = lz4.frame.LZ4FrameDecompressor()
            out.append(dec.decompress(data))
            data = dec.unused_data or b""
        return b"".join(out)
    return data


def decompressed(path: Path) -> bytes:
    return inflate(path.read_bytes())


def warcio_records(need, path: Path, parse_http: bool = False):
    """``(type, bytes)`` per record: the whole block, or with ``parse_http`` the payload after
    warcio's own HTTP head parsing (``None`` where warcio parsed no HTTP head)."""
    warcio = need("warcio.archiveiterator")
    with open(path, "rb") as fh:
        out = []
        for r in warcio.ArchiveIterator(fh, no_record_parse=not parse_http):
            data = r.raw_stream.read()
            out.append((r.rec_type, data if not parse_http or r.http_headers else None))
        return out


def fastwarc_count(need, path: Path) -> int:
    fastwarc = need("fastwarc.warc")
    with open(path, "rb") as fh:
        return sum(1 for _ in fastwarc.ArchiveIterator(fh, quirks_mode=True, parse_http=False))


@pytest.fixture(scope="module")
def runs(samples):
    cache = {}

    def get(rel):
        if rel not in cache:
            cache[rel] = Run(samples / rel)
        return cache[rel]

    return get


# -- counts against independent oracles ------------------------------------------------------


@pytest.mark.parametrize("rel", WARCIO)
def test_count_and_payloads_match_warcio(rel, samples, need, runs):
    theirs = warcio_records(need, samples / rel)
    ours = runs(rel)
    assert not ours.damage
    assert len(ours.records) == len(theirs)
    assert [r.extras["warc"].get("type", r.kind.value) for r in ours.records] == [
        t for t, _ in theirs
    ]
    assert [cl_block(r) for r in ours.records] == [p for _, p in theirs]
    parsed = warcio_records(need, samples / rel, parse_http=True)
    for r, (_, payload) in zip(ours.records, parsed, strict=True):
        if payload is not None and r.http_head is not None:
            sep = (
                r.extras["warc"]["separator"] if r.extras["warc"]["cl_includes_separator"] else b""
            )
            assert r.payload + sep == payload


@pytest.mark.parametrize("rel", WARCIO_WITH_DAMAGE)
def test_damaged_samples_count_against_warcio(rel, samples, need, runs):
    theirs = warcio_records(need, samples / rel)
    ours = runs(rel)
    whole = [r for r in ours.records if not r.extras["warc"].get("truncated")]
    assert ours.damage and len(whole) + len(ours.damage) == len(theirs)
    assert all(d.path == str(samples / rel) for d in ours.damage)


@pytest.mark.parametrize("rel", FASTWARC_QUIRKS)
def test_count_matches_fastwarc_quirks_mode(rel, samples, need, runs):
    ours = runs(rel)
    assert len(ours.records) == fastwarc_count(need, samples / rel)
    assert not ours.damage or rel.endswith("example-wrong-chunks.warc.gz")


def test_every_warc_file_in_the_samples_is_covered(samples):
    """A new WARC sample must join one of the oracle lists above, not be left unread (the
    real-world-2026-11 folder is covered file by file by test_real_world_warc.py)."""
    found = {
        str(p.relative_to(samples))
        for p in samples.rglob("*")
        if p.is_file()
        and (".warc" in p.name or p.name.startswith("ClueWeb09_"))
        and not str(p.relative_to(samples)).startswith("real-world-2026-11/")
    }
    assert found == set(ALL)


@pytest.mark.parametrize("rel", sorted(SOURCES))
def test_count_matches_sources_md(rel, runs):
    ours = runs(rel)
    assert len(ours.records) == SOURCES[rel] and not ours.damage


@pytest.mark.parametrize("rel", VERSION_LINES)
def test_hand_edited_lf_fixtures_give_one_record_per_version_line(rel, samples, runs):
    expected = len(re.findall(rb"(?mi)^warc/\d+\.\d+\r?$", decompressed(samples / rel)))
    ours = runs(rel)
    assert len(ours.records) == expected
    # a Content-Length that counts the CRs git stripped is repaired: that changes the record's
    # bytes when written, so it is damage (with the original bytes), and the record delivered
    assert all(d.reason.startswith(REPAIRS) for d in ours.damage)
    assert ours.warnings or ours.damage  # LF-only, repaired lengths: never silent


# -- byte identity -------------------------------------------------------------------------


#: clipped.warc.gz ends in a truncated gzip member: there is no whole decompressed stream.
@pytest.mark.parametrize("rel", [rel for rel in ALL if not rel.endswith("clipped.warc.gz")])
def test_records_reproduce_the_input_bytes(rel, samples, runs):
    path = samples / rel
    ours = runs(rel)
    whole = path.read_bytes()
    plain = whole == decompressed(path)
    if plain or not ours.damage:
        events = [e for e in ours.events if hasattr(e, "kind") or not e.reason.startswith(REPAIRS)]
        stream = b"".join(record_bytes(e) if hasattr(e, "kind") else e.data for e in events)
        assert stream == decompressed(path)
    else:  # damage of a compressed file holds the compressed bytes at its compressed offset
        stream = decompressed(path)
        at = 0
        for r in ours.records:
            at = stream.index(record_bytes(r), at) + len(record_bytes(r))
        for d in ours.damage:
            assert d.data == whole[d.offset : d.offset + d.length]
    for r in ours.records:
        if r.extras["warc"]["member"]:
            raw = path.read_bytes()[r.source.offset : r.source.offset + r.source.length]
            assert inflate(raw) == record_bytes(r)


# -- ClueWeb09 ------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["English", "Chinese"])
def test_clueweb09_samples_against_warc3_clueweb09(lang, samples, need, runs):
    warc3 = need("warc3_wet_clueweb09")
    rel = f"sqs-freequery/test/dumps/ClueWeb09_{lang}_Sample"
    with open(samples / rel, "rb") as fh:
        theirs = [
            (r.header.get("warc-trec-id"), r.payload.read()) for r in warc3.WARCFile(fileobj=fh)
        ]
    ours = runs(rel)
    assert len(ours.records) == 101 == len(theirs)
    assert [r.doc_id for r in ours.records] == [t for t, _ in theirs]
    assert [cl_block(r) for r in ours.records] == [p for _, p in theirs]
    ids = re.findall(rb"WARC-TREC-ID: (\S+)", (samples / rel).read_bytes())
    assert [r.doc_id.encode() for r in ours.records[1:]] == ids
    info = ours.records[0]
    # day 119 of 2009 (Java's yyyy-MM-DD: day of the year) is April 29, in the month it names
    assert info.kind is RecordKind.WARCINFO and info.date.date().isoformat() == "2009-04-29"
    assert info.date_raw.startswith("2009-04-119T12:4")
    messages = [m for _, m in ours.warnings]
    assert any(m.startswith("date-derived") for m in messages)
    assert any(m.startswith("cl-includes-separator") for m in messages)
    assert any(m.startswith("bare-record-id") for m in messages)
    for r in ours.records[1:]:
        assert r.http_head.startswith(b"HTTP/") and r.http_head.endswith(b"\n\n")
        assert (
            r.extras["warc"]["separator"] == b"\n\n" and r.extras["warc"]["cl_includes_separator"]
        )


def test_clueweb_quirk_file_pages_are_whole(samples, runs):
    ours = runs("chatnoir-eu-chatnoir-resiliparse/tests/data/clueweb-quirk.warc.gz")
    assert [r.kind for r in ours.records] == [RecordKind.WARCINFO] + [RecordKind.RESPONSE] * 29
    for r in ours.records[1:]:
        assert r.doc_id.startswith("clueweb09-ja0016-50-")
        # LF-only HTTP head inside a CRLF WARC record: split at its own first blank line
        assert r.http_head.endswith(b"\n\n") and b"\r\n" not in r.http_head
        assert r.content_type == "text/html" and r.payload.startswith(b"<")
        # the whole page is there: at least as long as the (stale) HTTP Content-Length says
        assert len(r.payload) >= int(r.http_header("Content-Length"))


# -- mapping -------------------------------------------------------------------------------


def test_revisit_profiles(samples, runs):
    base = "iipc-warc-specifications/specifications/warc-deduplication/samples/"
    (with_headers,) = runs(base + "20130729-heritrix-revisit-with-http-headers.warc.gz").records
    assert with_headers.kind is RecordKind.REVISIT and with_headers.http_status == 200
    assert with_headers.payload == b""
    (not_modified,) = runs(base + "20141124-heritrix-server-not-modified.warc.gz").records
    assert not_modified.kind is RecordKind.REVISIT and not_modified.http_head is None
    assert not_modified.payload == b""


def test_continuation_record(samples, runs):
    (r,) = runs(
        "kris-sigur-jwat/jwat-warc/src/test/resources/valid-warcfile-fields-continuation.warc"
    ).records
    assert r.kind is RecordKind.CONTINUATION
    assert dict(r.extras["warc"]["headers"])[b"WARC-Segment-Number"] == b"42"
    assert r.url == "http://www.archive.org/"


def test_wget_bracketed_uri_is_stripped_and_reported(samples, runs):
    run = runs("webrecorder-warcio/test/data/example-wget-bad-target-uri.warc.gz")
    bracketed = [r for r in run.records if "target_uri_raw" in r.extras["warc"]]
    assert bracketed
    for r in bracketed:
        assert r.extras["warc"]["target_uri_raw"] == b"<" + r.url_bytes + b">"
    assert any(m.startswith("bracketed-uri") for _, m in run.warnings)


def make(
    uri: bytes = b"http://example.com/",
    body: bytes = b"hello",
    *,
    wtype=b"response",
    date=b"2020-01-02T03:04:05Z",
    cl=None,
    extra=b"",
) -> bytes:
    if wtype in (b"response", b"revisit"):
        block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=ISO-8859-1\r\n\r\n" + body
        ctype = b"application/http; msgtype=response"
    else:
        block, ctype = body, b"text/plain"
    return (
        b"WARC/1.1\r\nWARC-Type: "
        + wtype
        + b"\r\nWARC-Target-URI: "
        + uri
        + b"\r\nWARC-Date: "
        + date
        + b"\r\nWARC-Record-ID: <urn:uuid:12345678-1234-5678-1234-567812345678>\r\nWARC-IP-Address: 10.1.2.3\r\n"
        + extra
        + b"Content-Type: "
        + ctype
        + b"\r\nContent-Length: "
        + str(len(block) if cl is None else cl).encode()
        + b"\r\n\r\n"
        + block
        + b"\r\n\r\n"
    )


def test_record_fields(tmp_path):
    raw_uri = b"http://example.com/a b/\xe9t\xe9"
    path = tmp_path / "x.warc"
    path.write_bytes(make(raw_uri) + make(b"urn:x", b"plain words \xc3\xa9", wtype=b"conversion"))
    run = Run(path)
    r, conv = run.records
    assert r.url_bytes == raw_uri and " " in r.url
    assert r.date == parse_warc_date("2020-01-02T03:04:05Z") and r.date.tzinfo is not None
    assert r.date_raw == "2020-01-02T03:04:05Z"
    assert (r.content_type, r.charset, r.ip) == ("text/html", "iso-8859-1", "10.1.2.3")
    assert r.http_head.endswith(b"\r\n\r\n") and r.payload == b"hello"
    assert r.extras["warc"]["version"] == "1.1" and r.extras["warc"]["line_ending"] == b"\r\n"
    assert (
        r.source.offset == 0 and r.source.length == len(make(raw_uri)) and r.source.format == "warc"
    )
    assert not r.modified
    assert (
        conv.kind is RecordKind.CONVERSION
        and conv.text == "plain words é"
        and conv.http_head is None
    )
    assert not run.warnings and not run.damage


@pytest.mark.parametrize(
    ("raw", "ok"),
    [
        ("2008-04-30T20:48:25Z", True),
        ("2014-03-04T19:23:21.000Z", True),
        ("2019-08-15T01:02", True),
        ("2008-10-294T05:21:46-0700", False),
        ("2009-03-65T08:43:19-0800", False),
        ("blue monday", False),
        ("2019", True),
        ("2008-04-30t20:48:25z", True),
    ],
)
def test_parse_warc_date(raw, ok):
    value = parse_warc_date(raw)
    assert (value is not None) == ok
    if ok:
        assert value.utcoffset().total_seconds() == 0


# -- damage ----------------------------------------------------------------------------------


def _members(n=6):
    raws = [make(b"http://example.com/%d" % i, b"body %d " % i * 50) for i in range(n)]
    return raws, [gz(r) for r in raws]


def _urls(run):
    return [r.url for r in run.records]


def test_truncated_last_member(tmp_path):
    raws, blobs = _members()
    path = tmp_path / "t.warc.gz"
    path.write_bytes(b"".join(blobs[:-1]) + blobs[-1][:-40])
    run = Run(path)
    # the partial last record is delivered, marked truncated, and reported as damage with
    # its compressed bytes (compressed offset, compressed length)
    assert _urls(run) == [f"http://example.com/{i}" for i in range(6)]
    assert [bool(r.extras["warc"].get("truncated")) for r in run.records] == [False] * 5 + [True]
    assert raws[-1].startswith(record_bytes(run.records[-1]))
    (d,) = run.damage
    assert d.path == str(path) and d.offset == sum(map(len, blobs[:-1]))
    assert d.length == len(blobs[-1]) - 40 and d.data == blobs[-1][:-40]


def test_garbage_between_members(tmp_path):
    raws, blobs = _members()
    path = tmp_path / "g.warc.gz"
    garbage = b"\x00garbage\xff" * 3
    path.write_bytes(b"".join(blobs[:3]) + garbage + b"".join(blobs[3:]))
    run = Run(path)
    assert _urls(run) == [f"http://example.com/{i}" for i in range(6)]
    (d,) = run.damage
    assert d.offset == sum(map(len, blobs[:3])) and d.length == len(garbage) and d.data == garbage


@pytest.mark.parametrize("compress", [True, False])
def test_wrong_content_length(tmp_path, compress):
    raws, _ = _members()
    raws[2] = make(b"http://example.com/2", b"body 2 " * 50, cl=40)
    data = b"".join(gz(r) for r in raws) if compress else b"".join(raws)
    path = tmp_path / ("w.warc.gz" if compress else "w.warc")
    path.write_bytes(data)
    run = Run(path)
    assert _urls(run) == [f"http://example.com/{i}" for i in (0, 1, 3, 4, 5)]
    (d,) = run.damage
    expected = sum(len(gz(r)) if compress else len(r) for r in raws[:2])
    assert d.offset == expected and "Content-Length" in d.reason
    # one offset space: compressed offset, length and bytes for a compressed file
    assert d.data == (gz(raws[2]) if compress else raws[2]) and d.length == len(d.data)


def test_corrupt_member_in_the_middle(tmp_path):
    raws, blobs = _members()
    bad = bytearray(blobs[3])
    bad[len(bad) // 2 : len(bad) // 2 + 8] = b"\xa5" * 8
    path = tmp_path / "c.warc.gz"
    path.write_bytes(b"".join(blobs[:3]) + bytes(bad) + b"".join(blobs[4:]))
    run = Run(path)
    assert _urls(run) == [f"http://example.com/{i}" for i in (0, 1, 2, 4, 5)]
    assert run.damage and all(d.offset == sum(map(len, blobs[:3])) for d in run.damage)


# -- strict mode and limits -----------------------------------------------------------------


def test_strict_mode_turns_quirks_into_damage(samples):
    rel = samples / "sqs-freequery/test/dumps/ClueWeb09_English_Sample"
    run = Run(rel, {"strict": True})
    assert run.records == [] and len(run.damage) == 101
    assert all(d.reason.startswith("strict mode:") and d.data for d in run.damage)


def test_strict_mode_keeps_clean_records(tmp_path):
    _, blobs = _members()
    path = tmp_path / "ok.warc.gz"
    path.write_bytes(b"".join(blobs))
    assert len(Run(path, {"strict": True}).records) == 6


def test_record_larger_than_limit_is_damage(tmp_path):
    raws, _ = _members(3)
    raws.insert(1, make(b"http://big/", b"x" * 300_000))
    path = tmp_path / "big.warc.gz"
    path.write_bytes(b"".join(gz(r) for r in raws))
    run = Run(path, limits=Limits(max_record_bytes=100_000))
    assert _urls(run) == [f"http://example.com/{i}" for i in range(3)]
    assert len(run.damage) >= 1 and "max_record_bytes" in run.damage[0].reason
    assert all(len(d.data) <= 100_000 for d in run.damage)


def test_gzip_bomb_stays_bounded(tmp_path):
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb = (
        c.compress(b"WARC/1.0\r\nContent-Length: 999999999\r\n\r\n")
        + c.compress(b"\0" * (256 << 20))
        + c.flush()
    )
    raws, blobs = _members(2)
    path = tmp_path / "bomb.warc.gz"
    path.write_bytes(blobs[0] + bomb + blobs[1])
    tracemalloc.start()
    run = Run(path, limits=Limits(max_record_bytes=1 << 20, max_decompressed_bytes=16 << 20))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert _urls(run) == ["http://example.com/0", "http://example.com/1"]
    assert run.damage and run.damage[0].offset == len(blobs[0])
    assert peak < 64 << 20


# -- zstd ----------------------------------------------------------------------------------


@pytest.mark.parametrize("with_dict", [False, True])
def test_zstd_reads_like_gzip(tmp_path, with_dict):
    zstandard = pytest.importorskip("zstandard")
    raws = [make(b"http://example.com/%d" % i, b"<p>page %d</p>" % i * (i + 3)) for i in range(40)]
    head = b""
    cctx = zstandard.ZstdCompressor()
    if with_dict:
        zdict = zstandard.train_dictionary(4096, raws * 5)
        cctx = zstandard.ZstdCompressor(dict_data=zdict)
        head = ZSTD_WARC_DICT_MAGIC + struct.pack("<I", len(zdict.as_bytes())) + zdict.as_bytes()
    frames = [cctx.compress(r) for r in raws]
    zpath, gpath = tmp_path / "a.warc.zst", tmp_path / "a.warc.gz"
    zpath.write_bytes(head + b"".join(frames))
    gpath.write_bytes(b"".join(gz(r) for r in raws))
    z, g = Run(zpath), Run(gpath)
    assert not z.damage and len(z.records) == 40
    assert [(r.url, r.payload, r.http_head) for r in z.records] == [
        (r.url, r.payload, r.http_head) for r in g.records
    ]
    assert z.records[1].source.offset == len(head) + len(frames[0])
    assert read_head(str(zpath)).startswith(b"WARC/1.1")


def test_lz4_reads_like_gzip_and_resyncs_after_damage(tmp_path):
    lz4_frame = pytest.importorskip("lz4.frame")
    raws = [make(b"http://example.com/%d" % i, b"<p>page %d</p>" % i * (i + 3)) for i in range(12)]
    frames = [lz4_frame.compress(r) for r in raws]
    good, gpath = tmp_path / "a.warc.lz4", tmp_path / "a.warc.gz"
    good.write_bytes(b"".join(frames))
    gpath.write_bytes(b"".join(gz(r) for r in raws))
    z, g = Run(good), Run(gpath)
    assert not z.damage and len(z.records) == 12
    assert [(r.url, r.payload, r.http_head) for r in z.records] == [
        (r.url, r.payload, r.http_head) for r in g.records
    ]
    assert z.records[3].source.offset == sum(map(len, frames[:3]))
    # garbage between frames 4 and 5, frame 8 cut short (its end overwritten by garbage)
    junk = b"\x00not lz4 at all\x00" * 3
    cut = frames[8][: len(frames[8]) // 2]
    bad = tmp_path / "bad.warc.lz4"
    bad.write_bytes(
        b"".join(frames[:5]) + junk + b"".join(frames[5:8]) + cut + b"".join(frames[9:])
    )
    run = Run(bad)
    assert [r.url for r in run.records] == [r.url for i, r in enumerate(g.records) if i != 8]
    offsets = [d.offset for d in run.damage]
    assert sum(map(len, frames[:5])) in offsets  # the garbage, where it starts
    assert sum(map(len, frames[:8])) + len(junk) in offsets  # the cut frame
    assert all(d.path == str(bad) for d in run.damage)


def test_whole_file_gzip_reads_with_stream_offsets(tmp_path):
    raws, _ = _members(4)
    path = tmp_path / "whole.warc.gz"
    path.write_bytes(gz(b"".join(raws)))
    run = Run(path)
    assert len(run.records) == 4 and not run.damage
    assert [r.source.offset for r in run.records] == [sum(map(len, raws[:i])) for i in range(4)]


# -- registration and detection -------------------------------------------------------------


def test_hooks_register_and_detect(samples):
    got = []
    warc_plugin.crawlmill_register_readers(got.append)
    assert got == [WarcReader]
    # detection is the reader's sniff alone (the registry ranks it): no detect hook
    assert not hasattr(warc_plugin, "crawlmill_detect_format")
    head = read_head(str(samples / "webrecorder-warcio/test/data/example.warc.gz"))
    assert WarcReader.sniff("x.warc.gz", head) >= 0.9
    assert WarcReader.sniff("x.arc", b"filedesc://x.arc 0.0.0.0 2008 text/plain 76\n") == 0.0
    assert WarcReader.sniff("c", io.BytesIO(b"WARC/0.18\nWARC-Type: warcinfo\n").read()) > 0.9
    # an empty head (nothing decompressed) of a file named like a WARC, any compression
    for name in ("x.warc", "x.warc.gz", "x.warc.zst", "x.WARC.LZ4"):
        assert WarcReader.sniff(name, b"") == 0.3, name
    assert WarcReader.sniff("x.txt", b"") == 0.0


@pytest.mark.parametrize("damage", [False, True])
def test_parallel_inflate_reads_the_same(tmp_path, damage):
    rng = random.Random(5)
    raws = [make(b"http://example.com/%d" % i, rng.randbytes(2000 + i * 20)) for i in range(400)]
    blobs = [gz(r) for r in raws]
    if damage:
        bad = bytearray(blobs[200])
        bad[30:40] = b"\x99" * 10
        blobs[200] = bytes(bad)
        blobs[300] = b"garbage" + blobs[300]
    path = tmp_path / "p.warc.gz"
    path.write_bytes(b"".join(blobs))
    assert path.stat().st_size > warc_plugin.PREFETCH_MIN_BYTES
    runs = [Run(path, {"inflate_threads": n}) for n in (0, 1, 2)]
    views = [
        (
            [(r.url, r.payload, r.source.offset, r.source.length) for r in run.records],
            [(d.offset, d.length) for d in run.damage],
        )
        for run in runs
    ]
    assert views[0] == views[1] == views[2]
    assert len(runs[0].records) == (399 if damage else 400)
    assert len(runs[0].damage) == (2 if damage else 0)


def test_parallel_inflate_reads_a_big_whole_file_gzip(tmp_path):
    """One member larger than a piece (8 MiB): the parallel path hands the file back to the
    sequential one from offset 0, which must still see every record."""
    rng = random.Random(9)
    raws = [make(b"http://example.com/r", rng.randbytes(1_500_000))]
    raws += [make(b"http://example.com/%d" % i, b"text %d " % i * 150_000) for i in range(8)]
    path = tmp_path / "whole.warc.gz"
    path.write_bytes(gz(b"".join(raws)))
    assert path.stat().st_size > warc_plugin.PREFETCH_MIN_BYTES
    assert sum(map(len, raws)) > 8 << 20
    parallel, sequential = Run(path, {"inflate_threads": 2}), Run(path, {"inflate_threads": 0})
    assert [record_bytes(r) for r in parallel.records] == raws
    assert not parallel.damage and not sequential.damage
    assert [r.source for r in parallel.records] == [r.source for r in sequential.records]


def test_parse_http_off_keeps_the_block_as_payload(tmp_path):
    path = tmp_path / "x.warc"
    path.write_bytes(make())
    (r,) = Run(path, {"parse_http": False}).records
    assert r.http_head is None and r.payload.startswith(b"HTTP/1.1 200 OK\r\n")
    assert r.content_type == "application/http"


def test_a_version_line_with_a_flipped_case_bit_is_detected_and_reported(tmp_path, capsys):
    """The first byte of a plain WARC with its case bit flipped (``wARC/1.0``, bit 5 of
    byte 0): detection claims the file as the framer reads it (a record with a damaged
    version line, reported, exit 3), not "no reader claims it" (exit 2, nothing run)."""
    from crawlmill.core.commands.cli import main

    raws = [make(b"http://example.com/%d" % i, b"body %d" % i) for i in range(3)]
    data = bytearray(b"".join(raws))
    data[0] ^= 0x20
    (src := tmp_path / "in.warc").write_bytes(bytes(data))
    assert WarcReader.sniff(str(src), bytes(data[:64])) == pytest.approx(0.6)
    for flipped in (b"wARC/1.0\r\n", b"WaRC/1.1\r\n"):  # damage, as past damaged first bytes
        assert WarcReader.sniff("x", flipped + b"WARC-Type: resource\r\n") == pytest.approx(0.6)
    assert WarcReader.sniff("x", b"warc/1.0\r\nWARC-Type: resource\r\n") == pytest.approx(0.8)
    assert main(["convert", str(src), "--to", "warc", "-o", str(tmp_path / "out")]) == 3
    report = json.loads((tmp_path / "out/.crawlmill/report.json").read_text())
    assert [d["code"] for d in report["damages"]] == ["damaged-version-line"]
    # every record delivered (the first with an upper-case version line); the damaged
    # line counted once more as read and quarantined
    assert (report["read"], report["written"], report["quarantined"]) == (4, 3, 1)
    assert "format not detected" not in capsys.readouterr().err
