"""SequenceFile -> WARC -> SequenceFile keeps every key and value byte for byte, for every key
class of the Hadoop samples (Text, TextBytes, UTF8, IntWritable): a key that is no URL is kept
in ``WARC-Source-Key`` (base64 of its serialized bytes) with its class and the value's class."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from crawlmill.formats.hadoop.sequencefile import Entry, iter_entries, read_header

from tests.helpers import record_ids, run_convert

#: one sample per (key class, value class) pair of /work/shared/samples (and the BLOCK ones).
SAMPLES = [
    "hadoop-oracle-generated/text_text_BLOCK_DefaultCodec.seq",
    "hadoop-oracle-generated/mapfile_block_deflate/index",
    "hadoop-oracle-generated/types/IntWritable.seq",
    "hadoop-oracle-generated/types/LongWritable.seq",
    "hadoop-oracle-generated/types/BytesWritable.seq",
    "hadoop-oracle-generated/types/NullWritable.seq",
    "hadoop-oracle-generated/types/MD5Hash.seq",
    "hadoop-oracle-generated/types/VLongWritable.seq",
    "hadoop-oracle-generated/types/DoubleWritable.seq",
    "hadoop-oracle-generated/types/MapWritable.seq",
    "hadoop-oracle-generated/edge/text_null_BLOCK_DefaultCodec.seq",
    "hadoop-oracle-generated/edge/bigvalue_BLOCK_SnappyCodec.seq",
    "pyspark-generated/seq_text_text_block_deflate/part-00000",
    "tensorflow-io/string.seq",
    "cc2012-synthetic/textbytes-snappy/metadata-00000",
    "apache-nutch/testcrawl/segments/20060919213635/parse_data/part-00000/index",
]


def _pairs(path: Path) -> list[tuple[bytes, bytes]]:
    items = list(iter_entries(path.read_bytes()))
    assert all(isinstance(e, Entry) for e in items)
    return [(bytes(e.key), bytes(e.value)) for e in items]


@pytest.mark.parametrize("rel", SAMPLES)
def test_keys_and_values_survive_a_warc(samples, tmp_path, rel):
    src = samples / rel
    if not src.exists():
        pytest.skip(f"sample {rel} not present")
    before = _pairs(src)
    header = read_header(src.read_bytes())
    warc_dir, seq_dir = tmp_path / "warc", tmp_path / "seq"
    args = ["--workers", "1"]
    assert run_convert(src, warc_dir, "--from", "sequencefile", "--to", "warc", *args) == 0
    (warc,) = list(warc_dir.rglob("*.warc.gz"))
    assert record_ids(warc) is None or len(record_ids(warc)) == len(before) + 1
    keep = ("--filter", "kind", "keep=response,resource")
    assert run_convert(warc, seq_dir, "--to", "sequencefile", *args, *keep) == 0
    report = json.loads((seq_dir / ".crawlmill" / "report.json").read_text())
    assert report["quarantined"] == 0
    (out,) = [p for p in seq_dir.rglob("*.seq")]
    after = read_header(out.read_bytes())
    assert (after.key_class, after.value_class) == (header.key_class, header.value_class)
    assert _pairs(out) == before


def test_the_key_field_is_base64_of_the_serialized_key(need, tmp_path, samples):
    """Read by warcio (an independent reader): the field decodes to the key's bytes."""
    warcio = need("warcio.archiveiterator")
    src = samples / "hadoop-oracle-generated/types/IntWritable.seq"
    out = tmp_path / "warc"
    assert run_convert(src, out, "--from", "sequencefile", "--to", "warc", "--workers", "1") == 0
    (warc,) = list(out.rglob("*.warc.gz"))
    keys = []
    with open(warc, "rb") as fh:
        for rec in warcio.ArchiveIterator(fh):
            if rec.rec_type != "warcinfo":
                assert (
                    rec.rec_headers.get_header("WARC-Source-Key-Class")
                    == "org.apache.hadoop.io.IntWritable"
                )
                keys.append(base64.b64decode(rec.rec_headers.get_header("WARC-Source-Key")))
    assert keys == [k for k, _ in _pairs(src)]
