"""Which ``date_raw`` is an original a writer that writes only ``date`` drops
(plugins/writers/original_date.py, warning ``original-date-dropped``)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from crawlmill.core import Record, RecordKind
from crawlmill.plugins.writers.original_date import original_date_dropped

WHEN = datetime(2009, 3, 6, 16, 43, 19, tzinfo=UTC)


@pytest.mark.parametrize(
    ("raw", "dropped"),
    [
        # ClueWeb09's day of the year: no such date (docs/formats/clueweb09.md)
        ("2009-03-65T08:43:19-0800", True),
        ("2009-04-119T12:00:00-0700", True),
        ("not a date", True),
        # valid WARC-Dates are spellings of ``date``, not originals (WARC 1.1, 5.4)
        ("2009-03-06T16:43:19Z", False),
        ("2009-03-06T16:43:19.123456Z", False),
        ("2009-03-06T08:43:19-08:00", False),
        ("2009", False),
        # an ARC Archive-date: 14 digits (odd lengths are the arc reader's date-padded/-cut)
        ("20090306164319", False),
        ("2009030616", False),
        (None, False),
        ("", False),
    ],
)
def test_original_date_dropped(raw: str | None, dropped: bool) -> None:
    record = Record(kind=RecordKind.RESPONSE, url="http://a.test/", date=WHEN, date_raw=raw)
    assert original_date_dropped(record) == (raw if dropped else None)
