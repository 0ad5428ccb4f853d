"""A writer's sorted shuffle on Spark's own shuffle and sort (the ``spark`` executor's
``shuffle()``; the local executor spills run files instead, :mod:`crawlmill.core.run.shuffle`).

The driver (:mod:`crawlmill.core.run.shuffle.run`) runs the same two passes on it as on the local
shuffle, with the same task functions and payloads:

1. :meth:`SparkShuffle.map`: the map payloads become an RDD with one partition per input,
   mapped by :func:`_map_partition`, which runs the map task (``map_task(payload, sink)``) in a
   thread of the Python worker and yields each entry ``(partition, key, input, seq, blob)``
   the task hands to its sink (a bounded queue: memory holds a few entries, not an input),
   then the task's pickled result. That RDD is persisted (memory and disk) and each
   partition is its own job that returns only the result (:meth:`SparkExecutor.jobs`), so
   results and progress come back per task as with the plain executor, and the entries stay
   in Spark's block manager for the shuffle. Map markers list no run files (``runs: null``);
   range partitioning's key samples are written beside the markers as locally.
2. :meth:`SparkShuffle.partitions`: the entries keyed ``(partition, key, input, seq)``
   (range: the partition is the count of boundaries ``<=`` the key, the ``[lo, hi)`` of the
   local merge) go through ``repartitionAndSortWithinPartitions`` (partition function: the
   key's first field; sorted by the whole key, so by ``(key, input, seq)``: unsigned bytes,
   ties in input order, what the local merge gives). Each unfinished partition is one job on
   that RDD whose function (:func:`_write_partition`) hands the sorted entries to
   ``partition_task(payload, entries)``: the same writer task, commit and marker as locally,
   so the files are byte for byte the local shuffle's.

Resume: Spark's shuffle files belong to the Spark application, so nothing of an unfinished
shuffle survives a killed run. A finished partition has its completion marker and files as
locally and is not redone; a rerun of a run killed before every partition finished runs
every map task again (every input is read again) and writes the partitions without a marker.
A rerun of a run that finished does nothing. Within a run, Spark recomputes a lost cached
map partition from its input (running the map task again, which rewrites its marker and
quarantine with the same bytes).
"""

from __future__ import annotations

import bisect
import contextlib
import pickle
import queue
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

from .channel import WorkerCrash
from .spark_worker import crawlmill_version, driver_env, dump_result, prepare_worker, run_one

__all__ = ["SparkShuffle"]

#: entries a map task may have queued before Spark took them.
QUEUE_ENTRIES = 64
#: the first field of the item that carries a map task's result (entries have a partition).
RESULT = -1
_DONE = object()


class _QueueSink:
    """A map task's sink: each entry onto a bounded queue that :func:`_map_partition` empties."""

    def __init__(self, out: queue.Queue) -> None:
        self.out = out

    def add(self, partition: int, key: bytes, input: int, seq: int, blob: bytes) -> None:
        """Hand one entry to Spark (blocks while the queue is full)."""
        self.out.put((partition, key, input, seq, blob))

    def close(self) -> list[str]:
        """No run files."""
        return []

    def abort(self) -> None:
        """Nothing to remove: a failed map task's entries are never shuffled (the run stops)."""


def _map_partition(
    fn_blob: bytes,
    sys_path: list[str],
    driver_version: str,
    env: Mapping[str, str],
    pairs: Iterable[tuple[int, bytes]],
) -> Iterator[tuple]:
    """Run the map task of each ``(i, pickled payload)`` (one per partition) in a thread,
    yielding its entries as it produces them, then ``(RESULT, i, pickled (result, events))``."""
    refused = prepare_worker(sys_path, driver_version, env)
    for i, blob in pairs:
        if refused is not None:
            yield RESULT, i, dump_result((WorkerCrash(refused), []))
            continue
        entries: queue.Queue = queue.Queue(QUEUE_ENTRIES)
        out: list[tuple[Any, list[tuple]]] = []
        thread = threading.Thread(
            target=_map_work, args=(fn_blob, blob, entries, out), name="crawlmill-map", daemon=True
        )
        thread.start()
        while (item := entries.get()) is not _DONE:
            yield item
        thread.join()
        yield RESULT, i, dump_result(out[0])


def _map_work(fn_blob: bytes, blob: bytes, entries: queue.Queue, out: list) -> None:
    """The map task of ``blob`` with a sink onto ``entries`` (a thread of the worker); its
    ``(result, events)`` appended to ``out``, then the end mark queued."""
    try:
        fn = pickle.loads(fn_blob)
        out.append(run_one(fn, blob, _QueueSink(entries)))
    except Exception as exc:  # fn could not be unpickled here
        out.append((WorkerCrash(f"{type(exc).__name__}: {exc}"), []))
    finally:
        entries.put(_DONE)


def _results(items: Iterable[tuple]) -> list[tuple[int, bytes]]:
    """A map partition's result (its entries stay in the persisted RDD)."""
    return [(item[1], item[2]) for item in items if item[0] == RESULT]


def _is_entry(item: tuple) -> bool:
    return item[0] != RESULT


def _keyed(bounds: list[bytes] | None, item: tuple) -> tuple[tuple[int, bytes, int, int], bytes]:
    """``((partition, key, input, seq), blob)``; range (``bounds``): the partition whose
    ``[lo, hi)`` holds the key."""
    partition, key, input, seq, blob = item
    if bounds is not None:
        partition = bisect.bisect_right(bounds, key)
    return (partition, key, input, seq), blob


def _partition_of(key: tuple[int, bytes, int, int]) -> int:
    return key[0]


def _same(key: Any) -> Any:
    return key


def _write_partition(
    fn_blob: bytes,
    payload_blob: bytes,
    i: int,
    sys_path: list[str],
    driver_version: str,
    env: Mapping[str, str],
    items: Iterable[tuple[tuple[int, bytes, int, int], bytes]],
) -> list[tuple[int, bytes]]:
    """One partition's sorted entries into ``partition_task(payload, entries)``."""
    refused = prepare_worker(sys_path, driver_version, env)
    if refused is not None:
        return [(i, dump_result((WorkerCrash(refused), [])))]
    entries = ((key[1], key[2], key[3], blob) for key, blob in items)
    try:
        fn = pickle.loads(fn_blob)
        out = run_one(fn, payload_blob, entries)
    except Exception as exc:
        out = (WorkerCrash(f"{type(exc).__name__}: {exc}"), [])
    return [(i, dump_result(out))]


class SparkShuffle:
    """One sorted shuffle on :attr:`executor`'s Spark context (see the module docstring)."""

    def __init__(self, executor: Any, shuffle: Any) -> None:
        self.executor = executor
        self.shuffle = shuffle
        self._entries: Any = None  # the persisted RDD of the map pass

    def _ship(self, fn: Callable) -> tuple[bytes, list[str], str, dict[str, str]]:
        try:
            fn_blob = pickle.dumps(fn)
        except Exception as exc:
            raise TypeError(f"shuffle task functions ship by reference: {fn!r} ({exc})") from exc
        return fn_blob, list(sys.path), crawlmill_version(), driver_env()

    def map(self, fn: Callable, payloads: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        """Run ``fn(payload, sink)`` for each map payload; yield ``(i, result)`` as tasks end.
        Their entries are kept (memory and disk) for :meth:`partitions`."""
        from pyspark import StorageLevel

        if not payloads:
            return
        sc = self.executor.sc
        fn_blob, sys_path, version, env = self._ship(fn)
        pairs = [(i, pickle.dumps(p)) for i, p in enumerate(payloads)]
        rdd = sc.parallelize(pairs, len(pairs)).mapPartitions(
            partial(_map_partition, fn_blob, sys_path, version, env)
        )
        rdd.persist(StorageLevel.MEMORY_AND_DISK)
        self._entries = rdd
        jobs = [(i, rdd, i, _results) for i in range(len(pairs))]
        yield from self.executor.jobs(jobs)

    def partitions(
        self,
        fn: Callable,
        payloads: Sequence[Any],
        which: Sequence[int],
        bounds: Sequence[bytes],
    ) -> Iterator[tuple[int, Any]]:
        """Run ``fn(payloads[j], entries)`` for partition ``which[j]`` with its entries in
        ``(key, input, seq)`` order from Spark's shuffle; yield ``(j, result)`` as they end."""
        if not payloads:
            return
        if self._entries is None:
            raise RuntimeError("the shuffle's map pass did not run")
        n = self.shuffle.partitions
        ranged = list(bounds) if self.shuffle.partitioning == "range" else None
        shuffled = (
            self._entries.filter(_is_entry)
            .map(partial(_keyed, ranged))
            .repartitionAndSortWithinPartitions(n, _partition_of, True, _same)
        )
        fn_blob, sys_path, version, env = self._ship(fn)
        jobs = []
        for j, (part, payload) in enumerate(zip(which, payloads, strict=True)):
            write = partial(
                _write_partition, fn_blob, pickle.dumps(payload), j, sys_path, version, env
            )
            jobs.append((j, shuffled, part, write))
        yield from self.executor.jobs(jobs)

    def close(self) -> None:
        """Drop the map pass's entries from Spark's storage."""
        entries, self._entries = self._entries, None
        if entries is not None:
            with contextlib.suppress(Exception):  # the context went away
                entries.unpersist()
