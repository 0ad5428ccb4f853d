"""Nutch 1.x Writables (formats/hadoop/nutch*.py): every real Nutch sample decodes with every
value consumed exactly and re-encodes to the same bytes (Metadata and maps keep their file
order, so the uncompressed encodings are byte-equal; the 0.8/0.9 zlib Content re-encodes
byte-equal at Deflater.BEST_SPEED, the gzip strings of ParseText v1 byte-equal with Java's
GZIPOutputStream header); boundaries built from the byte layouts."""

from __future__ import annotations

import struct

import pytest
from crawlmill.formats.hadoop.nutch import (
    CONTENT,
    CRAWL_DATUM,
    INLINKS,
    PARSE_DATA,
    PARSE_TEXT,
    decode_nutch,
    encode_nutch,
    from_plain,
    to_plain,
)
from crawlmill.formats.hadoop.nutch_content import Content
from crawlmill.formats.hadoop.nutch_crawldatum import CrawlDatum, NutchMapValue, status_name
from crawlmill.formats.hadoop.nutch_io import Metadata, ParseStatus, ProtocolStatus
from crawlmill.formats.hadoop.nutch_parse import Inlink, Inlinks, Outlink, ParseData, ParseText
from crawlmill.formats.hadoop.sequencefile import Entry, iter_entries, read_header
from crawlmill.formats.hadoop.writables import MapValue, WritableError

H = "org.apache.hadoop.io."
N = "org.apache.nutch."

#: every Nutch data file of the samples: (path, records, value class short name).
NUTCH_FILES = [
    ("apache-nutch/deduplication-crawldb/current/part-r-00000/data", 10, "CrawlDatum"),
    ("commoncrawl-nutch/deduplication-crawldb/old/part-r-00000/data", 9, "CrawlDatum"),
    ("commoncrawl-nutch/test-segments/20260224170658-revisit/content/part-r-00000/data", 2, "Content"),
    ("apache-nutch/testcrawl/crawldb/current/part-00000/data", 472, "CrawlDatum"),
    ("apache-nutch/testcrawl/linkdb/current/part-00000/data", 472, "Inlinks"),
] + [
    (f"apache-nutch/{seg}/{sub}", n, cls)
    for seg, counts in (
        ("test-segments/20150309101625", (1, 1, 1, 101, 1, 1)),
        ("test-segments/20150309101656", (49, 61, 57, 2598, 39, 39)),
        ("testcrawl/segments/20060919213635", (1, 1, 1, 75, 1, 1)),
        ("testcrawl/segments/20060919213643", (18, 18, 18, 767, 18, 18)),
    )
    for (sub, cls), n in zip(
        (("content/part-00000/data", "Content"), ("crawl_fetch/part-00000/data", "CrawlDatum"),
         ("crawl_generate/part-00000", "CrawlDatum"), ("crawl_parse/part-00000", "CrawlDatum"),
         ("parse_data/part-00000/data", "ParseData"), ("parse_text/part-00000/data", "ParseText")),
        counts,
        strict=True,
    )
]  # fmt: skip


def test_every_nutch_sample_file_is_listed(samples):
    found = {
        p.relative_to(samples).as_posix()
        for folder in ("apache-nutch", "commoncrawl-nutch")
        for p in (samples / folder).rglob("*")
        if p.is_file() and p.name != "index" and p.read_bytes()[:3] == b"SEQ"
    }
    assert found == {rel for rel, *_ in NUTCH_FILES}


@pytest.mark.parametrize(("rel", "count", "cls"), NUTCH_FILES, ids=[r for r, *_ in NUTCH_FILES])
def test_sample_values_consumed_exactly_and_reencoded(samples, rel, count, cls):
    data = (samples / rel).read_bytes()
    header = read_header(data)
    assert header.value_class.endswith("." + cls)
    entries = list(iter_entries(data, header))
    assert all(isinstance(e, Entry) for e in entries)
    assert len(entries) == count
    for e in entries:
        value = decode_nutch(header.value_class, e.value, legacy=header.version < 4)  # exact
        again = encode_nutch(header.value_class, value)
        assert again == e.value  # every layout here writes back byte for byte
        # and through plain data (what a Record's extras hold)
        assert encode_nutch(header.value_class, from_plain(to_plain(value))) == e.value


def test_sample_values_have_the_layouts_the_spec_names(samples):
    def first(rel):
        data = (samples / rel).read_bytes()
        h = read_header(data)
        return decode_nutch(h.value_class, next(iter_entries(data, h)).value, legacy=h.version < 4)

    seg15, seg06 = "apache-nutch/test-segments/20150309101625", "apache-nutch/testcrawl/segments/20060919213635"
    c15, c06 = first(f"{seg15}/content/part-00000/data"), first(f"{seg06}/content/part-00000/data")
    assert (c15.version, c06.version, c06.metadata.legacy) == (-1, 0, True)
    assert c15.url == "http://nutch.apache.org/" and c15.metadata.get("_ip_") == "88.198.26.2"
    pd15, pd06 = first(f"{seg15}/parse_data/part-00000/data"), first(f"{seg06}/parse_data/part-00000/data")
    assert (pd15.version, pd15.outlink_md, pd06.version, pd06.status.version) == (5, True, 4, 1)
    assert len(pd15.outlinks) == 100
    assert first(f"{seg06}/parse_text/part-00000/data").version == 1
    db = first("apache-nutch/testcrawl/crawldb/current/part-00000/data")
    assert db.version == 4 and isinstance(db.fetch_interval, float)
    fetch = first(f"{seg15}/crawl_fetch/part-00000/data")
    assert fetch.version == 7 and fetch.status_name == "fetch_success"
    pst = fetch.metadata.as_dict()[b"_pst_"]
    assert isinstance(pst, ProtocolStatus) and pst.name == "success"
    links = first("apache-nutch/testcrawl/linkdb/current/part-00000/data")
    assert links.layout == "utf8" and links.inlinks


# -- boundaries --------------------------------------------------------------------------------


def _datum(version: int, meta=None) -> CrawlDatum:
    return CrawlDatum(version, 0x21 if version >= 5 else 5, 1_425_921_419_722, 1,
                      30.0 if version <= 5 else 2_592_000, 0.5, 1_425_000_000_000,
                      bytes(range(16)), meta)  # fmt: skip


@pytest.mark.parametrize("version", [4, 5, 6, 7])
def test_crawl_datum_each_version(version):
    if version == 7:
        meta = MapValue([(H + "Text", b"_rs_", H + "IntWritable", 147)])
    else:
        text = H + ("UTF8" if version == 4 else "Text")
        key = "_rs_" if version == 4 else b"_rs_"
        meta = NutchMapValue([(text, key, H + "IntWritable", 147)], [], version == 4)
    datum = _datum(version, meta)
    raw = encode_nutch(CRAWL_DATUM, datum)
    # the fixed part: version, status, fetch time, retries, interval (float days <= 5)
    fmt = ">bbqb" + ("f" if version <= 5 else "i") + "fqb"
    fixed = struct.unpack_from(fmt, raw)
    assert fixed[0] == version and fixed[4] == datum.fetch_interval and fixed[7] == 16
    back = decode_nutch(CRAWL_DATUM, raw)
    assert back == datum
    assert back.status_name == "fetch_success"
    assert back.fetch_interval_seconds == 2_592_000


def test_crawl_datum_empty_metadata_and_no_metadata():
    none = _datum(7, None)
    raw = encode_nutch(CRAWL_DATUM, none)
    assert raw[-1] == 0 and decode_nutch(CRAWL_DATUM, raw).metadata is None
    empty = _datum(7, MapValue())
    raw = encode_nutch(CRAWL_DATUM, empty)
    assert raw[-6:] == b"\x01\x00\x00\x00\x00\x00"  # flag, no classes, 0 entries
    assert decode_nutch(CRAWL_DATUM, raw).metadata == MapValue()
    old = _datum(6, NutchMapValue())
    raw = encode_nutch(CRAWL_DATUM, old)
    assert raw[-5:] == b"\x01\x00\x00\x00\x00"  # Nutch's map: int size 0 and nothing more
    assert decode_nutch(CRAWL_DATUM, raw).metadata == NutchMapValue()


def test_old_status_numbering_before_version_5():
    assert [status_name(4, s) for s in (0, 1, 4, 5, 7)] == [
        "signature", "db_unfetched", "linked", "fetch_success", "fetch_gone"]  # fmt: skip
    assert status_name(7, 5) == "db_redir_perm"


def test_empty_content_metadata():
    value = Content("http://a/", "http://a/", b"", "text/plain", Metadata())
    raw = encode_nutch(CONTENT, value)
    assert raw.endswith(b"\x00\x00\x00\x00")  # no metadata names
    assert decode_nutch(CONTENT, raw) == value


def _parse_data(outlinks, md=True) -> ParseData:
    return ParseData(ParseStatus(2, 1, 0, None), "T", outlinks,
                     Metadata([("a", ["1", "2"])]), Metadata(), 5, md)  # fmt: skip


def test_outlink_with_and_without_anchor_and_metadata():
    links = [Outlink("http://x/", ""), Outlink("http://y/", "anchor text"),
             Outlink("http://z/", "", MapValue([(H + "Text", b"k", H + "Text", b"v")]))]  # fmt: skip
    for md in (True, False):
        value = _parse_data(links if md else links[:2], md)
        raw = encode_nutch(PARSE_DATA, value)
        back = decode_nutch(PARSE_DATA, raw)
        assert back == value and back.outlink_md is md  # the layout found by exact consumption
        assert back.outlinks[0].anchor == ""


def test_inlinks_layouts():
    for layout in ("text", "text-md", "utf8"):
        value = Inlinks([Inlink("http://a/", "x"), Inlink("http://b/", "")], layout)
        raw = encode_nutch(INLINKS, value)
        assert decode_nutch(INLINKS, raw, legacy=layout == "utf8") == value


@pytest.mark.parametrize(
    ("cls", "value", "field"),
    [
        (CRAWL_DATUM, _datum(7, MapValue([(H + "Text", b"_rs_", H + "IntWritable", 1)])), "IntWritable"),
        (CRAWL_DATUM, _datum(7), "CrawlDatum hasMetadata"),
        (CONTENT, Content("http://a/", "http://a/", b"abcdef", "text/html", Metadata([("k", ["v"])])), "metadata 'k' value 0"),
        (PARSE_TEXT, ParseText("some text"), "ParseText text"),
        (PARSE_DATA, _parse_data([Outlink("http://x/", "a")]), "ParseData parseMeta name count"),
    ],
)  # fmt: skip
def test_truncated_value_names_the_field(cls, value, field):
    raw = encode_nutch(cls, value)
    with pytest.raises(WritableError, match=field):  # the last field, cut by one byte
        decode_nutch(cls, raw[:-1])
    for cut in (len(raw) // 2, 1, 0):
        with pytest.raises(WritableError):
            decode_nutch(cls, raw[:cut])
    with pytest.raises(WritableError, match="should read"):
        decode_nutch(cls, raw + b"\x00")


def test_truncated_crawl_datum_names_the_field_exactly():
    raw = encode_nutch(CRAWL_DATUM, _datum(7))
    with pytest.raises(WritableError, match="CrawlDatum fetchTime"):
        decode_nutch(CRAWL_DATUM, raw[:5])
    with pytest.raises(WritableError, match="CrawlDatum signature"):
        decode_nutch(CRAWL_DATUM, raw[:30])
    content = encode_nutch(CONTENT, Content("http://a/", "b", b"xyz", "t", Metadata()))
    with pytest.raises(WritableError, match="Content content"):
        decode_nutch(CONTENT, content[:20])


def test_legacy_compressed_content_roundtrip():
    for version in (0, 2):
        value = Content("http://a/é", "http://a/", b"\x00\xff", "text/html",
                        Metadata([("k", ["v1", "v2"])], version == 0), version)  # fmt: skip
        raw = encode_nutch(CONTENT, value)
        assert struct.unpack_from(">i", raw)[0] == len(raw) - 4  # a CompressedWritable
        assert decode_nutch(CONTENT, raw) == value


def test_protocol_status_v1_compressed_args():
    value = ProtocolStatus(1, 14, 0, ["http://gone/"])
    raw = encode_nutch(N + "protocol.ProtocolStatus", value)
    assert decode_nutch(N + "protocol.ProtocolStatus", raw) == value
