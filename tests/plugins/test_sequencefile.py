"""The ``sequencefile`` reader and writer through the CLI: every file Hadoop and Spark wrote
(../shared/samples) read with every record and copied to a SequenceFile with the same entries
(NONE and RECORD files to the same bytes); WARC -> SequenceFile -> WARC; damage with offsets
and resync; the writer's options."""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path

import pytest
from crawlmill.core import RecordKind, open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.sequencefile import (
    Entry,
    SequenceFileWriter,
    iter_entries,
    read_header,
)

from tests.formats.hadoop.seqdata import (
    ORACLE_METADATA,
    TEXT_CODECS,
    oracle_key,
    oracle_value,
    text,
)

H = "org.apache.hadoop.io."
HC = "org.apache.hadoop.io.compress."
ORACLE = "hadoop-oracle-generated"

#: every SequenceFile of the two sample folders: (path, records, key class, value class).
SAMPLES_SEQ = (
    [(f"{ORACLE}/text_text_NONE{s}.seq", n, "Text", "Text") for s, n in (("", 300), ("_big", 3000), ("_sync2000", 300))]
    + [(f"{ORACLE}/text_text_{m}_{c}.seq", 300, "Text", "Text") for m in ("RECORD", "BLOCK") for c in TEXT_CODECS]
    + [(f"{ORACLE}/text_text_RECORD_DefaultCodec_big.seq", 3000, "Text", "Text")]
    + [(f"{ORACLE}/{d}/{part}", n if part == "data" else i, "Text", "Text" if part == "data" else "LongWritable")
       for d, n, i in (("mapfile_none", 1000, 8), ("mapfile_block_deflate", 1000, 1), ("mapfile_record_deflate_iv16", 300, 19))
       for part in ("data", "index")]
    + [(f"{ORACLE}/types/{t}.seq", n, "IntWritable", t) for t, n in (
        ("IntWritable", 4), ("LongWritable", 5), ("VIntWritable", 10), ("VLongWritable", 5), ("BytesWritable", 3),
        ("NullWritable", 2), ("MD5Hash", 2), ("BooleanWritable", 2), ("FloatWritable", 2), ("DoubleWritable", 1))]
    + [(f"{ORACLE}/types/MapWritable.seq", 2, "Text", "MapWritable")]
    + [(f"{ORACLE}/edge/text_null_{m}_{c}.seq", 3, "Text", "NullWritable") for m in ("RECORD", "BLOCK") for c in TEXT_CODECS]
    + [(f"{ORACLE}/edge/empty_{m}.seq", 0, "Text", "Text") for m in ("NONE", "RECORD", "BLOCK")]
    + [(f"{ORACLE}/edge/bigvalue_{m}_{c}.seq", 2, "Text", "BytesWritable") for m in ("RECORD", "BLOCK") for c in ("SnappyCodec", "Lz4Codec")]
    + [("pyspark-generated/seq_text_text_block_deflate/part-00000", 500, "Text", "Text"),
       ("pyspark-generated/seq_text_text_none/part-00000", 500, "Text", "Text"),
       ("pyspark-generated/mapfile_text_text_block_deflate/part-00000/data", 500, "Text", "Text"),
       ("pyspark-generated/mapfile_text_text_block_deflate/part-00000/index", 1, "Text", "LongWritable")]
)  # fmt: skip


def test_every_sample_sequencefile_is_listed(samples):
    found = {
        p.relative_to(samples).as_posix()
        for folder in (ORACLE, "pyspark-generated")
        for p in (samples / folder).rglob("*")
        if p.is_file() and p.read_bytes()[:3] == b"SEQ"
    }
    assert found == {rel for rel, *_ in SAMPLES_SEQ}


def _entries(path: Path) -> list[Entry]:
    data = path.read_bytes()
    items = list(iter_entries(data))
    assert all(isinstance(e, Entry) for e in items)
    return items


def _ips(src) -> list[str | None]:
    with open_reader(src) as records:
        return [r.ip for r in records if r.kind == RecordKind.RESPONSE]


def _convert(*args: str) -> int:
    return main(["convert", *args, "--workers", "1"])


@pytest.mark.parametrize(
    ("rel", "count", "key", "value"), SAMPLES_SEQ, ids=[s[0] for s in SAMPLES_SEQ]
)
def test_sample_read_and_copied_through_the_cli(samples, tmp_path, capsys, rel, count, key, value):
    src = samples / rel
    header = read_header(src.read_bytes())
    assert (header.key_class, header.value_class) == (H + key, H + value)
    out = tmp_path / "out"
    assert _convert(str(src), "--from", "sequencefile", "--to", "sequencefile", "-o", str(out)) == 0
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert (report["read"], report["written"], report["damages"], report["warnings"]) == (
        count,
        count,
        [],
        {"no-entries": 1} if count == 0 else {},  # an empty file's header: named, not silent
    )
    files = [p for p in out.iterdir() if p.is_file()]
    (copy,) = files  # an empty file too: its header alone (issue 25)
    assert copy.name == src.name.removesuffix(".seq") + ".seq"
    got = read_header(copy.read_bytes())
    assert (got.version, got.key_class, got.value_class, got.compression, got.codec, got.metadata, got.sync) == (
        header.version, header.key_class, header.value_class, header.compression, header.codec, header.metadata, header.sync,
    )  # fmt: skip
    assert [(e.key, e.value) for e in _entries(copy)] == [(e.key, e.value) for e in _entries(src)]
    if header.compression != "block":  # every byte, sync markers and compressed values too
        assert copy.read_bytes() == src.read_bytes()
    else:  # the same blocks (compressed by Python's codecs, not Java's)
        assert [e.block for e in _entries(copy)] == [e.block for e in _entries(src)]


@pytest.mark.parametrize(
    "mode", ["NONE", "RECORD_GzipCodec", "BLOCK_SnappyCodec", "BLOCK_Lz4Codec"]
)
def test_text_sample_maps_to_records(samples, mode):
    with open_reader(samples / ORACLE / f"text_text_{mode}.seq") as records:
        got = list(records)
    assert records.ok and not records.warnings
    assert [r.url for r in got] == [oracle_key(n).decode() for n in range(300)]
    assert [r.payload for r in got] == [oracle_value(n) for n in range(300)]
    assert {r.kind for r in got} == {RecordKind.RESOURCE}
    extras = got[7].extras["sequencefile"]
    assert extras["metadata"] == ORACLE_METADATA and extras["entry"] == 7
    assert extras["key_class"] == extras["value_class"] == H + "Text"
    assert extras["decoded"] == {"key": oracle_key(7)}  # the value is the payload
    assert "value" not in extras  # the payload rebuilds it
    assert got[0].source.format == "sequencefile" and got[0].source.offset is not None


def test_typed_values_are_decoded(samples):
    with open_reader(samples / ORACLE / "types" / "VIntWritable.seq") as records:
        got = list(records)
    assert [r.url for r in got] == [None] * 10  # IntWritable keys: no URL
    assert [r.extras["sequencefile"]["decoded"]["value"] for r in got] == [
        0, 127, 128, -112, -113, -129, 255, 256, 2**31 - 1, -(2**31)
    ]  # fmt: skip
    with open_reader(samples / ORACLE / "types" / "MapWritable.seq") as records:
        first = next(iter(records))
    decoded = first.extras["sequencefile"]["decoded"]["value"]
    assert decoded["classes"] == [[1, H + "UTF8"]]
    assert {e[1]: e[3] for e in decoded["entries"]}[b"utf8"] == "deprecated-utf8"


def test_inspect_says_what_a_sequencefile_is(samples, capsys):
    assert (
        main(
            ["inspect", str(samples / ORACLE / "text_text_BLOCK_SnappyCodec.seq"), "--records", "1"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "sequencefile     0.95" in out and "reading with: sequencefile" in out
    assert "url:          http://example.com/0000" in out


def test_a_spark_output_folder_is_read_without_its_side_files(samples, tmp_path, capsys):
    out = tmp_path / "out"
    assert (
        _convert(
            str(samples / "pyspark-generated" / "seq_text_text_none"),
            "--to",
            "sequencefile",
            "-o",
            str(out),
        )
        == 0
    )
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == ["part-00000.seq"]
    assert (out / "part-00000.seq").read_bytes() == (
        samples / "pyspark-generated" / "seq_text_text_none" / "part-00000"
    ).read_bytes()


# -- WARC <-> SequenceFile -----------------------------------------------------------------------


def test_warc_to_sequencefile_to_warc_keeps_url_head_and_payload(samples, tmp_path, capsys):
    src = samples / "webrecorder-warcio" / "test" / "data" / "example.warc.gz"
    with open_reader(src) as records:
        responses = [
            (r.url, r.http_head, r.payload) for r in records if r.kind == RecordKind.RESPONSE
        ]
    assert responses
    seq = tmp_path / "seq"
    args = ["--filter", "kind", "keep=response"]
    assert _convert(str(src), "--to", "sequencefile", "-o", str(seq), *args) == 0, (
        capsys.readouterr().err
    )
    import json

    warnings = json.loads((seq / ".crawlmill" / "report.json").read_text())["warnings"]
    # the WARC date and IP have no place in a Text -> BytesWritable entry: refused, not silent
    assert warnings["date-not-written"] == len(responses)
    assert warnings["ip-not-written"] == sum(1 for r in _ips(src) if r)
    (path,) = seq.glob("*.seq")
    header = read_header(path.read_bytes())
    assert (header.key_class, header.value_class, header.version, header.compression) == (
        H + "Text", H + "BytesWritable", 6, "none")  # fmt: skip
    with open_reader(path) as records:
        back = [(r.url, r.http_head, r.payload, r.kind) for r in records]
    assert back == [(u, h, p, RecordKind.RESPONSE) for u, h, p in responses]
    warc = tmp_path / "warc"
    assert _convert(str(seq), "--to", "warc", "-o", str(warc)) == 0
    with open_reader(next(warc.glob("*.warc.gz"))) as records:
        again = [(r.url, r.http_head, r.payload) for r in records if r.kind == RecordKind.RESPONSE]
    assert again == responses


@pytest.mark.parametrize(
    ("compression", "codec"),
    [("record", "gzip"), ("block", "snappy"), ("block", "bzip2"), ("record", "zstd")],
)
def test_writer_compression_options(samples, tmp_path, capsys, compression, codec):
    src = samples / ORACLE / "text_text_NONE.seq"
    out = tmp_path / "out"
    opts = [
        "--option",
        f"compression={compression}",
        "--option",
        f"codec={codec}",
        "--option",
        "block_size=3000",
    ]
    assert _convert(str(src), "--to", "sequencefile", "-o", str(out), *opts) == 0, (
        capsys.readouterr().err
    )
    data = (out / "text_text_NONE.seq").read_bytes()
    header = read_header(data)
    names = {
        "gzip": "GzipCodec",
        "snappy": "SnappyCodec",
        "bzip2": "BZip2Codec",
        "zstd": "ZStandardCodec",
    }
    assert (header.compression, header.codec) == (compression, HC + names[codec])
    assert header.metadata == ORACLE_METADATA
    entries = _entries(out / "text_text_NONE.seq")
    assert [(e.key, e.value) for e in entries] == [(e.key, e.value) for e in _entries(src)]
    if compression == "block":
        assert len({e.block for e in entries}) > 5


def test_writer_old_version_option(samples, tmp_path, capsys):
    src = samples / ORACLE / "types" / "LongWritable.seq"
    out = tmp_path / "out"
    assert _convert(str(src), "--to", "sequencefile", "-o", str(out), "--option", "version=3") == 0
    data = (out / "LongWritable.seq").read_bytes()
    assert data[:4] == b"SEQ\x03" and data[4:6] == len(H + "IntWritable").to_bytes(2, "big")
    assert [(e.key, e.value) for e in _entries(out / "LongWritable.seq")] == [
        (e.key, e.value) for e in _entries(src)
    ]


# -- damage --------------------------------------------------------------------------------------


def _text_file(path: Path, n: int, compression="none", block_size=3000) -> list[Entry]:
    buf = io.BytesIO()
    w = SequenceFileWriter(
        buf,
        H + "Text",
        H + "Text",
        compression=compression,
        sync_interval=1500,
        block_size=block_size,
    )
    for i in range(n):
        w.append(text(oracle_key(i)), text(oracle_value(i)))
    w.close()
    path.write_bytes(buf.getvalue())
    return _entries(path)


def _damage_run(src: Path, tmp_path: Path) -> tuple[int, dict, list[str]]:
    out = tmp_path / "out"
    code = _convert(str(src), "--to", "sequencefile", "-o", str(out))
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    copy = out / (src.name.removesuffix(".seq") + ".seq")
    keys = [e.key for e in _entries(copy)] if copy.exists() else []
    return code, report, keys


def test_cli_wrong_record_length_resyncs_and_reports_its_offset(tmp_path, capsys):
    src = tmp_path / "in.seq"
    entries = _text_file(src, 80)
    data = bytearray(src.read_bytes())
    bad = entries[20]
    struct.pack_into(">i", data, bad.offset, bad.length - 8 + 5)
    src.write_bytes(bytes(data))
    code, report, keys = _damage_run(src, tmp_path)
    resumed = next(e for e in entries[21:] if e.sync_before)
    assert code == 3
    assert [(d["offset"], d["code"]) for d in report["damages"]] == [(bad.offset, "bad-length")]
    kept = [e.key for e in entries if e.offset < bad.offset or e.offset >= resumed.offset]
    assert keys == kept
    assert report["written"] == len(kept) and report["read"] == len(kept) + 1  # + the damage
    quarantine = tmp_path / "out" / ".crawlmill" / "quarantine"
    (index,) = quarantine.rglob("*.jsonl")
    entry = json.loads(index.read_text().splitlines()[0])
    assert entry["offset"] == bad.offset and entry["length"] == resumed.offset - 20 - bad.offset


def test_cli_cut_file(tmp_path, capsys):
    src = tmp_path / "in.seq"
    entries = _text_file(src, 40)
    src.write_bytes(src.read_bytes()[: entries[30].offset + 12])
    code, report, keys = _damage_run(src, tmp_path)
    assert code == 3 and keys == [e.key for e in entries[:30]]
    assert [(d["offset"], d["code"]) for d in report["damages"]] == [
        (entries[30].offset, "truncated-record")
    ]


def test_cli_corrupt_block(tmp_path, capsys):
    src = tmp_path / "in.seq"
    entries = _text_file(src, 200, "block")
    blocks = sorted({e.offset for e in entries})
    data = bytearray(src.read_bytes())
    for i in range(blocks[1] + 30, blocks[1] + 60):
        data[i] ^= 0x33
    src.write_bytes(bytes(data))
    code, report, keys = _damage_run(src, tmp_path)
    assert code == 3
    assert [d["offset"] for d in report["damages"]] == [blocks[1]]
    assert report["damages"][0]["code"] in {"corrupt-member", "bad-length"}
    assert keys == [e.key for e in entries if e.offset != blocks[1]]


def test_cli_not_a_header(tmp_path, capsys):
    src = tmp_path / "in.seq"
    src.write_bytes(b"SEQ\x06\x19org.apache.hadoop")
    code, report, keys = _damage_run(src, tmp_path)
    assert code == 3 and keys == []
    assert [(d["offset"], d["code"]) for d in report["damages"]] == [(0, "truncated-record")]


def test_a_value_its_class_refuses_is_quarantined(samples, tmp_path, capsys):
    src = samples / "webrecorder-warcio" / "test" / "data" / "example.warc.gz"
    out = tmp_path / "out"
    opts = [
        "--option",
        "value_class=org.apache.hadoop.io.IntWritable",
        "--filter",
        "kind",
        "keep=response",
    ]
    assert _convert(str(src), "--to", "sequencefile", "-o", str(out), *opts) == 3  # refused
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["written"] == 0 and report["quarantined"] >= 1
    (index,) = (out / ".crawlmill" / "quarantine").rglob("*.jsonl")
    reason = json.loads(index.read_text().splitlines()[0])["reason"]
    assert (
        reason.startswith("unwritable-record:")
        and "not one org.apache.hadoop.io.IntWritable" in reason
    )


def test_a_value_whose_prefix_disagrees_is_kept_and_copied(tmp_path, capsys):
    src = tmp_path / "odd.seq"
    buf = io.BytesIO()
    w = SequenceFileWriter(buf, H + "Text", H + "Text")
    w.append(text(b"http://a.example/"), b"\x05abc")  # declares 5 bytes, holds 3
    w.append(text(b"http://b.example/"), text(b"fine"))
    w.close()
    src.write_bytes(buf.getvalue())
    with open_reader(src) as records:
        first, second = list(records)
    assert first.extras["sequencefile"]["value"] == b"\x05abc" and first.payload == b"\x05abc"
    assert "value" not in second.extras["sequencefile"] and second.payload == b"fine"
    assert [w.code for w in records.warnings] == ["value-not-its-class"]
    out = tmp_path / "out"
    assert _convert(str(src), "--to", "sequencefile", "-o", str(out)) == 0
    assert (out / "odd.seq").read_bytes() == src.read_bytes()


def test_cli_sync_markers_and_lengths_found_by_the_fault_harness(tmp_path, capsys):
    """Through the CLI: two sync markers in a row are read (exit 0, every entry); a record
    length running past a sync marker, or past the end with a marker after the record, is
    damage at the record and nothing after the marker is lost."""
    src = tmp_path / "in.seq"
    entries = _text_file(src, 80)
    orig = src.read_bytes()
    sync = read_header(orig).sync
    marks = [i for i, e in enumerate(entries) if e.sync_before and i > 10]
    at = entries[marks[0]].offset - 20
    src.write_bytes(orig[:at] + b"\xff\xff\xff\xff" + sync + orig[at:])
    code, report, keys = _damage_run(src, tmp_path / "a")
    assert code == 0 and report["damages"] == [] and keys == [e.key for e in entries]
    for n, new_len in (
        (1, entries[marks[0] + 1].offset - entries[marks[0] - 1].offset - 8),  # lands on a record
        (2, 1 << 26),  # past the end of the file
    ):
        data = bytearray(orig)
        bad = entries[marks[0] - 1]
        struct.pack_into(">i", data, bad.offset, new_len)
        src.write_bytes(bytes(data))
        code, report, keys = _damage_run(src, tmp_path / str(n))
        assert code == 3
        assert [(d["offset"], d["code"]) for d in report["damages"]] == [(bad.offset, "bad-length")]
        assert keys == [e.key for e in entries if e is not bad]
