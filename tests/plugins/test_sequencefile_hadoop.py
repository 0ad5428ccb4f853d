"""The independent oracle: Hadoop's own Java classes (the jars of the pyspark wheel, through
py4j on the test session's SparkContext) read the SequenceFiles crawlmill writes, for every
codec Hadoop runs without native libraries (Default, Deflate, Gzip, BZip2, Snappy, LZ4; not
ZStandard, which needs libhadoop) and every compression mode: the same classes, metadata,
keys, values and order. Needs pyspark and Java: skipped without them, a failure in CI
(``CRAWLMILL_REQUIRE_ORACLES=1``)."""

from __future__ import annotations

import hashlib
import io
import struct

import pytest
from crawlmill.core import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.codecs import codec_named
from crawlmill.formats.hadoop.sequencefile import SequenceFileWriter
from crawlmill.formats.hadoop.writables import MapValue, builtin, decode

from tests.core.conftest import hadoop_loops, spark_sc  # noqa: F401  (the session's fixtures)
from tests.formats.hadoop.seqdata import oracle_key, oracle_value, text

pytestmark = pytest.mark.oracle

H = "org.apache.hadoop.io."
HC = "org.apache.hadoop.io.compress."
CODECS = {"default": "DefaultCodec", "deflate": "DeflateCodec", "gzip": "GzipCodec",
          "bzip2": "BZip2Codec", "snappy": "SnappyCodec", "lz4": "Lz4Codec"}  # fmt: skip
METADATA = [(b"creator", b"crawlmill"), ("é-key".encode(), "中😀".encode())]


class Hadoop:
    """Hadoop's SequenceFile.Reader over py4j: the header through its getters, the pairs
    through the harness (tests/hadoop_oracle.py: one call for every pair)."""

    def __init__(self, sc, loops) -> None:
        self.jvm = sc._jvm
        self.loops = loops
        self.conf = self.jvm.org.apache.hadoop.conf.Configuration()
        self.fs = self.jvm.org.apache.hadoop.fs.FileSystem.getLocal(self.conf)

    def read(self, path) -> dict:
        jvm = self.jvm
        reader = jvm.org.apache.hadoop.io.SequenceFile.Reader(
            self.fs, jvm.org.apache.hadoop.fs.Path(str(path)), self.conf
        )
        try:
            codec = reader.getCompressionCodec()
            meta = reader.getMetadata().getMetadata()
            out = {
                "version": reader.getVersion() if hasattr(reader, "getVersion") else None,
                "key_class": reader.getKeyClassName(),
                "value_class": reader.getValueClassName(),
                "compressed": reader.isCompressed(),
                "block": reader.isBlockCompressed(),
                "codec": codec.getClass().getName() if codec is not None else None,
                "metadata": [
                    (e.getKey().copyBytes(), e.getValue().copyBytes()) for e in meta.entrySet()
                ],
            }
        finally:
            reader.close()
        # each key and value Hadoop's reader reads, written again by Hadoop: its bytes
        out["pairs"] = self.loops.pairs(path)
        return out


@pytest.fixture(scope="module")
def hadoop(spark_sc, hadoop_loops):  # noqa: F811
    return Hadoop(spark_sc, hadoop_loops)


def _write(path, pairs, key_class=H + "Text", value_class=H + "Text", **kw):
    buf = io.BytesIO()
    w = SequenceFileWriter(buf, key_class, value_class, **kw)
    for k, v in pairs:
        w.append(k, v)
    w.close()
    path.write_bytes(buf.getvalue())


TEXT_PAIRS = [(text(oracle_key(n)), text(oracle_value(n))) for n in range(700)] + [
    (text(b""), text(b""))
]
CASES = [("none", None)] + [(m, c) for m in ("record", "block") for c in CODECS]


@pytest.mark.parametrize(("compression", "codec"), CASES)
def test_hadoop_reads_what_we_write(hadoop, tmp_path, compression, codec):
    path = tmp_path / "ours.seq"
    _write(path, TEXT_PAIRS, compression=compression, codec=codec and codec_named(codec),
           metadata=METADATA, sync_interval=2000, block_size=20_000)  # fmt: skip
    got = hadoop.read(path)
    assert (got["key_class"], got["value_class"]) == (H + "Text", H + "Text")
    assert (got["compressed"], got["block"]) == (compression != "none", compression == "block")
    assert got["codec"] == (HC + CODECS[codec] if codec else None)
    assert got["metadata"] == sorted(METADATA)
    assert got["pairs"] == TEXT_PAIRS


@pytest.mark.parametrize("codec", ["snappy", "lz4", "gzip"])
def test_hadoop_reads_values_larger_than_a_framing_chunk(hadoop, tmp_path, codec):
    big = bytes(range(256)) * 2000 + hashlib.sha256(b"x").digest() * 5000  # 672 000 bytes
    pairs = [
        (text(b"big"), struct.pack(">i", len(big)) + big),
        (text(b"small"), b"\x00\x00\x00\x01\x01"),
    ]
    for compression in ("record", "block"):
        path = tmp_path / f"{compression}.seq"
        _write(
            path,
            pairs,
            value_class=H + "BytesWritable",
            compression=compression,
            codec=codec_named(codec),
        )
        assert hadoop.read(path)["pairs"] == pairs


def test_hadoop_reads_every_basic_writable(hadoop, tmp_path):
    cases = {
        "IntWritable": [0, -1, 2**31 - 1, -(2**31)],
        "LongWritable": [2**63 - 1, -(2**63), 5],
        "VIntWritable": [0, 127, 128, -112, -113, -129, 2**31 - 1, -(2**31)],
        "VLongWritable": [2**63 - 1, -(2**63), 2**40],
        "BytesWritable": [b"", b"\x00\xff", bytes(300)],
        "NullWritable": [None, None],
        "MD5Hash": [hashlib.md5(b"hello").digest()],
        "BooleanWritable": [True, False],
        "FloatWritable": [1.5, -0.0],
        "DoubleWritable": [3.141592653589793],
        "UTF8": ["a\x00b é中😀"],
        "MapWritable": [MapValue([(H + "Text", b"k", H + "IntWritable", 42), (H + "Text", b"u", H + "UTF8", "old")])],
    }  # fmt: skip
    for cls, values in cases.items():
        codec = builtin(H + cls)
        pairs = [(struct.pack(">i", i), codec.write(v)) for i, v in enumerate(values)]
        path = tmp_path / f"{cls}.seq"
        _write(path, pairs, key_class=H + "IntWritable", value_class=H + cls, compression="block")
        got = hadoop.read(path)
        assert got["value_class"] == H + cls
        if cls == "MapWritable":  # Hadoop writes its HashMap's order: compare as sets
            again = [(k, decode(codec, v)) for k, v in got["pairs"]]
            ours = [(k, decode(codec, v)) for k, v in pairs]
            assert [(k, m.classes, sorted(m.entries)) for k, m in again] == [
                (k, m.classes, sorted(m.entries)) for k, m in ours
            ]
            assert again[0][1].classes == [(1, H + "UTF8")]
        else:
            assert got["pairs"] == pairs, cls


@pytest.mark.parametrize(
    ("version", "compression"),
    [(3, "record"), (3, "none"), (4, "block"), (5, "record"), (6, "none")],
)
def test_hadoop_reads_the_older_shapes(hadoop, tmp_path, version, compression):
    path = tmp_path / "old.seq"
    key_class = "UTF8" if version == 3 else H + "Text"  # SEQ3-era headers used the alias
    pairs = (
        [((len(k) - 1).to_bytes(2, "big") + k[1:], v) for k, v in TEXT_PAIRS[:50]]
        if version == 3
        else TEXT_PAIRS[:50]
    )
    _write(
        path,
        pairs,
        key_class=key_class,
        compression=compression,
        version=version,
        sync_interval=500,
    )
    got = hadoop.read(path)
    assert got["key_class"] == key_class  # as written; Hadoop resolves the alias itself
    assert got["pairs"] == pairs


def test_a_warc_converted_by_the_cli_is_read_by_hadoop(hadoop, samples, tmp_path, capsys):
    src = samples / "webrecorder-warcio" / "test" / "data" / "example.warc.gz"
    out = tmp_path / "out"
    args = [
        "--option",
        "compression=block",
        "--option",
        "codec=snappy",
        "--filter",
        "kind",
        "keep=response",
    ]
    assert (
        main(["convert", str(src), "--to", "sequencefile", "-o", str(out), "--workers", "1", *args])
        == 0
    )
    with open_reader(src) as records:
        want = [
            (r.url, (r.http_head or b"") + r.payload) for r in records if r.kind.value == "response"
        ]
    got = hadoop.read(next(out.glob("*.seq")))
    assert (got["key_class"], got["value_class"], got["codec"]) == (
        H + "Text",
        H + "BytesWritable",
        HC + "SnappyCodec",
    )
    assert [(text(u.encode()), struct.pack(">i", len(b)) + b) for u, b in want] == got["pairs"]
