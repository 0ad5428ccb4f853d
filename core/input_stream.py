"""``ctx.open()``: an input's bytes decompressed, as a file-like stream that knows its offsets.

A reader of a text or binary format that may arrive compressed (``seeds.urls.gz``,
``x.lines.zst``) reads through :class:`InputStream` and needs no codec code: the codec is
detected from the file's first bytes (every codec of the codec table:
gzip, zstd, LZ4, bzip2 and registered ones; :func:`crawlmill.formats.codecs.compression.iter_pieces`),
decompression is bounded by ``ctx.limits.max_decompressed_bytes``, and a compressed range
that cannot be decompressed is reported as damage (``ctx.report_damage``, with its compressed
offset and bytes) while reading goes on with the next member. A line is never joined across
such damage: :meth:`InputStream.readline` ends a line at the damaged range (the line then
has no ``\\n``). A member's bytes can be read only once the member has ended (its checksum
checked), so what a corrupt member (or a member cut at ``max_decompressed_bytes``) inflated to
before its fault is dropped with it; what a member cut by the end of the file inflated to is
read (a partial last line). A member that inflates beyond :data:`HOLD_BYTES` (a whole-file
gzip) is streamed instead, to bound memory: its bytes past the first ``HOLD_BYTES`` can be read
before its end, and a fault drops only its bytes not read yet.

Offsets: :meth:`InputStream.tell` is the offset of the next unread byte in the decompressed
stream (the file offset for a plain file), and :attr:`InputStream.space` says which
(:class:`~crawlmill.core.record.OffsetSpace` ``FILE`` or ``STREAM``), so
:meth:`InputStream.provenance` builds a record's ``source`` without knowing the codec.
:meth:`InputStream.member_offset` gives the compressed offset of the member holding the next
unread byte.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import TracebackType
from typing import BinaryIO

from crawlmill.formats.codecs.compression import Broken, compression_of, iter_pieces

from . import storage
from .problems import Damage
from .record import OffsetSpace, Provenance

__all__ = ["HOLD_BYTES", "InputStream", "open_input"]

#: decompressed bytes of a member held back until it ends (checksum checked); a larger member
#: is streamed (see the module docstring).
HOLD_BYTES = 8 << 20

#: compressed member starts kept for :meth:`InputStream.member_offset` beyond the buffer.
_KEEP_MEMBERS = 64


class InputStream:
    """The decompressed bytes of one input file (see the module docstring): ``read``,
    ``readline``, iteration by line, ``tell``, ``member_offset``, ``provenance``."""

    def __init__(
        self,
        path: str,
        report_damage: Callable[[Damage], None],
        *,
        max_decompressed_bytes: int = 1 << 62,
        max_line_bytes: int = 1 << 20,
    ) -> None:
        self.path = path
        self._fh: BinaryIO = storage.open_input(path)  # closed by close()
        #: the codec name (``"gzip"``, ``"zstd"``, ...) or ``None`` for a plain file.
        self.compression: str | None = compression_of(self._fh.read(16))
        self._fh.seek(0)
        #: which bytes :meth:`tell` counts.
        self.space = OffsetSpace.FILE if self.compression is None else OffsetSpace.STREAM
        self.max_line_bytes = max_line_bytes
        self._report = report_damage
        self._items = iter_pieces(
            self._fh, self.compression, max_decompressed_bytes=max_decompressed_bytes
        )
        self._buf = bytearray()
        self._base = 0  # stream offset of _buf[0]
        self._pos = 0  # index of the next unread byte in _buf
        self._eof = False
        self._breaks: list[int] = []  # stream offsets where damage cut the stream
        self._members: list[tuple[int, int]] = []  # (stream offset, compressed offset)
        self._held: list[bytes] = []  # pieces of the member being inflated, not yet readable
        self._held_size = 0
        self._streamed = False  # the member being inflated went past HOLD_BYTES

    # -- filling ---------------------------------------------------------------------------

    def _more(self) -> bool:
        """Make the next decompressed bytes readable (reporting damage met on the way): a
        member's pieces are held back until it ends, or until they pass
        :data:`HOLD_BYTES` (then it is streamed); false at the end of the input."""
        if self._eof:
            return False
        if self._pos:
            del self._buf[: self._pos]
            self._base += self._pos
            self._pos = 0
        before = len(self._buf)  # damage may release held bytes without a piece
        for item in self._items:
            if isinstance(item, Broken):
                self._damaged(item)
                continue
            if item.offset is None:  # a plain file: no member, no checksum
                self._buf += item.data
                if item.data:
                    return True
                continue
            if self._held and self._members and self._members[-1][1] != item.offset:
                self._release()  # defensive: a member that did not say it ended
            start = self._base + len(self._buf) + self._held_size
            if not self._members or self._members[-1][1] != item.offset:
                self._members.append((start, item.offset))
                del self._members[:-_KEEP_MEMBERS]
                self._streamed = False
            if item.data:
                self._held.append(item.data)
                self._held_size += len(item.data)
            # a member past HOLD_BYTES is streamed: each later piece is readable as it comes
            self._streamed = self._streamed or self._held_size > HOLD_BYTES
            if (item.end or self._streamed) and self._release():
                return True
        self._eof = True
        self._release()
        return len(self._buf) > before

    def _release(self) -> bool:
        """Move the held pieces into the readable buffer; true when that added bytes."""
        added = self._held_size
        for data in self._held:
            self._buf += data
        self._held.clear()
        self._held_size = 0
        return added > 0

    def _damaged(self, item: Broken) -> None:
        """Report a compressed range that could not be decompressed; the stream goes on
        after it, and no line is joined across it. The unread bytes a corrupt member handed
        out before its fault (``partial``) are dropped: its checksum does not vouch for
        them, they are part of the damage. A member cut by the end of the file keeps the
        bytes it inflated to (they are what was compressed)."""
        code = item.code  # set by the codec where the fault was found
        if item.partial and code != "truncated-member":
            self._held.clear()  # never readable: dropped with its member
            self._held_size = 0
        else:
            self._release()
        end = self._base + len(self._buf)
        if item.partial and code != "truncated-member":
            start = next((u for u, c in reversed(self._members) if c == item.offset), None)
            if start is not None and start >= self.tell():
                del self._buf[start - self._base :]
                end = start
        if not self._breaks or self._breaks[-1] != end:
            self._breaks.append(end)
        reason = f"{item.reason} (decompressed stream offset {end})"
        self._report(Damage(self.path, item.offset, reason, item.length, item.data, code))

    def _next_break(self) -> int | None:
        """Buffer index of the first damage cut after the read position, or ``None``."""
        here = self._base + self._pos
        while self._breaks and self._breaks[0] <= here:
            self._breaks.pop(0)
        return self._breaks[0] - self._base if self._breaks else None

    # -- reading ---------------------------------------------------------------------------

    def tell(self) -> int:
        """Offset of the next unread byte: in the file (plain) or the decompressed stream."""
        return self._base + self._pos

    def member_offset(self) -> int | None:
        """Compressed offset of the member (frame) holding the next unread byte; ``None``
        for a plain file."""
        if self.compression is None:
            return None
        if self._pos >= len(self._buf):
            self._more()
        here = self.tell()
        found = None
        for start, offset in self._members:
            if start > here:
                break
            found = offset
        return found

    def read(self, n: int = -1) -> bytes:
        """Up to ``n`` bytes (``n < 0``: all that remain); ``b""`` at the end."""
        if n < 0:
            while self._more():
                pass
            n = len(self._buf) - self._pos
        while len(self._buf) - self._pos < n and self._more():
            pass
        data = bytes(self._buf[self._pos : self._pos + n])
        self._pos += len(data)
        return data

    def readline(self, limit: int | None = None) -> bytes:
        """The next line through ``\\n``; at most ``limit`` bytes (default: the reader's
        ``max_record_bytes``), the rest of the input at its end, or the bytes before a
        damaged range (without ``\\n``). ``b""`` at the end."""
        limit = self.max_line_bytes if limit is None else max(1, limit)
        if not self._breaks:  # the fast path: a whole line in the buffer
            i = self._buf.find(b"\n", self._pos, self._pos + limit)
            if i >= 0:
                return self._take(i + 1)
        scanned = 0  # bytes after the read position known to hold no newline
        while True:
            stop = self._pos + limit
            cut = self._next_break()
            if cut is not None:
                stop = min(stop, cut)
            end = min(stop, len(self._buf))
            i = self._buf.find(b"\n", self._pos + scanned, end)
            if i >= 0:
                return self._take(i + 1)
            if end == stop:  # the limit or a damaged range, within the buffer
                return self._take(stop)
            scanned = end - self._pos
            if not self._more():  # _more moves the read position to buffer index 0
                return self._take(len(self._buf))

    def _take(self, end: int) -> bytes:
        data = bytes(self._buf[self._pos : end])
        self._pos = end
        return data

    def __iter__(self) -> Iterator[bytes]:
        """The lines, as :meth:`readline` gives them; :meth:`tell` follows each line. The
        whole lines buffered before the next damage are split at once (the fast path)."""
        while True:
            cut = self._next_break()
            end = len(self._buf) if cut is None else cut
            last = self._buf.rfind(b"\n", self._pos, end)
            if last >= 0:
                lines = bytes(self._buf[self._pos : last + 1]).split(b"\n")
                lines.pop()  # the empty tail after the last newline
                if max(map(len, lines)) < self.max_line_bytes:
                    for line in lines:
                        self._pos += len(line) + 1
                        yield line + b"\n"
                    continue
            line = self.readline()
            if not line:
                return
            yield line

    def provenance(self, offset: int, length: int, format: str) -> Provenance:
        """The ``source`` of a record read at stream offset ``offset`` (``length`` bytes)."""
        return Provenance(self.path, offset, length, format, self.space)

    # -- closing ---------------------------------------------------------------------------

    def close(self) -> None:
        """Close the file (and stop the decompressor)."""
        self._items.close()
        self._fh.close()

    def __enter__(self) -> InputStream:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open_input(
    path: str,
    report_damage: Callable[[Damage], None],
    max_decompressed_bytes: int,
    max_line_bytes: int,
) -> InputStream:
    """An :class:`InputStream` over ``path`` (what ``ReadContext.open`` returns)."""
    return InputStream(
        path,
        report_damage,
        max_decompressed_bytes=max_decompressed_bytes,
        max_line_bytes=max_line_bytes,
    )
