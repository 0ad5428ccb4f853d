"""Nutch 1.x's indexer Writables: ``NutchField``, ``NutchDocument`` (version 2) and
``NutchIndexAction`` (``indexer/``).

* ``NutchField``: float weight, int count, then per value its Java class name (Text) and the
  value: ``java.lang.String`` Text, ``Boolean`` a boolean, ``Integer`` an int, ``Float`` a
  float, ``Long`` a long, ``java.util.Date`` a long (ms); a value of any other class has no
  bytes after its name (Java writes and reads none), kept as ``None``;
* ``NutchDocument``: byte version (2), VInt field count, per field its name (Text) and
  ``NutchField``, float weight, ``Metadata`` (documentMeta); fields in file order (Java's
  HashMap order: compare documents built anew as sets);
* ``NutchIndexAction``: byte action (0 add, 1 delete, 2 update), ``NutchDocument``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .nutch_io import Cursor, Metadata, Out, read_metadata, write_metadata
from .vint import VIntError, decode_vint, encode_vlong
from .writables import WritableError

__all__ = [
    "INDEX_CLASSES",
    "NUTCH_DOCUMENT",
    "NUTCH_FIELD",
    "NUTCH_INDEX_ACTION",
    "NutchDocument",
    "NutchField",
    "NutchIndexAction",
    "read_index_value",
    "write_index_value",
]

NUTCH_FIELD = "org.apache.nutch.indexer.NutchField"
NUTCH_DOCUMENT = "org.apache.nutch.indexer.NutchDocument"
NUTCH_INDEX_ACTION = "org.apache.nutch.indexer.NutchIndexAction"
INDEX_CLASSES = (NUTCH_FIELD, NUTCH_DOCUMENT, NUTCH_INDEX_ACTION)
DOCUMENT_VERSION = 2


@dataclass
class NutchField:
    """``org.apache.nutch.indexer.NutchField``: ``values`` as ``[java class, value]``."""

    weight: float = 1.0
    values: list[list[Any]] = field(default_factory=list)


@dataclass
class NutchDocument:
    """``org.apache.nutch.indexer.NutchDocument``: ``fields`` as ``[name, NutchField]``."""

    fields: list[list[Any]] = field(default_factory=list)
    weight: float = 1.0
    document_meta: Metadata = field(default_factory=Metadata)
    version: int = DOCUMENT_VERSION


@dataclass
class NutchIndexAction:
    """``org.apache.nutch.indexer.NutchIndexAction``: ``action`` 0 add, 1 delete, 2 update."""

    action: int = 0
    doc: NutchDocument = field(default_factory=NutchDocument)


_READ = {"java.lang.String": "text", "java.lang.Boolean": "boolean", "java.lang.Integer": "int",
         "java.lang.Float": "float", "java.lang.Long": "long", "java.util.Date": "long"}  # fmt: skip


def _read_field(cur: Cursor, what: str) -> NutchField:
    f = NutchField(cur.float(f"{what} weight"))
    n = cur.int(f"{what} value count")
    if n < 0 or n > len(cur.buf) - cur.pos:
        raise cur.fail(f"{what} value count", f"{n} with {len(cur.buf) - cur.pos} bytes left")
    for i in range(n):
        cls = cur.text(f"{what} value {i} class")
        kind = _READ.get(cls)
        f.values.append([cls, getattr(cur, kind)(f"{what} value {i}") if kind else None])
    return f


def _write_field(out: Out, f: NutchField) -> None:
    out.float(f.weight).int(len(f.values))
    for cls, value in f.values:
        out.text(cls)
        kind = _READ.get(cls)
        if kind is not None:
            getattr(out, kind)(value)


def _read_document(cur: Cursor) -> NutchDocument:
    version = cur.byte("NutchDocument version")
    if version != DOCUMENT_VERSION:
        raise cur.fail("NutchDocument version", f"{version} is not {DOCUMENT_VERSION}")
    try:
        n, cur.pos = decode_vint(cur.buf, cur.pos)
    except VIntError as exc:
        raise cur.fail("NutchDocument field count", str(exc)) from None
    if n < 0 or n > len(cur.buf) - cur.pos:
        raise cur.fail("NutchDocument field count", f"{n} with {len(cur.buf) - cur.pos} bytes left")
    doc = NutchDocument(version=version)
    for i in range(n):
        name = cur.text(f"NutchDocument field {i} name")
        doc.fields.append([name, _read_field(cur, f"NutchField {name!r}")])
    doc.weight = cur.float("NutchDocument weight")
    doc.document_meta = read_metadata(cur, "NutchDocument documentMeta")
    return doc


def _write_document(out: Out, doc: NutchDocument) -> None:
    out.byte(doc.version).raw(encode_vlong(len(doc.fields)))
    for name, f in doc.fields:
        out.text(name)
        _write_field(out, f)
    out.float(doc.weight)
    write_metadata(out, doc.document_meta)


def read_index_value(name: str, buf: Any, pos: int) -> tuple[object, int]:
    """``(value, end)`` of the ``name`` value at ``buf[pos:]``."""
    cur = Cursor(buf, pos, name)
    if name == NUTCH_FIELD:
        value: object = _read_field(cur, "NutchField")
    elif name == NUTCH_DOCUMENT:
        value = _read_document(cur)
    elif name == NUTCH_INDEX_ACTION:
        value = NutchIndexAction(cur.byte("NutchIndexAction action"), _read_document(cur))
    else:
        raise WritableError(f"{name}: not a Nutch indexer class")
    return value, cur.pos


def write_index_value(name: str, out: Out, value: object) -> None:
    """The bytes of ``value`` of class ``name``."""
    if name == NUTCH_FIELD and isinstance(value, NutchField):
        _write_field(out, value)
    elif name == NUTCH_DOCUMENT and isinstance(value, NutchDocument):
        _write_document(out, value)
    elif name == NUTCH_INDEX_ACTION and isinstance(value, NutchIndexAction):
        out.byte(value.action)
        _write_document(out, value.doc)
    else:
        raise WritableError(f"{name}: cannot write a {type(value).__name__}")
