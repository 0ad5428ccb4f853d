"""A URL captured more than once, written into a Nutch segment: the first capture in pipeline
order is the segment's fetch, every later one is quarantined (``nutch-duplicate-url``, the
whole record kept), so each subdirectory holds one entry per URL (as Nutch's fetcher leaves
it, and as ``MapFile.Reader.get`` expects) and read = written + dropped + quarantined."""

from __future__ import annotations

import base64
import json

from crawlmill.core import RecordKind, open_reader

from tests.helpers import convert
from tests.plugins.test_nutch_writer import SEG, SUBDIRS, parts, text_key


def response(url: str, date: str, body: bytes, n: int) -> bytes:
    """An uncompressed WARC/1.1 response record."""
    http = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)  # fmt: skip
    head = (
        "WARC/1.1\r\nWARC-Type: response\r\n"
        f"WARC-Target-URI: {url}\r\nWARC-Date: {date}\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{n:012d}>\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(http)}\r\n\r\n"
    ).encode()
    return head + http + b"\r\n\r\n"


CAPTURES = [  # (url, date, body): a/ twice, its later capture first in the file
    ("http://example.com/a", "2024-05-02T00:00:00Z", b"<html>a, second fetch</html>"),
    ("http://example.com/b", "2024-05-01T00:00:00Z", b"<html>b</html>"),
    ("http://example.com/a", "2024-05-01T00:00:00Z", b"<html>a, first fetch</html>"),
    ("http://example.org/c", "2024-05-01T00:00:00Z", b"<html>c</html>"),
    ("http://example.org/c", "2024-05-03T00:00:00Z", b"<html>c again</html>"),
    ("http://example.org/c", "2024-05-04T00:00:00Z", b"<html>c, third</html>"),
]


URLS = ["http://example.com/a", "http://example.com/b", "http://example.org/c"]


def _warc(tmp_path):
    src = tmp_path / "twice.warc"
    src.write_bytes(b"".join(response(u, d, b, i) for i, (u, d, b) in enumerate(CAPTURES)))
    return src


def _convert(tmp_path, *extra):
    out = tmp_path / "seg"
    result = convert(_warc(tmp_path), "nutch-segment", out, *extra,
                     option=[f"segment={SEG}", "partitions=2"], workers=1, progress=None)  # fmt: skip
    return result.exit_code, out, result.report


def test_a_url_captured_twice_is_written_once_and_the_other_capture_quarantined(tmp_path):
    code, out, report = _convert(tmp_path)
    assert code == 3  # a capture the segment could not hold: not converted whole
    assert (report["read"], report["written"], report["dropped"], report["quarantined"]) == (
        6, 3, {}, 3)  # fmt: skip
    seg = out / SEG
    for sub in SUBDIRS:  # one entry per URL in every subdirectory (crawl_parse: its page datum)
        page_keys = [text_key(k) for _, es in parts(seg, sub) for k, v in es
                     if sub != "crawl_parse" or v.status == 0x41]  # fmt: skip
        want = URLS  # parse_text too: each HTML page parsed as parse-html
        assert sorted(page_keys) == want, sub
    # the first capture in pipeline order is the segment's fetch
    content = {c.url: c.content for _, es in parts(seg, "content") for _, c in es}
    assert content["http://example.com/a"] == b"<html>a, second fetch</html>"
    assert content["http://example.org/c"] == b"<html>c</html>"
    # the others are whole in the quarantine, with their code
    q = out / ".crawlmill" / "quarantine"  # one per partition
    entries = [json.loads(line) for f in sorted(q.rglob("*.jsonl"))
               for line in f.read_text().splitlines()]  # fmt: skip
    assert sorted((e["code"], e["url"], e["data"]) for e in entries) == [
        ("nutch-duplicate-url", "http://example.com/a", "record-json"),
        ("nutch-duplicate-url", "http://example.org/c", "record-json"),
        ("nutch-duplicate-url", "http://example.org/c", "record-json"),
    ]
    kept = sorted(base64.b64decode(json.loads(line)["payload"]["$b64"])
                  for f in q.rglob("*.bin") for line in f.read_bytes().splitlines())  # fmt: skip
    assert kept == [b"<html>a, first fetch</html>", b"<html>c again</html>",
                    b"<html>c, third</html>"]  # fmt: skip
    # the segment reads back with one record per URL and no duplicate reported
    from crawlmill.plugins.readers.nutch_segment import NutchSegmentReader

    (unit,) = NutchSegmentReader.discover(str(seg), NutchSegmentReader.Options())
    with open_reader(unit, "nutch-segment") as records:
        got = [(r.kind, r.url) for r in records]
    assert sorted(got) == [(RecordKind.RESPONSE, u) for u in URLS]
    assert records.warnings == [] and records.damages == []


def test_url_dedup_before_the_writer_chooses_the_capture_and_counts_a_drop(tmp_path):
    code, out, report = _convert(tmp_path, "--filter", "url-dedup", "rule=latest")
    assert code == 0
    assert (report["read"], report["written"], report["dropped"], report["quarantined"]) == (
        6, 3, {"url-dedup": {"duplicate": 3}}, 0)  # fmt: skip
    content = {c.url: c.content for _, es in parts(out / SEG, "content") for _, c in es}
    assert content["http://example.com/a"] == b"<html>a, second fetch</html>"
    assert content["http://example.org/c"] == b"<html>c, third</html>"
