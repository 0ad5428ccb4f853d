"""``cc-metadata`` as the 2012 SequenceFiles: the synthetic look-alikes of both historic
variants read with every entry consumed; ``metadata-NNNNN``/``textData-NNNNN`` written as
``text-gzip`` (read back by Hadoop's own SequenceFile.Reader) and ``textbytes-snappy`` (the
sample's header layout; Hadoop has no TextBytes class); entries read and written again keep
their bytes; a value that is no JSON is damage."""

from __future__ import annotations

import io
import json

import pytest
from crawlmill import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.cc2012.segment import VARIANTS, SegmentFiles, iter_pairs
from crawlmill.formats.hadoop.sequencefile import iter_entries, read_header

from tests import helpers
from tests.conftest import SAMPLES
from tests.core.conftest import hadoop_loops, spark_sc  # noqa: F401  (the session's fixtures)
from tests.formats.hadoop.seqdata import text
from tests.plugins.test_sequencefile_hadoop import Hadoop

SYNTH = SAMPLES / "cc2012-synthetic"
JA = SAMPLES / "chatnoir-eu-chatnoir-resiliparse/tests/data/clueweb-quirk.warc.gz"
H = "org.apache.hadoop.io."


@pytest.fixture(scope="module")
def hadoop(spark_sc, hadoop_loops):  # noqa: F811
    return Hadoop(spark_sc, hadoop_loops)


def convert(src, out, *extra) -> tuple[int, dict]:
    result = helpers.convert(src, "cc-metadata", out, *extra)
    return result.exit_code, result.report


def pairs(path) -> list[tuple[bytes, bytes]]:
    data = path.read_bytes()
    return [(k, v) for k, v, _ in iter_pairs(data, read_header(data))]


@pytest.mark.parametrize("variant", ["text-gzip", "textbytes-snappy"])
@pytest.mark.parametrize("name", ["metadata-00000", "textData-00000"])
def test_the_synthetic_samples_are_read_whole(tmp_path, variant, name):
    src = SYNTH / variant / name
    data = src.read_bytes()
    entries = list(iter_entries(data, read_header(data)))  # every byte of the file framed
    with open_reader(str(src)) as records:  # detected: cc-metadata, not sequencefile
        found = list(records)
        assert records.reader_name == "cc-metadata" and not list(records.damages)
    assert len(found) == len(entries) == (200 if name.startswith("metadata") else 160)
    for record, (key, value) in zip(found, pairs(src), strict=True):
        assert record.url == key.decode() and record.payload == value
    if name.startswith("metadata"):
        first = json.loads(found[0].payload)
        assert found[0].kind == "metadata" and found[0].ip == first["server_ip"]
        assert [o.url for o in found[0].outlinks] == [x["href"] for x in first["content"]["links"]]
        # through the CLI: JSON lines with the same JSON
        code, report = convert(src, tmp_path / "j")
        assert code == 0 and report["read"] == report["written"] == 200
        (out,) = (tmp_path / "j").glob("*.jsonl")
        lines = [json.loads(x) for x in out.read_bytes().splitlines()]
        assert [x["metadata"] for x in lines] == [json.loads(v) for _, v in pairs(src)]
    else:
        assert found[0].kind == "conversion" and found[0].text == found[0].payload.decode()


@pytest.mark.parametrize("variant", ["text-gzip", "textbytes-snappy"])
def test_entries_read_and_written_again_keep_their_bytes(tmp_path, variant):
    for name in ("metadata-00000", "textData-00000"):
        out = tmp_path / f"{variant}-{name}"
        code, _ = convert(SYNTH / variant / name, out, "--option", f"variant={variant}")
        assert code == 0
        assert pairs(out / name) == pairs(SYNTH / variant / name), name
        for written in ("metadata-00000", "textData-00000"):  # the sample's header shape
            ours, theirs = read_header((out / written).read_bytes()), None
            theirs = read_header((SYNTH / variant / written).read_bytes())
            assert (ours.version, ours.key_class, ours.value_class, ours.compression,
                    ours.codec, ours.metadata) == (theirs.version, theirs.key_class,
                    theirs.value_class, theirs.compression, theirs.codec, theirs.metadata)  # fmt: skip


def test_textbytes_variant_from_a_warc_is_read_back(tmp_path):
    code, report = convert(JA, tmp_path / "o", "--filter", "kind", "keep=response",
                           "--option", "variant=textbytes-snappy")  # fmt: skip
    assert code == 0
    with open_reader(str(JA)) as records:
        urls = [r.url for r in records if r.kind == "response"]
    meta = read_header((tmp_path / "o" / "metadata-00000").read_bytes())
    text_h = read_header((tmp_path / "o" / "textData-00000").read_bytes())
    assert meta.key_class == meta.value_class == "org.commoncrawl.util.TextBytes"
    assert (meta.codec, text_h.codec) == (
        "org.apache.hadoop.io.compress.GzipCodec",
        "org.apache.hadoop.io.compress.SnappyCodec",
    )
    with open_reader(str(tmp_path / "o" / "metadata-00000")) as records:
        back = list(records)
    assert [r.url for r in back] == urls
    assert all(json.loads(r.payload)["charset_detected"] == "EUC-JP" for r in back)
    texts = pairs(tmp_path / "o" / "textData-00000")
    assert [k.decode() for k, _ in texts] == urls and all(v for _, v in texts)


@pytest.mark.oracle
def test_hadoop_reads_the_text_gzip_files_we_write(hadoop, tmp_path):
    code, _ = convert(JA, tmp_path / "o", "--filter", "kind", "keep=response",
                      "--option", "variant=text-gzip")  # fmt: skip
    assert code == 0
    with open_reader(str(JA)) as records:
        urls = [r.url for r in records if r.kind == "response"]
    for name in ("metadata-00000", "textData-00000"):
        got = hadoop.read(tmp_path / "o" / name)
        assert (got["key_class"], got["value_class"]) == (H + "Text", H + "Text")
        assert (got["block"], got["codec"], got["metadata"]) == (
            True, H + "compress.GzipCodec", []
        )  # fmt: skip
        assert [k for k, _ in got["pairs"]] == [text(u.encode()) for u in urls]
        assert got["pairs"] == [(text(k), text(v)) for k, v in pairs(tmp_path / "o" / name)]
    with open_reader(str(tmp_path / "o" / "metadata-00000")) as records:
        assert [json.loads(r.payload)["md5"] for r in records]


def test_a_value_that_is_no_json_is_damage(tmp_path):
    buf = io.BytesIO()
    files = SegmentFiles(buf, None, VARIANTS["text-gzip"])
    files.add_metadata(b"http://a/", b'{"disposition":"SUCCESS"}')
    files.add_metadata(b"http://b/", b"not json")
    files.add_metadata(b"http://c/", b'{"disposition":"FAILURE"}')
    buf.close = lambda: None  # keep the bytes
    files.close()
    path = tmp_path / "metadata-00003"
    path.write_bytes(buf.getvalue())
    with open_reader(str(path)) as records:
        found = list(records)
        damages = list(records.damages)
    assert [r.url for r in found] == ["http://a/", "http://c/"]
    (damage,) = damages
    assert damage.code == "bad-json-value" and "http://b/" in damage.reason
    # the file's bytes at the damage: the compressed block holding the value
    data = path.read_bytes()
    assert damage.data == data[damage.offset : damage.offset + damage.length]
    assert damage.offset + damage.length == len(data)


@pytest.mark.oracle
def test_hadoop_reads_the_segment_the_cc2012_writer_makes(hadoop, tmp_path):
    out = tmp_path / "seg"
    src = SAMPLES / "real-world-2026-11/N0taN3rd-node-warc/test__files__parseMe.warc.gz"
    code = main(["convert", str(src), "--to", "cc2012", "-o", str(out), "--progress", "never",
                 "--filter", "kind", "keep=response"])  # fmt: skip
    assert code == 0
    with open_reader(str(src)) as records:
        urls = [r.url for r in records if r.kind == "response"]
    for name in ("metadata-00000", "textData-00000"):
        got = hadoop.read(out / name)
        assert (got["key_class"], got["codec"]) == (H + "Text", H + "compress.GzipCodec")
        assert got["pairs"] == [(text(k), text(v)) for k, v in pairs(out / name)]
    assert [k for k, _ in hadoop.read(out / "metadata-00000")["pairs"]] == [
        text(u.encode()) for u in urls
    ]


def test_a_changed_text_of_a_carried_json_goes_to_textdata(tmp_path, monkeypatch):
    from tests.helpers import put_fake_plugins_on_path

    put_fake_plugins_on_path(monkeypatch)
    code, report = convert(SYNTH / "text-gzip" / "metadata-00000", tmp_path / "o", "--plugin",
                           "cm_fake", "--filter", "fake-set", "text=changed",
                           "--option", "variant=text-gzip")  # fmt: skip
    assert code == 0 and "text-not-written" not in report["warnings"]
    assert [v for _, v in pairs(tmp_path / "o" / "textData-00000")] == [b"changed"] * 200
    assert pairs(tmp_path / "o" / "metadata-00000") == pairs(SYNTH / "text-gzip/metadata-00000")


def _quarantine(out):
    q = out / ".crawlmill" / "quarantine"
    entries = [json.loads(line) for p in q.rglob("*.jsonl") for line in p.read_text().splitlines()]
    blobs = {p.with_suffix(".jsonl"): p.read_bytes() for p in q.rglob("*.bin")}
    return entries, blobs


@pytest.mark.parametrize("compression", ["none", "record", "block"])
def test_a_value_that_is_no_json_quarantines_the_files_bytes(tmp_path, compression):
    """The quarantine of a bad value holds the input's bytes at the offset it names: the
    record (NONE, RECORD: as stored), or the compressed block holding it, once per block, so
    the value can be recovered and no block is stored twice (found by tests/faults)."""
    from crawlmill.formats.hadoop.codecs import codec_named
    from crawlmill.formats.hadoop.sequencefile import SequenceFileWriter

    buf = io.BytesIO()
    w = SequenceFileWriter(buf, H + "Text", H + "Text", compression=compression,
                           codec=codec_named("gzip") if compression != "none" else None)  # fmt: skip
    for url, value in [(b"http://a/", b'{"d":1}'), (b"http://b/", b"not json"),
                       (b"http://c/", b"[1]"), (b"http://d/", b'{"d":2}')]:  # fmt: skip
        w.append(text(url), text(value))
    w.close()
    path = tmp_path / "in" / "metadata-00001"
    path.parent.mkdir()
    path.write_bytes(buf.getvalue())
    data = path.read_bytes()
    out = tmp_path / "out"
    code, report = convert(path, out)
    assert code == 3 and report["written"] == 2
    assert [d["code"] for d in report["damages"]] == ["bad-json-value"] * 2
    entries, blobs = _quarantine(out)
    assert len(entries) == 2
    stored = []
    for e in entries:
        blob = next(iter(blobs.values()))[e["bin_offset"] : e["bin_offset"] + e["bin_length"]]
        assert blob == data[e["offset"] : e["offset"] + len(blob)]
        stored.append(blob)
    if compression == "block":  # one block: its bytes once, whole
        assert sorted(len(b) for b in stored) == [0, len(data) - read_header(data).length]
    else:
        assert all(stored) and stored[0] != stored[1]
