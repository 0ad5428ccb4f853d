"""Whole-collection steps: collect passes and reduces, run before the final pass.

A filter or writer class declares a step by defining ``collect_schema`` (a
``pyarrow.Schema``), ``collect(record)`` (rows for one record, in schema order, or ``None``)
and the classmethod ``reduce(rows, options, ctx)`` (all rows -> one ``pyarrow.Table``);
see :func:`~crawlmill.core.plugin.declares_collect` and ``docs/plugin_hooks.md``.

For each such component, in pipeline order, the engine runs a **pass**:

1. **collect**: one task per input (:func:`~crawlmill.core.run.pass_tasks.collect_task`, a plain
   JSON-able payload run through ``Executor.map``, so every executor runs it): the reader and
   the filters before the component (with the tables of their own passes), then ``collect``
   on every record that reaches it; rows to one Arrow IPC file per task, with the columns
   ``input`` and ``seq`` added;
2. **reduce**: once, in the driver, over the rows of all tasks concatenated in input order
   (memory-mapped); its table is written to ``table.arrow``. A component declaring
   ``reduce_by`` whose rows exceed ``run.reduce_memory`` (or that fixes its partitions with
   ``reduce_partitions``) is reduced in partitions by the executor's workers instead
   (:mod:`~crawlmill.core.run.reduce_tasks`; ``table-<p>.arrow``; their ``ctx.output`` files
   committed by the driver when all are done);
3. the **final pass** (today's tasks) gives each component its table (``ctx.table()``) and
   the ordinal of the record in hand (``ctx.seq``).

Everything a pass writes is below ``OUT/.crawlmill/passes/<id>/`` (see
:class:`~crawlmill.core.run.pass_tasks.PassDir`)::

    pass.json            what the pass is: component, name, inputs (written once)
    tasks/<i>.start.json a collect task started (pid, host, heartbeat)
    tasks/<i>.arrow      its rows;  tasks/<i>.json  its done marker (after the rows)
    tasks/<i>.failed.json  why it failed
    reduce.start.json    the reduce started;  reduce.failed.json  why it failed
    table.arrow          the reduce output;  done.json  the pass marker (after the table)

``<id>`` hashes exactly what the pass depends on (:func:`pass_data`): the reader spec, the
inputs (path, size, mtime, reader, position), the run's read limits, the names, options and
plugin versions (or plugin module names) of the components up to and including the collecting
one, and the ids of the earlier passes. A changed option of a later component leaves the id, so the pass is not
redone. Markers are written atomically after the files they vouch for, so a run killed in a
collect pass resumes with the tasks that finished, and one killed in the reduce redoes only
the reduce. The final pass's completion-marker keys include the pass ids (:attr:`PassPlan.salt`),
so a changed table redoes the final pass. Pass folders of other ids are removed at the end of
a successful run. When the input set changed and nothing else (:attr:`Pass.collect`: the
pass's data without the inputs), a new pass folder keeps the finished collect tasks of the
unchanged inputs (:func:`input_identity`) from the old one (``tasks/<i>.json`` says
``kept_from``), their ``input`` column set to the input's new position; the reduce and the
final pass run again, since they depend on every input.

Accounting: only the final pass counts into the run report; a collect task's counters stay
in its marker (``crawlmill status``). Damage a collect task meets is counted there and met
again, and reported, by the final pass.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from .. import storage
from ..components import ResolvedPipeline
from ..contract import ReducePartitioner, declares_collect, reduce_key, reduce_summary_of
from ..errors import ConfigError
from ..inputs import PlannedInput
from ..plugin import ReduceContext
from ..registry import Registry
from ..spec import PipelineSpec
from ..stats import RunReport, filter_labels
from .executor import Executor, InProcessExecutor
from .outputs import BOOKKEEPING, json_chunks, write_json_atomic, write_text_atomic
from .pass_tasks import (
    PassDir,
    collect_payload,
    collect_task,
    hostname,
    read_json,
    task_done,
)
from .reduce_outputs import ReduceOutputs, outputs_present

if TYPE_CHECKING:
    from ..plugin import PluginOptions
from .reduce_tasks import (
    ReduceDir,
    fixed_partitions,
    partition_count,
    reduce_done,
    reduce_part_name,
    reduce_payload,
    reduce_task,
    split_done,
    split_payload,
    split_task,
)
from .stage import Outcome, Stage, StageRun, listing_path, run_stages
from .tables import load_table, write_table

__all__ = [
    "PASS_FORMAT",
    "REDUCE_SUMMARY",
    "Pass",
    "PassPlan",
    "pass_data",
    "pass_done",
    "plan_passes",
    "end_run",
    "remove_other_passes",
    "pass_stages",
    "run_json_path",
]

#: version of the pass layout; part of every pass id.
PASS_FORMAT = 1
_TEMP = re.compile(r"\.tmp-\d+$")


@dataclass(frozen=True)
class Pass:
    """One collecting component of the pipeline and where its pass lives."""

    #: ``filters[i]`` or ``writer``.
    loc: str
    #: the component's registered name.
    name: str
    #: its step label in the report (``url-dedup``, ``url-dedup#2``, ``writer``).
    label: str
    id: str
    cls: type
    options: PluginOptions
    #: ``OUT/.crawlmill/passes/<id>``.
    dir: str
    #: what one collect task depends on besides its input (:func:`pass_data` without the
    #: inputs): a collect task of another pass with this value and the same input
    #: (:func:`input_identity`) has the same rows, so it is kept (:func:`_adopt`).
    collect: str = ""

    def info(self) -> dict[str, Any]:
        """Plain data naming the pass (in payloads and ``run.json``)."""
        return {"id": self.id, "name": self.name, "component": self.loc, "dir": self.dir}


@dataclass
class PassPlan:
    """The passes of a run, in pipeline order."""

    #: ``OUT/.crawlmill/passes``.
    root: str
    passes: list[Pass] = field(default_factory=list)

    @property
    def tables(self) -> dict[str, str]:
        """Component location -> its ``table.arrow`` (what final-pass tasks get)."""
        return {p.loc: PassDir(p.dir).table for p in self.passes}

    def reduce_counts(self) -> dict[str, dict[str, int]]:
        """What each pass's reduce counted (``ctx.count``), from the pass markers, by step
        ``<label> reduce`` (``writer reduce``: a Nutch database's entries); the run report
        adds them to its counts."""
        found: dict[str, dict[str, int]] = {}
        for p in self.passes:
            marker = read_json(PassDir(p.dir).done)
            if isinstance(marker, dict) and marker.get("counts"):
                found[f"{p.label} reduce"] = dict(marker["counts"])
        return found

    def stage_names(self) -> set[str]:
        """The names of the stages the passes may run (collect, reduce, split)."""
        return {f"{what}-{p.id}" for p in self.passes for what in ("collect", "reduce", "split")}

    @property
    def salt(self) -> str:
        """What the final pass's marker keys add to the fingerprint: the pass ids (empty
        without passes, so runs without passes keep their keys)."""
        return "|passes:" + ",".join(p.id for p in self.passes) if self.passes else ""


def _stat(path: str) -> list[int | None]:
    try:
        st = os.stat(path)
    except OSError:
        return [None, None]
    return [st.st_size, st.st_mtime_ns]


def _inputs_data(planned: Sequence[PlannedInput]) -> list[dict[str, Any]]:
    data = []
    for p in planned:
        inp = p.input
        data.append(
            {
                "path": storage.absolute(inp.path),  # a URL as it is (not below the cwd)
                "relpath": inp.relpath,
                "index": inp.index,
                "reader": p.reader,
                "stat": _stat(inp.path),
                "parts": {k: _stat(v) for k, v in sorted(inp.parts.items())},
                "meta": inp.meta,
            }
        )
    return data


def input_identity(p: PlannedInput) -> str:
    """What a collect task's rows depend on of its input, hashed: what :func:`pass_data`
    records of it (path, relpath, reader, size and mtime of the file and its parts, meta)
    and its stem, but not its position (the rows' ``input`` column, rewritten when kept)."""
    entry = _inputs_data([p])[0]
    del entry["index"]
    return _hash({**entry, "stem": p.input.stem})


def _versions(registry: Registry, used: list[tuple[str, str]]) -> dict[str, str]:
    """Distribution -> version of crawlmill and of the plugins providing ``used``."""
    from .. import __version__

    versions = {"crawlmill": __version__}
    for kind, name in used:
        component = registry.components[kind].get(name)
        info = registry.plugins.get(component.plugin) if component is not None else None
        if info is not None:
            versions[info.package or info.name] = info.version or "unknown"
    return dict(sorted(versions.items()))


def pass_data(
    spec: PipelineSpec,
    registry: Registry,
    planned: Sequence[PlannedInput],
    loc: str,
    earlier: list[str],
) -> dict[str, Any]:
    """What the pass of the component at ``loc`` depends on (hashed into its id)."""
    upto = len(spec.filters) if loc == "writer" else int(loc[len("filters[") : -1]) + 1
    readers = [spec.reader.name] if spec.reader else sorted({p.reader for p in planned})
    used = [("reader", r) for r in readers] + [("filter", f.name) for f in spec.filters[:upto]]
    data: dict[str, Any] = {
        "format": PASS_FORMAT,
        "component": loc,
        "reader": spec.reader.model_dump(mode="json") if spec.reader else None,
        "inputs": _inputs_data(planned),
        "limits": [spec.run.max_record_bytes, spec.run.max_decompressed_bytes],
        "filters": [f.model_dump(mode="json") for f in spec.filters[:upto]],
        "tables": list(earlier),
    }
    if loc == "writer":
        used.append(("writer", spec.writer.name))
        data["writer"] = spec.writer.model_dump(mode="json")
    data["versions"] = _versions(registry, used)
    return data


def _hash(data: dict[str, Any]) -> str:
    blob = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:20]


def plan_passes(
    spec: PipelineSpec,
    registry: Registry,
    pipeline: ResolvedPipeline,
    planned: Sequence[PlannedInput],
) -> PassPlan:
    """The passes of ``pipeline``: one per filter or writer that declares a collect step, in
    pipeline order, each with its id. Reads file sizes and mtimes, writes nothing."""
    plan = PassPlan(os.path.join(os.path.abspath(spec.output), BOOKKEEPING, "passes"))
    labels = filter_labels([f.name for f in pipeline.filters])
    components = [
        (f"filters[{i}]", label, f)
        for i, (label, f) in enumerate(zip(labels, pipeline.filters, strict=True))
    ]
    components.append(("writer", "writer", pipeline.writer))
    earlier: list[str] = []
    for loc, label, resolved in components:
        if not declares_collect(resolved.cls):
            continue
        try:
            reduce_key(resolved.cls)
        except TypeError as exc:
            raise ConfigError([(loc, str(exc))]) from None
        data = pass_data(spec, registry, planned, loc, earlier)
        pid = _hash(data)
        collect = _hash({k: v for k, v in data.items() if k != "inputs"})
        plan.passes.append(
            Pass(
                loc, resolved.name, label, pid, resolved.cls, resolved.options,
                os.path.join(plan.root, pid), collect,
            )
        )  # fmt: skip
        earlier.append(pid)
    return plan


def pass_done(pdir: PassDir) -> dict[str, Any] | None:
    """The pass marker when the pass is complete (every table file it lists there with the
    size it records: ``table.arrow``, or the partition tables of a split reduce), else
    ``None``."""
    marker = read_json(pdir.done)
    if marker is None:
        return None
    entries = marker.get("tables") or [["table.arrow", marker.get("size")]]
    try:
        for name, size in entries:
            if os.path.getsize(os.path.join(pdir.path, os.path.basename(name))) != size:
                return None
    except (OSError, TypeError, ValueError):
        return None
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(pdir.path))))
    if not outputs_present(root, marker):  # a reduce output removed: redo the reduce
        return None
    return marker


def run_json_path(output: str) -> str:
    """``OUT/.crawlmill/run.json``: the pid, host and start of the run using the root, its
    passes and its final-pass marker keys (what ``crawlmill status`` reads). It exists while
    a run uses the root (:func:`end_run` removes it once the report is written), so one left
    behind names a run that was killed."""
    return os.path.join(os.path.abspath(output), BOOKKEEPING, "run.json")


def end_run(output: str) -> None:
    """Remove ``run.json`` (the run wrote its report)."""
    with contextlib.suppress(OSError):
        os.remove(run_json_path(output))


def _stamp() -> dict[str, Any]:
    return {"pid": os.getpid(), "host": hostname(), "started": time.time()}


def _remove_temps(folder: str) -> None:
    """Delete temp files a killed run left (``*.tmp-<pid>``); only under the run lock."""
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            if _TEMP.search(name):
                with contextlib.suppress(OSError):
                    os.remove(os.path.join(folder, name))


#: ``make_executor(inputs)``: an executor sized for the inputs (the engine's choice).
ExecutorFor = Callable[[list[PlannedInput]], Executor]


@dataclass
class _PassRun:
    """What running the passes needs from the engine."""

    plan: PassPlan
    spec: PipelineSpec
    planned: Sequence[PlannedInput]
    executor_for: ExecutorFor
    report: RunReport
    stream: TextIO


def pass_stages(
    plan: PassPlan,
    spec: PipelineSpec,
    planned: Sequence[PlannedInput],
    *,
    keys: Mapping[Any, str],
    needed: bool,
    executor_for: ExecutorFor,
    report: RunReport,
    stream: TextIO,
) -> list[Stage]:
    """Write ``run.json``, then (when ``needed``: the final pass has inputs to convert) the
    stages of every pass, in order, each depending on the one before: per pass a collect
    stage (one task per input) and a reduce stage (one task, in the driver). A pass whose
    commit rule holds (its ``done.json``) is resumed whole; under ``run.resume: false`` the
    pass folders are removed first, so every pass is redone. The last stage is
    ``stages[-1]`` (the final pass depends on it)."""
    write_text_atomic(  # in chunks, made as written: 100,000 inputs are never all held
        run_json_path(spec.output),
        json_chunks(
            {
                **_stamp(),
                "passes": [p.info() for p in plan.passes],
                "inputs": (
                    {"index": p.input.index, "input": p.input.relpath, "path": p.input.path}
                    for p in planned
                ),
                # a dict is written whole; another mapping (the engine's, of every input's
                # key, with string keys) one member a line, made as written
                "keys": {str(i): k for i, k in keys.items()} if isinstance(keys, dict) else keys,
            }
        ),
        durable=False,  # says only that a run is here: not fsynced
    )
    if not needed:
        return []
    if not spec.run.resume:  # --no-resume: redo the passes too
        for p in plan.passes:
            shutil.rmtree(p.dir, ignore_errors=True)
    state = _PassRun(plan, spec, planned, executor_for, report, stream)
    stages: list[Stage] = []
    for n in range(len(plan.passes)):
        stages += [_collect_stage(state, n, stages[-1].name if stages else None),
                   _reduce_stage(state, n)]  # fmt: skip
    return stages


#: the words of a pass's line after its reduce when its class sets no ``reduce_summary``.
REDUCE_SUMMARY = ("record(s) collected", "row(s) in the table the final pass uses")


def _say(state: _PassRun, n: int, text: str) -> None:
    p = state.plan.passes[n]
    print(f"crawlmill: pass {n + 1}/{len(state.plan.passes)} {p.label} [{p.id}]: {text}",
          file=state.stream)  # fmt: skip


def _prepare_pass(state: _PassRun, n: int) -> bool:
    """Before the collect stage of pass ``n``: ``True`` when the pass is complete already
    (kept whole); else its folder ready and the collect tasks of an earlier pass folder
    with the same inputs kept (:func:`_adopt`)."""
    p = state.plan.passes[n]
    pdir = PassDir(p.dir)
    if pass_done(pdir) is not None:
        _say(state, n, "complete (kept from an earlier run)")
        return True
    os.makedirs(pdir.tasks, exist_ok=True)
    _remove_temps(pdir.path)
    _remove_temps(pdir.tasks)
    if read_json(pdir.info) is None:
        write_json_atomic(
            pdir.info,
            {
                **p.info(),
                "inputs": [i.input.relpath for i in state.planned],
                "collect": p.collect,
                "identities": {input_identity(i): i.input.index for i in state.planned},
            },
        )
    if state.spec.run.resume:
        _adopt(state, n, pdir)
    return False


def _adopt(state: _PassRun, n: int, pdir: PassDir) -> None:
    """Keep the collect tasks another pass folder finished for the same inputs with the same
    collect (:attr:`Pass.collect`: the input set changed, nothing else): their rows are
    linked (or copied) here, their ``input`` column rewritten when the input's position
    changed, and their done markers written after."""
    p = state.plan.passes[n]
    missing = [i for i in state.planned if task_done(pdir, i.input.index) is None]
    sources: dict[str, tuple[PassDir, int]] = {}
    for name in sorted(os.listdir(state.plan.root)) if missing else []:
        other = PassDir(os.path.join(state.plan.root, name))
        info = read_json(other.info) if name != p.id else None
        if info is None or not p.collect or info.get("collect") != p.collect:
            continue
        for ident, index in (info.get("identities") or {}).items():
            if isinstance(index, int) and task_done(other, index) is not None:
                sources.setdefault(ident, (other, index))
    kept = 0
    for i in missing:
        found = sources.get(input_identity(i))
        marker = task_done(*found) if found is not None else None
        if found is None or marker is None:
            continue
        other, old = found
        try:
            size = _place_rows(other.task_file(old, "arrow"), pdir.task_file(i.input.index, "arrow"),
                               old, i.input.index)  # fmt: skip
        except (OSError, ValueError) as exc:
            _say(state, n, f"collected rows of {i.input.relpath} not kept ({exc}): collected again")
            continue
        kept_from = os.path.basename(other.path)
        write_json_atomic(
            pdir.task_file(i.input.index, "json"),
            {**marker, "index": i.input.index, "size": size, "kept_from": kept_from},
        )
        kept += 1
    if kept:
        _say(state, n, f"kept the collected rows of {kept} unchanged input(s) of an earlier run")


def _place_rows(source: str, target: str, old: int, new: int) -> int:
    """A kept collect task's rows file at ``target``: a hard link (or copy) of ``source`` at
    the same position, else a copy whose ``input`` column says ``new``; returns its size."""
    tmp = f"{target}.tmp-{os.getpid()}"
    with contextlib.suppress(OSError):
        os.remove(tmp)
    if old == new:
        try:
            os.link(source, tmp)
        except OSError:
            shutil.copyfile(source, tmp)
        os.replace(tmp, target)
        return os.path.getsize(target)
    import pyarrow as pa

    table = load_table(source)
    at = table.schema.get_field_index("input")
    if at < 0:
        raise ValueError(f"{source} has no input column")
    column = pa.array([new] * table.num_rows, type=pa.int32())
    return write_table(target, table.set_column(at, table.schema.field(at), column))


def _collect_stage(state: _PassRun, n: int, after: str | None) -> Stage:
    """The collect stage of pass ``n``: one task per input (its commit rule: the task's
    rows and marker, or the whole pass complete); its failures stop the final pass."""
    p = state.plan.passes[n]
    pdir = PassDir(p.dir)
    planned = list(state.planned)
    spec_data = state.spec.model_dump(mode="json")
    tables = {q.loc: PassDir(q.dir).table for q in state.plan.passes[:n]}
    kept = [False]  # the pass was complete when its stage began
    chosen: list[PlannedInput] = []

    def prepare() -> None:
        kept[0] = _prepare_pass(state, n)

    def starting(todo: list[int]) -> None:
        _say(state, n, f"collecting {len(todo)} of {len(planned)} input(s)")
        chosen[:] = [planned[k] for k in todo]

    def finish(run: StageRun) -> None:
        if not run.blocked and not run.complete:
            failed = (run.tasks - len(run.done) - run.not_run) or 1  # or cancelled
            _say(state, n, f"{failed} collect task(s) not done; the final pass does not run")

    return Stage(
        name=f"collect-{p.id}",
        payloads=[
            collect_payload(spec_data, i.input, i.reader, len(planned), p.info(), tables)
            for i in planned
        ],
        fn=collect_task,
        done=lambda k: {"kept": True} if kept[0] else task_done(pdir, planned[k].input.index),
        depends=(after,) if after else (),
        keys=[f"{p.id}:{i.input.index}" for i in planned],
        sizes=[i.size or 0 for i in planned],
        record=lambda outcome, log: _harvest(state, n, pdir, planned, outcome, log),
        executor=lambda: state.executor_for(chosen),
        resume=state.spec.run.resume,
        stop_on_damage=False,
        label=f"collect for {p.label}",
        listing=_listing(state, f"collect-{p.id}"),
        markers=[pdir.task_file(i.input.index, "json") for i in planned],
        names=[i.input.relpath for i in planned],
        started=[pdir.task_file(i.input.index, "start.json") for i in planned],
        prepare=prepare,
        starting=starting,
        finish=finish,
    )


def _harvest(
    state: _PassRun,
    n: int,
    pdir: PassDir,
    todo: list[PlannedInput],
    outcome: Outcome,
    log: Callable[[str], None],
) -> None:
    """Take one collect task's outcome: a task not done (failed, its worker died, or its
    marker not visible to the driver) is a failure naming its input."""
    p = state.plan.passes[n]
    inp = todo[outcome.index].input
    if outcome.confirmed:
        return
    result = outcome.result
    if outcome.error is not None:
        result = {"status": "failed", "error": outcome.error, "traceback": ""}
        with contextlib.suppress(OSError):
            write_json_atomic(
                pdir.task_file(inp.index, "failed.json"),
                {"input": inp.relpath, "error": result["error"], "traceback": ""},
            )
    if result.get("status") == "failed":
        error = f"pass {p.label} (collect): {result.get('error')}"
        state.report.failures.append(
            {"input": inp.path, "error": error, "traceback": result.get("traceback", "")}
        )
        log(f"crawlmill: task failed: {inp.path}: {error}")


def _rows(state: _PassRun, pdir: PassDir, p: Pass) -> Any:
    """The rows of every task, concatenated in input order (memory-mapped)."""
    import pyarrow as pa

    tables = [load_table(pdir.task_file(i.input.index, "arrow")) for i in state.planned]
    if not tables:  # no inputs: the columns a task's rows file has, no rows
        schema = pa.schema([*p.cls.collect_schema, ("input", pa.int32()), ("seq", pa.int64())])
        return schema.empty_table()
    return pa.concat_tables(tables)


def _reduce_stage(state: _PassRun, n: int) -> Stage:
    """The reduce of pass ``n`` as a one-task stage run in the driver (its commit rule: the
    pass's ``done.json`` with its tables whole). Once the collect stage is done, its
    ``prepare`` decides how: in the driver, or split into partitions run by the executor
    when the component declares ``reduce_by`` and its rows are larger than
    ``run.reduce_memory`` or it fixes its partition count (:mod:`~crawlmill.core.run.reduce_tasks`;
    the split and partition stages then list themselves, so this stage lists nothing)."""
    p = state.plan.passes[n]
    pdir = PassDir(p.dir)
    name = f"reduce-{p.id}"
    # the reduce key and partition count (None: in the driver), the stage's place
    how: list[Any] = [None, None, None]

    def prepare() -> None:
        if pass_done(pdir) is not None:
            return
        rows = sum(os.path.getsize(pdir.task_file(i.input.index, "arrow")) for i in state.planned)
        key = reduce_key(p.cls)
        fixed = fixed_partitions(p.cls, p.options) if key is not None else None
        if key is not None and (fixed is not None or rows > state.spec.run.reduce_memory):
            how[:] = [key, fixed or partition_count(rows, state.spec.run.reduce_memory),
                      stage.order]  # fmt: skip
            stage.listing = None

    def record(outcome: Outcome, log: Callable[[str], None]) -> None:
        if outcome.error is not None:  # the driver cannot read back what the reduce wrote
            _reduce_failed(state, pdir, f"pass {p.label} (reduce): {outcome.error}")

    stage = Stage(
        name=name, payloads=[None], fn=lambda _: _reduce(state, n, pdir, *how),
        done=lambda _: pass_done(pdir), depends=(f"collect-{p.id}",), keys=["reduce"],
        names=["(reduce)"], markers=[pdir.done], record=record, executor=InProcessExecutor,
        resume=True, stop_on_damage=False, label=f"reduce for {p.label}",
        listing=_listing(state, name), prepare=prepare, progress="never",
    )  # fmt: skip
    return stage


def _reduce_failed(state: _PassRun, pdir: PassDir, error: str) -> None:
    """Record the failure of a pass's reduce (``reduce.failed.json``, the report, stderr)."""
    with contextlib.suppress(OSError):
        write_json_atomic(pdir.reduce_failed, {"error": error})
    state.report.failures.append({"input": None, "error": error})
    print(f"crawlmill: error: {error}", file=state.stream)


def _reduce(
    state: _PassRun,
    n: int,
    pdir: PassDir,
    key: str | None,
    parts: int | None,
    order: tuple[float, int] | None = None,
) -> dict[str, Any]:
    """Run the reduce of pass ``n`` and write its table(s) and marker: in the driver, or
    (``parts``) split into partitions by ``key`` run by the executor. Returns the stage
    task's result (``status`` ok, or failed with its error, recorded)."""
    p = state.plan.passes[n]
    started = time.monotonic()
    with contextlib.suppress(OSError):
        os.remove(pdir.reduce_failed)
    write_json_atomic(pdir.reduce_start, _stamp())
    try:
        if parts is not None:
            marker = _split_reduce(state, n, pdir, key, parts, order)
        else:
            marker = _driver_reduce(state, n, pdir)
    except Exception as exc:
        error = f"pass {p.label} (reduce): {type(exc).__name__}: {exc}"
        _reduce_failed(state, pdir, error)
        return {"status": "failed", "error": error}
    marker = {**p.info(), **marker, "seconds": round(time.monotonic() - started, 3)}
    write_json_atomic(pdir.done, marker)
    shutil.rmtree(pdir.workdir, ignore_errors=True)
    how = f" in {len(marker['tables'])} partitions" if len(marker["tables"]) > 1 else ""
    seen, made = reduce_summary_of(p.cls, REDUCE_SUMMARY)
    _say(state, n, f"{marker['rows_in']} {seen}, {marker['rows']} {made}{how}")
    return {"status": "ok"}


def _driver_reduce(state: _PassRun, n: int, pdir: PassDir) -> dict[str, Any]:
    """The reduce in this process, over every row (memory-mapped): the marker's facts; the
    files it asked for with ``ctx.output`` renamed into the output root
    (:mod:`~crawlmill.core.run.reduce_outputs`)."""
    import pyarrow as pa

    p = state.plan.passes[n]
    shutil.rmtree(pdir.workdir, ignore_errors=True)
    os.makedirs(pdir.workdir)
    _remove_tables(pdir, keep=os.path.basename(pdir.table))
    counts: dict[str, int] = {}

    def count(label: str, k: int) -> None:
        counts[label] = counts.get(label, 0) + k

    rows = _rows(state, pdir, p)
    outputs = ReduceOutputs(
        state.spec.output, pdir.path, pdir.workdir, overwrite=state.spec.run.overwrite,
        inputs=[i.input.path for i in state.planned],
    )  # fmt: skip
    ctx = ReduceContext(
        [i.input for i in state.planned], pdir.workdir, count,
        output_path=outputs.request, logger=lambda text: _say(state, n, text),
    )  # fmt: skip
    table = p.cls.reduce(rows, p.options, ctx)
    if not isinstance(table, pa.Table):
        raise TypeError(f"reduce returned {type(table).__name__}; expected a pyarrow.Table")
    size = write_table(pdir.table, table)
    marker = {
        "rows_in": rows.num_rows,
        "rows": table.num_rows,
        "size": size,
        "tables": [[os.path.basename(pdir.table), size]],
        "counts": counts,
    }
    files = outputs.commit()
    if files:
        marker["outputs"] = files
    return marker


def _split_reduce(
    state: _PassRun,
    n: int,
    pdir: PassDir,
    key: str,
    parts: int,
    order: tuple[float, int] | None = None,
) -> dict[str, Any]:
    """The reduce split into ``parts`` partitions, run as split and reduce tasks through the
    executor; resumes the tasks a killed run finished when the partition count is the same."""
    p = state.plan.passes[n]
    rdir = ReduceDir(pdir)
    plan = {"key": key, "partitions": parts, "inputs": [i.input.index for i in state.planned]}
    if read_json(rdir.plan) != plan:
        shutil.rmtree(pdir.workdir, ignore_errors=True)
        os.makedirs(pdir.workdir)
        _remove_tables(pdir)
        write_json_atomic(rdir.plan, plan)
    for folder in (rdir.split, rdir.reduce):
        os.makedirs(folder, exist_ok=True)
        _remove_temps(folder)
    _remove_temps(pdir.path)
    todo = [i for i in state.planned if split_done(rdir, i.input.index) is None]
    if todo:
        _say(state, n, f"splitting the rows of {len(todo)} input(s) into {parts} partitions")
        own = (state.spec.model_dump(mode="json"), p.info())
        own_keys = own if isinstance(p.cls, ReducePartitioner) else None
        payloads = [split_payload(pdir.path, i.input.index, key, parts, own_keys) for i in todo]
        _run_tasks(state, split_task, payloads, "split",
                   lambda k: split_done(rdir, todo[k].input.index),
                   (f"split-{p.id}", f"split for {p.label}",
                    [f"split:{i.input.index}" for i in todo],
                    [rdir.split_file(i.input.index, "json") for i in todo], pdir.done),
                   [(f"split:{i.input.index}", rdir.split_file(i.input.index, "json"))
                    for i in state.planned if i not in todo], order)  # fmt: skip
    waiting = [k for k in range(parts) if reduce_done(rdir, k) is None]
    if waiting:
        _say(state, n, f"reducing {len(waiting)} of {parts} partitions")
        spec_data = state.spec.model_dump(mode="json")
        inputs = [i.input.to_dict() for i in state.planned]
        payloads = [reduce_payload(spec_data, p.info(), inputs, k, parts) for k in waiting]
        _run_tasks(state, reduce_task, payloads, "reduce",
                   lambda k: reduce_done(rdir, waiting[k]),
                   (f"reduce-{p.id}", f"reduce for {p.label}",
                    [f"part-{k:05d}" for k in waiting],
                    [rdir.reduce_marker(k) for k in waiting], pdir.done),
                   [(f"part-{k:05d}", rdir.reduce_marker(k))
                    for k in range(parts) if k not in waiting], order)  # fmt: skip
    marker, written = _merge_markers(rdir, pdir, parts)
    if written:  # the partitions' ctx.output files, committed as a driver reduce's
        outputs = ReduceOutputs(
            state.spec.output, pdir.path, pdir.workdir, overwrite=state.spec.run.overwrite,
            inputs=[i.input.path for i in state.planned],
        )  # fmt: skip
        for k, relpath, path in written:
            outputs.adopt(relpath, path, str(k))
        marker["outputs"] = outputs.commit()
    return marker


def _run_tasks(
    state: _PassRun,
    fn: Callable[[Any], Any],
    payloads: list[Any],
    what: str,
    done: Callable[[int], Any],
    listed: tuple[str, str, list[str], list[str], str] | None = None,
    before: Sequence[tuple[str, str]] = (),
    order: tuple[float, int] | None = None,
) -> None:
    """Run ``payloads`` as a stage (``done``: its commit rule); raise on the first task
    that did not end ok or that the driver cannot confirm. ``listed``: the stage's name,
    label, task keys, markers and final marker (the pass's) for its listing (``stages/<name>.json``); ``before``: the
    tasks done before, as ``(key, marker)`` (listed as done)."""

    def record(outcome: Outcome, log: Callable[[str], None]) -> None:
        if outcome.confirmed:
            return
        result = outcome.result
        if result is None:
            raise RuntimeError(f"a {what} task's worker died: {outcome.error}")
        if result.get("status") != "ok":
            raise RuntimeError(f"a {what} task failed: {result.get('error')}")
        raise RuntimeError(f"a {what} task failed: {outcome.error}")

    name, label, keys, markers, final = listed or (what, None, [], [], None)
    stage = Stage(
        name=name, payloads=payloads, fn=fn, done=done, record=record,
        executor=lambda: state.executor_for(list(state.planned)), resume=False,
        stop_on_damage=False, label=label, keys=keys, markers=markers, before=before,
        final=final, order=order,
        listing=_listing(state, name) if listed is not None else None,
    )  # fmt: skip
    run_stages([stage], stream=io.StringIO(), progress="never")


def _listing(state: _PassRun, name: str) -> str:
    """Where stage ``name``'s listing goes (``OUT/.crawlmill/stages/<name>.json``)."""
    return listing_path(os.path.join(os.path.abspath(state.spec.output), BOOKKEEPING), name)


def _merge_markers(
    rdir: ReduceDir, pdir: PassDir, parts: int
) -> tuple[dict[str, Any], list[tuple[int, str, str]]]:
    """The pass marker's facts from the partitions' markers (checking their tables agree),
    and the files they wrote with ``ctx.output`` as ``(partition, relpath, scratch path)``."""
    tables, counts, rows_in, rows, schema = [], {}, 0, 0, None
    rows_in_parts: list[int] = []
    written: list[tuple[int, str, str]] = []
    for k in range(parts):
        marker = reduce_done(rdir, k)
        if marker is None:
            raise RuntimeError(f"partition {k} of the reduce has no table")
        name = reduce_part_name(k)
        part_schema = _schema_of(os.path.join(pdir.path, name))
        if schema is not None and not part_schema.equals(schema):
            raise TypeError(
                f"the reduce returned tables of different schemas for partitions 0 and {k}: "
                f"{schema} / {part_schema}"
            )
        schema = part_schema
        tables.append([name, marker["size"]])
        rows_in_parts.append(marker["rows_in"])
        written += [
            (k, rel, os.path.join(rdir.outputs(k), f)) for rel, f, _ in marker.get("outputs") or []
        ]
        rows_in += marker["rows_in"]
        rows += marker["rows"]
        for label, k_count in marker.get("counts", {}).items():
            counts[label] = counts.get(label, 0) + k_count
    return {
        "rows_in": rows_in,
        "rows": rows,
        "size": sum(size for _, size in tables),
        "tables": tables,
        "rows_in_parts": rows_in_parts,
        "counts": counts,
    }, written


def _remove_tables(pdir: PassDir, keep: str | None = None) -> None:
    """Delete the table files (``table.arrow``, ``table-<p>.arrow``) an earlier, unfinished
    reduce of the pass left, but ``keep``."""
    with contextlib.suppress(OSError):
        for name in os.listdir(pdir.path):
            if name.startswith("table") and name.endswith(".arrow") and name != keep:
                with contextlib.suppress(OSError):
                    os.remove(os.path.join(pdir.path, name))


def _schema_of(path: str) -> Any:
    import pyarrow as pa

    with pa.memory_map(path, "r") as source:
        return pa.ipc.open_file(source).schema


def remove_other_passes(plan: PassPlan) -> None:
    """Delete the pass folders of ids this run's plan does not have (after a successful
    run)."""
    keep = {p.id for p in plan.passes}
    with contextlib.suppress(OSError):
        for name in os.listdir(plan.root):
            # a writer's shuffle keeps its own "<id>-shuffle" folder (core/run/shuffle/run.py)
            if name not in keep and not name.endswith("-shuffle"):
                path = os.path.join(plan.root, name)
                if os.path.isdir(path):
                    shutil.rmtree(path, ignore_errors=True)
