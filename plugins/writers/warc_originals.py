"""WARC header values a target version cannot hold, made valid without losing what the
source wrote (docs/formats/clueweb09.md, "Original values"): the WARC writer's rule for
invalid dates, target URIs a URI cannot hold and empty field values, and the restoring of
the kept originals in 0.18 output."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from crawlmill.core import Record
from crawlmill.formats.warc.builder import Headers, get_header, remove_header, set_header
from crawlmill.formats.warc.fields import (
    ORIGINAL_DATE,
    ORIGINAL_URI,
    derive_warc_date,
    escape_uri,
    valid_warc_date,
)
from crawlmill.formats.warc.writer import format_warc_date

from .original_date import original_date_dropped

__all__ = ["keep_originals"]


def _text_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8", "surrogateescape")


def keep_originals(
    record: Record,
    headers: Headers,
    version: str,
    when: datetime,
    warn: Callable[[str, str], None],
) -> None:
    """Make the headers valid for ``version`` without losing what the source wrote (the
    rule of docs/formats/clueweb09.md, "Original values"). In WARC 1.0/1.1 an invalid
    ``WARC-Date`` becomes the date it means (:func:`derive_warc_date`; the record's own
    date when it was read with one) or, when none can be told, the conversion time; a
    ``WARC-Target-URI`` with bytes a URI may not hold is percent-escaped; the value as
    written goes to ``Crawlmill-Original-Date`` / ``Crawlmill-Original-Target-URI``,
    which crawlmill's WARC reader restores, and each change is a warning. An empty header
    value (``WARC-Identified-Payload-Type:``) is dropped, with a warning. In 0.18 (the
    ClueWeb09 convention) the kept originals are written back in place. A record read with
    an invalid ``date_raw`` beside its ``date`` from a format other than WARC (a Nutch
    segment) gets the same ``Crawlmill-Original-Date`` (0.18: in place)."""
    if record.changed & {"date", "date_raw"}:
        remove_header(headers, ORIGINAL_DATE)  # a new date: the old original is no more
    if "url" in record.changed:
        remove_header(headers, ORIGINAL_URI)
    original = original_date_dropped(record)
    if original is not None and get_header(headers, ORIGINAL_DATE) is None:
        # read from a format that kept the original beside the date it means (a Nutch
        # segment's Content metadata): WARC-Date holds the date it means
        date = get_header(headers, b"WARC-Date")
        if date is None or date.strip().decode("utf-8", "surrogateescape") != original.strip():
            set_header(headers, ORIGINAL_DATE, original.strip().encode("utf-8", "surrogateescape"))
    if version == "0.18":
        for original, field in (
            (ORIGINAL_DATE, b"WARC-Date"),
            (ORIGINAL_URI, b"WARC-Target-URI"),
        ):
            value = get_header(headers, original)
            if value is not None:
                set_header(headers, field, value)
                remove_header(headers, original)
        return
    for name, value in list(headers):
        if not _text_bytes(value).strip():
            remove_header(headers, name)
            warn(
                "empty-field-dropped",
                f"empty WARC header {name.decode('latin-1')}: dropped (WARC {version} has no"
                " empty field values)",
            )
    date = get_header(headers, b"WARC-Date")
    if date is not None and not valid_warc_date(date.strip()):
        text = date.strip().decode("utf-8", "surrogateescape")
        best = record.date or derive_warc_date(text)
        new = format_warc_date(best or when, version)
        if get_header(headers, ORIGINAL_DATE) is None:
            set_header(headers, ORIGINAL_DATE, date.strip())
        set_header(headers, b"WARC-Date", new)
        source = "the date it means" if best else "the conversion time (no date can be told)"
        warn(
            "date-replaced",
            f"invalid WARC-Date {text!r} written as {new.decode()} ({source}); the original"
            " kept in Crawlmill-Original-Date",
        )
    uri = get_header(headers, b"WARC-Target-URI")
    if uri is not None:
        escaped = escape_uri(uri.strip())
        if escaped != uri.strip():
            if get_header(headers, ORIGINAL_URI) is None:
                set_header(headers, ORIGINAL_URI, uri.strip())
            set_header(headers, b"WARC-Target-URI", escaped)
            warn(
                "uri-escaped",
                "WARC-Target-URI with bytes a URI may not hold (spaces...) percent-escaped;"
                " the original kept in Crawlmill-Original-Target-URI",
            )
