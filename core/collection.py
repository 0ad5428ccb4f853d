"""Collections: units of input made of named parts, what a collection promises about them,
and the checks that compare the two.

A reader's ``discover(path, options)`` expands a folder into **units**
(:class:`~crawlmill.core.plugin.InputFile`): one task each, named after the unit's
``relpath``. A unit is either

* the **trivial unit**, one file: ``path`` is the file and ``parts`` is empty (every input
  listed without a collection reader is one), or
* a **multi-part unit**: ``parts`` maps part names to files (a MapFile's
  ``{"data": ..., "index": ...}``, a Nutch segment part across six subdirectories, a Common
  Crawl 2012 segment's ARC + metadata + textData), and ``path`` is the unit's own location,
  which keys its resume marker: the folder holding the parts, or, for parts spread over
  several folders (a Nutch segment's ``part-00000`` in each of them), a path naming the unit
  that need not exist (``<segment>/part-00000``). Its outputs are named after its
  ``relpath``.

A unit carries **expectations** (:class:`Expectation`), what the collection's side files
promise: the md5 of a part, the number of records the reader delivers (from one part or the
whole unit, optionally not counting some record kinds), a part that must exist. The engine
verifies them, never the reader:

* **present** (and every part a unit names): checked when the run is planned. A unit with a
  missing part is not read (its reader could not); each missing part is a failed check.
* **md5**: the part's bytes are hashed in a thread while the reader reads (:class:`Verifier`).
* **records**: the records the reader delivered (a part's: those whose ``source.path`` is
  the part's path) are counted and compared when the reader has finished.

Each verified expectation is a :class:`Check`. Checks are reported beside the accounting
(``checks_passed`` / ``checks_failed`` in report.json, ``checks: N passed, M failed`` in the
run summary), never counted as records or quarantined; a failed one makes the run exit 3.
A reader may also report a check of its own with ``ctx.report_check``.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from . import storage

__all__ = [
    "MD5",
    "PRESENT",
    "RECORDS",
    "Check",
    "Expectation",
    "Verifier",
    "presence_checks",
    "unit_parts",
    "unit_size",
]

#: kinds of expectation, also the names of the checks they give.
MD5 = "md5"
RECORDS = "record count"
PRESENT = "present"
_KINDS = (MD5, RECORDS, PRESENT)
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Check:
    """The result of a collection check: a part's md5 or a unit's record count against the
    collection's lists, a part that is present. Checks are reported beside the accounting,
    never counted as records; a failed one is damage-level (the run exits 3)."""

    path: str
    #: short name of what was checked: ``"md5"``, ``"record count"``, ``"present"``, ...
    check: str
    ok: bool
    #: what was expected and found (for a failed check).
    reason: str = ""

    def __str__(self) -> str:
        verdict = "passed" if self.ok else "failed"
        return f"{self.path}: {self.check} check {verdict}" + (
            f": {self.reason}" if self.reason else ""
        )


@dataclass(frozen=True, slots=True)
class Expectation:
    """What a collection promises about one unit, verified by the engine.

    ``kind`` is :data:`MD5` (``value``: the hex digest of ``part``'s bytes), :data:`RECORDS`
    (``value``: the number of records the reader delivers from ``part``, or from the whole
    unit when ``part`` is ``None``, not counting records of the kinds in ``exclude``) or
    :data:`PRESENT` (``part`` must exist). ``part`` names one of the unit's parts; ``None``
    is the unit itself (the file of a single-file unit). ``source`` says where the promise
    comes from (a list file, relative to the collection) and is quoted in the check's reason.
    Build them with :meth:`md5`, :meth:`records` and :meth:`present`."""

    kind: str
    part: str | None = None
    value: str | int | None = None
    source: str = ""
    #: record kinds (``RecordKind`` values) a record count leaves out (``("warcinfo",)``).
    exclude: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"unknown expectation kind {self.kind!r}; known: {', '.join(_KINDS)}")

    @classmethod
    def md5(cls, digest: str, part: str | None = None, source: str = "") -> Expectation:
        """The md5 (hex) of ``part``'s bytes."""
        return cls(MD5, part, digest.lower(), source)

    @classmethod
    def records(
        cls,
        count: int,
        part: str | None = None,
        source: str = "",
        exclude: Iterable[str] = (),
    ) -> Expectation:
        """How many records the reader delivers from ``part`` (or the unit), not counting the
        record kinds in ``exclude``."""
        kinds = tuple(getattr(k, "value", k) for k in exclude)
        return cls(RECORDS, part, int(count), source, kinds)

    @classmethod
    def present(cls, part: str | None = None, source: str = "") -> Expectation:
        """``part`` (or the unit's own path) exists."""
        return cls(PRESENT, part, None, source)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what crosses to a worker process)."""
        return {
            "kind": self.kind,
            "part": self.part,
            "value": self.value,
            "source": self.source,
            "exclude": list(self.exclude),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Expectation:
        """The expectation :meth:`to_dict` gave."""
        return cls(
            data["kind"],
            data.get("part"),
            data.get("value"),
            data.get("source", ""),
            tuple(data.get("exclude", ())),
        )


class _Unit(Protocol):
    path: str
    parts: Mapping[str, str]
    expect: tuple[Expectation, ...]


def unit_parts(unit: _Unit) -> dict[str, str]:
    """The unit's parts, name -> path; a single-file unit is its one file under the name
    ``""``."""
    return dict(unit.parts) if unit.parts else {"": unit.path}


def _part_path(unit: _Unit, part: str | None) -> str:
    if part is None:
        return unit.path
    if part not in unit.parts:
        raise ValueError(
            f"{unit.path}: an expectation names part {part!r}, which the unit does not have "
            f"(parts: {', '.join(sorted(unit.parts)) or 'none'})"
        )
    return unit.parts[part]


def unit_size(unit: _Unit) -> int:
    """Bytes of the unit's parts that exist (what the resume marker compares)."""
    total = 0
    for path in unit_parts(unit).values():
        if storage.isfile(path):
            total += storage.size(path)
    return total


def _exists(path: str) -> bool:
    """Whether the part ``path`` exists (a local path, or an object at a URL)."""
    return storage.isfile(path) if storage.is_remote(path) else os.path.exists(path)


def presence_checks(unit: _Unit) -> tuple[list[Check], bool]:
    """The unit's presence checks, and whether it can be read (every part exists).

    Every :data:`PRESENT` expectation gives a check (passed or failed); a part the unit
    names that is missing and no such expectation covers gives a failed check too."""
    checks: list[Check] = []
    covered: set[str] = set()
    for e in unit.expect:
        if e.kind != PRESENT:
            continue
        path = _part_path(unit, e.part)
        covered.add(path)
        ok = _exists(path)
        reason = ""
        if not ok:
            what = "" if e.part is None else f"part {e.part!r} "
            reason = (
                f"{what}listed in {e.source} but missing from the collection"
                if e.source
                else f"{what or 'the file '}is missing"
            )
        checks.append(Check(path, PRESENT, ok, reason))
    readable = True
    for name, path in unit_parts(unit).items():
        if _exists(path):
            continue
        readable = False
        if path not in covered:
            what = f"part {name!r} of {unit.path}" if name else "the file"
            checks.append(Check(path, PRESENT, False, f"{what} is missing"))
    return checks, readable


class _Md5:
    """md5 of a file computed in a thread (hashlib releases the GIL on large chunks)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.result: str | None = None
        self.error: OSError | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="crawlmill-md5", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        digest = hashlib.md5()
        try:
            with storage.open_input(self.path) as fh:
                while not self._stop.is_set() and (chunk := fh.read(_CHUNK)):
                    digest.update(chunk)
        except OSError as exc:
            self.error = exc
            return
        if not self._stop.is_set():
            self.result = digest.hexdigest()

    def wait(self) -> str | None:
        self._thread.join()
        return self.result

    def cancel(self) -> None:
        self._stop.set()


class Verifier:
    """Verifies a unit's md5 and record-count expectations while its reader runs.

    Create it before the reader starts (md5s are computed in threads meanwhile), pass every
    record the reader delivers to :meth:`saw`, and call :meth:`finish` when the reader has
    delivered its last record: it returns one :class:`Check` per expectation. Call
    :meth:`cancel` instead when the read stopped early (its checks would be false)."""

    def __init__(self, unit: _Unit) -> None:
        self.unit = unit
        self._md5 = [(e, _Md5(_part_path(unit, e.part))) for e in unit.expect if e.kind == MD5]
        self._counts = [e for e in unit.expect if e.kind == RECORDS]
        self._paths = {e: _part_path(unit, e.part) for e in self._counts if e.part is not None}
        self._seen = [0] * len(self._counts)

    def saw(self, record: Any) -> None:
        """Count one delivered record towards the record-count expectations."""
        if not self._counts:
            return
        kind = getattr(record.kind, "value", record.kind)
        source = getattr(getattr(record, "source", None), "path", None)
        for i, e in enumerate(self._counts):
            if kind in e.exclude:
                continue
            if e.part is None or source == self._paths[e]:
                self._seen[i] += 1

    def finish(self) -> list[Check]:
        """The checks of every md5 and record-count expectation."""
        checks = []
        for e, seen in zip(self._counts, self._seen, strict=True):
            path = self.unit.path if e.part is None else self._paths[e]
            ok = seen == e.value
            reason = ""
            if not ok:
                lists = f"{e.source} lists" if e.source else "expected"
                left_out = f" ({', '.join(e.exclude)} excluded)" if e.exclude else ""
                what = (
                    "the file"
                    if not self.unit.parts
                    else (f"part {e.part!r}" if e.part else "the unit")
                )
                reason = (
                    f"record count mismatch: {lists} {e.value} records{left_out}, {what} has {seen}"
                )
            checks.append(Check(path, RECORDS, ok, reason))
        for e, md5 in self._md5:
            actual = md5.wait()
            if actual is None:
                reason = f"md5 not checked: cannot read the file ({md5.error})"
            elif actual != e.value:
                lists = f"{e.source} lists" if e.source else "expected"
                reason = f"md5 mismatch: {lists} {e.value}, the file's bytes have {actual}"
            else:
                reason = ""
            checks.append(Check(md5.path, MD5, not reason, reason))
        return checks

    def cancel(self) -> None:
        """Stop hashing (the read ended early; no check is made)."""
        for _, md5 in self._md5:
            md5.cancel()
