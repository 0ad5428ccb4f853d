"""The ``wet`` writer: Common Crawl WET files, read by warcio and FastWARC, shaped as a real WET."""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path

import pytest
from crawlmill import open_reader
from crawlmill.algorithms.text_extraction import record_text

from tests.helpers import cli

PAGE = (
    "<html><head><title>Page {n}</title></head><body><h1>Heading {n}</h1><p>Words of page "
    "{n}: alpha{n} beta{n} gamma{n}. " + "Filler sentence. " * 6 + "</p></body></html>"
)
#: Anserini's CC WET fixture (a warcinfo and one conversion record, as Common Crawl writes them)
REAL_WET = Path("castorini-anserini/sample_docs/commoncrawl/wet/collection1/segment1.warc.wet.gz")


def response(n: int, body: bytes, ctype: bytes = b"text/html", extra: bytes = b"") -> bytes:
    block = b"HTTP/1.1 200 OK\r\nContent-Type: " + ctype + b"\r\n\r\n" + body
    headers = (
        b"WARC/1.0\r\nWARC-Type: response\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-%012d>\r\n"
        b"WARC-Date: 2020-01-02T03:04:%02dZ\r\nWARC-Target-URI: http://example.com/%d\r\n%s"
        b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
    ) % (n, n, n, extra, len(block))
    return gzip.compress(headers + block + b"\r\n\r\n")


@pytest.fixture(scope="module")
def wet_runs(tmp_path_factory):
    """One WARC (three pages, one naming its language, and a PNG) written as WET twice: by
    ``convert``, and by a pipeline of ``mime`` and ``simhash-dedup`` before the writer (same
    ``SOURCE_DATE_EPOCH``, so the same warcinfo date)."""
    tmp = tmp_path_factory.mktemp("wet")
    lang = b"WARC-Identified-Content-Language: eng\r\n"
    records = [
        response(n, PAGE.format(n=n).encode(), extra=lang if n == 1 else b"") for n in range(3)
    ]
    records.append(response(3, b"\x89PNG\r\n\x1a\n", b"image/png"))
    (tmp / "crawl.warc.gz").write_bytes(b"".join(records))
    env = pytest.MonkeyPatch()
    env.setenv("SOURCE_DATE_EPOCH", "1600000000")
    try:
        plain = cli("convert", "crawl.warc.gz", "--to", "wet", "-o", "out", cwd=tmp)
        (tmp / "run.yaml").write_text(
            "inputs: [crawl.warc.gz]\noutput: deduped\n"
            "filters:\n  - {name: mime}\n"
            "  - {name: simhash-dedup, tau: 0, clusters: clusters.parquet}\n"
            "writer: {name: wet, is_part_of: CC-MAIN-2020-05, description: test crawl}\n"
        )
        deduped = cli("run", tmp / "run.yaml", cwd=tmp, out=tmp / "deduped")
    finally:
        env.undo()
    return tmp, plain, deduped


def members(data: bytes) -> list[bytes]:
    """The gzip members of ``data``, each inflated."""
    out = []
    while data:
        d = zlib.decompressobj(31)
        out.append(d.decompress(data))
        data = d.unused_data
    return out


def test_warcio_reads_one_conversion_record_per_page(wet_runs):
    from warcio.archiveiterator import ArchiveIterator

    tmp, plain, _ = wet_runs
    out = plain.stdout + plain.stderr
    assert plain.exit_code == 3, out  # the PNG has no text: quarantined, named
    assert "read 4 = written 3 + dropped 0 + quarantined 1" in out and "[no-text]" in out
    with open_reader(str(tmp / "crawl.warc.gz")) as source:
        pages = [(r, record_text(r)) for r in source]
    pages = [(r, p) for r, p in pages if p is not None]
    with open(tmp / "out" / "crawl.warc.wet.gz", "rb") as f:
        got = [(r.rec_type, r.rec_headers, r.content_stream().read()) for r in ArchiveIterator(f)]
    assert [t for t, _, _ in got] == ["warcinfo", "conversion", "conversion", "conversion"]
    for n, ((record, page), (_, headers, block)) in enumerate(zip(pages, got[1:], strict=True)):
        # the response's WARC-Record-ID
        assert (
            headers.get_header("WARC-Refers-To") == f"<urn:uuid:00000000-0000-0000-0000-{n:012d}>"
        )
        assert headers.get_header("WARC-Target-URI") == record.url
        assert headers.get_header("WARC-Date") == record.date_raw
        assert headers.get_header("Content-Type") == "text/plain"
        assert block.decode("utf-8") == page.text and "alpha" in page.text
    languages = [h.get_header("WARC-Identified-Content-Language") for _, h, _ in got[1:]]
    assert languages == [None, "eng", None]
    info = got[0][2].decode()
    assert info.startswith("Software-Info: crawlmill/")
    assert "Extracted-Date: Sun, 13 Sep 2020 12:26:40 GMT\r\n" in info


def test_fastwarc_verifies_digests_and_each_record_is_a_gzip_member(wet_runs, need):
    fastwarc = need("fastwarc.warc")
    tmp, _, _ = wet_runs
    data = (tmp / "out" / "crawl.warc.wet.gz").read_bytes()
    with open(tmp / "out" / "crawl.warc.wet.gz", "rb") as f:
        records = [(r.record_type, r.verify_block_digest()) for r in fastwarc.ArchiveIterator(f)]
    types = fastwarc.WarcRecordType
    assert records == [(types.warcinfo, False)] + [(types.conversion, True)] * 3  # no digest
    assert len(members(data)) == 4  # as in Common Crawl's files: one member per record


def test_header_names_and_order_match_a_real_wet(wet_runs, samples):
    from warcio.archiveiterator import ArchiveIterator

    tmp, _, _ = wet_runs

    def names(path: Path) -> list[list[str]]:
        # inflated first: the fixture is one gzip member (CC's files have one per record)
        data = io.BytesIO(gzip.decompress(path.read_bytes()))
        return [[k for k, _ in r.rec_headers.headers] for r in ArchiveIterator(data)]

    real = names(samples / REAL_WET)
    ours = names(tmp / "out" / "crawl.warc.wet.gz")
    assert ours[0] == real[0]  # the warcinfo
    # the real WET's conversion header set and order; the language (a CC WET since 2018 has
    # it, this 2020 fixture not) between the digest and Content-Type
    assert ours[1] == ours[3] == real[1]
    with_lang = real[1][:6] + ["WARC-Identified-Content-Language"] + real[1][6:]
    assert ours[2] == with_lang
    # the real WET's warcinfo fields come first in the same order
    real_wet = io.BytesIO(gzip.decompress((samples / REAL_WET).read_bytes()))
    real_fields = next(iter(ArchiveIterator(real_wet))).content_stream().read().decode()
    ours_fields = members((tmp / "out" / "crawl.warc.wet.gz").read_bytes())[0].decode()
    field_names = [line.split(":")[0] for line in real_fields.splitlines() if line]
    assert field_names[:2] == ["Software-Info", "Extracted-Date"]
    assert [line.split(":")[0] for line in ours_fields.split("\r\n\r\n")[1].splitlines()] == [
        "Software-Info",
        "Extracted-Date",
    ]


def test_after_simhash_dedup_the_records_are_the_same_bytes(wet_runs):
    tmp, _, deduped = wet_runs
    assert deduped.exit_code == 0, deduped.stdout + deduped.stderr
    plain = members((tmp / "out" / "crawl.warc.wet.gz").read_bytes())
    after = members((tmp / "deduped" / "crawl.warc.wet.gz").read_bytes())
    assert after[1:] == plain[1:]  # deterministic record ids, the capture dates
    assert b"isPartOf: CC-MAIN-2020-05\r\ndescription: test crawl\r\n" in after[0]


def test_a_response_without_record_id_is_referred_to_by_the_warc_writers_id(tmp_path):
    """An input without ``WARC-Record-ID``s (as ARC or NTCIR captures): the WET refers to
    the ids the WARC writer gives the same records."""
    from warcio.archiveiterator import ArchiveIterator

    data = b"".join(
        gzip.decompress(response(n, PAGE.format(n=n).encode())).replace(
            b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-%012d>\r\n" % n, b""
        )
        for n in range(2)
    )
    (tmp_path / "noids.warc").write_bytes(data)
    for to in ("warc", "wet"):
        result = cli("convert", "noids.warc", "--to", to, "-o", to, cwd=tmp_path)
        assert result.exit_code == 0, result.stdout + result.stderr

    def headers(path: Path, kind: str, name: str) -> list[str]:
        with open(path, "rb") as f:
            return [
                r.rec_headers.get_header(name) for r in ArchiveIterator(f) if r.rec_type == kind
            ]

    warc_ids = headers(tmp_path / "warc" / "noids.warc.gz", "response", "WARC-Record-ID")
    refers = headers(tmp_path / "wet" / "noids.warc.wet.gz", "conversion", "WARC-Refers-To")
    assert len(warc_ids) == 2 and refers == warc_ids
