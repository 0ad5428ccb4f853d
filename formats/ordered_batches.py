"""Process items in batches on a small thread pool; consume the results in submission order.

The WARC writer uses it to digest, serialise and compress records (work that releases the
GIL: SHA-1, gzip/zstd) on other cores while the calling thread reads the next records, and
to write the compressed records to the file, in the order they were submitted, on the calling
thread. Each item's result depends on that item alone, so the output is exactly what
processing the items one after the other would give, whatever thread computed what.

* **Batches**: items are handed to the pool in batches (about ``batch_bytes`` bytes or
  ``batch_items`` items), so a hand-over is paid per batch, not per record.
* **Bounded memory**: at most ``depth`` batches are in flight, holding at most
  ``depth * batch_bytes`` bytes unless a single (huge) batch is; :meth:`submit` consumes the
  oldest (waiting for it) until that holds. A batch ends with the item that crosses
  ``batch_bytes``, so besides the batch being filled, memory holds about ``depth`` batches of
  ``batch_bytes``, or one very large item: it does not grow with the input, and a file of
  huge records holds about one more of them than a one-thread writer would.
* **Emit stage** (optional): ``emit(result)`` runs on one more thread, batch after batch in
  submission order, before ``consume(result)`` on the calling thread: the member writer
  writes the file there (a write, and the engine's checksum of the output, release the GIL
  but hold up whichever thread calls them), and counts offsets and calls callbacks on the
  calling thread.
* **Errors** raised by ``work``, ``emit`` or ``consume`` surface on the calling thread, from
  the :meth:`submit`, :meth:`flush` or :meth:`close` that consumes the failed batch; batches
  not yet consumed are then dropped (and none after a failed one is emitted), so nothing
  after a failure is consumed, and every later call raises the same error.

* **GIL hand-over**: a pool thread that finishes a call releasing the GIL (a digest, a
  deflate) waits for the GIL while the calling thread runs Python, by default up to the
  interpreter's 5 ms switch interval, several times per record; the calling thread then
  runs ahead, fills ``depth`` batches and waits for the pool, so the two alternate instead
  of overlapping. While a pool runs, the switch interval is at most
  :data:`POOL_SWITCH_INTERVAL` (the previous value comes back when the last pool stops),
  which halves the time the calling thread waits for batches (ARC -> WARC benchmark).

The pool's threads start with the first batch, so an idle instance costs nothing.
"""

from __future__ import annotations

import sys
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

__all__ = ["POOL_SWITCH_INTERVAL", "OrderedBatches"]

#: the interpreter's GIL switch interval (seconds) at most while a pool runs.
POOL_SWITCH_INTERVAL = 0.001


class _SwitchInterval:
    """Lowers the interpreter's switch interval while at least one pool runs (counted), and
    restores it when the last one stops, unless someone else changed it meanwhile."""

    _lock = threading.Lock()
    _users = 0
    _saved: float | None = None

    @classmethod
    def enter(cls) -> None:
        with cls._lock:
            if cls._users == 0:
                current = sys.getswitchinterval()
                if current > POOL_SWITCH_INTERVAL:
                    cls._saved = current
                    sys.setswitchinterval(POOL_SWITCH_INTERVAL)
            cls._users += 1

    @classmethod
    def leave(cls) -> None:
        with cls._lock:
            cls._users -= 1
            if cls._users == 0 and cls._saved is not None:
                if sys.getswitchinterval() == POOL_SWITCH_INTERVAL:
                    sys.setswitchinterval(cls._saved)
                cls._saved = None


class OrderedBatches:
    """``consume(work(batch))`` for batches of submitted items: ``work`` on ``threads``
    pool threads, ``consume`` on the calling thread in submission order (after ``emit`` on
    a thread of its own, in the same order, when given)."""

    def __init__(
        self,
        work: Callable[[list[Any]], Any],
        consume: Callable[[Any], None],
        *,
        emit: Callable[[Any], None] | None = None,
        threads: int = 2,
        batch_bytes: int = 1 << 20,
        batch_items: int = 64,
        depth: int | None = None,
        name: str = "crawlmill-batches",
    ) -> None:
        self._work = work
        self._consume = consume
        self._threads = max(1, threads)
        self._batch_bytes = batch_bytes
        self._batch_items = batch_items
        self._depth = depth if depth is not None else 2 * self._threads
        self._name = name
        self._emit = emit
        self._pool: ThreadPoolExecutor | None = None
        self._emitter: ThreadPoolExecutor | None = None
        self._emit_failed = False
        self._in_flight: deque[tuple[Future, int]] = deque()  # (future, bytes of its batch)
        self._in_flight_bytes = 0
        self._batch: list[Any] = []
        self._batch_size = 0
        self._closed = False
        self._error: BaseException | None = None

    @property
    def threads(self) -> int:
        """Pool threads working on batches."""
        return self._threads

    def submit(self, item: Any, size: int) -> None:
        """Add ``item`` (``size``: its bytes, for the batch and memory bounds); may consume
        earlier batches (and raise their error)."""
        self._check_usable()
        self._batch.append(item)
        self._batch_size += size
        if self._batch_size >= self._batch_bytes or len(self._batch) >= self._batch_items:
            self._hand_over()
            while self._over_budget():
                self._consume_oldest()

    def flush(self) -> None:
        """Process and consume every submitted item (raises the first error, if any)."""
        self._check_usable()
        if self._batch:
            self._hand_over()
        while self._in_flight:
            self._consume_oldest()

    def close(self) -> None:
        """:meth:`flush`, then stop the pool's threads (idempotent; after an error, what was
        not consumed is dropped and the error raised)."""
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._closed = True
            self._drop_pending()

    def _over_budget(self) -> bool:
        """More than ``depth`` batches in flight, or more than ``depth * batch_bytes``
        bytes in more than one batch (a single huge batch may stay in flight alone)."""
        count = len(self._in_flight)
        if count > self._depth:
            return True
        return count > 1 and self._in_flight_bytes > self._depth * self._batch_bytes

    def _check_usable(self) -> None:
        if self._error is not None:
            raise self._error
        if self._closed:
            raise ValueError("OrderedBatches is closed")

    def _hand_over(self) -> None:
        batch, size = self._batch, self._batch_size
        self._batch, self._batch_size = [], 0
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix=self._name)
            _SwitchInterval.enter()
        future = self._pool.submit(self._work, batch)
        if self._emit is not None:
            if self._emitter is None:
                self._emitter = ThreadPoolExecutor(1, thread_name_prefix=self._name + "-emit")
            future = self._emitter.submit(self._emit_after, future)
        self._in_flight.append((future, size))
        self._in_flight_bytes += size

    def _emit_after(self, future: Future) -> Any:
        """On the emit thread, batch after batch: wait for the batch's work, emit it and
        hand the result on; after a failure nothing more is emitted."""
        if self._emit_failed:
            raise RuntimeError("not emitted: an earlier batch failed")
        try:
            result = future.result()
            self._emit(result)  # type: ignore[misc]
        except BaseException:
            self._emit_failed = True
            raise
        return result

    def _consume_oldest(self) -> None:
        future, size = self._in_flight.popleft()
        self._in_flight_bytes -= size
        try:
            self._consume(future.result())
        except BaseException as exc:
            self._error = exc
            self._drop_pending()
            raise

    def _drop_pending(self) -> None:
        """Forget batches not consumed and stop the threads (waiting for running work)."""
        self._batch = []
        for future, _ in self._in_flight:
            future.cancel()
        self._in_flight.clear()
        self._in_flight_bytes = 0
        if self._pool is not None:
            try:
                self._pool.shutdown(wait=True, cancel_futures=True)
                if self._emitter is not None:
                    self._emitter.shutdown(wait=True, cancel_futures=True)
            finally:
                self._pool = self._emitter = None
                _SwitchInterval.leave()
