"""Nutch 1.x Writables of the web graph and host db, and the parse and link classes standing
alone as values (the file formats page lists each): ``LinkDatum``, ``Node`` (ScoringWebGraph's
``scoring/webgraph``), ``HostDatum`` (``hostdb``), and ``Inlink``, ``Outlink``, ``Metadata``,
``ParseStatus`` as whole values.

* ``LinkDatum``: Text url, Text anchor (empty for none), float score, long timestamp, byte
  linkType (1 inlink, 2 outlink);
* ``Node``: int numInlinks, int numOutlinks, float inlinkScore, ``Metadata``;
* ``HostDatum``: float score, long lastCheck (ms), Text homepageUrl, longs dnsFailures,
  connectionFailures, unfetched, fetched, notModified, redirTemp, redirPerm, gone, then a
  Hadoop ``MapWritable`` (Java writes an empty one when it has none);
* ``Inlink``: Text fromUrl, Text anchor, and from Nutch 1.21 ``boolean hasMD`` (+
  ``MapWritable``): ``layout`` ``text-md`` or ``text`` (the one that consumes the value);
* ``Outlink``: Text toUrl, Text anchor, ``boolean hasMD`` (+ ``MapWritable``) (Nutch 1.8 on);
* ``Metadata``, ``ParseStatus``: the layouts of :mod:`.nutch_io` (1.x Metadata; ParseStatus
  versions 1 and 2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .nutch_io import (
    Cursor,
    Metadata,
    Out,
    read_metadata,
    read_parse_status,
    write_metadata,
    write_parse_status,
)
from .nutch_parse import Outlink
from .writables import Codec, MapValue, MapWritable, WritableError

__all__ = [
    "HOST_DATUM",
    "INLINK",
    "LINK_DATUM",
    "METADATA",
    "NODE",
    "OUTLINK",
    "PARSE_STATUS",
    "HostDatum",
    "InlinkValue",
    "LinkDatum",
    "Node",
    "read_graph_value",
    "write_graph_value",
]

N = "org.apache.nutch."
LINK_DATUM = N + "scoring.webgraph.LinkDatum"
NODE = N + "scoring.webgraph.Node"
HOST_DATUM = N + "hostdb.HostDatum"
INLINK = N + "crawl.Inlink"
OUTLINK = N + "parse.Outlink"
METADATA = N + "metadata.Metadata"
PARSE_STATUS = N + "parse.ParseStatus"
GRAPH_CLASSES = (LINK_DATUM, NODE, HOST_DATUM, INLINK, OUTLINK, METADATA, PARSE_STATUS)

Resolve = Callable[[str], Codec | None]


@dataclass
class LinkDatum:
    """``org.apache.nutch.scoring.webgraph.LinkDatum``."""

    url: str = ""
    anchor: str = ""
    score: float = 0.0
    timestamp: int = 0
    link_type: int = 2


@dataclass
class Node:
    """``org.apache.nutch.scoring.webgraph.Node``."""

    num_inlinks: int = 0
    num_outlinks: int = 0
    inlink_score: float = 0.0
    metadata: Metadata = field(default_factory=Metadata)


@dataclass
class HostDatum:
    """``org.apache.nutch.hostdb.HostDatum`` (``metadata``: the ``MapWritable``)."""

    score: float = 0.0
    last_check: int = 0
    homepage_url: str = ""
    dns_failures: int = 0
    connection_failures: int = 0
    unfetched: int = 0
    fetched: int = 0
    not_modified: int = 0
    redir_temp: int = 0
    redir_perm: int = 0
    gone: int = 0
    metadata: MapValue = field(default_factory=MapValue)


_HOST_COUNTS = ("dns_failures", "connection_failures", "unfetched", "fetched", "not_modified",
                "redir_temp", "redir_perm", "gone")  # fmt: skip


@dataclass
class InlinkValue:
    """An ``org.apache.nutch.crawl.Inlink`` standing alone: ``layout`` ``text-md`` (1.21 on)
    or ``text`` (before)."""

    from_url: str
    anchor: str = ""
    metadata: MapValue | None = None
    layout: str = "text-md"


def _md(cur: Cursor, resolve: Resolve, what: str) -> MapValue | None:
    if not cur.boolean(f"{what} hasMD"):
        return None
    value, cur.pos = MapWritable(resolve).read(cur.buf, cur.pos)
    return value


def _read(name: str, cur: Cursor, resolve: Resolve, layout: str = "text-md") -> object:
    if name == LINK_DATUM:
        return LinkDatum(cur.text("LinkDatum url"), cur.text("LinkDatum anchor"),
                         cur.float("LinkDatum score"), cur.long("LinkDatum timestamp"),
                         cur.byte("LinkDatum linkType"))  # fmt: skip
    if name == NODE:
        return Node(cur.int("Node numInlinks"), cur.int("Node numOutlinks"),
                    cur.float("Node inlinkScore"), read_metadata(cur, "Node metadata"))  # fmt: skip
    if name == HOST_DATUM:
        h = HostDatum(cur.float("HostDatum score"), cur.long("HostDatum lastCheck"),
                      cur.text("HostDatum homepageUrl"))  # fmt: skip
        for attr in _HOST_COUNTS:
            setattr(h, attr, cur.long(f"HostDatum {attr}"))
        h.metadata, cur.pos = MapWritable(resolve).read(cur.buf, cur.pos)
        return h
    if name == INLINK:
        v = InlinkValue(cur.text("Inlink fromUrl"), cur.text("Inlink anchor"), layout=layout)
        if layout == "text-md":
            v.metadata = _md(cur, resolve, "Inlink")
        return v
    if name == OUTLINK:
        return Outlink(cur.text("Outlink toUrl"), cur.text("Outlink anchor"),
                       _md(cur, resolve, "Outlink"))  # fmt: skip
    if name == METADATA:
        return read_metadata(cur, "Metadata")
    if name == PARSE_STATUS:
        return read_parse_status(cur)
    raise WritableError(f"{name}: not a web graph or standalone Nutch class")


def read_graph_value(name: str, buf: bytes, pos: int, resolve: Resolve,
                     whole: bool = False) -> tuple[object, int]:  # fmt: skip
    """``(value, end)`` of the ``name`` value at ``buf[pos:]``; an ``Inlink`` as a
    ``whole`` value is read in the layout that consumes it exactly (1.21's first)."""
    layouts = ("text-md", "text") if name == INLINK and whole else ("text-md",)
    last: WritableError | None = None
    for layout in layouts:
        cur = Cursor(buf, pos, name)
        try:
            value = _read(name, cur, resolve, layout)
        except WritableError as exc:
            last = last or exc
            continue
        if not whole or cur.pos == len(buf):
            return value, cur.pos
        last = last or WritableError(
            f"{name}: read {cur.pos - pos} bytes, should read {len(buf) - pos}"
        )
    assert last is not None
    raise last


def write_graph_value(name: str, out: Out, value: object, resolve: Resolve) -> None:
    """The bytes of ``value`` of class ``name``."""
    if name == LINK_DATUM and isinstance(value, LinkDatum):
        out.text(value.url).text(value.anchor or "").float(value.score)
        out.long(value.timestamp).byte(value.link_type)
    elif name == NODE and isinstance(value, Node):
        out.int(value.num_inlinks).int(value.num_outlinks).float(value.inlink_score)
        write_metadata(out, value.metadata)
    elif name == HOST_DATUM and isinstance(value, HostDatum):
        out.float(value.score).long(value.last_check).text(value.homepage_url)
        for attr in _HOST_COUNTS:
            out.long(getattr(value, attr))
        out.raw(MapWritable(resolve).write(value.metadata))
    elif name == INLINK and isinstance(value, InlinkValue):
        out.text(value.from_url).text(value.anchor)
        if value.layout == "text-md":
            _write_md(out, value.metadata, resolve)
    elif name == OUTLINK and isinstance(value, Outlink):
        out.text(value.to_url).text(value.anchor)
        _write_md(out, value.metadata, resolve)
    elif name == METADATA and isinstance(value, Metadata):
        write_metadata(out, value)
    elif name == PARSE_STATUS:
        write_parse_status(out, value)  # type: ignore[arg-type]
    else:
        raise WritableError(f"{name}: cannot write a {type(value).__name__}")


def _write_md(out: Out, md: MapValue | None, resolve: Resolve) -> None:
    out.boolean(md is not None)
    if md is not None:
        out.raw(MapWritable(resolve).write(md))
