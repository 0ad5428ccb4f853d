"""The ``trec`` writer: TREC text and TREC web documents, read back by ir_datasets' parsers."""

from __future__ import annotations

import gzip
import html
import shutil
from pathlib import Path

import pytest
from crawlmill import open_reader
from crawlmill.algorithms.text_extraction import record_text
from crawlmill.plugins.writers.trec import escape_tags

from tests.helpers import cli

PAGE = (
    "<html><head><title>Page {n}</title></head><body><h1>Heading {n}</h1><p>Words of page "
    "{n}: alpha{n} beta{n}. " + "Filler sentence. " * 6 + "</p><p>{extra}</p></body></html>"
)
#: literal markers in the page's text: what the writer must keep from cutting the document
TRICKY = "a &lt;/TEXT&gt; b &lt;/DOC&gt; c &amp; d &lt;b&gt;"


def response(
    n: int, body: bytes, url: str, head: bytes = b"", ctype: bytes = b"text/html"
) -> bytes:
    http = b"HTTP/1.1 200 OK\r\nContent-Type: " + ctype + b"\r\n" + head + b"\r\n"
    block = http + body
    headers = (
        b"WARC/1.0\r\nWARC-Type: response\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-%012d>\r\n"
        b"WARC-Date: 2020-01-02T03:04:05Z\r\nWARC-Target-URI: %s\r\n"
        b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
    ) % (n, url.encode(), len(block))
    return gzip.compress(headers + block + b"\r\n\r\n")


def text_warc(path: Path) -> Path:
    """Pages: plain, one with TREC markers and entities in its text, one without text, one
    whose URL cannot be a DOCNO; and a PNG (no text)."""
    pages = [
        response(0, PAGE.format(n=0, extra="plain").encode(), "http://example.com/0"),
        response(1, PAGE.format(n=1, extra=TRICKY).encode(), "http://example.com/1"),
        response(2, b"<html><body></body></html>", "http://example.com/2"),
        response(3, PAGE.format(n=3, extra="x").encode(), "http://example.com/3>x"),
        response(4, b"\x89PNG\r\n\x1a\n", "http://example.com/4.png", ctype=b"image/png"),
    ]
    path.write_bytes(b"".join(pages))
    return path


def texts(warc: Path) -> list[str]:
    with open_reader(str(warc)) as records:
        pages = [record_text(r) for r in records]
    return [p.text for p in pages if p is not None]


def trec_docs(path: Path, parser: str, store: Path, globs: list[str] | None = None) -> list:
    """ir_datasets' TrecDocs (``formats/trec.py``) with its ``parser``."""
    pytest.importorskip("ir_datasets")
    from ir_datasets.formats import TrecDocs
    from ir_datasets.util import LocalDownload

    docs = TrecDocs(LocalDownload(path), parser=parser, path_globs=globs, docstore_path=str(store))
    return list(docs.docs_iter())


def test_text_format_sgml_text_is_read_back_by_ir_datasets(tmp_path):
    warc = text_warc(tmp_path / "crawl.warc.gz")
    result = cli("convert", warc, "--to", "trec", "-o", "out", cwd=tmp_path)
    out = result.stdout + result.stderr
    assert result.exit_code == 3, out  # the PNG: quarantined under a named reason
    assert "read 5 = written 4 + dropped 0 + quarantined 1" in out
    assert "[no-text]" in out and "empty text 1" in out
    expected = texts(warc)
    assert "</TEXT> b </DOC> c & d <b>" in expected[1] and expected[2] == ""
    ids = [f"00000000-0000-0000-0000-{n:012d}" for n in range(4)]
    path = tmp_path / "out" / "crawl.trec"
    # markup-aware (ir_datasets' sax parser, as Anserini's Jsoup): the text exactly
    sax = trec_docs(path, "sax", tmp_path / "sax")
    assert [d.doc_id for d in sax] == ids
    assert [d.body for d in sax] == expected
    # line-literal (ir_datasets' text parser): the SGML text, one LF after it
    lines = trec_docs(path, "text", tmp_path / "text")
    assert [d.doc_id for d in lines] == ids
    assert [html.unescape(d.text) for d in lines] == [t + "\n" if t else "" for t in expected]


def test_text_format_tags_escape_gzip_many_files_url_ids(tmp_path):
    warc = text_warc(tmp_path / "crawl.warc.gz")
    config = tmp_path / "run.yaml"
    config.write_text(
        f"inputs: [{warc}]\noutput: out\n"
        "writer: {name: trec, escape: tags, doc_id: url, compress: true, extractor: lxml,\n"
        "         layout: {name: plain, max_records: 2}}\n"
    )
    result = cli("run", config, cwd=tmp_path, out=tmp_path / "out")
    out = result.stdout + result.stderr
    assert result.exit_code == 3, out
    assert "read 5 = written 3 + dropped 0 + quarantined 2" in out
    assert "unwritable-doc-id" in out  # the URL with '>'
    assert "trec-tag-escaped 1" in out
    files = sorted((tmp_path / "out").glob("*.trec.gz"))
    assert len(files) == 2
    with open_reader(str(warc)) as records:
        expected = [record_text(r, "lxml") for r in records][:3]
    docs = trec_docs(tmp_path / "out", "text", tmp_path / "store", globs=["*.trec.gz"])
    assert [d.doc_id for d in docs] == [f"http://example.com/{n}" for n in range(3)]
    # the text as it is, but the '<' of a TREC tag: no marker cut the document
    want = [escape_tags(p.text, web=False)[0] for p in expected]
    assert "&lt;/TEXT> b &lt;/DOC> c & d <b>" in want[1]
    assert [d.text for d in docs] == [w + "\n" if w else "" for w in want]


def web_warc(path: Path) -> Path:
    """Pages for the web format: plain; a '</DOC>' in the HTML; a chunked, gzipped body; a
    duplicate of the first (simhash-dedup drops it)."""
    chunked_html = PAGE.format(n=2, extra="coded").encode()
    coded = gzip.compress(chunked_html, mtime=0)
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(coded), coded)
    head = b"Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n"
    pages = [
        response(0, PAGE.format(n=0, extra="plain").encode(), "http://example.com/0"),
        response(1, PAGE.format(n=1, extra="x</DOC>\ny").encode() + b"\n", "http://e.com/1"),
        response(2, chunked, "http://example.com/2", head=head),
        response(3, PAGE.format(n=0, extra="plain").encode(), "http://example.com/3"),
    ]
    path.write_bytes(b"".join(pages))
    return path


def test_web_format_read_by_ir_datasets_gov2_parser_after_simhash_dedup(tmp_path, samples):
    """ir_datasets reads GOV2's TREC web files with ``Gov2Docs`` (``datasets/gov2.py``):
    ``<DOC>\\n`` .. ``</DOC>\\n``, the DOCNO, the ``<DOCHDR>\\n`` .. ``</DOCHDR>\\n`` block
    (URL line, then the HTTP head), the body the bytes after it."""
    pytest.importorskip("ir_datasets")
    import pyarrow.parquet as pq
    from ir_datasets.datasets.gov2 import Gov2Docs

    web_warc(tmp_path / "crawl.warc.gz")
    cw09 = samples / "castorini-anserini" / "sample_docs" / "cw09" / "collection1"
    shutil.copyfile(cw09 / "segment1.warc.gz", tmp_path / "segment1.warc.gz")
    config = tmp_path / "run.yaml"
    config.write_text(
        "inputs: [crawl.warc.gz, segment1.warc.gz]\noutput: out\n"
        "filters:\n  - {name: kind, keep: [response]}\n"
        "  - {name: simhash-dedup, tau: 0, clusters: clusters.parquet}\n"
        "writer: {name: trec, format: web}\n"
    )
    result = cli("run", config, cwd=tmp_path, out=tmp_path / "out")
    out = result.stdout + result.stderr
    assert result.exit_code == 0, out
    assert "trec-tag-escaped 1" in out and "bodies decoded 1" in out
    reader = Gov2Docs(None, None)
    with open(tmp_path / "out" / "crawl.trecweb", "rb") as f:
        docs = list(reader._docs_ctxt_iter_gov2(f))
    uuid = "00000000-0000-0000-0000-%012d"
    assert [d.doc_id for d in docs] == [uuid % 0, uuid % 1, uuid % 2]
    assert [d.url for d in docs] == [
        "http://example.com/0",
        "http://e.com/1",
        "http://example.com/2",
    ]
    assert docs[0].http_headers == "HTTP/1.1 200 OK\nContent-Type: text/html\n\n"
    assert docs[0].body == PAGE.format(n=0, extra="plain").encode() + b"\n"  # LF added
    assert docs[1].body == PAGE.format(n=1, extra="x</DOC_>\ny").encode() + b"\n"
    assert docs[2].body == PAGE.format(n=2, extra="coded").encode() + b"\n"  # decoded
    # ir_datasets' generic TrecDocs (sax) reads the same documents whole: no '</DOC>' inside
    sax = trec_docs(tmp_path / "out" / "crawl.trecweb", "sax", tmp_path / "sax")
    assert [d.doc_id for d in sax] == [d.doc_id for d in docs]
    assert [d.title for d in sax] == ["Page 0", "Page 1", "Page 2"]
    assert all(d.marked_up_doc.endswith(g.body + b"</DOC>") for d, g in zip(sax, docs, strict=True))
    # the ClueWeb09 fixture: its WARC-TREC-ID is the DOCNO ("auto")
    with open(tmp_path / "out" / "segment1.trecweb", "rb") as f:
        (cw,) = list(reader._docs_ctxt_iter_gov2(f))
    assert cw.doc_id == "clueweb09-az0000-00-00000"
    assert b"whatever here will be included" in cw.body
    # every id equals the one the cluster table gives the same record (the duplicate dropped)
    table = pq.read_table(tmp_path / "out" / "clusters.parquet").to_pydict()
    kept = sorted(d for d, k in zip(table["doc_id"], table["kept"], strict=True) if k)
    assert sorted([d.doc_id for d in docs] + [cw.doc_id]) == kept
    assert uuid % 3 in table["doc_id"] and uuid % 3 not in kept


def test_escape_tags_is_position_and_case_free():
    text, n = escape_tags("x </TEXT> y\n</doc>\n<DOCNO> <DOCument> <b>", web=False)
    assert (text, n) == ("x &lt;/TEXT> y\n&lt;/doc>\n&lt;DOCNO> <DOCument> <b>", 3)
    data, n = escape_tags(b"<html></DOC>\n<doc id=1></DOCHDR></TEXT>", web=True)
    assert (data, n) == (b"<html></DOC_>\n<doc_ id=1></DOCHDR_></TEXT>", 3)
