"""SequenceFile at the mechanism: every file Hadoop and Spark wrote read with every entry
consumed exactly; headers of every version; damage with its offset and resync at the next sync
marker; the writer's round trips through every codec and mode."""

from __future__ import annotations

import io
import struct

import pytest
from crawlmill.formats.codecs.stream import Damage
from crawlmill.formats.hadoop.codecs import CODECS, CodecError, codec_named
from crawlmill.formats.hadoop.sequencefile import (
    Entry,
    Header,
    HeaderError,
    SequenceFileWriter,
    encode_header,
    iter_entries,
    read_header,
)
from crawlmill.formats.hadoop.writables import builtin, decode

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


def _read(data: bytes, **kw) -> tuple[list[Entry], list[Damage]]:
    items = list(iter_entries(data, **kw))
    return [e for e in items if isinstance(e, Entry)], [d for d in items if isinstance(d, Damage)]


def _check_text_file(
    data: bytes, count: int, compression: str, codec: str | None, metadata
) -> list[Entry]:
    header = read_header(data)
    assert (header.version, header.key_class, header.value_class) == (6, H + "Text", H + "Text")
    assert (header.compression, header.codec) == (compression, codec)
    assert header.metadata == metadata
    entries, damage = _read(data)
    assert damage == []
    t = builtin(H + "Text")
    assert [decode(t, e.key) for e in entries] == [oracle_key(n) for n in range(count)]
    assert [decode(t, e.value) for e in entries] == [oracle_value(n) for n in range(count)]
    return entries


MODES = [("NONE", None)] + [(m, c) for m in ("RECORD", "BLOCK") for c in TEXT_CODECS]


@pytest.mark.parametrize(("mode", "codec"), MODES)
def test_hadoop_text_files(samples, mode, codec):
    name = f"text_text_{mode}" + (f"_{codec}" if codec else "") + ".seq"
    data = (samples / ORACLE / name).read_bytes()
    entries = _check_text_file(data, 300, mode.lower(), codec and HC + codec, ORACLE_METADATA)
    if mode == "NONE":  # the records tile the file: nothing left, nothing short
        assert entries[0].offset == read_header(data).length
        assert entries[-1].offset + entries[-1].length == len(data)
        assert not any(e.sync_before for e in entries)  # < 100 KiB: no sync after the header
    if mode == "BLOCK":
        assert {e.block for e in entries} == {0}


def test_sync_markers_where_hadoop_put_them(samples):
    data = (samples / ORACLE / "text_text_NONE_big.seq").read_bytes()
    entries = _check_text_file(data, 3000, "none", None, ORACLE_METADATA)
    assert [e.offset - 20 for e in entries if e.sync_before] == [102477, 204943, 307388]
    data = (samples / ORACLE / "text_text_NONE_sync2000.seq").read_bytes()
    entries = _check_text_file(data, 300, "none", None, ORACLE_METADATA)
    gaps = [e.offset for e in entries if e.sync_before]
    assert len(gaps) > 10 and all(
        2000 <= b - a <= 2300 for a, b in zip(gaps, gaps[1:], strict=False)
    )
    data = (samples / ORACLE / "text_text_RECORD_DefaultCodec_big.seq").read_bytes()
    entries = _check_text_file(data, 3000, "record", HC + "DefaultCodec", ORACLE_METADATA)
    assert sum(e.sync_before for e in entries) == 1


@pytest.mark.parametrize("mode", ["none", "record", "block"])
def test_mapfile_parts_are_sequencefiles(samples, mode):
    folder = {
        "none": "mapfile_none",
        "record": "mapfile_record_deflate_iv16",
        "block": "mapfile_block_deflate",
    }[mode]
    data = (samples / ORACLE / folder / "data").read_bytes()
    header = read_header(data)
    assert header.compression == mode and header.metadata == []
    entries, damage = _read(data)
    assert not damage and len(entries) == (300 if "iv16" in folder else 1000)
    index = (samples / ORACLE / folder / "index").read_bytes()
    ih = read_header(index)
    assert (ih.value_class, ih.compression, ih.codec) == (
        H + "LongWritable",
        "block",
        HC + "DefaultCodec",
    )
    positions = [decode(builtin(ih.value_class), e.value) for e in _read(index)[0]]
    # every index position is a record of data or the sync marker in front of one
    starts = {e.offset for e in entries} | {e.offset - 20 for e in entries if e.sync_before}
    assert positions and set(positions) <= starts


@pytest.mark.parametrize(
    "folder",
    ["seq_text_text_block_deflate", "seq_text_text_none", "mapfile_text_text_block_deflate"],
)
def test_pyspark_files(samples, folder):
    base = samples / "pyspark-generated" / folder / "part-00000"
    data = (base / "data" if base.is_dir() else base).read_bytes()
    compression = "none" if folder.endswith("none") else "block"
    entries = _check_text_file(
        data, 500, compression, None if compression == "none" else HC + "DefaultCodec", []
    )
    assert len(entries) == 500


@pytest.mark.parametrize("mode", ["RECORD", "BLOCK"])
@pytest.mark.parametrize("codec", TEXT_CODECS)
def test_zero_length_values(samples, mode, codec):
    data = (samples / ORACLE / "edge" / f"text_null_{mode}_{codec}.seq").read_bytes()
    assert read_header(data).value_class == H + "NullWritable"
    entries, damage = _read(data)
    assert not damage
    assert [(e.key, e.value) for e in entries] == [(text(b"k%d" % i), b"") for i in range(3)]


@pytest.mark.parametrize("mode", ["RECORD", "BLOCK"])
@pytest.mark.parametrize("codec", ["SnappyCodec", "Lz4Codec"])
def test_several_groups_and_chunks_of_hadoop_block_framing(samples, mode, codec):
    data = (samples / ORACLE / "edge" / f"bigvalue_{mode}_{codec}.seq").read_bytes()
    entries, damage = _read(data)
    assert not damage
    values = [decode(builtin(H + "BytesWritable"), e.value) for e in entries]
    assert [decode(builtin(H + "Text"), e.key) for e in entries] == [b"big", b"small"]
    assert len(values[0]) == 600_000 and values[1] == b"\x01"


@pytest.mark.parametrize("mode", ["NONE", "RECORD", "BLOCK"])
def test_empty_files(samples, mode):
    data = (samples / ORACLE / "edge" / f"empty_{mode}.seq").read_bytes()
    assert read_header(data).length == len(data)
    assert _read(data) == ([], [])


# -- headers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "compression", "codec"),
    [(1, "none", None), (2, "none", None), (3, "none", None), (3, "record", HC + "DefaultCodec"),
     (4, "block", HC + "DefaultCodec"), (5, "record", HC + "GzipCodec"), (6, "block", HC + "Lz4Codec")],
)  # fmt: skip
def test_header_of_every_version_round_trips(version, compression, codec):
    header = Header(version, "UTF8" if version < 4 else H + "Text", "long", compression, codec,
                    [(b"k", b"v")] if version == 6 else [], None if version == 1 else bytes(range(16)))  # fmt: skip
    data = encode_header(header)
    if version < 4:  # class names as UTF8: u16 length
        assert data[4:10] == b"\x00\x04UTF8"
    back = read_header(data + b"rest")
    header.length = len(data)
    assert back == header


def test_old_versions_without_and_with_sync_are_read():
    for version in (1, 2, 3):
        out = io.BytesIO()
        w = SequenceFileWriter(out, "UTF8", "long", version=version, sync_interval=30)
        for i in range(5):
            w.append(b"\x00\x01%d" % i, struct.pack(">q", i))
        w.close()
        entries, damage = _read(out.getvalue())
        assert not damage and [e.key for e in entries] == [b"\x00\x01%d" % i for i in range(5)]
        assert any(e.sync_before for e in entries) == (version > 1)


@pytest.mark.parametrize(
    ("data", "why"),
    [(b"", "no SequenceFile magic"), (b"SEQ\x07", "version 7"), (b"SEQ\x06\x05Te", "cut short in its key class name"),
     (b"SEQ\x06\x01a\x01b\x00\x00\xff\xff\xff\xff", "metadata count -1"),
     (b"SEQ\x06\x01a\x01b\x00\x00\x00\x00\x00\x00" + bytes(15), "sync hash")],
)  # fmt: skip
def test_bad_headers(data, why):
    with pytest.raises(HeaderError, match=why):
        read_header(data)


# -- the writer -------------------------------------------------------------------------------

PAIRS = [(text(oracle_key(n)), text(oracle_value(n))) for n in range(400)] + [
    (text(b""), text(b""))
]


@pytest.mark.parametrize(
    ("compression", "codec"),
    [("none", "default")] + [(m, c.short) for m in ("record", "block") for c in CODECS],
)
def test_writer_round_trips(compression, codec):
    out = io.BytesIO()
    w = SequenceFileWriter(out, H + "Text", H + "Text", compression=compression, codec=codec_named(codec),
                           metadata=[(b"z", b"1"), (b"a", b"2")], sync_interval=2000, block_size=5000)  # fmt: skip
    for k, v in PAIRS:
        w.append(k, v)
    w.close()
    data = out.getvalue()
    header = read_header(data)
    assert header.metadata == [(b"a", b"2"), (b"z", b"1")]  # sorted, as Hadoop's TreeMap
    entries, damage = _read(data)
    assert not damage
    assert [(e.key, e.value) for e in entries] == PAIRS
    if compression == "block":
        assert len({e.block for e in entries}) > 3
    elif compression == "none":
        assert sum(e.sync_before for e in entries) > 3


def test_hadoop_sync_rule_gives_hadoops_bytes(samples):
    """The NONE file Hadoop wrote, rewritten with its sync hash: byte for byte the same."""
    data = (samples / ORACLE / "text_text_NONE_big.seq").read_bytes()
    header = read_header(data)
    out = io.BytesIO()
    w = SequenceFileWriter(
        out, header.key_class, header.value_class, metadata=header.metadata, sync=header.sync
    )
    for e in _read(data)[0]:
        w.append(e.key, e.value)
    w.close()
    assert out.getvalue() == data


def test_record_copy_keeps_stored_values(samples):
    data = (samples / ORACLE / "text_text_RECORD_GzipCodec.seq").read_bytes()
    header = read_header(data)
    out = io.BytesIO()
    w = SequenceFileWriter(out, header.key_class, header.value_class, compression="record",
                           codec=codec_named("gzip"), metadata=header.metadata, sync=header.sync)  # fmt: skip
    for e in _read(data)[0]:
        w.append(e.key, e.value, e.stored_value)
    w.close()
    assert out.getvalue() == data


# -- damage -----------------------------------------------------------------------------------


def _none_file(n=300, interval=2000) -> bytes:
    out = io.BytesIO()
    w = SequenceFileWriter(out, H + "Text", H + "Text", sync_interval=interval)
    for k, v in PAIRS[:n]:
        w.append(k, v)
    w.close()
    return out.getvalue()


def test_cut_file_delivers_what_precedes_the_cut():
    data = _none_file()
    entries, _ = _read(data)
    cut = entries[100].offset + 10
    got, damage = _read(data[:cut])
    assert [e.key for e in got] == [e.key for e in entries[:100]]
    assert len(damage) == 1 and damage[0].offset == entries[100].offset
    assert "file ends after" in damage[0].reason and damage[0].length == cut - entries[100].offset


def test_wrong_record_length_resyncs_at_the_next_sync_marker():
    data = bytearray(_none_file())
    entries, _ = _read(bytes(data))
    bad = entries[50]
    struct.pack_into(">i", data, bad.offset, bad.length - 8 + 3)  # 3 bytes too long
    got, damage = _read(bytes(data))
    resumed = next(e for e in entries[51:] if e.sync_before)
    assert len(damage) == 1
    assert (
        damage[0].offset == bad.offset
        and damage[0].offset + damage[0].length == resumed.offset - 20
    )
    assert "record length" in damage[0].reason and "is wrong" in damage[0].reason
    assert [e.key for e in got] == [
        e.key for e in entries if e.offset < bad.offset or e.offset >= resumed.offset
    ]


def _text_pair(key: bytes, value: bytes) -> bool:
    try:
        decode(builtin(H + "Text"), key), decode(builtin(H + "Text"), value)
    except ValueError:
        return False
    return True


def test_wrong_record_length_found_by_the_classes():
    data = bytearray(_none_file())
    entries, _ = _read(bytes(data))
    bad = entries[50]
    struct.pack_into(">i", data, bad.offset, bad.length - 8 + 3)
    got, damage = _read(bytes(data), check=_text_pair)
    assert [d.offset for d in damage] == [bad.offset]
    assert "not its class" in damage[0].reason


def test_impossible_lengths_and_a_bad_sync_hash_are_damage():
    data = bytearray(_none_file())
    entries, _ = _read(bytes(data))
    struct.pack_into(">ii", data, entries[10].offset, 5, 9)  # key longer than its record
    syncs = [e for e in entries if e.sync_before]
    data[syncs[3].offset - 10] ^= 0xFF  # the 4th sync hash
    # without the classes, the record before garbage counts as the one with a wrong length
    assert [d.offset for d in _read(bytes(data))[1]][0] == entries[9].offset
    got, damage = _read(bytes(data), check=_text_pair)  # its value proves it right
    assert [d.offset for d in damage] == [entries[10].offset, syncs[3].offset - 20]
    assert "impossible" in damage[0].reason and "sync hash" in damage[1].reason
    assert damage[1].offset + damage[1].length == syncs[4].offset - 20
    assert len(got) == len(entries) - sum(
        d.offset <= e.offset < d.offset + d.length for e in entries for d in damage
    )


def test_sync_marker_right_at_the_end_is_not_damage():
    data = _none_file(5)
    sync = read_header(data).sync
    entries, damage = _read(data + b"\xff\xff\xff\xff" + sync)
    assert not damage and len(entries) == 5
    entries, damage = _read(data + b"\xff\xff\xff\xff" + sync[:7])
    assert len(entries) == 5 and [d.reason for d in damage] == [
        "sync marker cut by the end of the file"
    ]


def _block_file(codec="default", n=400) -> bytes:
    out = io.BytesIO()
    w = SequenceFileWriter(
        out, H + "Text", H + "Text", compression="block", codec=codec_named(codec), block_size=4000
    )
    for k, v in PAIRS[:n]:
        w.append(k, v)
    w.close()
    return out.getvalue()


@pytest.mark.parametrize("codec", [c.short for c in CODECS])
def test_corrupt_block_resyncs_at_the_next_block(codec):
    data = bytearray(_block_file(codec))
    entries, _ = _read(bytes(data))
    blocks = sorted({e.offset for e in entries})
    target = blocks[2]
    end = blocks[3]
    for i in range(target + 40, end - 4, 7):  # garble the compressed buffers
        data[i] ^= 0x5A
    got, damage = _read(bytes(data))
    assert len(damage) == 1 and (damage[0].offset, damage[0].length) == (target, end - target)
    assert "block" in damage[0].reason
    assert [e.key for e in got] == [e.key for e in entries if e.offset != target]


def test_cut_block_file():
    data = _block_file()
    entries, _ = _read(data)
    last = max(e.offset for e in entries)
    got, damage = _read(data[: last + 30])
    assert [e.key for e in got] == [e.key for e in entries if e.offset < last]
    assert (
        len(damage) == 1
        and damage[0].offset == last
        and "cut by the end of the file" in damage[0].reason
    )


def test_block_counts_that_do_not_add_up():
    out = io.BytesIO()
    w = SequenceFileWriter(out, H + "Text", H + "Text", compression="block")
    w.append(text(b"a"), text(b"b"))
    w.close()
    data = bytearray(out.getvalue())
    start = read_header(bytes(data)).length
    data[start + 20] = 2  # 2 records declared, 1 written
    got, damage = _read(bytes(data))
    assert not got and damage[0].offset == start and "2 records" in damage[0].reason


def test_sizes_from_the_data_are_bounded():
    data = _none_file(3)
    entries, _ = _read(data)
    got, damage = _read(data, max_record_bytes=30)
    assert not got and "exceeds max_record_bytes" in damage[0].reason
    bomb = codec_named("default").compress(bytes(10_000))
    with pytest.raises(CodecError, match="beyond the limit"):
        codec_named("default").decompress(bomb, 1000)
    framed = struct.pack(">ii", 2**30, 3) + b"abc"
    with pytest.raises(CodecError, match="over the limit"):
        codec_named("snappy").decompress(framed, 1 << 20)


def test_unknown_codec_is_damage_of_the_body():
    header = Header(
        6, H + "Text", H + "Text", "record", "com.hadoop.compression.lzo.LzoCodec", [], bytes(16)
    )
    data = encode_header(header) + b"\x00\x00\x00\x05\x00\x00\x00\x01aXXXX"
    got, damage = _read(data)
    assert not got and "LzoCodec is not supported" in damage[0].reason


# -- found by the fault-injection harness (tests/faults, SequenceFile family) -------------------


def test_consecutive_sync_markers_are_read():
    """Two sync markers in a row (a writer that synced twice, a file spliced at a marker) are
    two markers at record boundaries, not damage: nothing is lost after them."""
    data = _none_file()
    entries, _ = _read(data)
    sync = read_header(data).sync
    at = next(e for e in entries[5:] if e.sync_before).offset - 20
    doubled = data[:at] + b"\xff\xff\xff\xff" + sync + data[at:]
    got, damage = _read(doubled, check=_text_pair)
    assert damage == []
    assert [e.key for e in got] == [e.key for e in entries]
    got, damage = _read(data[:at] + (b"\xff\xff\xff\xff" + sync) * 3 + data[at:])
    assert damage == [] and len(got) == len(entries)


def test_record_length_that_swallows_a_sync_marker_is_damage():
    """A declared record length that runs over one of the file's sync markers is disproved by
    the marker (its 16-byte hash inside one record): damage at the record, reading resumes at
    that marker, so nothing after it is lost, even when the wrong end lands on a record."""
    orig = _none_file()
    data = bytearray(orig)
    entries, _ = _read(orig)
    syncs = [i for i, e in enumerate(entries) if e.sync_before and i > 20]
    k = syncs[0] - 1  # the last record before a sync marker
    target = entries[syncs[0] + 2]  # its new end: the start of a record after the marker
    struct.pack_into(">i", data, entries[k].offset, target.offset - entries[k].offset - 8)
    for check in (None, _text_pair):
        got, damage = _read(bytes(data), check=check)
        assert [d.offset for d in damage] == [entries[k].offset]
        assert "sync marker" in damage[0].reason
        assert damage[0].offset + damage[0].length == entries[syncs[0]].offset - 20
        assert [e.key for e in got] == [e.key for i, e in enumerate(entries) if i != k]
    # a partial record inserted before a marker: its length runs over it, the classes pass
    partial = orig[entries[3].offset : entries[3].offset + 30]
    at = entries[syncs[0]].offset - 20
    spliced = orig[:at] + partial + orig[at:]
    got, damage = _read(spliced, check=_text_pair)
    assert [d.offset for d in damage] == [at]
    assert [e.key for e in got] == [e.key for e in entries]


def test_bytes_lost_inside_the_record_before_a_marker_are_found_by_the_marker():
    """Bytes deleted inside the last record before a sync marker: its declared length now
    ends inside the marker (the marker starts within the record but runs past its end). The
    marker disproves the length all the same: damage at the record, reading resumes at the
    marker, nothing after it lost (the soak case seq/none/delete-bytes/s7000 lost the four
    records up to the next marker: the reader took the record and met the marker's tail)."""
    orig = _none_file()
    entries, _ = _read(orig)
    syncs = [i for i, e in enumerate(entries) if e.sync_before and i > 20]
    k = syncs[0] - 1  # the last record before a sync marker
    marker = entries[syncs[0]].offset - 20
    for lost in (1, 8, 19):  # the declared end lands 19..1 bytes before the marker's end
        at = marker - 5 - lost
        data = orig[:at] + orig[at + lost :]
        for check in (None, _text_pair):
            got, damage = _read(data, check=check)
            assert [d.offset for d in damage] == [entries[k].offset], (lost, check)
            assert "sync marker" in damage[0].reason
            assert damage[0].offset + damage[0].length == marker - lost
            assert [e.key for e in got] == [e.key for i, e in enumerate(entries) if i != k]


def test_record_length_past_the_end_with_a_sync_marker_after_it_is_no_cut():
    """A record length pointing past the end of the file is a cut file only when no sync
    marker follows the record: with one, the length is wrong and reading resumes there."""
    orig = _none_file()
    entries, _ = _read(orig)
    k = 40
    data = bytearray(orig)
    data[entries[k].offset] ^= 0x04  # + 64 MiB: past the end of a 30 KB file
    resumed = next(e for e in entries[k + 1 :] if e.sync_before)
    for check in (None, _text_pair):
        got, damage = _read(bytes(data), check=check)
        assert [d.offset for d in damage] == [entries[k].offset]
        assert damage[0].offset + damage[0].length == resumed.offset - 20
        assert "runs past" in damage[0].reason
        lost = {e.offset for e in entries if entries[k].offset <= e.offset < resumed.offset}
        assert [e.key for e in got] == [e.key for e in entries if e.offset not in lost]
    # after the last sync marker, the same length is a cut file: damage to the end
    last = max(i for i, e in enumerate(entries) if e.sync_before)
    data = bytearray(orig)
    data[entries[last + 1].offset] ^= 0x04
    got, damage = _read(bytes(data))
    assert len(got) == last + 1 and len(damage) == 1
    assert damage[0].offset + damage[0].length == len(data)
