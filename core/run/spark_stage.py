"""Spark tasks of a run whose output root is a URL (``-o s3://bucket/out``): each task works in
a stage of its own on its worker's disk and keeps the store in step, so no task needs the
driver's disk (issue 22 item 2).

The driver runs the engine in a local stage of the store root (:mod:`crawlmill.core.storage_root`:
markers, collect tables, reduce parts and outputs as on a local root). A Spark worker on another
machine does not see that folder, so for each task of such a run (:func:`run_staged`, called by
:func:`crawlmill.core.run.spark_worker.run_one` in the Python worker):

1. a fresh **task stage** is pulled from the store into the worker's local folder
   (``SPARK_LOCAL_DIRS``, which Spark gives its Python workers; else the temp folder): the
   markers of the keys the payload names and the pass folders (``.crawlmill/passes/<id>/``:
   collect tables, reduce parts) it names a path in are downloaded (:func:`_needs`), the
   other markers and passes left out; every output object is a sparse placeholder of its
   size (as the driver's pull);
2. the payload (and the task function, and its extra arguments) are given the task stage in
   place of the driver's stage: every string that is the driver stage's path or starts with
   it is rewritten; the task runs there unchanged (commit, markers, ownership);
3. the task's marker is published as on the driver (write-then-publish: pending marker, files,
   marker); then every other file the task wrote or changed (a collect table, a reduce part,
   a shuffle partition's files) is uploaded and what it deleted is deleted on the store
   (:meth:`RemoteRoot.publish`); the task stage is removed;
4. the result, its log lines and a ``("stage", ...)`` event naming what was uploaded (with
   sizes) and deleted go back to the driver with the worker's paths turned back into the
   driver stage's.

On the driver, :func:`apply_events` takes those events before the result is used: bookkeeping
(``.crawlmill/``) the task uploaded is downloaded into the driver's stage, outputs become
placeholders of their size (no output byte is downloaded), and both are recorded as published,
so the end-of-run publish does not upload them again. Before it submits Spark jobs the driver
publishes its own stage (:func:`publish_driver`): files the driver wrote between jobs (a pass's
plan, a reduce's input split) reach the store before a task pulls.

Costs: each task lists the store root (one paginated listing: 1,000 keys a request on S3) and
downloads only what it needs: the markers of the keys its payload names (a convert task's
own) and the pass folders it names a path in (the tables it reads; a collect or reduce task's
own pass); other markers and passes are neither downloaded nor placeholdered (they were N
GETs a task, N x N for a run). The driver downloads the bookkeeping tasks write. A local output root is not staged: on a
cluster it must be on a disk every worker sees.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

from .. import storage
from ..output_paths import BOOKKEEPING
from ..storage_root import ACTIVE, PUBLISHED, STAGES_ENV, RemoteRoot, published_files

__all__ = ["STAGE_EVENT", "apply_events", "publish_driver", "remap", "run_staged", "stages"]

#: the event a staged task sends the driver: ``(STAGE_EVENT, driver stage, [(uploaded,
#: size)], [deleted], task stage)``.
STAGE_EVENT = "stage"
#: the record (in the stage's published folder) of what tasks uploaded, for the final publish.
_TASKS_RECORD = "_spark-tasks.json"


def stages() -> dict[str, str]:
    """The driver's stages of this run (``{driver stage: store URL}``), from
    :data:`~crawlmill.core.storage_root.STAGES_ENV` (shipped with the driver's variables)."""
    raw = os.environ.get(STAGES_ENV)
    if not raw:
        return {}
    try:
        found = json.loads(raw)
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def remap(obj: Any, old: str, new: str) -> Any:
    """``obj`` with every string that is ``old`` or starts with ``old/`` rewritten to start
    with ``new``, in dicts, lists, tuples, dataclasses and ``functools.partial`` arguments."""
    if isinstance(obj, str):
        if obj == old or obj.startswith(old + "/") or obj.startswith(old + os.sep):
            return new + obj[len(old) :]
        return obj.replace(old + "/", new + "/") if old + "/" in obj else obj
    if isinstance(obj, dict):
        return type(obj)((remap(k, old, new), remap(v, old, new)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(remap(v, old, new) for v in obj)
    if isinstance(obj, functools.partial):
        args = remap(obj.args, old, new)
        keywords = remap(dict(obj.keywords), old, new)
        return functools.partial(obj.func, *args, **keywords)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {}
        for f in dataclasses.fields(obj):
            if not f.init:
                continue
            value = getattr(obj, f.name)
            mapped = remap(value, old, new)
            if mapped is not value:
                changes[f.name] = mapped
        return dataclasses.replace(obj, **changes) if changes else obj
    return obj


def _mentions(obj: Any, old: str) -> bool:
    """True when a string of ``obj`` (as :func:`remap` walks it) names ``old`` or below."""
    if isinstance(obj, str):
        return obj == old or obj.startswith((old + "/", old + os.sep))
    if isinstance(obj, dict):
        return any(_mentions(k, old) or _mentions(v, old) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return any(_mentions(v, old) for v in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return any(_mentions(getattr(obj, f.name), old) for f in dataclasses.fields(obj))
    return False


def _strings(obj: Any) -> Iterator[str]:
    """Every string of ``obj`` (as :func:`remap` walks it)."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _strings(v)
    elif isinstance(obj, functools.partial):
        yield from _strings((obj.args, obj.keywords))
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from _strings(getattr(obj, f.name))


def _needs(stage: str, *task: Any) -> Callable[[str], bool]:
    """Which markers and passes' files a task pulls (``RemoteRoot.pull(wanted=...)``): the
    completion and pending markers of the keys its payload names (a convert task: its own),
    and the pass folders (``.crawlmill/passes/<id>/``) it names a path in (the tables it
    reads, the folder it collects into or reduces); not every marker of the run."""
    names = set(_strings(task))
    folders = set()
    for name in names:
        if not name.startswith((stage + "/", stage + os.sep)):
            continue
        parts = name[len(stage) + 1 :].replace(os.sep, "/").split("/")
        if parts[:2] == [BOOKKEEPING, "passes"] and len(parts) > 2:
            folders.add("/".join(parts[:3]) + "/")

    def wanted(rel: str) -> bool:
        parts = rel.split("/")
        if parts[1] == "passes":
            return any(rel.startswith(f) for f in folders)
        stem = parts[-1][: -len(".json")] if parts[-1].endswith(".json") else parts[-1]
        return stem in names or stem.split(":", 1)[-1] in names

    return wanted


def _scratch() -> str:
    """The worker's local folder for task stages: Spark's ``SPARK_LOCAL_DIRS`` (its first)."""
    dirs = os.environ.get("SPARK_LOCAL_DIRS", "")
    first = dirs.split(",")[0].strip()
    return first if first and os.path.isdir(first) else tempfile.gettempdir()


def _stat(path: str) -> list[int]:
    st = os.stat(path)
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def run_staged(
    call: Callable[[Any, Any, tuple], Any], fn: Any, payload: Any, args: tuple
) -> tuple[Any, list[tuple]]:
    """``call(fn, payload, args)`` in a task stage of the store root whose driver stage the
    payload names (module docstring); ``(result, events)`` with the driver's paths and the
    stage event. Without a staged root in the payload: ``call`` as it is, no events."""
    shipped = stages()
    named = [d for d in shipped if _mentions(payload, d)]
    if not named:
        return call(fn, payload, args), []
    driver_stage = named[0]
    scratch = tempfile.mkdtemp(prefix="crawlmill-task-", dir=_scratch())
    try:
        remote = RemoteRoot(shipped[driver_stage], scratch)
        remote.pull(passes=True, wanted=_needs(driver_stage, fn, payload, args))
        mine = remote.stage
        result = call(remap(fn, driver_stage, mine), remap(payload, driver_stage, mine),
                      remap(args, driver_stage, mine))  # fmt: skip
        before = set(remote.pulled) | set(published_files(mine))
        uploaded = remote.publish()
        present = _present(mine)
        sizes = [(rel, os.path.getsize(os.path.join(mine, *rel.split("/")))) for rel in uploaded]
        published = published_files(mine)
        sizes += [
            (rel, os.path.getsize(os.path.join(mine, *rel.split("/"))))
            for rel in sorted(published)
            if rel not in uploaded and rel in present and remote.pulled.get(rel) != published[rel]
        ]
        deleted = sorted(before - present)
        event = (STAGE_EVENT, driver_stage, sizes, deleted, mine)
        return remap(result, mine, driver_stage), [event]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _present(stage: str) -> set[str]:
    found = set()
    for dirpath, _, filenames in os.walk(stage):
        for name in filenames:
            found.add(os.path.relpath(os.path.join(dirpath, name), stage).replace(os.sep, "/"))
    return found


# -- driver side --------------------------------------------------------------------------------


def publish_driver() -> None:
    """Upload what the driver wrote in its stages since the last publish (before Spark jobs
    are submitted: their tasks pull from the store), recorded so it is not uploaded again."""
    for remote in list(ACTIVE.values()):
        uploaded = remote.publish()
        _record(remote.stage, {rel: _stat(_local(remote.stage, rel)) for rel in uploaded}, [])


def apply_events(events: list[tuple]) -> list[tuple]:
    """Take the stage events of a task's ``events`` into the driver's stage (module
    docstring); return the other events."""
    rest = []
    for event in events:
        if not (isinstance(event, tuple) and event and event[0] == STAGE_EVENT):
            rest.append(event)
            continue
        _, driver_stage, uploaded, deleted, _ = event
        remote = ACTIVE.get(driver_stage)
        if remote is None:
            continue
        done: dict[str, list[int]] = {}
        for rel, size in uploaded:
            local = _local(driver_stage, rel)
            os.makedirs(os.path.dirname(local), exist_ok=True)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(local)
            if rel.startswith(BOOKKEEPING + "/"):
                with storage.translated(f"{remote.url}/{rel}"):
                    remote.fs.get_file(f"{remote.base}/{rel}", local)
            else:
                with open(local, "wb") as fh:
                    fh.truncate(size)  # a placeholder: no output byte comes to the driver
            done[rel] = _stat(local)
        for rel in deleted:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(_local(driver_stage, rel))
        _record(driver_stage, done, deleted)
    return rest


def _local(stage: str, rel: str) -> str:
    return os.path.join(stage, *rel.split("/"))


def _record(stage: str, done: dict[str, list[int]], deleted: list[str]) -> None:
    folder = _local(stage, PUBLISHED)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, _TASKS_RECORD)
    found: dict[str, list[int]] = {}
    with contextlib.suppress(OSError, ValueError), open(path, encoding="utf-8") as fh:
        found = json.load(fh)
    found.update(done)
    for rel in deleted:
        found.pop(rel, None)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(found, fh)
