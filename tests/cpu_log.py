"""Per-test CPU accounting for finding what makes the suite slow (opt-in).

``CRAWLMILL_TEST_CPU_LOG=/tmp/cpu`` makes each test process (each xdist worker) append one JSON
line per test to ``/tmp/cpu.<worker>``: the node id, wall seconds, CPU seconds of the test
process (``cpu``) and of its descendants (``children``). CPU time, unlike wall time, barely
changes with the machine's load, so a run on a busy machine still ranks the tests by what they
cost a quiet CI machine. ``benchmarks/`` is where performance is measured (with
``benchmarks/tree_usage.py``, which catches a whole process tree); this only ranks tests.

``children`` is the CPU, during the test, of the child processes the test process waited for
(CLI subprocesses, pip, Java oracles) plus the change in the CPU of its live descendants read
from ``/proc`` (each one's own and its waited children's, zombies included): so the pool
workers of an in-process engine run, which are children of multiprocessing's forkserver (a
child of the test process that lives on from test to test), are counted in the test that ran
them, and so is the session's Spark JVM. NOT counted: descendants orphaned by a subprocess and
reparented to init, chiefly the forkserver and pool workers of a ``crawlmill`` CLI subprocess
run with several workers (the forkserver outlives the CLI process and nobody the test process
waits for reaps it). Making the test process a child subreaper that reaps them (as
``tree_usage`` does) could reap a child a test still means to wait for, so it is not done here.
Without ``/proc`` (macOS), only the waited children are counted.
"""

from __future__ import annotations

import json
import os
import time

import pytest

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _descendants_cpu(root: int) -> float:
    """CPU seconds (own + waited children's) of ``root``'s live and zombie descendants."""
    total, todo, seen = 0.0, [root], {root}
    while todo:
        pid = todo.pop()
        try:
            kids: list[int] = []
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/children", encoding="ascii") as f:
                    kids += [int(k) for k in f.read().split()]
        except (OSError, ValueError):
            continue  # gone meanwhile, or no /proc
        for kid in kids:
            if kid in seen:
                continue
            seen.add(kid)
            todo.append(kid)
            try:
                with open(f"/proc/{kid}/stat", encoding="ascii", errors="replace") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            # fields 14-17 of stat(5): utime stime cutime cstime (here from field 3 on)
            total += sum(int(x) for x in fields[11:15]) / _TICK
    return total


class CpuLog:
    """A pytest plugin appending each test's cost to one file per process."""

    def __init__(self, prefix: str) -> None:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self.path = f"{prefix}.{worker}"

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None):
        me = os.getpid()
        live, before, wall = _descendants_cpu(me), os.times(), time.perf_counter()
        yield
        after, live_after = os.times(), _descendants_cpu(me)
        row = {
            "test": item.nodeid,
            "wall": round(time.perf_counter() - wall, 3),
            "cpu": round(after.user + after.system - before.user - before.system, 3),
            "children": round(
                after.children_user
                + after.children_system
                - before.children_user
                - before.children_system
                + live_after
                - live,
                3,
            ),
        }
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")
