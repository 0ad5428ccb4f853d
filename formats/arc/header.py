"""The Internet Archive ARC format at the byte level: header lines, dates, the filedesc record.

ARC files are a sequence of records, each a header line, a block of ``length`` bytes and a
``"\\n"`` separator. Two header layouts exist:

* version 1 (``1 0 ...`` and ``1 1 ...`` version blocks):
  ``URL IP-address Archive-date Content-type Archive-length``;
* version 2 (``2 0 ...``): ``URL IP-address Archive-date Content-type Result-code Checksum
  Location Offset Filename Archive-length``.

The first record is the ``filedesc://<name>`` file header whose block starts with the version
block (``"1 1 InternetArchive\\n"`` and the field-spec line), optionally followed by XML.
Header lines are split from the right, because URLs may contain spaces (Common Crawl 2012);
a version-1 line whose IP-address or Archive-date then does not parse is read from the left
when that reading parses (a Content-type with a space, as Alexa wrote), with a note.

This module parses and builds header lines and filedesc records, parses dates and splits the
HTTP head off a block; finding records in a file (lengths, gzip members, damage, resync) is
:mod:`crawlmill.formats.arc.framing`. Nothing here knows about crawlmill's core.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache

from ..notes import Note

__all__ = [
    "V1_FIELDS",
    "V1_SPEC_LINE",
    "V2_FIELDS",
    "V2_SPEC_LINE",
    "ArcHeader",
    "ArcHeaderError",
    "RESPLIT_NOTE",
    "FileDesc",
    "build_filedesc",
    "build_header_line",
    "format_arc_date",
    "parse_arc_date",
    "parse_filedesc",
    "parse_header_line",
    "plausible_header",
]

V1_FIELDS = ("URL", "IP-address", "Archive-date", "Content-type", "Archive-length")
V2_FIELDS = (
    "URL",
    "IP-address",
    "Archive-date",
    "Content-type",
    "Result-code",
    "Checksum",
    "Location",
    "Offset",
    "Filename",
    "Archive-length",
)
V1_SPEC_LINE = b" ".join(f.encode() for f in V1_FIELDS)
V2_SPEC_LINE = b" ".join(f.encode() for f in V2_FIELDS)

GZIP_MAGIC = b"\x1f\x8b\x08"
_SCHEME = re.compile(rb"[A-Za-z][A-Za-z0-9+.\-]{0,31}:")
_DATE = re.compile(rb"\d{8,18}|-")
_DIGITS = re.compile(rb"\d+")
# a line start that may begin an ARC header: the scheme of a URL
_STRICT_DATE = re.compile(rb"\d{12,14}")


class ArcHeaderError(ValueError):
    """A line that cannot be an ARC header line (too few fields, no URL scheme)."""


# -- header lines ---------------------------------------------------------------------------


@dataclass(slots=True)
class ArcHeader:
    """One parsed ARC header line: raw bytes, named fields and the declared block length.

    ``fields`` maps the ARC field names (``V1_FIELDS``/``V2_FIELDS``) to the raw field bytes;
    ``length`` is ``None`` when the length field is not a non-negative number; ``problems``
    lists what was odd about the line (dashed or missing fields, bad length).
    """

    raw: bytes
    version: str
    fields: dict[str, bytes]
    length: int | None
    problems: list[str] = field(default_factory=list)

    @property
    def url(self) -> bytes:
        """The URL field (may contain spaces)."""
        return self.fields["URL"]

    @property
    def ip(self) -> bytes:
        """The IP-address field as stored (``0.0.0.0`` and ``-`` included)."""
        return self.fields["IP-address"]

    @property
    def date(self) -> bytes:
        """The Archive-date field as stored."""
        return self.fields["Archive-date"]

    @property
    def mime(self) -> bytes:
        """The Content-type field as stored."""
        return self.fields["Content-type"]

    @property
    def is_filedesc(self) -> bool:
        """Whether this is the ``filedesc://`` file header line."""
        return self.url[:11].lower() == b"filedesc://"


def parse_header_line(line: bytes, version: str | None = None) -> ArcHeader:
    """Parse one ARC header line (without its newline) as ``version`` ``"1"`` or ``"2"``.

    Without a version, a line whose ten right-most fields look like a version-2 header is read
    as version 2, else as version 1. Fields are split from the right so URLs keep their
    spaces. A version-1 line with only four fields is read as missing its Content-type.
    Raises :class:`ArcHeaderError` for lines that cannot be a header.
    """
    text = line[:-1] if line.endswith(b"\r") else line
    if version is None:
        version = "2" if _looks_v2(text) else "1"
    names = V2_FIELDS if version == "2" else V1_FIELDS
    parts = text.rsplit(b" ", len(names) - 1)
    problems: list[str] = []
    if len(parts) < len(names):
        if version == "1" and len(parts) == 4 and _DIGITS.fullmatch(parts[3]):
            parts = [parts[0], parts[1], parts[2], b"", parts[3]]
            problems.append("Content-type field missing")
        else:
            raise ArcHeaderError(
                f"ARC v{version} header needs {len(names)} space-separated fields, "
                f"found {len(parts)}: {text[:120]!r}"
            )
    if not _SCHEME.match(parts[0]):
        raise ArcHeaderError(f"ARC header does not start with a URL: {text[:120]!r}")
    if version == "1" and len(parts) == 5 and not _fields_parse(parts):
        # a field that is not what its position says: the right split is wrong. The other
        # reading ARC writers produced: a URL without spaces and a Content-type with one
        # (Alexa's "text/html; Charset=iso-8859-1"), so URL, IP and date from the left
        left = text.split(b" ", 3)
        rest = left[3].rsplit(b" ", 1) if len(left) == 4 else []
        if (
            len(rest) == 2
            and _MEDIA_WITH_PARAMS.fullmatch(rest[0])
            and _fields_parse([*left[:3], *rest])
        ):
            parts = [*left[:3], *rest]
            problems.append(RESPLIT_NOTE)
    fields = dict(zip(names, parts, strict=True))
    raw_len = fields["Archive-length"]
    length = int(raw_len) if _DIGITS.fullmatch(raw_len) else None
    if length is None:
        problems.append(f"invalid Archive-length {raw_len[:40]!r}")
    for name in names[1:-1]:
        if fields[name] == b"-":
            problems.append(f"{name} is '-'")
    return ArcHeader(raw=line, version=version, fields=fields, length=length, problems=problems)


#: the note of a header line read with its Content-type holding a space.
RESPLIT_NOTE = Note(
    "arc-header-resplit",
    "header line read from the left: split from the right, its IP-address or Archive-date "
    "did not parse (a Content-type with a space)",
)
#: a Content-type whose space comes after its parameters' ``;`` (``text/html; charset=x``).
_MEDIA_WITH_PARAMS = re.compile(rb"[^\s/;]+/[^\s;]+\s*;.*")
_IP = re.compile(rb"\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]*:[0-9A-Fa-f:.]+|-")


def _fields_parse(parts: list[bytes]) -> bool:
    """Whether a v1 split's IP-address, Archive-date and Archive-length parse as such."""
    return bool(
        _IP.fullmatch(parts[1]) and _DATE.fullmatch(parts[2]) and _DIGITS.fullmatch(parts[4])
    )


def _looks_v2(text: bytes) -> bool:
    parts = text.rsplit(b" ", 9)
    if len(parts) != 10:
        return False
    return bool(
        _DATE.fullmatch(parts[2])
        and (parts[4] == b"-" or _DIGITS.fullmatch(parts[4]))
        and (parts[7] == b"-" or _DIGITS.fullmatch(parts[7]))
        and _DIGITS.fullmatch(parts[9])
    )


def plausible_header(
    line: bytes, version: str | None = None, strict: bool = False
) -> ArcHeader | None:
    """The parsed header if ``line`` is a believable record header (URL scheme, a date of 8-18
    digits or ``-``), else ``None``. Used to verify lengths and to resync after damage.
    ``strict`` also asks for a 12-14 digit date and a numeric length (for candidates found in
    the middle of a line)."""
    if len(line) > 65536:
        return None
    try:
        header = parse_header_line(line, version)
    except ArcHeaderError:
        if version is None:
            return None
        try:
            header = parse_header_line(line, None)
        except ArcHeaderError:
            return None
    if not _DATE.fullmatch(header.date):
        return None
    if strict and (header.length is None or not _STRICT_DATE.fullmatch(header.date)):
        return None
    return header


# -- dates ----------------------------------------------------------------------------------


@lru_cache(maxsize=4096)  # the records of one second share their date
def parse_arc_date(raw: bytes | str) -> tuple[datetime | None, Note | None]:
    """Parse an ARC date (``YYYYMMDDhhmmss``) into an aware UTC datetime.

    Returns ``(date, note)``: ``note`` says what was repaired (shorter dates are padded with
    zeros: ``date-padded``, longer ones are cut to 14 digits: ``date-cut``) or why the date
    is ``None`` (``invalid-date``).
    """
    text = raw.decode("ascii", "replace") if isinstance(raw, bytes) else raw
    if not text.isdigit():
        return None, Note("invalid-date", f"Archive-date {text[:40]!r} is not a date")
    note = None
    digits = text
    if len(text) > 14:
        digits = text[:14]
        note = Note("date-cut", f"Archive-date has {len(text)} digits; read the first 14")
    elif len(text) < 14:
        if len(text) < 4 or len(text) % 2:
            return None, Note("invalid-date", f"Archive-date {text!r} has {len(text)} digits")
        digits = text + "0101000000"[len(text) - 4 :] if len(text) < 8 else text.ljust(14, "0")
        note = Note("date-padded", f"Archive-date has {len(text)} digits; padded to 14")
    try:
        value = datetime(
            int(digits[0:4]),
            int(digits[4:6]),
            int(digits[6:8]),
            int(digits[8:10]),
            int(digits[10:12]),
            int(digits[12:14]),
            tzinfo=UTC,
        )
    except ValueError:
        return None, Note("invalid-date", f"Archive-date {text!r} is not a valid date")
    return value, note


def format_arc_date(value: datetime) -> str:
    """A datetime as the 14-digit ARC date in UTC (naive datetimes are taken as UTC)."""
    if value.tzinfo is not None:
        value = value.astimezone(UTC)
    return value.strftime("%Y%m%d%H%M%S")


# -- filedesc -------------------------------------------------------------------------------


@dataclass(slots=True)
class FileDesc:
    """The version block of a filedesc record: ``"1 1 InternetArchive"`` + the field-spec line.

    ``major``/``minor`` are the first two fields (``minor`` is called "reserved" in the ARC
    spec; ``1 1`` marks ARC 1.1 with XML metadata), ``origin`` the rest of the first line,
    ``spec`` the field names of the second line, ``rest`` whatever follows (XML metadata).
    """

    major: str
    minor: str
    origin: str
    spec: list[str]
    rest: bytes


def parse_filedesc(body: bytes) -> FileDesc | None:
    """Parse the version block at the start of a filedesc body, or ``None`` if it has none."""
    first, nl, tail = body.partition(b"\n")
    parts = first.rstrip(b"\r").split(b" ", 2)
    if not nl or len(parts) < 2 or not parts[0].isdigit():
        return None
    spec_line, nl2, rest = tail.partition(b"\n")
    spec = spec_line.rstrip(b"\r").decode("latin-1").split()
    if not nl2:
        rest = b""
    return FileDesc(
        major=parts[0].decode("ascii"),
        minor=parts[1].decode("ascii", "replace"),
        origin=parts[2].decode("utf-8", "replace") if len(parts) > 2 else "",
        spec=spec,
        rest=rest,
    )


# -- writing --------------------------------------------------------------------------------


def build_header_line(url: bytes, ip: bytes, date: bytes, mime: bytes, length: int) -> bytes:
    """One ARC v1 header line (without newline): ``URL IP-address Archive-date Content-type
    Archive-length``. Raises ``ValueError`` for fields that would break the line."""
    for name, value in (("URL", url), ("IP-address", ip), ("Archive-date", date), ("mime", mime)):
        if not value or b"\n" in value or b"\r" in value:
            raise ValueError(f"ARC {name} field {value[:80]!r} is empty or has a line break")
        if name != "URL" and b" " in value:
            raise ValueError(f"ARC {name} field {value[:80]!r} contains a space")
    return b"%s %s %s %s %d" % (url, ip, date, mime, length)


def build_filedesc(
    name: bytes, date: bytes, *, origin: bytes = b"crawlmill", extra: bytes = b""
) -> bytes:
    """A complete ARC v1 filedesc record (header line, version block, ``extra``, separator).

    The length counts the version block and ``extra``; the record ends with one ``"\\n"``.
    """
    body = b"1 0 " + origin + b"\n" + V1_SPEC_LINE + b"\n" + extra
    line = build_header_line(b"filedesc://" + name, b"0.0.0.0", date, b"text/plain", len(body))
    return line + b"\n" + body + b"\n"
