"""WARC date and record-id field values: parsing and validating ``WARC-Date``, and which fields
hold record ids. Shared by the WARC reader and writer so both judge these values alike.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from functools import lru_cache

__all__ = ["BARE_UUID", "ID_FIELDS", "ID_FIELD_NAMES", "parse_warc_date", "valid_warc_date"]

#: header fields (lower case) whose value is a record id, ``<uri>`` in WARC 1.0 and 1.1.
ID_FIELDS = (b"warc-record-id", b"warc-warcinfo-id", b"warc-concurrent-to", b"warc-refers-to")
#: the spelled-out name of each of :data:`ID_FIELDS`.
ID_FIELD_NAMES = {
    b"warc-record-id": "WARC-Record-ID",
    b"warc-warcinfo-id": "WARC-Warcinfo-ID",
    b"warc-concurrent-to": "WARC-Concurrent-To",
    b"warc-refers-to": "WARC-Refers-To",
}
#: a record id written as a bare UUID (optionally ``urn:uuid:``), without the ``<>``.
BARE_UUID = re.compile(
    rb"^(?:urn:uuid:)?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
)

_PARTIAL_DATE = re.compile(r"(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?Z?")
_ISO_DATE = re.compile(
    rb"^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$"
)


@lru_cache(maxsize=1024)  # request, response and metadata of a capture share their date
def parse_warc_date(raw: str) -> datetime | None:
    """A WARC-Date as an aware UTC datetime, or ``None`` when it is not a valid date.

    Accepts the W3C-DTF forms of WARC 1.1 (``2008-04-30T20:48:25Z``, fractional seconds, lower
    precision such as ``2019-08-15T01:02`` or ``2019``), numeric offsets and lower case.
    """
    text = raw.strip().upper()
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        m = _PARTIAL_DATE.fullmatch(text)
        if m is None:
            return None
        try:
            value = datetime(int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))
        except ValueError:
            return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def valid_warc_date(value: bytes) -> bool:
    """Whether ``value`` is a W3C-ISO 8601 date that exists (``2009-03-65`` does not)."""
    m = _ISO_DATE.match(value)
    if m is None:
        return False
    year, month, day, hour, minute, second = (int(g) if g else 0 for g in m.groups())
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError:
        return False
    return True
