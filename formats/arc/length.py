"""The ARC length rule: where a record ends, from its declared length and the bytes around it.

A declared ``Archive-length`` wins whenever the bytes it delimits are followed by a valid
separator (``\\n`` or ``\\r\\n``, then blank lines) and then the next record's header line, the
end of the gzip member or the end of the file; or by the next header line directly (writers
that left the separator out); or by the member or file end directly. The parser checks that
(``Facts.confirmed``): nothing but line-end bytes between the declared end and a valid next
header (or the member or file end), however many and whatever the block ends in, which is how
warcio and warctools read ARC files too; what the earlier records of the file had after their
blocks does not overrule it. Otherwise the length is provably inconsistent and :func:`decide` picks
one repair, each of which the parser reports as damage (the original bytes go to the
quarantine):

* a header line inside the declared block, or the end of the record's one-record gzip member
  before the declared end: the length is too long, the block is *cut* there;
* a one-record gzip member that goes on after the declared end with no separator there: too
  short, the block is *extended* to the member end (the member holds this record only);
* the file ends before the declared end: the record is *truncated* (kept, marked);
* otherwise the declared bytes are the record and the bytes after them, up to the next header
  line, are *garbage after* it;
* a damaged gzip member (corrupt, not merely cut by the end of the file) ends before the
  record was proved complete: the record is *damaged* and not delivered;
* the length field is not a number (``declared_end`` is ``None``): there is no length to
  trust, the block is taken up to the next header line, member end or file end
  (``UNDECLARED``);
* the declared end is confirmed but the line-end run after it is not one separator, and the
  block's HTTP head (its ``Content-Length``) proves another end that leaves exactly one: the
  length is off by the separator's bytes (a flipped bit that swallowed the separator or left
  the block's final ``\n`` out); the block is delivered as the HTTP head says (``PROVED``,
  :mod:`crawlmill.formats.arc.witness`).

Nothing here reads bytes; :mod:`crawlmill.formats.arc.framing` gathers the facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Action", "Decision", "Facts", "decide"]


class Action(StrEnum):
    """What the parser does with a record."""

    DECLARED = "declared"
    CUT = "cut"
    EXTEND = "extend"
    TRUNCATED = "truncated"
    GARBAGE_AFTER = "garbage-after"
    DAMAGED = "damaged"
    UNDECLARED = "undeclared"
    PROVED = "proved"


@dataclass(frozen=True, slots=True)
class Facts:
    """What the parser found around one record (absolute offsets in the decompressed stream).

    ``confirmed``: where the next record starts when the declared end is confirmed (see the
    module docstring), else ``None``. ``header_inside``: the first header line (or gzip member
    start) in ``[body_start, declared_end)``. ``data_end``: the first header line at or after
    the declared end, else the end of the member, else the end of the file, else how far the
    bounded scan got; ``data_end_is`` says which (``"header"``, ``"member"``, ``"eof"``,
    ``"horizon"``). ``one_record_member``: the data is a gzip member that starts with this
    record. ``damaged_at``: the end of the inflated bytes of a corrupt gzip member met before
    the record end was proved. ``sep_at_end``/``sep_before_header``/``sep_before_data_end``:
    separator bytes (0, 1 for ``\\n``, 2 for ``\\r\\n``) at the declared end and just before
    those boundaries.
    ``declared_end`` is ``None`` when the length field is not a number (``data_end`` is then
    where the record's data ends). ``proved_end``: where the block ends by its HTTP head's
    ``Content-Length``, given only when the run after the declared end is not one separator
    and that end leaves exactly one before ``confirmed``
    (:mod:`crawlmill.formats.arc.witness`).
    """

    body_start: int
    declared_end: int | None
    confirmed: int | None = None
    header_inside: int | None = None
    data_end: int = 0
    data_end_is: str = "eof"
    one_record_member: bool = False
    damaged_at: int | None = None
    sep_at_end: int = 0
    sep_before_header: int = 0
    sep_before_data_end: int = 0
    proved_end: int | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """The verdict: deliver ``[body_start, body_end)`` as the block (unless ``DAMAGED``), the
    bytes up to ``garbage_from`` (or ``next``) as its trailer; the next record starts at
    ``next``; ``[garbage_from, next)`` is garbage after the record."""

    action: Action
    body_end: int
    next: int
    garbage_from: int | None = None

    @property
    def repaired(self) -> bool:
        """Whether the delivered block differs from what the declared length says."""
        return self.action in (
            Action.CUT,
            Action.EXTEND,
            Action.TRUNCATED,
            Action.UNDECLARED,
            Action.PROVED,
        )


def decide(f: Facts) -> Decision:
    """Apply the length rule (module docstring) to the facts of one record."""
    e = f.declared_end
    if e is None:
        body_end = max(f.body_start, f.data_end - f.sep_before_data_end)
        return Decision(Action.UNDECLARED, body_end, f.data_end)
    if f.confirmed is not None and f.proved_end is not None and f.damaged_at is None:
        return Decision(Action.PROVED, f.proved_end, f.confirmed)
    if f.confirmed is not None and (f.damaged_at is None or e < f.damaged_at):
        return Decision(Action.DECLARED, e, f.confirmed)
    if f.damaged_at is not None:
        return Decision(Action.DAMAGED, f.damaged_at, f.damaged_at)
    if f.header_inside is not None:
        body_end = max(f.body_start, f.header_inside - f.sep_before_header)
        return Decision(Action.CUT, body_end, f.header_inside)
    if e > f.data_end:
        if f.data_end_is == "eof":
            return Decision(Action.TRUNCATED, f.data_end, f.data_end)
        if f.data_end_is == "member":
            body_end = max(f.body_start, f.data_end - f.sep_before_data_end)
            return Decision(Action.CUT, body_end, f.data_end)
        return Decision(Action.DAMAGED, f.data_end, f.data_end)
    if f.one_record_member and f.data_end_is == "member" and not f.sep_at_end:
        body_end = max(e, f.data_end - f.sep_before_data_end)
        return Decision(Action.EXTEND, body_end, f.data_end)
    return Decision(Action.GARBAGE_AFTER, e, f.data_end, min(e + f.sep_at_end, f.data_end))
