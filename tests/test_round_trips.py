"""Round trips through every writer/reader pair we ship, on real samples, read by warcio.

Each pair converts two real samples (wget's ``example-wget-1-14.warc.gz``, WARC/1.0, and the
ClueWeb09 sample ``segment1.warc.gz``, WARC/0.18 with an invalid date) with ``crawlmill convert
--to X``, converts the result back with ``--to warc`` (WARC/1.1), and compares every response
(and resource) record with the same samples converted straight to WARC/1.1 (the reference, as
warcio cannot read the 0.18 sample itself): URL, date or its documented original
(``Crawlmill-Original-Date``), the HTTP head and the payload, byte for byte. What a target format
cannot hold is asserted as the loss docs/formats/round-trips.md names, never skipped.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers import cli_process

ROOT = Path(__file__).resolve().parent.parent
WGET = "webrecorder-pywb/sample_archive/warcs/example-wget-1-14.warc.gz"
CW09 = "castorini-anserini/sample_docs/cw09/collection1/segment1.warc.gz"
CAPTURES = ("response", "resource")
RESPONSES_ONLY = ["--filter", "kind", "keep=response"]
CAPTURES_ONLY = ["--filter", "kind", "keep=response,resource"]


def crawlmill(*args: object) -> subprocess.CompletedProcess:
    """``crawlmill ARGS...`` run in this process (the suite's CLI harness: the round trips are
    about the bytes, not the process), as a finished process."""
    return cli_process(*args)


def split_head(kind: str, block: bytes) -> tuple[bytes, bytes]:
    """A response block's HTTP head (through its blank line) and payload; a resource has no head."""
    if kind != "response":
        return b"", block
    m = re.search(rb"\r?\n\r?\n", block)
    assert m, block[:200]
    return block[: m.end()], block[m.end() :]


def read_warcs(root: Path, glob: str = "*.warc*") -> dict[tuple[str, str], list[dict]]:
    """Every record of the WARCs below ``root`` as warcio reads them, by (type, URL)."""
    from warcio.archiveiterator import ArchiveIterator

    out: dict[tuple[str, str], list[dict]] = {}
    files = [p for p in sorted(root.rglob(glob)) if ".crawlmill" not in p.parts]
    assert files, f"no WARC below {root}"
    for path in files:
        with open(path, "rb") as fh:
            for rec in ArchiveIterator(fh, no_record_parse=True):
                h = rec.rec_headers
                head, payload = split_head(rec.rec_type, rec.raw_stream.read())
                out.setdefault((rec.rec_type, h.get_header("WARC-Target-URI")), []).append(
                    {
                        "date": h.get_header("WARC-Date"),
                        "original": h.get_header("Crawlmill-Original-Date"),
                        "trec": h.get_header("WARC-TREC-ID"),
                        "head": head,
                        "payload": payload,
                    }
                )
    return out


@pytest.fixture(scope="module")
def inputs(samples: Path) -> list[Path]:
    return [samples / WGET, samples / CW09]


@pytest.fixture(scope="module")
def reference(inputs: list[Path], tmp_path_factory) -> dict[tuple[str, str], dict]:
    """The samples straight to WARC/1.1, read by warcio: the captures each round trip must keep."""
    pytest.importorskip("warcio")
    out = tmp_path_factory.mktemp("reference")
    result = crawlmill("convert", *inputs, "--to", "warc", "--option", "version=1.1", "-o", out)
    assert result.returncode == 0, result.stderr
    ref = {k: v[0] for k, v in read_warcs(out).items() if k[0] in CAPTURES}
    # the samples hold two HTTP responses and wget's three resources; the ClueWeb09 date is
    # invalid (2009-03-65), kept as Crawlmill-Original-Date beside a derived WARC-Date
    assert sorted(k for k in ref if k[0] == "response") == [
        ("response", "http://clueweb09.test.com/"),
        ("response", "http://example.com/"),
    ]
    assert sum(k[0] == "resource" for k in ref) == 3
    assert ref[("response", "http://clueweb09.test.com/")]["original"] == (
        "2009-03-65T08:43:19-0800"
    )
    return ref


def round_trip(inputs: list[Path], tmp_path: Path, *args: str) -> dict:
    """``convert inputs args -o mid`` then ``convert mid --to warc (1.1)``; warcio's reading."""
    mid, back = tmp_path / "mid", tmp_path / "back"
    first = crawlmill("convert", *inputs, *args, "-o", mid)
    assert first.returncode == 0, first.stderr
    second = crawlmill("convert", mid, "--to", "warc", "--option", "version=1.1", "-o", back)
    assert second.returncode == 0, second.stderr
    return read_warcs(back)


def assert_kept(ref: dict, got: dict, kinds: tuple[str, ...], original: bool) -> None:
    """Each reference capture of ``kinds`` comes back once, as the same kind, with the same
    URL, date, HTTP head and payload bytes; its original date too when ``original``."""
    for key, want in ref.items():
        if key[0] not in kinds:
            continue
        assert len(got.get(key, [])) == 1, key
        back = got[key][0]
        assert back["date"] == want["date"], key
        assert back["head"] == want["head"], key
        assert back["payload"] == want["payload"], key
        if original:
            assert back["original"] == want["original"], key


WARC_PAIRS = {
    "warc-1.1-plain": ["--option", "version=1.1", "--option", "compression=none"],
    "warc-1.1-gzip": ["--option", "version=1.1"],
    "warc-1.0-plain": ["--option", "version=1.0", "--option", "compression=none"],
    "warc-1.0-gzip": ["--option", "version=1.0"],
    "warc-0.18-plain": ["--option", "version=0.18", "--option", "compression=none"],
    "warc-0.18-gzip": ["--option", "version=0.18"],
    "clueweb09-layout": ["--option", "layout=clueweb09"],
}


@pytest.mark.parametrize("options", WARC_PAIRS.values(), ids=WARC_PAIRS.keys())
def test_warc_writers_keep_everything(inputs, reference, tmp_path, options) -> None:
    """Every WARC version, compressed or plain, and the ClueWeb09 layout: every capture (responses
    and resources) with URL, date, Crawlmill-Original-Date, HTTP head and payload, byte for byte."""
    got = round_trip(inputs, tmp_path, "--to", "warc", *options)
    assert_kept(reference, got, CAPTURES, original=True)
    for key, want in reference.items():
        if key[0] == "response" and "layout=clueweb09" in options:  # every page numbered
            assert re.fullmatch(r"clueweb09-en0000-\d\d-\d{5}", got[key][0]["trec"]), key
        elif key[0] == "response":  # the ClueWeb09 sample's id kept, none added to wget's
            assert got[key][0]["trec"] == want["trec"], key
    assert reference[("response", "http://clueweb09.test.com/")]["trec"] == (
        "clueweb09-az0000-00-00000"
    )


@pytest.mark.parametrize("writer", ["arc", "cc2012"])
def test_arc_writers_keep_captures_but_not_the_original_date(
    inputs, reference, tmp_path, writer
) -> None:
    """ARC v1 (and cc2012's ARC files): responses and resources keep URL, date, head and payload;
    an ARC header line has five fixed fields, so an invalid original date (ClueWeb09's
    2009-03-65) is lost and only the derived date comes back. Request records cannot be
    written (filtered out here)."""
    got = round_trip(inputs, tmp_path, *CAPTURES_ONLY, "--to", writer)
    assert_kept(reference, got, CAPTURES, original=False)
    assert got[("response", "http://clueweb09.test.com/")][0]["original"] is None
    assert not any(k[0] == "request" for k in got)
    assert got[("response", "http://clueweb09.test.com/")][0]["trec"] is None
    # each ARC file's filedesc comes back as a metadata record
    assert sum(k[0] == "metadata" and k[1].startswith("filedesc://") for k in got) == 2
    if writer == "cc2012":  # the metadata JSON comes back beside each HTML capture
        meta = json.loads(got[("metadata", "http://example.com/")][0]["payload"])
        want = reference[("response", "http://example.com/")]["payload"]
        assert meta["md5"] == hashlib.md5(want).hexdigest()


def test_nutch_segment_keeps_responses_and_changes_resources(inputs, reference, tmp_path) -> None:
    """A Nutch segment: each fetched page keeps URL, fetch date, HTTP head (Content metadata) and
    payload. Nutch holds one fetch per URL (no URL is captured twice here) and no resource kind:
    a resource comes back as a response whose head is ``HTTP/1.1 200 OK`` and nothing else; its
    payload bytes stay."""
    got = round_trip(inputs, tmp_path, *CAPTURES_ONLY, "--to", "nutch-segment")
    assert_kept(reference, got, ("response",), original=False)
    for (kind, url), want in reference.items():
        if kind == "resource":
            assert ("resource", url) not in got
            (back,) = got[("response", url)]
            assert back["head"] == b"HTTP/1.1 200 OK\r\n\r\n"
            assert back["payload"] == want["payload"]
            assert back["date"] == want["date"]


def test_nutch_segment_keeps_the_original_date(inputs, reference, tmp_path) -> None:
    """The invalid original date (ClueWeb09's 2009-03-65) is kept in the Content metadata
    (``_crawlmill.original_date_``, beside the fetch time of the date it means) and comes back
    as the WARC's ``Crawlmill-Original-Date``, with no ``original-date-dropped`` warning."""
    got = round_trip(inputs, tmp_path, *RESPONSES_ONLY, "--to", "nutch-segment")
    assert_kept(reference, got, ("response",), original=True)
    assert got[("response", "http://clueweb09.test.com/")][0]["original"] == (
        "2009-03-65T08:43:19-0800"
    )
    warnings = json.loads((tmp_path / "mid" / ".crawlmill" / "report.json").read_text())
    assert "original-date-dropped" not in warnings["warnings"]


def test_nutch_crawldb_keeps_url_status_dates_and_digest(inputs, reference, tmp_path) -> None:
    """A CrawlDB holds a CrawlDatum per URL, no payload or head: the URL, the capture date
    (modified time), the HTTP status and Content-Type (datum metadata) and the payload's MD5
    (signature) come back, as a metadata record; the head's other fields and the payload are lost."""
    got = round_trip(inputs, tmp_path, *RESPONSES_ONLY, "--to", "nutch-crawldb")
    for (kind, url), want in reference.items():
        if kind != "response":
            continue
        assert ("response", url) not in got  # the payload and head are lost
        (back,) = got[("metadata", url)]
        datum = json.loads(back["payload"])["crawl_datum"]
        assert datum["status_name"] == "db_fetched"
        assert datum["signature_hex"] == hashlib.md5(want["payload"]).hexdigest()
        date = want["date"].replace("Z", "+00:00")
        from datetime import datetime

        assert datum["modified_time"] == int(datetime.fromisoformat(date).timestamp() * 1000)
        entries = {e[1]: e[3] for e in datum["metadata"]["entries"]}
        assert entries["nutch.protocol.code"] == want["head"].split()[1].decode()
        assert entries["Content-Type"] == "text/html"
    # the outlink target of example.com is there, unfetched
    (target,) = got[("metadata", "http://www.iana.org/domains/example")]
    assert json.loads(target["payload"])["crawl_datum"]["status_name"] == "db_unfetched"


def test_nutch_linkdb_keeps_the_links_only(inputs, reference, tmp_path) -> None:
    """A LinkDB holds inlinks per target URL, nothing of the pages: example.com's one link comes
    back as the target's metadata record naming its source and anchor; every capture is lost."""
    got = round_trip(inputs, tmp_path, *RESPONSES_ONLY, "--to", "nutch-linkdb")
    assert not any(k[0] in CAPTURES for k in got)
    (target,) = got[("metadata", "http://www.iana.org/domains/example")]
    inlinks = json.loads(target["payload"])["inlinks"]["inlinks"]
    assert [(i["from_url"], i["anchor"]) for i in inlinks] == [
        ("http://example.com/", "More information...")
    ]


#: the headers the 2012 crawler left out of ``http_headers`` (its ParserMapper.dontKeepHeaders:
#: hop by hop, cookies, the content coding it undid); the ClueWeb09 page's ``Connection: close``
CRAWLER_DROPS = frozenset(
    ("proxy-connection", "connection", "keep-alive", "transfer-encoding", "te", "trailer")
    + ("proxy-authorization", "proxy-authenticate", "upgrade", "set-cookie", "content-encoding")
)


def test_cc_metadata_keeps_url_date_status_headers_and_md5(inputs, reference, tmp_path) -> None:
    """cc-metadata holds the crawler's JSON per HTTP capture, no payload: URL, date, status line,
    every header but the crawler's dropped ones (names lowercased, as it wrote them), the payload's MD5 and length come
    back as a metadata record; the head's bytes, the payload and the original date are lost."""
    got = round_trip(inputs, tmp_path, *RESPONSES_ONLY, "--to", "cc-metadata")
    for (kind, url), want in reference.items():
        if kind != "response":
            continue
        assert ("response", url) not in got
        (back,) = got[("metadata", url)]
        assert back["date"] == want["date"]
        assert back["original"] is None
        meta = json.loads(back["payload"])
        lines = want["head"].decode("latin-1").strip().splitlines()
        assert meta["http_headers"]["response"] == lines[0]
        pairs = (x.split(":", 1) for x in lines[1:])
        want_headers = {n.strip().lower(): v.strip() for n, v in pairs}
        dropped = {n: want_headers.pop(n) for n in list(want_headers) if n in CRAWLER_DROPS}
        assert {k: v for k, v in meta["http_headers"].items() if k != "response"} == want_headers
        assert not any(n in meta["http_headers"] for n in dropped)
        assert meta["md5"] == hashlib.md5(want["payload"]).hexdigest()
        assert meta["download_size"] == len(want["payload"])


def test_ntcir_keeps_url_head_payload_with_the_fetch_date(inputs, reference, tmp_path) -> None:
    """An NTCIR tree keeps URL, HTTP head (NW:HTTPH) and payload (raw tree) byte for byte; its
    .meta has no capture date, so the date read back is the head's ``Date:`` (the fetch, as
    docs/formats/ntcir.md says) and the original date is lost. Resources are not HTTP captures."""
    got = round_trip(inputs, tmp_path, *RESPONSES_ONLY, "--to", "ntcir")
    for (kind, url), want in reference.items():
        if kind != "response":
            continue
        (back,) = got[("response", url)]
        assert back["head"] == want["head"]
        assert back["payload"] == want["payload"]
        assert back["original"] is None
        http_date = re.search(rb"\nDate: ([^\r\n]+)", want["head"])[1].decode()
        from email.utils import parsedate_to_datetime

        assert back["date"] == parsedate_to_datetime(http_date).strftime("%Y-%m-%dT%H:%M:%SZ")
    # the ClueWeb09 page's server Date (2009-01-13) is not its capture date (2009-03-06)
    assert (
        got[("response", "http://clueweb09.test.com/")][0]["date"]
        != (reference[("response", "http://clueweb09.test.com/")]["date"])
    )


@pytest.mark.parametrize("writer", ["arc", "cc2012", "cc-metadata", "ntcir"])
def test_a_dropped_original_date_is_counted(inputs, tmp_path, writer) -> None:
    """A writer with no place for the invalid original date warns ``original-date-dropped``
    once per record that had one: the ClueWeb09 response (its warcinfo, also ``date-derived``,
    is filtered out; wget's valid WARC-Dates are no originals)."""
    out = tmp_path / "mid"
    result = crawlmill("convert", *inputs, *RESPONSES_ONLY, "--to", writer, "-o", out)
    assert result.returncode == 0, result.stderr
    warnings = json.loads((out / ".crawlmill" / "report.json").read_text())["warnings"]
    assert warnings.get("date-derived") == 2  # the reader's (ClueWeb09's invalid date)
    assert warnings.get("original-date-dropped") == 1, warnings


WPULL = "webrecorder-pywb/sample_archive/warcs/example-wpull.warc.gz"


def test_nutch_segment_keeps_one_fetch_per_url(samples: Path, tmp_path: Path) -> None:
    """wget's (2014) and wpull's (2015) captures of http://example.com/: a segment holds one fetch
    per URL, so without a choice the second is quarantined (``nutch-duplicate-url``, exit 3);
    with ``url-dedup rule=latest`` the 2015 capture comes back byte for byte."""
    pytest.importorskip("warcio")
    both = [samples / WGET, samples / WPULL]
    blind = crawlmill(
        "convert", *both, *RESPONSES_ONLY, "--to", "nutch-segment", "-o", tmp_path / "x"
    )
    assert blind.returncode == 3 and "nutch-duplicate-url" in blind.stderr, blind.stderr
    chosen = ["--filter", "url-dedup", "rule=latest"]
    got = round_trip(both, tmp_path, *RESPONSES_ONLY, *chosen, "--to", "nutch-segment")
    want = read_warcs(samples / WPULL.rsplit("/", 1)[0], WPULL.rsplit("/", 1)[1])
    key = ("response", "http://example.com/")
    (back,) = got[key]
    assert want[key][0]["date"] == back["date"] == "2015-03-30T23:50:46Z"
    assert back["head"] == want[key][0]["head"]
    assert back["payload"] == want[key][0]["payload"]
