"""Batches worked on by a thread pool, consumed in order on the caller (formats.ordered_batches)."""

from __future__ import annotations

import random
import threading
import time

import pytest
from crawlmill.formats.codecs.ordered_batches import OrderedBatches


class Recorder:
    """Work that takes a random time per batch; consume that records order and thread."""

    def __init__(self, seed: int = 1) -> None:
        self.rng = random.Random(seed)
        self.consumed: list[int] = []
        self.consume_threads: set[int] = set()
        self.work_threads: set[int] = set()
        self.batch_lengths: list[int] = []
        self.lock = threading.Lock()

    def work(self, batch: list[int]) -> list[int]:
        with self.lock:
            delay = self.rng.random() * 0.004
            self.work_threads.add(threading.get_ident())
            self.batch_lengths.append(len(batch))
        time.sleep(delay)  # later batches often finish first
        return [item * 10 for item in batch]

    def consume(self, results: list[int]) -> None:
        self.consume_threads.add(threading.get_ident())
        self.consumed.extend(results)


def _pool_threads(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(name)]


def test_results_are_consumed_in_submission_order_on_the_calling_thread():
    rec = Recorder()
    batches = OrderedBatches(rec.work, rec.consume, threads=3, batch_items=3, name="ob-order")
    for i in range(200):
        batches.submit(i, 1)
    batches.close()
    assert rec.consumed == [i * 10 for i in range(200)]
    assert rec.consume_threads == {threading.get_ident()}
    assert threading.get_ident() not in rec.work_threads
    assert len(rec.work_threads) > 1  # the work really ran on several threads
    assert _pool_threads("ob-order") == []


def test_batches_end_at_the_item_or_byte_bound():
    rec = Recorder()
    batches = OrderedBatches(rec.work, rec.consume, batch_bytes=100, batch_items=5)
    for size in [10, 10, 10, 10, 10, 10, 200, 1, 1]:
        batches.submit(size, size)
    batches.flush()
    # 5 items; then 10 + 200 crosses 100 bytes; then the 2 left over at flush
    assert rec.batch_lengths == [5, 2, 2]
    batches.close()


def test_in_flight_batches_are_bounded():
    consumed: list[int] = []

    def work(batch):
        time.sleep(0.001)
        return batch

    batches = OrderedBatches(work, consumed.extend, threads=2, batch_items=1, depth=3)
    outstanding = []
    for i in range(60):
        batches.submit(i, 1)  # one item per batch: each submit hands a batch over
        outstanding.append(i + 1 - len(consumed))
    batches.close()
    assert consumed == list(range(60))
    # submit runs ahead of consume (the point), but never more than ``depth`` batches
    assert max(outstanding) == 3


def test_huge_items_are_not_queued_behind_each_other():
    consumed: list[int] = []

    def work(batch):
        time.sleep(0.001)
        return batch

    batches = OrderedBatches(work, consumed.extend, batch_bytes=100, depth=4)
    outstanding = []
    for i in range(20):
        batches.submit(i, 10_000)  # each item is a batch far over the byte budget
        outstanding.append(i + 1 - len(consumed))
    batches.close()
    assert consumed == list(range(20))
    assert max(outstanding) == 1  # one huge batch in flight while the next is read


@pytest.mark.parametrize("failing", ["work", "consume"])
def test_an_error_surfaces_on_the_caller_and_nothing_after_it_is_consumed(failing):
    consumed: list[int] = []

    def work(batch):
        if failing == "work" and 7 in batch:
            raise OSError("disk full")
        return batch

    def consume(batch):
        if failing == "consume" and 7 in batch:
            raise OSError("disk full")
        consumed.extend(batch)

    batches = OrderedBatches(work, consume, batch_items=1, name="ob-error")
    with pytest.raises(OSError, match="disk full"):
        for i in range(100):
            batches.submit(i, 1)
        batches.flush()
    assert consumed == list(range(7))
    with pytest.raises(OSError, match="disk full"):  # every later call raises it again
        batches.submit(100, 1)
    with pytest.raises(OSError, match="disk full"):
        batches.close()
    assert _pool_threads("ob-error") == []
    batches.close()  # idempotent once closed


def test_an_idle_instance_starts_no_thread_and_refuses_work_once_closed():
    before = len(threading.enumerate())
    batches = OrderedBatches(lambda b: b, lambda r: None, name="ob-idle")
    assert len(threading.enumerate()) == before
    batches.flush()
    batches.close()
    with pytest.raises(ValueError):
        batches.submit(1, 1)


def test_the_switch_interval_is_short_while_a_pool_runs_and_restored_after():
    """Pool threads get the GIL back after a digest or deflate within about a millisecond,
    not the default 5 ms, while any pool runs; the user's value comes back after the last."""
    import sys

    from crawlmill.formats.codecs.ordered_batches import POOL_SWITCH_INTERVAL

    before = sys.getswitchinterval()
    seen: list[float] = []
    first = OrderedBatches(
        lambda b: b, lambda r: seen.append(sys.getswitchinterval()), batch_items=1
    )
    second = OrderedBatches(lambda b: b, lambda r: None, batch_items=1)
    first.submit(1, 1)
    second.submit(2, 1)
    first.close()
    assert seen == [POOL_SWITCH_INTERVAL]
    assert sys.getswitchinterval() == POOL_SWITCH_INTERVAL  # the second pool still runs
    second.close()
    assert sys.getswitchinterval() == before


def test_emit_runs_on_pool_threads_one_at_a_time_in_order_before_consume():
    emitted: list[int] = []
    emit_threads: set[str] = set()
    consumed: list[tuple[int, bool]] = []
    running = [0]
    overlap: list[int] = []

    def emit(result):
        running[0] += 1
        overlap.append(running[0])
        emit_threads.add(threading.current_thread().name)
        time.sleep(0.0002)
        emitted.extend(result)
        running[0] -= 1

    def consume(result):
        consumed.extend((item, item in emitted) for item in result)

    def work(batch):
        time.sleep(0.001 * (batch[0] % 3))  # later batches may finish first
        return batch

    batches = OrderedBatches(work, consume, emit=emit, threads=3, batch_items=2, name="ob-emit")
    for i in range(200):
        batches.submit(i, 1)
    batches.close()
    assert emitted == list(range(200))
    assert consumed == [(i, True) for i in range(200)]  # consumed after it was emitted
    assert set(overlap) == {1}  # never two emits at once
    assert emit_threads and all(name.startswith("ob-emit") for name in emit_threads)
    assert threading.current_thread().name not in emit_threads
    assert not [t for t in threading.enumerate() if t.name.startswith("ob-emit")]


def test_one_hand_over_per_batch_of_bytes_however_small_the_items():
    """Batches end by bytes: 10,000 items of 100 bytes make 10 batches of 1,000 items."""
    lengths: list[int] = []
    consumed: list[int] = []

    def work(batch):
        lengths.append(len(batch))
        return batch

    batches = OrderedBatches(work, consumed.extend, batch_bytes=100_000)
    for i in range(10_000):
        batches.submit(i, 100)
    batches.close()
    assert consumed == list(range(10_000))
    assert lengths == [1000] * 10


@pytest.mark.parametrize("stage", ["work", "emit"])
def test_nothing_after_a_failed_batch_is_emitted(stage):
    emitted: list[int] = []

    def work(batch):
        if stage == "work" and 10 in batch:
            raise RuntimeError("work failed at 10")
        return batch

    def emit(result):
        if stage == "emit" and 10 in result:
            raise RuntimeError("emit failed at 10")
        emitted.extend(result)

    batches = OrderedBatches(work, lambda r: None, emit=emit, threads=2, batch_items=1)
    with pytest.raises(RuntimeError, match="failed at 10"):
        for i in range(100):
            batches.submit(i, 1)
        batches.flush()
    with pytest.raises(RuntimeError, match="failed at 10"):
        batches.close()
    assert emitted == list(range(10))
