"""The ``mapfile`` reader and writer and ``crawlmill get`` through the CLI: every Hadoop-,
Spark- and Nutch-written MapFile of ../shared/samples answers ``get`` for every key; WARC ->
MapFile (sorted, hash-partitioned, indexed as Hadoop) -> records; MapFile -> MapFile keeps
the data's bytes and Hadoop's index; an index that disagrees with the data, unsorted keys and
a missing index are reported; ``inspect`` says what a MapFile is."""

from __future__ import annotations

import base64
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
    mapfile_dirs,
    sort_key,
)
from crawlmill.formats.hadoop.sequencefile import Entry, SequenceFileWriter, iter_entries
from crawlmill.formats.hadoop.writables import content_of

from tests.formats.hadoop.seqdata import text
from tests.helpers import convert

H = "org.apache.hadoop.io."
TEXT = H + "Text"
ORACLE = "hadoop-oracle-generated"
BLACKBOOK = "kris-sigur-jwat/jwat-warc/src/test/resources/IAH-20080430204825-00000-blackbook.warc.gz"  # fmt: skip
IANA = "webrecorder-pywb/sample_archive/warcs/iana.warc.gz"

#: every MapFile (or folder of MapFile parts) the samples hold, and how many entries.
SAMPLE_MAPFILES = [
    (f"{ORACLE}/mapfile_none", 1000),
    (f"{ORACLE}/mapfile_block_deflate", 1000),
    (f"{ORACLE}/mapfile_record_deflate_iv16", 300),
    ("pyspark-generated/mapfile_text_text_block_deflate", 500),
    ("apache-nutch/deduplication-crawldb/current", 10),
    ("apache-nutch/testcrawl/crawldb/current", 472),
    ("apache-nutch/testcrawl/linkdb/current", 472),
    ("commoncrawl-nutch/deduplication-crawldb/old", 9),
    ("commoncrawl-nutch/test-segments/20260224170658-revisit/content", 2),
] + [
    (f"apache-nutch/{seg}/{sub}", n)
    for seg, counts in (
        ("test-segments/20150309101625", (1, 1, 1, 1)),
        ("test-segments/20150309101656", (49, 61, 39, 39)),
        ("testcrawl/segments/20060919213635", (1, 1, 1, 1)),
        ("testcrawl/segments/20060919213643", (18, 18, 18, 18)),
    )
    for sub, n in zip(("content", "crawl_fetch", "parse_data", "parse_text"), counts, strict=True)
]


def _entries(folder):
    """(key, value) of every entry of every part of ``folder``, in file order."""
    out = []
    for d in mapfile_dirs(str(folder)):
        with MapFile(d) as m:
            out += [(e.key, e.value) for e in iter_entries(m.data, m.header) if isinstance(e, Entry)]
    return out


def _json_lines(capsys):
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def _report(out):
    return json.loads((out / ".crawlmill" / "report.json").read_text())


def test_every_sample_mapfile_is_listed(samples):
    found = {
        str(p.parent.relative_to(samples))
        for p in samples.rglob("index")
        if (p.parent / "data").is_file()
    }
    listed = set()
    for rel, _ in SAMPLE_MAPFILES:
        listed |= {str(p.relative_to(samples)) for p in map(type(samples), mapfile_dirs(str(samples / rel)))}  # fmt: skip
    assert found == listed


@pytest.mark.parametrize(("rel", "count"), SAMPLE_MAPFILES, ids=[r for r, _ in SAMPLE_MAPFILES])
def test_every_sample_mapfile_answers_get_for_every_key(samples, rel, count, capsys):
    entries = _entries(samples / rel)
    assert len(entries) == count
    first = {}
    for k, v in entries:
        first.setdefault(k, v)  # MapFile.Reader.get: the first of equal keys after the index's
    keys = list(first)
    assert main(["get", str(samples / rel), "--key-hex", "--json", *(k.hex() for k in keys)]) == 0
    got = _json_lines(capsys)
    assert [base64.b64decode(g["key_base64"]) for g in got] == keys
    assert [base64.b64decode(g["value_base64"]) for g in got] == [first[k] for k in keys]


def test_get_takes_text_keys_and_prints_the_value(samples, capsysbinary):
    folder = samples / ORACLE / "mapfile_block_deflate"
    values = dict(_entries(folder))
    assert main(["get", str(folder), "http://example.com/0500"]) == 0
    want = values[text(b"http://example.com/0500")]
    assert capsysbinary.readouterr().out == content_of(TEXT, want) + b"\n"  # the text
    assert main(["get", str(folder / "data"), "http://example.com/0007", "--raw"]) == 0
    assert capsysbinary.readouterr().out == values[text(b"http://example.com/0007")]


def test_get_old_nutch_utf8_keys_by_text(samples, capsys):
    crawldb = samples / "apache-nutch/testcrawl/crawldb/current"
    assert main(["get", str(crawldb), "http://ant.apache.org/", "--json"]) == 0
    (doc,) = _json_lines(capsys)
    assert doc["key_class"] == "UTF8" and doc["key"] == "http://ant.apache.org/"


def test_get_missing_keys_exit_1(samples, capsys):
    folder = samples / ORACLE / "mapfile_none"
    for key in ("", "a", "http://example.com/0500x", "zzz"):  # before, between, after
        assert main(["get", str(folder), key]) == 1
        assert "is not a key" in capsys.readouterr().err
    assert main(["get", str(folder), "http://example.com/0001", "nope", "--json"]) == 1
    assert len(_json_lines(capsys)) == 1


def test_get_refuses_what_is_not_a_mapfile(samples, tmp_path, capsys):
    assert main(["get", str(tmp_path), "x"]) == 2
    assert "not a MapFile" in capsys.readouterr().err
    assert main(["get", str(samples / ORACLE / "mapfile_none"), "zz", "--key-hex"]) == 2


# -- the writer --------------------------------------------------------------------------------


def _convert(src, out, *options, filters=("--filter", "kind", "keep=response")):
    return convert(
        src, "mapfile", out, *filters, option=options, workers=1, progress=None
    ).exit_code


@pytest.mark.parametrize("compression", ["block", "record", "none"])
def test_warc_to_hash_partitioned_sorted_mapfiles(samples, tmp_path, compression, capsysbinary):
    src = samples / BLACKBOOK
    out = tmp_path / "out"
    assert _convert(src, out, "partitions=2", f"compression={compression}", "block_size=20000") == 0
    with open_reader(src) as records:
        want = {
            text(r.url.encode("utf-8", "surrogateescape")): (r.http_head or b"") + r.payload
            for r in records
            if r.kind.value == "response"
        }
    parts = mapfile_dirs(str(out))
    assert [p.rsplit("/", 1)[-1] for p in parts] == ["part-r-00000", "part-r-00001"]
    seen = {}
    for n, part in enumerate(parts):
        with MapFile(part) as m:
            assert m.header.compression == compression and not m.problems
            keys = [e.key for e in iter_entries(m.data, m.header) if isinstance(e, Entry)]
            assert keys == sorted(keys, key=lambda k: sort_key(TEXT, k))
            assert all(hash_partition(TEXT, k, 2) == n for k in keys)
            assert len(m.index) >= (1 if compression == "block" else len(keys) // 128 + 1 - (len(keys) % 128 == 0))  # fmt: skip
        seen.update(_entries(part))
    assert {k: v[4:] for k, v in seen.items()} == want  # BytesWritable values
    assert len(want) == 299
    # every key answers get, looked up in every part and in the HashPartitioner's part
    for flag in ([], ["--hash-partitioned"]):
        assert main(["get", str(out), "--key-hex", "--raw", *flag, *(k.hex() for k in want)]) == 0
    # read back through the mapfile reader: index checks pass
    back = tmp_path / "back"
    assert main(["convert", str(out), "--to", "warc", "-o", str(back), "--workers", "1"]) == 0
    report = _report(back)
    assert report["checks_passed"] == 2 and report["checks_failed"] == []


def test_equal_keys_are_written_in_input_order(samples, tmp_path):
    out = tmp_path / "out"
    assert _convert(samples / IANA, out, filters=()) == 0
    entries = _entries(out)
    with open_reader(samples / IANA) as records:
        urls = [r.url for r in records]
    assert len(entries) == len(urls)
    assert len({k for k, _ in entries}) < len(entries)  # repeated URLs: equal keys kept
    assert [k for k, _ in entries] == sorted((k for k, _ in entries), key=lambda k: sort_key(TEXT, k))  # fmt: skip


MAPFILE_COPIES = [f"{ORACLE}/{s}" for s in ("mapfile_none", "mapfile_record_deflate_iv16", "mapfile_block_deflate")] + [
    "apache-nutch/testcrawl/crawldb/current/part-00000",  # SEQ3, UTF8 keys, Hadoop 0.x index
    "apache-nutch/testcrawl/linkdb/current/part-00000",
    "apache-nutch/test-segments/20150309101656/content/part-00000",
    "commoncrawl-nutch/test-segments/20260224170658-revisit/content/part-r-00000",
]  # fmt: skip


@pytest.mark.parametrize("sample", MAPFILE_COPIES)
def test_mapfile_to_mapfile_keeps_data_bytes_and_hadoops_index(samples, tmp_path, sample):
    src = samples / sample
    out = tmp_path / "out"
    interval = "16" if "iv16" in sample else "128"
    assert main(["convert", str(src), "--to", "mapfile", "-o", str(out), "--workers", "1",
                 "--option", f"index_interval={interval}"]) == 0  # fmt: skip
    assert (out / "part-r-00000" / "data").read_bytes() == (src / "data").read_bytes()
    with MapFile(str(src)) as a, MapFile(str(out / "part-r-00000")) as b:
        assert [(e.key, e.position) for e in a.index] == [(e.key, e.position) for e in b.index]


# -- the reader's checks -----------------------------------------------------------------------


def _mapfile(folder, pairs, index=None):
    folder.mkdir(parents=True)
    data, idx = io.BytesIO(), io.BytesIO()
    w = MapFileWriter(data, idx, TEXT, TEXT)
    for k, v in pairs:
        w.append(k, v)
    w.close()
    (folder / "data").write_bytes(data.getvalue())
    if index is None:
        (folder / "index").write_bytes(idx.getvalue())
    elif index is not False:
        buf = io.BytesIO()
        iw = SequenceFileWriter(buf, TEXT, H + "LongWritable", compression="block")
        for k, pos in index:
            iw.append(k, struct.pack(">q", pos))
        iw.close()
        (folder / "index").write_bytes(buf.getvalue())
    return folder


PAIRS = [(text(b"k%04d" % i), text(b"v%d" % i)) for i in range(300)]


def test_an_index_that_disagrees_with_the_data_fails_its_check(tmp_path, capsys):
    good = _mapfile(tmp_path / "good", PAIRS)
    with MapFile(str(good)) as m:
        index = [(e.key, e.position) for e in m.index]
    assert len(index) == 3
    index[1] = (index[1][0], index[1][1] + 1)  # one byte off a record start
    index[2] = (text(b"k9999"), index[2][1])  # a key its record does not hold
    bad = _mapfile(tmp_path / "bad", PAIRS, index)
    out = tmp_path / "out"
    assert main(["convert", str(bad), "--to", "warc", "-o", str(out), "--workers", "1"]) == 3
    report = _report(out)
    (check,) = report["checks_failed"]
    assert "index" in json.dumps(check) and f"names data position {index[1][1]}" in json.dumps(check)
    assert report["warnings"]["index-mismatch"] == 2
    assert report["read"] == 300  # every record still read


def test_unsorted_data_keys_are_reported(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    buf = io.BytesIO()
    w = SequenceFileWriter(buf, TEXT, TEXT)
    for k in (b"b", b"c", b"a", b"d"):
        w.append(text(k), text(b"v"))
    w.close()
    (folder / "data").write_bytes(buf.getvalue())
    idx = io.BytesIO()
    iw = SequenceFileWriter(idx, TEXT, H + "LongWritable", compression="block")
    iw.append(text(b"b"), struct.pack(">q", w.header.length))
    iw.close()
    (folder / "index").write_bytes(idx.getvalue())
    with open_reader(str(folder / "data"), reader="mapfile") as records:
        got = list(records)
        warnings = [w.code for w in records.warnings]
    assert len(got) == 4
    assert warnings == ["unsorted-keys"]


def test_a_part_without_index_is_read_and_fails_its_check(tmp_path):
    job = tmp_path / "job"
    _mapfile(job / "part-r-00000", PAIRS[:10])
    _mapfile(job / "part-r-00001", PAIRS[10:20], index=False)
    out = tmp_path / "out"
    assert main(["convert", str(job), "--to", "warc", "-o", str(out), "--workers", "1"]) == 3
    report = _report(out)
    assert report["read"] == 20
    assert report["checks_passed"] == 1 and len(report["checks_failed"]) == 1
    assert "index is missing" in json.dumps(report["checks_failed"])


def test_inspect_says_what_a_mapfile_is(samples, capsys):
    data = samples / "apache-nutch/test-segments/20150309101656/content/part-00000/data"
    assert main(["inspect", str(data), "-n", "1"]) == 0
    out = capsys.readouterr().out
    assert "what it is: SequenceFile SEQ6, RECORD DefaultCodec: org.apache.hadoop.io.Text (" in out
    assert "-> org.apache.nutch.protocol.Content (Nutch Content:" in out
    assert "the data of a MapFile" in out
    assert main(["inspect", str(samples / "apache-nutch/testcrawl/crawldb/current"), "-n", "500"]) == 0
    out = capsys.readouterr().out
    assert "mapfile" in out.split("reading with:")[1].split("\n")[0]
    assert "1 Hadoop MapFile part(s)" in out and "keys UTF8" in out
    assert "CHECK" in out and "index check passed" in out


def test_get_with_a_damaged_index_scans_the_data_and_exits_3_for_a_missing_key(tmp_path, capsys):
    folder = _mapfile(tmp_path / "m", PAIRS)
    index = (folder / "index").read_bytes()
    (folder / "index").write_bytes(index[:-5])  # its only block cut short
    assert main(["get", str(folder), "k0299", "k0000"]) == 0  # found from the data's start
    assert capsys.readouterr().out == "# key: k0299\nv299\n# key: k0000\nv0\n"
    assert main(["get", str(folder), "k0300"]) == 3
