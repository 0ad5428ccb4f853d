"""The driver of the standalone-cluster tests (tests/core/test_spark_cluster.py), run as
``python spark_cluster_driver.py SCENARIOS.json`` in its own process: Spark allows one
SparkContext per process, and the test process may hold the session's ``local[2]`` one.

Each scenario is ``{"name", "argv", "env", "kill": PID or null}``: the scenario's environment
is set, ``crawlmill`` runs with ``argv`` in this process (its contexts share this process's one
JVM), and with ``kill`` the JVM of that pid gets ``kill -9`` once two Spark tasks run (both
workers busy). Prints one JSON line: ``{name: {"code", "err", "killed"}}``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
import threading
import time


def _killer(pid: int, done: threading.Event, killed: list[float]) -> None:
    """``kill -9 pid`` once the running context has two active tasks (a worker's task)."""
    from pyspark import SparkContext

    deadline = time.monotonic() + 300
    while not done.is_set() and time.monotonic() < deadline:
        sc = SparkContext._active_spark_context
        if sc is not None:
            active = 0
            try:
                tracker = sc.statusTracker()
                for stage in tracker.getActiveStageIds():
                    info = tracker.getStageInfo(stage)
                    active += info.numActiveTasks if info is not None else 0
            except AttributeError:  # the context is still starting
                pass
            if active >= 2:
                time.sleep(0.5)  # the tasks are past their start
                os.kill(pid, signal.SIGKILL)
                killed.append(time.monotonic())
                return
        time.sleep(0.05)


def main(path: str) -> None:
    """Run the scenarios of the JSON file ``path``; print their outcomes as one JSON line."""
    from crawlmill.core.commands.cli import main as crawlmill

    with open(path) as fh:
        scenarios = json.load(fh)
    results = {}
    for scenario in scenarios:
        for key, value in scenario.get("env", {}).items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        done = threading.Event()
        killed: list[float] = []
        thread = None
        if scenario.get("kill"):
            thread = threading.Thread(target=_killer, args=(scenario["kill"], done, killed))
            thread.start()
        err = io.StringIO()
        started = time.monotonic()
        with contextlib.redirect_stderr(err):
            code = crawlmill(scenario["argv"])
        done.set()
        if thread is not None:
            thread.join()
        results[scenario["name"]] = {
            "code": code,
            "err": err.getvalue(),
            "killed": bool(killed),
            "seconds": round(time.monotonic() - started, 1),
        }
        if scenario.get("stop"):  # a next scenario needs a context of its own
            from crawlmill.core.run import spark_executor

            spark_executor.stop_context()
    sys.stdout.write(json.dumps(results) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
