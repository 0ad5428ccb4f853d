"""The schema of ``Record.extras["arc"]``: what the ARC reader keeps beyond the neutral fields.

The ARC reader (``plugins/readers/arc.py``) fills it for every record; the ARC writer reads it
to copy an unmodified record (header line and block) and a WARC writer may record the header
line. The codec is :mod:`crawlmill.formats.arc.header` and :mod:`crawlmill.formats.arc.framing`.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["ArcExtras"]


class ArcExtras(TypedDict, total=False):
    """``Record.extras["arc"]`` (the first three keys are always there)."""

    #: the header line as stored (without its ``\n``).
    header_line: bytes
    #: the ARC version of the header line: ``"1"`` or ``"2"``.
    version: str
    #: every header field by its name in the version block (``"Archive-date"``, ...).
    fields: dict[str, str]
    #: the record is the file's ``filedesc://`` record.
    filedesc: bool
    #: the filedesc's origin code (``"InternetArchive"``), from its version block.
    origin: str
    #: the filedesc's minor version, from its version block.
    version_minor: str
    #: when repaired: the bytes after the block that were not one ``\n``.
    trailer: bytes
    #: the file ended before the declared length: the record is partial.
    truncated: bool
