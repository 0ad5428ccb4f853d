"""Task functions the Spark executor tests run in Spark's Python workers.

They must be importable there by name (the executor ships functions by reference): the tests
put this folder on ``sys.path``, which the executor hands to the workers.
"""

from __future__ import annotations

import os
import time
from typing import Any

from crawlmill.core.run.executor import current_channel
from crawlmill.core.run.progress import TaskReporter


def echo(payload: dict[str, Any]) -> dict[str, Any]:
    """Sleep ``payload["sleep"]`` seconds (after writing the worker's pid to
    ``payload["pid_file"]``, if given); say who ran it and what it saw. With ``done_dir``, a
    task leaves a file named by its number there when it ends, and one with ``wait_for``
    first waits (up to 2 minutes) until that many others have, however loaded the machine."""
    if payload.get("pid_file"):
        with open(payload["pid_file"], "w") as fh:
            fh.write(str(os.getpid()))
    current_channel().post(("log", f"task {payload['i']} says hello"))
    current_channel().post(("progress", f"k{payload['i']}", 1, 10))
    current_channel().post(("progress", f"k{payload['i']}", 2, 20))
    done_dir = payload.get("done_dir")
    deadline = time.monotonic() + 120
    while done_dir and len(os.listdir(done_dir)) < payload.get("wait_for", 0):
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    time.sleep(payload.get("sleep", 0))
    if done_dir:
        with open(os.path.join(done_dir, str(payload["i"])), "w"):
            pass
    return {
        "i": payload["i"],
        "pid": os.getpid(),
        "epoch": os.environ.get("SOURCE_DATE_EPOCH"),
        "stop_requested": current_channel().stop_requested(),
    }


def progress_then_wait(payload: dict[str, Any]) -> dict[str, Any]:
    """Post progress, wait (up to 2 minutes) until the file ``payload["go"]`` exists, post a
    little more and end."""
    reporter = TaskReporter(current_channel(), payload["key"])
    reporter.count(payload["records"], payload["bytes"])
    reporter.flush()
    deadline = time.monotonic() + 120
    while not os.path.exists(payload["go"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    reporter.count(1, 10)
    reporter.flush()
    return {"key": payload["key"]}


def fail(payload: Any) -> Any:
    """Raise, as a task function that has a bug does."""
    raise ValueError(f"bad payload {payload!r}")


def die(payload: dict[str, Any]) -> Any:
    """Kill the Python worker running it when ``payload["die"]``, as a crash in native code
    does; else echo."""
    if payload.get("die"):
        os._exit(9)
    return echo(payload)


def commit_then_die(payload: Any) -> Any:
    """The engine's task, then the worker dies in the first attempt (after the task committed
    its outputs and marker), so Spark retries the task."""
    from crawlmill.core.run.task import run_task
    from pyspark import TaskContext

    result = run_task(payload)
    attempt = TaskContext.get().attemptNumber()
    record = os.path.join(os.environ["CRAWLMILL_TEST_ATTEMPTS"], f"attempt-{attempt}")
    with open(record, "w") as fh:
        fh.write(result.status)
    if attempt == 0:
        os._exit(7)
    return result
