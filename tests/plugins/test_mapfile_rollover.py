"""The ``mapfile`` writer's folder names and rollover (``name_pattern``, ``max_records``,
``max_bytes``, as every file writer has them; a rolled MapFile is a MapFile of its own, never
split between equal keys) through the CLI, and the ``index`` of data of an older SequenceFile
version shaped as the ``MapFile.Writer`` of its time wrote it (SEQ3 data: an uncompressed SEQ3
index, as the 2006 Nutch sample has)."""

from __future__ import annotations

import io
import json
import struct

import pytest
from crawlmill.core import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.mapfile import (
    MapFile,
    MapFileWriter,
    hash_partition,
    index_shape,
    mapfile_dirs,
    sort_key,
)
from crawlmill.formats.hadoop.sequencefile import Entry, iter_entries, read_header

from tests.conftest import FIXTURES
from tests.formats.hadoop.seqdata import text
from tests.helpers import convert

H = "org.apache.hadoop.io."
TEXT = H + "Text"
LONG = H + "LongWritable"
BLACKBOOK = "kris-sigur-jwat/jwat-warc/src/test/resources/IAH-20080430204825-00000-blackbook.warc.gz"  # fmt: skip
IANA = "webrecorder-pywb/sample_archive/warcs/iana.warc.gz"
CRAWLDB_2006 = "apache-nutch/testcrawl/crawldb/current/part-00000"


def _convert(src, out, *options, filters=("--filter", "kind", "keep=response")):
    return convert(
        src, "mapfile", out, *filters, option=options, workers=1, progress=None
    ).exit_code


def _keys(folder):
    with MapFile(str(folder)) as m:
        assert not m.problems
        return [e.key for e in iter_entries(m.data, m.header) if isinstance(e, Entry)]


def _responses(src):
    with open_reader(src) as records:
        return {
            text(r.url.encode("utf-8", "surrogateescape")): (r.http_head or b"") + r.payload
            for r in records
            if r.kind.value == "response"
        }


@pytest.mark.parametrize("form", ["flat", "layout"])
def test_max_records_rolls_each_partition_into_mapfiles_of_their_own(samples, tmp_path, capsysbinary, form):
    src = samples / BLACKBOOK
    out = tmp_path / "out"
    roll = ["max_records=40"] if form == "flat" else ['layout={"name": "plain", "max_records": 40}']
    assert _convert(src, out, "partitions=2", *roll) == 0, capsysbinary.readouterr().err
    want = _responses(src)
    folders = mapfile_dirs(str(out))
    names = [f.rsplit("/", 1)[-1] for f in folders]
    per_part = {p: sorted(n for n in names if n.startswith(p + "-")) for p in ("part-r-00000", "part-r-00001")}  # fmt: skip
    assert sorted(names) == sorted(per_part["part-r-00000"] + per_part["part-r-00001"])
    for part, rolled in per_part.items():
        assert rolled == [f"{part}-{i:05d}" for i in range(len(rolled))]
    seen = []
    for partition, part in enumerate(per_part.values()):
        last = None
        for name in part:
            keys = _keys(out / name)
            assert 0 < len(keys) <= 40
            assert keys == sorted(keys, key=lambda k: sort_key(TEXT, k))
            assert {hash_partition(TEXT, k, 2) for k in keys} == {partition}
            if last is not None:  # the partition's order runs on across its MapFiles
                assert sort_key(TEXT, last) < sort_key(TEXT, keys[0])
            last = keys[-1]
            seen += keys
    assert sorted(seen) == sorted(want) and len(seen) == 299
    assert len(names) >= 299 // 40
    # every key answers get over the output root, and the reader checks every index
    assert main(["get", str(out), "--key-hex", "--raw", *(k.hex() for k in want)]) == 0
    back = tmp_path / "back"
    assert main(["convert", str(out), "--to", "warc", "-o", str(back), "--workers", "1"]) == 0
    report = json.loads((back / ".crawlmill" / "report.json").read_text())
    assert report["read"] == 299 and report["checks_passed"] == len(names) and report["checks_failed"] == []  # fmt: skip


def test_name_pattern_and_max_bytes(samples, tmp_path, capsys):
    src = samples / BLACKBOOK
    out = tmp_path / "out"
    assert _convert(src, out, "name_pattern=maps/p{index}-{seq:03d}", "max_bytes=200000",
                    "compression=none") == 0, capsys.readouterr().err  # fmt: skip
    folders = sorted(p.name for p in (out / "maps").iterdir())
    assert folders == [f"p0-{i:03d}" for i in range(len(folders))] and len(folders) > 2
    total = 0
    for name in folders:
        data = (out / "maps" / name / "data").read_bytes()
        keys = _keys(out / "maps" / name)
        total += len(keys)
        # rolled once data reached max_bytes: only the last record may pass it
        with MapFile(str(out / "maps" / name)) as m:
            last_start = max(e.offset for e in iter_entries(m.data, m.header) if isinstance(e, Entry))
        assert last_start < 200000 or len(keys) == 1
        assert len(data) > 0
    assert total == 299
    # a folder of another name is read when named
    assert main(["get", str(out / "maps" / folders[0]), "--key-hex", _keys(out / "maps" / folders[0])[0].hex()]) == 0  # fmt: skip


def test_the_pattern_is_checked_before_anything_is_written(samples, tmp_path, capsys):
    src = samples / BLACKBOOK
    assert _convert(src, tmp_path / "a", "max_records=5", "name_pattern=m-{index}") == 2
    assert "{seq}" in capsys.readouterr().err
    assert _convert(src, tmp_path / "b", "partitions=2", "name_pattern=m-{seq}") == 2
    assert "{stem} or {index}" in capsys.readouterr().err
    assert _convert(src, tmp_path / "c", "name_pattern=m-{nope}") == 2
    assert not (tmp_path / "a").exists() or not any((tmp_path / "a").glob("m-*"))


def test_equal_keys_stay_in_one_mapfile(samples, tmp_path):
    out = tmp_path / "out"
    assert _convert(samples / IANA, out, "max_records=1", filters=()) == 0
    folders = mapfile_dirs(str(out))
    per_folder = [_keys(f) for f in folders]
    keys = [k for ks in per_folder for k in ks]
    assert len(set(keys)) < len(keys)  # the sample repeats URLs
    for ks in per_folder:
        assert len(set(ks)) == 1  # rolled after every key, never inside one
    assert len(folders) == len(set(keys))


def test_a_mapfile_copied_from_seq3_data_gets_the_seq3_index_hadoop_0x_wrote(samples, tmp_path):
    src = samples / CRAWLDB_2006
    out = tmp_path / "out"
    assert main(["convert", str(src), "--to", "mapfile", "-o", str(out), "--workers", "1"]) == 0
    assert (out / "part-r-00000" / "data").read_bytes() == (src / "data").read_bytes()
    a = read_header((src / "index").read_bytes())
    b = read_header((out / "part-r-00000" / "index").read_bytes())
    assert (b.version, b.key_class, b.value_class, b.compression) == (3, "UTF8", "long", "none")
    assert (a.version, a.key_class, a.value_class, a.compression) == (b.version, b.key_class, b.value_class, b.compression)  # fmt: skip
    with MapFile(str(src)) as x, MapFile(str(out / "part-r-00000")) as y:
        assert [(e.key, e.position) for e in x.index] == [(e.key, e.position) for e in y.index]
        assert len(y.index) == 472 // 128 + 1


def test_a_nutch_07_arrayfile_copied_keeps_its_seq2_index(tmp_path):
    src = FIXTURES / "nutch-legacy" / "20050301120000" / "fetcher"
    out = tmp_path / "out"
    assert main(["convert", str(src), "--to", "mapfile", "-o", str(out), "--workers", "1"]) == 0
    assert (out / "part-r-00000" / "data").read_bytes() == (src / "data").read_bytes()
    a = read_header((src / "index").read_bytes())
    b = read_header((out / "part-r-00000" / "index").read_bytes())
    assert (b.version, b.key_class, b.value_class, b.compression) == (2, "long", "long", "none")
    assert (a.version, a.key_class, a.value_class) == (b.version, b.key_class, b.value_class)
    with MapFile(str(src)) as x, MapFile(str(out / "part-r-00000")) as y:
        assert [(e.key, e.position) for e in x.index] == [(e.key, e.position) for e in y.index]


@pytest.mark.parametrize(
    ("version", "key_class", "shape"),
    [(6, TEXT, (6, "block", LONG, True)), (5, TEXT, (5, "block", LONG, False)),
     (4, "UTF8", (4, "block", "long", False)), (3, TEXT, (3, "none", "long", False)),
     (2, "long", (2, "none", "long", False)), (1, "long", (1, "none", "long", False))],
)  # fmt: skip
def test_index_shape_per_version(version, key_class, shape):
    s = index_shape(version, key_class)
    assert (s.version, s.compression, s.value_class, s.moved_only) == shape


@pytest.mark.parametrize("version", [4, 6])
def test_old_writers_index_every_interval_th_record_even_when_the_position_did_not_move(version):
    data, index = io.BytesIO(), io.BytesIO()
    w = MapFileWriter(data, index, TEXT, TEXT, compression="block", version=version, block_size=10**6)
    for i in range(300):
        w.append(text(b"k%04d" % i), text(b"v"))
    w.close()
    raw = index.getvalue()
    got = [(e.key, struct.unpack(">q", e.value)[0]) for e in iter_entries(raw, read_header(raw)) if isinstance(e, Entry)]  # fmt: skip
    start = read_header(data.getvalue()).length
    if version == 6:  # Hadoop 3: one entry per block (one block here)
        assert got == [(text(b"k0000"), start)]
    else:  # size % 128 == 0: records 0, 128, 256, all in the one block
        assert got == [(text(b"k%04d" % i), start) for i in (0, 128, 256)]
