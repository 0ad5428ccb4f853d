"""Per-input conversion as a stage, and the run state the engine's mechanisms share.

:func:`convert_stage` makes the per-input tasks a :class:`~crawlmill.core.run.stage.Stage`
(payloads :class:`~crawlmill.core.messages.TaskPayload`, function
:func:`~crawlmill.core.run.task.run_task`, commit rule :func:`complete_input`);
:func:`execute` runs it with :func:`~crawlmill.core.run.stage.run_stages`. The helpers here
(payloads, results, executors, the passes before the final one) are public so that the
engine and the shuffle (:mod:`crawlmill.core.run.shuffle.run`) share them without reaching into
each other's private names.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from ..components import ResolvedPipeline
from ..inputs import PlannedInput
from ..messages import Marker, TaskPayload, TaskResult, TaskStatus
from ..registry import Registry
from ..spec import PipelineSpec
from ..stats import RunReport
from .executor import Executor, InProcessExecutor, make_executor, pool_size
from .outputs import OutputRoot, marker_key
from .ownership import OutputPlan
from .passes import PassPlan, pass_stages
from .spill import MarkerStore
from .stage import Computed, Outcome, Stage, StageRun, drop_listings, listing_path, run_stages
from .task import run_task, seed_registry

__all__ = [
    "Completed",
    "RunState",
    "Todo",
    "collect_committed",
    "complete_input",
    "convert_stage",
    "crashed",
    "damage_error",
    "executor_for",
    "execute",
    "input_done",
    "pass_stages_of",
    "record_result",
    "run_passes_first",
    "stop_at_failed_check",
    "task_payload",
]


#: completion markers of the inputs done (resumed or converted now), by input index, held in
#: a spill file (:class:`~crawlmill.core.run.spill.MarkerStore`), not in the driver's memory.
Completed = MarkerStore


#: the inputs to convert now, with their marker keys.
Todo = list[tuple[PlannedInput, str]]


@dataclass
class RunState:
    """One run's state, from planning to the report (the engine's; the shuffle reads it)."""

    spec: PipelineSpec
    registry: Registry
    stream: TextIO
    started: float
    pipeline: ResolvedPipeline
    planned: list[PlannedInput]
    #: the output files the writer plans per input (``None``: named while writing).
    predicted: list[list[str]] | None
    fingerprint: str
    #: what ``pipeline.json`` describes (``PipelineSpec.fingerprint_data``).
    pipeline_data: dict[str, Any]
    root: OutputRoot
    completed: Completed
    todo: Todo
    checked: OutputPlan
    report: RunReport
    #: the collect/reduce passes before the final pass (:mod:`crawlmill.core.run.passes`).
    passes: PassPlan
    #: the writer is ``position_free`` (an input's marker holds wherever it now stands).
    position_free: bool = False
    #: the outputs get an MD5 (a complete marker lists one for each: ``outputs.md5_needed``).
    md5: bool = False


def task_payload(
    spec_data: dict[str, Any],
    p: PlannedInput,
    key: str,
    fingerprint: str,
    count: int,
    replaceable: list[str] | None = None,
    tables: dict[str, str] | None = None,
) -> TaskPayload:
    return TaskPayload(
        spec=spec_data,
        input=p.input,
        reader=p.reader,
        key=key,
        fingerprint=fingerprint,
        input_size=p.size,
        input_count=count,
        replaceable=tuple(replaceable or ()),
        tables=dict(tables or {}),
    )


def stop_at_failed_check(spec: PipelineSpec, planned: list[PlannedInput]) -> dict | None:
    """Under ``on_error: fail``, the first failed presence check of the plan (a unit's
    missing part) stops the run before any task, as a failed check in a task does."""
    failed = [c for c in getattr(planned, "checks", []) if not c.ok]
    if not failed or spec.run.on_error != "fail":
        return None
    reason = f"{failed[0].check} check failed: {failed[0].reason}"
    return {"path": failed[0].path, "offset": 0, "reason": reason, "length": None,
            "code": "check-failed"}  # fmt: skip


def complete_input(
    root: OutputRoot,
    key: str,
    fingerprint: str,
    p: PlannedInput,
    count: int,
    position_free: bool = False,
    md5: bool = False,
) -> Marker | None:
    """The marker of a complete input (:meth:`OutputRoot.complete_marker`) as a
    :class:`Marker`, or ``None``; a marker file this version cannot read means: redo.

    The input must be the one the marker describes: same relpath, reader and (when the marker
    records it) stem. Its position (index among ``count`` inputs) must be the same too,
    unless the writer is ``position_free`` and the marker records the stem: then inputs
    added, removed or renamed around it leave it complete. With ``md5`` (the run needs the
    outputs' MD5s) a marker listing a CRC-32 instead is not complete."""
    read = root.read_marker(key)  # once: the stem decides how the rest is checked
    if read is None:
        return None
    free = position_free and isinstance(_marker_stem(read), str)
    where = (None, None) if free else (p.input.index, count)
    data = root.complete_marker(key, fingerprint, p.size, *where, data=read, md5=md5)
    if data is None:
        return None
    try:
        marker = Marker.from_dict(data)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None
    stem = _marker_stem(data)
    if marker.input != p.input.relpath or (marker.reader and marker.reader != p.reader):
        return None  # the common root of loose files moved, or detection changed
    if stem is not None and stem != p.input.stem:
        return None  # a sibling came or went: the input's outputs are named otherwise now
    return marker


def _marker_stem(data: dict[str, Any] | None) -> str | None:
    """The stem a completion marker records (``None``: a marker of an older version)."""
    stem = (data or {}).get("stem")
    return stem if isinstance(stem, str) else None


def crashed(p: PlannedInput, key: str, count: int, message: str) -> TaskResult:
    """The result of a task whose worker died or could not run it."""
    i = p.input
    return TaskResult(
        TaskStatus.FAILED, key, i.index, i.relpath, i.path, input_count=count, error=message
    )


def damage_error(damage: Mapping[str, Any]) -> str:
    where = f"{damage['path']} at byte {damage['offset']}"
    return f"damaged record (on_error=fail): {where}: {damage['reason']}"


def record_result(
    result: TaskResult, p: PlannedInput, report: RunReport, completed: Completed
) -> None:
    """Put one task's result into ``completed`` and the report."""
    if result.status is TaskStatus.OK:
        assert result.marker is not None
        completed[p.input.index] = result.marker
        report.inputs_done += 1
    elif result.status is TaskStatus.DAMAGED:
        assert result.damage is not None
        report.damages.append(dict(result.damage))
        report.failures.append({"input": p.input.path, "error": damage_error(result.damage)})
    elif result.status is TaskStatus.CANCELLED:
        report.inputs_cancelled += 1
    else:
        report.failures.append(
            {
                "input": p.input.path,
                "error": result.error or "?",
                "traceback": result.traceback or "",
                # records the task read before it failed (none of them written)
                "read": result.read,
            }
        )


def executor_for(spec: PipelineSpec, registry: Registry, todo: Todo) -> Executor:
    """The executor of ``run.executor`` with as many workers as pay for themselves
    (:func:`~crawlmill.core.run.executor.pool_size`); in-process, it uses ``registry``."""
    workers = pool_size(
        spec.run.workers,
        (p.size for p, _ in todo),
        explicit="workers" in spec.run.model_fields_set,
    )
    executor = make_executor(spec.run.executor, workers, spec.run.spark)
    if isinstance(executor, InProcessExecutor):
        seed_registry(spec.plugins, registry)
    return executor


def run_passes_first(r: RunState) -> bool:
    """The collect/reduce passes before the final pass run alone (:func:`pass_stages_of`);
    ``False`` when one failed: then the final pass's inputs are cancelled."""
    runs = run_stages(pass_stages_of(r), stream=r.stream, progress=r.spec.run.progress)
    ok = all(run.complete for run in runs.values())
    if not ok:
        r.report.inputs_cancelled += len(r.todo)
    return ok


def pass_stages_of(r: RunState) -> list[Stage]:
    """The stages of the collect/reduce passes before the final pass
    (:func:`~crawlmill.core.run.passes.pass_stages`; none when the final pass has no input to
    convert); the final pass's stage depends on the last one."""
    keys = _InputKeys(r)
    return pass_stages(
        r.passes, r.spec, r.planned, keys=keys, needed=bool(r.todo),
        executor_for=lambda inputs: executor_for(r.spec, r.registry, [(p, "") for p in inputs]),
        report=r.report, stream=r.stream,
    )  # fmt: skip


class _InputKeys(Mapping[str, str]):
    """Input index (as a string) -> marker key of every input of the run that has one (the
    inputs to convert and those done), in input order, looked up as read: what ``run.json``
    lists (not a dict of 100,000 keys)."""

    def __init__(self, r: RunState) -> None:
        self._r = r
        self._todo = {p.input.index: key for p, key in r.todo}

    def _key(self, index: int) -> str | None:
        if index in self._r.completed:
            return self._r.completed.key_of(index)
        return self._todo.get(index)

    def __getitem__(self, index: str) -> str:
        key = self._key(int(index)) if index.isdigit() else None
        if key is None:
            raise KeyError(index)
        return key

    def __iter__(self) -> Iterator[str]:
        for p in self._r.planned:
            if self._key(p.input.index) is not None:
                yield str(p.input.index)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def input_done(
    root: OutputRoot,
    key: str,
    fingerprint: str,
    p: PlannedInput,
    count: int,
    planned: list[str] | None,
    position_free: bool = False,
    md5: bool = False,
) -> Marker | None:
    """The per-input stage's commit rule: the input's marker (:func:`complete_input`, its
    place ignored with a ``position_free`` writer) listing every output the writer plans for
    it now (``planned``; a sibling that came or went renames them), else ``None``."""
    marker = complete_input(root, key, fingerprint, p, count, position_free, md5)
    listed = {o.path for o in marker.outputs} if marker is not None else set()
    if listed and planned is not None and not set(planned) <= listed:
        return None
    return marker


def _tasks(r: RunState) -> Sequence[tuple[PlannedInput, str]]:
    """``(input, marker key)`` of each input of the per-input stage, in input order: those to
    convert now and those done. When that is every planned input (as planning leaves them),
    each is made as it is read (its key computed again as planning computed it: 100,000
    inputs hold no list of pairs); else a list."""
    todo = {p.input.index for p, _ in r.todo}
    if len(todo) + len(r.completed) == len(r.planned) and all(
        p.input.index in todo or p.input.index in r.completed for p in r.planned
    ):
        planned, salted = r.planned, r.fingerprint + r.passes.salt
        return Computed(
            len(planned), lambda i: (planned[i], marker_key(planned[i].input.path, salted))
        )
    return sorted(
        r.todo + [(p, r.completed.key_of(p.input.index)) for p in r.planned
                  if p.input.index in r.completed],
        key=lambda t: t[0].input.index,
    )  # fmt: skip


def convert_stage(r: RunState, count: int, fn: Callable[[Any], Any] = run_task) -> Stage:
    """The per-input conversion as a stage: one task per input,
    :func:`~crawlmill.core.run.task.run_task` as its function, :func:`input_done` as its commit
    rule, which resumes the inputs done (``run.resume``) and confirms the others. Planning
    read the same rule before anything ran (``r.todo``: ownership checks need it); the
    stage's own reading decides, and :attr:`RunState.todo` and the report follow it."""
    spec_data = r.spec.model_dump(mode="json")
    replaceable = r.checked.replaceable if r.checked is not None else {}
    tasks = _tasks(r)
    ntasks = len(tasks)  # the per-task lists below are made as read, not held (100,000 inputs)
    payloads = Computed(ntasks, lambda i: task_payload(
        spec_data, tasks[i][0], tasks[i][1], r.fingerprint, count,
        replaceable.get(tasks[i][0].input.index), r.passes.tables,
    ))  # fmt: skip
    first_damage = [True]
    chosen: list[int] = []
    in_place = all(p.input.index == n for n, p in enumerate(r.planned))  # as planning numbers
    at = None if in_place else {p.input.index: n for n, p in enumerate(r.planned)}

    def done(i: int) -> Marker | None:
        p, key = tasks[i]
        where = p.input.index if at is None else at[p.input.index]
        planned = r.predicted[where] if r.predicted is not None else None
        marker = input_done(r.root, key, r.fingerprint, p, count, planned, r.position_free, r.md5)
        if marker is not None and not r.completed.holds(p.input.index, marker):
            r.completed[p.input.index] = marker  # the stage's reading decides (spilled)
        return marker

    def record(outcome: Outcome, log: Callable[[str], None]) -> None:
        p, key = tasks[outcome.index]
        result = outcome.result
        if outcome.error is not None:
            log(f"crawlmill: task failed: {p.input.path}: {outcome.error}")
            result = crashed(p, key, count, outcome.error)
        if outcome.confirmed:  # done() put the driver's reading of its marker in r.completed
            r.report.inputs_done += 1
        else:
            r.completed.pop(p.input.index, None)  # planning's reading, not the stage's
            record_result(result, p, r.report, r.completed)
        if result.damage is not None:
            if not first_damage[0]:  # the first is the error the run stops with
                log(f"crawlmill: error: {damage_error(result.damage)}")
            first_damage[0] = False

    def finish(run: StageRun) -> None:  # the resumed ones' markers: in r.completed (done())
        r.todo = [t for i, t in enumerate(tasks) if i not in run.resumed]
        r.report.inputs_skipped = len(run.resumed)
        r.report.inputs_cancelled += run.not_run

    return Stage(
        name="convert",
        payloads=payloads,
        fn=fn,
        done=done,
        keys=Computed(ntasks, lambda i: tasks[i][1]),
        sizes=Computed(ntasks, lambda i: tasks[i][0].size or 0),
        record=record,
        executor=lambda: executor_for(r.spec, r.registry, [tasks[i] for i in chosen]),
        resume=r.spec.run.resume,
        label="write (final pass)" if r.passes.tables else None,
        listing=listing_path(r.root.meta, "convert"),
        markers=Computed(
            ntasks, lambda i: os.path.join(r.root.meta, "done", f"{tasks[i][1]}.json")
        ),
        names=Computed(ntasks, lambda i: tasks[i][0].input.relpath),
        started=Computed(ntasks, lambda i: os.path.join(r.root.meta, "tmp", tasks[i][1])),
        starting=lambda todo: chosen.extend(todo),
        finish=finish,
        keep=lambda i, marker: True,  # the markers are in r.completed's spill file
    )


def execute(r: RunState, count: int, fn: Callable[[Any], Any] = run_task) -> dict[str, Any] | None:
    """Run the collect/reduce passes and the per-input tasks (:func:`convert_stage`, task
    function ``fn``) as one graph of stages; fill ``r.completed`` and the report's failures.
    Returns the damage that stopped an ``on_error: fail`` run, if any."""
    drop_listings(r.root.meta, {"convert", *r.passes.stage_names()})
    stages = pass_stages_of(r)
    stage = convert_stage(r, count, fn)
    stage.depends = (stages[-1].name,) if stages else ()
    runs = run_stages([*stages, stage], stream=r.stream, progress=r.spec.run.progress)
    return runs["convert"].damage


def collect_committed(
    root: OutputRoot,
    todo: Todo,
    fingerprint: str,
    count: int,
    completed: Completed,
    report: RunReport,
) -> None:
    """After an interruption: add the inputs whose tasks committed (their markers) although
    their results never reached the parent, so the report counts every committed input."""
    for p, key in todo:
        if p.input.index not in completed:
            marker = complete_input(root, key, fingerprint, p, count)
            if marker is not None:
                completed[p.input.index] = marker
                report.inputs_done += 1
    failed = {f.get("input") for f in report.failures}
    report.inputs_cancelled = sum(
        1 for p, _ in todo if p.input.index not in completed and p.input.path not in failed
    )
