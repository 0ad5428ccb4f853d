"""``nutch-webgraph`` and ``nutch-hostdb`` read a web graph (outlinks, inlinks, nodes, loops)
and a host db as collections: one metadata record per entry, the value decoded (LinkDatum,
Node, LoopSet, HostDatum; their layouts are checked by Nutch's own classes in
tests/formats/test_nutch_graph.py), the JSON payload restoring every value's bytes.

The page lists "./src/java/org/apache/nutch/scoring/webgraph/LinkDatum.java ...
./src/java/org/apache/nutch/scoring/webgraph/Node.java" among the Writables, and "The large
"data" file stores all keys and values, sorted by the key"."""

from __future__ import annotations

from crawlmill.core import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop import nutch_graph as g
from crawlmill.formats.hadoop import plain_json
from crawlmill.formats.hadoop.mapfile import MapFileWriter
from crawlmill.formats.hadoop.nutch import encode_nutch, from_plain
from crawlmill.formats.hadoop.nutch_io import Metadata
from crawlmill.formats.hadoop.nutch_tools import LOOP_SET, LoopSet
from crawlmill.formats.hadoop.vint import encode_vlong
from crawlmill.formats.hadoop.writables import MapValue
from crawlmill.plugins.readers.nutch_db import NutchHostDbReader, NutchWebGraphReader

TEXT = "org.apache.hadoop.io.Text"


def _mapfile(folder, value_class, entries):
    part = folder / "current" / "part-r-00000"
    part.mkdir(parents=True)
    with open(part / "data", "wb") as data, open(part / "index", "wb") as index:
        w = MapFileWriter(data, index, TEXT, value_class, compression="record")
        for key, value in entries:
            raw = key.encode()
            w.append(encode_vlong(len(raw)) + raw, encode_nutch(value_class, value))
        w.close()


GRAPH = {
    "outlinks": (g.LINK_DATUM, [("http://a/", g.LinkDatum("http://b/", "B", 1.0, 5, 2)),
                                ("http://a/", g.LinkDatum("http://c/", "C", 1.0, 5, 2))]),
    "inlinks": (g.LINK_DATUM, [("http://b/", g.LinkDatum("http://a/", "B", 1.0, 5, 1))]),
    "nodes": (g.NODE, [("http://a/", g.Node(0, 2, 0.0, Metadata())),
                       ("http://b/", g.Node(1, 0, 0.5, Metadata([("k", ["v"])])))]),
    "loops": (LOOP_SET, [("http://a/", LoopSet(["http://b/", "http://a/"]))]),
}  # fmt: skip


def _records(reader, path):
    out = []
    for unit in reader.discover(str(path), reader.Options()):
        with open_reader(unit, reader.name) as records:
            out += list(records)
    return out


def test_a_web_graph_reads_every_entry_of_every_folder(tmp_path):
    graph = tmp_path / "webgraph"
    for sub, (cls, entries) in GRAPH.items():
        _mapfile(graph / sub, cls, entries)
    records = _records(NutchWebGraphReader, graph)
    got = {}
    for r in records:
        nutch = r.extras["nutch"]
        (key,) = set(nutch) - {"db", "part"}
        cls = GRAPH[nutch["db"].split("/")[1]][0]
        value = from_plain(plain_json.loads(r.payload)[key])
        got.setdefault(nutch["db"], []).append((r.url, encode_nutch(cls, value)))
    want = {f"webgraph/{sub}": [(u, encode_nutch(cls, v)) for u, v in entries]
            for sub, (cls, entries) in GRAPH.items()}  # fmt: skip
    assert got == want
    # one graph folder alone reads too
    assert len(_records(NutchWebGraphReader, graph / "nodes")) == 2


def test_a_host_db_reads_one_record_per_host_keyed_by_doc_id(tmp_path):
    datum = g.HostDatum(2.0, 1_700_000_000_000, "http://a.example/", fetched=7,
                        metadata=MapValue([(TEXT, b"k", TEXT, b"v")]))  # fmt: skip
    _mapfile(tmp_path / "hostdb", g.HOST_DATUM, [("a.example", datum)])
    (record,) = _records(NutchHostDbReader, tmp_path / "hostdb")
    assert (record.url, record.doc_id, record.kind) == (None, "a.example", "metadata")
    value = from_plain(plain_json.loads(record.payload)["host_datum"])
    assert encode_nutch(g.HOST_DATUM, value) == encode_nutch(g.HOST_DATUM, datum)


def test_a_web_graph_converts_with_exit_0(tmp_path):
    graph = tmp_path / "webgraph"
    for sub, (cls, entries) in GRAPH.items():
        _mapfile(graph / sub, cls, entries)
    assert main(["convert", str(graph), "--from", "nutch-webgraph", "--to", "warc",
                 "-o", str(tmp_path / "w"), "--workers", "1"]) == 0  # fmt: skip


def _report(out):
    import json

    return json.loads((out / ".crawlmill" / "report.json").read_text())


def test_a_part_whose_header_does_not_read_is_damage_not_left_out(tmp_path):
    """A host db part with a damaged magic is read under --from, its damage named (file,
    byte 0, reason); its MapFile index is no part and is not read as one."""
    datum = g.HostDatum(2.0, 1_700_000_000_000, "http://a.example/")
    _mapfile(tmp_path / "hostdb", g.HOST_DATUM, [("a.example", datum)])
    data = tmp_path / "hostdb" / "current" / "part-r-00000" / "data"
    data.write_bytes(b"XEQ" + data.read_bytes()[3:])
    out = tmp_path / "o"
    assert main(["convert", str(tmp_path / "hostdb"), "--from", "nutch-hostdb", "--to", "warc",
                 "-o", str(out), "--workers", "1", "--progress", "never"]) == 3  # fmt: skip
    (damage,) = _report(out)["damages"]
    assert (damage["path"], damage["offset"]) == (str(data), 0)
    assert "SequenceFile magic" in damage["reason"]


def test_a_reader_forced_on_another_database_names_its_class(tmp_path):
    """nutch-hostdb forced on a web graph's nodes: each part is damage (unknown-class, the
    class it holds named), never a HostDatum made of a Node."""
    _mapfile(tmp_path / "nodes", g.NODE, GRAPH["nodes"][1])
    out = tmp_path / "o"
    assert main(["convert", str(tmp_path / "nodes"), "--from", "nutch-hostdb", "--to", "warc",
                 "-o", str(out), "--workers", "1", "--progress", "never"]) == 3  # fmt: skip
    report = _report(out)
    (damage,) = report["damages"]
    assert damage["code"] == "unknown-class" and g.NODE in damage["reason"]
    assert report["written"] == 0
