"""The ``mapfile`` reader: Hadoop MapFiles (a directory of a sorted SequenceFile ``data`` and
its ``index``) as a collection.

A MapFile directory, or a job's output directory of ``part-NNNNN`` / ``part-r-NNNNN`` /
``part-m-NNNNN`` MapFiles (``.crc`` side files, ``_SUCCESS`` and ``_logs`` are not data), is
expanded into one unit per MapFile (parts ``data`` and, when present, ``index``); a ``data``
file with an ``index`` beside it, given on its own with ``--from mapfile``, is read as its
MapFile (detection gives such a file to the ``sequencefile`` reader). The records are
the ``sequencefile`` reader's, one per entry of ``data`` (reached through the registry), so a
MapFile converts as its data file does.

Beside the records, the reader checks what only a MapFile promises:

* **the index agrees with the data**: every index entry's position is where a record holding
  its key starts (a NONE/RECORD record, or the sync marker just before it), or where the
  BLOCK block holding its key starts; the index's own damage, a position outside the data, a
  key lower than the one before it, and a missing index fail it too. One ``index`` check per
  MapFile (a failed check exits 3), each bad entry also an ``index-mismatch`` warning with its
  byte offset in the index file;
* **sorted keys**: a data key lower than the one before it in Hadoop's raw comparator order
  (:func:`crawlmill.formats.hadoop.mapfile.sort_key`) is an ``unsorted-keys`` warning with
  its offset (``MapFile.Reader.get`` can miss such a key).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from typing import Any

from crawlmill.core import (
    Check,
    InputFile,
    PluginOptions,
    ReadContext,
    Reader,
    Record,
    hookimpl,
    storage,
)
from crawlmill.formats.hadoop.mapfile import (
    DATA,
    INDEX,
    IndexEntry,
    MapFile,
    describe,
    is_mapfile,
    mapfile_dirs,
    sort_key,
)
from crawlmill.formats.hadoop.sequencefile import SYNC_SIZE, HeaderError, read_header
from pydantic import Field

__all__ = ["MapFileReader"]

#: unsorted-key warnings reported one by one; the rest are counted in one warning.
_MAX_UNSORTED = 20


def _data_file(path: str) -> bool:
    return os.path.basename(path) == DATA and is_mapfile(os.path.dirname(path) or ".")


class MapFileReader(Reader):
    """Hadoop MapFiles (data + index; part-NNNNN folders of them) as a collection."""

    name = "mapfile"

    class Options(PluginOptions):
        """Options of the MapFile reader."""

        decode: bool = Field(
            True,
            description="decode keys and values with their classes' Writables (as the "
            "sequencefile reader); false: bytes only",
        )
        check_index: bool = Field(
            True, description="check that the index agrees with the data and keys are sorted"
        )

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """A MapFile directory or a folder of MapFile parts: sure; a SequenceFile called
        ``data`` with an ``index`` beside it: likely, below the ``sequencefile`` reader, which
        reads the file alone (``--from mapfile`` reads it as its MapFile, index checked)."""
        if os.path.isdir(path):
            return 0.9 if mapfile_dirs(path) else 0.0
        if head[:3] == b"SEQ" and _data_file(path):
            return 0.9
        return 0.0

    @classmethod
    def describe(cls, path: str, head: bytes) -> str | None:
        """One line on what ``path`` is (``crawlmill inspect``): classes, compression, MapFile."""
        return describe(path)

    @classmethod
    def discover(cls, path: str, options: PluginOptions) -> list[InputFile] | None:
        """One unit per MapFile of ``path`` (itself, or its part folders): parts ``data`` and
        ``index`` (when there)."""
        dirs = mapfile_dirs(path)
        if not dirs:
            return None
        units = []
        for d in dirs:
            parts = {DATA: os.path.join(d, DATA)}
            if os.path.isfile(os.path.join(d, INDEX)):
                parts[INDEX] = os.path.join(d, INDEX)
            rel = os.path.basename(os.path.abspath(d))
            units.append(InputFile(path=d, relpath=rel, parts=parts))
        return units

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """The data file's records through the ``sequencefile`` reader, checking the index
        and the key order on the way (see the module docstring)."""
        unit = ctx.input
        if DATA in unit.parts:
            data_path = unit.parts[DATA]
        elif storage.isdir(unit.path):
            data_path = os.path.join(unit.path, DATA)
        else:
            data_path = unit.path
        folder = os.path.dirname(data_path)
        index_path = unit.parts.get(INDEX) or os.path.join(folder, INDEX)
        inner = dataclasses.replace(
            ctx,
            input=InputFile(path=data_path, relpath=unit.relpath, index=unit.index,
                            stem=unit.stem, meta=unit.meta),
        )  # fmt: skip
        seq = ctx.reader("sequencefile", decode=self.options.decode)
        if not self.options.check_index:
            yield from seq.read(inner)
            return
        checker = _IndexChecker(ctx, folder, data_path, index_path)
        for record in seq.read(inner):
            checker.see(record)
            yield record
        checker.finish()


class _IndexChecker:
    """Compares a MapFile's index and key order with the records read from its data."""

    def __init__(self, ctx: ReadContext, folder: str, data_path: str, index_path: str) -> None:
        self.ctx = ctx
        self.index_path = index_path
        self.problems: list[str] = []
        self.key_class = ""
        self.block = False
        #: index entries not yet matched, by data position.
        self.pending: dict[int, list[IndexEntry]] = {}
        self.unsorted = 0
        self.last: bytes | None = None
        self.last_offset: int | None = None
        head = b""
        try:
            head = storage.read_start(data_path, 1 << 20)
            header = read_header(head)
            self.key_class, self.block = header.key_class, header.compression == "block"
        except (OSError, HeaderError):
            self.key_class = ""  # the sequencefile reader reports the data file itself
        if not storage.isfile(index_path):
            self.problems.append(f"{index_path} is missing: the MapFile cannot be looked up")
            return
        try:
            with _mapfile(folder, head, data_path, index_path) as m:
                for offset, reason in m.problems:
                    self._bad(offset, reason)
                for e in m.index:
                    self.pending.setdefault(e.position, []).append(e)
        except (OSError, HeaderError, ValueError) as exc:
            self.problems.append(f"{index_path}: not a MapFile index: {exc}")

    def _bad(self, offset: int, reason: str) -> None:
        self.problems.append(f"byte {offset} of the index: {reason}")
        self.ctx.report_warning(
            "index-mismatch", f"{self.index_path}, byte {offset} of the index: {reason}", offset
        )

    def see(self, record: Record) -> None:
        """Check one record's key against the order and the index entries at its place."""
        extras: Any = record.extras.get("sequencefile") or {}
        key = bytes(extras.get("key", b""))
        offset = record.source.offset if record.source is not None else None
        k = sort_key(self.key_class, key)
        if self.last is not None and k < self.last:
            self.unsorted += 1
            if self.unsorted <= _MAX_UNSORTED:
                self.ctx.report_warning(
                    "unsorted-keys",
                    f"data key {key[:80]!r} at byte {offset} is lower than the key before it "
                    f"(at byte {self.last_offset}): a MapFile lookup can miss it",
                    offset,
                )
        self.last, self.last_offset = k, offset
        if offset is None or not self.pending:
            return
        places = [offset]
        if not self.block and extras.get("sync_before"):
            places.append(offset - SYNC_SIZE)  # Hadoop indexes the sync marker before it
        for place in places:
            waiting = self.pending.get(place)
            if not waiting:
                continue
            kept = [e for e in waiting if e.key != key]
            if self.block:  # any record of the block may hold the entry's key
                self.pending[place] = kept
            else:  # only the record at the position: what it does not hold is wrong
                for e in kept:
                    self._mismatch(e, f"record at byte {offset} holds key {key[:80]!r}")
                self.pending[place] = []

    def _mismatch(self, e: IndexEntry, found: str) -> None:
        self._bad(e.offset, f"entry for key {e.key[:80]!r} names data position {e.position}, "
                            f"where {found}")  # fmt: skip

    def finish(self) -> None:
        """Report what was never matched, the unsorted keys not reported one by one, and the
        MapFile's ``index`` check."""
        for position in sorted(self.pending):
            for e in self.pending[position]:
                what = "its block does not hold that key" if self.block else "no record starts"
                self._mismatch(e, what)
        if self.unsorted > _MAX_UNSORTED:
            self.ctx.report_warning(
                "unsorted-keys",
                f"{self.unsorted - _MAX_UNSORTED} more data key(s) lower than the key before them",
            )
        reason = "; ".join(self.problems[:5])
        if len(self.problems) > 5:
            reason += f"; and {len(self.problems) - 5} more"
        self.ctx.report_check(Check(self.index_path, "index", not self.problems, reason))


def _mapfile(folder: str, head: bytes, data_path: str, index_path: str) -> MapFile:
    """The MapFile ``folder`` for the index checks: a local one opened from its files, a
    remote one from its ``index`` (fetched whole) and its data's first bytes ``head`` and
    size (the sequencefile reader fetches the data itself)."""
    if not storage.is_remote(folder):
        return MapFile(folder)
    return MapFile(
        folder, data=head, data_size=storage.size(data_path), index=storage.read_all(index_path)
    )


@hookimpl
def crawlmill_register_readers(register) -> None:
    """Register the ``mapfile`` reader."""
    register(MapFileReader)
