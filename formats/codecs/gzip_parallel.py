"""Parallel gzip inflate: whole members inflated ahead in pool threads, handed out in file order.

Member starts are guessed from the gzip magic and every guess is verified (each member must end
exactly where the next begins, the trailers' sizes must add up); at the first member that does
not verify, reading falls back to the sequential, checked path of
:func:`crawlmill.formats.codecs.gzip_stream.iter_gzip` from that member, so results are identical.
With ``held``, the members inflated here as exactly one whole member each (alone, or in a run
whose guessed starts are provably its real ones: :func:`~.member_vouch.run_is_exact`, checked
when a writer asks, from the other gzip magics the member scan found) are listed as verified
beside the lent bytes, so a writer may copy them on the reader's word (:mod:`.member_vouch`);
members of the sequential path never are.
"""

from __future__ import annotations

import contextlib
import os
import re
import struct
from collections.abc import Iterator
from typing import BinaryIO

from .gzip_stream import GZIP_MEMBER_START, ZLIB_ERRORS, inflate_lib, iter_gzip
from .member_source import HeldMembers
from .member_vouch import Run
from .pieces import RESCAN_WINDOW, Broken, Piece

__all__ = ["iter_gzip_parallel"]

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
    from concurrent.futures import ThreadPoolExecutor

    key = (os.getpid(), workers)
    if key not in _POOLS:
        _POOLS[key] = ThreadPoolExecutor(workers, thread_name_prefix="crawlmill-gzip")
    return _POOLS[key]


def _member_starts(buf: bytes | bytearray, end: int | None = None) -> list[int]:
    """Offsets in ``buf[:end]`` that look like gzip member headers (magic, deflate, no
    reserved flags, an OS byte zlib writes: 0-19 (19 on macOS) or 255); the compiled
    kernel's when it is there (the same list)."""
    if _KERNEL_STARTS is not None:
        got = _KERNEL_STARTS(buf, end)
        if got is not None:  # else: an ``end`` outside the buffer, the pure path decides
            return got
    return _member_starts_pure(buf, end)


def _member_starts_pure(buf: bytes | bytearray, end: int | None = None) -> list[int]:
    """:func:`_member_starts` in Python (the compiled kernel's reference)."""
    # re's literal-prefix search is about twice as fast as a bytes.find() loop; the magic
    # cannot overlap itself, so non-overlapping matches are all of its occurrences
    n = len(buf) if end is None else end
    return [
        i
        for i in map(_match_start, _MEMBER_MAGIC.finditer(buf, 0, n))
        if i + 10 > n or (buf[i + 3] & 0xE0 == 0 and (buf[i + 9] <= 19 or buf[i + 9] == 255))
    ]


def _member_scan(buf: bytes | bytearray, end: int | None = None) -> tuple[list[int], list[int]]:
    """:func:`_member_starts` and, from the same pass, the offsets of every other gzip magic
    in ``buf[:end]`` (magics that are no member header: a run holding one is not provably
    split at its real member starts, :func:`~.member_vouch.run_is_exact_scanned`); the
    compiled kernel's when it is there (the same lists)."""
    if _KERNEL_SCAN is not None:
        got = _KERNEL_SCAN(buf, end)
        if got is not None:  # else: an ``end`` outside the buffer, the pure path decides
            return got
    return _member_scan_pure(buf, end)


def _member_scan_pure(
    buf: bytes | bytearray, end: int | None = None
) -> tuple[list[int], list[int]]:
    """:func:`_member_scan` in Python (the compiled kernel's reference)."""
    n = len(buf) if end is None else end
    starts: list[int] = []
    others: list[int] = []
    for i in map(_match_start, _MEMBER_MAGIC.finditer(buf, 0, n)):
        if i + 10 > n or (buf[i + 3] & 0xE0 == 0 and (buf[i + 9] <= 19 or buf[i + 9] == 255)):
            starts.append(i)
        else:
            others.append(i)
    return starts, others


_MEMBER_MAGIC = re.compile(re.escape(GZIP_MEMBER_START))
_match_start = re.Match.start
#: the compiled member-start scans (formats/warc/_warcfast.c), unless ``CRAWLMILL_PURE=1``
_KERNEL_STARTS = _KERNEL_SCAN = None
if os.environ.get("CRAWLMILL_PURE", "") in ("", "0"):
    with contextlib.suppress(ImportError):  # (an install without a compiler)
        from ..warc._warcfast import member_scan as _KERNEL_SCAN
        from ..warc._warcfast import member_starts as _KERNEL_STARTS


def _inflate_run(buf: bytes, bounds: list[tuple[int, int]], cap: int) -> list[bytes | None]:
    """Inflate each ``[s, e)`` of ``buf`` as exactly one whole gzip member; ``None`` marks the
    first range that is not one (and ends the list)."""
    mv = memoryview(buf)
    out: list[bytes | None] = []
    for s, e in bounds:
        d = inflate_lib.decompressobj(31)
        try:
            data = d.decompress(mv[s:e], cap)
        except ZLIB_ERRORS:
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
            except ZLIB_ERRORS + (OSError, ValueError):
                pass
    return _inflate_run(buf, bounds, cap)


class _NotStarted:
    """The future of a job no worker will run: it can always be taken back."""

    __slots__ = ()

    def cancel(self) -> bool:
        return True

    def done(self) -> bool:
        return False


_NOT_STARTED = _NotStarted()


class _Job:
    """One inflate task handed to the pool. The consumer may :meth:`steal` it while it is
    still queued (it then runs in the consumer's thread), so the consumer inflates instead
    of idling when the workers are behind (with one worker on two cores, both stay busy)."""

    __slots__ = ("args", "error", "fn", "future", "stolen", "value")

    def __init__(self, pool, fn, *args) -> None:
        self.fn = fn
        self.args = args
        # no pool: the job waits for the consumer to run it (inline inflate, no thread)
        self.future = pool.submit(fn, *args) if pool is not None else _NOT_STARTED
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
        value, self.value = self.value, None  # taken once: the job does not keep the bytes
        return value

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


def iter_gzip_parallel(
    fh: BinaryIO,
    limit: int,
    piece_size: int,
    workers: int,
    batch: bool = False,
    member_limit: int | None = None,
    held: HeldMembers | None = None,
) -> Iterator[Piece | Broken]:
    """Read chunks of whole members ahead, inflate them in ``workers`` pool threads (and in
    this thread when it would otherwise wait), yield the pieces in file order. With
    ``workers=0`` there is no pool: each chunk is read and inflated here when it is needed.
    ``held`` lends each chunk's compressed bytes while its pieces are handed out (a writer
    copies an unchanged record's member from them, :class:`HeldMembers`)."""
    if held is None:
        yield from _iter_parallel(fh, limit, piece_size, workers, batch, member_limit, None)
        return
    try:
        yield from _iter_parallel(fh, limit, piece_size, workers, batch, member_limit, held)
    finally:
        held.release()


def _iter_parallel(
    fh: BinaryIO,
    limit: int,
    piece_size: int,
    workers: int,
    batch: bool,
    member_limit: int | None,
    held: HeldMembers | None,
) -> Iterator[Piece | Broken]:
    """:func:`iter_gzip_parallel`'s work (``held``: lent each chunk while it is handed out)."""
    from collections import deque

    pool = _pool(workers) if workers > 0 else None
    work = _inflate_batch if batch else _inflate_run
    chunk_size = min(PARALLEL_CHUNK, 256 << 10)
    # larger members take the sequential, bounded path
    cap = min(limit, piece_size, member_limit or limit)
    pending: deque = deque()  # (buf, base, bounds, jobs, other magics of buf)
    spare: list[bytearray] = []  # input buffers whose jobs are all done, for reuse
    carry = b""
    base = 0  # file offset of carry[0]
    eof = False
    member = 0
    fallback_at: int | None = None
    while True:
        while (
            not eof
            and fallback_at is None
            and len(pending) < (workers + PARALLEL_AHEAD if workers else 1)
        ):
            buf, end = _read_chunk(fh, carry, chunk_size, spare)
            chunk_size = min(PARALLEL_CHUNK, chunk_size * 2)  # small first reads: early output
            eof = end == len(carry)
            if not end:
                break
            starts, others = _member_scan(buf, end)
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
            pending.append((buf, base, bounds, jobs, others))
            carry = buf[cut:end]
            base += cut
        if not pending:
            if held is not None:
                held.release()
            if fallback_at is not None:
                fh.seek(fallback_at)  # reading ahead moved the file position
                yield from iter_gzip(
                    fh, limit, piece_size, fallback_at, member, member_limit, member > 0
                )
            return
        buf, chunk_base, bounds, jobs, others = pending.popleft()
        verified: dict[int, int | tuple[int, Run]] | None = None
        if held is not None:  # its members' compressed bytes, while their pieces are out
            verified = {}  # (filled below, before each member's piece is handed out)
            held.hold(buf, chunk_base, chunk_base + bounds[-1][1], verified)
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
                if verified is not None:  # vouched for if the run proves exact (when asked)
                    run = Run(buf, bounds[i - len(sizes) : i], sizes, others)
                    for _, _, offset, length in spans:
                        verified[offset] = (length, run)
                yield Piece(
                    data,
                    first[2],
                    end=True,
                    length=last[2] + last[3] - first[2],
                    member=member,
                    members=spans,
                )
                member += len(sizes)
                # the consumer has the bytes: the next inflate may reuse their memory
                data = result = None
                continue
            for data in result:
                s, e = bounds[i]
                if data is None:
                    # a false member start or real damage: the rest goes the checked way
                    if held is not None:
                        held.release()
                    for _, _, _, later_jobs, _ in pending:
                        for other in later_jobs:
                            other.cancel()
                    pending.clear()
                    fh.seek(chunk_base + s)
                    yield from iter_gzip(
                        fh, limit, piece_size, chunk_base + s, member, member_limit, member > 0
                    )
                    return
                if verified is not None:  # inflated alone, to its end, its trailer checked
                    verified[chunk_base + s] = e - s
                yield Piece(data, chunk_base + s, end=True, length=e - s, member=member)
                member += 1
                i += 1
        if held is not None:
            held.release()  # before the buffer is read into again
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
