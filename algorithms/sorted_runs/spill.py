"""The map side of a local shuffle: entries buffered in memory up to a bound, then sorted and
spilled as run files, one per partition and spill.

:class:`Spiller` keeps at most ``memory`` bytes of entries (the key and blob bytes plus
:data:`ENTRY_OVERHEAD` per entry, the Python objects that hold them: tuple, bytes and int
headers, list slots and the sort's scratch space; ``tests/core/test_shuffle_spill.py`` measures
it with ``tracemalloc``). When the next entry would pass the bound, every partition's buffer is
sorted by ``(key, input, seq)`` (keys as unsigned bytes: Hadoop's raw ``Text`` order) and
written as ``<folder>/p<partition:05d>/<name>-<spill:05d>.run``
(:class:`~.runfile.RunWriter`: visible only when complete). An entry larger than the bound
alone is spilled on its own. The merge side is :mod:`.merge`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable

from .runfile import MAX_KEY, RunWriter

__all__ = ["ENTRY_OVERHEAD", "Spiller", "partition_folder"]

#: bytes of Python objects per buffered entry beside its key and blob bytes (measured).
ENTRY_OVERHEAD = 240


def partition_folder(folder: str, partition: int) -> str:
    """The folder of ``partition``'s run files below a shuffle's ``folder``."""
    return os.path.join(folder, f"p{partition:05d}")


class Spiller:
    """Buffer ``(partition, key, input, seq, blob)`` entries within ``memory`` bytes and spill
    them as sorted run files under ``folder``; ``name`` makes the run files of this spiller
    distinct from other tasks' (a map task's marker key)."""

    def __init__(self, folder: str, partitions: int, memory: int, name: str) -> None:
        if partitions < 1:
            raise ValueError("a shuffle needs at least one partition")
        if memory < 1:
            raise ValueError("shuffle memory must be positive")
        if not name or "/" in name or os.sep in name or name.startswith("."):
            raise ValueError(f"invalid run name {name!r}")
        self.folder = folder
        self.partitions = partitions
        self.memory = memory
        self.name = name
        self._buffers: list[list[tuple[bytes, int, int, bytes]]] = [[] for _ in range(partitions)]
        #: bytes counted against ``memory`` now.
        self.buffered = 0
        #: the most bytes ever buffered at once.
        self.peak = 0
        self.spills = 0
        self.entries = 0
        #: run files written so far.
        self.runs: list[str] = []

    def add(self, partition: int, key: bytes, input: int, seq: int, blob: bytes) -> None:
        """Buffer one entry (spilling first when it would pass the memory bound)."""
        if not 0 <= partition < self.partitions:
            raise ValueError(f"partition {partition} outside 0..{self.partitions - 1}")
        if type(key) is not bytes or type(blob) is not bytes:
            raise TypeError("shuffle keys and blobs are bytes")
        if len(key) > MAX_KEY:
            raise ValueError(f"shuffle key of {len(key)} bytes; at most {MAX_KEY}")
        size = len(key) + len(blob) + ENTRY_OVERHEAD
        if self.buffered and self.buffered + size > self.memory:
            self.spill()
        self._buffers[partition].append((key, input, seq, blob))
        self.buffered += size
        self.peak = max(self.peak, self.buffered)
        self.entries += 1

    def add_all(self, entries: Iterable[tuple[int, bytes, int, int, bytes]]) -> None:
        """:meth:`add` each ``(partition, key, input, seq, blob)``."""
        for entry in entries:
            self.add(*entry)

    def spill(self) -> None:
        """Sort and write every non-empty partition buffer as one run file each."""
        if not self.buffered:
            return
        for partition, buffer in enumerate(self._buffers):
            if not buffer:
                continue
            buffer.sort()  # tuples: (key, input, seq) decide, as (input, seq) never repeat
            folder = partition_folder(self.folder, partition)
            os.makedirs(folder, exist_ok=True)
            writer = RunWriter(os.path.join(folder, f"{self.name}-{self.spills:05d}.run"))
            try:
                for entry in buffer:
                    writer.add(*entry)
                self.runs.append(writer.close())
            except BaseException:
                writer.abort()
                raise
            self._buffers[partition] = []
            del buffer  # the entries' memory is free before the next ones come
        self.buffered = 0
        self.spills += 1

    def take_sorted(self, partition: int) -> list[tuple[bytes, int, int, bytes]]:
        """Remove and return ``partition``'s buffered entries, sorted as a run is: for a
        caller that found nothing spilled and needs no run file."""
        buffer, self._buffers[partition] = self._buffers[partition], []
        buffer.sort()
        self.buffered -= sum(len(k) + len(b) + ENTRY_OVERHEAD for k, _, _, b in buffer)
        return buffer

    def close(self) -> list[str]:
        """Spill what is left; returns every run file written."""
        self.spill()
        return list(self.runs)

    def abort(self) -> None:
        """Drop the buffers and remove the run files written (a failed map task)."""
        self._buffers = [[] for _ in range(self.partitions)]
        self.buffered = 0
        for path in self.runs:
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)
        self.runs = []
