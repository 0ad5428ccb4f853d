"""The ``nutch-crawldb`` and ``nutch-linkdb`` writers, through the CLI: from a real Nutch
segment, the LinkDB holds exactly the inverted outlinks (checked against an inversion of the
segment's parse_data done here, straight from the files), the CrawlDB the fetched pages
(db status, next fetch time, MD5 signature) and every other outlink target as db_unfetched;
both read back by crawlmill's readers, parts sorted and placed by Hadoop's HashPartitioner;
from a WARC, the db status of each HTTP status."""

from __future__ import annotations

import hashlib

import pytest
from crawlmill.core import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.mapfile import hash_partition, sort_key
from crawlmill.formats.hadoop.nutch import decode_nutch
from crawlmill.formats.hadoop.nutch_write import fetch_status
from crawlmill.formats.hadoop.nutch_write_db import DB_STATUS, Page, crawldb, linkdb
from crawlmill.formats.hadoop.sequencefile import iter_entries, read_header

from tests.conftest import need
from tests.plugins.test_nutch_writer import WARCS, responses

SEGMENT = "apache-nutch/test-segments/20150309101656"
TEXT = "org.apache.hadoop.io.Text"
DAY30 = 2_592_000_000


def to_db(kind, src, out, partitions=2) -> int:
    return main(["convert", str(src), "--to", f"nutch-{kind}", "-o", str(out),
                 "--option", f"partitions={partitions}", "--workers", "1",
                 "--filter", "kind", "keep=response,resource"])  # fmt: skip


def entries(folder):
    """[(part number, [(key, decoded value)])] of ``folder/part-*/data``."""
    got = []
    for part in sorted(folder.glob("part-*")):
        data = (part / "data").read_bytes()
        h = read_header(data)
        got.append((int(part.name[-5:]),
                    [(e.key, decode_nutch(h.value_class, e.value)) for e in iter_entries(data, h)]))  # fmt: skip
    return got


def url_of(key: bytes) -> str:
    return key[1:].decode() if key[0] < 0x80 else key[2:].decode()


def flat(folder, partitions):
    """URL -> value of every part, checking each part's order and placement."""
    out = {}
    for number, es in entries(folder):
        keys = [k for k, _ in es]
        assert [sort_key(TEXT, k) for k in keys] == sorted(sort_key(TEXT, k) for k in keys)
        for k, v in es:
            assert hash_partition(TEXT, k, partitions) == number
            assert url_of(k) not in out
            out[url_of(k)] = v
    return out


def segment_pages(seg):
    """URL -> (content, fetch datum, outlinks) read from the segment's files here."""

    def values(sub):
        out = {}
        for part in sorted((seg / sub).glob("part-*")):
            data = (part / "data").read_bytes()
            h = read_header(data)
            for e in iter_entries(data, h):
                out[url_of(e.key)] = decode_nutch(h.value_class, e.value)
        return out

    content, fetch, parse = values("content"), values("crawl_fetch"), values("parse_data")
    return {u: (c, fetch[u], [(o.to_url, o.anchor) for o in parse[u].outlinks] if u in parse else [])
            for u, c in content.items()}  # fmt: skip


def test_linkdb_holds_exactly_the_inverted_outlinks(samples, tmp_path):
    seg = samples / SEGMENT
    assert to_db("linkdb", seg, tmp_path / "l") == 0
    db = flat(tmp_path / "l" / "current", 2)
    pages = segment_pages(seg)
    want = {(t, u, a) for u, (_, _, links) in pages.items() for t, a in links}
    got = {(t, i.from_url, i.anchor) for t, inl in db.items() for i in inl.inlinks}
    assert len(want) > 1000 and got == want
    # crawlmill's reader reads every entry back
    from crawlmill.plugins.readers.nutch_db import NutchLinkDbReader

    urls = []
    for unit in NutchLinkDbReader.discover(str(tmp_path / "l"), NutchLinkDbReader.Options()):
        with open_reader(unit, "nutch-linkdb") as records:
            urls += [r.url for r in records]
    assert sorted(urls) == sorted(db)


def test_crawldb_holds_the_pages_and_their_unfetched_targets(samples, tmp_path):
    seg = samples / SEGMENT
    assert to_db("crawldb", seg, tmp_path / "c", 3) == 0
    db = flat(tmp_path / "c" / "current", 3)
    pages = segment_pages(seg)
    targets = {t for _, _, links in pages.values() for t, _ in links} - set(pages)
    assert set(db) == set(pages) | targets and targets
    for url, (content, fetch, _) in pages.items():
        d = db[url]
        assert d.status == DB_STATUS[fetch.status] and d.version == 7
        assert d.fetch_time == fetch.fetch_time + DAY30 and d.modified_time == fetch.fetch_time
        assert d.signature == hashlib.md5(content.content).digest()
    latest = max(f.fetch_time for _, f, _ in pages.values())
    for url in targets:
        d = db[url]
        assert (d.status, d.score, d.signature) == (0x01, 0.0, None)
        assert d.fetch_time <= latest
    from crawlmill.plugins.readers.nutch_db import NutchCrawlDbReader

    statuses = {}
    for unit in NutchCrawlDbReader.discover(str(tmp_path / "c"), NutchCrawlDbReader.Options()):
        with open_reader(unit, "nutch-crawldb") as records:
            for r in records:
                statuses[r.url] = r.extras["nutch"]["crawl_datum"]["status_name"]
    assert set(statuses) == set(db)
    assert {statuses[u] for u in targets} == {"db_unfetched"}


def test_crawldb_from_a_warc_maps_each_http_status(samples, tmp_path):
    need("warcio")
    src = samples / WARCS[1]  # http-return-codes: 2xx, 3xx, 4xx, 5xx
    assert to_db("crawldb", src, tmp_path / "c", 1) == 0
    db = flat(tmp_path / "c" / "current", 1)
    want = responses(src)
    seen = set()
    for url, items in want.items():
        date, line, _, payload = max(items, key=lambda x: x[0])
        status = int(line.split()[0])
        d = db[url]
        assert d.status == DB_STATUS[fetch_status(status)]
        assert d.metadata.as_dict()[b"nutch.protocol.code"] == str(status).encode()
        assert d.signature == hashlib.md5(payload).digest()
        seen.add(d.status)
    assert {0x02, 0x03, 0x04, 0x05} <= seen


# -- the rules, unit by unit ----------------------------------------------------------------


def test_the_latest_capture_wins_and_a_page_is_never_unfetched():
    a = Page(
        "http://a/",
        0x21,
        1000,
        b"s1",
        200,
        "text/html",
        [("http://b/", "B"), ("http://a/", "self")],
    )
    a2 = Page("http://a/", 0x25, 5000, b"s2", 404)
    c = Page("http://c/", 0x22, 3000, b"s3", 503, "", [("http://b/", "b"), ("http://a/", "A")])
    db = crawldb([a, a2, c])
    assert db["http://a/"].status == 0x03 and db["http://a/"].signature == b"s2"
    assert (db["http://c/"].status, db["http://c/"].retries) == (0x01, 1)
    assert (db["http://b/"].status, db["http://b/"].fetch_time) == (0x01, 3000)
    inv = linkdb([a, c])
    assert {u: [(i.from_url, i.anchor) for i in v.inlinks] for u, v in inv.items()} == {
        "http://b/": [("http://a/", "B"), ("http://c/", "b")],
        "http://a/": [("http://a/", "self"), ("http://c/", "A")],
    }
    internal = linkdb([a, c], ignore_internal=True)
    assert [(i.from_url, i.anchor) for i in internal["http://a/"].inlinks] == [("http://c/", "A")]


@pytest.mark.parametrize("dup", [2, 3])
def test_an_inlink_is_kept_once_per_source_and_anchor(dup):
    p = Page("http://a/", 0x21, 1, b"", 200, "", [("http://b/", "x")] * dup + [("http://b/", "y")])
    assert [(i.from_url, i.anchor) for i in linkdb([p])["http://b/"].inlinks] == [
        ("http://a/", "x"), ("http://a/", "y"),
    ]  # fmt: skip


def test_a_warc_gives_the_linkdb_of_the_links_its_html_pages_hold(samples, tmp_path):
    need("warcio")
    src = samples / WARCS[4]  # resiliparse's sample: HTML pages
    assert to_db("linkdb", src, tmp_path / "l", 2) == 0
    db = flat(tmp_path / "l" / "current", 2)
    got = {(t, i.from_url, i.anchor) for t, inl in db.items() for i in inl.inlinks}
    # the segment written from the same WARC holds the same outlinks in its parse_data
    assert main(["convert", str(src), "--to", "nutch-segment", "-o", str(tmp_path / "s"),
                 "--option", "segment=s1", "--workers", "1",
                 "--filter", "kind", "keep=response"]) == 0  # fmt: skip
    want = set()
    for _, es in entries(tmp_path / "s" / "s1" / "parse_data"):
        for key, parse in es:
            want |= {(o.to_url, url_of(key), o.anchor) for o in parse.outlinks}
    assert len(got) > 100 and got == want


def test_html_outlinks_as_parse_html_finds_them():
    from crawlmill.formats.hadoop.nutch_write_links import html_outlinks

    page = (b'<html><head><base href="http://b.example/dir/"></head><body>'
            b'<a href="x.html#frag">X <b>bold</b>\n text</a> <a href="mailto:a@b">mail</a>'
            b'<a href="/abs">Abs</a><a href="/abs">Abs</a><a href="/abs">other</a>'
            b'<area href="https://c.example/map"><iframe src="//d.example/f"></iframe>'
            b'<a name="no-href">none</a><img src="/img.png"></body></html>')  # fmt: skip
    assert html_outlinks("http://a.example/page", page) == [
        ("http://b.example/dir/x.html", "X bold text"),
        ("http://b.example/abs", "Abs"),
        ("http://b.example/abs", "other"),
        ("https://c.example/map", ""),
        ("http://d.example/f", ""),
        ("http://b.example/img.png", ""),  # img src, as DOMContentUtils takes it
    ]
    many = b"".join(b"<a href='/%d'>%d</a>" % (n, n) for n in range(50))
    assert html_outlinks("http://a.example/", many, max_links=3) == [
        ("http://a.example/0", "0"), ("http://a.example/1", "1"), ("http://a.example/2", "2"),
    ]  # fmt: skip
    assert html_outlinks(
        "http://a.example/", b"<a href='http://[bad'>x</a><a href='/ok'>y</a>"
    ) == [("http://a.example/ok", "y")]
