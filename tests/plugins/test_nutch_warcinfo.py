"""WARC -> nutch-segment / nutch-crawldb / nutch-linkdb keeps each ``warcinfo`` in the
SequenceFile metadata of part 0 of every subdirectory (``crawlmill.warcinfo.NNNNN.header``
and ``.block``, Text pairs), counts it, and a clean WARC converts with exit 0 (no
quarantine). Hadoop's own ``SequenceFile.Reader`` reads the metadata back.

The file formats page: "Much more on SequenceFile characteristics such as file headers and
compression options can be found at the SequenceFile Javadoc." (the header's metadata is
SequenceFile.Metadata: Text pairs)."""

from __future__ import annotations

import json

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.nutch_write import warcinfo_metadata, warcinfos_of_metadata
from crawlmill.formats.hadoop.sequencefile import read_header

from tests.plugins.nutch_inputs import write_warc

INFO = "software: a crawler 1.0\r\nformat: WARC File Format 1.1\r\noperator: caf\u00e9\r\n"
SEG = "20240506070809"


def test_metadata_pairs_round_trip_in_number_order():
    infos = [(b"WARC/1.0\r\n\r\n", b"a: 1\r\n")] * 11 + [(b"h", b"\xff\x00")]
    pairs = warcinfo_metadata(infos)
    assert pairs[0] == (b"crawlmill.warcinfo.00000.header", b"WARC/1.0\r\n\r\n")
    assert warcinfos_of_metadata(sorted(pairs)) == infos


def _convert(src, to, out, *options):
    args = ["convert", str(src), "--to", to, "-o", str(out), "--workers", "1",
            "--option", "partitions=2"]  # fmt: skip
    for o in options:
        args += ["--option", o]
    return main(args)


@pytest.mark.parametrize(
    "to, parts",
    [
        ("nutch-segment", [f"{SEG}/{s}/part-r-00000/data" for s in (
            "content", "crawl_fetch", "parse_data", "parse_text")]
         + [f"{SEG}/crawl_generate/part-r-00000", f"{SEG}/crawl_parse/part-r-00000"]),
        ("nutch-crawldb", ["current/part-r-00000/data"]),
        ("nutch-linkdb", ["current/part-r-00000/data"]),
    ],
)  # fmt: skip
def test_a_clean_warc_converts_with_exit_0_and_keeps_its_warcinfo(tmp_path, capsys, to, parts):
    src = write_warc(tmp_path / "in.warc", info=INFO)
    raw = src.read_bytes()
    header = raw[: raw.index(b"\r\n\r\n") + 4]
    out = tmp_path / "out"
    extra = [f"segment={SEG}"] if to == "nutch-segment" else []
    assert _convert(src, to, out, *extra) == 0
    err = capsys.readouterr().err
    assert "quarantined 0" in err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert "warcinfo kept in SequenceFile metadata" in json.dumps(report)
    for rel in parts:
        h = read_header((out / rel).read_bytes())
        assert warcinfos_of_metadata(h.metadata) == [(header, INFO.encode("utf-8"))], rel
    # the other part holds none
    other = (out / parts[0].replace("00000", "00001")).read_bytes()
    assert warcinfos_of_metadata(read_header(other).metadata) == []


def test_hadoop_reads_the_warcinfo_metadata(tmp_path, nutch_java):
    src = write_warc(tmp_path / "in.warc", info=INFO)
    assert _convert(src, "nutch-linkdb", tmp_path / "db") == 0  # Inlinks: a class compiled here
    got = nutch_java.read_meta("1.22", tmp_path / "db" / "current" / "part-r-00000" / "data")
    values = {g["key"]: g["value"] for g in got}
    assert values["crawlmill.warcinfo.00000.block"] == INFO
    assert values["crawlmill.warcinfo.00000.header"].startswith("WARC/1.1\r\nWARC-Type: warcinfo")


@pytest.mark.parametrize("to", ["nutch-segment", "nutch-crawldb", "nutch-linkdb"])
def test_the_readers_give_the_warcinfo_back_byte_for_byte(tmp_path, to, need):
    warcio = need("warcio.archiveiterator")
    src = write_warc(tmp_path / "in.warc", info=INFO)
    raw = src.read_bytes()
    original = raw[
        : raw.index(b"\r\n\r\n", raw.index(b"\r\n\r\n") + 4) + 4
    ]  # head, block, separator
    extra = [f"segment={SEG}"] if to == "nutch-segment" else []
    assert _convert(src, to, tmp_path / "n", *extra) == 0
    assert main(["convert", str(tmp_path / "n"), "--to", "warc", "-o", str(tmp_path / "w"),
                 "--option", "compression=none", "--workers", "1"]) in (0, 3)  # fmt: skip
    infos, kept = [], 0
    for f in sorted((tmp_path / "w").rglob("*.warc*")):
        kept += original in f.read_bytes()  # the warcinfo as the input wrote it
        with open(f, "rb") as fh:
            infos += [r.content_stream().read() for r in warcio.ArchiveIterator(fh)
                      if r.rec_type == "warcinfo" and b"a crawler" in r.content_stream().read()]  # fmt: skip
    assert len(infos) == 1 and kept == 1  # once, though every part-0 file keeps it
