"""The unsorted entries of a Nutch segment part (``crawl_generate``, ``crawl_parse``, a MapFile
part whose keys are not sorted) in key order within bounded memory, for the reader's join.

:class:`SortedEntries` buffers ``(key, input, seq, blob)`` tuples up to ``memory`` bytes in
the shuffle's one-partition :class:`~crawlmill.core.run.shuffle.spill.Spiller` (the key and blob
bytes plus its measured per-entry overhead); past the bound the buffer is sorted and written
as a run file in a temporary folder, and :meth:`SortedEntries.sorted` merges the runs back
(:func:`~crawlmill.core.run.shuffle.merge.merge`: one 64 KiB read buffer per open run, so at
most as many runs as ``memory`` has read buffers (2 to 64) are merged at once, more in
groups first, through intermediate run files). Memory stays within about ``2 * memory``
whatever the number of entries. Keys compare as unsigned bytes, Hadoop's raw order of ``Text`` and
``UTF8`` keys, as the MapFiles are sorted; equal keys keep ``(input, seq)`` order. Nothing
is written while everything fits (the empty folder is made at the start); the folder is
removed by :meth:`SortedEntries.close`.

:func:`pack` and :func:`unpack` turn a :class:`~.nutch_parts.NutchEntry` into a blob and back
(the value is kept serialized and decoded again by its class).
"""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
from collections.abc import Iterator

from crawlmill.core.run.shuffle.merge import FAN_IN, merge
from crawlmill.core.run.shuffle.runfile import READ_BUFFER, Entry
from crawlmill.core.run.shuffle.spill import Spiller
from crawlmill.formats.hadoop.nutch import decode_nutch
from crawlmill.formats.hadoop.sequencefile import Entry as SeqEntry

from ..writables.nutch import resolve_registered
from .nutch_parts import NutchEntry

__all__ = ["SortedEntries", "pack", "unpack"]

_HEAD = struct.Struct(">QQqI")


class SortedEntries:
    """Entries added in any order, given back sorted by ``(key, input, seq)`` (module
    docstring); a context manager that removes its spill folder."""

    def __init__(self, memory: int, folder: str | None = None) -> None:
        if memory < 1:
            raise ValueError("spill memory must be positive")
        self.memory = memory
        self._tmp = tempfile.mkdtemp(prefix="crawlmill-nutch-", dir=folder)
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
        yield from merge(runs, scratch=os.path.join(self._tmp, "merge"), fan_in=fan_in)

    def close(self) -> None:
        """Drop the buffer and remove the spill folder."""
        self._spiller.abort()
        shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self) -> SortedEntries:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def pack(item: NutchEntry) -> bytes:
    """The blob of ``item``: its record's offset, length, block and place in the block, its
    URL and its serialized value."""
    e = item.entry
    url = item.url.encode("utf-8", "surrogatepass")
    head = _HEAD.pack(e.offset, e.length, -1 if e.block is None else e.block, len(url))
    return b"".join((head, struct.pack(">I", e.index), url, bytes(e.value)))


def unpack(key: bytes, blob: bytes, path: str, value_class: str, legacy: bool) -> NutchEntry:
    """The :class:`NutchEntry` :func:`pack` made, its value decoded again by ``value_class``
    (it was decoded once before it was packed); its raw ``entry`` holds the key's content
    (no length prefix) and the serialized value, not the stored (compressed) one."""
    offset, length, block, n = _HEAD.unpack_from(blob, 0)
    at = _HEAD.size
    (index,) = struct.unpack_from(">I", blob, at)
    at += 4
    url = blob[at : at + n].decode("utf-8", "surrogatepass")
    value = blob[at + n :]
    entry = SeqEntry(key, value, offset, length, None, None if block < 0 else block, index)
    decoded = decode_nutch(value_class, value, resolve_registered, legacy=legacy)
    return NutchEntry(key, url, decoded, entry, path)
