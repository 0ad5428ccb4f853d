"""The ``nutch-segment`` reader: real Nutch segments (2006, 2015, Common Crawl 2026) read as one
unit per segment, one record per URL, and converted to WARC through the CLI keeping URL, fetch
time, status, headers and payload of every fetched page (read back with warcio)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from crawlmill.core import RecordKind, open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.nutch import decode_nutch
from crawlmill.formats.hadoop.nutch_http import fix_head, head_from_metadata
from crawlmill.formats.hadoop.sequencefile import iter_entries, read_header

from tests.conftest import need


def _read(path, **options):
    from crawlmill.plugins.readers.nutch_segment import NutchSegmentReader

    (unit,) = NutchSegmentReader.discover(str(path), NutchSegmentReader.Options(**options))
    with open_reader(unit, "nutch-segment", **options) as records:
        return list(records)


SEGMENTS = [
    "apache-nutch/test-segments/20150309101625",
    "apache-nutch/test-segments/20150309101656",
    "apache-nutch/testcrawl/segments/20060919213635",
    "apache-nutch/testcrawl/segments/20060919213643",
    "commoncrawl-nutch/test-segments/20260224170658-revisit",
]


def _values(path):
    data = path.read_bytes()
    h = read_header(data)
    return [(e.key, decode_nutch(h.value_class, e.value, legacy=h.version < 4))
            for e in iter_entries(data, h)]  # fmt: skip


def _expected(seg):
    """URL -> (content, crawl_fetch datum) straight from the files, and every URL a page
    subdirectory (not the outlink datums of crawl_parse) names."""
    pages, fetch, urls = {}, {}, set()
    for sub in ("content", "crawl_fetch", "parse_data", "parse_text", "crawl_generate"):
        folder = seg / sub
        if not folder.is_dir():
            continue
        for part in sorted(folder.glob("part-*")):
            data = part / "data" if part.is_dir() else part
            for _, value in _values(data):
                url = value.url if sub == "content" else None
                if sub == "content":
                    pages[url] = value
                urls.add(url) if url else None
            if sub != "content":
                keys = [k for k, _ in _values(data)]
                hv = read_header(data.read_bytes())
                off = 1 if hv.version >= 4 else 2
                names = [k[off:].decode("utf-8") for k in keys]
                urls.update(names)
                if sub == "crawl_fetch":
                    fetch.update(zip(names, [v for _, v in _values(data)], strict=True))
    return pages, fetch, urls


@pytest.mark.parametrize("rel", SEGMENTS)
def test_segment_to_warc_keeps_every_fetched_page(samples, tmp_path, capsys, rel):
    warcio = need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    seg = samples / rel
    pages, fetch, urls = _expected(seg)
    out = tmp_path / "out"
    assert main(["convert", str(seg), "--to", "warc", "-o", str(out), "--workers", "1"]) == 0, (
        capsys.readouterr().err
    )
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["damages"] == [] and report["read"] == len(urls)  # one record per URL
    (warc,) = out.glob("*.warc.gz")
    got = {}
    kinds = {"response": 0, "metadata": 0}
    with open(warc, "rb") as fh:
        for rec in ArchiveIterator(fh):
            kind = rec.rec_type
            if kind in kinds:
                kinds[kind] += 1
            if kind == "response":
                uri = rec.rec_headers.get_header("WARC-Target-URI")
                got[uri] = (rec.rec_headers.get_header("WARC-Date"), rec.http_headers,
                            rec.content_stream().read())  # fmt: skip
    assert kinds == {"response": len(pages), "metadata": len(urls) - len(pages)}
    assert set(got) == set(pages)
    assert warcio is not None
    for url, content in pages.items():
        date, http, payload = got[url]
        assert payload == content.content  # the stored bytes, whole
        when = fetch[url].fetch_time if url in fetch else int(content.metadata.get("nutch.fetch.time"))
        want = datetime.fromtimestamp(when / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        assert date.startswith(want)
        stored = content.metadata.get("_response.headers_")
        if stored:  # the verbatim status line and every header kept (wrong ones renamed)
            assert http.protocol + " " + http.statusline == stored.split("\r\n", 1)[0].strip()
            names = [line.split(":", 1)[0] for line in stored.split("\r\n")[1:] if line]
            got_names = [n.removeprefix("X-Crawler-") for n, _ in http.headers]
            assert [n for n in got_names if n.lower() != "content-length"] == [
                n for n in names if n.lower() != "content-length"
            ]
        else:  # rebuilt: the fetch's status and every header value Nutch kept
            status = {"fetch_success": "200", "fetch_redir_perm": "301",
                      "fetch_redir_temp": "302"}[fetch[url].status_name]  # fmt: skip
            assert http.get_statuscode() == status
            for name, values in content.metadata.entries:
                if name[0] != "_" and not name.startswith("nutch.") and name.lower() not in (
                    "content-length", "content-encoding", "transfer-encoding"):  # fmt: skip
                    assert http.get_header(name) == values[0]
        # the length a WARC reader would frame the payload with is the stored body's
        assert http.get_header("Content-Length") in (None, str(len(content.content)))
        assert http.get_header("Content-Encoding") is None
        assert http.get_header("Transfer-Encoding") is None


def test_one_unit_per_segment_and_side_files_ignored(samples):
    from crawlmill.plugins.readers.nutch_segment import NutchSegmentReader

    units = NutchSegmentReader.discover(str(samples / "apache-nutch/testcrawl/segments"),
                                        NutchSegmentReader.Options())  # fmt: skip
    assert [u.relpath for u in units] == ["20060919213635", "20060919213643"]
    assert sorted(units[0].parts) == sorted(
        f"{s}/part-00000" for s in ("content", "crawl_fetch", "crawl_generate", "crawl_parse",
                                    "parse_data", "parse_text")
    )  # fmt: skip
    assert all(".crc" not in p and not p.endswith("index") for p in units[0].parts.values())
    assert NutchSegmentReader.sniff(str(samples / "apache-nutch/testcrawl/segments"), b"") > 0.5
    assert NutchSegmentReader.sniff(str(samples / "apache-nutch/testcrawl/crawldb"), b"") == 0


def test_failed_fetch_is_a_metadata_record_with_its_datums(samples):
    seg = samples / "apache-nutch/test-segments/20150309101656"
    recs = _read(seg)
    failed = [r for r in recs if r.kind == RecordKind.METADATA]
    assert len(failed) == 12
    for r in failed:
        nutch = r.extras["nutch"]
        assert "crawl_fetch" in nutch and "content" not in nutch
        assert json.loads(r.payload)["crawl_fetch"][0]["status_name"] == nutch["crawl_fetch"][0]["status_name"]
    page = next(r for r in recs if r.url == "http://accumulo.apache.org/")
    assert page.text.startswith("Apache Accumulo") and len(page.outlinks) > 10
    assert page.ip == "104.130.219.184"
    assert page.extras["nutch"]["crawl_fetch"][0]["status_name"] == "fetch_success"
    assert page.extras["nutch"]["head"]["renamed"] == ["Content-Length", "Content-Encoding"]


def test_linked_datums_counted_or_delivered(samples):
    seg = samples / "apache-nutch/test-segments/20150309101625"
    assert len(_read(seg)) == 1
    recs = _read(seg, linked=True)
    assert len(recs) == 101 and sum(r.extras["nutch"].get("linked", False) for r in recs) == 100


def test_fix_head_renames_what_the_decoded_body_makes_wrong():
    head = (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n"
            b"Content-Encoding: gzip\r\nX-A: b\r\n\r\n")  # fmt: skip
    fixed, renamed = fix_head(head, b"hello")
    assert renamed == ["Content-Length", "Transfer-Encoding", "Content-Encoding"]
    assert fixed == (b"HTTP/1.1 200 OK\r\nX-Crawler-Content-Length: 10\r\n"
                     b"X-Crawler-Transfer-Encoding: chunked\r\nX-Crawler-Content-Encoding: gzip\r\n"
                     b"X-A: b\r\nContent-Length: 5\r\n\r\n")  # fmt: skip
    still = fix_head(b"HTTP/1.1 200 OK\nContent-Encoding: gzip\nContent-Length: 3\n", b"\x1f\x8b\x08")
    assert still == (b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 3\r\n\r\n", [])
    rebuilt = head_from_metadata(404, [("_ip_", ["1.2.3.4"]), ("Server", ["x"]),
                                       ("nutch.segment.name", ["1"]), ("Set-Cookie", ["a", "b"])])  # fmt: skip
    assert rebuilt == b"HTTP/1.1 404 Not Found\r\nServer: x\r\nSet-Cookie: a\r\nSet-Cookie: b\r\n\r\n"


def test_inspect_names_a_nutch_part_and_recognises_a_segment(samples, capsys):
    seg = samples / "apache-nutch/test-segments/20150309101625"
    assert main(["inspect", str(seg / "content/part-00000/data"), "--records", "0"]) == 0
    out = capsys.readouterr().out
    assert "-> org.apache.nutch.protocol.Content (Nutch Content:" in out
    assert "SequenceFile SEQ6, RECORD DefaultCodec" in out
    assert main(["inspect", str(seg / "crawl_generate/part-00000"), "--records", "0"]) == 0
    assert "(Nutch CrawlDatum:" in capsys.readouterr().out
    assert main(["inspect", str(seg), "--records", "1"]) == 0
    out = capsys.readouterr().out
    assert "nutch-segment    0.90" in out and "reading with: nutch-segment" in out
    assert "url:          http://nutch.apache.org/" in out and "http_status:  200" in out
