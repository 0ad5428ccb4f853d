"""The ``nutch-segment`` writer: WARC -> segment -> WARC through the CLI keeps URL, date,
status, headers and payload of every response (read with warcio); every part holds six
subdirectories' values that decode consumed exactly, MapFiles sorted in Hadoop's raw order,
each URL in the part Nutch's ``URLPartitioner`` gives it; a real Nutch segment's parse text
and outlinks come back through the writer; and the partitioner's pieces, unit by unit."""

from __future__ import annotations

import hashlib
from datetime import datetime

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.mapfile import sort_key
from crawlmill.formats.hadoop.nutch import decode_nutch
from crawlmill.formats.hadoop.nutch_write import (
    fetch_status,
    java_string_hash,
    metadata_of_head,
    url_host,
    url_partition,
)
from crawlmill.formats.hadoop.sequencefile import iter_entries, read_header

from tests.conftest import need

SEG = "20261124000000"
TEXT = "org.apache.hadoop.io.Text"
WARCS = [
    "webrecorder-warcio/test/data/example-iana.org-chunked.warc",
    "real-world-2026-11/openzim-warc2zim/tests__data__http-return-codes.warc.gz",
    "real-world-2026-11/internetarchive-gowarc/testdata__warcs__test.warc.gz",
    "real-world-2026-11/iipc-webarchive-commons/src__test__resources__org__archive__format__warc__IAH-urls-wget.warc",
    "chatnoir-eu-chatnoir-resiliparse/tests/data/warcfile.warc.gz",
]
SUBDIRS = ("content", "crawl_fetch", "crawl_generate", "crawl_parse", "parse_data", "parse_text")


def to_segment(src, out, partitions=3, *extra) -> int:
    return main(["convert", str(src), "--to", "nutch-segment", "-o", str(out),
                 "--option", f"segment={SEG}", "--option", f"partitions={partitions}",
                 "--workers", "1", *extra])  # fmt: skip


def responses(path, first: bool = False):
    """URL -> sorted [(date, status line, headers, payload)] of every response (warcio);
    ``first``: only the first response of each URL in file order (what a segment holds)."""
    from warcio.archiveiterator import ArchiveIterator

    files = sorted(path.rglob("*.warc*")) if path.is_dir() else [path]
    out: dict[str, list] = {}
    for f in files:
        with open(f, "rb") as fh:
            for r in ArchiveIterator(fh):
                if r.rec_type != "response" or r.http_headers is None:
                    continue
                date = datetime.fromisoformat(r.rec_headers.get_header("WARC-Date"))
                item = (date, r.http_headers.statusline, r.http_headers.headers,
                        r.raw_stream.read())  # fmt: skip
                url = r.rec_headers.get_header("WARC-Target-URI")
                if not (first and url in out):
                    out.setdefault(url, []).append(item)
    return {u: sorted(v, key=repr) for u, v in out.items()}


def parts(seg, sub):
    """[(part number, [(key bytes, decoded value)])] of one subdirectory."""
    got = []
    for part in sorted((seg / sub).glob("part-r-*")):
        data = (part / "data" if part.is_dir() else part).read_bytes()
        h = read_header(data)
        entries = [(e.key, decode_nutch(h.value_class, e.value)) for e in iter_entries(data, h)]
        got.append((int(part.name[-5:]), entries))
    return got


def text_key(key: bytes) -> str:
    return key[1:].decode() if key[0] < 0x80 else key[2:].decode()


@pytest.mark.parametrize("rel", WARCS, ids=lambda p: p.rsplit("/", 1)[-1])
def test_warc_to_segment_to_warc_keeps_every_response(samples, tmp_path, rel, capsys):
    need("warcio")
    src = samples / rel
    # a segment holds one fetch per URL: url-dedup keeps the first (else the writer
    # quarantines the later ones, tests/plugins/test_nutch_writer_duplicates.py)
    assert to_segment(src, tmp_path / "seg", 3, "--filter", "kind", "keep=response",
                      "--filter", "url-dedup", "rule=first") == 0  # fmt: skip
    assert main(["convert", str(tmp_path / "seg" / SEG), "--to", "warc",
                 "-o", str(tmp_path / "back"), "--workers", "1"]) == 0  # fmt: skip
    want, got = responses(src, first=True), responses(tmp_path / "back")
    assert want and got == want


@pytest.mark.parametrize("rel", WARCS[1:2] + WARCS[3:4], ids=["codes", "wget"])
def test_every_part_decodes_sorted_and_partitioned_as_nutch(samples, tmp_path, rel):
    need("warcio")
    src = samples / rel
    assert to_segment(src, tmp_path / "seg", 3, "--filter", "kind", "keep=response",
                      "--filter", "url-dedup", "rule=first") == 0  # one fetch per URL  # fmt: skip
    seg = tmp_path / "seg" / SEG
    for sub in SUBDIRS:  # every subdirectory has all three parts
        assert sorted(p.name for p in (seg / sub).glob("part-r-*")) == [
            f"part-r-{i:05d}" for i in range(3)
        ], sub
    want = responses(src, first=True)
    payloads = {u: [x[3] for x in v] for u, v in want.items()}
    page_keys = None
    # a WARC has no text: each HTML page is parsed as parse-html (test_nutch_parse_html.py)
    texts = {text_key(k) for _, es in parts(seg, "parse_text") for k, _ in es}
    html = {text_key(k) for _, es in parts(seg, "content") for k, c in es
            if "html" in c.content_type.lower()}  # fmt: skip
    assert texts == html
    for sub in ("content", "crawl_fetch", "crawl_generate", "parse_data"):
        keys = []
        for number, entries in parts(seg, sub):
            ks = [k for k, _ in entries]
            assert [sort_key(TEXT, k) for k in ks] == sorted(sort_key(TEXT, k) for k in ks)
            for k in ks:
                assert url_partition(text_key(k), 3) == number
            keys += ks
        assert sorted(text_key(k) for k in keys) == sorted(u for u, v in want.items() for _ in v), (
            sub
        )
        page_keys = page_keys or sorted(keys)
        assert sorted(keys) == page_keys
    for _, entries in parts(seg, "content"):
        for key, content in entries:
            assert content.url == text_key(key) and content.content in payloads[content.url]
    fetched, expected = [], []
    for _, entries in parts(seg, "crawl_fetch"):
        for key, datum in entries:
            assert datum.version == 7 and datum.fetch_interval == 2_592_000
            code = datum.metadata.as_dict()[b"nutch.protocol.code"]
            fetched.append((text_key(key), datum.status, datum.fetch_time, code))
    for url, items in want.items():
        for date, line, _, _ in items:
            status = int(line.split()[0])
            expected.append((url, fetch_status(status), int(date.timestamp() * 1000),
                             str(status).encode()))  # fmt: skip
    assert sorted(fetched) == sorted(expected)
    signatures = [d.signature for _, es in parts(seg, "crawl_parse") for _, d in es
                  if d.status == 0x41]  # fmt: skip
    assert sorted(signatures) == sorted(
        hashlib.md5(p).digest() for v in payloads.values() for p in v
    )


def test_a_real_nutch_segment_keeps_its_text_and_outlinks(samples, tmp_path):
    seg_in = samples / "apache-nutch/test-segments/20150309101656"
    assert to_segment(seg_in, tmp_path / "a", 2, "--filter", "kind", "keep=response,resource") == 0
    assert to_segment(tmp_path / "a" / SEG, tmp_path / "b", 2) == 0

    from crawlmill.core import open_reader
    from crawlmill.plugins.readers.nutch_segment import NutchSegmentReader

    def read(path):
        (unit,) = NutchSegmentReader.discover(str(path), NutchSegmentReader.Options())
        with open_reader(unit, "nutch-segment") as records:
            return {r.url: r for r in records if r.kind.value in ("response", "resource")}

    orig, once, twice = read(seg_in), read(tmp_path / "a" / SEG), read(tmp_path / "b" / SEG)
    assert set(once) == set(orig) and once
    assert any(r.outlinks for r in orig.values()) and any(r.text for r in orig.values())
    for url, r in orig.items():
        for got in (once[url], twice[url]):
            assert (got.payload, got.text, got.date) == (r.payload, r.text, r.date)
            assert [(o.url, o.anchor) for o in got.outlinks] == [
                (o.url, o.anchor) for o in r.outlinks
            ]
            assert got.http_status == r.http_status
    linked = [text_key(k) for _, es in parts(tmp_path / "a" / SEG, "crawl_parse")
              for k, d in es if d.status == 0x43]  # fmt: skip
    assert sorted(linked) == sorted(o.url for r in orig.values() for o in r.outlinks)


def test_inspect_recognises_the_segment_we_write(samples, tmp_path, capsys):
    src = samples / WARCS[0]
    assert to_segment(src, tmp_path / "seg", 2, "--filter", "kind", "keep=response") == 0
    seg = tmp_path / "seg" / SEG
    capsys.readouterr()
    assert main(["inspect", str(seg), "--records", "1"]) == 0
    out = capsys.readouterr().out
    assert "reading with: nutch-segment" in out and "url:          http://www.iana.org/" in out
    assert "http_status:  200" in out


def test_records_that_are_no_capture_are_quarantined(samples, tmp_path, capsys):
    src = samples / WARCS[0]  # warcinfo, request, response
    assert to_segment(src, tmp_path / "seg", 1) == 3
    err = capsys.readouterr().err
    # the warcinfo is kept in the parts' SequenceFile metadata (test_nutch_warcinfo.py)
    assert "read 3 = written 2" in err and "quarantined 1" in err
    assert "warcinfo kept in SequenceFile metadata 1" in err
    (((key, content),),) = [es for _, es in parts(tmp_path / "seg" / SEG, "content")]
    assert content.url == "http://www.iana.org/"


# -- the mechanism ------------------------------------------------------------------------


def test_java_string_hash_is_javas():
    # values of Java's String.hashCode
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112
    assert java_string_hash("polygenelubricants") == -(2**31)
    assert java_string_hash("\U0001f600") == 31 * 0xD83D + 0xDE00  # UTF-16 code units


def test_url_host_is_java_urls_get_host():
    assert url_host("http://user:pw@Example.COM:8080/a?b#c") == "Example.COM"
    assert url_host("https://[::1]:443/") == "[::1]"
    assert url_host("http://example.com?q") == "example.com"
    assert url_host("file:/tmp/x") == ""
    assert url_host("dns:example.com") is None and url_host("no scheme") is None


def test_url_partition_hashes_the_host_and_the_seed():
    urls = [f"http://host{i}.example/{j}" for i in range(40) for j in range(3)]
    for u in urls:
        h = java_string_hash(url_host(u))
        assert url_partition(u, 7) == (h & 0x7FFFFFFF) % 7
        assert url_partition(u, 7, seed=12345) == ((h ^ 12345) & 0x7FFFFFFF) % 7
    # the path never moves a URL: all URLs of a host share a part
    assert len({url_partition(f"http://a.example/{j}", 16) for j in range(50)}) == 1
    assert len({url_partition(u, 16) for u in urls}) > 8
    assert url_partition("dns:a.example", 5) == (java_string_hash("dns:a.example") & 0x7FFFFFFF) % 5


def test_fetch_status_follows_nutchs_fetcher():
    assert [fetch_status(s) for s in (200, 204, None)] == [0x21] * 3
    assert [fetch_status(s) for s in (301, 308, 302, 303, 307, 304)] == [
        0x24, 0x24, 0x23, 0x23, 0x23, 0x26,
    ]  # fmt: skip
    assert [fetch_status(s) for s in (403, 404, 410, 500, 503, 429)] == [0x25] * 3 + [0x22] * 3


def test_headers_become_multivalued_metadata_in_first_seen_order():
    heads = [(b"Set-Cookie", b"a=1"), (b"Content-Type", b"text/html"), (b"Set-Cookie", b" b=2")]
    assert metadata_of_head(heads) == [
        ("Set-Cookie", ["a=1", "b=2"]),
        ("Content-Type", ["text/html"]),
    ]
