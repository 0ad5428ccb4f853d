"""Collect tasks: one input through the reader and the filters before a collecting component,
the component's ``collect`` rows into an Arrow IPC file, and the task's markers.

:func:`collect_task` runs in a worker (any :class:`~crawlmill.core.run.executor.Executor`) and
takes a plain JSON-able payload (:func:`collect_payload`): the spec as JSON, the input, the
reader's name, the pass (id, folder, component location) and the tables of the earlier passes
that the filters before the component read. It rebuilds the registry and the components from
the spec, as :func:`~crawlmill.core.run.task.run_task` does, and returns a plain dict. Nothing in
a collect task counts into the run report or writes the quarantine: its counters (records
read, reaching the component, rows, damages, warnings) go into its marker, for
``crawlmill status``; the final pass reads the input again and accounts for it.

Files of a task ``i`` (the input's index) below ``OUT/.crawlmill/passes/<id>/tasks/``::

    <i>.start.json   written when the task starts, its ``heartbeat`` renewed every few seconds
    <i>.arrow        the rows (written under a temp name, renamed when complete)
    <i>.json         the done marker, written after the rows file (size, rows, counters)
    <i>.failed.json  why the task failed (removed when a later attempt starts)

The records reaching the component are numbered (``seq``) from 0 in the order they reach it;
the final pass numbers them the same way (same reader, same filters before it), so
``ctx.seq`` there names the row's record.
"""

from __future__ import annotations

import contextlib
import os
import time
import traceback
from collections.abc import Callable
from typing import Any

from ..plugin import Filter, FilterContext, InputFile
from ..spec import PipelineSpec
from .executor import ORPHAN_EXIT, current_channel, parent_alive
from .outputs import write_json_atomic
from .progress import TaskReporter
from .tables import RowsWriter, table_loader

__all__ = [
    "HEARTBEAT_SECONDS",
    "PassDir",
    "collect_payload",
    "collect_task",
    "component_at",
    "hostname",
]

#: how often a running collect task renews its start marker's ``heartbeat``.
HEARTBEAT_SECONDS = 5.0


class PassDir:
    """The files of one pass below ``OUT/.crawlmill/passes/<id>/`` (see the module
    docstrings here and of :mod:`crawlmill.core.run.passes`)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.tasks = os.path.join(path, "tasks")

    def task_file(self, index: int, suffix: str) -> str:
        """``tasks/<index>.<suffix>`` (``arrow``, ``json``, ``start.json``, ``failed.json``)."""
        return os.path.join(self.tasks, f"{index:06d}.{suffix}")

    @property
    def info(self) -> str:
        """``pass.json``: what the pass is (name, component, inputs), written once."""
        return os.path.join(self.path, "pass.json")

    @property
    def table(self) -> str:
        """``table.arrow``: the reduce output."""
        return os.path.join(self.path, "table.arrow")

    @property
    def done(self) -> str:
        """``done.json``: the pass marker, written after ``table.arrow``."""
        return os.path.join(self.path, "done.json")

    @property
    def reduce_start(self) -> str:
        """``reduce.start.json``: the reduce began (pid, host, time)."""
        return os.path.join(self.path, "reduce.start.json")

    @property
    def reduce_failed(self) -> str:
        """``reduce.failed.json``: why the reduce failed."""
        return os.path.join(self.path, "reduce.failed.json")

    @property
    def workdir(self) -> str:
        """``work/``: scratch space of the reduce."""
        return os.path.join(self.path, "work")


def read_json(path: str) -> dict[str, Any] | None:
    """The JSON object in ``path``, or ``None`` (absent, unreadable, not an object)."""
    import json

    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def task_done(pdir: PassDir, index: int) -> dict[str, Any] | None:
    """The done marker of task ``index`` when its rows file is there with the size it
    records, else ``None`` (the task is redone)."""
    marker = read_json(pdir.task_file(index, "json"))
    if marker is None:
        return None
    try:
        if os.path.getsize(pdir.task_file(index, "arrow")) != marker.get("size"):
            return None
    except OSError:
        return None
    return marker


def component_at(loc: str, steps: list[tuple[str, Filter]], writer: Any) -> Any:
    """The component at ``loc`` (``filters[i]`` or ``writer``)."""
    if loc == "writer":
        return writer
    return steps[int(loc[len("filters[") : -1])][1]


def collect_payload(
    spec_data: dict[str, Any],
    inp: InputFile,
    reader: str,
    input_count: int,
    pass_info: dict[str, Any],
    tables: dict[str, str],
) -> dict[str, Any]:
    """The plain-data payload of one collect task (JSON-able: no plugin object)."""
    return {
        "spec": spec_data,
        "input": inp.to_dict(),
        "reader": reader,
        "input_count": input_count,
        "pass": dict(pass_info),
        "tables": dict(tables),
    }


def hostname() -> str:
    """This machine's name (``uname``'s node name: what ``socket.gethostname`` answers on
    POSIX, without importing ``socket``)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket

    return socket.gethostname()


def _stamp(inp: InputFile, started: float) -> dict[str, Any]:
    return {
        "input": inp.relpath,
        "index": inp.index,
        "pid": os.getpid(),
        "host": hostname(),
        "started": started,
        "heartbeat": time.time(),
    }


def collect_task(payload: dict[str, Any]) -> dict[str, Any]:
    """Run one collect task (see the module docstring); never raises. Returns
    ``{"status": "ok"|"failed"|"cancelled", "index", "rows", "error", "traceback"}``."""
    inp = InputFile.from_dict(payload["input"])
    pdir = PassDir(payload["pass"]["dir"])
    started = time.time()
    os.makedirs(pdir.tasks, exist_ok=True)
    with contextlib.suppress(OSError):
        os.remove(pdir.task_file(inp.index, "failed.json"))
    write_json_atomic(pdir.task_file(inp.index, "start.json"), _stamp(inp, started))
    result: dict[str, Any] = {"index": inp.index, "status": "ok", "rows": 0}
    try:
        marker = _Collect(payload, inp, pdir, started).run()
        result["rows"] = marker["rows"]
    except _Stopped:
        result["status"] = "cancelled"
    except Exception as exc:
        result.update(
            status="failed",
            error=f"{type(exc).__name__}: {exc}",
            traceback="".join(traceback.format_exception(exc, limit=-10)),
        )
        with contextlib.suppress(OSError):
            write_json_atomic(
                pdir.task_file(inp.index, "failed.json"),
                {"input": inp.relpath, "error": result["error"], "traceback": result["traceback"]},
            )
    return result


class _Stopped(Exception):
    """The parent asked tasks to stop."""


def _check_parent() -> None:
    if not parent_alive():
        os._exit(ORPHAN_EXIT)


def _count_into(counts: dict[str, dict[str, int]], step: str) -> Callable[[str, int], None]:
    def count(label: str, n: int) -> None:
        mine = counts.setdefault(step, {})
        mine[label] = mine.get(label, 0) + n

    return count


class _Collect:
    """The state of one collect task."""

    def __init__(
        self, payload: dict[str, Any], inp: InputFile, pdir: PassDir, started: float
    ) -> None:
        self.payload = payload
        self.inp = inp
        self.pdir = pdir
        self.started = started
        self.damages = 0
        self.warnings = 0
        self.counts: dict[str, dict[str, int]] = {}

    def _damage(self, damage: Any) -> None:
        self.damages += 1

    def _warning(self, notice: Any) -> None:
        self.warnings += 1

    def run(self) -> dict[str, Any]:
        from .task import filter_record, open_components, open_records

        payload, inp, pdir = self.payload, self.inp, self.pdir
        spec = PipelineSpec.model_validate(payload["spec"])
        loc = payload["pass"]["component"]
        tables: dict[str, str] = payload.get("tables") or {}
        parts = open_components(spec, payload["reader"])
        target = component_at(loc, parts.steps, parts.writer)
        upstream = parts.steps if loc == "writer" else parts.steps[: int(loc[8:-1])]
        counters = {label: {"in": 0, "kept": 0, "dropped": {}} for label, _ in upstream}
        for i, (label, step) in enumerate(upstream):
            step.open(
                FilterContext(
                    inp,
                    counter=_count_into(self.counts, label),
                    table_loader=table_loader(tables.get(f"filters[{i}]")),
                    position=lambda c=counters[label]: c["in"] - 1,
                )
            )
        reached = [0]
        if isinstance(target, Filter):  # a writer's open would create files: not called
            label = parts.steps[len(upstream)][0]
            target.open(
                FilterContext(
                    inp, counter=_count_into(self.counts, label), position=lambda: reached[0] - 1
                )
            )
        rows = RowsWriter(pdir.task_file(inp.index, "arrow"), target.collect_schema, inp.index)
        read = 0
        run = spec.run
        records = open_records(
            parts,
            inp,
            run,
            on_damage=self._damage,
            on_warning=self._warning,
            on_count=_count_into(self.counts, "reader"),
        )
        channel = current_channel()
        reporter = TaskReporter(channel, f"{payload['pass']['id']}:{inp.index}")
        beat = time.monotonic()
        try:
            with records:
                for record in records.raw():
                    read += 1
                    src = record.source
                    # progress posted every 0.25 s, then the stop flag and the heartbeat
                    if reporter.count(1, (src.length or 0) if src is not None else 0):
                        if channel.stop_requested():
                            raise _Stopped()
                        if time.monotonic() - beat >= HEARTBEAT_SECONDS:
                            beat = time.monotonic()
                            stamp = _stamp(inp, self.started)
                            write_json_atomic(pdir.task_file(inp.index, "start.json"), stamp)
                    kept = filter_record(upstream, record, counters) if upstream else record
                    if kept is None:
                        continue
                    seq = reached[0]
                    reached[0] += 1
                    for row in target.collect(kept) or ():
                        rows.add(row if type(row) is tuple else tuple(row), seq)
            _check_parent()  # a worker of a killed run leaves no marker behind
            size = rows.close()
        except BaseException:
            rows.abandon()
            raise
        finally:
            reporter.flush()
        marker = {
            "input": inp.relpath,
            "index": inp.index,
            "rows": rows.rows,
            "size": size,
            "read": read,
            "reached": reached[0],
            "damages": self.damages,
            "warnings": self.warnings,
            "counts": self.counts,
            "seconds": round(time.time() - self.started, 3),
        }
        _check_parent()
        write_json_atomic(pdir.task_file(inp.index, "json"), marker)
        return marker
