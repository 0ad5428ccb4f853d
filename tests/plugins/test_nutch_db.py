"""The ``nutch-crawldb`` and ``nutch-linkdb`` readers on the real CrawlDBs (2006 Nutch 0.8,
2018 and 2022 Nutch 1.x) and the 2006 LinkDB: one metadata record per URL, through the CLI to
WARC (read back with warcio), and the extras write every value back to its bytes."""

from __future__ import annotations

import json

import pytest
from crawlmill.core import RecordKind, open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.nutch import CRAWL_DATUM, INLINKS, encode_nutch, from_plain
from crawlmill.formats.hadoop.sequencefile import iter_entries, read_header
from crawlmill.plugins.readers.nutch_db import NutchCrawlDbReader, NutchLinkDbReader

from tests.conftest import need

DBS = [
    ("nutch-crawldb", "apache-nutch/testcrawl/crawldb", "crawldb/current/part-00000", 472),
    ("nutch-crawldb", "apache-nutch/deduplication-crawldb", "deduplication-crawldb/current/part-r-00000", 10),
    ("nutch-crawldb", "commoncrawl-nutch/deduplication-crawldb", "deduplication-crawldb/old/part-r-00000", 9),
    ("nutch-linkdb", "apache-nutch/testcrawl/linkdb", "linkdb/current/part-00000", 472),
]  # fmt: skip


@pytest.mark.parametrize(("reader", "rel", "unit", "count"), DBS, ids=[d[1] for d in DBS])
def test_db_to_warc_one_metadata_record_per_url(samples, tmp_path, capsys, reader, rel, unit, count):
    need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    out = tmp_path / "out"
    # detected: no --from
    assert main(["convert", str(samples / rel), "--to", "warc", "-o", str(out), "--workers", "1"]) == 0
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert (report["read"], report["damages"]) == (count, [])
    (warc,) = out.rglob("*.warc.gz")
    assert warc.relative_to(out).as_posix() == unit + ".warc.gz"
    data = (samples / rel).parent / unit / "data"
    header = read_header(data.read_bytes())
    keys = [e.key[1:] if header.version >= 4 else e.key[2:] for e in iter_entries(data.read_bytes())]
    urls, payloads = [], []
    with open(warc, "rb") as fh:
        for rec in ArchiveIterator(fh):
            if rec.rec_type == "metadata":
                urls.append(rec.rec_headers.get_header("WARC-Target-URI"))
                payloads.append(json.loads(rec.content_stream().read()))
    assert urls == [k.decode() for k in keys]  # every URL, in the file's order
    field = "crawl_datum" if reader == "nutch-crawldb" else "inlinks"
    assert all(field in p for p in payloads)


@pytest.mark.parametrize(("reader", "rel", "unit", "count"), DBS, ids=[d[1] for d in DBS])
def test_db_extras_write_each_value_back(samples, reader, rel, unit, count):
    cls = NutchCrawlDbReader if reader == "nutch-crawldb" else NutchLinkDbReader
    assert cls.sniff(str(samples / rel), b"") == 0.9
    (inp,) = cls.discover(str(samples / rel), cls.Options())
    data = (samples / rel).parent / unit / "data"
    raw = [e.value for e in iter_entries(data.read_bytes())]
    with open_reader(inp, reader) as records:
        recs = list(records)
    assert len(recs) == count == len(raw)
    name = CRAWL_DATUM if reader == "nutch-crawldb" else INLINKS
    for record, value in zip(recs, raw, strict=True):
        assert record.kind == RecordKind.METADATA
        fields = record.extras["nutch"]["crawl_datum" if reader == "nutch-crawldb" else "inlinks"]
        assert encode_nutch(name, from_plain(fields)) == value


def test_the_two_db_readers_do_not_claim_each_other(samples):
    crawldb, linkdb = samples / "apache-nutch/testcrawl/crawldb", samples / "apache-nutch/testcrawl/linkdb"
    assert NutchLinkDbReader.sniff(str(crawldb), b"") == 0
    assert NutchCrawlDbReader.sniff(str(linkdb), b"") == 0
    assert NutchCrawlDbReader.sniff(str(samples / "apache-nutch/testcrawl"), b"") == 0
