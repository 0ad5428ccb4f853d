"""The detection bytes of remote objects, fetched ahead of planning by a few threads.

Planning detects each object of a prefix that is in no collection from its first bytes
(:func:`crawlmill.core.storage.read_detection`: a ``HEAD`` and one or two ranged ``GET``), one
object after another. On S3 each request waits ~25 ms: 80,000 objects would take over an hour.
:class:`DetectionPrefetch` reads them ahead, :data:`THREADS` at a time, in a sliding window of
at most :data:`WINDOW` objects (each result is at most 64 KiB + 512 bytes: at most ~33 MiB
held), and hands each result, or the ``OSError`` its read raised, to the planning step in the
order it asks for them: the plan, its reasons and warnings are the sequential code's. Local
paths and ``local://`` URLs are not read ahead: a local read does not wait, and threads only
add CPU (0.35 ms an object measured, benchmarks/bench_url_planning.py).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from . import storage

if TYPE_CHECKING:
    from concurrent.futures import Future

__all__ = ["THREADS", "WINDOW", "DetectionPrefetch", "threads"]

#: threads reading remote objects' first bytes at once (I/O bound); ``CRAWLMILL_DETECT_THREADS``
#: overrides it, ``0`` or ``1`` reads one object after another.
THREADS = 32
#: objects read ahead of the one planning asks for, at most (each result <= 64.5 KiB).
WINDOW = 512

Found = tuple[bytes, bytes] | None


def threads() -> int:
    """The threads :class:`DetectionPrefetch` uses: :data:`THREADS`, or the environment's
    ``CRAWLMILL_DETECT_THREADS`` (a whole number; another value is ignored)."""
    value = os.environ.get("CRAWLMILL_DETECT_THREADS", "").strip()
    return max(0, int(value)) if value.isdigit() else THREADS


def _waits(path: str) -> bool:
    """True for an object of a store, whose reads wait on the network: not a local path, a
    ``file://`` or a ``local://`` URL (fsspec's local filesystem), where threads only add CPU."""
    return storage.is_remote(path) and storage.scheme(path) != "local"


class DetectionPrefetch:
    """``read_detection(path, 512)`` of the ``paths`` on a store (in the order planning will ask
    for them), read ahead by ``workers`` threads, ``window`` objects at most; :meth:`get` gives
    a path's result (or raises its ``OSError``) and a path it was not asked for is read there
    and then. A context manager: leaving it stops the threads."""

    def __init__(self, paths: Iterable[str], workers: int, window: int = WINDOW) -> None:
        waiting = [p for p in paths if _waits(p)]
        self._paths: Iterator[str] = iter(waiting)
        self._window = max(1, window)
        self._pending: deque[tuple[str, Future[Found]]] = deque()
        self._queued: set[str] = set()
        self._pool = None
        if workers > 1 and waiting:  # threads (and their import) only for objects that wait
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(workers, "detect")
        self._fill()

    def _fill(self) -> None:
        if self._pool is None:
            return
        while len(self._pending) < self._window:
            path = next(self._paths, None)
            if path is None:
                return
            self._pending.append((path, self._pool.submit(storage.read_detection, path, 512)))
            self._queued.add(path)

    @property
    def held(self) -> int:
        """Objects read ahead (or being read) and not yet asked for."""
        return len(self._pending)

    def get(self, path: str) -> Found:
        """What ``storage.read_detection(path, 512)`` gives (or raises)."""
        if path in self._queued:
            while True:  # the ones before it were not asked for (a unit left out): dropped
                ahead, future = self._pending.popleft()
                self._queued.discard(ahead)
                if ahead == path:
                    break
                future.cancel()
            self._fill()
            return future.result()
        return storage.read_detection(path, 512)

    def close(self) -> None:
        """Stop reading ahead: drop what is pending, wait for the running reads."""
        for _, future in self._pending:
            future.cancel()
        self._pending.clear()
        self._queued.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> DetectionPrefetch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
