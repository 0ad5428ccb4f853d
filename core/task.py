"""One task: read one input file, pass each record through the filters, write it; commit.

:func:`run_task` runs in a worker process and takes only plain data (``spec.model_dump()``,
the input file's fields, its marker key), rebuilds the plugin registry with
``Registry.load(spec.plugins)`` and instantiates the components from validated options, so no
plugin object is ever pickled. It streams record by record (memory stays flat in the input
size), counts every step (:class:`~crawlmill.core.stats.TaskStats`), sends damaged bytes and
refused records to the quarantine, and on success commits the outputs and writes the
completion marker (:mod:`crawlmill.core.outputs`). It returns a plain dict and never raises:

``{"status": "ok" | "failed" | "damaged" | "cancelled", "key", "index", "input", "path",
"marker" (ok), "error" + "traceback" (failed), "damage" (damaged: on_error=fail hit),
"read" + "stats" (not ok: what the task had counted when it ended)}``.

On any status but ``ok`` the task's temp files are removed and nothing is committed.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import traceback
from typing import Any

from .components import Resolved, resolve, resolve_pipeline
from .errors import ConfigError, DamagedRecordError
from .executor import ORPHAN_EXIT, current_channel, parent_alive
from .outputs import OutputRoot, TaskOutputs, _inside
from .plugin import Check, Damage, Drop, InputFile, Limits, Notice, ReadContext, WriteContext
from .problems import observe
from .progress import TaskReporter
from .quarantine import INCONSISTENT_DAMAGE, Quarantine
from .record import Record
from .registry import Registry
from .spec import ComponentSpec, PipelineSpec
from .stats import TaskStats, filter_labels

__all__ = ["MARKER_VERSION", "run_task", "seed_registry"]

MARKER_VERSION = 1
_REGISTRIES: dict[tuple[str, ...], Registry] = {}


class _Stopped(Exception):
    """The parent asked tasks to stop (another task hit on_error=fail, or Ctrl-C)."""


def _check_parent() -> None:
    """End this worker at once when the run that started it died (its run lock with it): it
    must neither commit nor clean up, as a rerun may already own the output root."""
    if not parent_alive():
        os._exit(ORPHAN_EXIT)


def seed_registry(plugins: list[str], registry: Registry) -> None:
    """Use ``registry`` for specs with these ``plugins`` in this process (in-process runs)."""
    _REGISTRIES[tuple(plugins)] = registry


def _registry(plugins: list[str]) -> Registry:
    key = tuple(plugins)
    if key not in _REGISTRIES:
        _REGISTRIES[key] = Registry.load(plugins)
    return _REGISTRIES[key]


def _damage_info(d: Damage) -> dict[str, Any]:
    return {
        "path": d.path,
        "offset": d.offset,
        "reason": d.reason,
        "length": d.length,
        "code": d.code,
    }


def run_task(payload: dict[str, Any]) -> dict[str, Any]:
    """Run one input end to end; see the module docstring for the returned dict."""
    started = time.monotonic()
    inp = InputFile(**payload["input"])
    key = payload["key"]
    result: dict[str, Any] = {
        "key": key,
        "index": inp.index,
        "input_count": payload["input_count"],
        "input": inp.relpath,
        "path": inp.path,
    }
    outputs: TaskOutputs | None = None
    reporter = TaskReporter(current_channel(), key)
    stats: list[TaskStats] = []  # filled by _run: what the task counted before it ended
    try:
        spec = PipelineSpec.model_validate(payload["spec"])
        outputs = TaskOutputs(
            spec.output,
            key,
            replaceable=payload.get("replaceable", ()),
            overwrite=spec.run.overwrite,
        )
        marker = _run(spec, payload, inp, key, outputs, reporter, started, stats)
        result.update(status="ok", marker=marker)
    except _Stopped:
        result.update(status="cancelled")
    except DamagedRecordError as exc:
        result.update(status="damaged", damage=_damage_info(exc.damage))  # type: ignore[arg-type]
    except Exception as exc:
        tb = "".join(traceback.format_exception(exc, limit=-10))
        result.update(status="failed", error=f"{type(exc).__name__}: {exc}", traceback=tb)
        read = stats[0].read if stats else 0
        reporter.log(
            f"crawlmill: task failed: {inp.path}: {type(exc).__name__}: {exc} (after reading "
            f"{read} record(s); none of this input's records written)"
        )
    finally:
        reporter.flush()
    if result["status"] != "ok" and stats:
        result["stats"] = stats[0].to_dict()
        result["read"] = stats[0].read
    if result["status"] != "ok" and outputs is not None:
        outputs.discard()
    return result


def _reader_of(spec: PipelineSpec, registry: Registry, name: str) -> Resolved:
    problems: list[tuple[str, str]] = []
    component = spec.reader if spec.reader is not None else ComponentSpec(name=name)
    resolved = resolve(registry, "reader", component, "reader", problems)
    if resolved is None:
        raise ConfigError(problems)
    return resolved


def _run(
    spec: PipelineSpec,
    payload: dict[str, Any],
    inp: InputFile,
    key: str,
    outputs: TaskOutputs,
    reporter: TaskReporter,
    started: float,
    counted: list[TaskStats],
) -> dict[str, Any]:
    registry = _registry(spec.plugins)
    pipeline = resolve_pipeline(spec, registry)
    reader = _reader_of(spec, registry, payload["reader"]).instantiate()
    filters = [f.instantiate() for f in pipeline.filters]
    labels = filter_labels([f.name for f in pipeline.filters])
    writer = pipeline.writer.instantiate()
    fail_fast = spec.run.on_error == "fail"
    channel = reporter.channel

    stats = TaskStats(filters={label: {"in": 0, "kept": 0, "dropped": {}} for label in labels})
    counted.append(stats)
    outputs.start()
    quarantine = Quarantine(outputs, inp, key)
    hit: list[Damage] = []

    def report_damage(damage: Damage) -> None:
        observe(damage)
        if fail_fast:
            hit.append(damage)
            raise DamagedRecordError(damage)
        entry = quarantine.add_damage(damage)
        info = _damage_info(damage)
        if "inconsistent" in entry:  # a reader bug: flagged, never passed off as a true range
            info["inconsistent"] = entry["inconsistent"]
            stats.add_warning(INCONSISTENT_DAMAGE, entry["inconsistent"])
        stats.add_damage(info)
        reporter.count(0, damage.length or 0)
        reporter.log(f"crawlmill: damaged record quarantined: {damage} [{damage.code}]")

    def report_warning(notice: Notice) -> None:
        observe(notice)
        stats.add_warning(notice.code, notice.message)

    def report_check(check: Check) -> None:
        if not check.ok and fail_fast:  # damage-level: on_error=fail stops here too
            damage = Damage(
                check.path, 0, f"{check.check} check failed: {check.reason}", code="check-failed"
            )
            hit.append(damage)
            raise DamagedRecordError(damage)
        stats.add_check(
            {"path": check.path, "check": check.check, "ok": check.ok, "reason": check.reason}
        )
        if not check.ok:
            reporter.log(f"crawlmill: {check}")

    def quarantine_record(record: Record, reason: str) -> None:
        entry = quarantine.add_record(record, reason)
        if "inconsistent" in entry:
            stats.add_warning(INCONSISTENT_DAMAGE, entry["inconsistent"])
        stats.writer_quarantined += 1
        reporter.log(f"crawlmill: record quarantined by the writer: {inp.path}: {reason}")

    limits = Limits(
        max_record_bytes=spec.run.max_record_bytes,
        max_decompressed_bytes=spec.run.max_decompressed_bytes,
    )
    rctx = ReadContext(
        input=inp,
        report_damage=report_damage,
        limits=limits,
        on_warning=report_warning,
        report_check=report_check,
    )
    wctx = WriteContext(
        input=inp,
        input_count=payload["input_count"],
        create=outputs.create,
        quarantine=quarantine_record,
        on_warning=report_warning,
    )
    steps = list(zip(labels, filters, strict=True))
    writer.open(wctx)
    writer_open = True
    try:
        with contextlib.closing(reader.read(rctx)) as records:
            for record in records:
                if hit:
                    raise DamagedRecordError(hit[0])
                stats.records += 1
                stats.read += 1
                src = record.source
                # the stop flag is checked whenever progress is posted (every 0.25 s)
                if (
                    reporter.count(1, (src.length or 0) if src is not None else 0)
                    and channel.stop_requested()
                ):
                    raise _Stopped()
                kept: Record | None = record
                for label, step in steps:
                    counters = stats.filters[label]
                    counters["in"] += 1
                    verdict = step.apply(kept)
                    if isinstance(verdict, Drop):
                        counters["dropped"][verdict.reason] = (
                            counters["dropped"].get(verdict.reason, 0) + 1
                        )
                        kept = None
                        break
                    if not isinstance(verdict, Record):
                        raise TypeError(
                            f"filter {label} returned {type(verdict).__name__}; expected a Record or Drop"
                        )
                    counters["kept"] += 1
                    kept = verdict
                if kept is not None:
                    stats.received += 1
                    writer.write(kept)
        if hit:  # a reader that swallowed the DamagedRecordError
            raise DamagedRecordError(hit[0])
        writer_open = False
        writer.close()
        stats.added = wctx.added_records
    finally:
        if writer_open:
            with contextlib.suppress(Exception):
                writer.close()

    with contextlib.suppress(OSError):
        stats.bytes_in = os.path.getsize(inp.path)
    stats.seconds = round(time.monotonic() - started, 3)
    stats.check()
    _check_parent()  # a worker of a killed run never commits (a rerun may own the root)
    listed = outputs.commit()
    if quarantine.count == 0:  # a redo that found no damage: drop an older run's quarantine
        for rel in quarantine.relpaths:
            with contextlib.suppress(OSError):
                os.remove(_inside(outputs.root, rel))
    marker = {
        "version": MARKER_VERSION,
        "key": key,
        "fingerprint": payload["fingerprint"],
        "input": inp.relpath,
        "input_path": os.path.abspath(inp.path),
        "input_size": payload.get("input_size"),
        "index": inp.index,
        "input_count": payload["input_count"],
        "reader": payload["reader"],
        "outputs": [_entry(o) for o in listed if not o["internal"]],
        "quarantine": [_entry(o) for o in listed if o["internal"]],
        "notes": wctx.notes,
        "stats": stats.to_dict(),
    }
    marker = json.loads(json.dumps(marker, default=str))  # exactly what a resumed run reads back
    _check_parent()
    OutputRoot(spec.output).write_marker(key, marker)
    return marker


def _entry(listed: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in listed.items() if k != "internal"}
