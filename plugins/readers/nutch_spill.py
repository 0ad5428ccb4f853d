"""The unsorted entries of a Nutch segment part (``crawl_generate``, ``crawl_parse``, a MapFile
part whose keys are not sorted) in key order within bounded memory, for the reader's join.

:class:`SortedEntries` is :class:`crawlmill.algorithms.sorted_runs.ExternalSort` (entries
buffered up to ``memory`` bytes, spilled as sorted runs in a temporary folder and merged back:
memory stays within about ``2 * memory`` whatever the number of entries) with its folder
named ``crawlmill-nutch-*``. Keys compare as unsigned bytes, Hadoop's raw order of ``Text`` and
``UTF8`` keys, as the MapFiles are sorted; equal keys keep ``(input, seq)`` order.

:func:`pack` and :func:`unpack` turn a :class:`~.nutch_parts.NutchEntry` into a blob and back
(the value is kept serialized and decoded again by its class).
"""

from __future__ import annotations

import struct

from crawlmill.algorithms.sorted_runs import ExternalSort
from crawlmill.formats.hadoop.nutch import decode_nutch
from crawlmill.formats.hadoop.sequencefile import Entry as SeqEntry

from ..writables.nutch import resolve_registered
from .nutch_parts import NutchEntry

__all__ = ["SortedEntries", "pack", "unpack"]

_HEAD = struct.Struct(">QQqI")


class SortedEntries(ExternalSort):
    """Entries added in any order, given back sorted by ``(key, input, seq)`` (module
    docstring); a context manager that removes its spill folder."""

    def __init__(self, memory: int, folder: str | None = None) -> None:
        super().__init__(memory, folder, prefix="crawlmill-nutch-")


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
