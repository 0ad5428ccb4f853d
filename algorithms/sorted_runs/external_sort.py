"""An external sort in one partition: ``(key, input, blob)`` entries added in any order, given
back in ``(key, input, seq)`` order within a memory bound.

:class:`ExternalSort` buffers entries up to ``memory`` bytes in a one-partition
:class:`~.spill.Spiller` (the key and blob bytes plus its measured per-entry overhead); past
the bound the buffer is sorted and written as a run file in a temporary folder, and
:meth:`ExternalSort.sorted` merges the runs back (:func:`~.merge.merge`: one
:data:`~.runfile.READ_BUFFER` read buffer per open run, so at most as many runs as ``memory``
has read buffers, 2 to :data:`~.merge.FAN_IN`, are merged at once, more in groups first,
through intermediate run files). Memory stays within about ``2 * memory`` whatever the number
of entries. ``seq`` is the count of entries added before, so equal keys of one input keep the
order they were added in. Nothing is written while everything fits (the empty folder is made
at the start); the folder is removed by :meth:`ExternalSort.close`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator

from .merge import FAN_IN, merge
from .runfile import READ_BUFFER, Entry
from .spill import Spiller

__all__ = ["ExternalSort"]


class ExternalSort:
    """Entries added in any order, given back sorted by ``(key, input, seq)`` (module
    docstring); a context manager that removes its spill folder. ``folder`` is where the
    temporary folder goes (the system's temporary folder when ``None``), ``prefix`` its
    name's start."""

    def __init__(
        self, memory: int, folder: str | None = None, prefix: str = "crawlmill-sort-"
    ) -> None:
        if memory < 1:
            raise ValueError("spill memory must be positive")
        self.memory = memory
        self._tmp = tempfile.mkdtemp(prefix=prefix, dir=folder)
        self._spiller = Spiller(self._tmp, 1, memory, "run")
        self._seq = 0

    @property
    def runs(self) -> list[str]:
        """Run files written (none while everything fits in memory)."""
        return self._spiller.runs

    @property
    def peak(self) -> int:
        """The most bytes buffered at once."""
        return self._spiller.peak

    def add(self, key: bytes, input: int, blob: bytes) -> None:
        """Buffer one entry (its ``seq`` is the count of entries added before it)."""
        self._spiller.add(0, key, input, self._seq, blob)
        self._seq += 1

    def __len__(self) -> int:
        return self._seq

    def sorted(self) -> Iterator[Entry]:
        """Every entry added, in ``(key, input, seq)`` order (call once, after the adds)."""
        if not self._spiller.runs:
            yield from self._spiller.take_sorted(0)
            return
        runs = self._spiller.close()
        # one read buffer per run merged at once: as many as ``memory`` holds (at least 2)
        fan_in = max(2, min(FAN_IN, self.memory // READ_BUFFER))
        yield from merge(
            runs, scratch=os.path.join(self._tmp, "merge"), fan_in=fan_in, consume=True
        )

    def close(self) -> None:
        """Drop the buffer and remove the spill folder."""
        self._spiller.abort()
        shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self) -> ExternalSort:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
