"""The local process pool's crash handling at the mechanism: the stop flag no dead process can
lock, a fresh event queue after a broken pool, and a pool found broken when a task is
submitted (a worker died while idle, or between the harvest and the submit)."""

from __future__ import annotations

import multiprocessing
import operator
from concurrent.futures.process import BrokenProcessPool

from crawlmill.core.run import executor
from crawlmill.core.run.executor import LocalExecutor, SharedFlag, WorkerCrash


def test_shared_flag_is_seen_by_a_spawned_process():
    ctx = multiprocessing.get_context("spawn")
    flag = SharedFlag(ctx)
    assert not flag.is_set()
    flag.set()
    assert flag.is_set()
    ex = LocalExecutor(2)
    try:
        ex.channel.request_stop()
        results = dict(ex.map(_stop_seen, [0, 1]))
    finally:
        ex.close()
    assert results == {0: True, 1: True}


def _stop_seen(_payload: int) -> bool:
    return executor.current_channel().stop_requested()


class _BreaksOnFirstSubmit:
    """A pool that raises BrokenProcessPool on its first submit, as a pool whose idle worker
    died does; later pools work."""

    def __init__(self, pool) -> None:
        self._pool = pool
        self.failed = False

    def submit(self, fn, *args):
        if not self.failed:
            self.failed = True
            raise BrokenProcessPool("a worker died while idle")
        return self._pool.submit(fn, *args)

    def shutdown(self, **kwargs):
        return self._pool.shutdown(**kwargs)


def test_a_pool_broken_before_submit_loses_no_task_and_renews_the_event_queue(monkeypatch):
    ex = LocalExecutor(2)
    first_queue = ex.channel._events
    made = []
    real_pool = LocalExecutor._pool

    def pool(self, size):
        p = real_pool(self, size)
        if not made:
            p = _BreaksOnFirstSubmit(p)
            self._pools[-1] = p
        made.append(p)
        return p

    monkeypatch.setattr(LocalExecutor, "_pool", pool)
    try:
        results = dict(ex.map(operator.neg, list(range(6))))
    finally:
        ex.close()
    assert results == {i: -i for i in range(6)}
    assert not any(isinstance(r, WorkerCrash) for r in results.values())
    assert len(made) == 2 and made[0].failed
    assert ex.channel._events is not first_queue  # the broken pool's queue is not reused
