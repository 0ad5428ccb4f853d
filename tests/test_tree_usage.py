"""benchmarks/tree_usage.py counts an orphaned descendant that ``RUSAGE_CHILDREN`` misses."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import tree_usage  # noqa: E402

#: forks a grandchild and exits at once; the grandchild waits until it is orphaned, then burns
#: 0.2 s of CPU (its CPU clock starts at 0 at the fork)
ORPHAN = """
import os, sys, time
parent = os.getpid()
if os.fork() == 0:
    while os.getppid() == parent:
        time.sleep(0.005)
    while time.process_time() < 0.2:
        pass
    os._exit(0)
sys.exit(0)
"""


@pytest.mark.skipif(not tree_usage.subreaper_available(), reason="no child subreaper here")
def test_orphan_grandchild_is_counted_only_by_tree_usage() -> None:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", ORPHAN], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    plain = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime

    got = tree_usage.run([sys.executable, "-c", ORPHAN], reap_timeout=20)

    assert got.returncode == 0 and got.complete and got.stuck == ()
    assert got.orphans == 1
    assert got.cpu >= got.command_cpu + 0.19  # the grandchild's 0.2 s is in the tree's figure
    assert plain < got.cpu - 0.12  # ... and not in what RUSAGE_CHILDREN saw
    assert got.peak_rss > 0 and got.wall <= got.tree_wall
    # the subreaper flag is dropped again after the run
    assert tree_usage.subreaper_available()


def test_stuck_descendant_is_reported_not_waited_for() -> None:
    code = "import os, time\nif os.fork() == 0:\n    time.sleep(30)\n"
    if not tree_usage.subreaper_available():
        pytest.skip("no child subreaper here")
    got = tree_usage.run([sys.executable, "-c", code], reap_timeout=0.3)
    try:
        assert got.returncode == 0 and len(got.stuck) == 1 and got.tree_wall < 10
        assert "still alive" in tree_usage.describe(got)
    finally:
        for pid in got.stuck:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
