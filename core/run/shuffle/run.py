"""The engine's glue for a writer's sorted shuffle: a map pass, then a partition pass.

When the writer's ``shuffle()`` returns a :class:`~.spec.ShuffleSpec`, :func:`execute` runs
instead of the per-input tasks (``core/run/engine.py`` calls it at one place):

1. **Map pass**, one task per input (:func:`~.tasks.map_task`): the reader and the filters run as in
   a plain task (damage quarantined, every step counted) and each kept record is serialised
   (:mod:`.serial`), keyed by ``Writer.sort_key`` and partitioned by
   ``Writer.partition_of`` (hash) or put into one shared run set (range), then spilled
   within ``run.shuffle_memory`` bytes (``Spiller``: the external sort of
   :mod:`crawlmill.algorithms.sorted_runs`, where ``KeySampler`` and ``merge`` are too) as
   sorted run files under
   ``OUT/.crawlmill/passes/<pass-id>-shuffle/shuffle/`` (:func:`pass_id`). Its marker (the task's
   counters, its quarantine files) is written there, after its runs are closed. A shuffled
   record counts as *received* by the writer in the map task's counters.
2. **Boundaries** (range partitioning only): ``N - 1`` keys from the map tasks' key
   samples (``KeySampler``, written beside the runs; ``boundaries``),
   in the driver: no second read of the inputs.
3. **Partition pass**, one task per partition (:func:`~.tasks.partition_task`): the partition's runs
   merged in ``(key, input, seq)`` order (``merge``), each record decoded and
   handed to a fresh writer whose input is named ``part-NNNNN`` (so the plain layout writes
   ``part-NNNNN<ext>``), committed atomically with a completion marker as a plain task's.
   Its counters hold what the writer added and quarantined (``received`` 0: the map tasks
   counted the records) and the step counter ``shuffle merged``.

Every payload is plain JSON-able data run through ``Executor.map`` (workers rebuild the
registry from the spec), so any executor runs both passes. The accounting identity holds
over the run: the map tasks' ``read = received + dropped + quarantined``, the partition
tasks' ``added = written - received + writer-quarantined``, and the merged count must equal
the shuffled count (checked). A rerun skips map tasks whose marker and run files are intact
and partitions whose marker and files are (a run killed in either pass resumes); a hash
partition's run files go as soon as it is committed (a rerun's map markers need only the
unfinished partitions' runs), and its merge consumes them while it runs (an intermediate
merge replaces its inputs, the last merge frees what it has read: ``merge(consume=True)``),
so a run killed while a hash partition was being written maps again on the rerun (the
committed partitions are kept); range partitions share their runs, freed below partition j's
start once partitions 0 to j-1 are committed (:data:`FREED_NOTE` says j; a rerun in which one
of them is not committed maps again); after a successful run the rest of the run files are removed,
the map markers kept (a rerun then does nothing). Under ``run.resume: false``
(``--no-resume``) neither stage resumes: every map task and partition runs again, and what
an earlier run left in the pass folder is removed first. ``report.json``'s ``shuffle`` says the
run files' bytes and the peak scratch (runs and merge files alive at once).

An executor with a shuffle of its own (``executor.shuffle(spec)``: Spark's, in
:mod:`crawlmill.core.run.spark_shuffle`) runs both passes instead, with the same task functions
and payloads: the map tasks hand their entries to it (no run files; their markers say
``runs: null``) and each partition task gets its partition's entries in order from it. Its
entries do not outlive the run, so a rerun with unfinished partitions runs every map task
again; finished partitions are kept as locally.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from typing import Any

from crawlmill.algorithms.sorted_runs import runfile
from crawlmill.algorithms.sorted_runs.merge import (
    boundaries,
    free_below,
    key_range,
    partition_runs,
    read_samples,
)
from crawlmill.algorithms.sorted_runs.runfile import MAGIC as RUN_MAGIC
from crawlmill.algorithms.sorted_runs.spill import partition_folder

from ...contract import Shuffling, declares_collect, implements, shuffle_methods_missing
from ...messages import Marker, TaskStatus
from ...shuffle_spec import ShuffleSpec
from ...spec import PipelineSpec
from ...stats import filter_labels
from ..convert import (
    RunState,
    crashed,
    executor_for,
    record_result,
    run_passes_first,
    stop_at_failed_check,
    task_payload,
)
from ..executor import interruptible
from ..outputs import OutputRoot, write_json_atomic
from ..stage import Outcome, Stage, StageRun, drop_listings, listing_path, run_stages
from .serial import VERSION as SERIAL_VERSION
from .tasks import SCRATCH_NOTE, SHUFFLE_STEP, map_marker_path, map_task, partition_task

__all__ = ["DEFAULT_MEMORY", "execute", "map_task", "partition_task", "shuffle_of"]

#: ``run.shuffle_memory`` when the spec has none: bytes one map task buffers.
DEFAULT_MEMORY = 256 * 1024 * 1024
#: range partitioning: the pass folder's note of the first partition the shared runs still
#: serve (the bytes before its start are freed once every partition before it is committed).
FREED_NOTE = "freed.json"


def shuffle_of(writer: Any) -> ShuffleSpec | None:
    """The writer instance's shuffle (``None``: it declares none)."""
    if not implements(writer, Shuffling):
        return None
    spec = writer.shuffle()
    if spec is not None and not isinstance(spec, ShuffleSpec):
        raise TypeError(f"{type(writer).__name__}.shuffle() returned {spec!r}, not a ShuffleSpec")
    return spec


def _check_writer(writer: Any, shuffle: ShuffleSpec) -> None:
    """A writer that declares a shuffle has what the passes call, and no collect step (its
    records reach it merged from every input, so no per-input ordinal names them)."""
    name = getattr(writer, "name", type(writer).__name__)
    if declares_collect(type(writer)):
        raise ValueError(
            f"writer {name!r} declares both a shuffle and a collect step; a shuffled writer "
            "cannot have a collect step"
        )
    missing = shuffle_methods_missing(writer, shuffle.partitioning)
    if missing:
        raise TypeError(
            f"writer {name} declares a shuffle but has no {' or '.join(missing)}(record...)"
        )


def shuffle_memory(spec: PipelineSpec) -> int:
    """The map tasks' memory bound (``run.shuffle_memory``)."""
    return int(getattr(spec.run, "shuffle_memory", DEFAULT_MEMORY))


def pass_folder(root: str, pid: str) -> str:
    """``OUT/.crawlmill/passes/<pass-id>-shuffle``: everything the shuffle keeps."""
    return os.path.join(OutputRoot(root).meta, "passes", f"{pid}-shuffle")


# -- the driver --------------------------------------------------------------------------


def execute(r: RunState) -> tuple[dict[str, Any] | None, KeyboardInterrupt | None] | None:
    """Run the shuffle's passes for the engine's run ``r`` when its writer declares a
    shuffle; ``None`` when it does not (the engine then runs its per-input tasks). Returns
    the damage that stopped an ``on_error: fail`` run and an interruption to re-raise."""
    writer = r.pipeline.writer.instantiate()
    try:
        shuffle = shuffle_of(writer)
        if shuffle is None:
            return None
        _check_writer(writer, shuffle)
    except (TypeError, ValueError) as exc:  # a writer plugin's bug: the run fails, says why
        r.report.failures.append({"input": None, "error": str(exc)})
        print(f"crawlmill: error: {exc}", file=r.stream)
        return None, None
    drop_listings(r.root.meta, {"shuffle-map", "shuffle-partition", *r.passes.stage_names()})
    try:
        with interruptible():
            damaged = stop_at_failed_check(r.spec, r.planned)
            # the collect/reduce passes first: the map tasks' filters read their tables
            if damaged is None and run_passes_first(r):
                damaged = _passes(r, shuffle)
    except KeyboardInterrupt as exc:
        r.completed.clear()
        r.report.inputs_done = 0
        r.report.failures.append({"input": None, "error": f"interrupted ({str(exc) or 'SIGINT'})"})
        return None, exc
    return damaged, None


def _stage(r: RunState, name: str, session: Any, **kw: Any) -> Stage:
    """A stage of the shuffle named ``name`` (its listing ``OUT/.crawlmill/stages/<name>.json``),
    run on the executor's shuffle ``session`` (its ``executor``, closed by the caller) or
    on the run's executor."""
    if session is not None:
        executor = session.executor
        make = lambda: executor  # noqa: E731
    else:
        make = lambda: executor_for(r.spec, r.registry, r.todo)  # noqa: E731
    listing = listing_path(OutputRoot(r.spec.output).meta, name)
    return Stage(name=name, executor=make, listing=listing, **kw)


def _executor_shuffle(r: RunState, shuffle: ShuffleSpec) -> Any:
    """The shuffle of the run's executor when it has one of its own (``Executor.shuffle``,
    e.g. Spark's), else ``None`` (the local shuffle: run files under the output root)."""
    executor = executor_for(r.spec, r.registry, r.todo)
    opener = getattr(executor, "shuffle", None)
    if not callable(opener):
        executor.close()
        return None
    return opener(shuffle)


def pass_id(r: RunState, shuffle: ShuffleSpec) -> str:
    """What the shuffle's files depend on, hashed: the pipeline fingerprint, the shuffle and
    every input (path, size, modification time). Not the memory bound: the files do not
    depend on it."""
    inputs = []
    for p in r.planned:
        try:
            mtime = os.stat(p.input.path).st_mtime_ns
        except OSError:
            mtime = None
        inputs.append([os.path.abspath(p.input.path), p.size, mtime])
    data = {
        "fingerprint": r.fingerprint,
        "passes": r.passes.salt,  # the tables the map tasks' filters read
        "shuffle": [shuffle.partitions, shuffle.partitioning],
        "inputs": inputs,
        "formats": [SERIAL_VERSION, RUN_MAGIC.hex()],
    }
    blob = json.dumps(data, sort_keys=True).encode("utf-8", "surrogateescape")
    return hashlib.sha256(blob).hexdigest()[:16]


def _passes(r: RunState, shuffle: ShuffleSpec) -> dict[str, Any] | None:
    """Map pass, boundaries, partition pass; fills ``r.completed`` (the map markers) and
    adds the partition tasks' counters and outputs to the report. A pass's finished tasks
    (their markers and files intact) are not redone."""
    keys = [f"shuffle-{pass_id(r, shuffle)}-p{i:05d}" for i in range(shuffle.partitions)]
    if len(_finished_partitions(r, keys)) == len(keys):
        return _shuffle_passes(r, shuffle, None)  # nothing to shuffle: no executor's shuffle
    session = _executor_shuffle(r, shuffle)
    try:
        return _shuffle_passes(r, shuffle, session)
    finally:
        if session is not None:
            session.close()


def _shuffle_passes(r: RunState, shuffle: ShuffleSpec, session: Any) -> dict[str, Any] | None:
    """:func:`_passes` with the executor's shuffle ``session`` (``None``: the local one): the
    map stage and the partition stage, one graph (the partition stage depends on the map
    stage). Each resumes by its commit rule: a map task whose marker and files are intact
    (an executor's shuffle keeps no entries across runs, so with one every map task runs
    again), a partition whose marker and files are."""
    pid = pass_id(r, shuffle)
    folder = pass_folder(r.spec.output, pid)
    os.makedirs(os.path.join(folder, "map"), exist_ok=True)
    _drop_temp_files(folder)  # half-written runs of a killed run
    keys = [f"shuffle-{pid}-p{i:05d}" for i in range(shuffle.partitions)]
    _describe(r, shuffle, pid, folder, keys)
    done = _finished_partitions(r, keys)
    _forget_freed_runs(folder, done)
    spec_data = r.spec.model_dump(mode="json")
    ended: dict[str, Any] = {}
    mapped = _map_stage(r, shuffle, folder, spec_data, session, set(done), ended,
                        need_runs=len(done) < len(keys))  # fmt: skip
    writing = _partition_stage(r, shuffle, folder, spec_data, keys, session, ended)
    runs = run_stages([mapped, writing], stream=r.stream, progress=r.spec.run.progress)
    if not ended.get("mapped"):
        _abandon(r, "the shuffle's map pass did not complete: no partition was written")
        return runs["shuffle-map"].damage
    return _partitions_written(r, shuffle, folder, keys, runs["shuffle-partition"], ended)


def _map_stage(
    r: RunState,
    shuffle: ShuffleSpec,
    folder: str,
    spec_data: dict[str, Any],
    session: Any,
    done: set[int],
    ended: dict[str, Any],
    *,
    need_runs: bool,
) -> Stage:
    """The map stage: one task per input (``r.todo``); its commit rule: the task's marker
    of this run and (locally, while a partition is not finished) its run files intact.
    ``ended["mapped"]``: every input mapped, no failure, no damage (else no partition is
    written)."""
    report = r.report
    count = len(r.planned)
    tasks = list(r.todo)
    local = session is None
    common = {
        "folder": folder,
        "partitions": shuffle.partitions,
        "partitioning": shuffle.partitioning,
        "memory": shuffle_memory(r.spec),
    }
    replaceable = r.checked.replaceable if r.checked is not None else {}
    payloads = [
        {
            "task": task_payload(
                spec_data, p, key, r.fingerprint, count, replaceable.get(p.input.index),
                r.passes.tables,
            ).to_dict(),
            **common,
        }
        for p, key in tasks
    ]  # fmt: skip

    def map_done(i: int) -> Marker | None:  # the map stage's commit rule
        runs = need_runs and local
        return _finished_map(folder, tasks[i][1], r.fingerprint, shuffle, need_runs=runs, done=done)

    resume = local and r.spec.run.resume  # --no-resume: every map task runs again

    def prepare() -> None:  # what killed or older attempts left, no finished task owns
        finished = {key for i, (_, key) in enumerate(tasks) if resume and map_done(i) is not None}
        _drop_unfinished(folder, finished | {m.key for m in r.completed.values()})

    def record(outcome: Outcome, log: Any) -> None:
        p, key = tasks[outcome.index]
        result = outcome.result
        if outcome.error is not None:  # its worker died, or the driver cannot confirm it
            log(f"crawlmill: task failed: {p.input.path}: {outcome.error}")
            result = crashed(p, key, count, outcome.error)
        record_result(result, p, report, r.completed)

    def finish(run: StageRun) -> None:
        for i in sorted(run.resumed):
            r.completed[tasks[i][0].input.index] = run.done[i]
        report.inputs_skipped += len(run.resumed)
        seen = len(r.completed) + len(report.failures)
        report.inputs_cancelled += max(0, len(tasks) - seen)
        ended["mapped"] = (
            run.damage is None and not report.failures and len(r.completed) == len(r.planned)
        )

    return _stage(
        r, "shuffle-map", session, payloads=payloads, fn=map_task, done=map_done,
        keys=[k for _, k in tasks], sizes=[p.size or 0 for p, _ in tasks], record=record,
        runner=session.map if session is not None else None, resume=resume,
        label="shuffle map", markers=[map_marker_path(folder, k) for _, k in tasks],
        names=[p.input.relpath for p, _ in tasks], prepare=prepare, finish=finish,
        started=[os.path.join(r.root.meta, "tmp", k) for _, k in tasks],
    )  # fmt: skip


def _describe(r: RunState, shuffle: ShuffleSpec, pid: str, folder: str, keys: list[str]) -> None:
    """``shuffle.json`` in the pass folder: the map tasks (input, key) and the partition
    tasks' keys, what ``crawlmill status`` reads (:mod:`crawlmill.core.run.status`)."""
    maps = [(p, key) for p, key in r.todo] + [
        (p, r.completed[p.input.index].key) for p in r.planned if p.input.index in r.completed
    ]
    info = {
        "id": pid,
        "partitions": shuffle.partitions,
        "partitioning": shuffle.partitioning,
        "inputs": [
            {"index": p.input.index, "input": p.input.relpath, "path": p.input.path, "key": k}
            for p, k in sorted(maps, key=lambda m: m[0].input.index)
        ],
        "partition_keys": keys,
    }
    write_json_atomic(os.path.join(folder, "shuffle.json"), info)


def _drop_temp_files(folder: str) -> None:
    """Remove the dot-named temporary files (unfinished runs) below ``folder``."""
    for where, _dirs, names in os.walk(folder):
        for name in names:
            if name.startswith("."):
                with contextlib.suppress(OSError):
                    os.remove(os.path.join(where, name))


def _finished_map(
    folder: str,
    key: str,
    fingerprint: str,
    shuffle: ShuffleSpec,
    *,
    need_runs: bool,
    done: set[int] = frozenset(),  # type: ignore[assignment]
) -> Marker | None:
    """The marker of a finished map task whose files are intact (``need_runs``: its run
    files and samples too, except the runs of the hash partitions in ``done``: removed
    once their partition was committed), or ``None``."""
    path = map_marker_path(folder, key)
    try:
        with open(path, encoding="utf-8") as fh:
            marker = Marker.from_dict(json.load(fh))
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    if marker.key != key or marker.fingerprint != fingerprint:
        return None
    if need_runs:
        if marker.notes.get("runs") is None:  # its entries went to an executor's shuffle
            return None
        files = list(marker.notes.get("runs") or [])
        if shuffle.partitioning == "hash" and done:
            gone = {f"shuffle/p{i:05d}/" for i in done}
            files = [f for f in files if not _under(f, gone)]
        if shuffle.partitioning == "range":
            files.append(marker.notes.get("samples"))
        for entry in files:
            if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
                return None
            full = os.path.join(folder, *entry["path"].split("/"))
            if os.path.basename(full).startswith(".") or _size(full) != entry.get("size"):
                return None
    return marker


def _under(entry: Any, folders: set[str]) -> bool:
    """Whether a marker's file ``entry`` lies in one of ``folders`` (``shuffle/pNNNNN/``)."""
    path = entry.get("path") if isinstance(entry, dict) else None
    return isinstance(path, str) and path[: path.rfind("/") + 1] in folders


def _run_bytes(r: RunState, partitions: int) -> tuple[int, dict[int, int]]:
    """The bytes of the map tasks' run and sample files that exist now: in all, and per
    partition folder (from the map markers' lists)."""
    total, per = 0, dict.fromkeys(range(partitions), 0)
    for marker in r.completed.values():
        files = list(marker.notes.get("runs") or []) + [marker.notes.get("samples")]
        for entry in files:
            if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
                continue
            size = entry.get("size") or 0
            parts = entry["path"].split("/")
            if parts[0] == "shuffle" and len(parts) == 3 and parts[1][1:].isdigit():
                if int(parts[1][1:]) not in per:
                    continue
                per[int(parts[1][1:])] += size
            total += size
    return total, per


def _size(path: str) -> int | None:
    try:
        return os.path.getsize(path)
    except OSError:
        return None


def _drop_unfinished(folder: str, finished: set[str]) -> None:
    """Remove every run file, sample file and map marker below ``folder`` that no finished
    map task (``finished``: their keys) owns: what killed or older attempts left."""
    for sub in ("shuffle", "samples", "map"):
        for where, _dirs, names in os.walk(os.path.join(folder, sub)):
            for name in names:
                owner = name.split("-", 1)[0] if sub == "shuffle" else name.rsplit(".", 1)[0]
                if owner not in finished:
                    with contextlib.suppress(OSError):
                        os.remove(os.path.join(where, name))
    shutil.rmtree(os.path.join(folder, "scratch"), ignore_errors=True)


def _finished_partitions(r: RunState, keys: list[str]) -> dict[int, Marker]:
    """Partitions whose completion marker matches this run and whose files are intact
    (none under ``run.resume: false``: every partition is redone)."""
    root = OutputRoot(r.spec.output)
    done: dict[int, Marker] = {}
    if not r.spec.run.resume:
        return done
    for i, key in enumerate(keys):
        marker = _partition_done(root, key, r.fingerprint)
        if marker is not None:
            done[i] = marker
    return done


def _partition_done(root: OutputRoot, key: str, fingerprint: str) -> Marker | None:
    """The partition stage's commit rule: the completion marker of ``key`` of this run, its
    files present with their sizes (else ``None``)."""
    data = root.read_marker(key)
    if data is None or data.get("fingerprint") != fingerprint:
        return None
    try:
        marker = Marker.from_dict(data)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None
    if all(_size(os.path.join(root.path, *o.path.split("/"))) == o.size for o in marker.files):
        return marker
    return None


def _samples(folder: str) -> Iterator[tuple[bytes, int]]:
    """Every map task's key samples (range partitioning)."""
    names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    for name in names:
        if name.endswith(".run") and not name.startswith("."):
            yield from read_samples(os.path.join(folder, name))


def _abandon(r: RunState, why: str) -> None:
    """Nothing of the inputs reached an output: they are not counted as done."""
    r.completed.clear()
    r.report.inputs_done = 0
    r.report.failures.append({"input": None, "error": why})
    print(f"crawlmill: error: {why}", file=r.stream)


def _partition_stage(
    r: RunState,
    shuffle: ShuffleSpec,
    folder: str,
    spec_data: dict[str, Any],
    keys: list[str],
    session: Any,
    ended: dict[str, Any],
) -> Stage:
    """The partition stage: one task per partition; its commit rule: the partition's
    completion marker of this run with its files intact. Its payloads are made once the map
    stage is done (range partitioning: the boundaries from the map tasks' key samples);
    ``ended`` gets the committed markers (``markers``) and the failures (``failed``)."""
    report, n = r.report, shuffle.partitions
    root = OutputRoot(r.spec.output)
    local = session is None
    drop = local and shuffle.partitioning == "hash"
    share = local and shuffle.partitioning == "range"  # one run set: freed as a prefix
    committed: set[int] = set()
    freed: dict[str, int] = {}
    bounds: list[bytes] = []
    todo: list[int] = []
    scratch = {"run_bytes": 0, "alive": 0, "peak": 0, "top": 0, "workers": 1}
    per: dict[int, int] = {}
    markers: dict[int, Marker] = ended.setdefault("markers", {})
    ended["failed"] = 0

    def partition_done(i: int) -> Marker | None:  # the partition stage's commit rule
        return _partition_done(root, keys[i], r.fingerprint)

    def prepare() -> None:
        if not ended.get("mapped"):  # the map stage ended with a failure: nothing to write
            stage.payloads = []
            return
        if shuffle.partitioning == "range":
            bounds[:] = boundaries(_samples(os.path.join(folder, "samples")), n)
            write_json_atomic(os.path.join(folder, "boundaries.json"), [b.hex() for b in bounds])
        older = _older_partition_markers(root, keys)
        ended["older"] = older
        replaceable = sorted(  # files of older markers of this partition (other inputs then)
            {o["path"] for m in older.values() for o in m.get("outputs", []) if "path" in o}
        )
        stage.payloads = [_partition_payload(r, shuffle, spec_data, folder, keys[i], i, bounds,
                                             replaceable) for i in range(n)]  # fmt: skip
        # scratch: the run files alive (a committed hash partition's are removed at once)
        # and the merges' intermediate files, measured where they are written and removed
        total, found = _run_bytes(r, n) if local else (0, {})
        per.update(found)
        if drop and r.spec.run.resume:  # removed when a former run committed them
            total -= sum(per[i] for i in range(n) if partition_done(i) is not None)
        if share and r.spec.run.resume:
            committed.update(i for i in range(n) if partition_done(i) is not None)
        scratch.update(run_bytes=total, alive=total, peak=total)

    def starting(which: list[int]) -> None:
        todo[:] = which
        scratch["workers"] = max(1, min(int(r.spec.run.workers), len(which)))

    def written(outcome: Outcome, log: Any) -> None:
        i, result = outcome.index, outcome.result
        if outcome.confirmed:
            markers[i] = result.marker
            merge_peak = int(result.marker.notes.get(SCRATCH_NOTE) or 0)
            scratch["top"] = max(scratch["top"], merge_peak)
            # this merge's files beside every run still alive; each other worker's merge
            # at most as large as the largest so far (an upper bound when workers > 1)
            alive = scratch["alive"] + merge_peak + (scratch["workers"] - 1) * scratch["top"]
            scratch["peak"] = max(scratch["peak"], alive)
            if drop:
                _drop_partition_runs(folder, i)
                scratch["alive"] -= per[i]
            elif share:
                committed.add(i)
                scratch["alive"] -= _free_committed_ranges(folder, bounds, committed, freed)
            return
        if outcome.error is None and result.status is TaskStatus.CANCELLED:
            return
        ended["failed"] += 1
        error = outcome.error if outcome.error is not None else result.error
        report.failures.append(
            {"input": f"part-{i:05d}", "error": f"shuffle partition {i}: {error or '?'}"}
        )
        log(f"crawlmill: shuffle partition {i} failed: {error}")

    def finish(run: StageRun) -> None:
        markers.update({i: run.done[i] for i in run.resumed})
        if local and not run.blocked and ended.get("mapped"):
            report.shuffle = {
                "run_bytes": scratch["run_bytes"],
                "peak_scratch_bytes": scratch["peak"],
                "compressed_runs": runfile.COMPRESS,
            }

    start = None
    if session is not None:

        def start(fn: Any, items: list[dict[str, Any]]) -> Iterator[tuple[int, Any]]:
            return session.partitions(fn, items, todo, bounds)

    stage = _stage(
        r, "shuffle-partition", session, payloads=[None] * n, fn=partition_task,
        done=partition_done, keys=keys, sizes=[0] * n, record=written, runner=start,
        label="shuffle write", markers=[os.path.join(root.meta, "done", f"{k}.json") for k in keys],
        resume=r.spec.run.resume,
        names=[f"part-{i:05d}" for i in range(n)], depends=("shuffle-map",), prepare=prepare,
        started=[os.path.join(root.meta, "tmp", k) for k in keys],
        starting=starting, finish=finish,
    )  # fmt: skip
    return stage


def _partition_payload(
    r: RunState,
    shuffle: ShuffleSpec,
    spec_data: dict[str, Any],
    folder: str,
    key: str,
    i: int,
    bounds: list[bytes],
    replaceable: list[str],
) -> dict[str, Any]:
    """Partition ``i``'s task payload."""
    lo, hi = key_range(bounds, i) if shuffle.partitioning == "range" else (None, None)
    return {
        "spec": spec_data,
        "key": key,
        "fingerprint": r.fingerprint,
        "folder": folder,
        "partition": i,
        "partitions": shuffle.partitions,
        "partitioning": shuffle.partitioning,
        "lo": None if lo is None else lo.hex(),
        "hi": None if hi is None else hi.hex(),
        "replaceable": replaceable,
    }


def _partitions_written(
    r: RunState,
    shuffle: ShuffleSpec,
    folder: str,
    keys: list[str],
    run: StageRun,
    ended: dict[str, Any],
) -> dict[str, Any] | None:
    """After the partition stage: every partition committed and the merged count equal to
    the shuffled one, or the run abandoned; the report's counters and outputs, in partition
    order; older partitions' files and the shuffle's bulk removed."""
    report, n = r.report, shuffle.partitions
    root = OutputRoot(r.spec.output)
    markers: dict[int, Marker] = ended["markers"]
    shuffled = sum(m.stats.received for m in r.completed.values())
    labels = filter_labels([f.name for f in r.pipeline.filters])
    if ended["failed"] or run.damage is not None or len(markers) < n:
        _abandon(r, f"{n - len(markers)} of {n} shuffle partition task(s) did not complete")
        return run.damage
    merged = 0
    for i in range(n):  # in partition order: the report's outputs and counters
        marker = markers[i]
        root.drop_pending(marker.key)
        report.add_task(marker.stats, labels)
        report.outputs.extend(o.path for o in marker.outputs)
        report.quarantine_files.extend(q.path for q in marker.quarantine)
        merged += marker.stats.counts.get(SHUFFLE_STEP, {}).get("merged", 0)
    if merged != shuffled:
        report.failures.append(
            {"input": None, "error": f"shuffle lost records: {shuffled} shuffled, {merged} merged"}
        )
        return None
    claimed = {o.path for m in markers.values() for o in m.files}
    for key, marker in ended["older"].items():  # partitions of older runs: superseded
        root.remove_superseded(key, marker, claimed, drop_marker=True)
    _keep_markers_only(folder)
    return None


def _older_partition_markers(root: OutputRoot, keys: list[str]) -> dict[str, dict[str, Any]]:
    """Completion markers of shuffle partitions of other passes (other inputs or shuffles
    of this pipeline), by key."""
    current = set(keys)
    return {
        key: marker
        for key, marker in root.markers().items()
        if key.startswith("shuffle-") and key not in current
    }


def _drop_partition_runs(folder: str, partition: int) -> None:
    """Remove a committed hash partition's run files and merge scratch (no other partition
    reads them; a rerun's map markers no longer list them as needed)."""
    shutil.rmtree(partition_folder(os.path.join(folder, "shuffle"), partition), ignore_errors=True)
    shutil.rmtree(os.path.join(folder, "scratch", f"p{partition:05d}"), ignore_errors=True)


def _free_committed_ranges(
    folder: str, bounds: list[bytes], committed: set[int], freed: dict[str, int]
) -> int:
    """Range partitioning: with partitions ``0..j-1`` all committed, free the shared runs'
    bytes below partition ``j``'s start (no partition left reads them), noting ``j`` in
    :data:`FREED_NOTE` first; the bytes freed."""
    j = 0
    while j in committed:
        j += 1
    if j == 0 or j > len(bounds):  # nothing committed from 0 on; or every partition is
        return 0
    write_json_atomic(os.path.join(folder, FREED_NOTE), {"below_partition": j})
    return free_below(partition_runs(os.path.join(folder, "shuffle"), 0), bounds[j - 1], freed)


def _forget_freed_runs(folder: str, done: dict[int, Marker]) -> None:
    """Range partitioning: runs freed below partition ``j`` (:data:`FREED_NOTE`) cannot serve
    a partition before ``j`` that is not committed now (its files removed since, or
    ``--no-resume``): remove them, so the map tasks run again."""
    path = os.path.join(folder, FREED_NOTE)
    try:
        with open(path, encoding="utf-8") as fh:
            below = int(json.load(fh)["below_partition"])
    except (OSError, ValueError, KeyError, TypeError):
        return
    if any(i not in done for i in range(below)):
        shutil.rmtree(os.path.join(folder, "shuffle"), ignore_errors=True)
        with contextlib.suppress(OSError):
            os.remove(path)


def _keep_markers_only(folder: str) -> None:
    """After a successful shuffle: remove its run files, samples and scratch (the bulk) and
    the folders of other passes; the map markers stay, so a rerun skips the whole shuffle."""
    for name in ("shuffle", "samples", "scratch"):
        shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
    with contextlib.suppress(OSError):
        os.remove(os.path.join(folder, FREED_NOTE))
    parent = os.path.dirname(folder)
    for name in os.listdir(parent):
        if name.endswith("-shuffle") and os.path.join(parent, name) != folder:
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)
