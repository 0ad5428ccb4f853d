"""What a task and its executor share: the :class:`Channel` (events up, a stop flag down),
the task's current channel, :class:`WorkerCrash`, the :class:`Executor` interface, and the
parent-alive check. Imports nothing of crawlmill, so the executors (local and Spark), the
task functions and the progress monitor all build on it without importing each other."""

from __future__ import annotations

import queue as queue_mod
import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ORPHAN_EXIT",
    "Channel",
    "Executor",
    "WorkerCrash",
    "current_channel",
    "parent_alive",
    "use_channel",
]

#: exit status of a worker that found its parent dead.
ORPHAN_EXIT = 75


@dataclass(frozen=True)
class WorkerCrash:
    """The task could not report a result: its process died or the call failed."""

    message: str


class Channel:
    """Events from tasks to the parent (``post``/``get``) and a stop flag the other way."""

    def __init__(self, events: Any, stop: Any) -> None:
        self._events = events
        self._stop = stop

    def renew_events(self, events: Any) -> None:
        """Post and read through ``events`` from now on; the old queue is dropped unread
        (its lock or its last message may belong to a process that died)."""
        self._events = events

    def post(self, event: tuple) -> None:
        """Send a small picklable event to the parent (never blocks for long)."""
        self._events.put(event)

    def get(self, timeout: float) -> tuple | None:
        """The next event, or ``None`` after ``timeout`` seconds."""
        try:
            return self._events.get(timeout=timeout)
        except queue_mod.Empty:
            return None

    def wake(self) -> None:
        """Wake a reader waiting in :meth:`get` of an in-process queue now, not at its timeout
        (it reads a ``("wake",)`` event, which means nothing); a process queue is left alone."""
        if isinstance(self._events, queue_mod.Queue):
            self._events.put(("wake",))

    def request_stop(self) -> None:
        """Ask running tasks to stop at their next record."""
        self._stop.set()

    def stop_requested(self) -> bool:
        """True once the parent asked tasks to stop."""
        return self._stop.is_set()


_CURRENT: Channel | None = None


def current_channel() -> Channel:
    """The channel of the executor running the current task (a private one outside runs)."""
    global _CURRENT
    if _CURRENT is None:
        _CURRENT = Channel(queue_mod.Queue(), threading.Event())
    return _CURRENT


def use_channel(channel: Channel | None) -> Channel | None:
    """Make ``channel`` the current task's channel (in a worker, or around one task);
    returns the previous one, to be put back."""
    global _CURRENT
    previous, _CURRENT = _CURRENT, channel
    return previous


def parent_alive() -> bool:
    """False in a worker process whose parent (the run holding the lock) has died."""
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is None:  # not imported: this process is no multiprocessing worker
        return True
    parent = multiprocessing.parent_process()
    return parent is None or parent.is_alive()


class Executor(ABC):
    """Runs ``fn(payload)`` for each payload; see the module docstring."""

    channel: Channel

    @abstractmethod
    def map(self, fn: Callable[[Any], Any], payloads: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        """Yield ``(i, result)`` per finished payload (any order); crashes as :class:`WorkerCrash`."""

    def cancel(self) -> None:
        """Start no further payloads and ask running tasks to stop."""
        self._cancelled = True
        self.channel.request_stop()

    @property
    def cancelled(self) -> bool:
        """True after :meth:`cancel`."""
        return getattr(self, "_cancelled", False)

    def close(self) -> None:
        """Release resources (idempotent)."""
        return None
