"""Issue 25: "an empty SequenceFile writes no output (its classes and metadata are lost)". A
SequenceFile with a header and no entries converts to a SequenceFile with that header: Hadoop's
own ``SequenceFile.Reader`` (the pyspark jars) reads the same classes, compression, codec and
metadata and no entry, and the bytes are the input's."""

from __future__ import annotations

import io
import json

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.codecs import codec_named
from crawlmill.formats.hadoop.sequencefile import SequenceFileWriter

from tests.core.conftest import hadoop_loops, spark_sc  # noqa: F401  (the session's fixtures)
from tests.plugins.test_sequencefile_hadoop import Hadoop

pytestmark = pytest.mark.oracle

H = "org.apache.hadoop.io."
META = [(b"creator", b"mahout"), ("é-key".encode(), "中".encode())]


@pytest.fixture(scope="module")
def hadoop(spark_sc, hadoop_loops):  # noqa: F811
    return Hadoop(spark_sc, hadoop_loops)


@pytest.mark.parametrize(
    ("compression", "codec", "value_class"),
    [
        ("none", None, "LongWritable"),
        ("block", "gzip", "Text"),
        ("record", "default", "BytesWritable"),
    ],
)
def test_an_empty_sequencefile_converts_to_one_with_its_header(
    tmp_path, capsys, hadoop, compression, codec, value_class
):
    buf = io.BytesIO()
    SequenceFileWriter(
        buf,
        H + "Text",
        H + value_class,
        compression=compression,
        codec=codec_named(codec) if codec else None,
        metadata=META,
        sync=bytes(range(16)),
    ).close()
    src = tmp_path / "in" / "empty.seq"
    src.parent.mkdir()
    src.write_bytes(buf.getvalue())
    expected = hadoop.read(src)
    assert expected["pairs"] == [] and expected["value_class"] == H + value_class
    out = tmp_path / "out"
    code = main(["convert", str(src), "--to", "sequencefile", "-o", str(out), "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 0, err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert (report["read"], report["written"], report["warnings"]) == (0, 0, {"no-entries": 1})
    (copy,) = [p for p in out.iterdir() if p.is_file()]
    assert hadoop.read(copy) == expected
    assert copy.read_bytes() == src.read_bytes()


def test_a_file_with_entries_filtered_away_still_writes_nothing(tmp_path, capsys):
    """Only an input with no entries at all gives a header-only file: a file whose records a
    filter drops writes nothing, as before."""
    buf = io.BytesIO()
    w = SequenceFileWriter(buf, H + "Text", H + "Text", sync=bytes(range(16)))
    w.append(b"\x13http://example.org/", b"\x02hi")
    w.close()
    src = tmp_path / "one.seq"
    src.write_bytes(buf.getvalue())
    out = tmp_path / "out"
    code = main(["convert", str(src), "--to", "sequencefile", "-o", str(out), "--workers", "1",
                 "--filter", "kind", "keep=warcinfo"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert [p for p in out.iterdir() if p.is_file()] == []
