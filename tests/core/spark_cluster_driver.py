"""The driver of the standalone-cluster tests (tests/core/test_spark_cluster.py), run as
``python spark_cluster_driver.py SCENARIOS.json`` in its own process: Spark allows one
SparkContext per process, and the test process may hold the session's ``local[2]`` one.

Each scenario is ``{"name", "argv", "env", "kill": PID or null, "gate": PATH or null}``: the
scenario's environment is set, ``crawlmill`` runs with ``argv`` in this process (its contexts
share this process's one JVM), and with ``kill`` the worker JVM of that pid gets ``kill -9``
while both workers' tasks are held at ``gate`` (the ``fake-sleep`` filter's gate option,
tests/core/fake_plugins/cm_fake.py), not when a clock says so: once two tasks wait there and
the progress line counts their first records, the worker is killed, and the gate opens once
the killed worker's task process is gone (its rerun on the other worker passes the open gate).
Prints one JSON line: ``{name: {"code", "err", "killed"}}``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import sys
import threading
import time

#: how long the killer waits for the tasks to reach the gate, and for the killed worker's task
#: process to end (a loaded machine is slow; a bound, so a failure ends the run, not hangs it).
WAIT_SECONDS = 300


def _waiting(gate: str) -> list[int]:
    """The processes of the tasks that found ``gate`` shut (``<gate>.waiting-<pid>``)."""
    folder, name = os.path.split(gate)
    prefix = f"{name}.waiting-"
    return [int(n[len(prefix) :]) for n in os.listdir(folder) if n.startswith(prefix)]


def _descends(pid: int, ancestor: int) -> bool:
    """Whether process ``pid`` runs below process ``ancestor`` (its parents' chain)."""
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            with open(f"/proc/{pid}/stat") as fh:
                pid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (exists and is no zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _killer(pid: int, gate: str, err: io.StringIO, done: threading.Event,
            killed: list[float]) -> None:  # fmt: skip
    """``kill -9 pid`` (a worker JVM) while both workers' tasks wait at ``gate`` and the live
    progress line counts their records; then open the gate once the killed worker's task
    process is gone. The gate opens in any case when this returns."""
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while not done.is_set() and time.monotonic() < deadline:
            waiting = _waiting(gate)
            counted = re.search(r"crawlmill: 0/\d+ inputs, [1-9]", err.getvalue())
            if len(waiting) >= 2 and counted:
                break
            time.sleep(0.05)
        else:
            return
        lost = [p for p in waiting if _descends(p, pid)]
        os.kill(pid, signal.SIGKILL)
        killed.append(time.monotonic())
        deadline = time.monotonic() + WAIT_SECONDS
        while any(_alive(p) for p in lost) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        with open(gate, "w"):
            pass


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
        err = io.StringIO()
        if scenario.get("kill"):
            args = (scenario["kill"], scenario["gate"], err, done, killed)
            thread = threading.Thread(target=_killer, args=args)
            thread.start()
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
