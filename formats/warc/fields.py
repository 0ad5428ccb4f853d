"""WARC date and record-id field values: parsing and validating ``WARC-Date``, and which fields
hold record ids. Shared by the WARC reader and writer so both judge these values alike.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from functools import lru_cache

__all__ = [
    "BARE_UUID",
    "ID_FIELDS",
    "ID_FIELD_NAMES",
    "ORIGINAL_DATE",
    "ORIGINAL_URI",
    "derive_warc_date",
    "escape_uri",
    "parse_warc_date",
    "valid_warc_date",
]

#: the header in which crawlmill keeps a ``WARC-Date`` it had to replace to write a valid one
#: (WARC 1.0/1.1), as the source wrote it; crawlmill's WARC reader restores it (``date_raw``)
#: and its 0.18 writer writes it back (docs/formats/clueweb09.md, "Original values").
ORIGINAL_DATE = b"Crawlmill-Original-Date"
#: the same for a ``WARC-Target-URI`` that had to be percent-escaped to be a URI.
ORIGINAL_URI = b"Crawlmill-Original-Target-URI"

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

_DAY_OF_YEAR_DATE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{1,3})T(\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{2}:?\d{2})?$"
)
#: bytes an IRI may hold as they are (RFC 3986 unreserved, reserved, "%"; RFC 3987 lets
#: non-ASCII characters stand, and WARC readers take UTF-8 target URIs).
_URI_SAFE = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%"
) | frozenset(range(0x80, 0x100))
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


@lru_cache(maxsize=1024)
def derive_warc_date(raw: str) -> datetime | None:
    """The date an invalid ``WARC-Date`` means, when it can be told, else ``None``.

    ClueWeb09's dates (``2009-03-67T15:35:34-0700``, the warcinfo's ``2009-04-119T...``) were
    formatted with Java's ``yyyy-MM-DD``, where ``DD`` is the day *of the year*: day 67 of 2009
    is March 8, in the month the date names. A date whose third field is a day of the year
    falling in the stated month is read so (its offset applied, UTC); any other invalid date
    gives ``None``. A valid date is not this function's business (:func:`parse_warc_date`).
    """
    m = _DAY_OF_YEAR_DATE.match(raw.strip().upper())
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    if not 1 <= day <= 366:
        return None
    try:
        base = datetime(year, 1, 1, hour, minute, second)
    except ValueError:
        return None
    value = base + timedelta(days=day - 1)
    if value.year != year or value.month != month:
        return None
    offset = m.group(7)
    if offset and offset != "Z":
        sign = -1 if offset[0] == "-" else 1
        digits = offset[1:].replace(":", "")
        delta = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        return (value - sign * delta).replace(tzinfo=UTC)
    return value.replace(tzinfo=UTC)


def escape_uri(value: bytes) -> bytes:
    """``value`` with every ASCII byte a URI may not hold (space, controls, ``"<>\\^`{|}``)
    percent-encoded (``%20``); existing escapes, non-ASCII bytes (an IRI's) and all other
    bytes unchanged."""
    if all(b in _URI_SAFE for b in value):
        return value
    return b"".join(bytes((b,)) if b in _URI_SAFE else b"%%%02X" % b for b in value)
