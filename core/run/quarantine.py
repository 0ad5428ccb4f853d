"""The quarantine of one task: bytes that were skipped as damage and records a writer refused.

Per input file, two files under ``<output>/.crawlmill/quarantine/`` named after the input's
relpath (``a/b.warc.gz`` -> ``quarantine/a/b.warc.gz.bin`` and ``.jsonl``), written through the
task's temp folder and committed with its outputs (so they are atomic like outputs):

* ``.bin``: the quarantined bytes, one entry after another;
* ``.jsonl``: one JSON object per entry: ``path`` (input file), ``offset`` and ``length`` (in
  the input, ``null`` when unknown; for a refused record also ``space``, the record's
  ``Provenance.space``: ``file``, ``member`` or ``stream``), ``reason``, ``code`` (the stable code of the problem,
listed in ``docs/problems.md``: the damage's ``code``; for a refused record the code its
reason starts with, or one derived from it), ``bin_offset`` and ``bin_length`` (where its
  bytes are in the ``.bin``) and ``data``: ``"raw"`` for damaged input bytes exactly as the
  reader reported them (``Damage.data``), or ``"record-json"`` for a record handed back by a
  writer, stored in the ``.bin`` as one line of JSON: the Record's fields, with bytes written
  as ``{"$b64": "<base64>"}``, datetimes as ISO strings, tuples as lists.

``offset`` and ``length`` are byte positions in the file named by ``path``, as it is stored
(compressed offsets for a compressed file), except for a refused record whose ``space`` is
``stream`` (a position in the decompressed stream, not checked against the file). An entry whose range does not lie inside that file
(negative, or past its end) can only come from a reader bug: it is kept (its bytes are not
lost) but flagged with ``inconsistent`` (the reason), and the task counts a warning
(:data:`INCONSISTENT_DAMAGE`), so nobody takes it for a true position.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import json
from datetime import datetime
from typing import Any

from .. import storage
from ..plugin import Damage, InputFile
from ..problems import derive_code
from ..record import Record
from .outputs import BOOKKEEPING, TaskOutputs, TrackedFile, UnsafeOutputPath, safe_relpath

__all__ = ["INCONSISTENT_DAMAGE", "Quarantine", "check_range", "record_to_json"]

#: the code of the warning a task counts for each quarantine entry whose range is outside its
#: file (its message is the entry's ``inconsistent`` text).
INCONSISTENT_DAMAGE = "inconsistent-damage"


def check_range(offset: object, length: object, size: int | None) -> str | None:
    """Why ``offset``/``length`` cannot be a byte range of a file of ``size`` bytes (``None``:
    consistent, or nothing to check against: unknown offset or size)."""
    if offset is None:
        return None
    if not isinstance(offset, int) or offset < 0:
        return f"offset {offset!r} is not a byte position"
    if length is not None and (not isinstance(length, int) or length < 0):
        return f"length {length!r} is not a byte count"
    if size is None:
        return None
    if offset > size:
        return f"offset {offset} is past the end of the file ({size} bytes)"
    if length is not None and offset + length > size:
        return f"offset {offset} + length {length} runs past the end of the file ({size} bytes)"
    return None


def _plain(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$b64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # a field kept out of the value's repr is a handle, not data (``RecordSource.held``:
        # its repr is an object address, which would make the quarantine differ run to run)
        fields = [f for f in dataclasses.fields(value) if f.repr]
        return {f.name: _plain(getattr(value, f.name)) for f in fields}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(_plain(v) for v in value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)


def record_to_json(record: Record) -> bytes:
    """One line of JSON holding every field of ``record`` (bytes as ``{"$b64": ...}``);
    ``changed`` (the fields a filter changed) only when there are some."""
    data = _plain(record)
    if not record.changed:
        del data["changed"]
    text = json.dumps(data, sort_keys=True, ensure_ascii=True)
    return text.encode("ascii") + b"\n"


class Quarantine:
    """Collects the quarantined entries of one task into its ``.bin`` + ``.jsonl`` pair."""

    def __init__(self, outputs: TaskOutputs, input_file: InputFile, key: str) -> None:
        self.outputs = outputs
        self.input = input_file
        try:
            name = safe_relpath(input_file.relpath)
        except UnsafeOutputPath:
            name = key
        self.base = f"{BOOKKEEPING}/quarantine/{name}"
        self._bin: TrackedFile | None = None
        self._index: TrackedFile | None = None
        self._sizes: dict[str, int | None] = {}
        self.count = 0

    def _size_of(self, path: str | None) -> int | None:
        """Size of the regular file ``path`` (``None``: not a file, e.g. a collection folder),
        a local one or an object at a URL (core/storage.py: its listing's or ``HEAD``'s size)."""
        if not path:
            return None
        if path not in self._sizes:
            try:
                self._sizes[path] = storage.size(path) if storage.isfile(path) else None
            except OSError:
                self._sizes[path] = None
        return self._sizes[path]

    @property
    def relpaths(self) -> list[str]:
        """The two file paths (relative to the output root) this task's quarantine uses."""
        return [f"{self.base}.bin", f"{self.base}.jsonl"]

    def _open(self) -> tuple[TrackedFile, TrackedFile]:
        if self._bin is None or self._index is None:
            self._bin = self.outputs.create(f"{self.base}.bin", internal=True)
            self._index = self.outputs.create(f"{self.base}.jsonl", internal=True)
        return self._bin, self._index

    def _add(self, data: bytes | bytearray, entry: dict[str, Any]) -> dict[str, Any]:
        # a position in the decompressed stream is not a byte range of the stored file
        size = None if entry.get("space") == "stream" else self._size_of(entry["path"])
        problem = check_range(entry["offset"], entry["length"], size)
        if problem is not None:
            entry["inconsistent"] = problem
        bin_fh, index_fh = self._open()
        entry["bin_offset"] = bin_fh.tell()
        entry["bin_length"] = len(data)
        bin_fh.write(data)
        index_fh.write(json.dumps(entry, sort_keys=True).encode("utf-8") + b"\n")
        self.count += 1
        return entry

    def add_damage(self, damage: Damage) -> dict[str, Any]:
        """Store a damaged byte range; returns its index entry."""
        entry = {
            "path": damage.path,
            "offset": damage.offset,
            "length": damage.length,
            "reason": damage.reason,
            "code": damage.code,
            "data": "raw",
        }
        return self._add(damage.data or b"", entry)  # (a reader may hand over a bytearray)

    def add_record(self, record: Record, reason: str) -> dict[str, Any]:
        """Store a record the writer refused; returns its index entry."""
        src = record.source
        entry = {
            "path": src.path if src else self.input.path,
            "offset": src.offset if src else None,
            "length": src.length if src else None,
            "space": str(src.space) if src and src.space else None,
            "reason": reason,
            "code": derive_code(reason),
            "url": record.url,
            "data": "record-json",
        }
        return self._add(record_to_json(record), entry)
