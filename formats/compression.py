"""Compression detection and bounded, member-aware decompression (gzip, zstd, LZ4) for every format.

Readers of record-per-member formats (WARC, ARC) need more than a decompressed byte stream:
they need to know where each gzip member (or zstd frame) starts in the *compressed* file, so
that a record's provenance and a damaged range can be reported as CDX-style offsets, and they
need decompression to stop, report and resync instead of raising on a truncated or corrupt
member. :func:`iter_pieces` gives exactly that: a stream of :class:`Piece` (decompressed bytes
tagged with their member's compressed offset) and :class:`Broken` (a compressed range that
could not be decompressed) items. Output per item and per member is bounded, so a gzip bomb
cannot exhaust memory.

``isal.isal_zlib`` (about twice as fast as zlib at inflating) is used when importable, with the
standard :mod:`zlib` as fallback. Both release the GIL while inflating, so :func:`iter_pieces`
can inflate gzip members in worker threads (``threads=``) and :func:`prefetch` can run any
piece stream one step ahead in a background thread.
"""

from __future__ import annotations

import gzip
import re
import struct
import zlib
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from .gzip_member import flag_problem, header_length, inflates_to, member_problem
from .salvage import join_pieces, salvage

#: the file-name suffixes that say a file's bytes are compressed (``x.warc.gz``,
#: ``x.warc.zst``, FastWARC's ``x.warc.lz4``): the one list naming and detection strip before
#: a format suffix. Lower case; compare with the lower-cased name.
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".zst", ".zstd", ".lz4", ".xz", ".br")

try:  # pragma: no cover - depends on the installed packages
    from isal import isal_zlib as _inflate_lib
except ImportError:  # pragma: no cover
    _inflate_lib = zlib  # type: ignore[assignment]

__all__ = [
    "COMPRESSION_SUFFIXES",
    "GZIP_MAGIC",
    "ZSTD_DICT_MAGIC",
    "ZSTD_MAGIC",
    "ZSTD_WARC_DICT_MAGIC",
    "Broken",
    "MemberSource",
    "Piece",
    "compression_of",
    "damaged_gzip_header",
    "inflates_to",
    "inflate_backend",
    "iter_pieces",
    "member_bound",
    "member_problem",
    "prefetch",
    "read_head",
]

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
LZ4_MAGIC = b"\x04\x22\x4d\x18"
ZSTD_DICT_MAGIC = b"\x37\xa4\x30\xec"
#: magic of the skippable frame that holds the dictionary of a ``.warc.zst`` (0x184D2A5D LE).
ZSTD_WARC_DICT_MAGIC = b"\x5d\x2a\x4d\x18"
#: the magic that starts a frame, by format name (resync target after damage).
_FRAME_MAGIC = {"zstd": ZSTD_MAGIC, "LZ4": LZ4_MAGIC}
_GZIP_MEMBER_START = b"\x1f\x8b\x08"
_ZLIB_ERRORS: tuple[type[BaseException], ...] = (zlib.error, _inflate_lib.error, EOFError)

#: compressed bytes read from the file at a time.
READ_SIZE = 1 << 20
#: largest decompressed piece handed out at once (bounds memory for huge or hostile members).
PIECE_SIZE = 8 << 20
#: bytes of a file's start checked for a gzip header with a damaged magic.
RAW_HEADER_SCAN = 64 << 10
#: compressed bytes kept from a member's start so a corrupt member can be rescanned.
RESCAN_WINDOW = 16 << 20
#: how a damage reason names the member bound of :func:`iter_pieces` (see :func:`member_bound`).
_MEMBER_BOUND = "the member bound of a record-per-member file (one record: max_record_bytes + max_header_bytes + 1 MiB)"
#: largest dictionary accepted from a ``.warc.zst`` dictionary frame (decompressed).
MAX_DICT_SIZE = 64 << 20


class MemberSource:
    """Reads byte spans (gzip members) back from input files, keeping each file open until
    :meth:`close`; a writer uses it to copy the members of unchanged records."""

    def __init__(self) -> None:
        self._files: dict[str, BinaryIO] = {}

    def read(self, path: str, offset: int, length: int) -> bytes | None:
        """``length`` bytes at ``offset`` of ``path``, or ``None`` when they cannot be read."""
        fh = self._files.get(path)
        if fh is None:
            try:
                fh = open(path, "rb")  # noqa: SIM115 - closed in close()
            except OSError:
                return None
            self._files[path] = fh
        try:
            fh.seek(offset)
            data = fh.read(length)
        except OSError:
            return None
        return data if len(data) == length else None

    def close(self) -> None:
        """Close every file opened so far."""
        for fh in self._files.values():
            fh.close()
        self._files.clear()


def inflate_backend() -> str:
    """Name of the inflate implementation in use: ``"isal"`` or ``"zlib"``."""
    return "isal" if _inflate_lib is not zlib else "zlib"


def compression_of(head: bytes) -> str | None:
    """``"gzip"``, ``"zstd"``, ``"lz4"`` or ``None`` (uncompressed) from a file's first bytes.

    A zstd WARC that starts with its dictionary (a skippable frame, magic ``0x184D2A5D``) is
    ``"zstd"`` too.
    """
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(ZSTD_MAGIC) or head.startswith(ZSTD_WARC_DICT_MAGIC):
        return "zstd"
    if head.startswith(LZ4_MAGIC):
        return "lz4"
    return None


def damaged_gzip_header(head: bytes) -> int | None:
    """Length of the gzip header that starts ``head`` when its magic is damaged but the rest
    is a gzip header (CM = 8, FLG and optional fields valid) followed by a deflate stream that
    inflates: a whole-file gzip whose first bytes took a hit can still be read. ``None`` for
    an intact magic and for anything that is not such a header."""
    if len(head) < 18 or head[2] != 8 or head[:2] == GZIP_MAGIC:
        return None
    hlen, problem = header_length(GZIP_MAGIC + head[2:])
    if problem is not None:
        return None
    dec = zlib.decompressobj(-zlib.MAX_WBITS)
    try:
        out = dec.decompress(head[hlen:], 256)
    except zlib.error:
        return None
    return hlen if out or dec.eof else None


@dataclass(slots=True)
class Piece:
    """Decompressed bytes of one member (gzip member, zstd frame) or of a plain file.

    ``offset`` is the compressed offset where the member starts (``None`` for plain files);
    ``end`` is true on the last piece of a member, which also carries the member's compressed
    ``length``. ``member`` counts members from 0. A piece may also hold several whole members
    (``members`` lists them; ``offset``/``length`` then span them all).
    """

    data: bytes
    offset: int | None
    end: bool = False
    length: int | None = None
    member: int = 0
    #: for a piece holding several whole members (parallel inflate): one
    #: ``(data_start, data_end, offset, length)`` per member, in order.
    members: list[tuple[int, int, int, int]] | None = None


@dataclass(slots=True)
class Broken:
    """A compressed range that could not be decompressed (truncated, corrupt, not a member).

    ``offset``/``length`` are positions in the compressed file; ``data`` holds the skipped
    compressed bytes (at most ``RESCAN_WINDOW``). ``partial`` is true when pieces of this member
    were already handed out before the problem was seen (their bytes are incomplete).
    ``error_offset`` is the compressed offset where decoding failed, when it failed inside
    the member (every byte decoded before it was handed out).
    """

    offset: int
    length: int
    reason: str
    data: bytes = b""
    partial: bool = False
    error_offset: int | None = None


class _Input:
    """A window over a binary file: ``data`` holds file bytes from file offset ``base``."""

    __slots__ = ("base", "data", "eof", "fh")

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.data = b""
        self.base = 0
        self.eof = False

    def fill(self, keep_from: int) -> bool:
        """Drop bytes before file offset ``keep_from``, read more; false at end of file."""
        if self.eof:
            return False
        chunk = self.fh.read(READ_SIZE)
        cut = max(0, keep_from - self.base)
        self.data = self.data[cut:] + chunk
        self.base += cut
        if not chunk:
            self.eof = True
            return False
        return True

    def find(self, needle: bytes, start: int, hold: int | None = None) -> int:
        """File offset of ``needle`` at or after file offset ``start``, reading on; -1 at EOF.
        Bytes from file offset ``hold`` on stay in the window while they are at most
        ``RESCAN_WINDOW`` (a damaged range's bytes, for its report)."""
        while True:
            i = self.data.find(needle, max(0, start - self.base))
            if i >= 0:
                return self.base + i
            # keep a tail that could hold the start of ``needle``
            keep = max(start, self.base + len(self.data) - len(needle) + 1)
            if hold is not None and self.base + len(self.data) - hold < RESCAN_WINDOW:
                keep = min(keep, max(hold, self.base))
            if not self.fill(keep):
                return -1


def iter_pieces(
    fh: BinaryIO,
    kind: str | None,
    *,
    max_decompressed_bytes: int = 1 << 62,
    piece_size: int = PIECE_SIZE,
    threads: int = 0,
    batch: bool = False,
    max_member_bytes: int | None = None,
) -> Iterator[Piece | Broken]:
    """Decompress ``fh`` (``kind`` from :func:`compression_of`) member by member.

    Yields :class:`Piece` items in file order and a :class:`Broken` item for every compressed
    range that could not be decompressed; after a ``Broken`` it resyncs on the next member
    (gzip magic) and goes on. A member that would inflate beyond ``max_decompressed_bytes`` is
    cut there and reported as ``Broken``.

    ``max_member_bytes`` bounds the members (frames) of a multi-member file: once one member
    has ended, a later member that inflates beyond it is not inflated further and yields no
    piece, only one ``Broken`` with its compressed bytes (its pieces are held back until it
    ends, so memory stays within the bound plus a piece). The first member is a stream,
    bounded only by ``max_decompressed_bytes``: a whole-file gzip (ClueWeb09) is one large
    member, and junk inside it that deflates like a bomb (a 64 MiB header line) is followed
    by good records; its pieces are handed out as they come (memory stays at a piece), so
    the consumer skips the junk and the stream bound bounds the time a real bomb costs.
    :func:`member_bound` gives the bound for record-per-member files.

    With ``threads > 0`` gzip members are inflated ahead by that many worker threads, and by
    the consuming thread whenever it would otherwise wait (isal and zlib release the GIL; isal
    inflates a run of whole members in one call): member starts are guessed from the gzip
    magic and every guess is verified (each member must end exactly where the next begins,
    the trailers' sizes must add up); at the first member that does not verify, reading falls
    back to the sequential path from that member, so results are identical. Only with
    ``batch=True`` may one piece hold several whole members (listed in ``Piece.members``);
    otherwise every piece is one whole member.
    """
    limit, bound = max_decompressed_bytes, max_member_bytes
    if kind == "gzip" and threads > 0:
        yield from _iter_gzip_parallel(fh, limit, piece_size, threads, batch, bound)
    elif kind == "gzip":
        yield from _iter_gzip(fh, limit, piece_size, member_limit=bound)
    elif kind == "zstd":
        yield from _iter_zstd(fh, limit, piece_size, bound)
    elif kind == "lz4":
        yield from _iter_lz4(fh, limit, piece_size, bound)
    else:
        offset = 0
        while chunk := fh.read(max(piece_size, READ_SIZE)):
            yield Piece(chunk, None, member=0)
            offset += len(chunk)


_DONE = object()


def prefetch(
    items: Iterator[Piece | Broken], *, batch_bytes: int = 1 << 20, depth: int = 8
) -> Iterator[Piece | Broken]:
    """Run ``items`` (typically :func:`iter_pieces`) in a background thread, ``depth`` batches
    of about ``batch_bytes`` ahead, so inflating (which releases the GIL in isal and zstd)
    overlaps with parsing. Order and content are unchanged; exceptions are re-raised here.
    Closing the returned generator stops and joins the thread."""
    import queue
    import threading

    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(obj) -> bool:
        while not stop.is_set():
            try:
                q.put(obj, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        batch: list = []
        size = 0
        try:
            for item in items:
                batch.append(item)
                size += len(item.data)
                if size >= batch_bytes or len(batch) >= 256:
                    if not put(batch):
                        return
                    batch, size = [], 0
            if batch and not put(batch):
                return
            put(_DONE)
        except BaseException as exc:  # handed to the consumer
            put(exc)

    thread = threading.Thread(target=produce, name="crawlmill-inflate", daemon=True)
    thread.start()
    try:
        while True:
            batch = q.get()
            if batch is _DONE:
                return
            if isinstance(batch, BaseException):
                raise batch
            yield from batch
    finally:
        stop.set()
        thread.join()


def _skip_to_magic(inp: _Input, start: int, magic: bytes, hold: int | None = None) -> int:
    """File offset of the next ``magic`` at or after ``start`` (or the file size at EOF);
    bytes from ``hold`` on stay in the window (see :meth:`_Input.find`)."""
    found = inp.find(magic, start, hold)
    if found >= 0:
        return found
    return inp.base + len(inp.data)


def _window(inp: _Input, start: int, end: int) -> bytes:
    """The file bytes ``[start, end)`` still held in the input window (bounded)."""
    lo = max(0, start - inp.base)
    hi = max(lo, min(len(inp.data), end - inp.base, lo + RESCAN_WINDOW))
    return inp.data[lo:hi]


def _span(inp: _Input, start: int, end: int, step: int) -> Iterator[bytes]:
    """The compressed bytes ``[start, end)`` in ``step``-sized chunks: from the input window
    when it still holds them, else read again from the file (its position is restored)."""
    if start >= inp.base:
        for i in range(start - inp.base, end - inp.base, step):
            yield inp.data[i : min(i + step, end - inp.base)]
        return
    fh = inp.fh
    here = fh.tell()
    try:
        fh.seek(start)
        left = end - start
        while left > 0 and (chunk := fh.read(min(step, left))):
            left -= len(chunk)
            yield chunk
    finally:
        fh.seek(here)


def _salvage(
    inp: _Input,
    start: int,
    pos: int,
    failing: bytes,
    new_decoder,
    decode,
    errors: tuple[type[BaseException], ...],
    produced: int,
    cap: int,
    step: int,
):
    """:func:`~crawlmill.formats.salvage.salvage` of the member that starts at ``start`` and
    failed on the feed ``failing`` at ``pos``, after ``produced`` bytes were handed out."""
    chunks = _span(inp, start, pos, step)
    try:
        return salvage(chunks, failing, new_decoder(), decode, errors, produced, max(0, cap))
    finally:
        chunks.close()


def _inflate_steps(cap: int):
    """A ``decode`` for :func:`salvage`: zlib/isal output in pieces of at most ``cap``."""

    def decode(dec, chunk) -> Iterator[bytes]:
        yield dec.decompress(chunk, cap)
        while dec.unconsumed_tail:
            yield dec.decompress(dec.unconsumed_tail, cap)

    return decode


def _whole_call(dec, chunk) -> Iterator[bytes]:
    """A ``decode`` for :func:`salvage`: one call of a zstd or LZ4 decoder."""
    yield dec.decompress(bytes(chunk))


def _iter_gzip(
    fh: BinaryIO,
    limit: int,
    piece_size: int,
    start: int = 0,
    member: int = 0,
    member_limit: int | None = None,
    multi: bool = False,
) -> Iterator[Piece | Broken]:
    """Sequential, fully checked member-by-member inflate from file offset ``start``.

    ``limit`` bounds every member; once a member has ended (``multi``: the file holds several
    members), later members are bounded by ``member_limit`` too, and their pieces are held
    back until the member ends, so a member that inflates beyond it hands out nothing: it is
    one :class:`Broken` holding its compressed bytes."""
    inp = _Input(fh)
    if start:
        fh.seek(start)
        inp.base = start
    pos = start  # file offset of the next unread compressed byte
    feed_size = 1 << 16
    inp.fill(start)
    while True:
        if pos - inp.base + 18 > len(inp.data) and not inp.eof:
            inp.fill(pos)
        if pos - inp.base >= len(inp.data):
            return
        rel = pos - inp.base
        body = 0  # header bytes before a raw deflate stream (a damaged magic at the start)
        if (
            not inp.data.startswith(_GZIP_MEMBER_START, rel)
            and pos == 0
            and (hlen := damaged_gzip_header(bytes(inp.data[:RAW_HEADER_SCAN]))) is not None
        ):
            body = hlen
        elif not inp.data.startswith(_GZIP_MEMBER_START, rel):
            nxt = _skip_to_magic(inp, pos + 1, _GZIP_MEMBER_START, pos)
            what = (
                "trailing bytes after the last gzip member"
                if nxt >= inp.base + len(inp.data)
                else ("bytes that are not a gzip member")
            )
            yield Broken(pos, nxt - pos, f"{nxt - pos} {what}", _window(inp, pos, nxt))
            pos = nxt
            continue
        start = pos
        # RFC 1952: a compliant decompressor rejects reserved FLG bits; isal ignores them
        flagged = flag_problem(inp.data[rel + 3]) if len(inp.data) > rel + 3 else None
        wbits = 31
        if body:
            flagged = (
                f"damaged gzip magic {bytes(inp.data[rel : rel + 2]).hex()} (1f8b expected);"
                f" the deflate stream after its {body}-byte header was inflated"
            )
            wbits = -zlib.MAX_WBITS
            pos += body
        dec = _inflate_lib.decompressobj(wbits)
        produced = 0
        partial = False
        error: str | None = None
        error_at: int | None = None
        bound, bound_name = limit, "max_decompressed_bytes"
        if multi and member_limit is not None and member_limit < limit:
            bound, bound_name = member_limit, _MEMBER_BOUND
        held: deque[bytes] | None = deque() if bound < limit else None
        while True:
            rel = pos - inp.base
            if rel >= len(inp.data):
                keep = start if pos - start <= RESCAN_WINDOW else pos
                if not inp.fill(keep):
                    error = f"gzip member truncated: file ends after {pos - start} compressed bytes"
                    break
                rel = pos - inp.base
            feed = memoryview(inp.data)[rel : rel + feed_size]
            try:
                out = dec.decompress(feed, piece_size)
            except _ZLIB_ERRORS as exc:
                # the call's output is lost: replay the member to hand out all that decoded
                saved = _salvage(
                    inp, start + body, pos, bytes(feed),
                    lambda w=wbits: _inflate_lib.decompressobj(w),
                    _inflate_steps(piece_size), _ZLIB_ERRORS, produced, bound - produced, 1 << 16,
                )  # fmt: skip
                for data in join_pieces(saved.pieces, piece_size):
                    produced += len(data)
                    if held is not None:
                        held.append(data)
                    else:
                        partial = True
                        yield Piece(data, start, member=member)
                error_at = pos + saved.consumed
                error = (
                    f"corrupt gzip member ({exc}) at compressed byte {error_at},"
                    f" after {produced} inflated bytes"
                )
                break
            consumed = len(feed) - len(dec.unconsumed_tail)
            if dec.eof:
                consumed -= len(dec.unused_data)
                if body:  # a raw deflate stream: its gzip trailer follows
                    consumed += min(8, len(dec.unused_data))
            pos += consumed
            produced += len(out)
            if produced > bound:
                error = f"gzip member inflates beyond {bound_name}={bound}; stopped there"
                held = None  # the compressed bytes go to the Broken, not the inflated ones
                break
            if dec.eof:
                length = pos - start
                while held:
                    yield Piece(held.popleft(), start, member=member)
                yield Piece(out, start, end=True, length=length, member=member)
                if flagged is not None:
                    # inflated whole (its records are delivered) but not a compliant member
                    yield Broken(
                        start,
                        length,
                        f"gzip member header not RFC 1952 compliant: {flagged}",
                        _window(inp, start, pos) if start >= inp.base else b"",
                        partial=True,
                        error_offset=start + 3,
                    )
                member += 1
                multi = True
                # adapt the input slice to the member size (small copies of unused_data)
                feed_size = min(1 << 20, max(1 << 14, 2 * length))
                break
            if out and held is not None:
                held.append(out)
            elif out:
                partial = True
                yield Piece(out, start, member=member)
        if error is None:
            continue
        while held:  # a member cut by damage: what decoded before it is handed out
            partial = True
            yield Piece(held.popleft(), start, member=member)
        if flagged is not None:
            error = f"{error}; its header is not RFC 1952 compliant either: {flagged}"
        # resync: the next member may begin inside the damaged one's compressed range
        scan_from = start + 1 if start >= inp.base else pos
        nxt = _skip_to_magic(inp, scan_from, _GZIP_MEMBER_START, start)
        if nxt <= start:
            nxt = _skip_to_magic(inp, pos, _GZIP_MEMBER_START)
        yield Broken(start, nxt - start, error, _window(inp, start, nxt), partial, error_at)
        member += 1
        pos = nxt


_POOLS: dict[tuple[int, int], object] = {}
#: compressed bytes read per parallel batch, and per worker task. A task is inflated in one
#: GIL-free call: large tasks keep the GIL hand-overs (up to the 5 ms switch interval each
#: while the parser holds it) rare; small ones keep the buffers' memory (and page faults) low.
PARALLEL_CHUNK = 1 << 20
PARALLEL_TASK = 1 << 20
#: chunks read ahead beyond one per worker (the consumer inflates queued ones when idle).
PARALLEL_AHEAD = 3


def _pool(workers: int):
    """A shared thread pool of ``workers`` threads, per process (a pool inherited through
    ``fork`` has no threads behind it, so the key includes the pid)."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    key = (os.getpid(), workers)
    if key not in _POOLS:
        _POOLS[key] = ThreadPoolExecutor(workers, thread_name_prefix="crawlmill-gzip")
    return _POOLS[key]


def _member_starts(buf: bytes | bytearray, end: int | None = None) -> list[int]:
    """Offsets in ``buf[:end]`` that look like gzip member headers (magic, deflate, no
    reserved flags, an OS byte zlib writes: 0-19 (19 on macOS) or 255)."""
    # re's literal-prefix search is about twice as fast as a bytes.find() loop; the magic
    # cannot overlap itself, so non-overlapping matches are all of its occurrences
    n = len(buf) if end is None else end
    return [
        i
        for i in map(_match_start, _MEMBER_MAGIC.finditer(buf, 0, n))
        if i + 10 > n or (buf[i + 3] & 0xE0 == 0 and (buf[i + 9] <= 19 or buf[i + 9] == 255))
    ]


_MEMBER_MAGIC = re.compile(re.escape(_GZIP_MEMBER_START))
_match_start = re.Match.start


def _inflate_run(buf: bytes, bounds: list[tuple[int, int]], cap: int) -> list[bytes | None]:
    """Inflate each ``[s, e)`` of ``buf`` as exactly one whole gzip member; ``None`` marks the
    first range that is not one (and ends the list)."""
    mv = memoryview(buf)
    out: list[bytes | None] = []
    for s, e in bounds:
        d = _inflate_lib.decompressobj(31)
        try:
            data = d.decompress(mv[s:e], cap)
        except _ZLIB_ERRORS:
            out.append(None)
            break
        if not d.eof or d.unused_data or d.unconsumed_tail:
            out.append(None)
            break
        out.append(data)
    return out


try:  # pragma: no cover - depends on the installed packages
    from isal.isal_zlib import _GzipReader as _MultiMemberReader
except ImportError:  # pragma: no cover
    _MultiMemberReader = None

#: reads the ISIZE field (uncompressed size mod 2**32) of a gzip trailer.
_ISIZE = struct.Struct("<I").unpack_from
#: largest decompressed size of one parallel batch inflated in a single call.
BATCH_MAX = 32 << 20


def _inflate_batch(buf: bytes, bounds: list[tuple[int, int]], cap: int):
    """Inflate consecutive whole members ``bounds`` of ``buf`` in one GIL-free call when the
    gzip trailers' sizes add up to exactly what comes out; else member by member.

    Returns ``(data, sizes)`` for a verified batch, or the list of :func:`_inflate_run`.
    """
    if _MultiMemberReader is not None and len(bounds) > 1:
        sizes = [_ISIZE(buf, e - 4)[0] for _, e in bounds]
        total = sum(sizes)
        if total <= BATCH_MAX and max(sizes) <= cap:
            chunk = memoryview(buf)[bounds[0][0] : bounds[-1][1]]
            try:
                reader = _MultiMemberReader(chunk, len(chunk))
                parts, got = [], 0
                while got <= total:  # read() may return less than asked
                    part = reader.read(total + 1 - got)
                    if not part:
                        break
                    parts.append(part)
                    got += len(part)
                if got == total:
                    return (parts[0] if len(parts) == 1 else b"".join(parts)), sizes
            except _ZLIB_ERRORS + (OSError, ValueError):
                pass
    return _inflate_run(buf, bounds, cap)


class _Job:
    """One inflate task handed to the pool. The consumer may :meth:`steal` it while it is
    still queued (it then runs in the consumer's thread), so the consumer inflates instead
    of idling when the workers are behind (with one worker on two cores, both stay busy)."""

    __slots__ = ("args", "error", "fn", "future", "stolen", "value")

    def __init__(self, pool, fn, *args) -> None:
        self.fn = fn
        self.args = args
        self.future = pool.submit(fn, *args)
        self.stolen = False
        self.value = None
        self.error: Exception | None = None

    def steal(self) -> bool:
        """Run the job here if no worker has started it; false if one has (or it is done)."""
        if self.stolen or not self.future.cancel():
            return False
        self.stolen = True
        try:
            self.value = self.fn(*self.args)
        except Exception as exc:  # raised by result(), in file order, like a worker's
            self.error = exc
        return True

    def done(self) -> bool:
        """True when the result is ready."""
        return self.stolen or self.future.done()

    def result(self):
        """The job's result, waiting for its worker if need be."""
        if not self.stolen:
            return self.future.result()
        if self.error is not None:
            raise self.error
        return self.value

    def cancel(self) -> None:
        """Drop the job if it has not started."""
        if not self.stolen:
            self.future.cancel()


def _await(job: _Job, later: Iterator[_Job]):
    """The result of ``job``; while it is not ready, run queued ``later`` jobs in this thread."""
    if not job.done() and not job.steal():
        for other in later:
            if job.done():
                break
            other.steal()
    return job.result()


def _iter_gzip_parallel(
    fh: BinaryIO,
    limit: int,
    piece_size: int,
    workers: int,
    batch: bool = False,
    member_limit: int | None = None,
) -> Iterator[Piece | Broken]:
    """Read chunks of whole members ahead, inflate them in ``workers`` pool threads (and in
    this thread when it would otherwise wait), yield the pieces in file order."""
    from collections import deque

    pool = _pool(workers)
    work = _inflate_batch if batch else _inflate_run
    chunk_size = min(PARALLEL_CHUNK, 256 << 10)
    # larger members take the sequential, bounded path
    cap = min(limit, piece_size, member_limit or limit)
    pending: deque = deque()  # (buf, base, bounds, jobs)
    spare: list[bytearray] = []  # input buffers whose jobs are all done, for reuse
    carry = b""
    base = 0  # file offset of carry[0]
    eof = False
    member = 0
    fallback_at: int | None = None
    while True:
        while not eof and fallback_at is None and len(pending) < workers + PARALLEL_AHEAD:
            buf, end = _read_chunk(fh, carry, chunk_size, spare)
            chunk_size = min(PARALLEL_CHUNK, chunk_size * 2)  # small first reads: early output
            eof = end == len(carry)
            if not end:
                break
            starts = _member_starts(buf, end)
            if not starts or starts[0] != 0:
                fallback_at = base  # not a member where one must start: let the checked path say so
                break
            if not eof:
                if len(starts) == 1:
                    if end > RESCAN_WINDOW:
                        fallback_at = base
                        break
                    carry = buf[:end]
                    continue
                cut = starts.pop()
            else:
                cut = end
            bounds = list(zip(starts, [*starts[1:], cut], strict=True))
            jobs, task, size = [], [], 0
            for s, e in bounds:
                task.append((s, e))
                size += e - s
                if size >= PARALLEL_TASK:
                    jobs.append(_Job(pool, work, buf, task, cap))
                    task, size = [], 0
            if task:
                jobs.append(_Job(pool, work, buf, task, cap))
            pending.append((buf, base, bounds, jobs))
            carry = buf[cut:end]
            base += cut
        if not pending:
            if fallback_at is not None:
                fh.seek(fallback_at)  # reading ahead moved the file position
                yield from _iter_gzip(
                    fh, limit, piece_size, fallback_at, member, member_limit, member > 0
                )
            return
        buf, chunk_base, bounds, jobs = pending.popleft()
        i = 0
        for k, job in enumerate(jobs):
            later = (j for js in ([jobs[k + 1 :]] + [p[3] for p in pending]) for j in js)
            result = _await(job, later)
            if isinstance(result, tuple):  # a verified batch of whole members
                data, sizes = result
                spans, d = [], 0
                for size in sizes:
                    s, e = bounds[i]
                    spans.append((d, d + size, chunk_base + s, e - s))
                    d += size
                    i += 1
                first, last = spans[0], spans[-1]
                yield Piece(
                    data,
                    first[2],
                    end=True,
                    length=last[2] + last[3] - first[2],
                    member=member,
                    members=spans,
                )
                member += len(sizes)
                continue
            for data in result:
                s, e = bounds[i]
                if data is None:
                    # a false member start or real damage: the rest goes the checked way
                    for _, _, _, later_jobs in pending:
                        for other in later_jobs:
                            other.cancel()
                    pending.clear()
                    fh.seek(chunk_base + s)
                    yield from _iter_gzip(
                        fh, limit, piece_size, chunk_base + s, member, member_limit, member > 0
                    )
                    return
                yield Piece(data, chunk_base + s, end=True, length=e - s, member=member)
                member += 1
                i += 1
        if len(spare) <= workers:
            spare.append(buf)  # every job over it is done: its bytes are no longer read


def _read_chunk(
    fh: BinaryIO, carry: bytes | bytearray, size: int, spare: list[bytearray]
) -> tuple[bytearray, int]:
    """``carry`` followed by up to ``size`` bytes read from ``fh``, in a buffer from ``spare``
    when one is large enough (fresh big buffers cost page faults on every use); returns the
    buffer and the length of its valid part."""
    need = len(carry) + size
    while spare and len(spare[-1]) < need:
        spare.pop()  # too small for this read: let it go
    buf = spare.pop() if spare else bytearray(need + (size >> 2))  # room for larger carries
    buf[: len(carry)] = carry
    readinto = getattr(fh, "readinto", None)
    if readinto is None:
        data = fh.read(size)
        buf[len(carry) : len(carry) + len(data)] = data
        return buf, len(carry) + len(data)
    with memoryview(buf) as view:
        n = readinto(view[len(carry) : need])
    return buf, len(carry) + (n or 0)


def _lz4_steps(cap: int):
    """A ``decode`` for LZ4 frames: outputs of at most ``cap`` bytes."""

    def decode(dec, chunk) -> Iterator[bytes]:
        yield dec.decompress(bytes(chunk), max_length=cap)
        while not dec.eof and not dec.needs_input:
            yield dec.decompress(b"", max_length=cap)

    return decode


def _have(inp: _Input, keep: int, end: int) -> bool:
    """Read on until the window holds file bytes up to ``end``; false at the end of the file."""
    while inp.base + len(inp.data) < end:
        if not inp.fill(keep):
            return False
    return True


class _FixedFeeds:
    """Feeds of 8 KiB (LZ4: the decoder itself bounds each output)."""

    def __call__(self, inp: _Input, start: int, pos: int) -> int:
        _have(inp, start if pos - start <= RESCAN_WINDOW else pos, pos + 1)
        return min(pos + (1 << 13), inp.base + len(inp.data))


#: largest decoded size of one zstd block (RFC 8878 Block_Maximum_Size).
_ZSTD_BLOCK_MAX = 128 << 10
#: zstd blocks per feed: at most 1 MiB out per call, and a short byte-wise replay on damage.
_ZSTD_FEED_BLOCKS = 8


class _ZstdFeeds:
    """Feeds that end at zstd block boundaries, at most ``blocks`` blocks each: a block decodes
    to at most 128 KiB, so one call's output is bounded (an 8 KiB feed of RLE blocks would
    decode to 256 MiB). Walks the frame header and block headers (RFC 8878 section 3.1.1)."""

    def __init__(self, blocks: int) -> None:
        self.blocks = blocks
        self.checksum = 0

    def __call__(self, inp: _Input, start: int, pos: int) -> int:
        keep = start if pos - start <= RESCAN_WINDOW else pos
        q = pos
        if pos == start:
            if not _have(inp, keep, start + 5):
                return inp.base + len(inp.data)
            fhd = inp.data[start + 4 - inp.base]
            single = fhd >> 5 & 1
            self.checksum = 4 if fhd & 4 else 0
            q = start + 5 + (1 - single) + (0, 1, 2, 4)[fhd & 3] + (single, 2, 4, 8)[fhd >> 6]
        for _ in range(self.blocks):
            if not _have(inp, keep, q + 3):
                return inp.base + len(inp.data)
            i = q - inp.base
            header = int.from_bytes(inp.data[i : i + 3], "little")
            kind, size = header >> 1 & 3, header >> 3
            q += 3 + (1 if kind == 1 else size)
            if kind == 3:  # reserved block type: let zstd report it
                break
            if header & 1:  # the last block, then the optional checksum
                q += self.checksum
                break
        _have(inp, keep, q)
        return min(q, inp.base + len(inp.data))


def _frame_bound(member_limit: int | None, ended: bool) -> tuple[int, str] | None:
    """The bound of the next frame: ``member_limit`` once a frame has ended, else none."""
    if member_limit is None or not ended:
        return None
    return member_limit, _MEMBER_BOUND


def _not_a_frame(inp: _Input, pos: int, name: str) -> Iterator[Broken]:
    """Report the bytes from ``pos`` to the next ``name`` frame magic as damage; returns the
    offset of that magic (or the end of the file)."""
    nxt = _skip_to_magic(inp, pos + 1, _FRAME_MAGIC[name], pos)
    yield Broken(
        pos, nxt - pos, f"{nxt - pos} bytes outside any {name} frame", _window(inp, pos, nxt)
    )
    return nxt


def _frame(
    inp: _Input,
    pos: int,
    member: int,
    new_decoder: Any,
    decode: Any,
    new_feeds: Any,
    errors: tuple[type[BaseException], ...],
    name: str,
    limit: int,
    piece_size: int,
    bound: tuple[int, str] | None = None,
) -> Iterator[Piece | Broken]:
    """Decode one ``name`` frame (zstd, LZ4) that starts at file offset ``pos`` with the
    streaming decompressors ``new_decoder()`` makes (``decompress``, ``eof``, ``unused_data``),
    fed by ``decode(decoder, feed)`` (bounded outputs) with the input slices ``new_feeds()``
    plans (``feeds(inp, start, pos)`` -> end offset of the next feed).
    Yields its :class:`Piece` items, or on damage the pieces so far and one :class:`Broken` up
    to the next frame magic; returns the file offset after the frame (or of that next magic).
    With ``bound`` (``(bytes, name)``, lower than ``limit``) the pieces are held back until
    the frame ends; a frame beyond it yields only the ``Broken``, with its compressed bytes.
    Without (the first frame, a stream), only ``limit`` bounds it."""
    start, produced, error, error_at = pos, 0, None, None
    dec = new_decoder()
    pending: list[bytes] = []
    pending_size = 0
    partial = False
    limit_name = "max_decompressed_bytes"
    held: deque[bytes] | None = None
    if bound is not None and bound[0] < limit:
        (limit, limit_name), held = bound, deque()
    feeds = new_feeds()
    while True:
        # the feeds bound the output of one call (zstd: whole blocks, each at most 128 KiB)
        end = feeds(inp, start, pos)
        if end <= pos:
            error = f"{name} frame truncated: file ends after {pos - start} compressed bytes"
            break
        rel = pos - inp.base
        feed = inp.data[rel : end - inp.base]
        try:
            outs = list(decode(dec, feed))
        except errors as exc:
            # the call's output is lost: replay the frame to keep all that decoded
            saved = _salvage(
                inp, start, pos, feed, new_decoder, decode, errors, produced,
                limit - produced, 1 << 8,
            )  # fmt: skip
            for data in saved.pieces:
                pending.append(data)
                pending_size += len(data)
                produced += len(data)
            error_at = pos + saved.consumed
            error = (
                f"corrupt {name} frame ({exc}) at compressed byte {error_at},"
                f" after {produced} decoded bytes"
            )
            break
        pos += len(feed) - (len(dec.unused_data or b"") if dec.eof else 0)
        produced += sum(map(len, outs))
        if produced > limit:
            error = f"{name} frame inflates beyond {limit_name}={limit}; stopped there"
            if held is not None:  # the compressed bytes go to the Broken, not the decoded ones
                held, pending = None, []
            break
        for out in outs:
            if out:
                pending.append(out)
                pending_size += len(out)
        if dec.eof:
            while held:
                yield Piece(held.popleft(), start, member=member)
            yield Piece(b"".join(pending), start, end=True, length=pos - start, member=member)
            return pos, True
        if pending_size >= piece_size:
            if held is not None:
                held.append(b"".join(pending))
            else:
                partial = True
                yield Piece(b"".join(pending), start, member=member)
            pending, pending_size = [], 0
    while held:  # a frame cut by damage: what decoded before it is handed out
        partial = True
        yield Piece(held.popleft(), start, member=member)
    if pending:
        partial = True
        yield Piece(b"".join(pending), start, member=member)
    nxt = _skip_to_magic(inp, max(start + 1, inp.base), _FRAME_MAGIC[name], start)
    if nxt <= start:
        nxt = _skip_to_magic(inp, pos, _FRAME_MAGIC[name])
    yield Broken(start, nxt - start, error, _window(inp, start, nxt), partial, error_at)
    return nxt, False


def _iter_lz4(
    fh: BinaryIO, limit: int, piece_size: int, member_limit: int | None = None
) -> Iterator[Piece | Broken]:
    """LZ4 frames (FastWARC's ``.warc.lz4``: one frame per record) like zstd frames: bounded,
    with damage reported and resync on the next frame magic."""
    import lz4.frame

    inp = _Input(fh)
    inp.fill(0)
    pos = member = 0
    ended = False  # a frame ended: later ones are bounded by member_limit
    while True:
        if pos - inp.base + 8 > len(inp.data) and not inp.eof:
            inp.fill(pos)
        rel = pos - inp.base
        if rel >= len(inp.data):
            return
        if inp.data[rel : rel + 4] != LZ4_MAGIC:
            pos = yield from _not_a_frame(inp, pos, "LZ4")
            continue
        pos, ok = yield from _frame(
            inp,
            pos,
            member,
            lz4.frame.LZ4FrameDecompressor,
            _lz4_steps(piece_size),
            _FixedFeeds,
            (RuntimeError,),
            "LZ4",
            limit,
            piece_size,
            _frame_bound(member_limit, ended),
        )
        ended = ended or ok
        member += 1


def _zstd():
    import zstandard

    return zstandard


def _iter_zstd(
    fh: BinaryIO, limit: int, piece_size: int, member_limit: int | None = None
) -> Iterator[Piece | Broken]:
    """zstd frames (one per record in ``.warc.zst``, after an optional dictionary frame):
    bounded, with damage reported and resync on the next frame magic."""
    zstandard = _zstd()
    inp = _Input(fh)
    inp.fill(0)
    pos = 0
    member = 0
    ended = False  # a frame ended: later ones are bounded by member_limit
    dict_data = dctx = dctx_dict = None
    while True:
        if pos - inp.base + 8 > len(inp.data) and not inp.eof:
            inp.fill(pos)
        rel = pos - inp.base
        if rel >= len(inp.data):
            return
        magic = inp.data[rel : rel + 4]
        if len(magic) == 4 and magic[1:] == b"\x2a\x4d\x18" and 0x50 <= magic[0] <= 0x5F:
            # skippable frame: the dictionary (0x184D2A5D, at file start) or ignorable data
            if len(inp.data) - rel < 8:
                yield Broken(pos, len(inp.data) - rel, "truncated zstd skippable frame header")
                return
            (size,) = struct.unpack_from("<I", inp.data, rel + 4)
            while len(inp.data) - (pos - inp.base) < 8 + size and inp.fill(pos):
                pass
            rel = pos - inp.base
            body = inp.data[rel + 8 : rel + 8 + size]
            if len(body) < size:
                yield Broken(pos, len(inp.data) - rel, "truncated zstd skippable frame", body)
                return
            if magic == ZSTD_WARC_DICT_MAGIC and pos == 0:
                try:
                    if body.startswith(ZSTD_MAGIC):
                        body = zstandard.ZstdDecompressor().decompress(
                            body, max_output_size=MAX_DICT_SIZE
                        )
                    dict_data = zstandard.ZstdCompressionDict(body)
                except zstandard.ZstdError as exc:
                    yield Broken(pos, 8 + size, f"unusable zstd dictionary frame ({exc})", body)
            pos += 8 + size
            continue
        if magic != ZSTD_MAGIC:
            pos = yield from _not_a_frame(inp, pos, "zstd")
            continue
        if dctx is None or dctx_dict is not dict_data:  # one context for all frames
            dctx_dict = dict_data
            dctx = (
                zstandard.ZstdDecompressor(dict_data=dict_data)
                if dict_data
                else zstandard.ZstdDecompressor()
            )
        pos, ok = yield from _frame(
            inp,
            pos,
            member,
            dctx.decompressobj,
            _whole_call,
            lambda: _ZstdFeeds(max(1, min(_ZSTD_FEED_BLOCKS, piece_size // _ZSTD_BLOCK_MAX))),
            (zstandard.ZstdError,),
            "zstd",
            limit,
            piece_size,
            _frame_bound(member_limit, ended),
        )
        ended = ended or ok
        member += 1


#: room beyond one record's header and block that a member of a record-per-member file may
#: hold (separators, a few small records sharing a member).
MEMBER_SLACK = 1 << 20


def member_bound(max_record_bytes: int, max_header_bytes: int) -> int:
    """The ``max_member_bytes`` of :func:`iter_pieces` for a record-per-member file (WARC,
    ARC, one gzip member or zstd/LZ4 frame per record): one record's header and block plus
    :data:`MEMBER_SLACK`. A member beyond it cannot hold a record a reader would accept."""
    return max_record_bytes + max_header_bytes + MEMBER_SLACK


def read_head(path: str, size: int = 65536) -> bytes:
    """Up to ``size`` bytes from the start of ``path``, decompressed if it is gzip, zstd or LZ4.

    Damaged or truncated compressed data yields whatever could be decompressed (possibly
    ``b""``); this is for format detection, never for reading records.
    """
    with open(path, "rb") as fh:
        raw = fh.read(max(size, 4096))
    kind = compression_of(raw)
    if kind == "gzip":
        out = bytearray()
        data = raw
        with open(path, "rb") as fh:
            fh.seek(0)
            data = fh.read(1024 * 1024)
        try:
            dec = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out += dec.decompress(data, size)
            # a per-record gzip file: keep going through the next members for a fuller head
            while len(out) < size and dec.eof and dec.unused_data.startswith(GZIP_MAGIC):
                rest = dec.unused_data
                dec = zlib.decompressobj(16 + zlib.MAX_WBITS)
                out += dec.decompress(rest, size - len(out))
        except (zlib.error, gzip.BadGzipFile):
            pass
        return bytes(out[:size])
    if kind in ("zstd", "lz4"):
        frames = _iter_zstd if kind == "zstd" else _iter_lz4
        out = bytearray()
        try:
            with open(path, "rb") as fh:
                for item in frames(fh, 1 << 62, size):
                    if isinstance(item, Broken):
                        break
                    out += item.data
                    if len(out) >= size:
                        break
        except Exception:
            pass
        return bytes(out[:size])
    return raw[:size]
