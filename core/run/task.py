"""One task: read one input file, pass each record through the filters, write it; commit.

:func:`run_task` runs in a worker process and takes a
:class:`~crawlmill.core.messages.TaskPayload` (plain data: the spec as JSON, the input file,
its marker key), rebuilds the plugin registry with ``Registry.load(spec.plugins)`` and
instantiates the components from validated options, so no plugin object is ever pickled. Its
parts, in order:

1. **open** (:func:`open_components`): the reader, the filter steps and the writer;
2. **read** through :class:`~crawlmill.core.reading.RecordIterator`, the same machinery as
   :func:`~crawlmill.core.open_reader`, with a :class:`TaskSink` as its callbacks: damage to
   the quarantine, warnings, checks and step counters into
   :class:`~crawlmill.core.stats.TaskStats`;
3. **filter and write** (:func:`_pump`, :func:`filter_record`): record by record, so memory stays
   flat in the input size; every step is counted;
4. **account** (:meth:`Task.account`): the accounting identity of the task;
5. **commit** (:meth:`Task.commit`): the outputs renamed into place and the completion
   :class:`~crawlmill.core.messages.Marker` written (:mod:`crawlmill.core.run.outputs`).

It returns a :class:`~crawlmill.core.messages.TaskResult` and never raises. On any status but
``OK`` the task's temp files are removed and nothing is committed; the result then carries
what the task had counted when it ended.
"""

from __future__ import annotations

import contextlib
import os
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from .. import storage
from ..collection import unit_size
from ..components import Resolved, resolve, resolve_pipeline
from ..errors import ConfigError, DamagedRecordError
from ..messages import MARKER_VERSION, Marker, OutputFile, TaskPayload, TaskResult, TaskStatus
from ..plugin import (
    Check,
    Damage,
    Drop,
    Filter,
    FilterContext,
    InputFile,
    Limits,
    Notice,
    Reader,
    WriteContext,
    Writer,
)
from ..problems import observe
from ..reading import RecordIterator
from ..record import Record
from ..registry import Registry
from ..spec import ComponentSpec, PipelineSpec
from ..stats import TaskStats, filter_labels
from .channel import ORPHAN_EXIT, current_channel, parent_alive
from .outputs import BOOKKEEPING, OutputRoot, TaskOutputs, md5_needed
from .progress import TaskReporter
from .quarantine import INCONSISTENT_DAMAGE, Quarantine
from .registries import REGISTRIES, registry_for, seed_registry
from .tables import table_loader

__all__ = [
    "MARKER_VERSION",
    "Components",
    "Stopped",
    "Task",
    "TaskSink",
    "check_parent",
    "damage_info",
    "filter_record",
    "open_components",
    "open_records",
    "output_entry",
    "run_task",
    "seed_registry",
]

#: the registry cache (:mod:`crawlmill.core.run.registries`), under its old name.
_REGISTRIES = REGISTRIES
#: step names of the reader's and the writer's counters (filters use their labels).
READER_STEP = "reader"
WRITER_STEP = "writer"


class Stopped(Exception):
    """The parent asked tasks to stop (another task hit on_error=fail, or Ctrl-C)."""


def check_parent() -> None:
    """End this worker at once when the run that started it died (its run lock with it): it
    must neither commit nor clean up, as a rerun may already own the output root."""
    if not parent_alive():
        os._exit(ORPHAN_EXIT)


def damage_info(d: Damage) -> dict[str, Any]:
    return {
        "path": d.path,
        "offset": d.offset,
        "reason": d.reason,
        "length": d.length,
        "code": d.code,
    }


def run_task(payload: TaskPayload | dict[str, Any]) -> TaskResult:
    """Run one input end to end; see the module docstring. A plain-dict payload (the
    :meth:`TaskPayload.to_dict` form) is accepted too."""
    if not isinstance(payload, TaskPayload):
        payload = TaskPayload.from_dict(payload)
    inp = payload.input
    result = partial(
        TaskResult,
        key=payload.key,
        index=inp.index,
        input_count=payload.input_count,
        input=inp.relpath,
        path=inp.path,
    )
    task = Task(payload, TaskReporter(current_channel(), payload.key))
    try:
        done = result(TaskStatus.OK, marker=task.run())
    except Stopped:
        done = result(TaskStatus.CANCELLED, stats=task.stats)
    except DamagedRecordError as exc:
        damage = damage_info(exc.damage)  # type: ignore[arg-type]
        done = result(TaskStatus.DAMAGED, damage=damage, stats=task.stats)
    except Exception as exc:
        tb = "".join(traceback.format_exception(exc, limit=-10))
        error = f"{type(exc).__name__}: {exc}"
        done = result(TaskStatus.FAILED, error=error, traceback=tb, stats=task.stats)
        task.reporter.log(
            f"crawlmill: task failed: {inp.path}: {error} (after reading "
            f"{done.read or 0} record(s); none of this input's records written)"
        )
    finally:
        task.reporter.flush()
    if done.status is not TaskStatus.OK and task.outputs is not None:
        task.outputs.discard()
    return done


def _reader_of(spec: PipelineSpec, registry: Registry, name: str) -> Resolved:
    problems: list[tuple[str, str]] = []
    component = spec.reader if spec.reader is not None else ComponentSpec(name=name)
    resolved = resolve(registry, "reader", component, "reader", problems)
    if resolved is None:
        raise ConfigError(problems)
    return resolved


@dataclass(frozen=True, slots=True)
class Components:
    """The task's instances: its reader (and name), labelled filter steps and writer."""

    reader: Reader
    reader_name: str
    steps: list[tuple[str, Filter]]
    writer: Writer
    #: the task's plugin registry (a reader delegates through it: ``ctx.reader``).
    registry: Registry


def open_components(spec: PipelineSpec, reader_name: str) -> Components:
    """Instantiate the reader, filters and writer from the spec's validated options."""
    registry = registry_for(spec.plugins)
    pipeline = resolve_pipeline(spec, registry)
    reader = _reader_of(spec, registry, reader_name)
    labels = filter_labels([f.name for f in pipeline.filters])
    steps = [(label, f.instantiate()) for label, f in zip(labels, pipeline.filters, strict=True)]
    return Components(
        reader.instantiate(), reader.name, steps, pipeline.writer.instantiate(), registry
    )


class TaskSink:
    """Where a task's reader and writer report: damaged bytes and refused records go to the
    quarantine, warnings, checks and step counters into the task's :class:`TaskStats`.
    Under ``on_error: fail`` damage (and a failed check) stops the task instead."""

    def __init__(
        self,
        stats: TaskStats,
        quarantine: Quarantine,
        reporter: TaskReporter,
        fail_fast: bool,
    ) -> None:
        self.stats = stats
        self.quarantine = quarantine
        self.reporter = reporter
        self.fail_fast = fail_fast
        #: the damage that stops an ``on_error: fail`` task (also if a reader swallowed it).
        self.hit: Damage | None = None

    def _stop(self, damage: Damage) -> None:
        self.hit = damage
        raise DamagedRecordError(damage)

    def damage(self, damage: Damage) -> None:
        """A reader's damaged byte range: quarantined and counted as a read record (a later
        part of one, ``Damage.continues``: quarantined, not counted again)."""
        if self.fail_fast:
            self._stop(damage)
        entry = self.quarantine.add_damage(damage)
        info = damage_info(damage)
        if "inconsistent" in entry:  # a reader bug: flagged, never passed off as a true range
            info["inconsistent"] = entry["inconsistent"]
            self.stats.add_warning(INCONSISTENT_DAMAGE, entry["inconsistent"])
        self.stats.add_damage(info, damage.continues)
        self.reporter.count(0, damage.length or 0)
        self.reporter.log(f"crawlmill: damaged record quarantined: {damage} [{damage.code}]")

    def warning(self, notice: Notice) -> None:
        """A reader's warning, counted per code."""
        self.stats.add_warning(notice.code, notice.message)

    def writer_warning(self, notice: Notice) -> None:
        """A writer's warning, counted per code."""
        observe(notice)
        self.stats.add_warning(notice.code, notice.message)

    def check(self, check: Check) -> None:
        """A collection check: counted beside the accounting (failed: damage-level)."""
        if not check.ok and self.fail_fast:
            reason = f"{check.check} check failed: {check.reason}"
            self._stop(Damage(check.path, 0, reason, code="check-failed"))
        self.stats.add_check(
            {"path": check.path, "check": check.check, "ok": check.ok, "reason": check.reason}
        )
        if not check.ok:
            self.reporter.log(f"crawlmill: {check}")

    def refused(self, record: Record, reason: str) -> None:
        """A record the writer handed back (``ctx.quarantine``)."""
        entry = self.quarantine.add_record(record, reason)
        if "inconsistent" in entry:
            self.stats.add_warning(INCONSISTENT_DAMAGE, entry["inconsistent"])
        self.stats.add_refused(
            entry["code"], f"{_input_of(record, self.quarantine)}: {reason}", str(record.kind)
        )

    def counter(self, step: str) -> Callable[[str, int], None]:
        """The ``ctx.count`` target of ``step``."""
        return partial(self.stats.count, step)

    def raise_hit(self) -> None:
        """Stop when damage stopped the task, also if the reader swallowed the exception."""
        if self.hit is not None:
            raise DamagedRecordError(self.hit)


def _input_of(record: Record, quarantine: Quarantine) -> str:
    """The input a refused record came from: its provenance, else the task's input unless
    that is crawlmill's own work file (a shuffle partition), which no user knows."""
    src = record.source
    if src is not None and src.path and f"/{BOOKKEEPING}/" not in src.path:
        return src.path
    path = quarantine.input.path
    return "input unknown (shuffle)" if f"/{BOOKKEEPING}/" in path else path


def filter_record(
    steps: list[tuple[str, Filter]], record: Record, counters: dict[str, dict[str, Any]]
) -> Record | None:
    """``record`` through the filter steps, counted per step; ``None`` when one drops it."""
    for label, step in steps:
        counted = counters[label]
        counted["in"] += 1
        verdict = step.apply(record)
        if isinstance(verdict, Drop):
            dropped = counted["dropped"]
            dropped[verdict.reason] = dropped.get(verdict.reason, 0) + 1
            return None
        if not isinstance(verdict, Record):
            raise TypeError(
                f"filter {label} returned {type(verdict).__name__}; expected a Record or Drop"
            )
        counted["kept"] += 1
        record = verdict
    return record


def _pump(
    records: Iterable[Record],
    steps: list[tuple[str, Filter]],
    writer: Writer,
    stats: TaskStats,
    sink: TaskSink,
    saw: Callable[[Record], None],
) -> None:
    """The record loop: each record read, counted (``saw``: towards the input's record-count
    expectations), filtered and handed to the writer."""
    reporter = sink.reporter
    channel = reporter.channel
    for record in records:
        if sink.hit is not None:
            raise DamagedRecordError(sink.hit)
        stats.records += 1
        stats.read += 1
        saw(record)
        src = record.source
        # the stop flag is checked whenever progress is posted (every 0.25 s)
        if (
            reporter.count(1, (src.length or 0) if src is not None else 0)
            and channel.stop_requested()
        ):
            raise Stopped()
        kept = filter_record(steps, record, stats.filters) if steps else record
        if kept is not None:
            stats.received += 1
            writer.write(kept)
    sink.raise_hit()


#: the warning of an input file of 0 bytes (docs/problems.md).
EMPTY_INPUT = "empty-input"


def _empty_file(path: str) -> bool:
    """Whether ``path`` is a local regular file of 0 bytes."""
    try:
        return os.path.isfile(path) and os.path.getsize(path) == 0
    except (OSError, ValueError):
        return False


class Task:
    """The state of one running task (see the module docstring for its parts)."""

    def __init__(self, payload: TaskPayload, reporter: TaskReporter) -> None:
        self.payload = payload
        self.reporter = reporter
        self.started = time.monotonic()
        self.spec: PipelineSpec | None = None
        self.outputs: TaskOutputs | None = None
        #: what the task counted (``None`` until its components are open).
        self.stats: TaskStats | None = None

    def run(self) -> Marker:
        """Open, stream, account and commit; returns the completion marker."""
        payload = self.payload
        spec = self.spec = PipelineSpec.from_dump(payload.spec)  # the driver's dump: no pydantic
        self.outputs = TaskOutputs(
            spec.output,
            payload.key,
            replaceable=payload.replaceable,
            overwrite=spec.run.overwrite,
        )
        parts = open_components(spec, payload.reader)
        w = parts.writer  # MD5 or CRC-32 of its files (before the first is created)
        self.outputs.md5 = md5_needed(type(w), w.options, spec.run.md5)
        stats = self.stats = TaskStats(
            filters={label: {"in": 0, "kept": 0, "dropped": {}} for label, _ in parts.steps}
        )
        self.outputs.start()
        quarantine = Quarantine(self.outputs, payload.input, payload.key)
        sink = TaskSink(stats, quarantine, self.reporter, spec.run.on_error == "fail")
        if _empty_file(payload.input.path):  # named, never a silent no-op
            sink.warning(Notice(payload.input.path, None, "an empty file (0 bytes): no records", code=EMPTY_INPUT))  # fmt: skip
            self.reporter.log(f"crawlmill: {payload.input.path}: empty file (0 bytes), no records [{EMPTY_INPUT}]")  # fmt: skip
        wctx = self.stream(parts, sink)
        self.account()
        return self.commit(quarantine, wctx)

    def stream(self, parts: Components, sink: TaskSink) -> WriteContext:
        """Read every record through the filters into the writer; close the writer."""
        assert self.spec is not None and self.outputs is not None and self.stats is not None
        inp, run, tables = self.payload.input, self.spec.run, self.payload.tables
        stats = self.stats
        fctxs = {
            label: FilterContext(
                inp,
                counter=sink.counter(label),
                table_loader=table_loader(tables.get(f"filters[{i}]")),
                position=lambda c=stats.filters[label]: c["in"] - 1,
            )
            for i, (label, _) in enumerate(parts.steps)
        }
        wctx = WriteContext(
            input=inp,
            input_count=self.payload.input_count,
            create=self.outputs.create,
            quarantine=sink.refused,
            on_warning=sink.writer_warning,
            counter=sink.counter(WRITER_STEP),
            # the passes' tables and record ordinals (numbered as in the collect pass)
            table_loader=table_loader(tables.get("writer")),
            position=lambda: stats.received - 1,
            filters=fctxs,
        )
        for label, step in parts.steps:
            step.open(fctxs[label])
        records = open_records(
            parts,
            inp,
            run,
            on_damage=sink.damage,
            on_warning=sink.warning,
            on_check=sink.check,
            on_count=sink.counter(READER_STEP),
        )
        parts.writer.open(wctx)
        try:
            with records:
                raw = records.raw()
                _pump(raw, parts.steps, parts.writer, self.stats, sink, records.saw)
                records.verify()  # the unit's md5 and record-count expectations
        except BaseException:
            with contextlib.suppress(Exception):
                parts.writer.close()
            raise
        parts.writer.close()
        self.stats.added = wctx.added_records
        return wctx

    def account(self) -> None:
        """Input size and time; assert the accounting identity (``AccountingError``)."""
        assert self.stats is not None
        with contextlib.suppress(OSError):
            self.stats.bytes_in = unit_size(self.payload.input)
        self.stats.seconds = round(time.monotonic() - self.started, 3)
        self.stats.check()

    def commit(self, quarantine: Quarantine, wctx: WriteContext) -> Marker:
        """Rename the outputs into place, then write the completion marker."""
        assert self.spec is not None and self.outputs is not None and self.stats is not None
        payload, inp = self.payload, self.payload.input
        check_parent()  # a worker of a killed run never commits (a rerun may own the root)
        listed = self.outputs.commit()
        if quarantine.count == 0:  # a redo that found no damage: drop an older run's quarantine
            self.outputs.remove_final(quarantine.relpaths)
        marker = Marker(
            key=payload.key,
            fingerprint=payload.fingerprint,
            input=inp.relpath,
            input_path=storage.absolute(inp.path),
            input_size=payload.input_size,
            index=inp.index,
            input_count=payload.input_count,
            reader=payload.reader,
            outputs=self.marker_outputs(listed),
            quarantine=tuple(output_entry(o) for o in listed if o["internal"]),
            notes=self.marker_notes(wctx),
            stats=self.stats,
            extra={"stem": inp.stem},  # resume checks it (core/run/engine.py)
        )
        data = marker.to_dict()
        check_parent()
        self.write_marker(payload.key, data)
        return Marker.from_dict(data)  # exactly what a resumed run reads back

    def marker_outputs(self, listed: list[dict[str, Any]]) -> tuple[OutputFile, ...]:
        """The marker's output files: what the task committed, its quarantine aside."""
        return tuple(output_entry(o) for o in listed if not o["internal"])

    def marker_notes(self, wctx: WriteContext) -> dict[str, Any]:
        """The marker's notes: the writer's."""
        return wctx.notes

    def write_marker(self, key: str, data: dict[str, Any]) -> None:
        """Write the completion marker where a resumed run looks for it."""
        assert self.spec is not None
        OutputRoot(self.spec.output).write_marker(key, data)


def open_records(parts: Components, inp: InputFile, run: Any, **callbacks: Any) -> RecordIterator:
    """The task's records: ``parts``' reader over ``inp`` within the run's limits, damage,
    warnings, checks and counts handed to ``callbacks`` (``on_damage=...``), not collected."""
    limits = Limits(
        max_record_bytes=run.max_record_bytes,
        max_decompressed_bytes=run.max_decompressed_bytes,
    )
    return RecordIterator(
        parts.reader,
        parts.reader_name,
        inp,
        limits=limits,
        collect=False,
        registry=parts.registry,
        **callbacks,
    )


def output_entry(listed: dict[str, Any]) -> OutputFile:
    return OutputFile.from_dict({k: v for k, v in listed.items() if k != "internal"})
