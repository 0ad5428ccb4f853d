"""The ARC parser's reports on a record whose declared length does not hold.

:func:`crawlmill.formats.arc.length.decide` says what to do with a record; each function here
names one outcome as a :class:`Report`: its problem code (``docs/problems.md``) and its reason.
A repaired record is delivered *and* reported with its original bytes; a refused one is
reported only. Nothing here reads bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from .length import Action, Decision

__all__ = [
    "Report",
    "cut_header",
    "garbage",
    "not_delivered",
    "repaired",
    "too_large",
    "too_large_resynced",
]


@dataclass(frozen=True, slots=True)
class Report:
    """One damage report: its stable ``code`` and its ``reason``."""

    code: str
    reason: str


def not_delivered(url: str, declared: int | None, member_error: str | None, seen: int) -> Report:
    """A record not proved complete within ``seen`` bytes: its gzip member is damaged
    (``member_error``), or no record end follows within the record limit."""
    if member_error:
        return Report(
            "corrupt-member",
            f"record {url!r} declares {declared} bytes but its gzip member is damaged "
            f"({member_error}) after {seen}; not delivered",
        )
    return Report(
        "no-record-end",
        f"record {url!r} declares {declared} bytes; no record end within the "
        f"{seen} bytes that follow (record limit); not delivered",
    )


def repaired(
    v: Decision,
    url: str,
    declared: int | None,
    raw_length: bytes,
    body_start: int,
    stop: int | None,
) -> Report:
    """A record delivered with another block than its declared length says: truncated by the
    end of the file, taken up to the next record (no valid length), cut before the next header
    or member end, or extended to its member's end."""
    have = v.body_end - body_start
    if v.action == Action.TRUNCATED:
        return Report(
            "truncated-record",
            f"record {url!r} declares {declared} bytes but the file ends after {have}; "
            f"kept the record as truncated",
        )
    if v.action == Action.UNDECLARED:
        return Report(
            "invalid-length",
            f"record {url!r} has an invalid Archive-length {raw_length!r}; delivered the "
            f"{have} bytes up to the next record",
        )
    if v.action == Action.PROVED:
        return Report(
            "bad-length",
            f"record {url!r} declares {declared} bytes but its HTTP head's Content-Length "
            f"shows {have} ({have - (declared or 0):+d}), which one separator follows; "
            f"delivered the {have} bytes",
        )
    if v.action == Action.CUT:
        what = "the end of its gzip member" if v.next == stop else "the next record header"
        return Report(
            "bad-length",
            f"record {url!r} declares {declared} bytes but {what} comes after "
            f"{v.next - body_start}; delivered the {have} bytes before it",
        )
    return Report(
        "bad-length",
        f"record {url!r} declares {declared} bytes but its gzip member holds "
        f"{have} ({have - (declared or 0):+d}); delivered the member's bytes",
    )


def too_large_resynced(url: str, declared: int, limit: int, after: int) -> Report:
    """A length over the record limit, disproved by a complete record ``after`` bytes in."""
    return Report(
        "bad-length",
        f"record {url!r} declares {declared} bytes (more than the limit of {limit}) but a "
        f"complete record starts after {after}; resynced there",
    )


def too_large(url: str, declared: int, limit: int) -> Report:
    """A record over the record limit: skipped."""
    return Report(
        "record-too-large",
        f"record {url!r} declares {declared} bytes, more than the limit of {limit}; skipped",
    )


def garbage(n: int, after_record: bool, start: bytes, member_error: str | None) -> Report:
    """``n`` bytes that form no record (``start``: their first bytes), inside a damaged gzip
    member (``member_error``) or not."""
    if member_error:
        return Report(
            "corrupt-member", f"{member_error}; {n} decompressed bytes do not form a record"
        )
    where = "after a record" if after_record else "where a record header was expected"
    return Report("not-a-record", f"{n} bytes of garbage {where}, starting {start!r}")


def cut_header(n: int, start: bytes) -> Report:
    """``n`` bytes of a header line cut short, a whole header line glued after them (a writer
    that died inside a header line and restarted appending)."""
    return Report(
        "header-cut-short",
        f"{n} bytes of a header line cut short, a whole header line glued after them (a "
        f"writer restarted), starting {start!r}; read from the whole one",
    )
