"""Nutch's ``org.apache.nutch.protocol.Content`` (spec section 6.2).

Nutch 1.x (version -1): ``int -1, Text url, Text base, int n + n content bytes, Text
contentType, Metadata``. Nutch 0.8/0.9 wrote a Hadoop ``CompressedWritable``: a positive ``int
n`` and n bytes of zlib, inflating to ``byte version`` and then, for version 0 or 1 (0.8),
``UTF8`` strings and the 0.8 Metadata, for version 2 (0.9) the 1.x fields. The first int's
sign tells the two apart.

The content bytes are what Nutch stored: the body after transfer and content decoding, and
cut at ``http.content.limit`` (``http.content.truncated`` in the metadata says so).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

from .nutch_io import Cursor, Metadata, Out, read_metadata, write_metadata
from .writables import WritableError

__all__ = ["CONTENT", "Content", "read_content", "write_content"]

CONTENT = "org.apache.nutch.protocol.Content"

#: CompressedWritable's deflate level: ``Deflater.BEST_SPEED`` (the 2006 samples re-encode to
#: the same bytes with it).
ZLIB_LEVEL = 1


@dataclass
class Content:
    """A Nutch Content: ``version`` -1 (1.x), or the inner version of a compressed 0.8/0.9
    value (0, 1: ``UTF8`` strings; 2: ``Text``)."""

    url: str = ""
    base: str = ""
    content: bytes = b""
    content_type: str = ""
    metadata: Metadata = field(default_factory=Metadata)
    version: int = -1

    @property
    def legacy(self) -> bool:
        """Whether this is a compressed 0.8/0.9 value."""
        return self.version >= 0


def _fields(cur: Cursor, legacy: bool) -> tuple[str, str, bytes, str, Metadata]:
    string = cur.utf8 if legacy else cur.text
    url = string("url")
    base = string("base")
    content = cur.sized("content")
    ctype = string("contentType")
    return url, base, content, ctype, read_metadata(cur, "metadata", legacy)


def read_content(cur: Cursor) -> Content:
    """A Content at the cursor."""
    first = cur.int("version or compressed length")
    if first == -1:
        return Content(*_fields(cur, False), version=-1)
    if first < 0:
        raise cur.fail("version", f"{first} is not -1 (the only 1.x version)")
    body = cur.zlib_body(first, "compressed body")
    inner = Cursor(body, 0, cur.cls + " (compressed)")
    version = inner.byte("inner version")
    if version not in (0, 1, 2):
        raise inner.fail("inner version", f"{version} is not 0, 1 or 2")
    value = Content(*_fields(inner, version < 2), version=version)
    if inner.pos != len(body):
        raise inner.fail("end", f"{len(body) - inner.pos} bytes left in the compressed body")
    return value


def write_content(out: Out, value: Content) -> None:
    """The bytes of ``value`` in its version's layout."""
    if value.version == -1:
        out.int(-1)
        target = out
    elif value.version in (0, 1, 2):
        target = Out().byte(value.version)
    else:
        raise WritableError(f"Content version {value.version} is not -1, 0, 1 or 2")
    legacy = value.legacy and value.version < 2
    string = target.utf8 if legacy else target.text
    string(value.url)
    string(value.base)
    target.sized(value.content)
    string(value.content_type)
    write_metadata(target, Metadata(value.metadata.entries, legacy))
    if target is not out:
        out.sized(zlib.compress(target.bytes(), ZLIB_LEVEL))
