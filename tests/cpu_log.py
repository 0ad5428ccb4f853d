"""Per-test CPU accounting for finding what makes the suite slow (opt-in).

``CRAWLMILL_TEST_CPU_LOG=/tmp/cpu`` makes each test process (each xdist worker) append one JSON
line per test to ``/tmp/cpu.<worker>``: the node id, wall seconds, and CPU seconds of the test
process and of the child processes it waited for (CLI subprocesses, pip, Java oracles). CPU
time, unlike wall time, barely changes with the machine's load, so a run on a busy machine
still ranks the tests by what they cost a quiet CI machine. ``benchmarks/`` is where performance
is measured; this only ranks tests.
"""

from __future__ import annotations

import json
import os
import time

import pytest


class CpuLog:
    """A pytest plugin appending each test's cost to one file per process."""

    def __init__(self, prefix: str) -> None:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self.path = f"{prefix}.{worker}"

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None):
        before, wall = os.times(), time.perf_counter()
        yield
        after = os.times()
        row = {
            "test": item.nodeid,
            "wall": round(time.perf_counter() - wall, 3),
            "cpu": round(after.user + after.system - before.user - before.system, 3),
            "children": round(
                after.children_user
                + after.children_system
                - before.children_user
                - before.children_system,
                3,
            ),
        }
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")
