"""The byte codecs of Nutch 1.x's Writable classes, by Java class name (spec sections 5.2,
6): ``Content`` (1.x and the 0.8/0.9 compressed forms), ``CrawlDatum`` (versions 1-7, both
metadata map layouts), Nutch's own ``MapWritable``, ``ParseText``, ``ParseData`` with its
``Outlink``s and ``ParseStatus``, ``Inlinks``, ``ProtocolStatus``.

The field layouts live in :mod:`.nutch_io`, :mod:`.nutch_content`, :mod:`.nutch_crawldatum`
and :mod:`.nutch_parse`; this module makes a :class:`~.writables.Codec` of each class
(``read(buf, pos) -> (value, end)``, ``write(value) -> bytes``), resolves the classes a map
holds (Hadoop's basic ones and these), and decodes whole values (:func:`decode_nutch`), for
the classes whose layout changed without a version (ParseData, Inlinks) in the layout that
consumes the value exactly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from . import writables as w
from .nutch_content import CONTENT, Content, read_content, write_content
from .nutch_crawldatum import (
    CRAWL_DATUM,
    NUTCH_MAP,
    CrawlDatum,
    NutchMapValue,
    read_crawl_datum,
    read_nutch_map,
    write_crawl_datum,
    write_nutch_map,
)
from .nutch_graph import GRAPH_CLASSES, INLINK, read_graph_value, write_graph_value
from .nutch_index import INDEX_CLASSES, read_index_value, write_index_value
from .nutch_io import (
    PROTOCOL_STATUS,
    Cursor,
    Out,
    read_protocol_status,
    write_protocol_status,
)
from .nutch_parse import (
    INLINKS,
    PARSE_DATA,
    PARSE_TEXT,
    decode_inlinks,
    decode_parse_data,
    read_parse_text,
    write_inlinks,
    write_parse_data,
    write_parse_text,
)
from .nutch_tools import TOOL_CLASSES, read_tool_value, write_tool_value

__all__ = [
    "CONTENT",
    "CRAWL_DATUM",
    "INLINKS",
    "NUTCH_CLASSES",
    "NUTCH_MAP",
    "PARSE_DATA",
    "PARSE_TEXT",
    "PROTOCOL_STATUS",
    "NutchCodec",
    "decode_nutch",
    "encode_nutch",
    "from_plain",
    "to_plain",
    "nutch_codec",
    "resolve",
]

Resolve = Callable[[str], w.Codec | None]

#: the Nutch 0.6-0.8 header aliases of these classes (``WritableName.addName``).
ALIASES = {"Content": CONTENT, "ParseText": PARSE_TEXT, "ParseData": PARSE_DATA}


class NutchCodec(w.Codec):
    """The codec of one Nutch class; ``resolve`` finds the codecs of the classes its maps
    hold (by default :func:`resolve`: Hadoop's basic classes and Nutch's)."""

    def __init__(self, name: str, resolve_fn: Resolve | None = None) -> None:
        self.java_names = (name,) + tuple(a for a, full in ALIASES.items() if full == name)
        self.name = name
        self.resolve = resolve_fn or resolve

    def read(self, buf: Any, pos: int) -> tuple[Any, int]:
        cur = Cursor(buf, pos, self.name)
        name = self.name
        if name == CONTENT:
            value: Any = read_content(cur)
        elif name == CRAWL_DATUM:
            value = read_crawl_datum(cur, self.resolve)
        elif name == PARSE_TEXT:
            value = read_parse_text(cur)
        elif name == PROTOCOL_STATUS:
            value = read_protocol_status(cur)
        elif name == NUTCH_MAP:
            value = read_nutch_map(cur, self.resolve, legacy=False)
        elif name in GRAPH_CLASSES:
            return read_graph_value(name, buf, pos, self.resolve)
        elif name in INDEX_CLASSES:
            return read_index_value(name, buf, pos)
        elif name in TOOL_CLASSES:
            return read_tool_value(name, buf, pos, self.resolve)
        elif name in (PARSE_DATA, INLINKS):
            # no version tells the layouts apart: a value inside another one (a map entry)
            # cannot be tried to its end, so only a whole value is decoded
            raise w.WritableError(f"{name}: only read as a whole value (decode_nutch)")
        else:
            raise w.WritableError(f"{name}: not a Nutch class")
        return value, cur.pos

    def write(self, value: Any) -> bytes:
        return encode_nutch(self.name, value, self.resolve)


NUTCH_CLASSES = (CONTENT, CRAWL_DATUM, PARSE_TEXT, PARSE_DATA, INLINKS, PROTOCOL_STATUS, NUTCH_MAP,
                 *GRAPH_CLASSES, *INDEX_CLASSES, *TOOL_CLASSES)  # fmt: skip


def nutch_codec(name: str, resolve_fn: Resolve | None = None) -> NutchCodec | None:
    """The codec of the Nutch class ``name`` (aliases understood), or ``None``."""
    name = ALIASES.get(name, name)
    return NutchCodec(name, resolve_fn) if name in NUTCH_CLASSES else None


def resolve(name: str) -> w.Codec | None:
    """The codec of a class inside a map: Hadoop's basic classes, then Nutch's."""
    return w.builtin(name, resolve) or nutch_codec(name)


def decode_nutch(name: str, data: bytes, resolve_fn: Resolve | None = None,
                 legacy: bool | None = None) -> Any:  # fmt: skip
    """The value of Nutch class ``name`` serialized in ``data``, which must be consumed
    exactly (:class:`~.writables.WritableError` otherwise, naming the field). ``legacy``
    (the file is Nutch 0.8's, SEQ3 or older) decides the layouts tried first."""
    name = ALIASES.get(name, name)
    res = resolve_fn or resolve
    if name == PARSE_DATA:
        return decode_parse_data(data, res)
    if name == INLINKS:
        layouts = ("utf8", "text", "text-md") if legacy else ("text", "text-md", "utf8")
        return decode_inlinks(data, res, layouts)
    if name == INLINK:  # the layout that consumes it (1.21's flag or none)
        return read_graph_value(name, data, 0, res, whole=True)[0]
    codec = nutch_codec(name, res)
    if codec is None:
        raise w.WritableError(f"{name}: not a Nutch class")
    value, end = codec.read(data, 0)
    if end != len(data):
        raise w.WritableError(f"{name}: read {end} bytes, should read {len(data)}")
    return value


def encode_nutch(name: str, value: Any, resolve_fn: Resolve | None = None) -> bytes:
    """The bytes of ``value`` of Nutch class ``name``."""
    name = ALIASES.get(name, name)
    res = resolve_fn or resolve
    out = Out()
    if name == CONTENT and isinstance(value, Content):
        write_content(out, value)
    elif name == CRAWL_DATUM and isinstance(value, CrawlDatum):
        write_crawl_datum(out, value, res)
    elif name == PARSE_TEXT:
        write_parse_text(out, value)
    elif name == PARSE_DATA:
        write_parse_data(out, value, res)
    elif name == INLINKS:
        write_inlinks(out, value, res)
    elif name == PROTOCOL_STATUS:
        write_protocol_status(out, value)
    elif name == NUTCH_MAP and isinstance(value, NutchMapValue):
        write_nutch_map(out, value, res)
    elif name in GRAPH_CLASSES:
        write_graph_value(name, out, value, res)
    elif name in INDEX_CLASSES:
        write_index_value(name, out, value)
    elif name in TOOL_CLASSES:
        write_tool_value(name, out, value, res)
    else:
        raise w.WritableError(f"{name}: cannot write a {type(value).__name__}")
    return out.bytes()


def _types() -> dict[str, type]:
    from .nutch_content import Content as _Content
    from .nutch_graph import HostDatum, InlinkValue, LinkDatum, Node
    from .nutch_index import NutchDocument, NutchField, NutchIndexAction
    from .nutch_io import Metadata, ParseStatus, ProtocolStatus
    from .nutch_parse import Inlink, Inlinks, Outlink, ParseData, ParseText
    from .nutch_tools import LinkNode, LinkNodes, LoopSet, Route, SelectorEntry

    classes = (_Content, CrawlDatum, NutchMapValue, w.MapValue, Metadata, ParseStatus,
               ProtocolStatus, Inlink, Inlinks, Outlink, ParseData, ParseText, LinkDatum, Node,
               HostDatum, InlinkValue, NutchField, NutchDocument, NutchIndexAction,
               SelectorEntry, LinkNode, LinkNodes, Route, LoopSet)  # fmt: skip
    return {c.__name__: c for c in classes}


def to_plain(value: Any) -> Any:
    """A decoded value as plain data (what a Record's extras hold): each object a dict of
    its fields with its type under ``"@"``, tuples as lists; :func:`from_plain` inverts it."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {"@": type(value).__name__}
        for f in dataclasses.fields(value):
            out[f.name] = to_plain(getattr(value, f.name))
        return out
    if isinstance(value, list | tuple):
        return [to_plain(v) for v in value]
    return value


def from_plain(value: Any) -> Any:
    """The value :func:`to_plain` made plain data of (keys that are no field of the type,
    such as a reader's readable additions, are ignored)."""
    if isinstance(value, dict) and "@" in value:
        cls = _types()[value["@"]]
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: from_plain(v) for k, v in value.items() if k in names})
    if isinstance(value, list):
        return [from_plain(v) for v in value]
    return value
