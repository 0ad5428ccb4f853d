"""The pipeline engine: validate, plan one task per input, resume, execute, finalize, report.

Lifecycle of :func:`run`:

1. **Validate** every component name and option (``ConfigError`` with locations such as
   ``filters[1].threshold``) and resolve the inputs (:func:`~crawlmill.core.inputs.expand_inputs`,
   which gives each input a stem distinct from the others').
2. **Plan**: one task per input; an input whose completion marker matches this run's
   fingerprint (spec plus crawlmill and plugin versions), the input's size, relpath, reader,
   stem and (unless ``Writer.position_free``) position and the input count, lists the
   outputs the writer plans for it now (``Writer.planned_outputs``) and whose outputs are
   all present is skipped (resume; the worker count does not matter; inputs added or removed
   around it do not either with a position-free writer). Then
   :func:`~crawlmill.core.run.ownership.check_outputs` refuses outputs onto inputs, two inputs
   with one output, files crawlmill did not write and a root of another pipeline (unless
   ``run.overwrite``). Nothing is written before this succeeds.
3. **Open the output root**: bookkeeping folders, an exclusive lock, removal of temp files a
   killed run left (:class:`~crawlmill.core.run.outputs.OutputRoot`); with ``overwrite``, the
   outputs of another pipeline are deleted; the files tasks may replace are shared.
4. **Execute** the tasks on the executor (:mod:`crawlmill.core.run.executor`); each runs
   :func:`~crawlmill.core.run.task.run_task` in a worker and commits its own outputs and marker
   (the messages are typed: a :class:`~crawlmill.core.messages.TaskPayload` goes out, a
   :class:`~crawlmill.core.messages.TaskResult` with its marker comes back).
   A failing task is recorded and the others go on; under ``on_error: fail`` the first damage
   stops the run (running tasks are asked to stop and discard their temp files).
   Files listed by older markers of redone inputs that no current marker claims are deleted.
   Markers of inputs no longer in the run (orphans, :mod:`~crawlmill.core.run.orphans`) are
   listed in the report and on the terminal, and deleted with ``run.remove_orphans``.
   Ctrl-C or SIGTERM cancels the tasks; the report is still written (inputs committed so far,
   an ``interrupted`` failure) before :class:`KeyboardInterrupt` propagates.
5. **Finalize**: when no task failed, ``Writer.finalize`` runs once in the parent over all
   completed inputs (also when every input was resumed).
6. **Report**: counters of all inputs (resumed ones from their markers) are summed (the
   steps' own ``ctx.count`` counters too, per step and per input), the
   accounting identity is asserted, and the :class:`~crawlmill.core.stats.RunReport` is
   written to ``<output>/.crawlmill/report.json`` and returned. When it cannot be written
   (full disk) that is a failure of the run, printed, and the report is still returned.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from .. import storage
from ..components import ResolvedPipeline, resolve, resolve_pipeline
from ..contract import Shuffling, implements
from ..errors import ConfigError, DamagedRecordError
from ..inputs import PlannedInput, expand_inputs
from ..messages import CompletedInput, PipelineStamp
from ..plugin import Damage
from ..registry import Registry
from ..spec import ComponentSpec, PipelineSpec
from ..stats import AccountingError, RunReport, add_counts, filter_labels
from .convert import (
    Completed,
    RunState,
    Todo,
    collect_committed,
    execute,
    input_done,
    stop_at_failed_check,
)
from .executor import interruptible
from .orphans import find_orphans, remove_orphans
from .outputs import (
    OutputRoot,
    TaskOutputs,
    UnsafeOutputPath,
    json_chunks,
    marker_key,
    md5_needed,
    replaceable_path,
    safe_relpath,
    write_json_atomic,
    write_text_atomic,
)
from .ownership import OutputPlan, check_outputs, component_versions
from .passes import end_run, plan_passes, remove_other_passes
from .spill import MarkerStore, SpilledList
from .stage import Computed
from .task import READER_STEP, WRITER_STEP, run_task

__all__ = ["RunReport", "plan", "run"]

#: marker key of the files ``Writer.finalize`` writes.
FINALIZE_KEY = "finalize"
#: the warning code of an input a forced reader disagrees with detection about.
#: forced-reader warnings printed one by one; the rest are counted.
_WARN_FILES = 10


def plan(spec: PipelineSpec, registry: Registry) -> tuple[ResolvedPipeline, list[PlannedInput]]:
    """Validate ``spec`` against ``registry`` and resolve its inputs, writing nothing.
    Raises :class:`ConfigError` listing the problems."""
    pipeline = resolve_pipeline(spec, registry)
    planned = expand_inputs(spec, registry)
    if spec.reader is None:  # detected readers run with default options: check them too
        problems: list[tuple[str, str]] = []
        for name in sorted({p.reader for p in planned}):
            resolve(registry, "reader", ComponentSpec(name=name), "reader", problems)
        if problems:
            raise ConfigError(problems)
    return pipeline, planned


def _planned_outputs(
    pipeline: ResolvedPipeline, planned: list[PlannedInput]
) -> list[list[str]] | None:
    """The writer's ``planned_outputs`` for the inputs, or ``None`` when it cannot tell (or
    answers with something else than one list of paths per input). A ``ConfigError`` (an
    input the layout cannot place) stops the run before anything is written."""
    try:
        predicted = pipeline.writer.cls.planned_outputs(
            pipeline.writer.options, [p.input for p in planned]
        )
    except ConfigError:
        raise
    except Exception:  # a writer's planning bug must not stop the run: commit still guards
        return None
    if (
        not isinstance(predicted, list)
        or len(predicted) != len(planned)
        or not all(isinstance(ps, list) and all(isinstance(x, str) for x in ps) for ps in predicted)
    ):
        return None
    return predicted


def _warn_forced_readers(planned: list[PlannedInput], report: RunReport, stream: TextIO) -> None:
    """Name each file a forced reader disagrees with detection about (the first
    ``_WARN_FILES`` on the terminal, all of them counted per reader pair in the report)."""
    warnings = getattr(planned, "warnings", [])
    for n, (path, message, code) in enumerate(warnings):
        if n < _WARN_FILES:
            print(f"crawlmill: warning: {path}: {message}", file=stream)
        report.warnings[code] = report.warnings.get(code, 0) + 1
        report.warning_examples.setdefault(code, f"{path}: {message}")
    if len(warnings) > _WARN_FILES:
        print(
            f"crawlmill: warning: {len(warnings) - _WARN_FILES} more file(s) like these "
            "(see .crawlmill/report.json)",
            file=stream,
        )


def _replace_other_pipeline(
    root: OutputRoot, checked: OutputPlan, planned: list[PlannedInput]
) -> None:
    """With ``overwrite``: delete the outputs and markers of another pipeline (never an input
    of this run), so the root holds one pipeline's outputs."""
    if not checked.foreign_markers:
        return  # (the inputs' real paths are not resolved: 100,000 of them)
    inputs = {os.path.realpath(p.input.path) for p in planned}
    for key, marker in checked.foreign_markers.items():
        for out in marker.get("outputs", []) + marker.get("quarantine", []):
            with contextlib.suppress(OSError, KeyError, TypeError, UnsafeOutputPath):
                rel = safe_relpath(out["path"], internal=True)
                final = os.path.join(root.path, *rel.split("/"))
                if os.path.realpath(final) not in inputs:
                    os.remove(final)
        with contextlib.suppress(OSError):
            os.remove(root.finalize_marker_path if key == FINALIZE_KEY else root.marker_path(key))


def execute_shuffle(r: RunState) -> tuple[dict[str, Any] | None, KeyboardInterrupt | None] | None:
    """The shuffle's passes (:func:`crawlmill.core.run.shuffle.run.execute`) when the run's
    writer declares a shuffle; ``None`` (no shuffle) otherwise, without importing the
    shuffle's modules."""
    if not implements(r.pipeline.writer.cls, Shuffling):
        return None
    with contextlib.suppress(Exception):  # (a writer's error: execute's check names it)
        if r.pipeline.writer.instantiate().shuffle() is None:
            return None
    from .shuffle.run import execute

    return execute(r)


def _share_replaceable(root: OutputRoot, paths: set[str], protected: set[str]) -> None:
    """Tell the run's tasks which existing files they may replace, and which inputs they
    never replace (``replaceable.json``); nothing to say removes the file."""
    if paths or protected:
        write_json_atomic(  # read by this run's tasks only: written again by a rerun
            replaceable_path(root.path),
            {"replaceable": sorted(paths), "protected": sorted(protected)},
            durable=False,
        )
    else:
        with contextlib.suppress(OSError):
            os.remove(replaceable_path(root.path))


def _inputs_inside(root: OutputRoot, planned: list[PlannedInput]) -> set[str]:
    """The relpaths (below the root) of the run's input files that lie inside the root."""
    real_root = os.path.realpath(root.path)
    inside = set()
    for p in planned:
        real = os.path.realpath(p.input.path)
        if real.startswith(real_root + os.sep):
            inside.add(os.path.relpath(real, real_root).replace(os.sep, "/"))
    return inside


def _md5_needed(spec: PipelineSpec, pipeline: ResolvedPipeline) -> bool:
    """Whether the run's outputs get an MD5 (:func:`~.outputs.md5_needed`; ``True`` when the
    writer cannot tell): a complete marker must then list one for each output."""
    try:
        return md5_needed(pipeline.writer.cls, pipeline.writer.options, spec.run.md5)
    except Exception:  # a writer's bug must not stop the run: MD5s, as before
        return True


def _position_free(pipeline: ResolvedPipeline) -> bool:
    """``Writer.position_free`` of the run's writer (``False`` when it cannot tell)."""
    try:
        return pipeline.writer.cls.position_free(pipeline.writer.options) is True
    except Exception:  # a writer's bug must not stop the run: then inputs keep their places
        return False


def _input_entry(p: PlannedInput, marker: Any) -> dict[str, Any]:
    """``report.json``'s ``input_outputs`` entry of one input (``marker``: ``None`` if not done)."""
    return {
        "input": p.input.relpath,
        "path": p.input.path,
        "outputs": [o.path for o in marker.outputs] if marker else [],
        "counts": marker.stats.counts if marker else {},
    }


def _resume(
    spec: PipelineSpec,
    root: OutputRoot,
    planned: list[PlannedInput],
    predicted: list[list[str]] | None,
    fingerprint: str,
    salt: str = "",
    position_free: bool = False,
    md5: bool = False,
) -> tuple[Completed, Todo]:
    """Split the inputs into those complete from an earlier run (``run.resume``: their
    marker matches and lists every output the writer plans now) and those to convert.
    ``salt`` (the pass ids, :attr:`PassPlan.salt`) is part of the marker keys; with a
    ``position_free`` writer an input's marker holds wherever the input now stands; with
    ``md5`` a marker must list the MD5 of each output."""
    completed: Completed = MarkerStore()  # spilled: the driver holds no marker list
    todo: Todo = []
    for i, p in enumerate(planned):
        key = marker_key(p.input.path, fingerprint + salt)
        marker = None
        if spec.run.resume:  # the per-input stage's commit rule, read before anything runs
            wants = predicted[i] if predicted is not None else None
            marker = input_done(root, key, fingerprint, p, len(planned), wants, position_free, md5)
        if marker is not None:
            completed[p.input.index] = marker
        else:
            todo.append((p, key))
    return completed, todo


def _announce(report: RunReport, planned: list[PlannedInput], stream: TextIO) -> None:
    """Report and print the files not read, the inputs not converted and the forced readers
    detection disagrees with, before the tasks run."""
    for path, reason in getattr(planned, "skipped", []):
        report.unclaimed.append({"path": path, "reason": reason})
        print(f"crawlmill: not read ({reason}): {path}", file=stream)
    for path, reason in getattr(planned, "not_converted", []):
        report.not_converted.append({"path": path, "reason": reason})
        print(f"crawlmill: not converted: {path}: {reason}", file=stream)
    _warn_forced_readers(planned, report, stream)
    for check in getattr(planned, "checks", []):  # a unit's missing parts: not read
        if check.ok:
            report.checks_passed += 1
        else:
            report.checks_failed.append(
                {"path": check.path, "check": check.check, "reason": check.reason}
            )
            print(f"crawlmill: {check}", file=stream)


def _prepare(spec: PipelineSpec, registry: Registry, stream: TextIO, started: float) -> RunState:
    """Validate and plan; decide resume and output ownership. Reads only: nothing is
    written before this succeeds."""
    pipeline, planned = plan(spec, registry)
    versions = component_versions(spec, registry)
    fingerprint = spec.fingerprint(versions)
    predicted = _planned_outputs(pipeline, planned)
    root = OutputRoot(spec.output)
    passes = plan_passes(spec, registry, pipeline, planned)
    free = _position_free(pipeline)
    md5 = _md5_needed(spec, pipeline)
    completed, todo = _resume(spec, root, planned, predicted, fingerprint, passes.salt, free, md5)
    data = spec.fingerprint_data(versions)
    todo_indexes = {p.input.index for p, _ in todo}
    checked = check_outputs(
        spec, planned, predicted, fingerprint, data, root, todo_indexes, completed.values(),
        completed.marker_keys(),
    )  # fmt: skip
    report = RunReport(inputs=len(planned), fingerprint=fingerprint)
    report.inputs_skipped = len(completed)
    return RunState(
        spec, registry, stream, started, pipeline, planned, predicted, fingerprint, data, root,
        completed, todo, checked, report, passes, free, md5,
    )  # fmt: skip


def plan_outputs(
    spec: PipelineSpec, registry: Registry
) -> tuple[list[PlannedInput], list[list[str]] | None]:
    """Plan ``spec`` exactly as :func:`run` does before it writes anything (inputs, the
    writer's planned outputs, resume, output ownership), reading only: the planned inputs and
    their planned output files. Raises the :class:`ConfigError` the run would raise."""
    state = _prepare(spec, registry, sys.stderr, time.monotonic())
    return state.planned, state.predicted


def run(
    spec: PipelineSpec, *, registry: Registry | None = None, progress: TextIO | None = None
) -> RunReport:
    """Run the pipeline ``spec``; see the module docstring. ``registry`` (default
    ``Registry.load(spec.plugins)``) validates and plans, and runs tasks when they run
    in-process (``workers == 1``); worker processes always rebuild it from ``spec.plugins``.
    ``progress`` is the stream for progress and log lines (default ``sys.stderr``)."""
    started = time.monotonic()
    stream = progress if progress is not None else sys.stderr
    if registry is None:
        registry = Registry.load(spec.plugins)
    state = _prepare(spec, registry, stream, started)
    state.root.open()
    try:
        damaged = _run_in_root(state)
    finally:
        _share_replaceable(state.root, set(), set())
        state.root.close()
    if damaged is not None:
        stop = DamagedRecordError(Damage(**damaged))
        stop.report = state.report  # what the run did before it stopped (also in report.json)
        raise stop
    return state.report


def _run_in_root(r: RunState) -> dict[str, Any] | None:
    """Under the run lock: execute the tasks, settle the root's markers, summarise,
    finalize and write the report. Returns the damage that stopped an ``on_error: fail``
    run; re-raises an interruption once the report is written."""
    report, root, stream = r.report, r.root, r.stream
    _announce(report, r.planned, stream)
    _replace_other_pipeline(root, r.checked, r.planned)
    _share_replaceable(root, r.checked.shared, _inputs_inside(root, r.planned))
    before = r.completed.snapshot()  # planning's reading: these markers are not read again
    previous = _previous_markers(root, before.marker_keys())
    # issue 8, sorted shuffles: a writer declaring one runs core/run/shuffle/run.py's map and
    # partition stages instead of the per-input stage (None: it declares none).
    damaged, interrupted = execute_shuffle(r) or _execute_interruptibly(r)
    _settle(root, r.todo, r.completed, previous, before)
    _orphans(r)
    if r.completed:  # the root holds this pipeline's outputs: say which pipeline it is
        stamp = PipelineStamp(r.fingerprint, r.pipeline_data)
        # names the pipeline in a refusal's message only (markers decide): not fsynced
        write_json_atomic(root.pipeline_path, stamp.to_dict(), durable=False)
    labels = filter_labels([f.name for f in r.pipeline.filters])
    _summarise(report, r.planned, r.completed, labels, stream)  # and input_outputs, spilled
    add_counts(report.counts, r.passes.reduce_counts())  # e.g. a Nutch database's entries
    if not report.failures:
        _finalize(
            root, r.pipeline, r.planned, r.completed, report, stream, r.fingerprint,
            r.spec.run.overwrite,
        )  # fmt: skip
    if not report.failures:
        remove_other_passes(r.passes)
    _write_report(root, report, r.started, stream)
    end_run(r.spec.output)
    if interrupted is not None:
        print(_interrupted_line(report), file=stream)
        raise interrupted
    return damaged


def _interrupted_line(report: RunReport) -> str:
    """What an interrupted run kept: the accounting of the inputs it finished; the records
    the unfinished ones had read (shown by the progress line) are not kept."""
    finished = report.inputs_done + report.inputs_skipped
    unfinished = max(0, report.inputs - finished)
    line = (
        f"crawlmill: interrupted with {finished} of {report.inputs} input(s) finished; "
        f"the finished ones: {report.accounting_line()}"
    )
    if unfinished:
        line += (
            f"; what the {unfinished} unfinished input(s) had read is not kept "
            "(a rerun converts them)"
        )
    return line


def _execute_interruptibly(r: RunState) -> tuple[dict[str, Any] | None, KeyboardInterrupt | None]:
    """:func:`~crawlmill.core.run.convert.execute` with Ctrl-C and SIGTERM caught: then the inputs committed meanwhile
    are collected and an ``interrupted`` failure recorded. Returns the damage that stopped an
    ``on_error: fail`` run and the interruption to re-raise once the report is written."""
    count = len(r.planned)
    try:
        with interruptible():
            damaged = stop_at_failed_check(r.spec, r.planned)
            if damaged is None:  # the passes and the per-input stage, one graph
                damaged = execute(r, count, run_task)  # engine.run_task: tests replace it
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: report what was done, then stop
        collect_committed(r.root, r.todo, r.fingerprint, count, r.completed, r.report)
        r.report.failures.append({"input": None, "error": f"interrupted ({str(exc) or 'SIGINT'})"})
        return None, exc
    return damaged, None


def _settle(
    root: OutputRoot,
    todo: Todo,
    completed: Completed,
    previous: dict[str, list[tuple[str, dict[str, Any]]]],
    before: Completed | None = None,
) -> None:
    """After the tasks: delete what redone inputs' older markers listed and markers whose
    files another input took over, and the pending markers of completed inputs."""
    claimed = _Claimed(completed)
    _remove_superseded(root, todo, completed, previous, before or {}, claimed)
    _void_taken_over(root, completed, claimed)
    for key in completed.marker_keys():
        root.drop_pending(key)


#: orphans named one by one on the terminal (all of them in the report).
_SHOW_ORPHANS = 10


def _orphans(r: RunState) -> None:
    """List the orphans (outputs of inputs no longer in the run, :mod:`~crawlmill.core.run.orphans`)
    in the report and on the terminal; delete them with ``run.remove_orphans``."""
    report, stream = r.report, r.stream
    inputs = Computed(len(r.planned), lambda n: r.planned[n].input.path)
    report.orphans = find_orphans(r.root, inputs, r.completed.marker_keys())
    if not report.orphans:
        return
    files = sum(len(o["outputs"]) + len(o["quarantine"]) for o in report.orphans)
    for o in report.orphans[:_SHOW_ORPHANS]:
        shown = ", ".join(o["outputs"] + o["quarantine"]) or "no files"
        print(f"crawlmill: orphaned ({o['reason']}: {o['input_path']}): {shown}", file=stream)
    if len(report.orphans) > _SHOW_ORPHANS:
        print(f"crawlmill: {len(report.orphans) - _SHOW_ORPHANS} more orphan(s) like these",
              file=stream)  # fmt: skip
    if r.spec.run.remove_orphans:
        report.orphans_removed = remove_orphans(
            r.root, report.orphans, _claimed(r.completed), inputs
        )
        print(
            f"crawlmill: removed {len(report.orphans_removed)} orphaned file(s) of "
            f"{len(report.orphans)} input(s) no longer in the run (--remove-orphans)",
            file=stream,
        )
    else:
        print(
            f"crawlmill: {files} orphaned file(s) of {len(report.orphans)} input(s) no longer in "
            "the run kept in the output folder (listed in .crawlmill/report.json and by "
            "`crawlmill status`; --remove-orphans deletes them)",
            file=stream,
        )


def _write_report(root: OutputRoot, report: RunReport, started: float, stream: TextIO) -> None:
    """Write ``report.json``; when it cannot be written (a full disk) that is a failure of
    the run, printed, and an older run's report is removed so it cannot pass for this one."""
    report.outputs.sort()
    report.elapsed = round(time.monotonic() - started, 3)
    report_path = os.path.join(root.meta, "report.json")
    try:
        # linear at 100,000; input_outputs read back from its spill file one entry at a time
        # what the run did, not what resume trusts (a rerun writes it again): not fsynced
        write_text_atomic(report_path, json_chunks(report.to_dict(stream=True)), durable=False)
    except OSError as exc:  # e.g. a full disk: the run's outcome still reaches stderr
        report.failures.append({"input": None, "error": f"report.json not written: {exc}"})
        print(f"crawlmill: error: report.json not written: {exc}", file=stream)
        if os.path.exists(report_path):
            os.remove(report_path)


def _previous_markers(
    root: OutputRoot, skip: set[str]
) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Input path -> ``(key, marker)`` of every marker present before the tasks run but
    those of the keys in ``skip`` (the resumed inputs', which planning read: not read
    again and not held, so a resumed run of 100,000 inputs holds none)."""
    found: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for key, marker in root.iter_markers(skip):
        if isinstance(marker.get("input_path"), str):
            found.setdefault(marker["input_path"], []).append((key, marker))
    return found


def _claimed(completed: Completed) -> set[str]:
    """Every file the current markers list."""
    return {o.path for m in completed.values() for o in m.files}


class _Claimed:
    """:func:`_claimed`, read from the markers only when first asked (a run that resumed
    every input, or replaced no older marker, never reads them)."""

    def __init__(self, completed: Completed) -> None:
        self._completed = completed
        self._paths: set[str] | None = None

    def __call__(self) -> set[str]:
        if self._paths is None:
            self._paths = _claimed(self._completed)
        return self._paths


def _remove_superseded(
    root: OutputRoot,
    todo: Todo,
    completed: Completed,
    previous: dict[str, list[tuple[str, dict[str, Any]]]],
    before: Completed,
    claimed: _Claimed,
) -> None:
    """For inputs redone and completed now, delete what their older markers listed and no
    current marker claims, and the older markers of other keys (``before``: the markers
    planning found complete, which ``previous`` leaves out)."""
    for p, key in todo:
        if p.input.index in completed:
            olds = previous.get(storage.absolute(p.input.path), [])
            if (seen := before.get(p.input.index)) is not None:  # planning's, now redone
                olds = [*olds, (seen.key, seen.to_dict())]
            for old_key, marker in olds:
                root.remove_superseded(old_key, marker, claimed(), drop_marker=old_key != key)


def _fail(report: RunReport, stream: TextIO, input_path: str | None, error: str) -> None:
    """Record a failure found after the tasks (a collision, the accounting, finalize) and print
    it on ``stream``: every failure in the report reaches stderr (task failures are printed
    as they happen)."""
    report.failures.append({"input": input_path, "error": error})
    print(f"crawlmill: error: {error}", file=stream)


def _void_taken_over(root: OutputRoot, completed: Completed, claimed: _Claimed) -> None:
    """Delete every other marker (complete or pending) that lists a file a current marker
    claims (another input took the name over: the old marker's sizes and md5s no longer
    describe it), with the files it lists that no current marker claims."""
    current = completed.marker_keys()
    for key, marker in root.iter_markers(skip=current):  # the current ones are not read
        files = {
            o.get("path")
            for o in marker.get("outputs", []) + marker.get("quarantine", [])
            if isinstance(o, dict)
        }
        if files & claimed():
            root.remove_superseded(key, marker, claimed(), drop_marker=True)
    for name, marker in root.pending_markers().items():  # killed commits of other keys
        key = name.split(":", 1)[1]
        files = {
            o.get("path")
            for o in marker.get("outputs", []) + marker.get("quarantine", [])
            if isinstance(o, dict)
        }
        if key not in current and files & claimed():
            root.remove_superseded(key, marker, claimed(), drop_marker=False)
            root.drop_pending(key)


def _summarise(
    report: RunReport,
    planned: list[PlannedInput],
    completed: Completed,
    labels: list[str],
    stream: TextIO,
) -> None:
    """Add the counters and outputs of every completed input, one marker at a time, and
    write each input's ``input_outputs`` entry to a spill file (:class:`SpilledList`, what
    ``report.json`` is written from); check the accounting and that no two inputs claimed the
    same output file."""
    for label in labels:
        report.dropped.setdefault(label, {})
    report.input_outputs = entries = SpilledList()
    for p in planned:
        marker = completed.get(p.input.index)
        entries.append(_input_entry(p, marker))
        if marker is None:
            continue
        report.add_task(marker.stats, labels)
        report.outputs.extend(out.path for out in marker.outputs)
        report.quarantine_files.extend(q.path for q in marker.quarantine)
    _claimed_twice(report, planned, completed, stream)
    order = {step: i for i, step in enumerate([READER_STEP, *labels, WRITER_STEP])}
    report.counts = dict(sorted(report.counts.items(), key=lambda c: order.get(c[0], len(order))))
    try:
        report.check()
    except AccountingError as exc:
        _fail(report, stream, None, str(exc))


def _claimed_twice(
    report: RunReport, planned: list[PlannedInput], completed: Completed, stream: TextIO
) -> None:
    """Fail the run for each output file two completed inputs list (found in the sorted
    ``report.outputs``; the inputs that list it are looked up only then, so no map of every
    output to its input is held)."""
    report.outputs.sort()
    twice = {a for a, b in zip(report.outputs, report.outputs[1:], strict=False) if a == b}
    if not twice:
        return
    owner: dict[str, str] = {}
    for p in planned:
        marker = completed.get(p.input.index)
        for out in marker.outputs if marker is not None else ():
            if out.path in owner:
                _fail(
                    report,
                    stream,
                    p.input.path,
                    f"output {out.path} of {p.input.path} was also written for {owner[out.path]}",
                )
            if out.path in twice:
                owner[out.path] = p.input.path


class _FinalizeTasks(Sequence[CompletedInput]):
    """What ``Writer.finalize`` receives: a :class:`CompletedInput` per completed input, in
    input order, each at its place in this run (a resumed input's marker has the old one),
    decoded from the spilled markers as it is read (a list's interface, no list held)."""

    def __init__(self, planned: list[PlannedInput], completed: Completed) -> None:
        self._inputs = [p.input.index for p in planned if p.input.index in completed]
        self._completed = completed

    def __len__(self) -> int:
        return len(self._inputs)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        index = self._inputs[i]
        done = CompletedInput.from_marker(self._completed[index])
        return dataclasses.replace(done, index=index)


def _finalize(
    root: OutputRoot,
    pipeline: ResolvedPipeline,
    planned: list[PlannedInput],
    completed: Completed,
    report: RunReport,
    stream: TextIO,
    fingerprint: str = "",
    overwrite: bool = False,
) -> None:
    """Call ``Writer.finalize`` once over all completed inputs, atomically like task outputs;
    its files are listed in the marker ``finalize``, so the next run may replace them."""
    tasks = _FinalizeTasks(planned, completed)
    previous = root.finalize_marker() or {}
    mine = [o.get("path") for o in previous.get("outputs", []) if isinstance(o, dict)]
    files = TaskOutputs(
        root.path,
        FINALIZE_KEY,
        replaceable=mine,
        overwrite=overwrite,
        marker_path=root.finalize_marker_path,
    )
    files.start()
    try:
        pipeline.writer.cls.finalize(root.path, pipeline.writer.options, tasks, files.create)
        listed = files.commit()
        write_json_atomic(  # durable when it lists (or an older one listed) files it owns
            root.finalize_marker_path,
            {"key": FINALIZE_KEY, "fingerprint": fingerprint, "outputs": listed, "quarantine": []},
            durable=bool(listed or mine),
        )
        root.drop_pending(FINALIZE_KEY)
    except Exception as exc:
        files.discard()
        _fail(report, stream, None, f"{pipeline.writer.name} finalize: {type(exc).__name__}: {exc}")
        return
    report.outputs.extend(o["path"] for o in listed)
    report.finalized = True
