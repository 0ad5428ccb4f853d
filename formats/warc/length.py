"""Whether a WARC record's declared ``Content-Length`` holds, decided from the bytes after it.

The rule (issue 6, item 5): a declared length wins whenever the bytes it delimits are followed
by a valid separator, the next record's version line, the end of the gzip member (zstd/LZ4
frame) or the end of the file. Only when none of these follows is the length *inconsistent*;
the framer then reports damage (and only a repair proven by the bytes may deliver the record,
as damage too, never as a mere warning).

ClueWeb09's convention (``Content-Length`` counts the two newlines that end the block, the
next version line follows at once) is recognised only where the bytes prove it: a pre-1.0
version (ClueWeb09 writes ``WARC/0.18``), no separator after the declared bytes, those bytes
ending in the record's blank line, and the next version line right there (or, once the file
showed the convention, the end of the member or file; or the end of the file or of the
record's own gzip member (zstd/LZ4 frame) when its headers are ClueWeb09's LF-only ones:
crawlmill's 0.18 writer compresses each record alone, so no next version line follows inside
the member, and a ClueWeb09 file cut after a record ends on that record's blank line). Its block is then the declared bytes
minus that blank line, which becomes the separator; no byte changes. When damage follows such
a record, the record is whole if the file showed the convention before or has ClueWeb09's
LF-only headers; the damage is reported on its own. Once a file showed the convention, a record
followed by an odd CR/LF run (neither the convention's nothing nor a proper separator) breaks
it: its declared length is inconsistent.

An odd or missing separator before a boundary alone proves nothing (real writers leave extra or
missing newlines), but the record's own ``WARC-Block-Digest`` can:
:func:`digest_disproves` finds the block length that would leave exactly a proper separator
and the digest matching it while it does not match the declared block; the declared length is
then wrong.

:func:`judge_length` is pure: the framer gives it the facts, it returns a :class:`Verdict`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..notes import Note
from .digest import digest_matches

__all__ = ["After", "Verdict", "digest_disproves", "judge_length"]

#: versions whose files may follow the ClueWeb09 length convention.
CONVENTION_VERSIONS = frozenset({"0.17", "0.18"})


class After(Enum):
    """What follows the run of CR/LF bytes after the declared block."""

    VERSION = "version"  #: the next record's version line
    END = "end"  #: the end of the member/frame, of the file, or of readable data
    OTHER = "other"  #: anything else


@dataclass(frozen=True, slots=True)
class Verdict:
    """The decision on one declared length.

    ``ok``: the declared length holds. ``block_trim``: bytes at the end of the declared block
    that are the separator (ClueWeb09 convention; 0 otherwise). ``separator``: how many bytes
    of the run after the block are the record's separator (``None``: all of them); the rest is
    judged on its own. ``issue``: a deviation that changes no byte, worth a warning (odd or
    missing separator, the convention), or ``None``.
    """

    ok: bool
    block_trim: int = 0
    issue: Note | None = None
    separator: int | None = None

    @property
    def cl_includes_separator(self) -> bool:
        """Whether ``Content-Length`` counts the separator (ClueWeb09 convention)."""
        return self.block_trim > 0


WRONG = Verdict(False)
_CONVENTION = Note(
    "cl-includes-separator", "Content-Length includes the record separator (ClueWeb09 convention)"
)


def judge_length(
    *,
    version: str,
    line_ending: bytes,
    block_tail: bytes,
    run: bytes,
    after: After,
    convention_seen: bool = False,
    head_only: bool = False,
) -> Verdict:
    """Decide whether a declared length holds.

    ``block_tail`` is the end of the declared block (at least its last 4 bytes when it has
    them); ``run`` the CR/LF bytes right after it; ``after`` what follows ``run``;
    ``convention_seen`` whether an earlier record of the file followed the ClueWeb09
    convention; ``head_only`` whether the block is an HTTP head alone (a revisit), whose
    final blank line is its own.
    """
    expected = line_ending + line_ending
    if run == expected:
        return Verdict(True)  # whatever follows a proper separator is judged on its own
    convention = version in CONVENTION_VERSIONS and not head_only and block_tail.endswith(expected)
    if after is After.OTHER:
        if run.startswith(expected):  # a proper separator, then CR/LF that begin damage
            return Verdict(True, separator=len(expected))
        if convention and (convention_seen or line_ending == b"\n"):
            # the file's convention (shown by an earlier record, or by ClueWeb09's LF-only
            # 0.18 headers) puts the separator inside the declared bytes: the record is
            # whole, what follows is damage of its own
            return Verdict(True, len(expected), _CONVENTION, separator=0)
        return WRONG
    if run and convention_seen and version in CONVENTION_VERSIONS:
        # the file's records end on the convention's boundary (nothing after the declared
        # bytes): an odd run after this one shows its length does not
        return WRONG
    if run:
        return Verdict(
            True,
            0,
            Note("separator", f"unexpected record separator {run!r} (expected {expected!r})"),
        )
    if convention and (
        after is After.VERSION or convention_seen or (after is After.END and line_ending == b"\n")
    ):
        return Verdict(True, len(expected), _CONVENTION)
    return Verdict(True, 0, Note("separator", "record separator missing"))


def digest_disproves(
    *, digest: bytes | None, block: bytes, run: bytes, line_ending: bytes, head_only: bool = False
) -> int | None:
    """The block length the record's ``WARC-Block-Digest`` proves, when it is not the declared
    one: ``block`` (the declared bytes) is followed by the odd or missing separator ``run``;
    the candidate is the length that leaves exactly a proper separator (the declared block
    extended by the run's extra CR/LF bytes, or cut by the separator bytes it holds). Returns
    it only when the digest matches that block and not the declared one; else ``None`` (no
    digest, an unknown algorithm, or nothing proven). A head-only HTTP block (``head_only``)
    is never cut: its final blank line is its own, whatever a writer digested (webrecorder
    digests a revisit's head without it)."""
    if not digest:
        return None
    expected = line_ending + line_ending
    if len(run) > len(expected) and run.endswith(expected):
        candidate = block + run[: len(run) - len(expected)]
    elif len(run) < len(expected) and not head_only:
        k = len(expected) - len(run)
        if k > len(block) or block[len(block) - k :] + run != expected:
            return None
        candidate = block[: len(block) - k]
    else:
        return None
    if digest_matches(digest, candidate) and digest_matches(digest, block) is False:
        return len(candidate)
    return None
