"""The ``pyserini`` writer: Pyserini/Anserini JsonCollection lines, ids by rule, gz, CLI."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
from pathlib import Path

import pytest
from crawlmill import open_reader
from crawlmill.algorithms.text_extraction import record_text

from tests.helpers import cli_process

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = Path(os.environ.get("CRAWLMILL_SAMPLES", ROOT.parent / "shared" / "samples"))
#: Anserini's ClueWeb09 fixture: a warcinfo and one response with a WARC-TREC-ID.
CW09 = SAMPLES / "castorini-anserini" / "sample_docs" / "cw09" / "collection1" / "segment1.warc.gz"

HTML = (
    "<html><head><title>Page {n}</title><meta name=description content='About {n}'></head>"
    "<body><h1>Heading {n}</h1><p>Unique words for page number {n}: "
    "alpha{n} beta{n} gamma{n} delta{n}. " + "Filler sentence about the page. " * 8 + "</p>"
    "</body></html>"
)


def warc_record(n: int, body: bytes, content_type: bytes = b"text/html; charset=utf-8") -> bytes:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: " + content_type + b"\r\n\r\n"
    block = head + body
    headers = (
        b"WARC/1.0\r\nWARC-Type: response\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-%012d>\r\n"
        b"WARC-Date: 2020-01-02T03:04:05Z\r\n"
        b"WARC-Target-URI: http://example.com/%d\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: %d\r\n\r\n"
    ) % (n, n, len(block))
    return gzip.compress(headers + block + b"\r\n\r\n")


def make_warc(path: Path, pages: int = 3) -> Path:
    data = b"".join(warc_record(n, HTML.format(n=n).encode()) for n in range(pages))
    data += warc_record(99, b"\x89PNG\r\n\x1a\n", b"image/png")  # no text: quarantined
    path.write_bytes(data)
    return path


def crawlmill(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``crawlmill ARGS...`` in ``cwd``, run in this process (the suite's CLI harness)."""
    return cli_process(*args, cwd=cwd)


def read_lines(path: Path) -> list[dict]:
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")  # strict: the files are UTF-8
    assert text.endswith("\n")
    return [json.loads(line) for line in text.split("\n")[:-1]]


def test_cli_writes_one_valid_line_per_page_with_the_extractors_text(tmp_path):
    warc = make_warc(tmp_path / "crawl.warc.gz")
    result = crawlmill("convert", str(warc), "--to", "pyserini", "-o", "out", cwd=tmp_path)
    # the PNG has no text: quarantined under a named reason, and the run says so (exit 3)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "read 4 = written 3 + dropped 0 + quarantined 1" in result.stdout + result.stderr
    assert "[no-text]" in result.stdout + result.stderr
    lines = read_lines(tmp_path / "out" / "crawl.jsonl")
    assert [set(line) for line in lines] == [{"id", "contents"}] * 3
    ids = [line["id"] for line in lines]
    assert len(set(ids)) == 3
    # auto: no WARC-TREC-ID, so the UUID of the WARC-Record-ID (as simhash-dedup names it)
    assert ids[0] == "00000000-0000-0000-0000-000000000000"
    with open_reader(str(warc)) as records:
        pages = [record_text(r) for r in records]
    expected = [p.text for p in pages if p is not None]
    assert [line["contents"] for line in lines] == expected
    assert "alpha1 beta1" in lines[1]["contents"]


def test_clueweb09_trec_id_fields_and_gzip(tmp_path):
    if not CW09.exists():
        pytest.skip(f"{CW09} not here")
    config = tmp_path / "run.yaml"
    config.write_text(
        f"inputs: [{CW09}]\n"
        "output: out\n"
        "filters:\n"
        "  - {name: kind, keep: [response]}\n"
        "writer:\n"
        "  name: pyserini\n"
        "  doc_id: doc-id\n"
        "  extractor: lxml\n"
        "  fields: [url, date, title]\n"
        "  compress: true\n"
    )
    result = crawlmill("run", str(config), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    (line,) = read_lines(tmp_path / "out" / "segment1.jsonl.gz")
    # "WARC-TREC-ID: clueweb09-az0000-00-00000" in the fixture's response record
    assert line["id"] == "clueweb09-az0000-00-00000"
    assert line["contents"] == "whatever here will be included"
    assert line["url"].startswith("http")
    assert line["date"].endswith("Z")


def test_url_rule_and_many_files(tmp_path):
    warc = make_warc(tmp_path / "crawl.warc.gz", pages=5)
    config = tmp_path / "run.yaml"
    config.write_text(
        f"inputs: [{warc}]\n"
        "output: out\n"
        "filters:\n"
        "  - {name: mime}\n"
        "writer:\n"
        "  name: pyserini\n"
        "  doc_id: url\n"
        "  fields: [description]\n"
        "  layout: {name: plain, max_records: 2}\n"
    )
    result = crawlmill("run", str(config), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    files = sorted((tmp_path / "out").glob("*.jsonl"))
    assert len(files) == 3
    lines = [line for f in files for line in read_lines(f)]
    assert [line["id"] for line in lines] == [f"http://example.com/{n}" for n in range(5)]
    assert lines[2]["description"] == "About 2"


def test_unknown_field_is_a_config_error(tmp_path):
    warc = make_warc(tmp_path / "crawl.warc.gz", pages=1)
    result = crawlmill(
        "convert", str(warc), "--to", "pyserini", "-o", "out", "--option",
        "fields=[\"lang2\"]", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode != 0
    assert not (tmp_path / "out" / "crawl.jsonl").exists()


def test_ir_datasets_reads_the_documents(tmp_path):
    """An independent consumer: ir_datasets' ``JsonlDocs`` (``formats/jsonl.py``) reads each
    line with ``json.loads`` and maps fields onto its ``GenericDoc(doc_id, text)``."""
    pytest.importorskip("ir_datasets")
    from ir_datasets.formats import GenericDoc, JsonlDocs
    from ir_datasets.util import LocalDownload

    warc = make_warc(tmp_path / "crawl.warc.gz", pages=4)
    result = crawlmill(
        "convert", str(warc), "--filter", "mime", "--to", "pyserini", "-o", "out", cwd=tmp_path
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = tmp_path / "out" / "crawl.jsonl"
    docs = JsonlDocs(
        LocalDownload(out),
        doc_cls=GenericDoc,
        mapping={"doc_id": "id", "text": "contents"},
        docstore_path=str(tmp_path / "store.pklz4"),
    )
    got = list(docs.docs_iter())
    assert [d.doc_id for d in got] == [f"00000000-0000-0000-0000-{n:012d}" for n in range(4)]
    assert all(f"alpha{n} beta{n} gamma{n}" in d.text for n, d in enumerate(got))


def test_ids_equal_the_simhash_dedup_cluster_table_ids(tmp_path):
    """Issue 23: "Every doc id in an output equals the id the same record has in the cluster
    table": one run, simhash-dedup then the writer, both with doc_id auto."""
    import pyarrow.parquet as pq

    warc = make_warc(tmp_path / "crawl.warc.gz", pages=4)
    config = tmp_path / "run.yaml"
    config.write_text(
        f"inputs: [{warc}]\n"
        "output: out\n"
        "filters:\n"
        "  - {name: mime}\n"
        "  - {name: simhash-dedup, tau: 0, clusters: clusters.parquet}\n"
        "writer: {name: pyserini}\n"
    )
    result = crawlmill("run", str(config), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    table = pq.read_table(tmp_path / "out" / "clusters.parquet").to_pydict()
    kept = sorted(d for d, k in zip(table["doc_id"], table["kept"], strict=True) if k)
    lines = read_lines(tmp_path / "out" / "crawl.jsonl")
    assert sorted(line["id"] for line in lines) == kept
    assert len(kept) == 4


def test_a_repeated_id_is_reported(tmp_path):
    data = b"".join(warc_record(7, HTML.format(n=n).encode()) for n in range(2))  # same id
    (tmp_path / "twice.warc.gz").write_bytes(data)
    result = crawlmill("convert", "twice.warc.gz", "--to", "pyserini", "-o", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "duplicate-doc-id 1" in result.stdout + result.stderr
    assert len(read_lines(tmp_path / "out" / "twice.jsonl")) == 2
