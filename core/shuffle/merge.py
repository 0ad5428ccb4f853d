"""The reduce side of a local shuffle: one partition's run files merged into one stream in
``(key, input, seq)`` order, and the key ranges of range partitioning.

:func:`merge` streams with :func:`heapq.merge` over :class:`~.runfile.RunReader` streams, so
memory is one read buffer (:data:`~.runfile.READ_BUFFER`) and one entry per open run. More
than ``fan_in`` runs are first merged in groups into intermediate run files (as Hadoop's
``io.sort.factor``), so the open files stay bounded whatever the number of spills.

Range partitioning reads one key range of shared runs: :func:`boundaries` picks ``N - 1``
keys from the runs' indexes (each index key weighted by the bytes up to the next one, so
partitions get about equal bytes), and :func:`key_range` gives partition ``i`` its
``[lo, hi)``; a run's index lets :meth:`~.runfile.RunReader.read` start near ``lo``. Equal
keys always land in one partition.
"""

from __future__ import annotations

import contextlib
import heapq
import os
from collections.abc import Iterator, Sequence
from operator import itemgetter

from .runfile import Entry, RunReader, RunWriter
from .spill import partition_folder

__all__ = ["FAN_IN", "MAX_SAMPLES", "boundaries", "key_range", "merge", "partition_runs"]

#: at most this many runs are merged at once (more are merged in groups first).
FAN_IN = 64
#: :func:`boundaries` thins the weighted key sample to about this many keys.
MAX_SAMPLES = 100_000

_ORDER = itemgetter(0, 1, 2)


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
    fan_in: int = FAN_IN,
) -> Iterator[Entry]:
    """The entries of ``runs`` with ``lo <= key < hi``, in ``(key, input, seq)`` order.
    With more than ``fan_in`` runs, groups are merged first into run files in ``scratch``
    (required then; they are removed once merged again)."""
    if fan_in < 2:
        raise ValueError("fan_in must be at least 2")
    paths = list(runs)
    made: list[str] = []
    level = 0
    try:
        while len(paths) > fan_in:
            if scratch is None:
                raise ValueError(f"{len(paths)} runs to merge: a scratch folder is needed")
            os.makedirs(scratch, exist_ok=True)
            merged = []
            for g in range(0, len(paths), fan_in):
                group = paths[g : g + fan_in]
                out = os.path.join(scratch, f"merge-{level:03d}-{g // fan_in:06d}.run")
                writer = RunWriter(out)
                try:
                    for entry in _stream([RunReader(p) for p in group], lo, hi):
                        writer.add(*entry)
                    merged.append(writer.close())
                except BaseException:
                    writer.abort()
                    raise
                for p in group:
                    if p in made:
                        os.remove(p)
            made.extend(merged)
            paths = merged
            level += 1
        yield from _stream([RunReader(p) for p in paths], lo, hi)
    finally:
        for p in made:
            with contextlib.suppress(FileNotFoundError):
                os.remove(p)


def boundaries(runs: Sequence[str], partitions: int) -> list[bytes]:
    """``partitions - 1`` keys that split the runs' entries into about equal bytes (from their
    indexes; non-decreasing, repeated when one key holds more than a partition's share)."""
    if partitions < 1:
        raise ValueError("a shuffle needs at least one partition")
    samples: list[tuple[bytes, int]] = []
    for path in runs:
        samples.extend(RunReader(path).samples())
        if len(samples) > 2 * MAX_SAMPLES:
            samples = _thin(samples)
    samples.sort()
    total = sum(w for _, w in samples)
    if partitions == 1:
        return []
    if not samples:
        return [b""] * (partitions - 1)
    out: list[bytes] = []
    cumulative = 0
    j = 1
    for key, weight in samples:
        while j < partitions and cumulative >= j * total / partitions:
            out.append(key)
            j += 1
        cumulative += weight
    while len(out) < partitions - 1:  # the last keys' shares: after every sampled key
        out.append(samples[-1][0] + b"\x00")
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
