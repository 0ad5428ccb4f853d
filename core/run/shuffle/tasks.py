"""The two task functions of a sorted shuffle, each run through ``Executor.map`` on a plain
JSON-able payload (workers rebuild the registry from the spec; nothing live is pickled):

* :func:`map_task`: one input through the reader and filters (a plain task's
  :class:`~crawlmill.core.run.task.Task` with the writer replaced by :class:`_MapWriter`, which
  serialises, keys, partitions and spills each record); its marker, listing its run files,
  is written beside the runs after they are closed;
* :func:`partition_task`: one partition's runs merged into a fresh writer (input
  ``part-NNNNN``) and committed with a completion marker, as a plain task commits.

An executor with a shuffle of its own (Spark: :mod:`crawlmill.core.run.spark_shuffle`) calls
them with a ``sink`` (the map task hands its entries to it instead of spilling run files)
and with the partition's ``entries`` in order (instead of merging run files).

The driver that runs them is :mod:`.run`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import time
import traceback
from collections.abc import Iterable
from typing import Any

from crawlmill.algorithms.sorted_runs.merge import KeySampler, ScratchMeter, merge, partition_runs
from crawlmill.algorithms.sorted_runs.spill import Spiller, partition_folder

from ...errors import DamagedRecordError
from ...messages import Marker, TaskPayload, TaskResult, TaskStatus
from ...plugin import InputFile, WriteContext
from ...shuffle_spec import ShuffleSpec
from ...spec import PipelineSpec
from ...stats import TaskStats
from ..executor import current_channel
from ..outputs import OutputRoot, TaskOutputs, md5_needed, write_json_atomic
from ..progress import TaskReporter
from ..quarantine import Quarantine
from ..task import Task
from .serial import decode, encode

__all__ = [
    "SCRATCH_NOTE",
    "SHUFFLE_STEP",
    "map_marker_path",
    "map_task",
    "partition_input",
    "partition_task",
]

#: the partition marker's note of its merge's peak scratch bytes (intermediate run files).
SCRATCH_NOTE = "shuffle_scratch_peak"
#: the step name of the shuffle's own counters.
SHUFFLE_STEP = "shuffle"
#: one shuffled record as a partition task receives it: ``(key, input, seq, blob)``.
Entry = tuple[bytes, int, int, bytes]


# -- map side ----------------------------------------------------------------------------


class _MapWriter:
    """Stands in for the writer in a map task: serialises, keys and spills each record."""

    def __init__(self, writer: Any, shuffle: ShuffleSpec, spiller: Spiller, index: int) -> None:
        self.writer = writer
        self.shuffle = shuffle
        self.spiller = spiller
        self.index = index
        self.seq = 0
        #: range partitioning: key samples of this input's stream, for the boundaries.
        self.sampler = KeySampler() if shuffle.partitioning == "range" else None

    def open(self, ctx: WriteContext) -> None:
        self.ctx = ctx

    def write(self, record: Any) -> None:
        n = self.shuffle.partitions
        if self.shuffle.partitioning == "range":
            partition = 0
        else:
            partition = self.writer.partition_of(record, n)
            if type(partition) is not int or not 0 <= partition < n:
                raise ValueError(f"partition_of gave {partition!r}, not an int in 0..{n - 1}")
        key = self.writer.sort_key(record)
        if type(key) is not bytes:
            raise TypeError(f"sort_key gave a {type(key).__name__}, not bytes")
        blob = encode(record)
        self.spiller.add(partition, key, self.index, self.seq, blob)
        if self.sampler is not None:
            self.sampler.add(key, len(key) + len(blob))
        self.seq += 1

    def close(self) -> None:
        self.spiller.close()


def map_marker_path(folder: str, key: str) -> str:
    return os.path.join(folder, "map", f"{key}.json")


def map_task(payload: dict[str, Any], sink: Any = None) -> TaskResult:
    """Run one input's map task (``payload``: a ``TaskPayload`` dict under ``task`` and the
    shuffle's ``folder``, ``partitions``, ``partitioning``, ``memory``). ``sink``: where the
    entries go instead of run files (an executor's own shuffle): an object with the
    :class:`Spiller` calls ``add(partition, key, input, seq, blob)``, ``close()`` and
    ``abort()``; its map marker then lists no runs (``runs: null``)."""
    from .. import task as task_mod

    task = TaskPayload.from_dict(payload["task"])
    inp = task.input
    state = _MapTask(task, TaskReporter(current_channel(), task.key), payload, sink)
    result = dict(key=task.key, index=inp.index, input_count=task.input_count)
    result |= dict(input=inp.relpath, path=inp.path)
    try:
        done = TaskResult(TaskStatus.OK, marker=state.run(), **result)
    except task_mod.Stopped:
        done = TaskResult(TaskStatus.CANCELLED, stats=state.stats, **result)
    except DamagedRecordError as exc:
        damage = task_mod.damage_info(exc.damage)  # type: ignore[arg-type]
        done = TaskResult(TaskStatus.DAMAGED, damage=damage, stats=state.stats, **result)
    except Exception as exc:
        tb = "".join(traceback.format_exception(exc, limit=-10))
        error = f"{type(exc).__name__}: {exc}"
        done = TaskResult(TaskStatus.FAILED, error=error, traceback=tb, stats=state.stats, **result)
        state.reporter.log(f"crawlmill: shuffle map task failed: {inp.path}: {error}")
    finally:
        state.reporter.flush()
    if done.status is not TaskStatus.OK:
        if state.outputs is not None:
            state.outputs.discard()
        if state.spiller is not None:
            state.spiller.abort()
    return done


class _MapTask(Task):
    """A plain task whose writer is the shuffle's :class:`_MapWriter`; its marker goes to
    the shuffle folder (not ``done/``: the input has no outputs of its own)."""

    def __init__(
        self, payload: TaskPayload, reporter: TaskReporter, shuffle: dict, sink: Any = None
    ) -> None:
        super().__init__(payload, reporter)
        self.shuffle_payload = shuffle
        self.spiller: Any = None
        #: the executor's shuffle, when it has one (no run files then).
        self.sink = sink

    def run(self) -> Marker:
        from .. import task as task_mod

        payload, sh = self.payload, self.shuffle_payload
        spec = self.spec = PipelineSpec.model_validate(payload.spec)
        folder = sh["folder"]
        self.outputs = TaskOutputs(
            spec.output,
            payload.key,
            replaceable=payload.replaceable,
            overwrite=spec.run.overwrite,
            marker_path=map_marker_path(folder, payload.key),
        )
        parts = task_mod.open_components(spec, payload.reader)
        w = parts.writer  # (a map task's files are its quarantine's)
        self.outputs.md5 = md5_needed(type(w), w.options, spec.run.md5)
        shuffle = ShuffleSpec(sh["partitions"], sh["partitioning"])
        self.spiller = self.sink or Spiller(
            os.path.join(folder, "shuffle"),
            shuffle.partitions if shuffle.partitioning == "hash" else 1,
            sh["memory"],
            payload.key,
        )
        mapper = _MapWriter(parts.writer, shuffle, self.spiller, payload.input.index)
        parts = dataclasses.replace(parts, writer=mapper)
        stats = self.stats = TaskStats(
            filters={label: {"in": 0, "kept": 0, "dropped": {}} for label, _ in parts.steps}
        )
        self.outputs.start()
        quarantine = Quarantine(self.outputs, payload.input, payload.key)
        sink = task_mod.TaskSink(stats, quarantine, self.reporter, spec.run.on_error == "fail")
        wctx = self.stream(parts, sink)
        if mapper.sampler is not None:
            os.makedirs(os.path.join(folder, "samples"), exist_ok=True)
            mapper.sampler.write(os.path.join(folder, "samples", f"{payload.key}.run"))
        stats.count(SHUFFLE_STEP, "shuffled", stats.received)
        self.account()
        return self.commit(quarantine, wctx)

    def files_note(self) -> dict[str, Any]:
        """The marker's list of this task's run files and samples (paths below the shuffle
        folder, sizes), so a rerun can tell they are intact."""
        folder = self.shuffle_payload["folder"]

        def entry(path: str) -> dict[str, Any]:
            rel = os.path.relpath(path, folder).replace(os.sep, "/")
            return {"path": rel, "size": os.path.getsize(path)}

        runs = None  # the entries went to the executor's shuffle: no run files to check
        if self.sink is None:
            runs = [entry(p) for p in (self.spiller.runs if self.spiller else [])]
        samples = os.path.join(folder, "samples", f"{self.payload.key}.run")
        return {"runs": runs, "samples": entry(samples) if os.path.exists(samples) else None}

    def marker_outputs(self, listed: list[dict[str, Any]]) -> tuple:
        """None: the input has no outputs of its own (its records are in the runs)."""
        return ()

    def marker_notes(self, wctx: WriteContext) -> dict[str, Any]:
        """The run files and samples this task wrote."""
        return self.files_note()

    def write_marker(self, key: str, data: dict[str, Any]) -> None:
        """In the shuffle folder, not ``done/``."""
        write_json_atomic(map_marker_path(self.shuffle_payload["folder"], key), data)


# -- partition side ----------------------------------------------------------------------


def partition_input(folder: str, partition: int) -> InputFile:
    """The input a partition task's writer sees: relpath and stem ``part-NNNNN``."""
    name = f"part-{partition:05d}"
    return InputFile(
        path=partition_folder(os.path.join(folder, "shuffle"), partition),
        relpath=name,
        index=partition,
        stem=name,
    )


def partition_task(payload: dict[str, Any], entries: Iterable[Entry] | None = None) -> TaskResult:
    """Merge one partition's runs into a fresh writer and commit its files (``payload``:
    spec, key, fingerprint, folder, partition, partitions, partitioning, lo/hi as hex or
    ``None``, replaceable). ``entries``: the partition's ``(key, input, seq, blob)`` in
    ``(key, input, seq)`` order from an executor's own shuffle, instead of the run files."""
    from .. import task as task_mod

    i = payload["partition"]
    inp = partition_input(payload["folder"], i)
    result = dict(key=payload["key"], index=i, input_count=payload["partitions"])
    result |= dict(input=inp.relpath, path=inp.path)
    reporter = TaskReporter(current_channel(), payload["key"])
    stats = TaskStats()
    outputs: TaskOutputs | None = None
    try:
        spec = PipelineSpec.model_validate(payload["spec"])
        outputs = TaskOutputs(
            spec.output,
            payload["key"],
            replaceable=payload.get("replaceable", ()),
            overwrite=spec.run.overwrite,
        )
        marker = _run_partition(spec, payload, inp, stats, outputs, reporter, entries)
        done = TaskResult(TaskStatus.OK, marker=marker, **result)
    except task_mod.Stopped:
        done = TaskResult(TaskStatus.CANCELLED, stats=stats, **result)
    except Exception as exc:
        tb = "".join(traceback.format_exception(exc, limit=-10))
        error = f"{type(exc).__name__}: {exc}"
        done = TaskResult(TaskStatus.FAILED, error=error, traceback=tb, stats=stats, **result)
        reporter.log(f"crawlmill: shuffle partition {i} failed: {error}")
    finally:
        reporter.flush()
    if done.status is not TaskStatus.OK and outputs is not None:
        outputs.discard()
    return done


def _run_partition(
    spec: PipelineSpec,
    payload: dict[str, Any],
    inp: InputFile,
    stats: TaskStats,
    outputs: TaskOutputs,
    reporter: TaskReporter,
    entries: Iterable[Entry] | None = None,
) -> Marker:
    from .. import task as task_mod

    started = time.monotonic()
    registry = task_mod.registry_for(spec.plugins)
    from ...components import resolve_pipeline

    writer = resolve_pipeline(spec, registry).writer.instantiate()
    outputs.md5 = md5_needed(type(writer), writer.options, spec.run.md5)
    outputs.start()
    quarantine = Quarantine(outputs, inp, payload["key"])
    sink = task_mod.TaskSink(stats, quarantine, reporter, spec.run.on_error == "fail")
    wctx = WriteContext(
        input=inp,
        input_count=payload["partitions"],
        create=outputs.create,
        quarantine=sink.refused,
        on_warning=sink.writer_warning,
        counter=sink.counter(task_mod.WRITER_STEP),
        require_output=True,  # every partition has its part file, an empty one too
    )
    scratch = os.path.join(payload["folder"], "scratch", f"p{inp.index:05d}")
    meter = ScratchMeter()
    if entries is None:
        folder = os.path.join(payload["folder"], "shuffle")
        # a hash partition's runs are its own: an intermediate merge replaces them on disk,
        # the last merge frees them as it reads (a rerun after a kill then maps again: the
        # map markers' runs are not intact); range partitions share one run set (the
        # driver frees it below the committed partitions: run.py)
        own = payload["partitioning"] != "range"
        if own:
            runs, lo, hi = partition_runs(folder, inp.index), None, None
        else:
            runs = partition_runs(folder, 0)
            lo = bytes.fromhex(payload["lo"]) if payload["lo"] is not None else None
            hi = bytes.fromhex(payload["hi"]) if payload["hi"] is not None else None
        entries = merge(runs, lo, hi, scratch=scratch, meter=meter, consume=own)
    channel = reporter.channel
    merged = 0
    writer.open(wctx)
    try:
        for _key, _input, _seq, blob in entries:
            writer.write(decode(blob))
            merged += 1
            if reporter.count(1, len(blob)) and channel.stop_requested():
                raise task_mod.Stopped()
    except BaseException:
        with contextlib.suppress(Exception):  # the first error is the one to report
            writer.close()
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    writer.close()
    stats.added = wctx.added_records
    stats.count(SHUFFLE_STEP, "merged", merged)
    stats.seconds = round(time.monotonic() - started, 3)
    if stats.writer_quarantined > merged:
        raise AssertionError("the writer quarantined more records than it received")
    task_mod.check_parent()
    listed = outputs.commit()
    if quarantine.count == 0:
        outputs.remove_final(quarantine.relpaths)
    marker = Marker(
        key=payload["key"],
        fingerprint=payload["fingerprint"],
        input=inp.relpath,
        input_path=os.path.abspath(inp.path),
        index=inp.index,
        input_count=payload["partitions"],
        reader="",
        outputs=tuple(task_mod.output_entry(o) for o in listed if not o["internal"]),
        quarantine=tuple(task_mod.output_entry(o) for o in listed if o["internal"]),
        notes={**wctx.notes, SCRATCH_NOTE: meter.peak},
        stats=stats,
    )
    data = marker.to_dict()
    task_mod.check_parent()
    OutputRoot(spec.output).write_marker(payload["key"], data)
    return Marker.from_dict(data)
