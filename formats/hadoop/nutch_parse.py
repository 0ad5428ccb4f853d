"""Nutch's parse and link Writables: ``ParseText``, ``ParseData`` with its ``Outlink``s and
``ParseStatus``, ``Inlinks``/``Inlink`` (spec sections 6.5-6.7).

Two format changes came without a version bump: the Outlink's ``boolean hasMd`` (+ Hadoop
``MapWritable``) of Nutch 1.8 (ParseData stays version 5) and the same flag on Inlink in
1.21. A value is read in each layout in turn and the one that consumes it exactly is kept
(:func:`decode_parse_data`, :func:`decode_inlinks`); the layout is part of the value, so it
writes back the same way. Nutch 0.8 wrote ``UTF8`` strings (ParseData version 4, ParseText
version 1 with a gzip string, Inlinks of ``UTF8`` pairs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .nutch_io import (
    Cursor,
    Metadata,
    Out,
    ParseStatus,
    read_metadata,
    read_parse_status,
    write_metadata,
    write_parse_status,
)
from .writables import Codec, MapValue, MapWritable, WritableError

__all__ = [
    "INLINKS",
    "PARSE_DATA",
    "PARSE_TEXT",
    "Inlink",
    "Inlinks",
    "Outlink",
    "ParseData",
    "ParseText",
    "decode_inlinks",
    "decode_parse_data",
    "read_parse_text",
    "write_inlinks",
    "write_parse_data",
    "write_parse_text",
]

PARSE_TEXT = "org.apache.nutch.parse.ParseText"
PARSE_DATA = "org.apache.nutch.parse.ParseData"
INLINKS = "org.apache.nutch.crawl.Inlinks"
INLINK = "org.apache.nutch.crawl.Inlink"

Resolve = Callable[[str], Codec | None]


@dataclass
class ParseText:
    """``org.apache.nutch.parse.ParseText``: version 2 ``Text``, version 1 a gzip string."""

    text: str = ""
    version: int = 2


def read_parse_text(cur: Cursor) -> ParseText:
    """A ParseText at the cursor."""
    version = cur.byte("ParseText version")
    if version == 2:
        return ParseText(cur.text("ParseText text"), 2)
    if version == 1:
        return ParseText(cur.compressed_string("ParseText text") or "", 1)
    raise cur.fail("ParseText version", f"{version} is not 1 or 2")


def write_parse_text(out: Out, value: ParseText) -> None:
    """The bytes of ``value``."""
    out.byte(value.version)
    out.text(value.text) if value.version == 2 else out.compressed_string(value.text)


@dataclass
class Outlink:
    """``org.apache.nutch.parse.Outlink``: target URL, anchor (may be empty), metadata
    (``None``: the ``hasMd`` flag false, or a layout without it)."""

    to_url: str
    anchor: str = ""
    metadata: MapValue | None = None


@dataclass
class ParseData:
    """``org.apache.nutch.parse.ParseData`` (version 5; 4 is Nutch 0.8's ``UTF8`` layout):
    status, title, outlinks, content and parse metadata. ``outlink_md``: the outlinks carry
    Nutch 1.8's metadata flag."""

    status: ParseStatus = field(default_factory=ParseStatus)
    title: str = ""
    outlinks: list[Outlink] = field(default_factory=list)
    content_meta: Metadata = field(default_factory=Metadata)
    parse_meta: Metadata = field(default_factory=Metadata)
    version: int = 5
    outlink_md: bool = True


def _read_parse_data(cur: Cursor, resolve: Resolve, outlink_md: bool) -> ParseData:
    version = cur.byte("ParseData version")
    if version not in (4, 5):
        raise cur.fail("ParseData version", f"{version} is not 4 or 5 (Nutch 0.8 to 1.x)")
    legacy = version == 4
    string = cur.utf8 if legacy else cur.text
    d = ParseData(version=version, outlink_md=outlink_md and not legacy)
    d.status = read_parse_status(cur)
    d.title = string("ParseData title")
    n = cur.int("ParseData outlink count")
    if n < 0 or n * 2 > len(cur.buf) - cur.pos:
        raise cur.fail("ParseData outlink count", f"{n} with {len(cur.buf) - cur.pos} bytes left")
    for i in range(n):
        link = Outlink(string(f"Outlink {i} toUrl"), string(f"Outlink {i} anchor"))
        if d.outlink_md and cur.boolean(f"Outlink {i} hasMd"):
            link.metadata, cur.pos = MapWritable(resolve).read(cur.buf, cur.pos)
        d.outlinks.append(link)
    d.content_meta = read_metadata(cur, "ParseData contentMeta", legacy)
    d.parse_meta = read_metadata(cur, "ParseData parseMeta", legacy)
    return d


def decode_parse_data(data: bytes, resolve: Resolve, outlink_md: bool | None = None) -> ParseData:
    """The ParseData serialized in ``data`` (all of it): with Nutch 1.8's outlink flag, or
    without it when that does not consume the value exactly (``outlink_md`` forces one)."""
    layouts = [outlink_md] if outlink_md is not None else [True, False]
    last: WritableError | None = None
    for md in layouts:
        cur = Cursor(data, 0, PARSE_DATA)
        try:
            value = _read_parse_data(cur, resolve, md)
        except WritableError as exc:
            last = last or exc
            continue
        if cur.pos == len(data):
            return value
        last = last or WritableError(f"{PARSE_DATA}: read {cur.pos} bytes, should read {len(data)}")
    assert last is not None
    raise last


def write_parse_data(out: Out, d: ParseData, resolve: Resolve) -> None:
    """The bytes of ``d`` in its layout."""
    legacy = d.version == 4
    string = out.utf8 if legacy else out.text
    out.byte(d.version)
    write_parse_status(out, d.status)
    string(d.title)
    out.int(len(d.outlinks))
    for link in d.outlinks:
        string(link.to_url)
        string(link.anchor)
        if d.outlink_md and not legacy:
            out.boolean(link.metadata is not None)
            if link.metadata is not None:
                out.raw(MapWritable(resolve).write(link.metadata))
    write_metadata(out, Metadata(d.content_meta.entries, legacy))
    write_metadata(out, Metadata(d.parse_meta.entries, legacy))


@dataclass
class Inlink:
    """``org.apache.nutch.crawl.Inlink``: source URL, anchor, metadata (Nutch 1.21)."""

    from_url: str
    anchor: str = ""
    metadata: MapValue | None = None


@dataclass
class Inlinks:
    """``org.apache.nutch.crawl.Inlinks``: ``layout`` ``text`` (0.9-1.20), ``text-md``
    (1.21's metadata flag) or ``utf8`` (0.8)."""

    inlinks: list[Inlink] = field(default_factory=list)
    layout: str = "text"


LAYOUTS = ("text", "text-md", "utf8")


def _read_inlinks(cur: Cursor, resolve: Resolve, layout: str) -> Inlinks:
    n = cur.int("Inlinks count")
    if n < 0 or n * 2 > len(cur.buf) - cur.pos:
        raise cur.fail("Inlinks count", f"{n} with {len(cur.buf) - cur.pos} bytes left")
    string = cur.utf8 if layout == "utf8" else cur.text
    value = Inlinks(layout=layout)
    for i in range(n):
        link = Inlink(string(f"Inlink {i} fromUrl"), string(f"Inlink {i} anchor"))
        if layout == "text-md" and cur.boolean(f"Inlink {i} hasMd"):
            link.metadata, cur.pos = MapWritable(resolve).read(cur.buf, cur.pos)
        value.inlinks.append(link)
    return value


def decode_inlinks(data: bytes, resolve: Resolve, layouts: tuple[str, ...] = LAYOUTS) -> Inlinks:
    """The Inlinks serialized in ``data`` (all of it), in the first of ``layouts`` that
    consumes it exactly."""
    last: WritableError | None = None
    for layout in layouts:
        cur = Cursor(data, 0, INLINKS)
        try:
            value = _read_inlinks(cur, resolve, layout)
        except WritableError as exc:
            last = last or exc
            continue
        if cur.pos == len(data):
            return value
        last = last or WritableError(f"{INLINKS}: read {cur.pos} bytes, should read {len(data)}")
    assert last is not None
    raise last


def write_inlinks(out: Out, value: Inlinks, resolve: Resolve) -> None:
    """The bytes of ``value`` in its layout."""
    out.int(len(value.inlinks))
    string = out.utf8 if value.layout == "utf8" else out.text
    for link in value.inlinks:
        string(link.from_url)
        string(link.anchor)
        if value.layout == "text-md":
            out.boolean(link.metadata is not None)
            if link.metadata is not None:
                out.raw(MapWritable(resolve).write(link.metadata))
