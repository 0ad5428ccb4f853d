"""The reduce side of a local shuffle: one partition's run files merged into one stream in
``(key, input, seq)`` order, and the key ranges of range partitioning.

:func:`merge` streams with :func:`heapq.merge` over :class:`~.runfile.RunReader` streams, so
memory is one read buffer (:data:`~.runfile.READ_BUFFER`) and one entry per open run. More
than ``fan_in`` runs are first merged in groups into intermediate run files (as Hadoop's
``io.sort.factor``), so the open files stay bounded whatever the number of spills: the
smallest runs first, and only as many as bring the count down to ``fan_in`` (100 runs at
fan-in 64: one group of 37, not two groups holding every run), so the bytes copied stay few;
with ``consume`` each run merged into an intermediate file is removed at once, so the
intermediate files replace their inputs on disk instead of adding to them, and the last
merge claims its runs (renamed to dot names, which no rerun takes for complete runs) and
frees what it has read as it goes (:class:`~.holes.Freer`, every :data:`FREE_EVERY` bytes
of a run), so the runs shrink on disk while the output they feed grows.

Range partitioning reads one key range of shared runs: :func:`boundaries` picks ``N - 1``
keys from weighted key samples (a :class:`KeySampler` per map task: a key at least every
:data:`SAMPLE_BYTES` bytes or :data:`SAMPLE_ENTRIES` entries of the task's record stream,
weighted by the bytes up to the next sample, so partitions get about equal bytes and the
boundaries do not depend on how the memory bound cut the runs), and :func:`key_range` gives
partition ``i`` its ``[lo, hi)``; a run's index lets :meth:`~.runfile.RunReader.read` start
near ``lo``. Equal keys always land in one partition.
"""

from __future__ import annotations

import bisect
import contextlib
import heapq
import os
from collections.abc import Iterable, Iterator, Sequence
from operator import itemgetter

from .holes import BLOCK, Freer, free_span
from .runfile import Entry, RunReader, RunWriter
from .spill import partition_folder

__all__ = [
    "FAN_IN",
    "FREE_EVERY",
    "MAX_SAMPLES",
    "KeySampler",
    "ScratchMeter",
    "boundaries",
    "free_below",
    "index_samples",
    "key_range",
    "merge",
    "partition_runs",
    "read_samples",
]

#: at most this many runs are merged at once (more are merged in groups first).
FAN_IN = 64
#: a consuming merge frees a run's bytes it has read once they are this many.
FREE_EVERY = 256 * 1024
#: :func:`boundaries` thins the weighted key sample to about this many keys.
MAX_SAMPLES = 100_000

#: a map task's key sample: a key at least every this many bytes of its records...
SAMPLE_BYTES = 64 * 1024
#: ...or records.
SAMPLE_ENTRIES = 64
#: a map task keeps at most this many samples (then merges neighbours in pairs).
MAX_TASK_SAMPLES = 65_536

_ORDER = itemgetter(0, 1, 2)


class KeySampler:
    """Weighted key samples of one record stream, for range boundaries: a key at least every
    :data:`SAMPLE_BYTES` bytes or :data:`SAMPLE_ENTRIES` records, weighted by the bytes up to
    the next sample. Past :data:`MAX_TASK_SAMPLES` samples, neighbours are merged in pairs
    and the spacing doubles, so its memory stays bounded whatever the input size (and the
    samples still depend on the stream alone)."""

    def __init__(self) -> None:
        #: closed samples, in stream order.
        self.samples: list[tuple[bytes, int]] = []
        self._open: bytes | None = None
        self._bytes = 0
        self._entries = 0
        self._every_bytes = SAMPLE_BYTES
        self._every_entries = SAMPLE_ENTRIES

    def add(self, key: bytes, size: int) -> None:
        """One record of ``size`` bytes with ``key``, in stream order."""
        if (
            self._open is None
            or self._bytes >= self._every_bytes
            or self._entries >= self._every_entries
        ):
            self._close()
            self._open = key
        self._bytes += size
        self._entries += 1

    def _close(self) -> None:
        if self._open is not None:
            self.samples.append((self._open, self._bytes))
            self._open = None
            if len(self.samples) >= MAX_TASK_SAMPLES:
                pairs = self.samples
                self.samples = [
                    (pairs[i][0], pairs[i][1] + (pairs[i + 1][1] if i + 1 < len(pairs) else 0))
                    for i in range(0, len(pairs), 2)
                ]
                self._every_bytes *= 2
                self._every_entries *= 2
        self._bytes = self._entries = 0

    def write(self, path: str) -> str:
        """Write the samples as a run file (key; the weight as ``seq``); returns its path."""
        self._close()
        writer = RunWriter(path)
        try:
            for key, weight in sorted(self.samples):
                writer.add(key, 0, weight, b"")
            return writer.close()
        except BaseException:
            writer.abort()
            raise


def read_samples(path: str) -> Iterator[tuple[bytes, int]]:
    """The ``(key, weight)`` samples :meth:`KeySampler.write` wrote."""
    for key, _input, weight, _blob in RunReader(path):
        yield key, weight


def partition_runs(folder: str, partition: int) -> list[str]:
    """The complete run files of ``partition`` below a shuffle's ``folder``, sorted by name
    (temporary files of unfinished runs, dot names, are not listed)."""
    where = partition_folder(folder, partition)
    try:
        names = os.listdir(where)
    except FileNotFoundError:
        return []
    return sorted(
        os.path.join(where, n) for n in names if n.endswith(".run") and not n.startswith(".")
    )


class ScratchMeter:
    """The bytes of a merge's intermediate run files alive at once: :attr:`alive` now and
    :attr:`peak`, the most ever (counted when a file is committed and when it is removed)."""

    def __init__(self) -> None:
        self.alive = 0
        self.peak = 0

    def add(self, size: int) -> None:
        """A file of ``size`` bytes was written."""
        self.alive += size
        self.peak = max(self.peak, self.alive)

    def remove(self, size: int) -> None:
        """A file of ``size`` bytes was removed."""
        self.alive -= size


def _stream(readers: Sequence[RunReader], lo: bytes | None, hi: bytes | None) -> Iterator[Entry]:
    if len(readers) == 1:
        return readers[0].read(lo, hi)
    return heapq.merge(*(r.read(lo, hi) for r in readers), key=_ORDER)


def merge(
    runs: Sequence[str],
    lo: bytes | None = None,
    hi: bytes | None = None,
    *,
    scratch: str | None = None,
    fan_in: int | None = None,
    meter: ScratchMeter | None = None,
    consume: bool = False,
) -> Iterator[Entry]:
    """The entries of ``runs`` with ``lo <= key < hi``, in ``(key, input, seq)`` order.
    With more than ``fan_in`` runs, groups are merged first into run files in ``scratch``
    (required then): each time the smallest runs, as many as bring the count to ``fan_in``
    (at most ``fan_in``); an intermediate file is removed as soon as the group it went into
    is merged, the others when the merge ends. ``consume``: the caller's ``runs`` are theirs
    to destroy (only for runs no one else reads): removed once merged into an intermediate
    file; the last merge's renamed to dot names when it starts, freed as read and removed
    when it ends (or fails). ``meter`` counts the intermediate files' bytes less the consumed
    runs' and the freed bytes (the merge's own scratch on top of ``runs``). ``fan_in``:
    :data:`FAN_IN` when not given."""
    fan_in = FAN_IN if fan_in is None else fan_in  # read now: a test may lower it
    if fan_in < 2:
        raise ValueError("fan_in must be at least 2")
    meter = meter if meter is not None else ScratchMeter()
    paths = list(runs)
    made: dict[str, int] = {}
    freed: dict[str, int] = {}  # bytes freed of the last merge's files, by path
    count = 0
    try:
        if len(paths) > fan_in:
            if scratch is None:
                raise ValueError(f"{len(paths)} runs to merge: a scratch folder is needed")
            os.makedirs(scratch, exist_ok=True)
            sizes = {p: os.path.getsize(p) for p in paths}
        while len(paths) > fan_in:
            # merging k runs into one removes k - 1: the fewest bytes that reach fan_in
            k = min(fan_in, len(paths) - fan_in + 1)
            paths.sort(key=lambda p: (sizes[p], p))
            group, paths = paths[:k], paths[k:]
            out = os.path.join(scratch, f"merge-{count:06d}.run")
            count += 1
            writer = RunWriter(out)
            try:
                for entry in _stream([RunReader(p) for p in group], lo, hi):
                    writer.add(*entry)
                paths.append(writer.close())
            except BaseException:
                writer.abort()
                raise
            made[out] = sizes[out] = os.path.getsize(out)
            meter.add(made[out])
            for p in group:
                if p in made:
                    os.remove(p)
                    meter.remove(made.pop(p))
                elif consume:
                    os.remove(p)
                    meter.remove(sizes[p])
        if not consume:
            yield from _stream([RunReader(p) for p in paths], lo, hi)
            return
        for i, p in enumerate(paths):
            if p not in made:  # a caller's run: claimed, so no rerun takes it as whole
                claimed = os.path.join(os.path.dirname(p), f".{os.path.basename(p)}.merging")
                os.replace(p, claimed)
                paths[i] = claimed
                made[claimed] = os.path.getsize(claimed)  # removed when the merge ends
        streams = [_freeing(RunReader(p), lo, hi, meter, freed) for p in paths]
        yield from streams[0] if len(streams) == 1 else heapq.merge(*streams, key=_ORDER)
    finally:
        for p, size in made.items():
            with contextlib.suppress(FileNotFoundError):
                os.remove(p)
            meter.remove(size - freed.get(p, 0))


def _freeing(
    reader: RunReader,
    lo: bytes | None,
    hi: bytes | None,
    meter: ScratchMeter,
    freed: dict[str, int],
) -> Iterator[Entry]:
    """``reader``'s entries, freeing the bytes read every :data:`FREE_EVERY` bytes (counted
    in ``freed`` by path and removed from ``meter``)."""
    freer = Freer(reader.path)
    every = FREE_EVERY
    try:
        for entry in reader.read(lo, hi):
            yield entry
            if reader.position - freer.freed >= every:
                gone = freer.free_to(reader.position)
                if gone:
                    meter.remove(gone)
                    freed[reader.path] = freer.freed
    finally:
        freer.close()


def free_below(runs: Sequence[str], lo: bytes, freed: dict[str, int]) -> int:
    """Free the blocks of shared ``runs`` that no read of keys from ``lo`` on needs: those
    before the index item :meth:`~.runfile.RunReader.read` starts at (the first block, with
    the magic, is kept; the file keeps its length). ``freed``: the offset each run is freed
    to, updated. Returns the bytes newly freed (0 where the system cannot free)."""
    total = 0
    for path in runs:
        reader = RunReader(path)
        i = bisect.bisect_left(reader.keys, lo)
        start = reader.offsets[i - 1] if i > 0 else 0
        begin = freed.get(path, BLOCK)
        gone = free_span(path, begin, start)
        if gone:
            freed[path] = begin + gone
            total += gone
    return total


def index_samples(runs: Sequence[str]) -> Iterator[tuple[bytes, int]]:
    """The runs' index keys, each weighted by the bytes up to the next index key."""
    for path in runs:
        yield from RunReader(path).samples()


def boundaries(samples: Iterable[tuple[bytes, int]], partitions: int) -> list[bytes]:
    """``partitions - 1`` keys that split weighted key ``samples`` (``(key, bytes)``) into
    about equal bytes (non-decreasing, repeated when one key holds more than a partition's
    share). The result depends only on the samples as a multiset."""
    if partitions < 1:
        raise ValueError("a shuffle needs at least one partition")
    kept: list[tuple[bytes, int]] = []
    for sample in samples:
        kept.append(sample)
        if len(kept) > 2 * MAX_SAMPLES:
            kept = _thin(kept)
    kept.sort()
    if partitions == 1:
        return []
    if not kept:
        return [b""] * (partitions - 1)
    total = sum(w for _, w in kept)
    out: list[bytes] = []
    cumulative = 0
    j = 1
    for key, weight in kept:
        while j < partitions and cumulative >= j * total / partitions:
            out.append(key)
            j += 1
        cumulative += weight
    while len(out) < partitions - 1:  # the last keys' shares: after every sampled key
        out.append(kept[-1][0] + b"\x00")
    return out


def _thin(samples: list[tuple[bytes, int]]) -> list[tuple[bytes, int]]:
    """About :data:`MAX_SAMPLES` keys: sorted, each kept key carries its group's weight."""
    samples.sort()
    step = max(1, len(samples) // MAX_SAMPLES)
    return [
        (samples[i][0], sum(w for _, w in samples[i : i + step]))
        for i in range(0, len(samples), step)
    ]


def key_range(bounds: Sequence[bytes], partition: int) -> tuple[bytes | None, bytes | None]:
    """Partition ``partition``'s ``[lo, hi)`` among ``len(bounds) + 1`` partitions."""
    if not 0 <= partition <= len(bounds):
        raise ValueError(f"partition {partition} outside 0..{len(bounds)}")
    lo = bounds[partition - 1] if partition > 0 else None
    hi = bounds[partition] if partition < len(bounds) else None
    return lo, hi
