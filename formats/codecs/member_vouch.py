"""A member reader's word for a gzip member it inflated: what lets a writer copy it uninflated.

A writer copies an unchanged record's input gzip member only when it is one RFC 1952 member
that inflates to exactly the record (:func:`~crawlmill.formats.codecs.gzip_member.inflates_to`:
a second, stdlib-zlib inflate). The member reader inflated that member moments before; where
it can tell that a span of the file is exactly one whole member whose CRC32 and ISIZE trailer
its decoder checked against what came out, it *vouches* for the span
(:class:`~crawlmill.formats.codecs.member_source.HeldMembers`), and the writer checks only that
the bytes it writes have that CRC32 and length (:func:`holds`), as every gzip reader checks a
member's data. What the reader vouches for, and nothing else:

* a member inflated on its own (one decoder, its end reached with no byte left over: the
  decoder checked CRC32 and ISIZE), or a member of a run inflated in one call by a multi-member
  decoder (which checks every member's trailer) when the run's guessed member starts are
  provably its real ones (:func:`run_is_exact`);
* whose header is the plain 10-byte one (:func:`plain_vouch`: ``1f 8b 08``, FLG 0: no reserved
  bit, no FEXTRA, FNAME, FCOMMENT or FHCRC field, which the reader's decoder does not check as
  strictly as RFC 1952 asks).

A member read back from the file, a damaged, repaired or truncated member (the sequential,
checked path), a member with optional header fields, and a run whose member starts could be
wrong get no word: the writer inflates them again, as before.

The reader's decoder is ISA-L's where installed; it accepts a few deflate streams that zlib
rejects (Huffman code sets zlib calls incomplete), so such a member, with a right trailer, is
copied as the input holds it rather than compressed anew.
"""

from __future__ import annotations

import re
import struct
import zlib
from bisect import bisect_left

try:  # pragma: no cover - depends on the installation
    from isal.isal_zlib import crc32 as _crc32
except ImportError:  # pragma: no cover
    _crc32 = zlib.crc32

__all__ = [
    "PLAIN_HEADER",
    "Run",
    "Vouch",
    "holds",
    "holds_length",
    "plain_vouch",
    "run_is_exact",
    "run_is_exact_scanned",
]

#: a member's word: ``(CRC32, ISIZE)`` of its trailer, checked by the decoder that inflated it.
Vouch = tuple[int, int]
#: ID1 ID2 CM FLG of a plain gzip header: deflate, no flag set.
PLAIN_HEADER = b"\x1f\x8b\x08\x00"
#: the magic every gzip member of a ``.gz`` file starts with (ID1 ID2 CM); ``re`` finds all
#: of it about twice as fast as ``bytearray.count``.
_MAGIC = re.compile(re.escape(PLAIN_HEADER[:3]))
_TRAILER = struct.Struct("<II")
#: header (10) + the shortest deflate stream (2) + trailer (8)
_SHORTEST = 20


def plain_vouch(member: bytes | bytearray | memoryview) -> Vouch | None:
    """``(CRC32, ISIZE)`` from the trailer of ``member`` when its header is the plain one
    (:data:`PLAIN_HEADER`), else ``None``. Call it only for a span a decoder inflated as
    exactly one member with its trailer checked."""
    if len(member) < _SHORTEST or member[:4] != PLAIN_HEADER:
        return None
    return _TRAILER.unpack_from(member, len(member) - 8)


def holds(vouch: Vouch, data: bytes | tuple[bytes, ...]) -> bool:
    """Whether ``data`` (bytes, or a tuple of parts meaning their concatenation, which is
    then never built) has the length and CRC32 the vouched member's trailer gives."""
    crc, isize = vouch
    if type(data) is not tuple:
        return len(data) == isize and _crc32(data) == crc
    if sum(map(len, data)) != isize:
        return False
    value = 0
    for part in data:
        value = _crc32(part, value)
    return value == crc


def holds_length(vouch: Vouch, data: bytes | tuple[bytes, ...]) -> bool:
    """Whether ``data`` (bytes or a tuple of parts) has the vouched member's ISIZE: all that
    is left to check when ``data`` are the very objects the reader made of that member's
    inflated bytes (:meth:`~.member_source.HeldMembers.exact_parts`), whose CRC-32 is
    therefore the trailer's."""
    size = sum(map(len, data)) if type(data) is tuple else len(data)
    return size == vouch[1]


def run_is_exact(buf: bytes | bytearray, bounds: list[tuple[int, int]], sizes: list[int]) -> bool:
    """Whether guessed member spans ``bounds`` of ``buf`` are the real members of a run that a
    multi-member decoder inflated to exactly ``sum(sizes)`` bytes, ``sizes`` being the ISIZE
    fields read at each guessed end (the run starting at a real member start).

    Every real member starts with the magic ``1f 8b 08``: when the run holds no magic but
    the guessed starts, every real start is a guessed one. A false start (the magic inside a
    member's compressed bytes) cuts a member into pieces, and zero bytes after a member (which
    the decoder skips) shift the ISIZE field read at its guessed end; either makes a field
    read differ from its member's size, and the exact sum then needs a zero field (refused
    here) or fields that happen to make up the difference, whose ``(CRC32, ISIZE)`` words the
    bytes of a record match only by a CRC32 coincidence (or a file crafted to forge one)."""
    if not bounds or 0 in sizes:
        return False
    return len(_MAGIC.findall(buf, bounds[0][0], bounds[-1][1])) == len(bounds)


def run_is_exact_scanned(
    others: list[int], bounds: list[tuple[int, int]], sizes: list[int]
) -> bool:
    """:func:`run_is_exact` from the reader's scan of the buffer instead of a second one:
    ``others`` are the sorted offsets of every gzip magic of the buffer that the scan did not
    take for a member start (``member_scan`` of :mod:`.gzip_parallel`). The guessed starts
    ``bounds`` are consecutive member starts of that scan, so the run holds no magic but them
    exactly when none of ``others`` lies inside it (a magic cannot overlap itself or a start)."""
    if not bounds or 0 in sizes:
        return False
    if not others:
        return True
    k = bisect_left(others, bounds[0][0])
    return k == len(others) or others[k] >= bounds[-1][1]


class Run:
    """A run of members a multi-member decoder inflated in one call, whose exactness
    (:func:`run_is_exact`) is checked when a writer first asks for one of its members, not
    by every reader (a scan of its compressed bytes, or with ``others``, the offsets of the
    magics the reader's own scan of ``buf`` did not take for member starts, a look-up:
    :func:`run_is_exact_scanned`). Ask only while the reader still holds ``buf``
    (:class:`~crawlmill.formats.codecs.member_source.HeldMembers` does)."""

    __slots__ = ("_args", "_exact", "_others")

    def __init__(
        self,
        buf: bytes | bytearray,
        bounds: list[tuple[int, int]],
        sizes: list[int],
        others: list[int] | None = None,
    ) -> None:
        self._args: tuple | None = (buf, bounds, sizes)
        self._others = others
        self._exact: bool | None = None

    def exact(self) -> bool:
        """:func:`run_is_exact` of the run (computed once)."""
        if self._exact is None:
            buf, bounds, sizes = self._args
            if self._others is None:
                self._exact = run_is_exact(buf, bounds, sizes)
            else:
                self._exact = run_is_exact_scanned(self._others, bounds, sizes)
            self._args = self._others = None  # the buffer is the reader's: not kept
        return self._exact
