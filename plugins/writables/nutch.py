"""Nutch 1.x's Writables (``Content``, ``CrawlDatum``, ``ParseText``, ``ParseData``,
``Inlinks``, ``ProtocolStatus``, Nutch's ``MapWritable``), registered through
``crawlmill_register_writables`` as a third-party package would register them, so the
``sequencefile`` reader checks and decodes Nutch files and a ``MapWritable`` holding a
``ProtocolStatus`` (``_pst_`` in CrawlDatum metadata) reads.

Each wraps :mod:`crawlmill.formats.hadoop.nutch`. ``read`` returns plain data
(:func:`~crawlmill.formats.hadoop.nutch.to_plain`: a dict per object, its type under ``"@"``),
which is what a Record's extras hold; ``write`` takes that or the codec's objects.
"""

from __future__ import annotations

from typing import Any, ClassVar

from crawlmill.core import Writable, hookimpl
from crawlmill.formats.hadoop import nutch as n
from crawlmill.formats.hadoop import nutch_graph as g
from crawlmill.formats.hadoop import nutch_index as ix
from crawlmill.formats.hadoop import nutch_legacy as nl
from crawlmill.formats.hadoop import nutch_tools as tl
from crawlmill.formats.hadoop import writables as w

from .lookup import register_writable, registered_codec

__all__ = ["NUTCH_WRITABLES", "NutchWritable", "resolve_registered"]


def resolve_registered(java_name: str) -> w.Codec | None:
    """The codec of a class inside a Nutch value's map: the built-in Hadoop and Nutch ones,
    else a registered Writable's (a plugin's class in a map)."""
    codec = w.builtin(java_name, resolve_registered) or n.nutch_codec(java_name, resolve_registered)
    return codec if codec is not None else registered_codec(java_name)


class NutchWritable(Writable):
    """A Nutch Writable (its class name in ``name``)."""

    java_names: ClassVar[tuple[str, ...]] = ()

    def read(self, data: bytes) -> Any:
        """The value serialized in ``data`` (all of it), as plain data. ``Content``,
        ``ParseText`` and ``ParseData`` whose bytes are no 1.x value but exactly one of the
        Nutch 0.5-0.7 class of that name are read as that (``"@": "nutch-legacy.<class>"``)."""
        kind = _SHARED.get(self.name)
        if kind is not None:
            return nl.decode_shared(kind, data, legacy_first=False, resolve=resolve_registered)
        return n.to_plain(n.decode_nutch(self.name, data, resolve_registered))

    def read_at(self, data: bytes, pos: int) -> tuple[Any, int]:
        """``(value, end)`` of the value at ``data[pos:]`` (inside a map: the codec's
        objects)."""
        codec = n.nutch_codec(self.name, resolve_registered)
        assert codec is not None
        return codec.read(data, pos)

    def write(self, value: Any) -> bytes:
        """The bytes of ``value`` (plain data or the codec's objects)."""
        kind = _SHARED.get(self.name)
        if kind is not None:
            return nl.encode_shared(kind, value, resolve_registered)
        return n.encode_nutch(self.name, n.from_plain(value), resolve_registered)


#: the 1.x classes whose names Nutch 0.5-0.7 used for its own layout -> its class kind.
_SHARED = {n.ALIASES[kind]: kind for kind in nl.SHARED_WITH_1X}


_DOCS = {
    n.CONTENT: "Nutch Content: URL, base, content bytes, type, metadata (1.x; 0.8/0.9 zlib).",
    n.CRAWL_DATUM: "Nutch CrawlDatum: status, fetch time, interval, score, signature, metadata.",
    n.PARSE_TEXT: "Nutch ParseText: the extracted text (version 2 Text; 1 gzip).",
    n.PARSE_DATA: "Nutch ParseData: parse status, title, outlinks, content and parse metadata.",
    n.INLINKS: "Nutch Inlinks: the links to a URL (source URL and anchor each).",
    n.PROTOCOL_STATUS: "Nutch ProtocolStatus: protocol code, last modified, arguments.",
    n.NUTCH_MAP: "Nutch's own MapWritable of Nutch 0.8-1.10 (CrawlDatum versions 4-6).",
    g.LINK_DATUM: "Nutch web graph LinkDatum: URL, anchor, score, timestamp, link type.",
    g.NODE: "Nutch web graph Node: inlink and outlink counts, inlink score, Metadata.",
    g.HOST_DATUM: "Nutch HostDatum: score, last check, homepage, fetch counts, MapWritable.",
    g.INLINK: "Nutch Inlink alone: source URL, anchor (1.21 on: metadata flag + map).",
    g.OUTLINK: "Nutch Outlink alone: target URL, anchor, metadata flag + map (1.8 on).",
    g.METADATA: "Nutch Metadata alone: multi-valued Text names and values.",
    g.PARSE_STATUS: "Nutch ParseStatus alone: version, major and minor codes, arguments.",
    ix.NUTCH_FIELD: "Nutch indexer NutchField: weight and typed values.",
    ix.NUTCH_DOCUMENT: "Nutch indexer NutchDocument: version 2, named fields, weight, Metadata.",
    ix.NUTCH_INDEX_ACTION: "Nutch indexer NutchIndexAction: action (add/delete/update), document.",
    tl.SELECTOR_ENTRY: "Nutch Generator's SelectorEntry: URL, CrawlDatum, segment number.",
    tl.LINK_NODE: "Nutch LinkDumper's LinkNode: URL (writeUTF) and its web graph Node.",
    tl.LINK_NODES: "Nutch LinkDumper's LinkNodes: the LinkNodes of a URL.",
    tl.ROUTE: "Nutch Loops' Route (to 1.11): outlink URL, URL looked for, found.",
    tl.LOOP_SET: "Nutch Loops' LoopSet (to 1.11): the URLs of a loop.",
}


def _make(java_name: str) -> type[NutchWritable]:
    codec = n.nutch_codec(java_name)
    assert codec is not None
    attrs = {
        "__doc__": _DOCS[java_name],
        "name": java_name,
        "java_names": codec.java_names[1:],
        "__module__": __name__,
    }
    short = "Nutch" + java_name.rsplit(".", 1)[1].replace("$", "")
    return register_writable(type(short, (NutchWritable,), attrs))  # type: ignore[return-value]


#: every Nutch Writable class.
NUTCH_WRITABLES: tuple[type[NutchWritable], ...] = tuple(_make(c) for c in n.NUTCH_CLASSES)


@hookimpl
def crawlmill_register_writables(register: Any) -> None:
    """Register the Nutch Writables."""
    for cls in NUTCH_WRITABLES:
        register(cls)
