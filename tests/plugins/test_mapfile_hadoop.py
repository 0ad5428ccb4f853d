"""The independent oracle for MapFiles: Hadoop's own ``MapFile.Reader.get`` (the jars of the
pyspark wheel through py4j, the session's SparkContext) finds every key of the MapFiles
crawlmill writes (sizes around the 128-record index interval, NONE, RECORD and BLOCK), and
``MapFileOutputFormat.getEntry`` with Hadoop's ``HashPartitioner`` finds every key of the
part folders the ``mapfile`` writer makes; a MapFile Hadoop's ``MapFile.Writer`` writes with
many non-ASCII keys (appended in the order crawlmill sorts them, which Hadoop's writer
refuses if it disagrees with its comparator) answers ``crawlmill get`` for every key; and
``hashCode`` of Hadoop's ``Text`` is crawlmill's. Needs pyspark and Java: skipped without
them, a failure in CI (``CRAWLMILL_REQUIRE_ORACLES=1``)."""

from __future__ import annotations

import base64
import io
import json
import random

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.codecs import codec_named
from crawlmill.formats.hadoop.mapfile import MapFileWriter, hash_code, sort_key

from tests.core.conftest import spark_sc  # noqa: F401  (the session's SparkContext fixture)
from tests.formats.hadoop.seqdata import text

pytestmark = pytest.mark.oracle

H = "org.apache.hadoop.io."
TEXT = H + "Text"


class HadoopMapFiles:
    """Hadoop's MapFile classes over py4j."""

    def __init__(self, sc) -> None:
        self.jvm = sc._jvm
        self.gateway = sc._gateway
        self.conf = self.jvm.org.apache.hadoop.conf.Configuration()
        self.fs = self.jvm.org.apache.hadoop.fs.FileSystem.getLocal(self.conf)

    def text(self, raw: bytes):
        t = self.jvm.org.apache.hadoop.io.Text()
        t.set(bytearray(raw))
        return t

    def _bytes(self, writable) -> bytes:
        buf = self.jvm.org.apache.hadoop.io.DataOutputBuffer()
        writable.write(buf)
        return bytes(buf.getData())[: buf.getLength()]

    def get_all(self, folder, keys: list[bytes]) -> list[bytes | None]:
        """``MapFile.Reader.get`` of each Text key content: the serialized value or None."""
        jvm = self.jvm
        no_options = self.gateway.new_array(jvm.org.apache.hadoop.io.SequenceFile.Reader.Option, 0)
        reader = jvm.org.apache.hadoop.io.MapFile.Reader(
            jvm.org.apache.hadoop.fs.Path(str(folder)), self.conf, no_options
        )
        try:
            value = jvm.org.apache.hadoop.util.ReflectionUtils.newInstance(
                reader.getValueClass(), self.conf
            )
            out = []
            for k in keys:
                got = reader.get(self.text(k), value)
                out.append(None if got is None else self._bytes(got))
            return out
        finally:
            reader.close()

    def get_entries(self, folder, keys: list[bytes]) -> list[bytes | None]:
        """``MapFileOutputFormat.getEntry`` with ``HashPartitioner`` over the part folders."""
        jvm = self.jvm
        fmt = jvm.org.apache.hadoop.mapreduce.lib.output.MapFileOutputFormat
        readers = fmt.getReaders(jvm.org.apache.hadoop.fs.Path(str(folder)), self.conf)
        try:
            partitioner = jvm.org.apache.hadoop.mapreduce.lib.partition.HashPartitioner()
            value = jvm.org.apache.hadoop.util.ReflectionUtils.newInstance(
                readers[0].getValueClass(), self.conf
            )
            out = []
            for k in keys:
                got = fmt.getEntry(readers, partitioner, self.text(k), value)
                out.append(None if got is None else self._bytes(got))
            return out
        finally:
            for r in readers:
                r.close()

    def write(self, folder, pairs: list[tuple[bytes, bytes]], compression: str) -> None:
        """A MapFile<Text, Text> written by Hadoop's ``MapFile.Writer``."""
        jvm = self.jvm
        kinds = jvm.org.apache.hadoop.io.SequenceFile.CompressionType
        writer = jvm.org.apache.hadoop.io.MapFile.Writer(
            self.conf, self.fs, str(folder), self.text(b"").getClass(),
            self.text(b"").getClass(), getattr(kinds, compression),
        )  # fmt: skip
        try:
            for k, v in pairs:
                writer.append(self.text(k), self.text(v))
        finally:
            writer.close()


@pytest.fixture(scope="module")
def hadoop(spark_sc):  # noqa: F811
    return HadoopMapFiles(spark_sc)


def _write(folder, pairs, **kw):
    folder.mkdir(parents=True)
    data, index = io.BytesIO(), io.BytesIO()
    w = MapFileWriter(data, index, TEXT, TEXT, **kw)
    for k, v in pairs:
        w.append(text(k), text(v))
    w.close()
    (folder / "data").write_bytes(data.getvalue())
    (folder / "index").write_bytes(index.getvalue())


@pytest.mark.parametrize("records", [0, 1, 127, 128, 129, 256, 1000])
@pytest.mark.parametrize(
    ("compression", "codec"),
    [("none", None), ("record", "default"), ("block", "default"), ("block", "snappy")],
)
def test_hadoop_gets_every_key_of_a_mapfile_we_write(hadoop, tmp_path, records, compression, codec):
    pairs = [(b"key-%06d" % (3 * i), b"value %d" % i) for i in range(records)]
    folder = tmp_path / "m"
    _write(folder, pairs, compression=compression, codec=codec and codec_named(codec),
           sync_interval=2000, block_size=4000)  # fmt: skip
    got = hadoop.get_all(folder, [k for k, _ in pairs])
    assert got == [text(v) for _, v in pairs]
    missing = [b"", b"key-000001", b"key-%06d" % (3 * records), b"zzz"]  # before, between, after
    assert hadoop.get_all(folder, missing) == [None] * len(missing)


def test_hadoop_text_hashcode_is_ours(hadoop):
    rnd = random.Random(7)
    for _ in range(200):
        raw = bytes(rnd.randrange(256) for _ in range(rnd.randrange(40)))
        assert hadoop.text(raw).hashCode() == hash_code(TEXT, text(raw))


def test_hadoop_finds_every_key_of_the_partitioned_mapfiles_the_cli_writes(hadoop, samples, tmp_path, capsys):  # fmt: skip
    src = samples / "kris-sigur-jwat/jwat-warc/src/test/resources/IAH-20080430204825-00000-blackbook.warc.gz"  # fmt: skip
    out = tmp_path / "out"
    args = ["convert", str(src), "--to", "mapfile", "-o", str(out), "--workers", "1",
            "--option", "partitions=3", "--option", "value_class=org.apache.hadoop.io.Text",
            "--filter", "kind", "keep=response"]  # fmt: skip
    assert main(args) == 0
    from crawlmill.core import open_reader

    with open_reader(src) as records:
        want = {
            r.url.encode("utf-8", "surrogateescape"): (r.http_head or b"") + r.payload
            for r in records
            if r.kind.value == "response"
        }
    keys = list(want)
    got = hadoop.get_entries(out, keys)
    assert got == [text(want[k]) for k in keys]


@pytest.mark.parametrize("compression", ["NONE", "RECORD", "BLOCK"])
def test_a_hadoop_written_mapfile_of_many_keys_answers_crawlmill_get(hadoop, tmp_path, compression, capsys):  # fmt: skip
    rnd = random.Random(compression)
    alphabet = ["a", "z", "é", "中", "😀", "\uffff", "\u0100", "/", "%"]
    keys = {"".join(rnd.choice(alphabet) for _ in range(rnd.randrange(1, 12))).encode() for _ in range(3000)}  # fmt: skip
    keys |= {b"k" * 200, b"k" * 199 + b"l"}  # 2-byte VInt lengths
    ordered = sorted(keys, key=lambda k: sort_key(TEXT, text(k)))
    pairs = [(k, b"v:" + k) for k in ordered]
    folder = tmp_path / "hadoop-map"
    hadoop.write(folder, pairs, compression)  # Hadoop refuses keys out of its order
    assert main(["get", str(folder), "--json", *(k.decode() for k in ordered)]) == 0
    got = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [base64.b64decode(g["value_base64"]) for g in got] == [text(v) for _, v in pairs]
    assert main(["get", str(folder), "a" * 50]) == 1


def test_hadoop_gets_every_key_of_each_rolled_mapfile_the_cli_writes(hadoop, samples, tmp_path, capsys):  # fmt: skip
    from crawlmill.formats.hadoop.mapfile import mapfile_dirs
    from crawlmill.formats.hadoop.sequencefile import Entry, iter_entries, read_header
    from crawlmill.formats.hadoop.writables import content_of

    src = samples / "kris-sigur-jwat/jwat-warc/src/test/resources/IAH-20080430204825-00000-blackbook.warc.gz"  # fmt: skip
    out = tmp_path / "out"
    args = ["convert", str(src), "--to", "mapfile", "-o", str(out), "--workers", "1",
            "--option", "partitions=2", "--option", "max_records=50",
            "--option", "value_class=org.apache.hadoop.io.Text",
            "--filter", "kind", "keep=response"]  # fmt: skip
    assert main(args) == 0
    folders = mapfile_dirs(str(out))
    assert len(folders) >= 6
    total = 0
    for folder in folders:
        with open(f"{folder}/data", "rb") as fh:
            data = fh.read()
        entries = [e for e in iter_entries(data, read_header(data)) if isinstance(e, Entry)]
        keys = [content_of(TEXT, e.key) for e in entries]
        assert hadoop.get_all(folder, keys) == [e.value for e in entries]
        total += len(entries)
    assert total == 299


def test_hadoop_gets_every_key_of_a_seq3_mapfile_with_its_seq3_index(hadoop, samples, tmp_path):
    from crawlmill.formats.hadoop.sequencefile import Entry, iter_entries, read_header

    src = samples / "kris-sigur-jwat/jwat-warc/src/test/resources/IAH-20080430204825-00000-blackbook.warc.gz"  # fmt: skip
    out = tmp_path / "out"
    args = ["convert", str(src), "--to", "mapfile", "-o", str(out), "--workers", "1",
            "--option", "version=3", "--option", "compression=none", "--option", "key_class=UTF8",
            "--filter", "kind", "keep=response"]  # fmt: skip
    assert main(args) == 0
    folder = out / "part-r-00000"
    index = read_header((folder / "index").read_bytes())
    assert (index.version, index.key_class, index.value_class, index.compression) == (3, "UTF8", "long", "none")  # fmt: skip
    data = (folder / "data").read_bytes()
    entries = [e for e in iter_entries(data, read_header(data)) if isinstance(e, Entry)]
    jvm = hadoop.jvm
    no_options = hadoop.gateway.new_array(jvm.org.apache.hadoop.io.SequenceFile.Reader.Option, 0)
    reader = jvm.org.apache.hadoop.io.MapFile.Reader(
        jvm.org.apache.hadoop.fs.Path(str(folder)), hadoop.conf, no_options
    )
    try:
        value = jvm.org.apache.hadoop.util.ReflectionUtils.newInstance(reader.getValueClass(), hadoop.conf)  # fmt: skip
        got = []
        for e in entries:
            key = jvm.org.apache.hadoop.io.UTF8(e.key[2:].decode("utf-8"))
            found = reader.get(key, value)
            got.append(None if found is None else hadoop._bytes(found))
        assert got == [e.value for e in entries] and len(entries) == 299
    finally:
        reader.close()
