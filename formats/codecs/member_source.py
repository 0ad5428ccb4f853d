"""Compressed members a writer copies (unchanged records): from the reader's memory, else the file.

A member reader (:func:`crawlmill.formats.codecs.compression.iter_pieces` on gzip) reads the
compressed bytes of a run of members into a buffer before inflating them; while it hands out
their pieces, :class:`HeldMembers` lends that buffer, so a writer copying the member of a
record just read takes the bytes with a memory copy. :class:`MemberSource` asks the lender first
and reads the span back from the input file otherwise (a member of a buffer the reader has
moved past, a record from a shuffle, a path without a lender). The lender also passes on the
reader's word for the members it verified (:mod:`.member_vouch`): a span copied from memory
that the reader inflated as exactly one whole, checked member comes with its ``(CRC32,
ISIZE)``; a span read from the file never does.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import BinaryIO

from .member_vouch import Run, Vouch, plain_vouch

__all__ = ["HeldMembers", "MemberSource"]


def _copy_pure(
    buf: bytes | bytearray, pos: int, length: int, vouch: bool
) -> tuple[bytes, Vouch | None] | None:
    """A copy of ``buf[pos:pos + length]`` and, with ``vouch``, its
    :func:`~.member_vouch.plain_vouch`; ``None`` when the span is not inside ``buf`` (or is
    empty). The compiled kernel's reference."""
    if pos < 0 or length <= 0 or pos + length > len(buf):
        return None
    with memoryview(buf) as view:
        data = view[pos : pos + length].tobytes()
    return data, plain_vouch(data) if vouch else None


#: what :class:`HeldMembers` holds: ``(buffer, file offset of buffer[0], file offset after its
#: last held byte, verified members {offset: length or (length, run)} or None)``
Held = tuple[bytes | bytearray, int, int, dict | None]


def _take_pure(
    held: Held | None, offset: int, length: int, vouch: bool
) -> tuple[bytes, Vouch | None] | None:
    """What :class:`HeldMembers` lends of the file's bytes ``[offset, offset + length)`` (a
    copy) and, with ``vouch``, the reader's word for it (see :meth:`HeldMembers.get_vouched`);
    ``None`` when the span is not held. The compiled kernel's reference."""
    if type(held) is not tuple or len(held) != 4 or length <= 0:
        return None
    buf, base, end, verified = held
    if offset < base or offset + length > end:
        return None
    entry = verified.get(offset) if vouch and verified is not None else None
    if type(entry) is tuple:  # a member of a run: its exactness is checked on this ask
        entry = entry[0] if entry[1].exact() else None
    return _copy_pure(buf, offset - base, length, entry == length)


#: the compiled take (formats/warc/_warcfast.c's member_take, which copies with its
#: member_copy), unless ``CRAWLMILL_PURE=1``; ``None``: :func:`_take_pure` alone (the same
#: answers).
_KERNEL_TAKE = None
if os.environ.get("CRAWLMILL_PURE", "") in ("", "0"):
    with contextlib.suppress(ImportError):  # (an install without a compiler)
        from ..warc._warcfast import member_take as _KERNEL_TAKE


def _released() -> None:
    """What a pickled :class:`HeldMembers` becomes: nothing (its buffer stays in its process)."""
    return None


class HeldMembers:
    """The compressed bytes a member reader holds right now, lent to writers of its records.

    The reader :meth:`hold` s a buffer while it hands out the pieces inflated from it and
    :meth:`release` s it before the buffer is written again; :meth:`get` copies a span of it.
    A span outside the held bytes, or a buffer released while it was being copied (another
    thread), gives ``None``: the caller reads the file instead. It holds at most the buffer the
    reader holds anyway, and pickles as ``None`` (a record sent to another process carries no
    buffer).

    ``verified`` (given to :meth:`hold`, filled by the reader as it goes) maps the file offset
    of each member of the buffer that the reader inflated as exactly one whole member, its
    trailer checked, to its compressed length, or to ``(length, run)`` for a member of a run
    inflated in one call, vouched for when the :class:`~.member_vouch.Run` proves exact:
    :meth:`get_vouched` passes on the reader's word for such a member (:mod:`.member_vouch`).

    A record reader may also say which objects a member of the held buffer inflates to
    exactly (:meth:`note_exact`: the parts it made of it, in order); a writer whose parts are
    those very objects knows their CRC-32 is the member's (:meth:`exact_parts`). Forgotten
    with the buffer."""

    __slots__ = ("_exact", "_gen", "_held")

    def __init__(self) -> None:
        self._gen = 0
        #: what is held (:data:`Held`), or ``None``
        self._held: Held | None = None
        #: member offset -> the parts its inflated bytes are (:meth:`note_exact`)
        self._exact: dict[int, tuple] = {}

    def hold(
        self,
        buf: bytes | bytearray,
        base: int,
        end: int,
        verified: dict[int, int | tuple[int, Run]] | None = None,
    ) -> None:
        """Lend ``buf``, which holds the file's bytes ``[base, end)`` from ``buf[0]`` on;
        ``verified``: the members of it the reader vouches for (see the class doc)."""
        self._gen += 1
        self._held = (buf, base, end, verified)
        if self._exact:
            self._exact = {}

    def release(self) -> None:
        """Stop lending the held buffer (call it before writing into that buffer again)."""
        self._gen += 1
        self._held = None
        if self._exact:
            self._exact = {}

    def note_exact(self, offset: int, parts: tuple) -> None:
        """Say that the member at file ``offset`` of the held buffer inflates to exactly the
        concatenation of ``parts`` (the objects the reader made of it; a reader's framer
        knows it when the member's decompressed range is the record's and the parts are its
        consecutive slices). Kept until the buffer is released."""
        if self._held is not None:
            self._exact[offset] = parts

    def exact_parts(self, offset: int) -> tuple | None:
        """The parts :meth:`note_exact` gave for the member at ``offset`` of the held buffer,
        or ``None``."""
        return self._exact.get(offset)

    def get(self, offset: int, length: int) -> bytes | None:
        """A copy of the file's bytes ``[offset, offset + length)``, or ``None`` when they are
        not (or no longer) held."""
        got = self._copy(offset, length, False)
        return None if got is None else got[0]

    def get_vouched(self, offset: int, length: int) -> tuple[bytes, Vouch | None] | None:
        """:meth:`get`'s copy and the reader's word for it: ``(CRC32, ISIZE)`` when the span is
        a member the reader verified and its header is the plain one
        (:func:`~.member_vouch.plain_vouch`), else ``None``."""
        return self._copy(offset, length, True)

    def _copy(self, offset: int, length: int, vouch: bool) -> tuple[bytes, Vouch | None] | None:
        """The copy and, with ``vouch``, the reader's word for it (see :meth:`get_vouched`)."""
        gen = self._gen
        held = self._held
        got = None
        if _KERNEL_TAKE is not None:
            got = _KERNEL_TAKE(held, offset, length, vouch)
        if got is None:  # (no kernel, a span not held, or one it leaves to the pure function)
            got = _take_pure(held, offset, length, vouch)
        if self._gen != gen:
            return None  # released (and maybe overwritten) while copying: not these bytes
        return got

    def __reduce__(self):
        return (_released, ())


def _open_local(path: str) -> BinaryIO:
    return open(path, "rb")  # noqa: SIM115 - closed in MemberSource.close()


class MemberSource:
    """Reads byte spans (gzip members) back from input files, keeping each file open until
    :meth:`close`; a writer uses it to copy the members of unchanged records. ``from_memory``
    and ``from_file`` count the spans taken from a reader's :class:`HeldMembers` and read
    from a file. ``opener(path)`` opens a file to read spans (default: ``open(path, "rb")``;
    the storage layer's ranged opener for a URL, so a span read fetches only that span)."""

    def __init__(self, opener: Callable[[str], BinaryIO] | None = None) -> None:
        self._open = opener or _open_local
        self._files: dict[str, BinaryIO] = {}
        self.from_memory = 0
        self.from_file = 0

    def read(
        self, path: str, offset: int, length: int, held: HeldMembers | None = None
    ) -> bytes | None:
        """``length`` bytes at ``offset`` of ``path``, or ``None`` when they cannot be read:
        copied from ``held`` (the reader's buffer over ``path``) when it still holds them,
        else read from the file."""
        if held is not None:
            data = held.get(offset, length)
            if data is not None:
                self.from_memory += 1
                return data
        return self._read_file(path, offset, length)

    def read_vouched(
        self, path: str, offset: int, length: int, held: HeldMembers | None = None
    ) -> tuple[bytes | None, Vouch | None]:
        """:meth:`read`'s bytes and, for a span copied from ``held`` that the reader vouches
        for, its word (:meth:`HeldMembers.get_vouched`); a span read from the file has none."""
        if held is not None:
            got = held.get_vouched(offset, length)
            if got is not None:
                self.from_memory += 1
                return got
        return self._read_file(path, offset, length), None

    def _read_file(self, path: str, offset: int, length: int) -> bytes | None:
        fh = self._files.get(path)
        if fh is None:
            try:
                fh = self._open(path)
            except OSError:
                return None
            self._files[path] = fh
        try:
            fh.seek(offset)
            data = fh.read(length)
        except OSError:
            return None
        if len(data) != length:
            return None
        self.from_file += 1
        return data

    def close(self) -> None:
        """Close every file opened so far."""
        for fh in self._files.values():
            fh.close()
        self._files.clear()
