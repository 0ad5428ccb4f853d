"""The ``parquet`` and ``ir-datasets`` writers, each read back by the tools that consume them:
pyarrow, datatrove's ``ParquetReader`` and ``JsonlReader``, Hugging Face ``datasets`` and
ir_datasets. One run per writer (module-scoped): the consumers' imports are slow."""

from __future__ import annotations

import gzip
import subprocess
from datetime import UTC
from pathlib import Path

import pytest
from crawlmill import open_reader
from crawlmill.algorithms.document_ids import document_id
from crawlmill.algorithms.text_extraction import record_text

from tests.conftest import need
from tests.helpers import cli_process

#: one worker runs this module: its module fixtures (two runs) and the consumers' slow imports
#: happen once
pytestmark = pytest.mark.xdist_group("text-consumers")

HTML = (
    "<html><head><title>Page {n}</title><meta name=description content='About {n}'></head>"
    "<body><h1>Heading {n}</h1><p>Words of page {n}: {words}.</p></body></html>"
)
#: words that make each page's simhash far from the others'
WORDS = [
    "red apple orchard harvest autumn cider press",
    "quantum field theory lagrangian symmetry gauge",
    "medieval castle siege trebuchet moat drawbridge",
    "ocean tide coral reef plankton current whale",
    "jazz saxophone improvisation bebop rhythm swing",
]
EMPTY = "<html><body><script>var x = 1;</script></body></html>"


def warc_record(n: int, body: bytes, content_type: bytes = b"text/html; charset=utf-8") -> bytes:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: " + content_type + b"\r\n\r\n"
    block = head + body
    headers = (
        b"WARC/1.0\r\nWARC-Type: response\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-%012d>\r\n"
        b"WARC-Date: 2020-01-02T03:04:%02dZ\r\n"
        b"WARC-Target-URI: http://example.com/%d\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: %d\r\n\r\n"
    ) % (n, n, n, len(block))
    return gzip.compress(headers + block + b"\r\n\r\n")


def page(n: int) -> bytes:
    return HTML.format(n=n, words=WORDS[n]).encode()


def make_warc(path: Path) -> Path:
    """Pages 0-4, page 5 a copy of page 2's body (a near-duplicate at any tau), a page with
    no text (6) and a PNG (7, not a page)."""
    records = [warc_record(n, page(n)) for n in range(5)]
    records.append(warc_record(5, page(2)))
    records.append(warc_record(6, EMPTY.encode()))
    records.append(warc_record(7, b"\x89PNG\r\n\x1a\n", b"image/png"))
    path.write_bytes(b"".join(records))
    return path


def crawlmill(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``crawlmill ARGS...`` in ``cwd``, run in this process (the suite's CLI harness)."""
    return cli_process(*args, cwd=cwd)


def expected(warc: Path) -> list[dict]:
    """What each written row must hold, from the records themselves (page 5 is dropped)."""
    rows = []
    with open_reader(str(warc)) as records:
        for record in records:
            text = record_text(record)
            if text is None or document_id(record, "auto").endswith("000005"):
                continue
            rows.append(
                {
                    "id": document_id(record, "auto"),
                    "text": text.text,
                    "url": record.url,
                    "date": record.date.astimezone(UTC),
                    "title": text.title,
                    "description": text.description,
                }
            )
    return rows


@pytest.fixture(scope="module")
def parquet_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("parquet")
    warc = make_warc(tmp / "crawl.warc.gz")
    (tmp / "run.yaml").write_text(
        f"inputs: [{warc}]\n"
        "output: out\n"
        "filters:\n"
        "  - {name: simhash-dedup, tau: 3}\n"
        "writer:\n"
        "  name: parquet\n"
        "  language: langdetect\n"
        "  row_group_records: 2\n"
        "  layout: {name: plain, max_records: 4}\n"
    )
    result = crawlmill("run", "run.yaml", cwd=tmp)
    return tmp, warc, result


def test_parquet_run_accounts_for_every_record(parquet_run):
    tmp, _, result = parquet_run
    out = result.stdout + result.stderr
    # the PNG has no text: quarantined under a named reason (exit 3, as for pyserini)
    assert result.returncode == 3, out
    assert "read 8 = written 6 + dropped 1 (simhash-dedup:near-duplicate 1) + quarantined 1" in out
    assert "[no-text]" in out
    assert "empty text 1" in out
    files = sorted(p.name for p in (tmp / "out").glob("crawl*.parquet"))
    assert files == ["crawl-00000.parquet", "crawl-00001.parquet"]


def test_a_second_run_finds_the_files_complete(parquet_run):
    """The files were committed by the core FileWriter: the same command resumes, with
    nothing left to do and the files as they were."""
    tmp, _, _ = parquet_run
    files = sorted((tmp / "out").glob("crawl-*.parquet"))
    before = [f.read_bytes() for f in files]
    again = crawlmill("run", "run.yaml", cwd=tmp)
    assert "1 input(s), 1 already complete" in again.stdout + again.stderr
    assert sorted((tmp / "out").glob("crawl-*.parquet")) == files
    assert [f.read_bytes() for f in files] == before


def test_pyarrow_reads_the_schema_row_groups_and_values(parquet_run):
    import pyarrow.parquet as pq

    tmp, warc, _ = parquet_run
    files = sorted((tmp / "out").glob("crawl-*.parquet"))
    groups = [pq.ParquetFile(f).metadata.num_row_groups for f in files]
    assert groups == [2, 1]  # 4 rows in groups of 2, then 2 rows
    rows = [r for f in files for r in pq.read_table(f).to_pylist()]
    want = expected(warc)
    assert [r["id"] for r in rows] == [w["id"] for w in want]
    for row, w in zip(rows, want, strict=True):
        meta = row["metadata"]
        assert row["text"] == w["text"]
        assert (meta["url"], meta["date"]) == (w["url"], w["date"])
        assert (meta["title"], meta["description"]) == (w["title"], w["description"])
        assert (meta["content_type"], meta["charset"]) == ("text/html", "utf-8")
    assert [r["metadata"]["language"] for r in rows] == ["en"] * 5 + [None]
    # the cluster table's cluster of each written document; page 2's has page 5 in it
    table = pq.read_table(tmp / "out" / "clusters.parquet").to_pylist()
    clusters = {t["doc_id"]: (t["cluster"], t["cluster_size"]) for t in table if t["kept"]}
    written = {r["id"]: (r["metadata"]["cluster"], r["metadata"]["cluster_size"]) for r in rows}
    assert set(clusters) - set(written) == {"00000000-0000-0000-0000-000000000007"}  # the PNG
    assert written == {i: clusters[i] for i in written}
    assert clusters[want[2]["id"]][1] == 2


def test_datatrove_and_hugging_face_read_the_same_documents(parquet_run):
    import pyarrow.parquet as pq

    datasets = need("datasets")
    readers = need("datatrove.pipeline.readers")

    tmp, warc, _ = parquet_run
    want = expected(warc)
    files = sorted(str(f) for f in (tmp / "out").glob("crawl-*.parquet"))
    hf = datasets.load_dataset(
        "parquet", data_files=files, split="train", cache_dir=str(tmp / "hf-cache")
    )
    assert hf["id"] == [w["id"] for w in want]
    assert hf["text"] == [w["text"] for w in want]
    assert [m["url"] for m in hf["metadata"]] == [w["url"] for w in want]
    assert [m["date"] for m in hf["metadata"]] == [w["date"] for w in want]
    # every metadata field as pyarrow reads it (checked against the records above)
    arrow = [r["metadata"] for f in files for r in pq.read_table(f).to_pylist()]
    assert hf["metadata"] == arrow
    docs = list(readers.ParquetReader(str(tmp / "out"), glob_pattern="crawl-*.parquet")())
    # datatrove skips a document with empty text (it warns): the last page
    assert [d.id for d in docs] == [w["id"] for w in want if w["text"]]
    assert [d.text for d in docs] == [w["text"] for w in want if w["text"]]
    assert [d.metadata["title"] for d in docs] == [w["title"] for w in want if w["text"]]
    assert [{k: v for k, v in d.metadata.items() if k != "file_path"} for d in docs] == [
        m for m, w in zip(arrow, want, strict=True) if w["text"]
    ]


@pytest.fixture(scope="module")
def jsonl_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("jsonl")
    warc = make_warc(tmp / "crawl.warc.gz")
    for writer in ("pyserini", "ir-datasets"):
        result = crawlmill(
            "convert", str(warc), "--filter", "mime", "--to", writer, "-o", writer, cwd=tmp
        )
        assert result.returncode == 0, result.stdout + result.stderr
    return tmp, warc


def test_ir_datasets_reads_docs_jsonl_with_its_default_mapping(jsonl_runs):
    """ir_datasets' ``JsonlDocs`` maps each ``GenericDoc`` field to the key of its name
    (``mapping = {f: f for f in cls._fields}``): ``doc_id`` and ``text``."""
    need("ir_datasets")
    from ir_datasets.formats import GenericDoc, JsonlDocs
    from ir_datasets.util import LocalDownload

    tmp, warc = jsonl_runs
    docs = JsonlDocs(
        LocalDownload(tmp / "ir-datasets" / "crawl.jsonl"),
        doc_cls=GenericDoc,
        docstore_path=str(tmp / "store.pklz4"),
    )
    got = list(docs.docs_iter())
    with open_reader(str(warc)) as records:
        pages = [(document_id(r, "auto"), record_text(r)) for r in records]
    assert [(d.doc_id, d.text) for d in got] == [(i, p.text) for i, p in pages if p is not None]


def test_datatrove_reads_the_pyserini_lines(jsonl_runs):
    readers = need("datatrove.pipeline.readers")

    tmp, warc = jsonl_runs
    reader = readers.JsonlReader(
        str(tmp / "pyserini"), glob_pattern="*.jsonl", text_key="contents", id_key="id"
    )
    docs = list(reader())
    with open_reader(str(warc)) as records:
        pages = [(document_id(r, "auto"), record_text(r)) for r in records]
    want = [(i, p.text) for i, p in pages if p is not None and p.text]  # empty text skipped
    assert [(d.id, d.text) for d in docs] == want
    assert len(want) == 6


def write_in_process(writer, records: list, folder: Path) -> tuple[list[str], dict]:
    """Write ``records`` with ``writer`` into ``folder``: (quarantine reasons, counts)."""
    from crawlmill.core import InputFile, WriteContext

    refused: list[str] = []
    counts: dict = {}
    ctx = WriteContext(
        input=InputFile(path="crawl.warc.gz", relpath="crawl.warc.gz", index=0),
        input_count=1,
        create=lambda rel: open(folder / rel, "wb"),  # noqa: SIM115 - the writer closes it
        quarantine=lambda record, why: refused.append(why),
        counter=lambda label, n: counts.__setitem__(label, counts.get(label, 0) + n),
    )
    writer.open(ctx)
    for record in records:
        writer.write(record)
    writer.close()
    return refused, counts


def test_a_url_that_is_not_utf8_is_replaced_and_counted(tmp_path):
    import pyarrow.parquet as pq
    from crawlmill.core import Record, RecordKind
    from crawlmill.plugins.writers.parquet import ParquetWriter

    record = Record(
        kind=RecordKind.RESPONSE,
        url="http://example.com/caf\udce9",  # the raw byte 0xE9 of a Latin-1 URL
        http_head=b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n",
        payload=page(0),
        content_type="text/html",
    )
    writer = ParquetWriter(ParquetWriter.Options(doc_id="url"))
    _, counts = write_in_process(writer, [record], tmp_path)
    (row,) = pq.read_table(tmp_path / "crawl.parquet").to_pylist()
    assert row["id"] == row["metadata"]["url"] == "http://example.com/caf?"
    assert counts["not utf-8 replaced"] == 2


def test_row_groups_by_bytes_and_files_by_size(tmp_path):
    """In process: ``row_group_bytes`` ends a group at the bound, ``max_bytes`` a file."""
    import pyarrow.parquet as pq
    from crawlmill.plugins.writers.parquet import ParquetWriter

    warc = make_warc(tmp_path / "crawl.warc.gz")
    options = ParquetWriter.Options.model_validate(
        {"row_group_bytes": 200, "layout": {"name": "plain", "max_bytes": 1500}}
    )
    with open_reader(str(warc)) as records:
        refused, counts = write_in_process(ParquetWriter(options), list(records), tmp_path)
    assert [why.split(":")[0] for why in refused] == ["no-text"]
    files = sorted(tmp_path.glob("crawl-*.parquet"))
    assert len(files) > 1
    texts = [t for f in files for t in pq.read_table(f)["text"].to_pylist()]
    assert len(texts) == 7
    for f in files[:-1]:  # a file ends once it reaches max_bytes, with its last row
        assert f.stat().st_size >= 1500 or pq.ParquetFile(f).metadata.num_rows == 1
    for f in files:
        pf = pq.ParquetFile(f)
        groups = [pf.read_row_group(g)["text"].to_pylist() for g in range(pf.num_row_groups)]
        sizes = [[len(t.encode()) for t in g] for g in groups]
        # each group but the file's last reached the bound with its last row, not before
        assert all(sum(g) >= 200 and sum(g[:-1]) < 200 for g in sizes[:-1]), sizes
