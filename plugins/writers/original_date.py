"""The original capture date a writer may drop: ``date_raw`` when it is not a valid date
(ClueWeb09's ``2009-03-65T08:43:19-0800``, read with ``date`` the date it means, code
``date-derived``). The WARC writer keeps it in ``Crawlmill-Original-Date``, a Nutch segment in
its Content metadata; the writers with no place for it warn ``original-date-dropped``."""

from __future__ import annotations

from collections.abc import Callable

from crawlmill.core import Record
from crawlmill.formats.warc.fields import parse_warc_date, valid_warc_date

__all__ = ["ORIGINAL_DATE_DROPPED", "original_date_dropped", "warn_original_date_dropped"]

#: the warning code of a writer that cannot keep the original date (docs/problems.md).
ORIGINAL_DATE_DROPPED = "original-date-dropped"


def original_date_dropped(record: Record) -> str | None:
    """``record.date_raw`` when it is an original a writer that writes only ``date`` loses:
    not a valid W3C-ISO 8601 date (a valid WARC-Date, also of lower precision, is only a
    spelling of ``date``) and not
    an ARC ``Archive-date`` of digits (the arc reader counts an odd one: ``date-padded``,
    ``date-cut``); else ``None``."""
    raw = record.date_raw
    if raw is None or not raw.strip() or raw.strip().isdigit():
        return None
    text = raw.strip()
    if valid_warc_date(text.encode("utf-8", "surrogateescape")) or parse_warc_date(text):
        return None
    return raw


def warn_original_date_dropped(record: Record, warn: Callable[[str, str], None], fmt: str) -> None:
    """Warn ``original-date-dropped`` through ``warn`` (a context's ``report_warning``) when
    ``record`` has an original date ``fmt`` cannot hold (:func:`original_date_dropped`)."""
    if original_date_dropped(record) is not None:
        warn(
            ORIGINAL_DATE_DROPPED,
            f"original capture date (not a valid date) not written: {fmt} has no field for"
            " it; the date it means is written",
        )
