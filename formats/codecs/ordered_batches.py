"""Process items in batches on a small thread pool; consume the results in submission order.

The WARC writer uses it to digest, serialise and compress records (work that releases the
GIL: SHA-1, gzip/zstd) on other cores while the calling thread reads the next records, and
to write the compressed records to the file, in the order they were submitted, on the calling
thread. Each item's result depends on that item alone, so the output is exactly what
processing the items one after the other would give, whatever thread computed what.

* **Batches by bytes**: items are handed to the pool in batches of about ``batch_bytes``
  bytes (``batch_items`` items at most, a bound only tiny records reach), so a hand-over is
  paid per batch, not per record: the calling thread appends the batch to a queue under one
  lock and wakes a pool thread only when one is idle; it takes a finished batch without a
  lock when it is there, and waits only when ``depth`` batches are in flight.
* **Bounded memory**: at most ``depth`` batches are in flight, holding at most
  ``depth * batch_bytes`` bytes unless a single (huge) batch is; :meth:`submit` consumes the
  oldest (waiting for it) until that holds. A batch ends with the item that crosses
  ``batch_bytes``, so besides the batch being filled, memory holds about ``depth`` batches of
  ``batch_bytes``, or one very large item: it does not grow with the input, and a file of
  huge records holds about one more of them than a one-thread writer would.
* **Emit stage** (optional): ``emit(result)`` runs on a pool thread, one batch at a time in
  submission order (the thread that finishes the next batch in order emits it and any
  finished batches after it), before ``consume(result)`` on the calling thread: the member
  writer writes the file there (a write, and the engine's checksum of the output, release
  the GIL but hold up whichever thread calls them), and counts offsets and calls callbacks
  on the calling thread. No thread of its own: each one more thread is GIL hand-overs more.
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


class _Failed:
    """A batch whose work or emit raised (the error, raised again when it is consumed)."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


class OrderedBatches:
    """``consume(work(batch))`` for batches of submitted items: ``work`` on ``threads``
    pool threads, ``consume`` on the calling thread in submission order (after ``emit`` on
    a pool thread, one batch at a time in the same order, when given)."""

    def __init__(
        self,
        work: Callable[[list[Any]], Any],
        consume: Callable[[Any], None],
        *,
        emit: Callable[[Any], None] | None = None,
        threads: int = 2,
        batch_bytes: int = 1 << 20,
        batch_items: int = 4096,
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
        self._workers: list[threading.Thread] = []
        # one lock; the pool threads wait on ``_work_ready``, the calling thread on ``_ready``
        self._lock = threading.Lock()
        self._work_ready = threading.Condition(self._lock)
        self._ready = threading.Condition(self._lock)
        self._emit_lock = threading.Lock()  # one emitter at a time, in order
        self._todo: deque[tuple[int, list[Any]]] = deque()  # handed over, not started
        self._worked: dict[int, Any] = {}  # worked, waiting for the batches before to emit
        self._results: dict[int, Any] = {}  # emitted (or worked, without emit): to consume
        self._next_emit = 0
        self._next_consume = 0
        self._handed = 0
        self._stopping = False
        self._emit_failed = False
        self._sizes: deque[int] = deque()  # bytes of each batch in flight, oldest first
        self._in_flight_bytes = 0
        self._batch: list[Any] = []
        self._batch_size = 0
        self._closed = False
        self._error: BaseException | None = None

    @property
    def threads(self) -> int:
        """Pool threads working on batches."""
        return self._threads

    @property
    def in_flight(self) -> int:
        """Batches handed over and not consumed yet."""
        return self._handed - self._next_consume

    def submit(self, item: Any, size: int) -> None:
        """Add ``item`` (``size``: its bytes, for the batch and memory bounds); may consume
        earlier batches (and raise their error)."""
        if self._error is not None or self._closed:
            self._check_usable()
        self._batch.append(item)
        self._batch_size += size
        if self._batch_size >= self._batch_bytes or len(self._batch) >= self._batch_items:
            self._hand_over()
            while self._next_consume in self._results:  # ready: no wait, no lock
                self._consume_oldest()
            while self._over_budget():
                self._consume_oldest()

    def flush(self) -> None:
        """Process and consume every submitted item (raises the first error, if any)."""
        self._check_usable()
        if self._batch:
            self._hand_over()
        while self._next_consume < self._handed:
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
        count = self.in_flight
        if count > self._depth:
            return True
        return count > 1 and self._in_flight_bytes > self._depth * self._batch_bytes

    def _check_usable(self) -> None:
        if self._error is not None:
            raise self._error
        if self._closed:
            raise ValueError("OrderedBatches is closed")

    def _hand_over(self) -> None:
        """Queue the batch being filled for the pool: one lock round trip per batch, and a
        wake-up only when a pool thread is idle."""
        batch, size = self._batch, self._batch_size
        self._batch, self._batch_size = [], 0
        if not self._workers:
            _SwitchInterval.enter()
            self._stopping = False
            for n in range(self._threads):
                thread = threading.Thread(target=self._run, name=f"{self._name}_{n}", daemon=True)
                self._workers.append(thread)
                thread.start()
        with self._lock:
            self._todo.append((self._handed, batch))
            self._work_ready.notify()
        self._handed += 1
        self._sizes.append(size)
        self._in_flight_bytes += size

    def _run(self) -> None:
        """A pool thread: work on batches in hand-over order; then emit whatever is next."""
        while True:
            with self._lock:
                while not self._todo and not self._stopping:
                    self._work_ready.wait()
                if self._stopping:
                    return
                seq, batch = self._todo.popleft()
            try:
                result: Any = self._work(batch)
            except BaseException as exc:
                result = _Failed(exc)
            del batch
            if self._emit is None:
                with self._lock:
                    self._results[seq] = result
                    if seq == self._next_consume:
                        self._ready.notify()
                continue
            with self._lock:
                self._worked[seq] = result
            self._emit_ready()

    def _emit_ready(self) -> None:
        """Emit every worked batch that is next in order (whichever pool thread finished
        it); after a failed batch, the later ones are failed, not emitted."""
        while True:
            with self._emit_lock:
                with self._lock:
                    seq = self._next_emit
                    if seq not in self._worked or self._stopping:  # (stopping: dropped)
                        return
                    result = self._worked.pop(seq)
                if self._emit_failed and not isinstance(result, _Failed):
                    result = _Failed(RuntimeError("not emitted: an earlier batch failed"))
                if isinstance(result, _Failed):
                    self._emit_failed = True
                else:
                    try:
                        self._emit(result)  # type: ignore[misc]
                    except BaseException as exc:
                        self._emit_failed = True
                        result = _Failed(exc)
                with self._lock:
                    self._results[seq] = result
                    self._next_emit = seq + 1
                    if seq == self._next_consume:
                        self._ready.notify()

    def _consume_oldest(self) -> None:
        seq = self._next_consume
        result = self._results.pop(seq, _MISSING)
        if result is _MISSING:
            with self._lock:
                while seq not in self._results:
                    self._ready.wait()
                result = self._results.pop(seq)
        self._next_consume = seq + 1
        self._in_flight_bytes -= self._sizes.popleft()
        try:
            if isinstance(result, _Failed):
                raise result.error
            self._consume(result)
        except BaseException as exc:
            self._error = exc
            self._drop_pending()
            raise

    def _drop_pending(self) -> None:
        """Forget batches not consumed and stop the threads (waiting for running work)."""
        self._batch = []
        workers, self._workers = self._workers, []
        with self._lock:
            self._todo.clear()
            self._stopping = True
            self._work_ready.notify_all()
        for thread in workers:
            thread.join()
        self._worked.clear()
        self._results.clear()
        self._sizes.clear()
        self._in_flight_bytes = 0
        self._next_consume = self._next_emit = self._handed
        if workers:
            _SwitchInterval.leave()


#: a result not there yet
_MISSING = object()
