"""The Nutch 0.4-0.7 value codecs and the ArrayFile encoder at the byte level: the Nutch
file-format page's own example bytes, every version of every class written and read back,
exact consumption, the 10-record sync and the 128-record index, bounded gzip fields."""

from __future__ import annotations

import gzip
import io
import struct

import pytest
from crawlmill.formats.hadoop import nutch_legacy as nl
from crawlmill.formats.hadoop.sequencefile import (
    Entry,
    SequenceFileWriter,
    iter_entries,
    read_header,
)

MD5 = bytes(range(16))


def _page(version=4):
    return nl.Page("http://a.example/x", MD5, 1109678400000, 2, 30, 3, 1.5, 0.25, version)


def test_the_documents_long_to_long_example_bytes():
    # "SEQ\001\000\004long\000\004long" then a pair 00000010 00000008 <long 640> <long 672411>
    out = io.BytesIO()
    w = SequenceFileWriter(out, "long", "long", version=1, sync_interval=None)
    w.append(struct.pack(">q", 640), struct.pack(">q", 672411), sync=False)
    assert out.getvalue() == (
        b"SEQ\x01\x00\x04long\x00\x04long"
        + bytes.fromhex("00000010 00000008 0000000000000280 00000000000a429b")
    )


def test_fetch_list_entry_bytes_follow_the_04_layout():
    entry = nl.FetchListEntry(True, _page(), ["one"], 2)
    expect = (
        b"\x02\x01"  # version 2, fetch flag 1
        + b"\x04" + b"\x00\x12http://a.example/x" + MD5  # Page version 4, UTF8 URL, md5
        + struct.pack(">qbb", 1109678400000, 2, 30)  # nextFetch, retries, interval (days)
        + struct.pack(">iff", 3, 1.5, 0.25)  # numOutlinks, score, nextScore
        + struct.pack(">i", 1) + b"\x00\x03one"  # anchors
    )  # fmt: skip
    assert nl.encode_value("FetchListEntry", entry) == expect
    assert nl.decode_value("FetchListEntry", expect) == entry


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_page_versions_round_trip_with_the_fields_of_their_version(version):
    raw = nl.encode_page(_page(version))
    back, end = nl.read_page(raw, 0)
    assert end == len(raw) == 1 + 20 + 16 + 10 + 4 * ((version > 2) + (version > 1) + (version > 3))
    assert back.num_outlinks == (3 if version > 2 else 0)
    assert back.score == (1.5 if version > 1 else 1.0)
    assert back.next_score == (0.25 if version > 3 else 1.0)


def test_fetch_list_entry_version_1_has_no_anchors():
    raw = nl.encode_fetch_list_entry(nl.FetchListEntry(False, _page(), [], 1))
    assert nl.decode_value("FetchListEntry", raw).anchors == []
    assert raw[:2] == b"\x01\x00"


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5])
def test_fetcher_output_versions(version):
    entry = nl.FetchListEntry(True, _page(), [], 2)
    status = nl.ProtocolStatus(1, 7, ["moved", None]) if version == 5 else None
    links = [nl.Outlink("http://b.example/", "B")] if version < 4 else []
    fo = nl.FetcherOutput(entry, MD5, None if version == 5 else 4, status,
                          "T" if version < 4 else None, links,
                          1109678400000 if version > 1 else 0, version)  # fmt: skip
    raw = nl.encode_value("FetcherOutput", fo)
    back = nl.decode_value("FetcherOutput", raw)
    assert back == fo
    # the old status byte maps as FetcherOutput.oldToNewMap: 4 (can't parse) -> retry (15)
    assert back.protocol_code == (1 if version == 5 else 15)


def test_old_status_bytes_map_to_protocol_codes():
    entry = nl.FetchListEntry(True, _page(), [], 2)
    codes = [nl.FetcherOutput(entry, MD5, s, version=4).protocol_code for s in range(5)]
    assert codes == [15, 1, 14, 2, 15]  # retry, success, notfound, failed, retry


def test_content_parse_text_parse_data_round_trip():
    content = nl.Content("http://a.example/", "http://a.example/", b"\x00<p>\xe9</p>",
                         "text/html", [("Server", "x"), ("Content-Type", "text/html")])  # fmt: skip
    raw = nl.encode_value("Content", content)
    assert nl.decode_value("Content", raw) == content
    # the body is a compressed byte array: int length + a gzip member
    body_at = 1 + 2 + 17 + 2 + 17
    n = struct.unpack_from(">i", raw, body_at)[0]
    assert gzip.decompress(raw[body_at + 4 : body_at + 4 + n]) == content.content
    for text in ("plain text \u00e9", None):
        value = nl.ParseText(text)
        assert nl.decode_value("ParseText", nl.encode_value("ParseText", value)) == value
    links = [nl.Outlink("http://b.example/", "B \u00e9")]
    for version in (1, 2):
        status = nl.ParseStatus(2, 200, ["boom"]) if version == 2 else None
        value = nl.ParseData("Title", links, [("k", "v")], status, version)
        raw = nl.encode_value("ParseData", value)
        assert nl.decode_value("ParseData", raw) == value
        assert raw[0] == version


def test_content_without_bytes_writes_minus_one():
    raw = nl.encode_value("Content", nl.Content("u", "u", None, "", []))
    assert b"\xff\xff\xff\xff" in raw
    assert nl.decode_value("Content", raw).content is None


def test_04_fetcher_content_and_text():
    for kind, value in (("FetcherContent", nl.FetcherContent(b"<html>")),
                        ("FetcherText", nl.FetcherText("text"))):  # fmt: skip
        assert nl.decode_value(kind, nl.encode_value(kind, value)) == value


def test_a_value_must_be_consumed_exactly():
    raw = nl.encode_value("ParseText", nl.ParseText("x"))
    with pytest.raises(nl.LegacyError, match="read .* bytes, should read"):
        nl.decode_value("ParseText", raw + b"\x00")
    with pytest.raises(nl.LegacyError, match="needs"):
        nl.decode_value("ParseText", raw[:-3])


@pytest.mark.parametrize(
    ("kind", "raw", "message"),
    [
        ("Content", b"\x02", "Content version 2 at 0 is not 1"),
        ("FetcherOutput", b"\x06", "FetcherOutput version 6 at 0 is not 1 to 5"),
        ("ParseData", b"\x03", "ParseData version 3 at 0 is not 1 to 2"),
        ("FetchListEntry", b"\x00", "FetchListEntry version 0"),
    ],
)
def test_unknown_versions_are_refused_with_the_version(kind, raw, message):
    with pytest.raises(nl.LegacyError, match=message):
        nl.decode_value(kind, raw)


def test_a_gzip_field_is_bounded_and_checked():
    raw = nl.write_compressed(b"a" * 10_000)
    assert nl.read_compressed(raw, 0, 10_000)[0] == b"a" * 10_000
    with pytest.raises(nl.LegacyError, match="inflates beyond 9999"):
        nl.read_compressed(raw, 0, 9_999)
    with pytest.raises(nl.LegacyError, match="cut short|does not inflate"):
        nl.read_compressed(struct.pack(">i", len(raw) - 8) + raw[4:-4], 0)


def test_utf8_strings_are_javas_modified_utf8_with_bytes_kept():
    assert nl.write_utf8("a\0\u00e9") == b"\x00\x05a\xc0\x80\xc3\xa9"
    assert nl.read_utf8(b"\x00\x05a\xc0\x80\xc3\xa9", 0) == ("a\0\u00e9", 7)
    text, end = nl.read_utf8(b"\x00\x02\xff\xfe", 0)  # not modified UTF-8: kept as escapes
    assert end == 4 and nl.write_utf8(text) == b"\x00\x02\xff\xfe"


def test_class_names_of_both_package_trees_and_the_aliases():
    for name in ("FetcherOutput", "net.nutch.fetcher.FetcherOutput",
                 "org.apache.nutch.fetcher.FetcherOutput"):  # fmt: skip
        assert nl.class_kind(name) == "FetcherOutput"
    assert nl.class_kind("net.nutch.pagedb.FetchListEntry") == "FetchListEntry"
    assert nl.class_kind("org.apache.nutch.protocol.Content") == "Content"
    assert nl.class_kind("long") == "long"
    assert nl.class_kind("org.apache.nutch.crawl.CrawlDatum") is None
    assert nl.class_kind("net.nutch.fetcher.Content") is None  # wrong package


def _syncs(data: bytes) -> list[int]:
    entries = [e for e in iter_entries(data) if isinstance(e, Entry)]
    return [n for n, e in enumerate(entries) if e.sync_before]


@pytest.mark.parametrize(("count", "syncs"), [(0, []), (1, []), (9, []), (10, [9]), (11, [9]),
                                              (19, [9]), (20, [9, 19]), (21, [9, 19])])  # fmt: skip
def test_a_sync_marker_before_every_10th_record(count, syncs):
    data, _ = nl.encode_array_file("ParseText", [nl.ParseText(str(i)) for i in range(count)])
    header = read_header(data)
    assert (header.version, header.key_class, header.value_class) == (2, "long", "ParseText")
    assert _syncs(data) == syncs
    assert data.count(b"\xff\xff\xff\xff" + header.sync) == len(syncs)
    keys = [struct.unpack(">q", e.key)[0] for e in iter_entries(data)]
    assert keys == list(range(count))


def test_seq1_has_no_sync_hash_and_no_markers():
    data, index = nl.encode_array_file("ParseText", [nl.ParseText("x")] * 12, version=1)
    assert data.startswith(b"SEQ\x01\x00\x04long\x00\x09ParseText")
    assert read_header(data).sync is None and _syncs(data) == []
    assert len([e for e in iter_entries(index)]) == 1


def test_the_index_has_an_entry_every_128_records_at_the_records_position():
    data, index = nl.encode_array_file("ParseText", [nl.ParseText(str(i)) for i in range(257)])
    entries = {struct.unpack(">q", e.key)[0]: e for e in iter_entries(data)}
    idx = [(struct.unpack(">q", e.key)[0], struct.unpack(">q", e.value)[0]) for e in iter_entries(index)]
    assert [k for k, _ in idx] == [0, 128, 256]
    header_end = read_header(data).length
    assert idx[0][1] == header_end
    for key, pos in idx[1:]:
        assert pos == entries[key].offset  # (no index record has a sync before it here)
