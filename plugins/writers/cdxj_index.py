"""CDXJ as a side writer of the WARC writer: one sorted ``<file>.cdxj`` beside each WARC file.

As warcio's ``indexer.py`` and pywb's cdxj-indexer sit beside their WARC writers, this module
only watches what is written: the writer hands it the facts of each record it encodes
(:meth:`CdxjIndex.facts`, on the caller's thread) and, once the record is in the file, its
offset and length (:meth:`CdxjIndex.add`, called after the record and its deferred digests
were serialised); :meth:`CdxjIndex.write` sorts and writes the lines when the file is done.
The line format is :mod:`crawlmill.formats.warc.cdxj` (pywb's).
"""

from __future__ import annotations

import posixpath
from typing import Any, BinaryIO

from crawlmill.core.record import Record
from crawlmill.formats.warc import cdxj as cdxj_format
from crawlmill.formats.warc.builder import get_header
from crawlmill.formats.warc.digest import DeferredSha1, sha1_base32

__all__ = ["CdxjIndex", "record_facts"]


def record_facts(record: Record, headers: list[tuple[bytes, Any]]) -> dict[str, Any]:
    """What a CDXJ line needs of a record written with ``headers`` (payload digest possibly
    still deferred)."""
    ctype = get_header(headers, b"Content-Type")
    http_ctype = record.http_header("Content-Type") if record.http_head else None
    return {
        "type": (get_header(headers, b"WARC-Type") or b"").decode("ascii", "replace"),
        "url": (get_header(headers, b"WARC-Target-URI") or b"").decode("utf-8", "surrogateescape"),
        "date": (get_header(headers, b"WARC-Date") or b"").decode("utf-8", "surrogateescape"),
        "content_type": ctype.decode("utf-8", "replace") if ctype is not None else None,
        "http_content_type": http_ctype.decode("latin-1") if http_ctype is not None else None,
        "status": record.http_status,
        "payload_digest": get_header(headers, b"WARC-Payload-Digest"),
        "payload": record.payload,
    }


class CdxjIndex:
    """The CDXJ lines of one WARC file (``path``: its name below the output root)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.lines: list[str] = []

    def add(self, facts: dict[str, Any], offset: int, length: int) -> None:
        """Add the line of a record written at ``offset`` (``length`` bytes), if pywb indexes
        records of its type and content type."""
        rtype = facts["type"]
        if not cdxj_format.indexes(rtype, facts["content_type"]):
            return
        digest = facts["payload_digest"]
        if isinstance(digest, DeferredSha1):
            digest = digest.resolve()
        if digest is not None:
            digest_text: str | None = digest.decode("ascii", "replace")
        elif rtype in ("warcinfo", "revisit"):
            digest_text = None
        else:
            digest_text = sha1_base32(facts["payload"])
        status = facts["status"] if rtype in ("response", "revisit") else None
        line = cdxj_format.cdxj_line(
            url=facts["url"],
            warc_date=facts["date"],
            mime=cdxj_format.cdxj_mime(rtype, facts["content_type"], facts["http_content_type"]),
            status=status,
            digest=digest_text,
            length=length,
            offset=offset,
            filename=posixpath.basename(self.path),
        )
        self.lines.append(line)

    def write(self, stream: BinaryIO) -> None:
        """Write the sorted lines to ``stream`` and close it."""
        try:
            stream.write("".join(sorted(self.lines)).encode("utf-8", "surrogateescape"))
        finally:
            stream.close()
