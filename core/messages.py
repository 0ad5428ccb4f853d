"""The typed messages of a run: what the engine sends a task, what the task answers, the
completion marker it leaves, and what ``Writer.finalize`` receives.

They are frozen dataclasses (slots), so a message is never half changed on its way; each has
``to_dict`` (the plain-data form: exactly the JSON the marker files hold, so markers written
by earlier versions resume and later ones read the same keys) and ``from_dict`` (lenient:
missing keys take their defaults, unknown keys are kept in ``extra`` and written back).

* :class:`TaskPayload`: parent -> worker (pickled; never on disk).
* :class:`TaskResult` with its :class:`TaskStatus`: worker -> parent.
* :class:`Marker`: ``OUT/.crawlmill/done/<key>.json``, one completed input.
* :class:`PipelineStamp`: ``OUT/.crawlmill/pipeline.json``, the pipeline a root belongs to.
* :class:`OutputFile` and :class:`CompletedInput`: the files of one input, and one completed
  input as ``Writer.finalize`` sees it. Both also answer ``item["path"]`` and
  ``item.get("notes")``, the dict shape finalize received before, so plugins written against
  it keep working; new code uses the attributes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from .input_file import InputFile
from .stats import TaskStats

__all__ = [
    "MARKER_VERSION",
    "CompletedInput",
    "Marker",
    "OutputFile",
    "PipelineStamp",
    "TaskPayload",
    "TaskResult",
    "TaskStatus",
]

#: version of the completion-marker format (``Marker.version``).
MARKER_VERSION = 1


def _split(cls: type, data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``data`` split into the fields of ``cls`` (``extra`` excluded) and the other keys."""
    names = {f.name for f in fields(cls)} - {"extra"}
    known = {k: v for k, v in data.items() if k in names}
    return known, {k: v for k, v in data.items() if k not in names}


class _ReadOnlyMapping(Mapping[str, Any]):
    """Item access over ``to_dict()``: the dict shape plugins read before the types."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())


@dataclass(frozen=True, slots=True)
class OutputFile(_ReadOnlyMapping):
    """One committed file: its path below the output root, size and checksum: ``md5`` (hex)
    when the run computed it (a writer or layout that reads it, ``Writer.needs_md5``, or
    ``run.md5``), else ``crc32`` (eight hex digits, ``zlib.crc32`` of the bytes); the other
    one is ``None``."""

    path: str
    size: int = 0
    md5: str | None = None
    #: other keys the entry carried (kept as they were).
    extra: Mapping[str, Any] = field(default_factory=dict)
    crc32: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"path", "size", "md5", ...extra}`` as markers list files, with ``"crc32"``
        instead of ``"md5"`` for a file whose MD5 was not computed."""
        if self.crc32 is not None and self.md5 is None:
            return {"path": self.path, "size": self.size, "crc32": self.crc32, **self.extra}
        return {"path": self.path, "size": self.size, "md5": self.md5, **self.extra}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OutputFile:
        """Inverse of :meth:`to_dict`; an :class:`OutputFile` is returned as it is."""
        if isinstance(data, OutputFile):
            return data
        known, extra = _split(cls, data)
        return cls(**known, extra=extra)


@dataclass(frozen=True, slots=True)
class CompletedInput(_ReadOnlyMapping):
    """One completed input as ``Writer.finalize`` sees it: its relpath, position, files and
    the writer's ``WriteContext.notes`` of its task."""

    input: str
    index: int
    outputs: tuple[OutputFile, ...] = ()
    notes: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """``{"input", "index", "outputs": [{"path", "size", "md5"}], "notes"}``."""
        return {
            "input": self.input,
            "index": self.index,
            "outputs": [o.to_dict() for o in self.outputs],
            "notes": self.notes,
        }

    @classmethod
    def from_marker(cls, marker: Marker) -> CompletedInput:
        """The completed input a marker describes."""
        return cls(marker.input, marker.index, marker.outputs, marker.notes)


class TaskStatus(StrEnum):
    """How a task ended."""

    #: converted and committed; the result carries its marker.
    OK = "ok"
    #: an error (or a crashed worker); nothing of the input committed.
    FAILED = "failed"
    #: damage under ``on_error: fail``; nothing committed, the run stops.
    DAMAGED = "damaged"
    #: asked to stop (another task's damage under ``on_error: fail``, or Ctrl-C).
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class TaskPayload:
    """What the engine sends a task: plain data, so no plugin object is pickled."""

    #: ``PipelineSpec.model_dump(mode="json")``; the worker validates it again.
    spec: Mapping[str, Any]
    input: InputFile
    #: the reader's name (named by the spec, or detected when planning).
    reader: str
    #: the completion-marker key (:func:`crawlmill.core.run.outputs.marker_key`).
    key: str
    fingerprint: str
    input_size: int | None
    input_count: int
    #: existing final files the task may replace (its input's older outputs).
    replaceable: tuple[str, ...] = ()
    #: component location (``filters[i]``, ``writer``) -> its pass's ``table.arrow``
    #: (:mod:`crawlmill.core.run.passes`), what ``ctx.table()`` loads.
    tables: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (the input as a dict of its fields)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["input"] = self.input.to_dict()
        data["replaceable"] = list(self.replaceable)
        data["tables"] = dict(self.tables)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TaskPayload:
        """Inverse of :meth:`to_dict`."""
        known, _ = _split(cls, data)
        if not isinstance(known["input"], InputFile):
            known["input"] = InputFile.from_dict(known["input"])
        known["replaceable"] = tuple(known.get("replaceable") or ())
        known.setdefault("input_size", None)
        return cls(**known)


@dataclass(frozen=True, slots=True)
class Marker:
    """A completion marker (``OUT/.crawlmill/done/<key>.json``): the input, the pipeline
    fingerprint it was converted with, its files and its counters."""

    key: str
    fingerprint: str
    input: str
    input_path: str
    index: int
    input_count: int
    reader: str = ""
    input_size: int | None = None
    outputs: tuple[OutputFile, ...] = ()
    #: the quarantine files of the input (below ``.crawlmill/quarantine/``).
    quarantine: tuple[OutputFile, ...] = ()
    #: the writer's ``WriteContext.notes`` (JSON-able).
    notes: Mapping[str, Any] = field(default_factory=dict)
    stats: TaskStats = field(default_factory=TaskStats)
    version: int = MARKER_VERSION
    #: other keys the marker carried (kept and written back).
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def files(self) -> tuple[OutputFile, ...]:
        """Outputs and quarantine files: everything the marker lists."""
        return self.outputs + self.quarantine

    def to_dict(self) -> dict[str, Any]:
        """The marker file's JSON (its keys and values exactly as before the types)."""
        return json.loads(self.to_json())  # what a reader of the file gets

    def to_json(self) -> str:
        """The marker file's JSON text, on one line (:meth:`to_dict`'s keys in its order)."""
        data: dict[str, Any] = {
            "version": self.version,
            "key": self.key,
            "fingerprint": self.fingerprint,
            "input": self.input,
            "input_path": self.input_path,
            "input_size": self.input_size,
            "index": self.index,
            "input_count": self.input_count,
            "reader": self.reader,
            "outputs": [o.to_dict() for o in self.outputs],
            "quarantine": [o.to_dict() for o in self.quarantine],
            "notes": self.notes,
            "stats": self.stats.to_dict(),
            **self.extra,
        }
        return json.dumps(data, default=str)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Marker:
        """The marker of a marker file's JSON; ``ValueError`` (or ``TypeError``/``KeyError``)
        when it is not one."""
        known, extra = _split(cls, data)
        for name in ("outputs", "quarantine"):
            known[name] = tuple(OutputFile.from_dict(o) for o in known.get(name) or ())
        known["stats"] = TaskStats.from_dict(known.get("stats") or {})
        known["notes"] = known.get("notes") or {}
        return cls(**known, extra=extra)


@dataclass(frozen=True, slots=True)
class TaskResult:
    """What a task answers: how it ended, and what it leaves for the report."""

    status: TaskStatus
    key: str
    index: int
    input: str
    path: str
    input_count: int = 0
    #: the completion marker (``OK``).
    marker: Marker | None = None
    #: ``"Type: message"`` and a short traceback (``FAILED``).
    error: str | None = None
    traceback: str | None = None
    #: the damage that stopped the task (``DAMAGED``): path, offset, reason, length.
    damage: Mapping[str, Any] | None = None
    #: what the task had counted when it ended (not ``OK``; ``None`` before it started).
    stats: TaskStats | None = None

    @property
    def read(self) -> int | None:
        """Records the task read before it ended without committing."""
        return self.stats.read if self.stats is not None else None

    def to_dict(self) -> dict[str, Any]:
        """Plain data (the status as its string)."""
        data: dict[str, Any] = {
            "status": self.status.value,
            "key": self.key,
            "index": self.index,
            "input_count": self.input_count,
            "input": self.input,
            "path": self.path,
        }
        if self.marker is not None:
            data["marker"] = self.marker.to_dict()
        for name in ("error", "traceback", "damage"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        if self.stats is not None:
            data["stats"] = self.stats.to_dict()
            data["read"] = self.stats.read
        return data


@dataclass(frozen=True, slots=True)
class PipelineStamp:
    """``OUT/.crawlmill/pipeline.json``: the fingerprint of the pipeline an output root
    belongs to and what it hashes (``PipelineSpec.fingerprint_data``), so a run of another
    pipeline into the root can say what differs."""

    fingerprint: str
    pipeline: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """``{"fingerprint", "pipeline"}``."""
        return {"fingerprint": self.fingerprint, "pipeline": self.pipeline}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PipelineStamp:
        """Inverse of :meth:`to_dict`."""
        return cls(str(data["fingerprint"]), data.get("pipeline") or {})
