"""One stage model for everything a run executes (issue 21 item 1).

A :class:`Stage` is a name, its task payloads (plain picklable data), a task function, the
stages it depends on, and a commit rule (:attr:`Stage.done`). :func:`run_stages` runs stages
in order on any :class:`~crawlmill.core.run.executor.Executor` (``map``; or the stage's own
runner, e.g. Spark's native shuffle) with one resume rule and one confirmation rule, both the
commit rule read by the driver:

* **resume**: a task whose commit rule holds already (its marker readable, of this run, and
  every file it lists present and whole) is not run again;
* **confirm**: a task that reports success is done only when the driver then finds its
  commit rule holding. A task the driver cannot confirm (its marker or its files not visible,
  e.g. written on a Spark worker's own disk) is a failure that names it, never a silent
  "not done" (issue 25, "Exit 0 over missing outputs").

A stage whose dependency did not finish every task does not run (its tasks whose commit
rule holds count as resumed, the others as not started). A whole run is one call: the
collect and reduce stages of its passes and the per-input conversion, or a shuffle's map and
partition stages, each stage's driver work in its ``prepare`` once its dependencies finished. Every mechanism of the engine is a stage: per-input conversion
(:mod:`crawlmill.core.run.engine`), the collect, split and reduce tasks of a pass
(:mod:`crawlmill.core.run.passes`), and a shuffle's map and partition tasks
(:mod:`crawlmill.core.run.shuffle.run`).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from .executor import Executor, LocalExecutor, WorkerCrash
from .outputs import json_chunks, write_text_atomic
from .progress import ProgressMonitor

__all__ = [
    "LISTING_VERSION",
    "Computed",
    "Outcome",
    "Stage",
    "StageRun",
    "drop_listings",
    "listing_path",
    "run_stages",
    "unconfirmed",
    "write_listing",
]

#: the version of a stage listing (``stages/<name>.json``, see :func:`write_listing`).
LISTING_VERSION = 1

#: ``runner(fn, payloads)``: a stage's own way to run its tasks (e.g. a native shuffle).
Runner = Callable[[Callable[[Any], Any], list[Any]], Iterator[tuple[int, Any]]]


class Computed(Sequence[Any]):
    """A read-only sequence of ``size`` items, item ``i`` made by ``at(i)`` when it is read
    (nothing held): a stage's per-task lists (payloads, names, marker paths) at 100,000
    inputs, each derived from what the driver holds anyway."""

    def __init__(self, size: int, at: Callable[[int], Any]) -> None:
        self._size = size
        self._at = at

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self._at(j) for j in range(*i.indices(self._size))]
        if i < 0:
            i += self._size
        if not 0 <= i < self._size:
            raise IndexError("Computed index out of range")
        return self._at(i)

    def __iter__(self) -> Iterator[Any]:
        return (self._at(i) for i in range(self._size))


def unconfirmed(name: str) -> str:
    """The error of a task that reported success the driver cannot confirm."""
    return (
        f"task {name} reported success but the driver cannot confirm it: its marker or one "
        "of its files is missing or incomplete where the driver reads the output folder (do "
        "the workers write to a folder the driver does not see?)"
    )


@dataclass(frozen=True)
class Outcome:
    """How one task ended, as the driver sees it."""

    #: the task's index among the stage's payloads.
    index: int
    #: what the task function returned (``None`` when its worker died).
    result: Any = None
    #: the task's committed marker, read back by the driver (``None``: not confirmed).
    marker: Any = None
    #: why the task failed in the driver's eyes (worker died, not confirmed), else ``None``.
    error: str | None = None

    @property
    def confirmed(self) -> bool:
        """The task is done: its commit rule holds for the driver."""
        return self.marker is not None


def _claims_ok(result: Any) -> bool:
    """Whether a task function's result says it committed (a ``TaskResult`` with status ok,
    or a dict with ``status: ok``)."""
    status = (
        result.get("status") if isinstance(result, Mapping) else getattr(result, "status", None)
    )
    return getattr(status, "value", status) == "ok"


def _error_of(result: Any) -> str | None:
    """A task's own error when it reports one and was not cancelled, else ``None``."""
    get = result.get if isinstance(result, Mapping) else lambda k: getattr(result, k, None)
    status = get("status")
    if getattr(status, "value", status) in ("ok", "cancelled"):
        return None
    error = get("error")
    return str(error) if error else None


def _damage_of(result: Any) -> Any:
    return result.get("damage") if isinstance(result, Mapping) else getattr(result, "damage", None)


@dataclass
class Stage:
    """One kind of work over many tasks; see the module docstring."""

    name: str
    #: one plain-data payload per task.
    payloads: Sequence[Any]
    #: the task function, run in a worker: ``fn(payload)`` commits and returns a result.
    fn: Callable[[Any], Any]
    #: the commit rule: task ``i``'s committed marker as the driver reads it (its files
    #: present and whole), or ``None`` when the task is not done.
    done: Callable[[int], Any]
    #: names of the stages that must have finished every task before this one runs.
    depends: tuple[str, ...] = ()
    #: each task's name (progress lines, failures); default ``<stage>[i]``.
    keys: Sequence[str] = ()
    #: each task's input size in bytes (progress), default 0.
    sizes: Sequence[int] = ()
    #: ``record(outcome, log)``: the stage's bookkeeping of each task as it ends.
    record: Callable[[Outcome, Callable[[str], None]], None] | None = None
    #: the executor for this stage (``None``: the one given to :func:`run_stages`).
    executor: Callable[[], Executor] | None = None
    #: a runner of the executor's own (``runner(fn, payloads)``); the executor is then not closed.
    runner: Runner | None = None
    #: skip the tasks whose commit rule holds already (the one resume rule).
    resume: bool = True
    #: stop the stage at the first task reporting damage (``on_error: fail``).
    stop_on_damage: bool = True
    #: what the progress line calls this stage ("collect for url-dedup"; ``None``: no name).
    label: str | None = None
    #: where the stage's listing goes (``<work folder>/stages/<name>.json``; ``None``: none).
    listing: str | None = None
    #: each task's commit marker path (what ``crawlmill status`` checks), listed with its key.
    markers: Sequence[str] = ()
    #: each task's name for people in the listing (an input's relpath; default its key).
    names: Sequence[str] = ()
    #: each task's sign of life while it runs (a temp folder or start marker it holds),
    #: listed for ``crawlmill status`` (running: present while the run is alive).
    started: Sequence[str] = ()
    #: a marker whose presence means every task is done (a pass's ``done.json``: the work
    #: folder holding its split and reduce markers is removed then), listed for the reader.
    final: str | None = None
    #: tasks of this stage done before it was built, as ``(key, marker path)``: listed as done.
    before: Sequence[tuple[str, str]] = ()
    #: driver work once the dependencies finished, before the commit rule is read (e.g. a
    #: pass folder prepared, rows of an earlier run kept); it may fill in ``payloads``.
    prepare: Callable[[], None] | None = None
    #: ``starting(todo)``: told the tasks about to run (indexes; called only when some are).
    starting: Callable[[list[int]], None] | None = None
    #: ``finish(run)``: the stage's own accounting once it ended (also when blocked).
    finish: Callable[[StageRun], None] | None = None
    #: ``keep(i, marker)``: what :attr:`StageRun.done` holds of task ``i``'s confirmed marker
    #: (``None``: the marker itself); a stage of many tasks that keeps its markers elsewhere
    #: (the per-input stage: a spill file) holds a token, so the driver holds no marker list.
    keep: Callable[[int, Any], Any] | None = None
    #: the progress setting of this stage (``None``: the one given to :func:`run_stages`).
    progress: str | None = None
    #: where the stage stands among the listings (``[graph start, position]``; set by
    #: :func:`run_stages`; a stage run inside another's task takes that one's).
    order: tuple[float, int] | None = None

    def key(self, i: int) -> str:
        """Task ``i``'s name."""
        return self.keys[i] if self.keys else f"{self.name}[{i}]"


@dataclass
class StageRun:
    """What a stage did: the confirmed markers by task (or what :attr:`Stage.keep` keeps of
    them), the failures, the first damage."""

    name: str
    tasks: int
    done: dict[int, Any] = field(default_factory=dict)
    #: tasks resumed (their commit rule held before the stage ran).
    resumed: set[int] = field(default_factory=set)
    failed: dict[int, str] = field(default_factory=dict)
    #: tasks never started (cancelled before they ran).
    not_run: int = 0
    damage: dict[str, Any] | None = None
    #: the stage did not run: a dependency did not finish.
    blocked: bool = False
    #: why each task that ended not done failed (its own error, or the driver's), for the
    #: stage's listing; cancelled tasks are not here.
    errors: dict[int, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Every task of the stage is done."""
        return len(self.done) == self.tasks


def run_stages(
    stages: Sequence[Stage],
    executor: Callable[[], Executor] | None = None,
    *,
    stream: TextIO,
    progress: str = "auto",
) -> dict[str, StageRun]:
    """Run ``stages`` in order (a stage after the ones it ``depends`` on), each on its own
    executor (``stage.executor``) or on a new one of ``executor()``; returns each stage's
    :class:`StageRun`. Every stage is listed ``pending`` first. A stage stops at the first
    damage (then its other tasks are cancelled) and later stages do not run (they are
    ``blocked``: their tasks whose commit rule holds count as resumed). Exceptions (Ctrl-C)
    cancel the running stage and propagate."""
    runs: dict[str, StageRun] = {}
    placed = _ordered(stages)
    started = time.time()
    with _KeptPools.shared() as kept:
        return _run_placed(placed, runs, started, executor, kept, stream, progress)


def _run_placed(
    placed: list[Stage],
    runs: dict[str, StageRun],
    started: float,
    executor: Callable[[], Executor] | None,
    kept: _KeptPools,
    stream: TextIO,
    progress: str,
) -> dict[str, StageRun]:
    for k, stage in enumerate(placed):  # the whole graph is listed before it runs
        stage.order = stage.order or (started, k)
        write_listing(stage, StageRun(stage.name, len(stage.payloads)), "pending")
    for stage in placed:
        blocked = any(d in runs and not runs[d].complete for d in stage.depends) or any(
            r.damage is not None for r in runs.values()
        )
        if blocked:
            run = runs[stage.name] = _resumed(stage, StageRun(stage.name, len(stage.payloads)))
            run.blocked = True
            run.not_run = len(stage.payloads) - len(run.done)
            write_listing(stage, run, "blocked")
        else:
            if stage.prepare is not None:
                stage.prepare()
            runs[stage.name] = _run_stage(stage, executor, stream, progress, kept)
        if stage.finish is not None:
            stage.finish(runs[stage.name])
    return runs


class _KeptPools:
    """The process pools of one :func:`run_stages` call and of the calls made while it runs
    (in this thread: e.g. a pass's split-reduce tasks, run as a stage of their own from the
    reduce stage), by worker count: a stage whose executor is a :class:`LocalExecutor` of as
    many workers as an earlier stage's takes that one unless it is running a stage, its
    worker processes started and their imports done (a stage cancelled or failed by an
    exception leaves its executor, which is closed)."""

    _local = threading.local()

    def __init__(self) -> None:
        self._by_workers: dict[int, LocalExecutor] = {}
        self._busy: set[int] = set()

    @classmethod
    @contextlib.contextmanager
    def shared(cls) -> Iterator[_KeptPools]:
        """The pools of the outermost :func:`run_stages` running in this thread (a new set
        when none is), closed when that one ends."""
        outer = getattr(cls._local, "kept", None)
        if outer is not None:
            yield outer
            return
        kept = cls._local.kept = cls()
        try:
            yield kept
        finally:
            cls._local.kept = None
            kept.close()

    def take(self, made: Executor) -> tuple[Executor, bool]:
        """The executor to run a stage on for ``made`` (a new one), and whether the stage
        closes it when done (not when it is kept here for the next stage)."""
        if type(made) is not LocalExecutor:
            return made, True
        kept = self._by_workers.get(made.workers)
        if kept is not None and id(kept) in self._busy:  # an outer stage's, running
            return made, True
        if kept is not None and not kept.cancelled:
            made.close()
            made = kept
        self._by_workers[made.workers] = made
        self._busy.add(id(made))
        return made, False

    def release(self, ex: Executor) -> None:
        """The stage on ``ex`` ended: close ``ex`` and forget it if the stage cancelled it."""
        self._busy.discard(id(ex))
        if isinstance(ex, LocalExecutor) and ex.cancelled:
            if self._by_workers.get(ex.workers) is ex:
                del self._by_workers[ex.workers]
            ex.close()

    def close(self) -> None:
        """Close every kept executor."""
        for ex in self._by_workers.values():
            ex.close()
        self._by_workers.clear()


def _resumed(stage: Stage, run: StageRun) -> StageRun:
    """``run`` with the tasks whose commit rule holds already done and resumed (the one
    resume rule; none when ``stage.resume`` is off)."""
    for i in range(len(stage.payloads)) if stage.resume else ():
        marker = stage.done(i)
        if marker is not None:
            run.done[i] = _kept(stage, i, marker)
            run.resumed.add(i)
    return run


def _kept(stage: Stage, i: int, marker: Any) -> Any:
    """What :attr:`StageRun.done` holds of task ``i``'s confirmed ``marker``."""
    return marker if stage.keep is None else stage.keep(i, marker)


def _ordered(stages: Sequence[Stage]) -> list[Stage]:
    """The stages with each after its dependencies (stable otherwise)."""
    names = {s.name for s in stages}
    placed: list[Stage] = []
    seen: set[str] = set()
    left = list(stages)
    while left:
        ready = [s for s in left if all(d in seen or d not in names for d in s.depends)]
        if not ready:
            raise ValueError(f"stages depend on each other in a circle: {[s.name for s in left]}")
        for s in ready:
            placed.append(s)
            seen.add(s.name)
        left = [s for s in left if s.name not in seen]
    return placed


def _run_stage(
    stage: Stage,
    executor: Callable[[], Executor] | None,
    stream: TextIO,
    progress: str,
    kept: _KeptPools,
) -> StageRun:
    run = _resumed(stage, StageRun(stage.name, len(stage.payloads)))
    todo = [i for i in range(len(stage.payloads)) if i not in run.done]
    if not todo:
        write_listing(stage, run, "done")
        return run
    if stage.starting is not None:
        stage.starting(todo)
    write_listing(stage, run, "running")
    make = stage.executor or executor
    if make is None:
        raise ValueError(f"stage {stage.name}: no executor")
    ex, close_after = kept.take(make()) if stage.runner is None else (make(), False)
    sizes = [stage.sizes[i] if stage.sizes else 0 for i in todo]
    payloads = [stage.payloads[i] for i in todo]
    progress = stage.progress or progress
    monitor = ProgressMonitor(
        ex.channel, stream, progress, len(todo), sum(s or 0 for s in sizes), label=stage.label
    )
    seen = 0
    try:
        with monitor:
            results = (
                stage.runner(stage.fn, payloads) if stage.runner else ex.map(stage.fn, payloads)
            )
            for j, result in results:
                seen += 1
                i = todo[j]
                monitor.task_done(stage.key(i), sizes[j] or 0)
                outcome = _outcome(stage, i, result)
                if outcome.confirmed:
                    run.done[i] = _kept(stage, i, outcome.marker)
                elif outcome.error is not None:
                    run.failed[i] = outcome.error
                    run.errors[i] = outcome.error
                elif _error_of(result) is not None:
                    run.errors[i] = _error_of(result)
                if stage.record is not None:
                    stage.record(outcome, monitor.log)
                damage = None if isinstance(result, WorkerCrash) else _damage_of(result)
                if damage is not None and stage.stop_on_damage and run.damage is None:
                    run.damage = dict(damage)
                    ex.cancel()
    except BaseException:
        ex.cancel()
        write_listing(stage, run, "failed" if run.errors else "interrupted")
        raise
    finally:
        if close_after:
            ex.close()
        else:
            kept.release(ex)
    run.not_run = len(todo) - seen
    write_listing(stage, run, "done" if run.complete else "failed")
    return run


def drop_listings(meta: str, keep: set[str]) -> None:
    """Remove the stage listings in the work folder ``meta`` of stages not named in
    ``keep`` (a run's plan: the listings of older runs' other stages would read as stale)."""
    folder = os.path.join(meta, "stages")
    for name in os.listdir(folder) if os.path.isdir(folder) else []:
        if name.endswith(".json") and name[: -len(".json")] not in keep:
            with contextlib.suppress(OSError):
                os.remove(os.path.join(folder, name))


def listing_path(meta: str, name: str) -> str:
    """Where stage ``name``'s listing goes in the work folder ``meta`` (``OUT/.crawlmill``)."""
    return os.path.join(meta, "stages", f"{name}.json")


def write_listing(stage: Stage, run: StageRun, state: str) -> None:
    """Write ``stage.listing`` atomically (when set): the stage's name, label, dependencies,
    ``state`` (``pending``, ``running``, ``done``, ``failed``, ``interrupted``, ``blocked``) and its tasks
    (key, marker path relative to the work folder, done as the driver knows it now, error).
    Written when its graph starts, when the stage starts
    and when it ends, never per task: a task's completion meanwhile is its marker, which the
    reader checks (``crawlmill status``)."""
    if stage.listing is None:
        return
    meta = os.path.dirname(os.path.dirname(stage.listing))

    inside = meta + os.sep

    def where(marker: str | None) -> str | None:  # relative: the root may move
        if marker is None:
            return None
        if marker.startswith(inside) and os.path.normpath(marker) == marker:  # relpath, cheaply
            return marker[len(inside) :].replace(os.sep, "/")
        return os.path.relpath(marker, meta).replace(os.sep, "/")

    def tasks() -> Iterator[dict[str, Any]]:  # made one at a time as the file is written
        for key, marker in stage.before:
            yield {"key": key, "name": key, "marker": where(marker), "done": True, "error": None}
        for i in range(len(stage.payloads)):
            yield {
                "key": stage.key(i),
                "name": stage.names[i] if stage.names else stage.key(i),
                "marker": where(stage.markers[i] if stage.markers else None),
                "started": where(stage.started[i] if stage.started else None),
                "done": i in run.done,
                "error": run.errors.get(i),
            }

    write_text_atomic(
        stage.listing,
        json_chunks({
            "version": LISTING_VERSION,
            "name": stage.name,
            "label": stage.label,
            "depends": list(stage.depends),
            "final": where(stage.final),
            "state": state,
            "damage": run.damage,
            "written": time.time(),
            "order": list(stage.order) if stage.order else None,
            "tasks": tasks(),
        }),
        durable=False,  # what the driver knows now; resume trusts the markers: not fsynced
    )  # fmt: skip


def _outcome(stage: Stage, i: int, result: Any) -> Outcome:
    """The driver's view of task ``i``'s ``result``: a worker that died is a failure; a task
    reporting success is done only when its commit rule holds for the driver."""
    if isinstance(result, WorkerCrash):
        return Outcome(i, None, None, result.message)
    if not _claims_ok(result):
        return Outcome(i, result)
    marker = stage.done(i)
    if marker is None:
        return Outcome(i, result, None, unconfirmed(stage.key(i)))
    return Outcome(i, result, marker)
