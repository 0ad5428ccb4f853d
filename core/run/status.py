"""``crawlmill status OUT``: what the run using an output root is doing, or what the last one
did, read from the root's bookkeeping files only (never the lock, so it works while a run
holds it).

Sources: ``.crawlmill/run.json`` (exists while a run uses the root: pid, host, start;
left behind by a killed run), ``report.json`` (the last finished run's accounting and
failures) and the **stage listings** ``.crawlmill/stages/<name>.json`` that
:func:`~crawlmill.core.run.stage.run_stages` writes as each stage starts and ends: every
kind of stage (per-input conversion, a pass's collect, split and reduce, a shuffle's map and
partition) is read through one code path, each task done when the marker its listing names
is there, failed when the listing names its error, running while the run is alive and the
task's sign of life (its temp folder or start marker) is there.

A root written before stage listings existed (no ``stages/``) is read as before, through
each mechanism's own files: each pass's folder below ``.crawlmill/passes/``
(:mod:`crawlmill.core.run.passes`), the final pass's completion markers (``done/``) and temp
folders (``tmp/<key>``), and a sorted shuffle's ``shuffle.json`` (its map and partition
passes). There a task or reduce counts as *running* while its process is alive (same host)
or, on another host, while its heartbeat is recent.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from .json_scan import scan_json_object
from .orphans import orphans_of_root
from .outputs import BOOKKEEPING, OutputRoot
from .pass_tasks import HEARTBEAT_SECONDS, PassDir, read_json, task_done
from .passes import pass_done, run_json_path
from .reduce_tasks import ReduceDir, reduce_done

__all__ = ["format_status", "read_status"]

#: a heartbeat older than this (other hosts) means the task is gone.
STALE_SECONDS = 6 * HEARTBEAT_SECONDS


def _alive(stamp: dict[str, Any] | None) -> bool:
    """Is the process a start marker names still running?"""
    if not stamp:
        return False
    if stamp.get("host") != socket.gethostname():
        beat = stamp.get("heartbeat") or stamp.get("started") or 0
        return time.time() - float(beat) < STALE_SECONDS
    try:
        os.kill(int(stamp["pid"]), 0)
    except PermissionError:
        return True
    except (OSError, KeyError, TypeError, ValueError):
        return False
    return True


def _order(info: dict[str, Any]) -> tuple[int, int]:
    loc = str(info.get("component", ""))
    if loc == "writer":
        return (1, 0)
    try:
        return (0, int(loc[len("filters[") : -1]))
    except ValueError:
        return (2, 0)


def _pass_status(info: dict[str, Any], run_alive: bool) -> dict[str, Any]:
    pdir = PassDir(info["dir"])
    described = read_json(pdir.info) or {}
    inputs = described.get("inputs") or []
    tasks: dict[str, int] = {"total": len(inputs), "done": 0, "running": 0, "failed": 0}
    failed, running = [], []
    for i, relpath in enumerate(inputs):
        if task_done(pdir, i) is not None:
            tasks["done"] += 1
            continue
        why = read_json(pdir.task_file(i, "failed.json"))
        if why is not None:
            tasks["failed"] += 1
            failed.append({"input": relpath, "error": why.get("error", "?")})
            continue
        stamp = read_json(pdir.task_file(i, "start.json"))
        if run_alive and _alive(stamp):
            tasks["running"] += 1
            running.append({"input": relpath, "pid": stamp.get("pid"), "host": stamp.get("host")})
    tasks["pending"] = tasks["total"] - tasks["done"] - tasks["running"] - tasks["failed"]
    done = pass_done(pdir)
    reduce_failed = read_json(pdir.reduce_failed)
    if done is not None:
        state = "done"
    elif reduce_failed is not None:
        state = "failed"
        failed.append({"input": None, "error": reduce_failed.get("error", "?")})
    elif failed:
        state = "failed"
    elif run_alive and _alive(read_json(pdir.reduce_start)):
        state = "reducing"
    elif run_alive:
        state = "collecting" if running or tasks["done"] else "pending"
    else:
        started = tasks["done"] or os.path.exists(pdir.reduce_start)
        state = "interrupted" if started else "pending"
    entry = {
        "name": info.get("name"),
        "component": info.get("component"),
        "id": info.get("id"),
        "state": state,
        "tasks": tasks,
        "running": running,
        "failed": failed,
    }
    if done is not None:
        entry["rows"] = done.get("rows")
        entry["partitions"] = len(done.get("tables") or [None])
    else:
        split = _split_reduce(pdir)
        if split is not None:
            entry["reduce"] = split
    return entry


def _split_reduce(pdir: PassDir) -> dict[str, int] | None:
    """How far a reduce split into partitions came (``None``: not split, or not begun)."""
    rdir = ReduceDir(pdir)
    plan = read_json(rdir.plan)
    if plan is None or not isinstance(plan.get("partitions"), int):
        return None
    parts = plan["partitions"]
    return {
        "partitions": parts,
        "done": sum(reduce_done(rdir, k) is not None for k in range(parts)),
    }


def _passes(meta: str, run: dict[str, Any] | None) -> list[dict[str, Any]]:
    root = os.path.join(meta, "passes")
    if run is not None:  # the folder where it is now (the root may have moved)
        return [{**p, "dir": os.path.join(root, str(p.get("id")))} for p in run.get("passes") or []]
    found = []
    for name in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        info = read_json(os.path.join(root, name, "pass.json"))
        if info is not None:
            found.append({**info, "dir": os.path.join(root, name)})
    return sorted(found, key=_order)


def _final(meta: str, run: dict[str, Any] | None, alive: bool, report: dict | None) -> dict:
    """The final pass's tasks: from ``run.json`` while a run is there, else the report."""
    tasks = {"total": 0, "done": 0, "running": 0, "failed": 0, "pending": 0}
    failed: list[dict[str, Any]] = []
    running: list[dict[str, Any]] = []
    if run is not None:
        inputs = {str(i["index"]): i for i in run.get("inputs") or []}
        keys = run.get("keys") or {}
        tasks["total"] = len(inputs)
        for index, key in keys.items():
            relpath = inputs.get(index, {}).get("input")
            if os.path.exists(os.path.join(meta, "done", f"{key}.json")):
                tasks["done"] += 1
            elif alive and os.path.isdir(os.path.join(meta, "tmp", key)):
                tasks["running"] += 1
                running.append({"input": relpath})
    elif report is not None:
        tasks["total"] = int(report.get("inputs") or 0)
        tasks["done"] = int(report.get("inputs_done") or 0) + int(report.get("inputs_skipped") or 0)
        for failure in report.get("failures") or []:
            if _interruption(failure):
                continue  # the run's state, not a failed task
            if failure.get("input"):
                tasks["failed"] += 1
            failed.append({"input": failure.get("input"), "error": failure.get("error", "?")})
    tasks["pending"] = max(0, tasks["total"] - tasks["done"] - tasks["running"] - tasks["failed"])
    return {"tasks": tasks, "running": running, "failed": failed}


def _interruption(failure: dict[str, Any]) -> str | None:
    """The reason of a run's interruption (Ctrl-C, SIGTERM) recorded as a failure without an
    input, e.g. ``interrupted (SIGINT)``; ``None`` for any other failure."""
    error = str(failure.get("error") or "")
    return error if not failure.get("input") and error.startswith("interrupted") else None


def _shuffle_info(meta: str, run: dict[str, Any] | None) -> dict[str, Any] | None:
    """The ``shuffle.json`` of the run's shuffle: the one whose map keys are the keys of
    ``run.json`` while a run is there, else the newest one; ``None`` without a shuffle."""
    root = os.path.join(meta, "passes")
    found = []
    for name in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        path = os.path.join(root, name, "shuffle.json")
        info = read_json(path) if name.endswith("-shuffle") else None
        try:
            when = os.path.getmtime(path)
        except OSError:  # removed meanwhile (a run ending)
            continue
        if info is not None:
            found.append((when, {**info, "dir": os.path.join(root, name)}))
    if run is not None:
        keys = set((run.get("keys") or {}).values())
        found = [f for f in found if keys & {i.get("key") for i in f[1].get("inputs") or []}]
    return max(found, key=lambda f: f[0])[1] if found else None


def _shuffle_tasks(
    names: list[str],
    finished: list[str],
    running_dirs: list[str],
    alive: bool,
    failures: list[dict[str, Any]],
) -> dict[str, Any]:
    """One pass of a shuffle: task ``names`` with their marker files (``finished``) and the
    temp folders a running task holds; ``failures`` (the last report's) name a task by any
    of its names."""
    tasks = {"total": len(names), "done": 0, "running": 0, "failed": 0, "pending": 0}
    running: list[dict[str, Any]] = []
    for name, marker, tmp in zip(names, finished, running_dirs, strict=True):
        if os.path.exists(marker):
            tasks["done"] += 1
        elif name in {str(f.get("input")) for f in failures}:
            tasks["failed"] += 1
        elif alive and os.path.isdir(tmp):
            tasks["running"] += 1
            running.append({"input": name})
    tasks["pending"] = tasks["total"] - tasks["done"] - tasks["running"] - tasks["failed"]
    stopped = any(_interruption(f) for f in failures)
    failed = [
        {"input": f.get("input"), "error": f.get("error", "?")}
        for f in failures
        if not _interruption(f)
    ]
    if tasks["done"] == tasks["total"]:
        state = "done"
    elif stopped and not failed:
        state = "interrupted"
    elif failed:
        state = "failed"
    elif alive:
        state = "running" if running or tasks["done"] else "pending"
    else:
        state = "interrupted" if tasks["done"] else "pending"
    return {"state": state, "tasks": tasks, "running": running, "failed": failed}


def _shuffle(meta: str, info: dict[str, Any], alive: bool, report: dict | None) -> dict:
    """The shuffle's map pass and partition pass."""
    inputs = [i for i in info.get("inputs") or [] if isinstance(i, dict)]
    pkeys = [str(k) for k in info.get("partition_keys") or []]
    failures = [f for f in (report or {}).get("failures") or [] if isinstance(f, dict)]
    parts = [f"part-{i:05d}" for i in range(len(pkeys))]
    # a failure names a map task by the input's path (or relpath), a partition as part-NNNNN
    by_path = {str(i.get("path")): str(i.get("input")) for i in inputs}
    map_failures = [
        {**f, "input": by_path.get(str(f.get("input")), f.get("input"))}
        for f in failures
        if str(f.get("input")) in by_path or f.get("input") in by_path.values()
    ]
    part_failures = [f for f in failures if f.get("input") in parts]
    folder = str(info["dir"])
    general = [f for f in failures if not f.get("input")]  # the run's own (map pass incomplete...)
    map_done = all(
        os.path.exists(os.path.join(folder, "map", f"{i.get('key')}.json")) for i in inputs
    )
    map_pass = _shuffle_tasks(
        [str(i.get("input")) for i in inputs],
        [os.path.join(folder, "map", f"{i.get('key')}.json") for i in inputs],
        [os.path.join(meta, "tmp", str(i.get("key"))) for i in inputs],
        alive,
        map_failures + ([] if map_done else general),
    )
    partition_pass = _shuffle_tasks(
        parts,
        [os.path.join(meta, "done", f"{k}.json") for k in pkeys],
        [os.path.join(meta, "tmp", k) for k in pkeys],
        alive,
        part_failures + (general if map_done else []),
    )
    return {
        "id": info.get("id"),
        "partitions": info.get("partitions"),
        "partitioning": info.get("partitioning"),
        "map": map_pass,
        "partition": partition_pass,
    }


def _stages(meta: str, alive: bool) -> list[dict[str, Any]] | None:
    """Every stage's status from its listing (``stages/<name>.json``, written by
    :func:`~crawlmill.core.run.stage.run_stages`), one code path for every kind of stage: a
    task is done when its marker is there (or the listing says so when it names none, or the
    stage's ``final`` marker is there), failed when the listing names its error. ``None`` for a
    root written before listings existed. Each listing is read one task at a time
    (:func:`~crawlmill.core.run.json_scan.scan_json_object`): 100,000 tasks are never held."""
    folder = os.path.join(meta, "stages")
    if not os.path.isdir(folder):
        return None
    found = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        tally = _Tally(meta)
        try:
            listing = scan_json_object(os.path.join(folder, name), {"tasks": tally.add})
        except (OSError, ValueError):
            continue
        if isinstance(listing.get("tasks"), int):  # a list, read item by item
            found.append((listing, tally))
    found.sort(key=lambda f: _listed_order(f[0]))
    return [_stage(meta, listing, tally, alive) for listing, tally in found]


def _listed_order(listing: dict[str, Any]) -> tuple[float, float, float]:
    """Where a listing stands: its graph's start and its place in it, then when written."""
    written = float(listing.get("written") or 0)
    order = listing.get("order")
    if isinstance(order, list) and len(order) == 2:
        return float(order[0]), float(order[1]), written
    return written, 0.0, written


class _Tally:
    """A stage's tasks counted as its listing is read, before its other members are known:
    each task's marker checked, the failed ones and those whose sign of life is there kept
    (what :func:`_stage` needs once it knows whether the stage is closed and live)."""

    def __init__(self, meta: str) -> None:
        self.meta = meta
        self.total = 0
        self.done = 0
        #: tasks naming a marker that is not there (done all the same if the stage is closed).
        self.absent = 0
        #: ``(names a marker, entry)`` of the failed tasks.
        self.failed: list[tuple[bool, dict[str, Any]]] = []
        #: the same of the tasks not done, not failed, whose sign of life is there (running
        #: while the run is).
        self.alive: list[tuple[bool, dict[str, Any]]] = []

    def add(self, task: Any) -> None:
        """Count one task of the listing."""
        self.total += 1
        if not isinstance(task, dict):
            return
        marker, started = task.get("marker"), task.get("started")
        name = task.get("name") or task.get("key")
        if os.path.exists(os.path.join(self.meta, marker)) if marker else task.get("done"):
            self.done += 1
            return
        self.absent += bool(marker)
        if task.get("error"):
            self.failed.append((bool(marker), {"input": name, "error": task["error"]}))
        elif started and os.path.exists(os.path.join(self.meta, started)):
            self.alive.append((bool(marker), {"input": name}))

    def not_done(self, closed: bool) -> tuple[int, list[dict[str, Any]], list[dict[str, Any]]]:
        """The tasks done, the failed ones and those with a sign of life; ``closed``: the
        stage's final marker is there (every task naming a marker is done)."""
        if not closed:
            return self.done, [e for _, e in self.failed], [e for _, e in self.alive]
        failed = [e for marked, e in self.failed if not marked]
        alive = [e for marked, e in self.alive if not marked]
        return self.done + self.absent, failed, alive


def _stage(meta: str, listing: dict[str, Any], tally: _Tally, alive: bool) -> dict[str, Any]:
    """One stage's status from its listing's members and its tasks' ``tally`` (see
    :func:`_stages`): a task not done whose sign of life the listing names is there is
    running while the run is alive."""
    final = listing.get("final")
    closed = bool(final) and os.path.exists(os.path.join(meta, final))
    live = alive and listing.get("state") == "running"
    done, failed, alive_tasks = tally.not_done(closed)
    running = alive_tasks if live else []
    tasks = {"total": tally.total, "done": done, "running": len(running), "failed": len(failed)}
    tasks["pending"] = tasks["total"] - tasks["done"] - tasks["failed"] - tasks["running"]
    written = listing.get("state")
    if tasks["done"] == tasks["total"] and written != "blocked":
        state = "done"
    elif failed or written == "failed":
        state = "failed"
    elif written == "running" and alive:
        state = "running"
    elif written == "pending":
        state = "pending"
    elif written == "blocked":
        state = "not run"
    else:  # its run stopped before it ended (killed, Ctrl-C), or a marker went missing
        state = "interrupted" if written != "done" else "incomplete"
    return {
        "name": listing.get("name"),
        "label": listing.get("label"),
        "depends": listing.get("depends") or [],
        "state": state,
        "tasks": tasks,
        "running": running,
        "failed": failed,
    }


def _mechanisms(
    status: dict[str, Any], meta: str, run: dict | None, alive: bool, report: dict | None
) -> None:
    """The passes and the final pass (or a shuffle's two passes) of a root written before
    stage listings existed, from each mechanism's own files."""
    status["passes"] = [_pass_status(p, alive) for p in _passes(meta, run)]
    shuffle = _shuffle_info(meta, run)
    if shuffle is None:
        status["final"] = _final(meta, run, alive, report if run is None else None)
    else:  # the partition pass is the final pass: its tasks write the outputs
        status["shuffle"] = _shuffle(meta, shuffle, alive, report if run is None else None)
        status["final"] = status["shuffle"]["partition"]


def _read_report(path: str) -> dict[str, Any] | None:
    """``report.json`` without its per-input and per-output lists (``input_outputs``,
    ``outputs``: read item by item and dropped, 100,000 of each at the scale of a real
    crawl; ``status`` reads neither), or ``None`` (absent, unreadable)."""
    skip = {"input_outputs": _drop, "outputs": _drop}
    try:
        return scan_json_object(path, skip)
    except (OSError, ValueError):
        return None


def _drop(item: Any) -> None:
    """Read and forgotten."""


def read_status(output: str) -> dict[str, Any]:
    """The status of the output root ``output`` as plain data (what ``--json`` prints);
    ``FileNotFoundError`` when it holds no crawlmill bookkeeping."""
    meta = os.path.join(os.path.abspath(output), BOOKKEEPING)
    if not os.path.isdir(meta):
        raise FileNotFoundError(f"{output} is not a crawlmill output folder (no {BOOKKEEPING}/)")
    run = read_json(run_json_path(output))
    report = _read_report(os.path.join(meta, "report.json"))
    alive = _alive(run)
    stop = None
    if run is not None:
        state = "running" if alive else "killed"
    elif report is not None:
        stops = [_interruption(f) for f in report.get("failures") or [] if isinstance(f, dict)]
        stop = next((r for r in stops if r), None)
        state = "finished" if report.get("ok") else "interrupted" if stop else "failed"
    else:
        state = "none"
    status: dict[str, Any] = {"output": os.path.abspath(output), "state": state}
    if state == "interrupted":
        status["interrupted"] = stop
    if run is not None:
        status["run"] = {k: run.get(k) for k in ("pid", "host", "started")}
    if report is not None and run is None:
        status["accounting"] = report.get("accounting")
    stages = _stages(meta, alive)
    if stages is not None:  # one reader for every kind of stage: the listings
        status["stages"] = stages
    else:  # a root written before stage listings: each mechanism's own reader
        _mechanisms(status, meta, run, alive, report)
    status["orphans"] = orphans_of_root(OutputRoot(output), (report or {}).get("orphans") or [])
    return status


def _tasks_line(tasks: dict[str, int]) -> str:
    return (
        f"{tasks['done']}/{tasks['total']} done, {tasks['running']} running, "
        f"{tasks['failed']} failed, {tasks['pending']} pending"
    )


def format_status(status: dict[str, Any]) -> str:
    """The status as text: one line per stage (or, for a root written before stage
    listings, per pass) and per failed or running task."""
    lines = [f"{status['output']}: {status['state']}"]
    if "run" in status:
        run = status["run"]
        lines[0] += f" (pid {run.get('pid')} on {run.get('host')})"
    if status.get("accounting"):
        lines.append(f"  {status['accounting']}")
    if "stages" in status:
        lines += _stage_lines(status, lines)
    else:
        lines += _mechanism_lines(status, lines)
    orphans = status.get("orphans") or []
    if orphans:
        files = sum(len(o["outputs"]) + len(o["quarantine"]) for o in orphans)
        lines.append(
            f"orphans: {files} file(s) of {len(orphans)} input(s) no longer converted here "
            "(convert --remove-orphans deletes them)"
        )
        for o in orphans:
            shown = ", ".join(o["outputs"] + o["quarantine"]) or "no files"
            lines.append(f"  orphaned ({o['reason']}: {o['input_path']}): {shown}")
    return "\n".join(lines)


def _stage_lines(status: dict[str, Any], head: list[str]) -> list[str]:
    """The stages' lines; an interrupted run says on ``head[0]`` where it stopped (the first
    stage interrupted, else the first not done)."""
    stages = status["stages"]
    if status.get("interrupted"):
        head[0] += f" {status['interrupted'].removeprefix('interrupted').strip()}".rstrip()
        where = next((s for s in stages if s["state"] == "interrupted"), None) or next(
            (s for s in stages if s["state"] != "done"), None
        )
        if where is not None and len(stages) > 1:
            head[0] += f" during the stage {where['label'] or where['name']}"
    lines = []
    for stage in stages:
        title = stage["label"] or stage["name"]
        tasks = stage["tasks"]
        running = f", {tasks['running']} running" if tasks["running"] else ""
        lines.append(
            f"stage {stage['name']} ({title}): {stage['state']}: "
            f"{tasks['done']}/{tasks['total']} done{running}, {tasks['failed']} failed, "
            f"{tasks['pending']} not done"
        )
        lines.extend(f"  running: {t['input']}" for t in stage.get("running") or [])
        lines.extend(f"  failed: {t['input']}: {t['error']}" for t in stage["failed"])
    return lines


def _mechanism_lines(status: dict[str, Any], head: list[str]) -> list[str]:
    """The lines of a root written before stage listings: its passes and its final pass
    (or a shuffle's map and partition passes); an interrupted run says on ``head[0]`` in
    which it stopped."""
    steps = [(f"pass {p['name']} [{p['id']}]", p) for p in status["passes"]]
    shuffle = status.get("shuffle")
    if shuffle is not None:
        n, how = shuffle["partitions"], shuffle["partitioning"]
        steps.append((f"shuffle map pass [{shuffle['id']}]", shuffle["map"]))
        title = f"shuffle partition pass [{shuffle['id']}] ({n} {how} partitions, final)"
        steps.append((title, shuffle["partition"]))
    else:
        steps.append(("final pass", {"state": "", **status["final"]}))
    if status.get("interrupted"):  # where it stopped, when the run has stages
        head[0] += f" {status['interrupted'].removeprefix('interrupted').strip()}".rstrip()
        stage = next((t for t, step in steps if step.get("state") == "interrupted"), None)
        if stage is None and all(step.get("state") == "done" for _, step in steps[:-1]):
            stage = steps[-1][0]  # the earlier passes are done: it stopped in the final one
        if stage is not None and len(steps) > 1:
            head[0] += f" during the {stage.removeprefix('pass ')}"
    lines = []
    for title, step in steps:
        state = f"{step['state']}: " if step.get("state") else ""
        line = f"{title}: {state}{_tasks_line(step['tasks'])}"
        if "reduce" in step:
            split = step["reduce"]
            line += f"; reduce: {split['done']} of {split['partitions']} partitions done"
        lines.append(line)
        lines.extend(f"  running: {t['input']}" for t in step["running"])
        lines.extend(f"  failed: {t['input'] or '(reduce)'}: {t['error']}" for t in step["failed"])
    return lines
