"""The worker side of a Spark task, shared by the Spark executor and its shuffle
(:mod:`crawlmill.core.run.spark_executor`, :mod:`crawlmill.core.run.spark_shuffle`): the task's
channel that keeps its events for the driver, the driver's variables a worker takes, the
version check, and running one pickled payload. Imports no pyspark."""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable, Mapping
from typing import Any

from .channel import Channel, WorkerCrash, use_channel
from .registries import forget_registries
from .spark_progress import send_progress

__all__ = [
    "MAX_TASK_LOGS",
    "SHIPPED_ENV",
    "TaskEvents",
    "crawlmill_version",
    "driver_env",
    "dump_result",
    "prepare_worker",
    "probe_partition",
    "run_one",
    "sync_env",
]

#: log lines one task sends back at most (the report keeps every damage anyway).
MAX_TASK_LOGS = 1000
#: the driver's environment variables every task sees as well (besides ``CRAWLMILL_*``):
#: ``SOURCE_DATE_EPOCH`` makes the WARC writer's conversion date reproducible.
SHIPPED_ENV = ("SOURCE_DATE_EPOCH",)


class TaskEvents(Channel):
    """The channel of a task in a Spark worker: events are kept (log lines up to
    :data:`MAX_TASK_LOGS`, consecutive progress events of one task summed) and go back to the
    driver with the task's result; no stop is ever requested (Spark kills cancelled tasks)."""

    def __init__(self) -> None:
        super().__init__(None, None)
        self.events: list[tuple] = []
        self.logs = 0
        self.logs_dropped = 0

    def post(self, event: tuple) -> None:
        """Keep ``event`` for the driver (a progress event goes to the driver's status
        channel at once too: :mod:`crawlmill.core.run.spark_progress`)."""
        if event[0] == "progress":
            send_progress(event)
        last = self.events[-1] if self.events else None
        if (
            event[0] == "progress"
            and last is not None
            and last[0] == "progress"
            and last[1] == event[1]
        ):
            self.events[-1] = ("progress", event[1], last[2] + event[2], last[3] + event[3])
            return
        if event[0] == "log":
            if self.logs >= MAX_TASK_LOGS:
                self.logs_dropped += 1
                return
            self.logs += 1
        self.events.append(event)

    def get(self, timeout: float) -> tuple | None:
        """Nothing is read in a worker."""
        return None

    def request_stop(self) -> None:
        """Tasks in a Spark worker are stopped by Spark."""

    def stop_requested(self) -> bool:
        """Never: Spark kills a cancelled task."""
        return False

    def drained(self) -> list[tuple]:
        """The events, with one line saying how many log lines were left out."""
        if self.logs_dropped:
            note = f"crawlmill: ... {self.logs_dropped} more log line(s) of this task not shown"
            return [*self.events, ("log", note)]
        return list(self.events)


def crawlmill_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("crawlmill")
    except PackageNotFoundError:  # pragma: no cover - crawlmill runs from an install
        return "unknown"


def run_one(fn: Callable[..., Any], blob: bytes, *args: Any) -> tuple[Any, list[tuple]]:
    """``fn(payload, *args)`` with a :class:`TaskEvents` channel; an exception as a
    WorkerCrash."""
    from .spark_stage import remap, run_staged

    events = TaskEvents()
    previous = use_channel(events)
    staged: list[tuple] = []
    try:
        # a run whose output is a URL: the task works in a stage of its own on this worker
        result, staged = run_staged(_call, fn, pickle.loads(blob), args)
    except Exception as exc:  # the task function reports its own errors; belt and braces
        result = WorkerCrash(f"{type(exc).__name__}: {exc}")
    finally:
        use_channel(previous)
    drained = events.drained()
    for event in staged:  # the task's lines name the driver's stage, not this worker's
        drained = [remap(e, event[4], event[1]) for e in drained]
    return result, drained + staged


def _call(fn: Callable[..., Any], payload: Any, args: tuple) -> Any:
    return fn(payload, *args)


def driver_env() -> dict[str, str]:
    """The driver's variables that decide what a task does (:data:`SHIPPED_ENV`)."""
    return {k: v for k, v in os.environ.items() if _shipped(k)}


def _shipped(name: str) -> bool:
    return name in SHIPPED_ENV or name.startswith("CRAWLMILL_")


def sync_env(env: Mapping[str, str]) -> None:
    """Give this (reused) Python worker the driver's :data:`SHIPPED_ENV` variables; when they
    changed since its last task, the plugin registries it cached are dropped (the
    ``CRAWLMILL_*_PLUGINS`` lists decide what a registry loads)."""
    mine = driver_env()
    if mine == dict(env):
        return
    for name in mine:
        if name not in env:
            del os.environ[name]
    os.environ.update(env)
    forget_registries()


def prepare_worker(sys_path: list[str], driver_version: str, env: Mapping[str, str]) -> str | None:
    """Give this Python worker the driver's ``sys.path`` entries and shipped variables; the
    reason to refuse its tasks (another crawlmill version than the driver's), or ``None``."""
    for entry in reversed(sys_path):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    sync_env(env)
    mine = crawlmill_version()
    if mine != driver_version:
        return (
            f"crawlmill {mine} runs on the Spark worker but {driver_version} on the "
            "driver: install the same crawlmill on every worker"
        )
    return None


def probe_partition(rows: Any) -> list[str]:
    """Spark's function of the driver's probe task: this worker's crawlmill version (its
    Python imported crawlmill to unpickle this function)."""
    return [crawlmill_version()]


def dump_result(out: tuple[Any, list[tuple]]) -> bytes:
    """A task's ``(result, events)`` pickled for the driver (a result that cannot be: a
    WorkerCrash saying so)."""
    try:
        return pickle.dumps(out)
    except Exception as exc:
        return pickle.dumps((WorkerCrash(f"result not picklable: {exc}"), out[1]))


# -- driver side --------------------------------------------------------------------------------
