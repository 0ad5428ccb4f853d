"""The independent oracle for MapFiles: Hadoop's own ``MapFile.Reader.get`` (the jars of the
pyspark wheel in the session SparkContext's JVM; the loop over the keys in the harness of
tests/hadoop_oracle.py, one py4j call for all of them) finds every key of the MapFiles
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

from tests.core.conftest import hadoop_loops, spark_sc  # noqa: F401  (the session's fixtures)
from tests.formats.hadoop.seqdata import text

pytestmark = pytest.mark.oracle

TEXT = "org.apache.hadoop.io.Text"


@pytest.fixture(scope="module")
def hadoop(hadoop_loops):  # noqa: F811
    """Hadoop's MapFile classes, many keys per py4j call (tests/hadoop_oracle.py)."""
    return hadoop_loops


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
    got = hadoop.get(folder, [text(k) for k, _ in pairs])
    assert got == [text(v) for _, v in pairs]
    missing = [b"", b"key-000001", b"key-%06d" % (3 * records), b"zzz"]  # before, between, after
    assert hadoop.get(folder, [text(k) for k in missing]) == [None] * len(missing)


def test_hadoop_text_hashcode_is_ours(hadoop):
    rnd = random.Random(7)
    raws = [bytes(rnd.randrange(256) for _ in range(rnd.randrange(40))) for _ in range(200)]
    assert hadoop.text_hash_codes(raws) == [hash_code(TEXT, text(raw)) for raw in raws]


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
    got = hadoop.entries(out, [text(k) for k in keys])
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
    # Hadoop's writer refuses keys out of its comparator's order
    hadoop.write(folder, [(text(k), text(v)) for k, v in pairs], TEXT, TEXT, compression)
    assert main(["get", str(folder), "--json", *(k.decode() for k in ordered)]) == 0
    got = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [base64.b64decode(g["value_base64"]) for g in got] == [text(v) for _, v in pairs]
    assert main(["get", str(folder), "a" * 50]) == 1


def test_hadoop_gets_every_key_of_each_rolled_mapfile_the_cli_writes(hadoop, samples, tmp_path, capsys):  # fmt: skip
    from crawlmill.formats.hadoop.mapfile import mapfile_dirs
    from crawlmill.formats.hadoop.sequencefile import Entry, iter_entries, read_header

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
        assert hadoop.get(folder, [e.key for e in entries]) == [e.value for e in entries]
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
    # each key as Hadoop's UTF8 (the MapFile's key class) reads its serialized bytes
    got = hadoop.get(folder, [e.key for e in entries])
    assert got == [e.value for e in entries] and len(entries) == 299
