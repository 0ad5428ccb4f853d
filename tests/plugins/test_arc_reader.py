"""The ``arc`` reader on every ARC sample, checked against warcio (an independent reader).

Oracles per file: record counts, URLs, dates, IPs, HTTP content types, payload bytes and
record offsets come from warcio's ``ArchiveIterator(arc2warc=True)``, which reads every ARC
sample; the counts are also checked against the numbers in the samples' SOURCES.md where it
gives them (jwat IAH ARC: 300, jwat VirtualBox ARC: 102, ukwa truncated IAH ARC: 9).
Where we deliberately differ from warcio, the test states why and checks the difference.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from crawlmill.core import RecordKind, open_reader
from crawlmill.core.registry import Registry
from crawlmill.formats.codecs.compression import read_head
from crawlmill.plugins.readers.arc import ArcReader

SOURCES_COUNTS = {
    "1-1-20110922131213-00000-svc-VirtualBox.arc": 102,
    "IAH-20080430204825-00000-blackbook.arc.gz": 300,
    "IAH-20080430204825-00000-blackbook-truncated.arc.gz": 9,
}
CC2012_SHORT = "crawl-2012_1341690165636_1341785606830_6-0-4421.arc.gz"
#: samples with damage by the length rule (formats/arc/length.py), one text per damage entry:
#: the last record cut by the end of the file (kept, marked truncated, reported), a length the
#: gzip member disproves, or a length field that is not a number (no length to trust: the
#: block up to the next record is delivered and reported)
INVALID = "has an invalid Archive-length"
EXPECTED_DAMAGE = {
    "example-space-in-url.arc": ["the file ends after 1579"],
    "test-arc-1.0-dashed-fields.arc": ["the file ends after"],
    "test-arc-1.0-invalid-fields.arc": [f"{INVALID} b'one'", "the file ends after"],
    "bad.arc": [f"{INVALID} b'-1'", f"{INVALID} b'-1'", f"{INVALID} b'abc'"],
    CC2012_SHORT: ["its gzip member holds 13035 (+2)"],
}


def read_all(path: Path, **options):
    with open_reader(path, ArcReader, **options) as it:
        records = list(it)
    return records, it.damages, [(w.offset, w.message) for w in it.warnings]


def warcio_view(warcio, path: Path) -> list[dict]:
    from warcio.archiveiterator import ArchiveIterator

    out = []
    with open(path, "rb") as fh:
        it = ArchiveIterator(fh, arc2warc=True)
        for rec in it:
            http = rec.http_headers
            out.append(
                {
                    "type": rec.rec_type,
                    "url": rec.rec_headers.get_header("WARC-Target-URI"),
                    "date": rec.rec_headers.get_header("WARC-Date"),
                    "ip": rec.rec_headers.get_header("WARC-IP-Address"),
                    "ctype": http.get_header("Content-Type") if http else None,
                    "payload": rec.raw_stream.read(),
                    "offset": it.get_record_offset(),
                }
            )
    return out


def test_every_arc_sample_matches_warcio(arc_sample: Path, need) -> None:
    warcio = need("warcio")
    ours, damage, warnings = read_all(arc_sample)
    theirs = warcio_view(warcio, arc_sample)
    expected = EXPECTED_DAMAGE.get(arc_sample.name, [])
    assert len(damage) == len(expected)
    for entry, text in zip(damage, expected, strict=True):
        assert text in entry.reason
    assert len(ours) == len(theirs)
    if arc_sample.name in SOURCES_COUNTS:
        assert len(ours) == SOURCES_COUNTS[arc_sample.name]
    # the filedesc is the metadata record holding the whole ARC header record (warcio: the
    # warcinfo holding its block)
    assert ours[0].kind == RecordKind.METADATA and theirs[0]["type"] == "warcinfo"
    for i, (rec, ref) in enumerate(zip(ours, theirs, strict=True)):
        assert rec.source.offset == ref["offset"], i
        if i == 0:
            continue
        # warcio %-encodes spaces in WARC-Target-URI; the ARC URL keeps them
        assert rec.url.replace(" ", "%20") == ref["url"]
        assert rec.date.strftime("%Y-%m-%dT%H:%M:%SZ") == ref["date"]
        assert rec.ip == ref["ip"]
        if ref["ctype"] is not None:
            assert rec.content_type == ref["ctype"].split(";")[0].strip().lower()
        if arc_sample.name == CC2012_SHORT:
            # declared length 2 bytes short: warcio cuts the page and warns; we keep the two
            # bytes (the gzip member holds them) and report the repair as damage
            assert rec.payload[:-2] == ref["payload"] and rec.payload.endswith(b">\n")
        elif arc_sample.name == "bad.arc" and i == 2:
            # declared length 1: we keep the one declared byte (a newline); warcio drops it
            assert (rec.payload, ref["payload"]) == (b"\n", b"")
        else:
            assert rec.payload == ref["payload"]


def test_filedesc_record_mapping(samples, arc_named) -> None:
    path = arc_named("IAH-20080430204825-00000-blackbook.arc.gz")
    recs, _, _ = read_all(path)
    fd = recs[0]
    assert fd.kind == RecordKind.METADATA
    assert fd.url == "filedesc://IAH-20080430204825-00000-blackbook.arc"
    assert fd.ip is None and fd.content_type == "application/arc"
    assert fd.date_raw == "20080430204825"
    assert fd.extras["neutral"] == {"describes_file": "filedesc"}
    arc = fd.extras["arc"]
    assert arc["filedesc"] is True and arc["origin"] == "InternetArchive" and arc["version"] == "1"
    assert (
        arc["header_line"]
        == b"filedesc://IAH-20080430204825-00000-blackbook.arc 0.0.0.0 20080430204825 text/plain 1300"
    )
    assert arc["fields"]["Content-type"] == "text/plain"
    line, _, block = fd.payload.partition(b"\n")
    assert line == arc["header_line"]
    assert block.startswith(
        b"1 1 InternetArchive\nURL IP-address Archive-date Content-type Archive-length\n<?xml"
    )
    assert len(block) == 1300 and block.rstrip().endswith(b"</arcmetadata>")
    # the payload is the whole ARC header record, exactly as the file stores it
    raw = gzip.decompress(path.read_bytes()[: recs[1].source.offset])
    assert raw == fd.payload + b"\n"


def test_dns_and_http_mapping(samples, arc_named) -> None:
    recs, _, _ = read_all(arc_named("IAH-20080430204825-00000-blackbook-truncated.arc.gz"))
    dns = recs[1]
    assert dns.url.startswith("dns:") and dns.kind == RecordKind.RESOURCE
    assert dns.content_type == "text/dns" and dns.http_head is None
    http = next(r for r in recs if r.kind == RecordKind.RESPONSE)
    assert http.http_head.startswith(b"HTTP/1.") and http.http_head.endswith(b"\r\n\r\n")
    assert http.http_status is not None
    assert http.extras["arc"]["fields"]["URL"] == http.url


def test_dashed_and_invalid_fields(samples, arc_named) -> None:
    recs, damage, warnings = read_all(arc_named("test-arc-1.0-dashed-fields.arc"))
    fd = recs[0]
    assert fd.url == "filedesc://" and fd.ip is None and fd.date is None and fd.date_raw == "-"
    assert fd.content_type == "application/arc"  # the ARC field said "-"
    assert fd.extras["arc"]["fields"]["Content-type"] == "-"
    recs, damage, warnings = read_all(arc_named("test-arc-1.0-invalid-fields.arc"))
    fd = recs[0]
    assert (
        fd.date is None
        and fd.date_raw == "blue_monday"
        and fd.extras["arc"]["fields"]["Archive-length"] == "one"
    )
    assert fd.payload.partition(b"\n")[2].startswith(b"1 0 InternetArchive\n")
    # the last record of both jwat files is cut 84 bytes short of its declared length: kept,
    # marked truncated and reported as damage with its bytes
    assert recs[1].extras["arc"]["truncated"] is True
    assert len(damage) == 2 and "the file ends after" in damage[1].reason
    assert damage[1].data.endswith(recs[1].payload)
    # the filedesc's length "one" is no length: its block up to the next record is delivered
    # and reported as damage with the original bytes
    assert "invalid Archive-length b'one'" in damage[0].reason
    assert damage[0].offset == 0 and damage[0].data.startswith(b"filedesc://horsy")


def test_length_repairs_are_damage_and_strict_drops_the_repaired_record(samples) -> None:
    path = samples / "commoncrawl-arc2warc-conversion/test/resources/arc" / CC2012_SHORT
    for strict, kept in ((False, 2), (True, 1)):
        recs, damage, _ = read_all(path, strict=strict)
        assert len(recs) == kept and len(damage) == 1
        # the damage is the record's gzip member, in compressed offsets, with its bytes
        assert damage[0].offset == 157 and "+2" in damage[0].reason
        raw = path.read_bytes()
        assert damage[0].length == len(raw) - 157
        assert gzip.decompress(damage[0].data).startswith(b"http://taighde.com/w/Kylie_Ward ")


def test_sniff_and_detect(samples, tmp_path: Path, arc_named) -> None:
    path = arc_named("example.arc.gz")
    assert ArcReader.sniff(str(path), read_head(str(path))) >= 0.9
    assert ArcReader.sniff("x.warc", b"WARC/1.0\r\n") == 0.0
    no_filedesc = tmp_path / "x.dat"
    no_filedesc.write_bytes(b"http://a/ 1.2.3.4 20010101000000 text/html 2\nhi\n")
    assert 0.4 < ArcReader.sniff(str(no_filedesc), no_filedesc.read_bytes()) < 0.9
    reg = Registry.load()
    assert reg.reader("arc") is ArcReader
    assert reg.detect(str(path), read_head(str(path)))[0][0] == "arc"


def test_every_arc_file_in_the_samples_is_covered(samples, arc_samples) -> None:
    """A new ARC sample must be added to the oracle comparison above, not skipped."""
    found = {
        str(p.relative_to(samples))
        for p in samples.rglob("*")
        if p.is_file() and p.name.lower().endswith((".arc", ".arc.gz"))
    }
    assert found == set(arc_samples)


def test_limits_come_from_the_context_and_early_close_stops_the_inflate_thread(
    samples, arc_named
) -> None:
    import threading

    from crawlmill.core import Limits

    path = arc_named("IAH-20080430204825-00000-blackbook.arc.gz")
    with open_reader(path, ArcReader, limits=Limits(max_record_bytes=20000)) as it:
        records = list(it)
    damage = it.damages
    assert damage and all("limit" in d.reason for d in damage)
    assert len(records) + len(damage) == 300
    assert all(len(r.block) <= 20000 for r in records)
    before = threading.active_count()
    with open_reader(path, ArcReader) as it:
        next(it)
    assert threading.active_count() == before


def test_the_arc_reader_maps_the_filedesc_at_parse_time(arc_named) -> None:
    """The filedesc is a neutral metadata record (as jwarc and warcio map ARC at parse time):
    type application/arc, payload the whole ARC header record, marked as describing the file."""
    path = arc_named("IAH-20080430204825-00000-blackbook.arc.gz")
    with open_reader(path, ArcReader) as it:
        records = list(it)
    fd, page = records[0], records[1]
    assert fd.kind == RecordKind.METADATA and fd.content_type == "application/arc"
    assert fd.extras["neutral"] == {"describes_file": "filedesc"}
    assert fd.http_head is None and not fd.modified
    # the metadata block is the whole ARC header record, exactly as the file stores it
    raw = gzip.decompress(path.read_bytes()[: page.source.offset])
    assert raw == fd.payload + b"\n"
    assert "neutral" not in page.extras  # nothing to map for an intact document record
