"""The ``nutch-segment`` join on segments built from the byte layouts: every URL of any
subdirectory becomes one record (fetched, failed, generated only), unsorted and BLOCK parts,
duplicate URLs and a value that is not its class (damage with its offset, the URL kept)."""

from __future__ import annotations

import json
from pathlib import Path

from crawlmill.core import RecordKind, open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.nutch import (
    CONTENT,
    CRAWL_DATUM,
    PARSE_DATA,
    PARSE_TEXT,
    encode_nutch,
)
from crawlmill.formats.hadoop.nutch_content import Content
from crawlmill.formats.hadoop.nutch_crawldatum import CrawlDatum
from crawlmill.formats.hadoop.nutch_io import Metadata, ParseStatus, ProtocolStatus
from crawlmill.formats.hadoop.nutch_parse import Outlink, ParseData, ParseText
from crawlmill.formats.hadoop.sequencefile import SequenceFileWriter
from crawlmill.formats.hadoop.writables import MapValue
from crawlmill.plugins.readers.nutch_segment import NutchSegmentReader

TEXT = "org.apache.hadoop.io.Text"
PST = "org.apache.nutch.protocol.ProtocolStatus"


def _key(url: str) -> bytes:
    """A Text key (a one-byte VInt length: these URLs are short)."""
    return bytes([len(url)]) + url.encode()


def _write(path: Path, value_class: str, items, compression="record"):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        w = SequenceFileWriter(fh, TEXT, value_class, compression=compression)
        for url, value in items:
            w.append(_key(url), encode_nutch(value_class, value))
        w.close()


def _datum(status: int, pst: int | None = None) -> CrawlDatum:
    meta = None
    if pst is not None:
        meta = MapValue([(TEXT, b"_pst_", PST, ProtocolStatus(2, pst, 0, None))], [(1, PST)])
    return CrawlDatum(7, status, 1_700_000_000_000, 0, 2_592_000, 1.0, 0, None, meta)


def _content(url: str, body: bytes) -> Content:
    meta = Metadata([("Content-Type", ["text/html"]), ("_ip_", ["10.0.0.1"]),
                     ("Content-Length", [str(len(body) + 7)])])  # fmt: skip
    return Content(url, url, body, "text/html", meta)


def build(seg: Path, content_order=("http://a/", "http://c/"), content_compression="record",
          duplicate=False) -> Path:  # fmt: skip
    bodies = {"http://a/": b"<html>a</html>", "http://c/": b"<html>c</html>"}
    content = [(u, _content(u, bodies[u])) for u in content_order]
    if duplicate:
        content.insert(1, ("http://a/", _content("http://a/", b"<html>a2</html>")))
    _write(seg / "content/part-00000/data", CONTENT, content, content_compression)
    _write(seg / "crawl_fetch/part-00000/data", CRAWL_DATUM,
           [("http://a/", _datum(0x21, 1)), ("http://b/", _datum(0x25, 14)),
            ("http://c/", _datum(0x21, 1))])  # fmt: skip
    _write(seg / "crawl_generate/part-00000", CRAWL_DATUM,
           [(u, _datum(0x01)) for u in ("http://c/", "http://a/", "http://b/", "http://d/")],
           "none")  # fmt: skip
    _write(seg / "crawl_parse/part-00000", CRAWL_DATUM,
           [("http://a/", _datum(0x41)), ("http://x/", _datum(0x43))])
    pd = ParseData(ParseStatus(2, 1, 0, None), "A", [Outlink("http://x/", "to x")],
                   Metadata(), Metadata())  # fmt: skip
    _write(seg / "parse_data/part-00000/data", PARSE_DATA, [("http://a/", pd)])
    _write(seg / "parse_text/part-00000/data", PARSE_TEXT, [("http://a/", ParseText("text of a"))])
    (seg / "crawl_generate/.part-00000.crc").write_bytes(b"crc\x00")
    (seg / "_SUCCESS").write_bytes(b"")
    return seg


def _read(seg: Path):
    (unit,) = NutchSegmentReader.discover(str(seg), NutchSegmentReader.Options())
    records = open_reader(unit, "nutch-segment")
    with records:
        out = list(records)
    return out, records


def test_every_url_of_any_subdirectory_is_one_record(tmp_path):
    recs, it = _read(build(tmp_path / "20240101000000"))
    assert [r.url for r in recs] == ["http://a/", "http://b/", "http://c/", "http://d/"]
    a, b, c, d = recs
    assert (a.kind, c.kind, b.kind, d.kind) == (RecordKind.RESPONSE, RecordKind.RESPONSE,
                                                RecordKind.METADATA, RecordKind.METADATA)  # fmt: skip
    assert a.payload == b"<html>a</html>" and a.text == "text of a" and a.ip == "10.0.0.1"
    assert [(o.url, o.anchor) for o in a.outlinks] == [("http://x/", "to x")]
    assert a.http_head == (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                           b"X-Crawler-Content-Length: 21\r\nContent-Length: 14\r\n\r\n")  # fmt: skip
    assert [x["status_name"] for x in a.extras["nutch"]["crawl_parse"]] == ["signature"]
    assert c.text is None and "parse_data" not in c.extras["nutch"]
    assert json.loads(b.payload)["crawl_fetch"][0]["status_name"] == "fetch_gone"
    assert list(d.extras["nutch"]) == ["segment", "part", "crawl_generate"]
    assert a.date.year == 2023 and it.damages == [] and it.counts == {"linked datums": 1}


def test_an_unsorted_mapfile_part_is_reported_and_joined(tmp_path):
    recs, it = _read(build(tmp_path / "s", content_order=("http://c/", "http://a/")))
    assert [r.url for r in recs] == ["http://a/", "http://b/", "http://c/", "http://d/"]
    assert recs[0].text == "text of a" and recs[0].payload == b"<html>a</html>"
    assert [w.code for w in it.warnings] == ["nutch-part-unsorted"]


def test_block_parts_sorted_or_not(tmp_path):
    recs, it = _read(build(tmp_path / "s", ("http://c/", "http://a/"), "block"))
    assert [r.url for r in recs] == ["http://a/", "http://b/", "http://c/", "http://d/"]
    assert [w.code for w in it.warnings] == ["nutch-part-unsorted"]  # found before the join
    assert [len(r.payload) for r in recs if r.kind == RecordKind.RESPONSE] == [14, 14]
    recs, it = _read(build(tmp_path / "t", content_compression="block"))
    assert [r.url for r in recs] == ["http://a/", "http://b/", "http://c/", "http://d/"]
    assert it.warnings == [] and recs[0].text == "text of a"


def test_keys_sorted_reads_the_framing_only(tmp_path):
    from crawlmill.plugins.readers.nutch_parts import keys_sorted

    for comp in ("none", "record", "block"):
        seg = build(tmp_path / comp, content_compression=comp)
        assert keys_sorted(str(seg / "content/part-00000/data")) is True
        assert keys_sorted(str(seg / "crawl_generate/part-00000")) is False
    cut = tmp_path / "cut"
    data = (tmp_path / "none/content/part-00000/data").read_bytes()
    cut.write_bytes(data[:-5])
    assert keys_sorted(str(cut)) is None


def test_a_duplicate_url_gives_one_record_per_entry(tmp_path):
    recs, it = _read(build(tmp_path / "s", duplicate=True))
    a = [r for r in recs if r.url == "http://a/" and r.kind == RecordKind.RESPONSE]
    assert sorted(r.payload for r in a) == [b"<html>a2</html>", b"<html>a</html>"]
    assert [w.code for w in it.warnings] == ["nutch-duplicate-url"]


def test_a_value_that_is_not_its_class_is_damage_and_the_url_stays(tmp_path, capsys):
    seg = build(tmp_path / "s")
    data = seg / "content/part-00000/data"
    with open(data, "wb") as fh:  # c's Content cut by 3 bytes, framed correctly
        w = SequenceFileWriter(fh, TEXT, CONTENT, compression="none")
        w.append(_key("http://a/"), encode_nutch(CONTENT, _content("http://a/", b"<html>a</html>")))
        w.append(_key("http://c/"), encode_nutch(CONTENT, _content("http://c/", b"x"))[:-3])
        w.close()
    out = tmp_path / "out"
    code = main(["convert", str(seg), "--to", "warc", "-o", str(out), "--workers", "1"])
    assert code == 3  # damage
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    (damage,) = report["damages"]
    assert damage["code"] == "value-not-its-class" and damage["path"].endswith("content/part-00000/data")
    assert "metadata" in damage["reason"] and damage["offset"] > 0
    # the 4 URLs (c still a record, from crawl_fetch and crawl_generate) + the damaged entry
    assert (report["read"], report["written"], report["quarantined"]) == (5, 5, 1)
