"""A document's id as the simhash-dedup filter's ``doc_id`` option names it; the pyserini writer names documents alike (both import it from here)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: nothing of core is imported at run time
    from crawlmill.core.record import Record

__all__ = ["bare_record_id", "document_id"]


def document_id(record: Record, source: str) -> str | None:
    """The id of ``record`` by the ``doc_id`` option (``None``: it has none; the reduce then
    names it ``<file>#<seq>``). ``auto``: the ``WARC-TREC-ID`` (``Record.doc_id``), else the
    record id's UUID; ``record-id``: the ``WARC-Record-ID`` with ``<urn:uuid:`` and ``>``
    stripped (the Chuweb21D doc id); ``url``; ``trec``; any other value names a WARC header."""
    if source in ("auto", "trec") and record.doc_id:
        return record.doc_id
    if source == "url":
        return record.url
    if source in ("auto", "record-id"):
        value = _warc_header(record, "WARC-Record-ID")
        return bare_record_id(value) if value else None
    if source == "trec":
        return None
    return _warc_header(record, source)


def bare_record_id(value: str) -> str:
    """``<urn:uuid:X>`` (or ``urn:uuid:X``, ``<X>``) as ``X``."""
    value = value.strip()
    if value.startswith("<") and value.endswith(">"):
        value = value[1:-1]
    return value[len("urn:uuid:") :] if value.lower().startswith("urn:uuid:") else value


def _warc_header(record: Record, name: str) -> str | None:
    warc = record.extras.get("warc")
    if not isinstance(warc, dict):
        return None
    wanted = name.lower().encode("ascii", "replace")
    for key, value in warc.get("headers") or ():
        key_b = key if isinstance(key, bytes) else str(key).encode("utf-8", "replace")
        if key_b.strip().lower() == wanted:
            text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
            return text.strip() or None
    return None
