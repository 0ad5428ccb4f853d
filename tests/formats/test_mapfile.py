"""crawlmill.formats.hadoop.mapfile at its boundaries: the raw comparator order of keys, the
HashPartitioner, the index the writer makes (0, 1, 127, 128, 129, 256 records; NONE, RECORD,
BLOCK), lookups of every key and of keys before the first, after the last and in between;
Hadoop-written MapFiles rewritten to the same bytes and index."""

from __future__ import annotations

import io
import struct

import pytest
from crawlmill.formats.hadoop.codecs import codec_for, codec_named
from crawlmill.formats.hadoop.mapfile import (
    KeyOrderError,
    MapFile,
    MapFileWriter,
    describe,
    hash_bytes,
    hash_code,
    hash_partition,
    key_from_text,
    mapfile_dirs,
    sort_key,
)
from crawlmill.formats.hadoop.sequencefile import Entry, iter_entries, read_header

from tests.formats.hadoop.seqdata import text

H = "org.apache.hadoop.io."
TEXT = H + "Text"
ORACLE = "hadoop-oracle-generated"


def _write(folder, pairs, key_class=TEXT, **kw):
    folder.mkdir(parents=True, exist_ok=True)
    data, index = io.BytesIO(), io.BytesIO()
    w = MapFileWriter(data, index, key_class, H + "Text", **kw)
    for k, v in pairs:
        w.append(k, v)
    w.close()
    (folder / "data").write_bytes(data.getvalue())
    (folder / "index").write_bytes(index.getvalue())
    return folder


def _index(folder):
    return [
        (e.key, struct.unpack(">q", e.value)[0])
        for e in iter_entries((folder / "index").read_bytes())
        if isinstance(e, Entry)
    ]


def _pairs(n):
    return [(text(b"key-%06d" % i), text(b"value %d" % i)) for i in range(n)]


# -- order and partitions ------------------------------------------------------------------


def test_text_keys_sort_by_their_utf8_bytes_not_by_their_serialized_bytes():
    long_a = text(b"a" * 200)  # a 2-byte VInt length 0x8f 0xc8: serialized it sorts after "b"
    b = text(b"b")
    assert long_a > b
    assert sort_key(TEXT, long_a) < sort_key(TEXT, b)


def test_non_ascii_and_invalid_utf8_keys_sort_as_unsigned_bytes():
    keys = [b"z", "é".encode(), "\uffff".encode(), "😀".encode(), b"\xff\xfe", b"A", b""]
    ordered = sorted(keys, key=lambda k: sort_key(TEXT, text(k)))
    assert ordered == sorted(keys)  # Python bytes order = Hadoop's compareBytes
    # Java's String order (UTF-16) would put U+FFFF after the emoji; bytes do not
    assert ordered.index("\uffff".encode()) < ordered.index("😀".encode())


def test_number_keys_sort_signed():
    ints = [5, -1, 0, -(2**31), 2**31 - 1]
    ser = [struct.pack(">i", i) for i in ints]
    assert [struct.unpack(">i", k)[0] for k in sorted(ser, key=lambda k: sort_key(H + "IntWritable", k))] == sorted(ints)  # fmt: skip
    longs = [2**63 - 1, -(2**63), -5, 7]
    ser = [struct.pack(">q", i) for i in longs]
    assert [struct.unpack(">q", k)[0] for k in sorted(ser, key=lambda k: sort_key(H + "LongWritable", k))] == sorted(longs)  # fmt: skip


def test_hash_bytes_is_java_hashcode_arithmetic():
    # hashBytes starts at 1: for ASCII it is 31**n + String.hashCode (int overflow wraps)
    assert hash_bytes(b"") == 1
    assert hash_bytes(b"a") == 31 + 97
    java_hello = 99162322  # "hello".hashCode()
    assert hash_bytes(b"hello") == (31**5 + java_hello + 2**31) % 2**32 - 2**31
    assert hash_bytes(b"\xff") == 31 - 1  # bytes are signed
    assert hash_code(TEXT, text(b"hello")) == hash_bytes(b"hello")
    assert hash_code(H + "IntWritable", struct.pack(">i", -7)) == -7
    assert hash_code(H + "LongWritable", struct.pack(">q", 2**32 + 5)) == 4


def test_hash_partition_masks_the_sign_bit():
    key = text(b"x" * 40)
    h = hash_code(TEXT, key)
    assert hash_partition(TEXT, key, 7) == (h & 0x7FFFFFFF) % 7


def test_key_from_text_per_class():
    assert key_from_text(TEXT, "é") == b"\x02\xc3\xa9"
    assert key_from_text("UTF8", "a\x00") == b"\x00\x03a\xc0\x80"
    assert key_from_text(H + "BytesWritable", "ab") == b"\x00\x00\x00\x02ab"
    assert key_from_text(H + "IntWritable", "-2") == b"\xff\xff\xff\xfe"
    with pytest.raises(ValueError):
        key_from_text(H + "MD5Hash", "x")


# -- the writer's index ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("records", "entries"), [(0, 0), (1, 1), (127, 1), (128, 1), (129, 2), (256, 2), (257, 3)]
)
@pytest.mark.parametrize("compression", ["none", "record"])
def test_index_entry_every_128_records(tmp_path, records, entries, compression):
    folder = _write(tmp_path / "m", _pairs(records), compression=compression)
    index = _index(folder)
    assert [k for k, _ in index] == [_pairs(records)[i][0] for i in range(0, records, 128)]
    assert len(index) == entries
    data = (folder / "data").read_bytes()
    starts = {e.offset: e.key for e in iter_entries(data) if isinstance(e, Entry)}
    for key, pos in index:  # no sync marker in so small a file: each names its record
        assert starts[pos] == key
    assert read_header((folder / "index").read_bytes()).compression == "block"
    assert read_header((folder / "index").read_bytes()).codec == H + "compress.DefaultCodec"


def test_block_data_gets_one_index_entry_per_block(tmp_path):
    pairs = _pairs(1000)
    folder = _write(tmp_path / "m", pairs, compression="block", block_size=3000)
    data = (folder / "data").read_bytes()
    blocks = {}
    for e in iter_entries(data):
        blocks.setdefault(e.offset, []).append(e.key)
    index = _index(folder)
    assert len(blocks) > 5
    assert [pos for _, pos in index] == sorted(blocks)  # one entry per block, at its start
    for key, pos in index:
        assert key in blocks[pos]


def test_the_index_points_at_the_sync_marker_before_a_record(tmp_path):
    pairs = _pairs(600)
    folder = _write(tmp_path / "m", pairs, sync_interval=1)  # a sync marker before each record
    data = (folder / "data").read_bytes()
    with MapFile(str(folder)) as m:
        synced = [e.position for e in m.index if data[e.position : e.position + 4] == b"\xff" * 4]
        assert synced == [e.position for e in m.index]  # lastSyncPos starts at 0: also the first
        assert all(m.get(k) is not None for k, _ in pairs)


def test_equal_keys_are_allowed_lower_keys_refused():
    w = MapFileWriter(io.BytesIO(), io.BytesIO(), TEXT, TEXT)
    w.append(text(b"b"), text(b"1"))
    w.append(text(b"b"), text(b"2"))
    with pytest.raises(KeyOrderError):
        w.append(text(b"a"), text(b"3"))
    assert w.records == 2


# -- lookups ---------------------------------------------------------------------------------


@pytest.mark.parametrize("records", [0, 1, 127, 128, 129, 256])
@pytest.mark.parametrize("compression", ["none", "record", "block"])
def test_get_finds_every_key_and_misses_the_others(tmp_path, records, compression):
    pairs = [(text(b"k%05d" % (2 * i + 1)), text(b"v%d" % i)) for i in range(records)]
    folder = _write(tmp_path / "m", pairs, compression=compression, block_size=500)
    with MapFile(str(folder)) as m:
        assert not m.problems
        for k, v in pairs:
            entry = m.get(k)
            assert entry is not None and (entry.key, entry.value) == (k, v)
        assert m.get(text(b"k")) is None  # before the first
        assert m.get(text(b"k99999")) is None  # after the last
        for i in range(0, records, 17):
            assert m.get(text(b"k%05d" % (2 * i))) is None  # between two keys


def test_get_on_non_ascii_keys(tmp_path):
    keys = sorted({"é".encode(), "\uffff".encode(), "😀".encode(), b"\xff", b"a", b"\xc3"})
    pairs = [(text(k), text(b"v" + k)) for k in keys]
    folder = _write(tmp_path / "m", pairs, index_interval=2)
    with MapFile(str(folder)) as m:
        for k, v in pairs:
            assert m.get(k).value == v
        assert m.get(text(b"\xc3\xa8")) is None


def test_duplicate_keys_are_found(tmp_path):
    pairs = [(text(b"a"), text(b"1"))] + [(text(b"b"), text(b"%d" % i)) for i in range(300)]
    folder = _write(tmp_path / "m", pairs)
    with MapFile(str(folder)) as m:
        assert m.get(text(b"b")).key == text(b"b")
        assert m.get(text(b"a")).value == text(b"1")


@pytest.mark.parametrize(
    ("sample", "interval"),
    [("mapfile_none", 128), ("mapfile_record_deflate_iv16", 16), ("mapfile_block_deflate", 128)],
)
def test_hadoop_mapfiles_rewritten_to_the_same_data_and_index(samples, sample, interval, tmp_path):
    src = samples / ORACLE / sample
    with MapFile(str(src)) as m:
        h = m.header
        pairs = [e for e in iter_entries(m.data, h) if isinstance(e, Entry)]
        hadoop_index = [(e.key, e.position) for e in m.index]
    codec = codec_for(h.codec) if h.codec else None
    folder = tmp_path / "m"
    folder.mkdir()
    data, index = io.BytesIO(), io.BytesIO()
    w = MapFileWriter(data, index, h.key_class, h.value_class, index_interval=interval,
                      compression=h.compression, codec=codec, sync=h.sync)  # fmt: skip
    for e in pairs:
        w.append(e.key, e.value, e.stored_value)
    w.close()
    assert data.getvalue() == (src / "data").read_bytes()
    (folder / "index").write_bytes(index.getvalue())
    assert _index(folder) == hadoop_index


def test_mapfile_dirs_of_a_job_output(samples, tmp_path):
    _write(tmp_path / "job" / "part-r-00001", _pairs(2))
    _write(tmp_path / "job" / "part-r-00000", _pairs(2))
    (tmp_path / "job" / "_SUCCESS").write_bytes(b"")
    (tmp_path / "job" / ".part-r-00000.crc").write_bytes(b"crc\0")
    (tmp_path / "job" / "other").mkdir()
    assert [p.rsplit("/", 1)[-1] for p in mapfile_dirs(str(tmp_path / "job"))] == [
        "part-r-00000",
        "part-r-00001",
    ]
    assert mapfile_dirs(str(tmp_path / "job" / "other")) == []
    got = mapfile_dirs(str(samples / "pyspark-generated" / "mapfile_text_text_block_deflate"))
    assert [p.rsplit("/", 1)[-1] for p in got] == ["part-00000"]


def test_describe(samples):
    data = samples / "apache-nutch/test-segments/20150309101656/content/part-00000/data"
    line = describe(str(data))
    assert "SEQ6" in line and "org.apache.nutch.protocol.Content" in line
    assert "RECORD-compressed (DefaultCodec)" in line and "the data of a MapFile" in line
    assert "MapFile" not in describe(str(samples / ORACLE / "text_text_NONE.seq"))
    assert describe(str(samples / ORACLE / "mapfile_none")).startswith("Hadoop MapFile")
    assert codec_named("default")  # the codec table is loaded


def test_get_reads_past_a_damaged_block(tmp_path):
    pairs = _pairs(1000)
    folder = _write(tmp_path / "m", pairs, compression="block", block_size=3000)
    with MapFile(str(folder)) as m:
        positions = [e.position for e in m.index]
    data = bytearray((folder / "data").read_bytes())
    bad = positions[3]
    data[bad + 40] ^= 0xFF  # inside the block's compressed buffers
    (folder / "data").write_bytes(bytes(data))
    with MapFile(str(folder)) as m:
        found = {k for k, _ in pairs if m.get(k) is not None}
        blocks = {}
        for e in iter_entries(bytes(data)):
            if isinstance(e, Entry):
                blocks.setdefault(e.offset, []).append(e.key)
    assert bad not in blocks
    assert found == {k for keys in blocks.values() for k in keys}
    assert len(found) < 1000 and len(found) > 800
