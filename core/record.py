"""The format-neutral record of one capture, and the one place its fields are documented.

Every reader yields :class:`Record` objects and every writer consumes them. A record holds
everything any supported format can say about one capture, so that converting A -> B -> A keeps
all that B can hold. Fields:

===============  ==========================================================================
field            meaning (and which formats fill it)
===============  ==========================================================================
``kind``         :class:`RecordKind`: response, request, metadata, resource, revisit,
                 warcinfo, conversion, continuation. ARC records read as ``response`` (HTTP)
                 or ``resource`` (no HTTP head); the ARC ``filedesc`` is ``metadata``
                 (``application/arc``, payload: the whole ARC header record).
                 Required: a record has no default kind.
``url``          target URL as text. Raw non-UTF-8 bytes survive as surrogate escapes:
                 ``record.url_bytes`` gives the original bytes back. Spaces are kept.
``doc_id``       collection document id: ``WARC-TREC-ID`` (ClueWeb09), NTCIR ``NW...`` id,
                 Nutch/Common Crawl key. ``None`` when the collection has none.
``date``         capture time, timezone-aware UTC, or ``None`` when absent or invalid.
``date_raw``     the capture date exactly as the source wrote it (``2009-03-65T08:43:19-0800``
                 in ClueWeb09 is kept here although ``date`` is ``None``).
``http_head``    the HTTP status line and header lines as stored, *including* the blank line
                 that ends them (``b"HTTP/1.1 200 OK\\r\\n...\\r\\n\\r\\n"``), or ``None`` when
                 the capture has no HTTP message. Parsed views: ``http_status_line``,
                 ``http_status``, ``http_headers``.
``payload``      the bytes after ``http_head`` as stored (not de-chunked, not decompressed);
                 for records without an HTTP message, the whole block (warcinfo fields,
                 metadata, resource bytes). ``http_head + payload`` is the WARC block.
``content_type`` media type of the payload (``text/html``), from the HTTP head, the ARC
                 header or the WARC ``Content-Type`` of non-HTTP records.
``charset``      declared or detected charset of the payload, when known.
``ip``           server IP address, when the source recorded a real one.
``text``         extracted plain text, where the format carries it (NTCIR cooked, CC
                 textData, Nutch parse_text, WARC ``conversion`` records).
``outlinks``     :class:`Outlink` list, where the format carries them (Nutch parse_data,
                 NTCIR linklist, CC metadata JSON).
``extras``       format-specific fields that have no neutral home, keyed by format name.
                 Values are plain data (str, bytes, int, float, bool, None, lists, dicts).
                 Each format documents its schema beside its codec, as a ``TypedDict``:
                 ``extras["warc"]`` in :mod:`crawlmill.formats.warc.extras`,
                 ``extras["arc"]`` in :mod:`crawlmill.formats.arc.extras`, ClueWeb09 in
                 :mod:`crawlmill.formats.clueweb09.extras`. ``extras["neutral"]``
                 (:class:`NeutralExtras`, below) is not a format: what a reader mapped at
                 parse time for writers of other formats. ``extras["nutch"]`` in
                 :mod:`crawlmill.formats.hadoop.nutch_extras`. Every key a reader emits
                 (also ``ntcir``, ``cc_metadata``, ``nutch-legacy``) and its schema:
                 :mod:`crawlmill.core.extras` (``EXTRAS``, ``RecordExtras``).
``source``       :class:`Provenance`: path, byte offset and length, format, and the offset
                 space (:class:`OffsetSpace`: plain file, compressed member, decompressed
                 stream).
``modified``     ``False`` while every field is exactly what the reader produced.
                 :meth:`Record.evolve` sets it when any field (other than ``source``) changes;
                 writers then write the changed fields and recompute digests and lengths
                 instead of copying the original headers. A reader may also set it (a record
                 it had to repair, such as one cut by the end of the file).
``changed``      the names of the fields :meth:`Record.evolve` changed since the reader made
                 the record (empty for a reader's record), so a writer knows what to write
                 anew: a changed ``content_type`` of a record with an HTTP head is written
                 into that head, an unchanged one is not forced onto a head a filter replaced.
===============  ==========================================================================

A record owns its bytes: it stays valid after the reader moves on. It is immutable (a frozen
dataclass): a change is a new record from :meth:`Record.evolve`, so nothing bypasses
``modified``. Changing ``date`` without ``date_raw`` drops the raw spelling of the old date.

Every writer either writes each neutral field where its format can hold it or refuses it with a
warning (the WARC writer: ``docs`` of :mod:`crawlmill.plugins.writers.warc`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, TypedDict

from crawlmill.formats.codecs.member_source import HeldMembers
from crawlmill.formats.http.head import parse_http_head

__all__ = [
    "NeutralExtras",
    "OffsetSpace",
    "Outlink",
    "Provenance",
    "Record",
    "RecordKind",
    "parse_http_head",
]

#: Fields whose change makes a record ``modified``: every field but its provenance (a writer
#: copies an unmodified record's stored bytes, which would hold the old value of any of them).
CONTENT_FIELDS = frozenset(
    {
        "kind",
        "url",
        "doc_id",
        "date",
        "date_raw",
        "http_head",
        "payload",
        "content_type",
        "charset",
        "ip",
        "text",
        "outlinks",
        "extras",
    }
)


class _Factory:
    """The default of a field with a default factory, in a quick ``__init__``'s signature."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _quick_init(cls: type) -> type:
    """Give frozen slotted dataclass ``cls`` an ``__init__`` with the same signature and effect
    as the generated one, but faster (readers build a record per input record): the generated
    one calls ``object.__setattr__`` (found through a global, then the attribute looked up by
    name) for every field; this one calls each slot's own setter, bound once. Defaults and
    default factories come from ``dataclasses.fields(cls)``."""
    if hasattr(cls, "__post_init__"):  # the quick one would not call it
        raise TypeError(f"{cls.__name__} has __post_init__: _quick_init does not call it")
    params, body = [], []
    env: dict[str, Any] = {"_MISSING": _FACTORY}
    for f in dataclasses.fields(cls):
        # the slot's own setter, bound once: no attribute lookup per field, and it bypasses
        # the frozen __setattr__ as object.__setattr__ would
        env[f"_s_{f.name}"] = cls.__dict__[f.name].__set__
        if f.default is not dataclasses.MISSING:
            env[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
            value = f.name
        elif f.default_factory is not dataclasses.MISSING:
            env[f"_f_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            value = f"_f_{f.name}() if {f.name} is _MISSING else {f.name}"
        else:
            params.append(f.name)
            value = f.name
        body.append(f"        _s_{f.name}(self, {value})")
    names = ", ".join(env)
    src = (
        f"def _make({names}):\n    def __init__(self, {', '.join(params)}):\n"
        + "\n".join(body)
        + "\n    return __init__\n"
    )
    scope: dict[str, Any] = {}
    exec(src, scope)  # noqa: S102 - the source is built from the class's own field names
    init = scope["_make"](**env)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init
    return cls


class RecordKind(StrEnum):
    """What a record is, named after the WARC record types."""

    RESPONSE = "response"
    REQUEST = "request"
    METADATA = "metadata"
    RESOURCE = "resource"
    REVISIT = "revisit"
    WARCINFO = "warcinfo"
    CONVERSION = "conversion"
    CONTINUATION = "continuation"


class SourceKey(TypedDict):
    """The key a record had in a keyed source (a SequenceFile entry): its class, its
    serialized bytes, and the class of the entry's value (a WARC writer writes them as
    ``WARC-Source-Key-Class``/``-Key``/``-Value-Class``, :mod:`crawlmill.formats.warc.source_key`)."""

    key_class: str
    key: bytes
    value_class: str


class NeutralExtras(TypedDict, total=False):
    """``Record.extras["neutral"]``: what a reader mapped at parse time for the writers of
    other formats (a writer knows no other format)."""

    #: the source record was cut by the end of its file (a WARC writer writes
    #: ``WARC-Truncated: length``).
    truncated: bool
    #: the source's name for a record that describes its file as a whole (the ARC
    #: filedesc's ``"filedesc"``): not a document, so layouts number no doc id with it; a
    #: WARC writer writes it concurrent to its warcinfo.
    describes_file: str
    #: the record's key in a keyed source (a SequenceFile entry's key, URL or not), so a
    #: writer of another format keeps it and a SequenceFile writer writes it back.
    source_key: SourceKey


@dataclass(slots=True, frozen=True)
class Outlink:
    """One link found in a page: target URL and anchor text (may be empty)."""

    url: str
    anchor: str = ""


class OffsetSpace(StrEnum):
    """Which bytes a :class:`Provenance`'s ``offset`` and ``length`` count."""

    #: a plain (uncompressed) file: the record's bytes in the file.
    FILE = "file"
    #: a compressed file: the compressed gzip member(s) (or zstd/LZ4 frames) holding exactly
    #: this record, as CDX indexes expect.
    MEMBER = "member"
    #: a compressed file whose record shares its member with others (whole-file gzip): the
    #: record's position in the decompressed stream.
    STREAM = "stream"


@_quick_init
@dataclass(slots=True, frozen=True)
class Provenance:
    """Where a record came from: file path, byte offset and length of the record in it, the
    format, and ``space``: which bytes ``offset``/``length`` count (:class:`OffsetSpace`: the
    plain file, the compressed member(s) of exactly this record, or the decompressed stream).
    Every built-in reader sets ``space``; ``None`` where unknown, as ``offset``/``length``.
    ``held``: where a writer can copy those compressed bytes from memory, when the reader
    still has them."""

    path: str
    offset: int | None = None
    length: int | None = None
    format: str | None = None
    space: OffsetSpace | None = None
    #: the reader's lender of the compressed bytes of this record's member(s) while it still
    #: holds them (:class:`~crawlmill.formats.codecs.member_source.HeldMembers`): a writer copying
    #: the member takes it from memory instead of reading the file again. Not compared, not
    #: shown; it pickles as ``None`` (the buffer stays in the reading process).
    held: HeldMembers | None = field(default=None, compare=False, repr=False)


@_quick_init
@dataclass(slots=True, frozen=True)
class Record:
    """One capture in a format-neutral shape; see the module docstring for every field.
    ``kind`` is required (no default: a guessed ``response`` would be wrong for non-HTTP data)."""

    kind: RecordKind
    url: str | None = None
    doc_id: str | None = None
    date: datetime | None = None
    date_raw: str | None = None
    http_head: bytes | None = None
    payload: bytes = b""
    content_type: str | None = None
    charset: str | None = None
    ip: str | None = None
    text: str | None = None
    outlinks: list[Outlink] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)
    source: Provenance | None = None
    modified: bool = False
    changed: frozenset[str] = frozenset()

    # -- derived views -------------------------------------------------------------------

    @property
    def block(self) -> bytes:
        """The WARC block: ``http_head + payload``."""
        return (self.http_head or b"") + self.payload

    @property
    def url_bytes(self) -> bytes | None:
        """The URL as the original bytes (undoing the surrogate escapes of raw bytes)."""
        if self.url is None:
            return None
        return self.url.encode("utf-8", "surrogateescape")

    @property
    def http_status_line(self) -> bytes | None:
        """The HTTP status (or request) line without its line ending, or ``None``."""
        if not self.http_head:
            return None
        return parse_http_head(self.http_head)[0]

    @property
    def http_headers(self) -> list[tuple[bytes, bytes]]:
        """HTTP header lines as ordered ``(name, value)`` byte pairs (empty without a head)."""
        if not self.http_head:
            return []
        return parse_http_head(self.http_head)[1]

    @property
    def http_status(self) -> int | None:
        """The numeric HTTP status code of a response, or ``None``."""
        line = self.http_status_line
        if not line or not line.startswith(b"HTTP/"):
            return None
        parts = line.split(None, 2)
        if len(parts) < 2 or not parts[1][:3].isdigit():
            return None
        return int(parts[1][:3])

    def http_header(self, name: str) -> bytes | None:
        """The value of the first HTTP header called ``name`` (case-insensitive), or ``None``."""
        want = name.lower().encode("ascii")
        for key, value in self.http_headers:
            if key.lower() == want:
                return value
        return None

    # -- changing a record -----------------------------------------------------------------

    def evolve(self, **changes: Any) -> Record:
        """A copy with ``changes`` applied, marked ``modified`` when any field but ``source``
        changed. A new ``date`` without a ``date_raw`` drops the old raw spelling (it would
        still name the old date)."""
        if "date" in changes and "date_raw" not in changes and changes["date"] != self.date:
            changes["date_raw"] = None
        modified = bool(changes.pop("modified", False)) or self.modified  # never unset
        changes.pop("changed", None)  # kept by evolve alone
        changed = self.changed | {
            name
            for name, value in changes.items()
            if name in CONTENT_FIELDS and getattr(self, name) != value
        }
        return dataclasses.replace(
            self, modified=modified or bool(changed), changed=frozenset(changed), **changes
        )
