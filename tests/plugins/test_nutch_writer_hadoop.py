"""The independent oracle for the Nutch writers: Hadoop's own ``SequenceFile.Reader`` reads
every part of a segment crawlmill writes (raw keys and values: the JVM has no Nutch classes,
their names stand for ``BytesWritable`` and are never deserialized)
with the same count, key order and key and value bytes as crawlmill's reader, and
``MapFile.Reader.seek`` finds every key of every MapFile part. Needs pyspark and Java."""

from __future__ import annotations

import pytest
from crawlmill.formats.hadoop.nutch import NUTCH_CLASSES
from crawlmill.formats.hadoop.sequencefile import iter_entries, read_header

from tests.core.conftest import hadoop_loops, spark_sc  # noqa: F401  (the session's fixtures)
from tests.plugins.test_nutch_writer import SEG, WARCS, to_segment

pytestmark = pytest.mark.oracle


class RawHadoop:
    """Hadoop's SequenceFile and MapFile readers, reading raw bytes, many entries or keys per
    py4j call (the harness of tests/hadoop_oracle.py)."""

    def __init__(self, sc, loops) -> None:
        self.jvm = sc._jvm
        self.loops = loops
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
            names = reader.getKeyClassName(), reader.getValueClassName()
        finally:
            reader.close()
        return (*names, self.loops.raw_pairs(path))

    def seek_all(self, folder, keys: list[bytes]) -> list[bool]:
        """``MapFile.Reader.seek`` of each serialized Text key."""
        return self.loops.seek(folder, keys)


@pytest.fixture(scope="module")
def hadoop(spark_sc, hadoop_loops):  # noqa: F811
    return RawHadoop(spark_sc, hadoop_loops)


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
