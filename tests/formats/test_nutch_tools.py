"""The nested Writables of Nutch's tools (Generator's ``SelectorEntry``, LinkDumper's
``LinkNode``/``LinkNodes``, Loops' ``Route``/``LoopSet``), decoded and encoded byte for byte,
with their layouts as Nutch's source writes them (Nutch's own classes read and write them in
tests/formats/test_nutch_writables_java.py).

The page: "./src/java/org/apache/nutch/crawl/Generator.java ...
./src/java/org/apache/nutch/scoring/webgraph/LinkDumper.java
./src/java/org/apache/nutch/scoring/webgraph/Loops.java"."""

from __future__ import annotations

import pytest
from crawlmill.formats.hadoop import nutch_tools as tl
from crawlmill.formats.hadoop.nutch import (
    CRAWL_DATUM,
    decode_nutch,
    encode_nutch,
    from_plain,
    to_plain,
)
from crawlmill.formats.hadoop.nutch_crawldatum import CrawlDatum
from crawlmill.formats.hadoop.nutch_graph import NODE, Node
from crawlmill.formats.hadoop.nutch_io import Metadata
from crawlmill.plugins.writables.lookup import find_writable

DATUM = CrawlDatum(status=0x01, fetch_time=1_700_000_000_000, fetch_interval=2_592_000, score=1.0)
NODE_V = Node(1, 2, 0.5, Metadata([("k", ["v"])]))


def test_selector_entry_is_url_datum_segnum():
    # url.write(out); datum.write(out); segnum.write(out);
    entry = tl.SelectorEntry("http://a.example/", DATUM, 3)
    data = encode_nutch(tl.SELECTOR_ENTRY, entry)
    assert data == (b"\x11http://a.example/" + encode_nutch(CRAWL_DATUM, DATUM)
                    + b"\x00\x00\x00\x03")  # fmt: skip
    assert decode_nutch(tl.SELECTOR_ENTRY, data) == entry


def test_link_node_url_is_write_utf():
    # out.writeUTF(url); node.write(out);
    node = tl.LinkNode("http://a.example/\u00e9", NODE_V)
    data = encode_nutch(tl.LINK_NODE, node)
    url = "http://a.example/\u00e9".encode()
    assert data == len(url).to_bytes(2, "big") + url + encode_nutch(NODE, NODE_V)
    assert decode_nutch(tl.LINK_NODE, data) == node


def test_link_nodes_and_javas_empty_value_of_no_bytes():
    nodes = tl.LinkNodes([tl.LinkNode("http://a/", NODE_V), tl.LinkNode("http://b/", Node())])
    data = encode_nutch(tl.LINK_NODES, nodes)
    assert data[:4] == b"\x00\x00\x00\x02"
    assert decode_nutch(tl.LINK_NODES, data) == nodes
    # "if (links != null && links.length > 0) { ... out.writeInt(numLinks) ... }": nothing else
    empty = decode_nutch(tl.LINK_NODES, b"")
    assert empty == tl.LinkNodes([], count_written=False)
    assert encode_nutch(tl.LINK_NODES, empty) == b""


def test_route_and_loop_set():
    route = tl.Route("http://a/", "http://b/", True)
    assert encode_nutch(tl.ROUTE, route) == b"\x09http://a/\x09http://b/\x01"
    loops = tl.LoopSet(["http://b/", "http://a/"])
    data = encode_nutch(tl.LOOP_SET, loops)
    assert data == b"\x00\x00\x00\x02\x09http://b/\x09http://a/"
    assert decode_nutch(tl.LOOP_SET, data) == loops


@pytest.mark.parametrize("name", tl.TOOL_CLASSES)
def test_registered_writables_round_trip_plain_data(name):
    value = {
        tl.SELECTOR_ENTRY: tl.SelectorEntry("http://a/", DATUM, 1),
        tl.LINK_NODE: tl.LinkNode("http://a/", NODE_V),
        tl.LINK_NODES: tl.LinkNodes([tl.LinkNode("http://a/", NODE_V)]),
        tl.ROUTE: tl.Route("http://a/", "http://b/", False),
        tl.LOOP_SET: tl.LoopSet(["http://a/"]),
    }[name]
    data = encode_nutch(name, value)
    writable = find_writable(name)()
    assert writable.write(writable.read(data)) == data
    assert encode_nutch(name, from_plain(to_plain(decode_nutch(name, data)))) == data
