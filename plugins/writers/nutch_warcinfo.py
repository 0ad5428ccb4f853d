"""What the Nutch writers keep of a ``warcinfo`` record: its WARC header and block, for the
SequenceFile metadata of their parts (:func:`~crawlmill.formats.hadoop.nutch_write.warcinfo_metadata`).
A segment or database has no record for a file's description; its parts' header metadata
(``Text`` pairs, SequenceFile version 6) holds it without loss."""

from __future__ import annotations

from crawlmill.core import Record, RecordKind

__all__ = ["WARCINFO_COUNT", "is_warcinfo", "warcinfo_parts"]

#: the writer counter of the warcinfo records kept.
WARCINFO_COUNT = "warcinfo kept in SequenceFile metadata"


def is_warcinfo(record: Record) -> bool:
    """Whether ``record`` is a ``warcinfo``."""
    return record.kind == RecordKind.WARCINFO


def warcinfo_parts(record: Record) -> tuple[bytes, bytes]:
    """``(WARC header, block)`` of a warcinfo: the header as the input wrote it (unchanged
    records of the WARC reader), else one made of its date and content type; the block is
    the payload."""
    warc = record.extras.get("warc") or {}
    raw = warc.get("raw_header")
    if isinstance(raw, bytes | bytearray) and raw and not record.modified:
        return bytes(raw), record.payload
    lines = [b"WARC/1.1", b"WARC-Type: warcinfo"]
    if record.date_raw or record.date:
        date = record.date_raw or record.date.strftime("%Y-%m-%dT%H:%M:%SZ")  # type: ignore[union-attr]
        lines.append(b"WARC-Date: " + str(date).encode("utf-8", "surrogateescape"))
    if record.content_type:
        lines.append(b"Content-Type: " + record.content_type.encode("utf-8", "surrogateescape"))
    return b"\r\n".join(lines) + b"\r\n\r\n", record.payload
