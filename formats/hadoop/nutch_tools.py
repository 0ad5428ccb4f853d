"""Writables of Nutch's tools, nested classes that SequenceFiles name ``Outer$Inner``:

* ``org.apache.nutch.crawl.Generator$SelectorEntry``: Text url, ``CrawlDatum``,
  ``IntWritable`` segnum;
* ``org.apache.nutch.scoring.webgraph.LinkDumper$LinkNode``: ``writeUTF`` url (2-byte length
  + modified UTF-8), ``Node``; ``LinkDumper$LinkNodes``: int count and the LinkNodes; Java
  writes *no bytes at all* for an empty LinkNodes (and then cannot read it back): that value
  is kept as ``count_written=False``;
* ``org.apache.nutch.scoring.webgraph.Loops$Route`` (Nutch up to 1.11): Text outlinkUrl,
  Text lookingFor, boolean found; ``Loops$LoopSet``: int count, Text URLs (a Java HashSet:
  file order kept).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .nutch_crawldatum import CrawlDatum, read_crawl_datum, write_crawl_datum
from .nutch_graph import NODE, Node, read_graph_value, write_graph_value
from .nutch_io import Cursor, Out
from .writables import Codec, WritableError

__all__ = [
    "LINK_NODE",
    "LINK_NODES",
    "LOOP_SET",
    "ROUTE",
    "SELECTOR_ENTRY",
    "TOOL_CLASSES",
    "LinkNode",
    "LinkNodes",
    "LoopSet",
    "Route",
    "SelectorEntry",
    "read_tool_value",
    "write_tool_value",
]

SELECTOR_ENTRY = "org.apache.nutch.crawl.Generator$SelectorEntry"
LINK_NODE = "org.apache.nutch.scoring.webgraph.LinkDumper$LinkNode"
LINK_NODES = "org.apache.nutch.scoring.webgraph.LinkDumper$LinkNodes"
ROUTE = "org.apache.nutch.scoring.webgraph.Loops$Route"
LOOP_SET = "org.apache.nutch.scoring.webgraph.Loops$LoopSet"
TOOL_CLASSES = (SELECTOR_ENTRY, LINK_NODE, LINK_NODES, ROUTE, LOOP_SET)

Resolve = Callable[[str], Codec | None]


@dataclass
class SelectorEntry:
    """``Generator$SelectorEntry``."""

    url: str = ""
    datum: CrawlDatum = field(default_factory=CrawlDatum)
    segnum: int = 0


@dataclass
class LinkNode:
    """``LinkDumper$LinkNode``."""

    url: str = ""
    node: Node = field(default_factory=Node)


@dataclass
class LinkNodes:
    """``LinkDumper$LinkNodes`` (``count_written``: false for Java's zero-byte empty value)."""

    links: list[LinkNode] = field(default_factory=list)
    count_written: bool = True


@dataclass
class Route:
    """``Loops$Route``."""

    outlink_url: str = ""
    looking_for: str = ""
    found: bool = False


@dataclass
class LoopSet:
    """``Loops$LoopSet``."""

    urls: list[str] = field(default_factory=list)


def _node(cur: Cursor, resolve: Resolve) -> Node:
    value, cur.pos = read_graph_value(NODE, cur.buf, cur.pos, resolve)
    assert isinstance(value, Node)
    return value


def _link_node(cur: Cursor, resolve: Resolve, i: int = 0) -> LinkNode:
    return LinkNode(cur.utf8(f"LinkNode {i} url"), _node(cur, resolve))


def read_tool_value(name: str, buf: bytes, pos: int, resolve: Resolve) -> tuple[object, int]:
    """``(value, end)`` of the ``name`` value at ``buf[pos:]``."""
    cur = Cursor(buf, pos, name)
    if name == SELECTOR_ENTRY:
        value: object = SelectorEntry(cur.text("SelectorEntry url"),
                                      read_crawl_datum(cur, resolve), cur.int("SelectorEntry segnum"))  # fmt: skip
    elif name == LINK_NODE:
        value = _link_node(cur, resolve)
    elif name == LINK_NODES:
        if cur.pos == len(buf):
            return LinkNodes([], count_written=False), cur.pos
        n = cur.int("LinkNodes count")
        if n < 0 or n * 14 > len(buf) - cur.pos:
            raise cur.fail("LinkNodes count", f"{n} with {len(buf) - cur.pos} bytes left")
        value = LinkNodes([_link_node(cur, resolve, i) for i in range(n)])
    elif name == ROUTE:
        value = Route(cur.text("Route outlinkUrl"), cur.text("Route lookingFor"),
                      cur.boolean("Route found"))  # fmt: skip
    elif name == LOOP_SET:
        n = cur.int("LoopSet count")
        if n < 0 or n > len(buf) - cur.pos:
            raise cur.fail("LoopSet count", f"{n} with {len(buf) - cur.pos} bytes left")
        value = LoopSet([cur.text(f"LoopSet url {i}") for i in range(n)])
    else:
        raise WritableError(f"{name}: not a Nutch tool class")
    return value, cur.pos


def write_tool_value(name: str, out: Out, value: object, resolve: Resolve) -> None:
    """The bytes of ``value`` of class ``name``."""
    if name == SELECTOR_ENTRY and isinstance(value, SelectorEntry):
        out.text(value.url)
        write_crawl_datum(out, value.datum, resolve)
        out.int(value.segnum)
    elif name == LINK_NODE and isinstance(value, LinkNode):
        out.utf8(value.url)
        write_graph_value(NODE, out, value.node, resolve)
    elif name == LINK_NODES and isinstance(value, LinkNodes):
        if value.links or value.count_written:
            out.int(len(value.links))
        for link in value.links:
            write_tool_value(LINK_NODE, out, link, resolve)
    elif name == ROUTE and isinstance(value, Route):
        out.text(value.outlink_url).text(value.looking_for).boolean(value.found)
    elif name == LOOP_SET and isinstance(value, LoopSet):
        out.int(len(value.urls))
        for url in value.urls:
            out.text(url)
    else:
        raise WritableError(f"{name}: cannot write a {type(value).__name__}")
