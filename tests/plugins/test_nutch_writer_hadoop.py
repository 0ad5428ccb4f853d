"""The independent oracle for the Nutch writers: Hadoop's own ``SequenceFile.Reader`` reads
every part of a segment crawlmill writes (raw keys and values: the JVM has no Nutch classes,
their names stand for ``BytesWritable`` and are never deserialized)
with the same count, key order and key and value bytes as crawlmill's reader, and
``MapFile.Reader.seek`` finds every key of every MapFile part. Needs pyspark and Java."""

from __future__ import annotations

import pytest
from crawlmill.formats.hadoop.nutch import NUTCH_CLASSES
from crawlmill.formats.hadoop.sequencefile import iter_entries, read_header

from tests.core.conftest import spark_sc  # noqa: F401  (the session's SparkContext fixture)
from tests.plugins.test_nutch_writer import SEG, WARCS, to_segment

pytestmark = pytest.mark.oracle


class RawHadoop:
    """Hadoop's SequenceFile and MapFile readers over py4j, reading raw bytes."""

    def __init__(self, sc) -> None:
        self.jvm = sc._jvm
        self.gateway = sc._gateway
        self.conf = self.jvm.org.apache.hadoop.conf.Configuration()
        self.fs = self.jvm.org.apache.hadoop.fs.FileSystem.getLocal(self.conf)
        # the JVM has no Nutch classes: their names are aliased to BytesWritable so the
        # readers open (WritableName.addName); values are only ever read raw, never decoded
        stand_in = self.jvm.org.apache.hadoop.io.BytesWritable().getClass()
        for name in NUTCH_CLASSES:
            self.jvm.org.apache.hadoop.io.WritableName.addName(stand_in, name)

    def entries(self, path) -> tuple[str, str, list[tuple[bytes, bytes]]]:
        """Key and value class names and every (raw key, uncompressed raw value)."""
        jvm = self.jvm
        reader = jvm.org.apache.hadoop.io.SequenceFile.Reader(
            self.fs, jvm.org.apache.hadoop.fs.Path(str(path)), self.conf
        )
        try:
            key = jvm.org.apache.hadoop.io.DataOutputBuffer()
            value = jvm.org.apache.hadoop.io.DataOutputBuffer()
            raw = reader.createValueBytes()
            out = []
            while reader.nextRaw(key, raw) != -1:
                value.reset()
                raw.writeUncompressedBytes(value)
                k = bytes(key.getData())[: key.getLength()]
                out.append((k, bytes(value.getData())[: value.getLength()]))
                key.reset()
            return reader.getKeyClassName(), reader.getValueClassName(), out
        finally:
            reader.close()

    def seek_all(self, folder, keys: list[bytes]) -> list[bool]:
        """``MapFile.Reader.seek`` of each serialized Text key."""
        jvm = self.jvm
        no_options = self.gateway.new_array(jvm.org.apache.hadoop.io.SequenceFile.Reader.Option, 0)
        reader = jvm.org.apache.hadoop.io.MapFile.Reader(
            jvm.org.apache.hadoop.fs.Path(str(folder)), self.conf, no_options
        )
        try:
            found = []
            for k in keys:
                text = jvm.org.apache.hadoop.io.Text()
                inp = jvm.org.apache.hadoop.io.DataInputBuffer()
                inp.reset(bytearray(k), len(k))
                text.readFields(inp)
                found.append(bool(reader.seek(text)))
            return found
        finally:
            reader.close()


@pytest.fixture(scope="module")
def hadoop(spark_sc):  # noqa: F811
    return RawHadoop(spark_sc)


@pytest.mark.parametrize("compression", ["none", "block"])
def test_hadoop_reads_every_part_of_a_segment_we_write(hadoop, samples, tmp_path, compression):
    src = samples / WARCS[3]
    assert to_segment(src, tmp_path / "seg", 3, "--filter", "kind", "keep=response",
                      "--filter", "url-dedup", "rule=first",  # one fetch per URL
                      "--option", f"compression={compression}") == 0  # fmt: skip
    seg = tmp_path / "seg" / SEG
    checked = 0
    for sub in ("content", "crawl_fetch", "crawl_generate", "crawl_parse", "parse_data"):
        for part in sorted((seg / sub).glob("part-r-*")):
            data = part / "data" if part.is_dir() else part
            blob = data.read_bytes()
            h = read_header(blob)
            ours = [(e.key, e.value) for e in iter_entries(blob, h)]
            key_class, value_class, theirs = hadoop.entries(data)
            assert (key_class, value_class) == (h.key_class, h.value_class)
            assert theirs == ours, (sub, part.name)
            checked += len(ours)
            if part.is_dir():
                assert hadoop.seek_all(part, [k for k, _ in ours]) == [True] * len(ours)
                assert hadoop.seek_all(part, [b"\x0ehttp://absent/"]) == [False]
    assert checked > 60


@pytest.mark.parametrize("kind", ["crawldb", "linkdb"])
def test_hadoop_reads_every_part_of_a_database_we_write(hadoop, samples, tmp_path, kind):
    from tests.plugins.test_nutch_writer_db import SEGMENT, to_db

    assert to_db(kind, samples / SEGMENT, tmp_path / "db", 3) == 0
    checked = 0
    for part in sorted((tmp_path / "db" / "current").glob("part-r-*")):
        blob = (part / "data").read_bytes()
        h = read_header(blob)
        ours = [(e.key, e.value) for e in iter_entries(blob, h)]
        _, value_class, theirs = hadoop.entries(part / "data")
        assert value_class == h.value_class and theirs == ours
        assert hadoop.seek_all(part, [k for k, _ in ours]) == [True] * len(ours)
        checked += len(ours)
    assert checked > 1000
