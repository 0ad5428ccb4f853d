"""The LinkDB is written in the ``Inlink`` layout of the Nutch version the user names
(``nutch_version``, default the newest release, 1.22), checked by Nutch's own ``Inlinks``
and ``Inlink`` classes of release-1.20 and release-1.22 compiled from their source
(tests/oracles/nutch/): each reads the layout of its own version exactly and fails on the
other's; crawlmill's reader reads both.

The file formats page: "LinkDB ... data org.apache.hadoop.io.Text org.apache.nutch.crawl.Inlinks
org.apache.hadoop.io.compress.DefaultCodec" - the value class is Inlinks, whose Inlink gained
``boolean hasMD`` (+ MapWritable) in Nutch 1.21 (NUTCH-3101)."""

from __future__ import annotations

import pytest
from crawlmill.core import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.nutch import decode_nutch
from crawlmill.formats.hadoop.nutch_write_db import NEWEST_RELEASE, inlinks_layout
from crawlmill.formats.hadoop.sequencefile import iter_entries, read_header
from crawlmill.plugins.readers.nutch_db import NutchLinkDbReader

from tests.nutch_oracle import RELEASES
from tests.plugins.nutch_inputs import write_warc


def linkdb(tmp_path, *options: str):
    src = write_warc(tmp_path / "in.warc")
    out = tmp_path / "linkdb"
    args = ["convert", str(src), "--to", "nutch-linkdb", "-o", str(out), "--workers", "1"]
    for o in options:
        args += ["--option", o]
    assert main(args) == 0
    return out / "current" / "part-r-00000" / "data"


def ours(data_path):
    data = data_path.read_bytes()
    h = read_header(data)
    return [(e.key, e.value) for e in iter_entries(data, h)]


def test_the_default_is_the_newest_release_kept_as_an_oracle():
    assert NEWEST_RELEASE == RELEASES[-1] == "1.22"
    assert inlinks_layout() == "text-md"
    assert [inlinks_layout(v) for v in ("0.9", "1.0", "1.20", "1.21", "1.22", "2.0")] == [
        "text", "text", "text", "text-md", "text-md", "text-md"]  # fmt: skip
    for bad in ("1", "1.x", "0.8", ""):
        with pytest.raises(ValueError):
            inlinks_layout(bad)


VERSIONS = [None, "1.20", "1.21"]


@pytest.fixture(scope="module")
def java_reads(tmp_path_factory, nutch_java):
    """A LinkDB written for each of :data:`VERSIONS`, read by each release's classes (one JVM
    per release for the three): ``(data paths by version, {release: {path: entries}})``."""
    paths = {
        v: linkdb(tmp_path_factory.mktemp("linkdb"), *([f"nutch_version={v}"] if v else []))
        for v in VERSIONS
    }
    return paths, {r: nutch_java.read_seqs(r, list(paths.values())) for r in RELEASES}


@pytest.mark.parametrize("version", VERSIONS)
def test_each_release_reads_the_layout_written_for_it_and_no_other(java_reads, version):
    paths, reads = java_reads
    data_path = paths[version]
    written = ours(data_path)
    assert len(written) == 4  # a.example/, a.example/self, b.example/x, c.example/
    target = version or NEWEST_RELEASE
    for release in RELEASES:
        got = reads[release][str(data_path)]
        if inlinks_layout(release) == inlinks_layout(target):
            assert [g.get("error") for g in got] == [None] * len(written)
            # Java's Inlinks writes the bytes we wrote (one inlink each: no set order to differ)
            assert [bytes.fromhex(g["hex"]) for g in got] == [v for _, v in written]
            strs = "".join(g["str"] for g in got)
            assert "fromUrl: http://a.example/ anchor: B \u00e9t\u00e9" in strs
            assert "fromUrl: http://b.example/x anchor: back to A" in strs
        elif inlinks_layout(release) == "text-md":
            # 1.21+ on the old layout: EOFException in Inlink.readFields (the report)
            assert "EOFException" in got[0].get("error", "")
        else:
            # 1.20 on the new layout reads each pair and leaves the flag byte unread (Hadoop's
            # reader does not check): Java's bytes of what it read lack the flag
            assert [bytes.fromhex(g["hex"]) + b"\x00" for g in got] == [v for _, v in written]


def test_invalid_version_is_refused_before_anything_is_written(tmp_path, capsys):
    src = write_warc(tmp_path / "in.warc")
    code = main(["convert", str(src), "--to", "nutch-linkdb", "-o", str(tmp_path / "o"),
                 "--option", "nutch_version=one"])  # fmt: skip
    assert code != 0
    assert "nutch_version" in capsys.readouterr().err
    assert not (tmp_path / "o" / "current").exists()


@pytest.mark.parametrize("version", ["1.20", "1.22"])
def test_crawlmill_reads_both_layouts(tmp_path, version):
    data_path = linkdb(tmp_path, f"nutch_version={version}")
    for _, value in ours(data_path):
        assert decode_nutch("org.apache.nutch.crawl.Inlinks", value).layout == inlinks_layout(
            version
        )
    got = {}
    for unit in NutchLinkDbReader.discover(str(tmp_path / "linkdb"), NutchLinkDbReader.Options()):
        with open_reader(unit, "nutch-linkdb") as records:
            for r in records:
                got[r.url] = [
                    (i["from_url"], i["anchor"]) for i in r.extras["nutch"]["inlinks"]["inlinks"]
                ]
    assert got == {
        "http://a.example/": [("http://b.example/x", "back to A")],
        "http://a.example/self": [("http://a.example/", "self")],
        "http://b.example/x": [("http://a.example/", "B \u00e9t\u00e9")],
        "http://c.example/": [("http://b.example/x", "C")],
    }
