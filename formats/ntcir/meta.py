"""NTCIR WEB ``.meta`` files: read under both plausible syntaxes, written under either.

The NW100G-01 README (section 8) names the fields of a page's ``.meta`` file: ``NW:DOCID``
(the doc id of ``doclist``), ``NW:DATE`` (the HTTP ``Last-Modified`` value; may be empty),
``NW:CTYPE`` (the page's content type), ``NW:URL`` and ``NW:HTTPH`` (the HTTP header block the
server returned). Its copy lost the wrapper's tag names and the field syntax (a tag stripper ate
everything in angle brackets), so no public file shows either; ../shared/specs/collections.md
section 3.4 reconstructs the two plausible shapes, and :func:`parse_meta` accepts both, mixed:

* **tagged**: ``<NW:DOCID>NW000000001</NW:DOCID>`` on one line, or ``<NW:HTTPH>`` then lines up
  to ``</NW:HTTPH>`` (a block: the bytes between, verbatim);
* **lines**: ``NW:DOCID NW000000001`` or ``NW:DOCID: NW000000001``; ``NW:HTTPH`` then the
  header lines up to the next ``NW:`` field, the wrapper's closing tag, or the end.

Any other ``<...>`` line around the fields is the wrapper (kept as found). Field values are
bytes exactly as stored (never decoded or re-encoded; CR LF kept inside blocks); unknown
``NW:`` fields are kept, in order; lines that are neither are kept as ``other`` lines so
nothing read is lost. A file that ends inside a tagged field or inside the wrapper it opened
(no ``</NW:HTTPH>``, no ``</META>``) is cut short: :attr:`MetaFile.unclosed` says what and
where (the fields read are kept). :func:`write_meta` writes fields under either syntax with configurable
wrapper tags (default ``<META>`` / ``</META>``, a reconstruction: docs/formats/ntcir.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "DATE",
    "DOCID",
    "CTYPE",
    "HTTPH",
    "URL",
    "MetaFile",
    "ended_head",
    "MetaSyntax",
    "parse_meta",
    "write_meta",
]

DOCID = "NW:DOCID"
DATE = "NW:DATE"
CTYPE = "NW:CTYPE"
URL = "NW:URL"
HTTPH = "NW:HTTPH"
#: fields whose value is a block of lines (the others are one line).
BLOCK_FIELDS = frozenset({HTTPH})

MetaSyntax = Literal["tagged", "lines"]

_NAME = rb"NW:[A-Za-z0-9_.-]+"
_TAG_LINE = re.compile(rb"<(" + _NAME + rb")>(.*?)</\1>\s*$", re.S)
_TAG_OPEN = re.compile(rb"<(" + _NAME + rb")>(.*)$", re.S)
_FIELD_LINE = re.compile(rb"(" + _NAME + rb"):?(?:[ \t]+(.*?))?[ \t]*$", re.S)
_WRAPPER = re.compile(rb"\s*</?[A-Za-z][^<>]*>\s*$")


@dataclass
class MetaFile:
    """A parsed ``.meta`` file: ``fields`` in file order (a name may repeat), the syntax
    most of them used, the wrapper lines found, and ``other`` lines neither field nor
    wrapper (kept, never interpreted)."""

    fields: list[tuple[str, bytes]] = field(default_factory=list)
    syntax: MetaSyntax = "tagged"
    wrapper: tuple[bytes, bytes] | None = None
    other: list[bytes] = field(default_factory=list)
    #: ``(what, offset)`` when the file ends inside something it opened: a tagged field
    #: (``<NW:HTTPH>`` without ``</NW:HTTPH>``) or the wrapper (``<META>`` without its close);
    #: ``offset`` is where that opened. ``None``: everything opened was closed.
    unclosed: tuple[str, int] | None = None

    def get(self, name: str) -> bytes | None:
        """The first value of field ``name`` (``NW:DOCID``...), or ``None``."""
        for key, value in self.fields:
            if key == name:
                return value
        return None

    @property
    def doc_id(self) -> str | None:
        """``NW:DOCID`` as text (ASCII by definition), or ``None``."""
        value = self.get(DOCID)
        return value.decode("ascii", "replace").strip() if value else None


def _strip_eol(line: bytes) -> bytes:
    return line.rstrip(b"\r\n")


def parse_meta(data: bytes) -> MetaFile:
    """Parse a ``.meta`` file under either syntax (see the module docstring)."""
    meta = MetaFile()
    lines = data.splitlines(keepends=True)
    tagged = plain = 0
    opening: bytes | None = None
    closing: bytes | None = None
    opening_at = 0
    starts = [0]
    for raw in lines:
        starts.append(starts[-1] + len(raw))
    i = 0
    while i < len(lines):
        line = _strip_eol(lines[i])
        m = _TAG_LINE.match(line)
        if m:  # <NW:X>value</NW:X>
            meta.fields.append((m.group(1).decode("ascii"), m.group(2)))
            tagged += 1
            i += 1
            continue
        m = _TAG_OPEN.match(line)
        if m:  # <NW:X> then lines up to </NW:X>
            open_at = i
            name = m.group(1)
            close = b"</" + name + b">"
            first = lines[i][m.start(2) :] if m.group(2) else b""
            body = [first] if first.strip(b"\r\n") else []
            i += 1
            while i < len(lines) and close not in lines[i]:
                body.append(lines[i])
                i += 1
            if i < len(lines):
                before = lines[i][: lines[i].index(close)]
                if before:
                    body.append(before)
                i += 1
            elif meta.unclosed is None:  # the file ends inside the field: cut short
                meta.unclosed = (f"<{name.decode('ascii')}>", starts[open_at])
            meta.fields.append((name.decode("ascii"), b"".join(body)))
            tagged += 1
            continue
        m = _FIELD_LINE.match(line)
        if m:  # NW:X value
            name = m.group(1).decode("ascii")
            value = m.group(2) or b""
            i += 1
            if name in BLOCK_FIELDS:
                body = [lines[i - 1][m.start(2) :]] if m.group(2) else []
                while i < len(lines):
                    nxt = _strip_eol(lines[i])
                    if _FIELD_LINE.match(nxt) or _TAG_OPEN.match(nxt) or _closes(nxt, opening):
                        break
                    body.append(lines[i])
                    i += 1
                value = b"".join(body)
            meta.fields.append((name, value))
            plain += 1
            continue
        if _WRAPPER.match(line):
            if opening is None and not meta.fields:
                opening = line
                opening_at = starts[i]
            else:
                closing = line
        elif line.strip():
            meta.other.append(lines[i])
        i += 1
    meta.syntax = "lines" if plain > tagged else "tagged"
    opened = opening is not None and not opening.strip().startswith(b"</")
    if opened and closing is None and meta.unclosed is None:
        assert opening is not None
        meta.unclosed = (opening.strip().decode("ascii", "replace"), opening_at)
    if opening is not None or closing is not None:
        meta.wrapper = (opening or b"", closing or b"")
    return meta


def ended_head(head: bytes) -> bytes:
    """``head`` (an ``NW:HTTPH`` block) ending in the blank line that ends an HTTP head (added
    in the block's own line-end style when it is not there)."""
    if head.endswith((b"\r\n\r\n", b"\n\n")):
        return head
    eol = b"\r\n" if b"\r\n" in head else b"\n"
    return head + (eol if head.endswith(b"\n") else eol + eol)


def _closes(line: bytes, opening: bytes | None) -> bool:
    """Whether ``line`` is the wrapper's closing tag (``</...>`` when no opening was seen)."""
    stripped = line.strip()
    if not (stripped.startswith(b"</") and stripped.endswith(b">")):
        return False
    if opening is None:
        return True
    name = opening.strip()[1:-1].split()[0] if opening.strip()[1:-1] else b""
    return stripped[2:-1].strip() == name


def write_meta(
    fields: list[tuple[str, bytes]],
    syntax: MetaSyntax = "tagged",
    wrapper: tuple[bytes, bytes] | None = (b"<META>", b"</META>"),
    newline: bytes = b"\n",
) -> bytes:
    """A ``.meta`` file of ``fields`` (name, value bytes) under ``syntax``. A block field's
    value (``NW:HTTPH``) is written verbatim on the lines after its name, ended by a newline
    if it has none; a one-line value must not hold a line break."""
    out: list[bytes] = []
    if wrapper is not None and wrapper[0]:
        out.append(wrapper[0] + newline)
    for name, value in fields:
        key = name.encode("ascii")
        if name in BLOCK_FIELDS:
            block = value if not value or value.endswith(b"\n") else value + newline
            if syntax == "tagged":
                out.append(b"<" + key + b">" + newline + block + b"</" + key + b">" + newline)
            else:
                out.append(key + newline + block)
            continue
        if b"\n" in value or b"\r" in value:
            raise ValueError(f"{name}: a one-line .meta field holds a line break")
        if syntax == "tagged":
            out.append(b"<" + key + b">" + value + b"</" + key + b">" + newline)
        else:
            out.append(key + (b" " + value if value else b"") + newline)
    if wrapper is not None and wrapper[1]:
        out.append(wrapper[1] + newline)
    return b"".join(out)
