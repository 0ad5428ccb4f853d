"""The schema of ``Record.extras["warc"]``: what the WARC reader keeps beyond the neutral fields.

The WARC reader (``plugins/readers/warc.py``) fills it for every record and the WARC writer reads
it to copy an unmodified record byte for byte; another format's writer may ignore it. For an
unmodified record ``raw_header + (http_head or b"") + payload + separator`` are the record's
decompressed bytes. The codec is :mod:`crawlmill.formats.warc.framer`.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["WarcExtras"]


class WarcExtras(TypedDict, total=False):
    """``Record.extras["warc"]`` (the first seven keys are always there)."""

    #: the version of the version line (``"1.0"``, ``"0.18"``).
    version: str
    #: every header as a ``(name, value)`` byte pair, in file order.
    headers: list[tuple[bytes, bytes]]
    #: the exact bytes from the version line through the blank line that ends the header.
    raw_header: bytes
    #: the bytes found after the block (``b"\r\n\r\n"`` normally).
    separator: bytes
    #: ClueWeb09's convention: ``Content-Length`` counts the separator (``payload`` then
    #: excludes the trailing blank lines, which are the ``separator``).
    cl_includes_separator: bool
    #: the header's line ending (``b"\r\n"``, or ``b"\n"`` in LF-only files).
    line_ending: bytes
    #: true when ``Record.source`` gives the compressed member(s) holding exactly this record
    #: (``Provenance.space`` is ``member``); false for a position in a plain file or in the
    #: decompressed stream.
    member: bool
    #: when repaired: an unknown ``WARC-Type`` (the record reads as ``resource``).
    type: str
    #: when repaired: ``WARC-Target-URI`` with the ``<>`` that were stripped (wget 1.14).
    target_uri_raw: bytes
    #: the file ended inside the block: the record is partial (and ``modified``).
    truncated: bool
