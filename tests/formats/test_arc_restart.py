"""Two ways an ARC record was read wrongly with nothing said, found by the fault soak (seeds
7000-7002), on records built here:

* a header line cut short with a whole one glued after it (a writer that died inside a
  header line and was restarted) read as one header line: the ARC v1 header line is
  "``URL IP-address Archive-date Content-type Archive-length``" (the fact sheet, §3.2), split
  from the right (URLs hold spaces), so the cut bytes joined the URL and the record was
  delivered under a URL it never had (formats/arc/restart.py);
* a declared length one byte off that swallows the separator (or leaves the block's final
  ``\\n`` out) read as a sound record with another block: the block's HTTP ``Content-Length``
  disproves it (formats/arc/witness.py).

warcio, an independent reader, agrees with the records' blocks on the intact files.
"""

from __future__ import annotations

import io

import pytest
from crawlmill.formats.arc.framing import ArcRecordBytes, file_span, iter_arc
from crawlmill.formats.arc.header import build_filedesc, build_header_line
from crawlmill.formats.arc.length import Action, Facts, decide
from crawlmill.formats.arc.restart import restart_at
from crawlmill.formats.arc.witness import http_block_length
from crawlmill.formats.codecs.stream import Damage

FD = build_filedesc(b"t.arc", b"20260101000000")


def http(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s" % (
        len(body),
        body,
    )


BLOCKS = [http(b"<p>zero</p>"), http(b"<p>one</p>\n"), http(b"<p>two</p>"), http(b"")]


def line(url: bytes, length: int, ip: bytes = b"10.0.5.169") -> bytes:
    return build_header_line(url, ip, b"20260101000005", b"text/html", length)


def record(url: bytes, block: bytes, length: int | None = None) -> bytes:
    return line(url, len(block) if length is None else length) + b"\n" + block + b"\n"


def walk(data: bytes) -> tuple[list[ArcRecordBytes], list[Damage]]:
    items = list(iter_arc(io.BytesIO(data)))
    recs = [i for i in items if isinstance(i, ArcRecordBytes)]
    return recs, [i for i in items if isinstance(i, Damage)]


def warcio_agrees(recs: list[ArcRecordBytes], data: bytes, need) -> bool:
    """Whether warcio reads the same blocks in ``data`` as ``recs`` (after the filedesc): the
    HTTP payload where it parses the HTTP head, else the whole block."""
    need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    theirs = []
    for r in ArchiveIterator(io.BytesIO(data), arc2warc=True):
        theirs.append((r.http_headers is not None, r.raw_stream.read()))
    ours = [
        b.block.split(b"\r\n\r\n", 1)[1] if http else b.block
        for b, (http, _) in zip(recs, theirs[1:], strict=True)
    ]
    return ours == [raw for _, raw in theirs[1:]]


# -- a header line cut short, a whole one glued on -------------------------------------------

URLS = [
    b"http://example0.org/uri/4",
    b"http://example0.org/uri/5",
    b"http://example3.org/x/6",
    b"http://d.example/",
]


@pytest.mark.parametrize(
    "cut",
    [
        # soak arc/plain/insert-restart/s7001: the first 20 bytes of the same header
        line(URLS[1], 124)[:20],
        line(URLS[1], 124)[:24],  # "http://example0.org/uri/": the same origin
        b"http://example1.org/",  # another site's origin alone: no path holds the URL
        b"http://example1.org:",  # a port is digits
        b"http://example1.org/ur",  # glued to a word byte
        # soak arc/sample-plain/insert-restart/s7002: cut after the content type's space
        line(b"http://cctr.umkc.edu:80/user/jbenz/tst.htm", 4270, b"134.193.4.1")[:80],
        b"http://a.example/page 10.0.0.1 ",  # cut after the IP-address field
        b"http://a.example/page - 20260101000001 ",  # a dashed IP-address and a date
        b"filedesc://other.arc ",  # after a space, an origin alone
        # soak arc/sample-plain/insert-restart/s9018: cut after a whole URL and its space
        b"http://adrm1.euro.apple.com:80/dev/QuickDraw3D/graphics/E-API-018.jpg ",
        b"http://a.example/with space/",  # the URL field would hold a space
    ],
)
def test_a_cut_header_line_is_damage_and_the_next_record_is_read_whole(cut: bytes) -> None:
    recs = [record(u, b) for u, b in zip(URLS, BLOCKS, strict=True)]
    data = FD + recs[0] + cut + b"".join(recs[1:])
    got, damage = walk(data)
    assert [r.header.url for r in got[1:]] == URLS
    assert [r.block for r in got[1:]] == BLOCKS
    assert got[2].header.raw == line(URLS[1], len(BLOCKS[1])) and not got[2].damaged
    (d,) = damage
    assert d.code == "header-cut-short" and d.data == cut
    assert file_span(d) == (len(FD + recs[0]), len(cut))


@pytest.mark.parametrize(
    "url",
    [
        b"http://web.archive.org/web/2001/http://example.com/",
        b"http://x.example/go?u=http://example.com/",
        b"http://x.example/go?u%3Dhttp://example.com/",
        b"http://embedserver/e/https://twitter.com/status/1",  # in a real Webrecorder WARC
        b"urn:pageinfo:https://website.test.openzim.org/200-response",  # warc2zim's WARCs
        b"http://a.example/q?x=see http://b.example/",  # a Common Crawl 2012 URL with spaces
        b"http://a.example/a b http://b.example/",
        b"http://a.example/p?q=1 http://b.example/",  # a query before the space
    ],
)
def test_a_url_that_embeds_another_stays_one_record(url: bytes, need) -> None:
    data = FD + record(url, BLOCKS[0]) + record(URLS[1], BLOCKS[1])
    got, damage = walk(data)
    assert not damage and [r.header.url for r in got[1:]] == [url, URLS[1]]
    assert [r.block for r in got[1:]] == BLOCKS[:2]
    assert warcio_agrees(got[1:], data, need)


def test_a_url_embedding_its_own_site_after_a_slash_is_read_as_a_restart() -> None:
    """The rule's one price (formats/arc/restart.py): a crawler-trap URL that embeds one of
    its own site's URLs is reported (exit 3) rather than a restart read silently."""
    h = line(b"http://a.example/dir/http://a.example/x", 20)
    assert restart_at(h, "1", False) == len(b"http://a.example/dir/")
    assert restart_at(line(b"http://a.example/dir/http://b.example/x", 20), "1", False) is None


# -- a length one byte off, disproved by the HTTP head -------------------------------------


def test_http_block_length_adds_the_head_and_its_content_length() -> None:
    assert http_block_length(BLOCKS[1]) == len(BLOCKS[1])
    assert http_block_length(b"HTTP/1.0 200 OK\nContent-Length: 3\n\nabc") == 38
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"
    two = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n"
    for head in (chunked, two, b"HTTP/1.1 200 OK\r\n\r\n", b"GET / HTTP/1.1\r\n\r\n"):
        assert http_block_length(head) is None


def test_decide_a_proved_end_wins_over_the_confirmed_declared_one() -> None:
    v = decide(Facts(10, 51, confirmed=51, data_end=51, proved_end=50))
    assert (v.action, v.body_end, v.next) == (Action.PROVED, 50, 51) and v.repaired


@pytest.mark.parametrize(
    "k,delta",
    [
        (1, +1),  # soak arc/plain/bitflip-header/s7000: 1576 -> 1577 swallows the separator
        (1, -1),  # the block ends in "\n": one byte short reads that "\n" as the separator
        (2, +1),
        (3, +1),  # an empty body
    ],
)
def test_a_length_off_by_the_separator_is_damage_and_the_block_is_the_http_one(
    k: int, delta: int, need
) -> None:
    recs = [record(u, b) for u, b in zip(URLS, BLOCKS, strict=True)]
    intact = FD + b"".join(recs)
    recs[k] = record(URLS[k], BLOCKS[k], len(BLOCKS[k]) + delta)
    got, damage = walk(FD + b"".join(recs))
    assert [r.block for r in got[1:]] == BLOCKS
    assert warcio_agrees(got[1:], intact, need)
    assert [r.damaged for r in got[1:]] == [i == k for i in range(4)]
    (d,) = damage
    assert d.code == "bad-length" and "Content-Length" in d.reason
    assert file_span(d) == (len(FD) + sum(map(len, recs[:k])), len(recs[k]))


def test_a_writer_that_leaves_separators_out_is_not_second_guessed() -> None:
    """Records with no separator whose HTTP heads agree with the declared lengths (Heritrix's
    blackbook ARC) set the file's habit: a later HTTP head that disagrees is not used."""
    blocks = [http(b"<p>a</p>\n"), http(b"<p>b</p>\n"), http(b"<p>c</p>") + b"\n"]
    data = FD + b"".join(line(u, len(b)) + b"\n" + b for u, b in zip(URLS, blocks, strict=False))
    got, damage = walk(data)
    assert not damage and [r.block for r in got[1:]] == blocks
