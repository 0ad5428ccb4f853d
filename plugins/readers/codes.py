"""The problem codes of the WARC and ARC readers: the framers' and codecs' reason texts mapped
to stable codes (what remains of the regex tables; every other reader copies the code its
codec gives at the place of the fault, and these go when the WARC/ARC framers and the
compression codecs give theirs).

The WARC/ARC framers in :mod:`crawlmill.formats` describe a problem in words with its
specifics (URL, lengths, offsets); the reader plugins report it with a stable code
(:mod:`crawlmill.core.problems`) from the tables here, so the run report counts one kind of
problem under one code. Every code is listed with its meaning in ``docs/problems.md``. A reason
no pattern matches gets a code derived from its words (:func:`~crawlmill.core.problems.derive_code`):
not listed, so the test of the listed codes names it.
"""

from __future__ import annotations

import re

from crawlmill.core.problems import derive_code

__all__ = ["ARC_DAMAGE", "ARC_NOTES", "COMPRESSION", "WARC_DAMAGE", "code_of"]

Table = tuple[tuple[re.Pattern[str], str], ...]


def _table(*rows: tuple[str, str]) -> Table:
    return tuple((re.compile(pattern), code) for pattern, code in rows)


#: damage found below the format: gzip members, zstd and LZ4 frames (both readers).
COMPRESSION = _table(
    (r"damaged gzip magic", "damaged-gzip-magic"),
    (r"^gzip member header not RFC 1952", "non-compliant-gzip-header"),
    (r"^gzip member that inflates to nothing", "empty-member"),
    (r"^(gzip member|\w+ frame) truncated|^truncated zstd skippable", "truncated-member"),
    (r"^corrupt (gzip member|\w+ frame)", "corrupt-member"),
    (r"inflates beyond|exceeds the limit of \d+ bytes", "decompression-limit"),
    (r"^\d+ trailing bytes after the last gzip member", "trailing-bytes"),
    (r"^\d+ bytes (that are not a gzip member|outside any \w+ frame)", "not-compressed-data"),
    (r"^unusable zstd dictionary", "bad-zstd-dictionary"),
)

#: damage the WARC framer reports (its warnings start with their code already).
WARC_DAMAGE = _table(
    (r"^[a-z][a-z0-9]*(-[a-z0-9]+)+: ", ""),  # "cr-counted-length: ...": its own code
    (r"^bytes that are not a WARC record", "not-a-record"),
    (r"^WARC header without an end", "header-without-end"),
    (r"^WARC header cut short", "header-cut-short"),
    (r"^version line starts", "damaged-version-line"),
    (r"exceeds max_record_bytes", "record-too-large"),
    (r"^Content-Length \d+ is wrong", "bad-length"),
    (r"^record truncated", "truncated-record"),
    (r"^Content-Length (missing|not a number)", "no-content-length"),
)

#: damage the ARC framer reports.
ARC_DAMAGE = _table(
    (r"declares \d+ bytes but the file ends after", "truncated-record"),
    (r"declares \d+ bytes but its gzip member is damaged", "corrupt-member"),
    (r"declares \d+ bytes; no record end within", "no-record-end"),
    (r"has an invalid Archive-length", "invalid-length"),
    (r"declares \d+ bytes, more than the limit of \d+; skipped", "record-too-large"),
    (r"declares \d+ bytes", "bad-length"),
    (r"^\d+ bytes of garbage", "not-a-record"),
    (r"decompressed bytes do not form a record", "corrupt-member"),
    (r"stopped reading this file", "decompression-limit"),
)

#: the repaired quirks of ARC records (warnings; damage with ``strict``).
ARC_NOTES = _table(
    (r"^Archive-date has \d+ digits; padded", "date-padded"),
    (r"^Archive-date has \d+ digits; read the first", "date-cut"),
    (r"^Archive-date ", "invalid-date"),
    (r"^filedesc record has no version block", "filedesc-without-version"),
    (r"^HTTP head has no blank line", "http-head"),
    (r"^stray newline bytes before a record", "stray-newlines"),
    (r"^header line read from the left", "arc-header-resplit"),
)


def code_of(reason: str, *tables: Table) -> str:
    """The code of ``reason``: the first pattern of ``tables`` (then :data:`COMPRESSION`) that
    matches it; a code the reason starts with (``"invalid-date: ..."``) for an empty code in a
    table; else one derived from its words."""
    for table in (*tables, COMPRESSION):
        for pattern, code in table:
            if pattern.search(reason):
                return code or derive_code(reason)
    return derive_code(reason)
