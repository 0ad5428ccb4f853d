"""The Writables the file formats page lists that were kept as opaque bytes, decoded and
encoded byte for byte, each read by Nutch's own class of release-1.22 compiled from its
source (tests/oracles/nutch/): Java consumes our bytes exactly and writes the same bytes
back, and its toString shows our fields.

The page: "The list below indicates all of the Nutch custom writable's which implement the
Hadoop interface ... ./src/java/org/apache/nutch/scoring/webgraph/LinkDatum.java ...
./src/java/org/apache/nutch/scoring/webgraph/Node.java ... ./src/java/org/apache/nutch/parse/Outlink.java
... ./src/java/org/apache/nutch/metadata/Metadata.java ... ./src/java/org/apache/nutch/crawl/Inlink.java"."""

from __future__ import annotations

import pytest
from crawlmill.formats.hadoop import nutch_graph as g
from crawlmill.formats.hadoop.nutch import decode_nutch, encode_nutch
from crawlmill.formats.hadoop.nutch_io import Metadata, ParseStatus
from crawlmill.formats.hadoop.nutch_parse import Outlink
from crawlmill.formats.hadoop.writables import MapValue

from tests.nutch_oracle import assert_round_trip_and_nutch_reads

TEXT = "org.apache.hadoop.io.Text"
INT = "org.apache.hadoop.io.IntWritable"
MD = MapValue([(TEXT, b"k", INT, 7)])

VALUES = {
    g.LINK_DATUM: [g.LinkDatum("http://a.example/", "caf\u00e9", 0.5, 1_700_000_000_123, 1),
                   g.LinkDatum("http://b.example/", "", 0.0, 0, 2)],
    g.NODE: [g.Node(3, 4, 1.25, Metadata([("k", ["v1", "v2"])])), g.Node()],
    g.HOST_DATUM: [g.HostDatum(1.5, 1_700_000_000_000, "http://a.example/", 1, 2, 3, 4, 5, 6, 7, 8,
                               MD), g.HostDatum()],
    g.OUTLINK: [Outlink("http://c.example/", "C", MD), Outlink("http://c.example/", "", None)],
    g.INLINK: [g.InlinkValue("http://d.example/", "D", MD), g.InlinkValue("http://d.example/", "")],
    g.METADATA: [Metadata([("a", ["1"]), ("b", ["2", "3"])]), Metadata()],
}  # fmt: skip
#: a fragment of each value's toString in Java (what Java read of our fields).
JAVA_SAYS = {
    g.LINK_DATUM: "url: http://a.example/, anchor: caf\u00e9, score: 0.5, timestamp: 1700000000123, link type: inlink",
    g.NODE: "num inlinks: 3, num outlinks: 4, inlink score: 1.25",
    g.HOST_DATUM: "http://a.example/",
    g.OUTLINK: "toUrl: http://c.example/ anchor: C",
    g.INLINK: "fromUrl: http://d.example/ anchor: D",
    g.METADATA: "b=2",
}  # fmt: skip


@pytest.mark.parametrize("name", list(VALUES), ids=lambda n: n.rsplit(".", 1)[-1])
def test_each_value_round_trips_and_nutchs_class_reads_it_exactly(name, nutch_java, tmp_path):
    # Metadata's names come back in their own order: equal bytes, not an equal list
    assert_round_trip_and_nutch_reads(nutch_java, name, VALUES[name], tmp_path, JAVA_SAYS[name],
                                      equal=name != g.METADATA)  # fmt: skip


def test_an_inlink_alone_reads_in_the_layout_that_consumes_it():
    old = g.InlinkValue("http://d.example/", "D", layout="text")
    data = encode_nutch(g.INLINK, old)
    assert data == b"\x11http://d.example/\x01D"  # Nutch 1.20: two Text fields
    assert decode_nutch(g.INLINK, data) == old
    assert decode_nutch(g.INLINK, data + b"\x00").layout == "text-md"


def test_parse_status_alone_round_trips():
    for st in (ParseStatus(2, 1, 100, ["http://x/", "5"]), ParseStatus(2, 0, 0, None)):
        data = encode_nutch(g.PARSE_STATUS, st)
        assert decode_nutch(g.PARSE_STATUS, data) == st
