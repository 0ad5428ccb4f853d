"""Executors run task payloads (plain data: the engine's are
:class:`~crawlmill.core.messages.TaskPayload`) with a task function and yield their results
(the engine's: :class:`~crawlmill.core.messages.TaskResult`).

The interface is deliberately small so that other backends are another class, not a rewrite
(:mod:`crawlmill.core.run.spark_executor`: one Spark partition per payload):

* :meth:`Executor.map` ``(fn, payloads)`` yields ``(i, result)`` as tasks finish, in any
  order; ``result`` is what ``fn(payloads[i])`` returned, or a :class:`WorkerCrash` when the
  process running it died or the call could not be made. It never hangs on a dead worker.
* :meth:`Executor.cancel` stops starting new payloads (those are then never yielded).
* :attr:`Executor.channel` carries small events from tasks to the parent (progress, damage
  logs) and a stop flag from the parent to tasks; inside a task, :func:`current_channel`
  returns it.

:class:`LocalExecutor` is a ``concurrent.futures.ProcessPoolExecutor`` whose workers start so
that no lock held by a parent thread (the progress thread, queue feeder threads, pluggy or
logging locks) can be copied in a locked state, as it can with ``fork``: on Linux and macOS
each is forked from multiprocessing's **forkserver**, a single-threaded server process that
imported crawlmill's run machinery once (a worker costs a fork, not an interpreter start and
~0.3 s of imports); on Windows, or with ``CRAWLMILL_START_METHOD=spawn``, each is spawned
from a fresh interpreter (:mod:`~crawlmill.core.run.pool_start` says which and why). Either
way a worker gets the parent's ``sys.path`` and ``os.environ`` of when its pool started, so
plugin modules importable in the parent (e.g. a ``plugins:`` module next to a config) are
importable in workers, and it rebuilds the plugin registry from the spec (a plugin installed
since is found). Workers are reused, by the tasks of a :meth:`LocalExecutor.map` and of the
maps after it (the pool is kept between maps; a run's stages of as many workers share one
executor: :func:`~crawlmill.core.run.stage.run_stages`). As with any spawn pool, a script
calling ``engine.run`` must guard its entry point with ``if __name__ == "__main__"``.

Parent death: every worker watches its parent (:func:`multiprocessing.parent_process`'s
sentinel, a pipe whose other end the parent holds, not the forkserver, so its EOF means the
parent is gone, also after ``kill -9``) on a daemon thread and exits at once, without touching any file: the run lock
died with the parent, so a worker must not commit outputs or clean folders a rerun may
already own. :func:`parent_alive` lets a task re-check right before it commits.

Sizing: :func:`pool_size` starts worker processes only when they pay for themselves (more than
one input and at least :data:`BYTES_PER_WORKER` of input per worker) unless the user set the
worker count; otherwise tasks run in-process, where a small job is several times faster.

Interruption: :func:`interruptible` turns SIGTERM into :class:`KeyboardInterrupt` in the main
thread while a run executes, so Ctrl-C and ``kill`` take the same path (cancel the tasks,
write the report with what was done).

Crash handling: at most ``workers`` tasks are in flight, so every in-flight task is running.
When a worker dies the pool breaks; the tasks in flight are retried one at a time, each in a
fresh one-worker pool, so the task that kills its worker is identified and reported as a
:class:`WorkerCrash` while the others complete. A worker can die holding the event queue's
write lock (a process semaphore nobody will release: killed while its feeder thread posts
progress), after which every other writer, and the exit of every process that posted, would
block for ever; so each pool that follows a broken one gets a fresh event queue (the old one
is abandoned unread, since it may end in half a message: a few live progress events lost, the
report is unaffected), and the stop flag is a lock-free shared byte (:class:`SharedFlag`). :class:`InProcessExecutor` (``workers == 1``)
runs tasks in the calling process, for easy debugging.
"""

from __future__ import annotations

import contextlib
import os
import queue as queue_mod
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .channel import (
    ORPHAN_EXIT,
    Channel,
    Executor,
    WorkerCrash,
    current_channel,
    parent_alive,
    use_channel,
)

if TYPE_CHECKING:  # imported when a LocalExecutor is made: in-process runs need neither
    from concurrent.futures import Future, ProcessPoolExecutor

__all__ = [
    "BYTES_PER_WORKER",
    "ORPHAN_EXIT",
    "Channel",
    "Executor",
    "InProcessExecutor",
    "LocalExecutor",
    "SharedFlag",
    "WorkerCrash",
    "current_channel",
    "interruptible",
    "make_executor",
    "parent_alive",
    "pool_size",
]

#: input bytes per worker below which another worker process costs more than it saves (a
#: worker costs about 0.1-0.5 s to start and import; conversion runs at tens of MB/s).
BYTES_PER_WORKER = 32 * 1024 * 1024


class SharedFlag:
    """A flag shared with spawned processes through one byte of shared memory, read and
    written without a lock, so no process that dies can leave it locked (unlike
    ``multiprocessing.Event``)."""

    def __init__(self, ctx: Any) -> None:
        self._byte = ctx.RawValue("b", 0)

    def set(self) -> None:
        """Raise the flag."""
        self._byte.value = 1

    def is_set(self) -> bool:
        """True once raised."""
        return self._byte.value != 0


def pool_size(requested: int, sizes: Iterable[int | None], *, explicit: bool = False) -> int:
    """How many worker processes to run for inputs of ``sizes`` bytes (1: in-process).

    Never more than one per input. A worker count the user set (``explicit``) is used as it
    is; the default (``requested`` = the number of cores) is cut to one worker per
    :data:`BYTES_PER_WORKER` of input, so a small job runs in-process."""
    sizes = list(sizes)
    workers = min(max(1, requested), max(1, len(sizes)))
    if explicit:
        return workers
    total = sum(s or 0 for s in sizes)
    return max(1, min(workers, total // BYTES_PER_WORKER))


def _watch_parent() -> None:
    """Exit this worker as soon as its parent dies (see the module docstring)."""
    import multiprocessing
    from multiprocessing.connection import wait as wait_for

    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        with contextlib.suppress(Exception):
            wait_for([parent.sentinel])  # readable (EOF) once the parent is gone
        os._exit(ORPHAN_EXIT)

    threading.Thread(target=watch, name="crawlmill-parent-watch", daemon=True).start()


class Terminated(KeyboardInterrupt):
    """A signal (SIGTERM) that stops the run as Ctrl-C does; ``signum`` is the signal, so
    the command exits with the shell's ``128 + signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated by signal {signum}")
        self.signum = signum


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """While inside, SIGTERM raises :class:`Terminated` (a ``KeyboardInterrupt``) in the main
    thread, as Ctrl-C does; the previous handler is restored afterwards. Outside the main
    thread it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, frame: Any) -> None:
        raise Terminated(signum)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _init_worker(events: Any, stop: Any, sys_path: list[str], environ: dict[str, str]) -> None:
    from .pool_start import adopt

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; tasks watch the stop flag
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _watch_parent()
    adopt(environ)  # a forked worker has the forkserver's environment
    for entry in reversed(sys_path):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    use_channel(Channel(events, stop))


class InProcessExecutor(Executor):
    """Runs tasks one after the other in the calling process."""

    def __init__(self) -> None:
        self.channel = Channel(queue_mod.Queue(), threading.Event())

    def map(self, fn: Callable[[Any], Any], payloads: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        """Run each payload in turn."""
        previous = use_channel(self.channel)
        try:
            for i, payload in enumerate(payloads):
                if self.cancelled:
                    return
                try:
                    result = fn(payload)
                except (
                    Exception
                ) as exc:  # the task function reports its own errors; belt and braces
                    result = WorkerCrash(f"{type(exc).__name__}: {exc}")
                yield i, result
        finally:
            use_channel(previous)


class LocalExecutor(Executor):
    """A process pool of ``workers`` processes, forked from the forkserver or spawned."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        from .pool_start import context

        self._ctx = context()
        self.channel = Channel(self._ctx.Queue(), SharedFlag(self._ctx))
        self._pools: list[ProcessPoolExecutor] = []
        self._events_tainted = False
        #: the pool a finished :meth:`map` left running, for the next one (workers are reused:
        #: a pool starts its processes as tasks need them, each importing crawlmill once)
        self._kept: ProcessPoolExecutor | None = None

    def _pool(self, size: int) -> ProcessPoolExecutor:
        from concurrent.futures import ProcessPoolExecutor

        if self._events_tainted:  # a worker died: it may hold the event queue's lock
            self.channel.renew_events(self._ctx.Queue())
            self._events_tainted = False
        pool = ProcessPoolExecutor(
            max_workers=size,
            mp_context=self._ctx,
            initializer=_init_worker,
            initargs=(self.channel._events, self.channel._stop, list(sys.path), dict(os.environ)),
        )
        self._pools.append(pool)
        return pool

    def _drop(self, pool: ProcessPoolExecutor) -> None:
        pool.shutdown(wait=True, cancel_futures=True)
        if pool in self._pools:
            self._pools.remove(pool)

    def map(self, fn: Callable[[Any], Any], payloads: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        """Run payloads on the pool, at most ``workers`` at a time; isolate crashers."""
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        todo = deque(range(len(payloads)))
        suspects: list[int] = []
        if not todo:
            return
        size = min(self.workers, len(todo))
        if self._kept is not None and self._events_tainted:  # its workers hold the old queue
            self._drop(self._kept)
            self._kept = None
        pool, self._kept = self._kept or self._pool(self.workers), None
        running: dict[Future, int] = {}
        finished_ok = False
        try:
            while todo or running:
                while todo and len(running) < size and not self.cancelled:
                    try:
                        running[pool.submit(fn, payloads[todo[0]])] = todo[0]
                    except BrokenProcessPool:  # a worker died since the last harvest
                        if running:  # their futures fail now: the harvest below retries them
                            break
                        self._events_tainted = True  # an idle worker died: a new pool
                        self._drop(pool)
                        pool = self._pool(self.workers)
                        continue
                    todo.popleft()
                if not running:
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                finished, broken = _harvest(done, running)
                yield from finished
                if broken:
                    broken.extend(running.values())
                    running.clear()
                    self._events_tainted = True
                    self._drop(pool)
                    if len(broken) == 1:
                        yield broken[0], WorkerCrash(_CRASH)
                    else:
                        suspects.extend(broken)
                    pool = self._pool(self.workers)
            finished_ok = not running
        except BaseException:  # Ctrl-C or the consumer gave up: stop running tasks first
            self.cancel()
            raise
        finally:
            if finished_ok and not self.cancelled:
                self._kept = pool
            else:
                self._drop(pool)
        for i in sorted(suspects):
            if self.cancelled:
                return
            yield i, self._isolated(fn, payloads[i])

    def _isolated(self, fn: Callable[[Any], Any], payload: Any) -> Any:
        from concurrent.futures.process import BrokenProcessPool

        pool = self._pool(1)
        try:
            return pool.submit(fn, payload).result()
        except BrokenProcessPool:
            self._events_tainted = True
            return WorkerCrash(_CRASH)
        except Exception as exc:
            return WorkerCrash(f"{type(exc).__name__}: {exc}")
        finally:
            self._drop(pool)

    def close(self) -> None:
        """Shut down any pool left and the event queue."""
        self._kept = None
        for pool in list(self._pools):
            self._drop(pool)
        self.channel._events.close()
        self.channel._events.join_thread()


def _harvest(
    done: Iterable[Future], running: dict[Future, int]
) -> tuple[list[tuple[int, Any]], list[int]]:
    """Take the finished futures ``done`` out of ``running``: ``(i, result)`` of each that
    answered (a call that failed, e.g. an unpicklable payload, as a :class:`WorkerCrash`), and
    the indexes of those whose worker died (the pool broke)."""
    from concurrent.futures.process import BrokenProcessPool

    finished: list[tuple[int, Any]] = []
    broken: list[int] = []
    for fut in done:
        i = running.pop(fut)
        try:
            finished.append((i, fut.result()))
        except BrokenProcessPool:
            broken.append(i)
        except Exception as exc:  # e.g. a payload that cannot be pickled
            finished.append((i, WorkerCrash(f"{type(exc).__name__}: {exc}")))
    return finished, broken


_CRASH = "the worker process running this task died (killed by a signal, out of memory, or a crash in native code)"


def make_executor(name: str, workers: int, spark: Any = None) -> Executor:
    """The executor called ``name``: ``local`` with ``workers`` processes (1: in-process), or
    ``spark`` on the master and conf of ``spark`` (a :class:`~crawlmill.core.spec.SparkSpec`;
    ``workers`` is then Spark's: ``sc.defaultParallelism``). The Spark executor's module, and
    pyspark, are imported only here (:mod:`crawlmill.core.run.spark_executor`)."""
    if name == "spark":
        from .spark_executor import SparkExecutor

        master = getattr(spark, "master", None)
        return SparkExecutor(master, dict(getattr(spark, "conf", None) or {}))
    if name != "local":
        raise ValueError(f"unknown executor {name!r}")
    return InProcessExecutor() if workers <= 1 else LocalExecutor(workers)
