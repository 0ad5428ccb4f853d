"""A run killed or interrupted part way: after ``kill -9`` of the main process its pool workers
stop within seconds and commit nothing more; after SIGTERM or SIGINT the run still writes
report.json with what it did. Real ``crawlmill convert`` subprocesses with worker pools."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from crawlmill.core.run import executor

FAKE_DIR = Path(__file__).resolve().parent / "fake_plugins"
RECORDS = 6
INTERRUPTED_INPUTS = 200

pytestmark = pytest.mark.skipif(
    not os.path.isdir("/proc/self"), reason="process tree read from /proc (Linux)"
)


def _inputs(base: Path, n: int) -> Path:
    folder = base / "in"
    folder.mkdir(parents=True)
    for j in range(n):
        lines = [f"R http://ex.com/{j}/{k} response payload{k}" for k in range(RECORDS)]
        (folder / f"{j:03d}.txt").write_text("".join(line + "\n" for line in lines))
    return folder


#: the CLI in a fresh interpreter, with Ctrl-C raising KeyboardInterrupt as from a terminal.
#: Started in the background (``nohup ... &`` from a script, as CI may start the suite), a
#: process inherits SIGINT ignored and Python keeps it ignored, as it rightly does for a user's
#: ``crawlmill ... &``; so the child installs the handler Python installs when it is not.
CLI = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from crawlmill.core.commands.cli import main; sys.exit(main(sys.argv[1:]))"
)


def _convert(src: Path, out: Path, delay: float = 0.05, workers: int = 2) -> subprocess.Popen:
    """The run, started as from a background job: SIGINT ignored when the child starts (the
    suite behaves alike however it was started)."""
    args = [str(src), "--from", "fake-lines", "--reader-option", f"delay={delay}"]
    args += ["--to", "fake-jsonl", "-o", str(out), "--workers", str(workers)]
    args += ["--plugin", "cm_fake", "--progress", "never"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(FAKE_DIR), *sys.path]))
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited by the child
    try:
        return subprocess.Popen(
            [sys.executable, "-c", CLI, "convert", *args],
            env=env,
            start_new_session=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    finally:
        signal.signal(signal.SIGINT, previous)


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, state) of a live process, ``None`` when it is gone or a zombie."""
    try:
        data = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = data.rsplit(")", 1)[1].split()
    state, ppid = fields[0], int(fields[1])
    return None if state in ("Z", "X") else (ppid, state)


def _descendants(pid: int) -> set[int]:
    """Every live process below ``pid``."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (st := _stat(int(entry))) is not None:
            children.setdefault(st[0], []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _committed(out: Path) -> set[str]:
    """Final outputs and completion markers (temp files of running tasks left out)."""
    found = set()
    for p in out.rglob("*"):
        rel = p.relative_to(out).as_posix()
        if p.is_file() and not rel.startswith(".crawlmill/tmp/") and ".tmp-" not in p.name:
            found.add(rel)
    return found


def _markers(out: Path) -> int:
    done = out / ".crawlmill" / "done"
    return len(list(done.glob("*.json"))) if done.exists() else 0


def _wait_for_markers(proc: subprocess.Popen, out: Path, n: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and _markers(out) < n:
        time.sleep(0.01)
    assert proc.poll() is None, proc.communicate()
    assert _markers(out) >= n


def _reap(proc: subprocess.Popen, pids: set[int]) -> tuple[bytes, bytes]:
    """Kill what is left of a run (its main process and the workers seen before) and collect
    its output; never waits on pipes that an orphaned worker still holds."""
    for pid in pids | _descendants(proc.pid) | {proc.pid}:
        if _stat(pid) is not None:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    try:
        return proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        return b"", b""


@pytest.mark.slow
def test_kill_9_of_the_main_process_stops_its_workers(tmp_path):
    src, out = _inputs(tmp_path, 60), tmp_path / "out"
    proc = _convert(src, out)
    workers: set[int] = set()
    try:
        _wait_for_markers(proc, out, 3)
        workers = _descendants(proc.pid)
        assert len(workers) >= 2, workers  # a real pool (and its resource tracker)
        os.kill(proc.pid, signal.SIGKILL)  # the main process only, as `kill -9 PID` does
        proc.wait()
        killed_at = time.monotonic()
        time.sleep(0.5)  # a commit already under way when the parent died may end
        after_kill = _committed(out)
        deadline = killed_at + 5
        while time.monotonic() < deadline and any(_stat(p) for p in workers):
            time.sleep(0.05)
        left = [p for p in workers if _stat(p) is not None]
        assert not left, f"worker processes still running 5 s after kill -9: {left}"
        time.sleep(1.0)
        assert _committed(out) == after_kill, "outputs were committed after the run died"
        assert _markers(out) < 60
    finally:
        _reap(proc, workers)
    # the rerun takes over the root and completes every input
    rerun = _convert(src, out)  # the same pipeline (another one would be refused)
    _, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err.decode()
    assert _markers(out) == 60 and not (out / ".crawlmill" / "tmp").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "workers"),
    [(signal.SIGTERM, 2), (signal.SIGINT, 2), (signal.SIGTERM, 1)],
    ids=["SIGTERM", "SIGINT", "SIGTERM-in-process"],
)
def test_an_interrupted_run_writes_its_report(tmp_path, signum, workers):
    # 200 inputs of 0.3 s each: the run cannot end before the signal however loaded the
    # machine is (it is interrupted after 3, so the count costs nothing)
    src, out = _inputs(tmp_path, INTERRUPTED_INPUTS), tmp_path / "out"
    proc = _convert(src, out, workers=workers)
    workers: set[int] = set()
    try:
        _wait_for_markers(proc, out, 3)
        workers = _descendants(proc.pid)
        os.kill(proc.pid, signum)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is not None, "the interrupted run did not end"
    finally:
        _, err = _reap(proc, workers)
    stderr = err.decode()
    assert proc.returncode == 128 + signum, stderr  # as the shell reports a signal
    assert "interrupted" in stderr
    report_file = out / ".crawlmill" / "report.json"
    assert report_file.exists(), stderr
    report = json.loads(report_file.read_text())
    markers = _markers(out)
    assert 3 <= markers < INTERRUPTED_INPUTS
    # the report counts exactly the inputs that were committed, with their records
    assert report["inputs_done"] == markers
    assert report["read"] == report["written"] == RECORDS * markers
    assert report["inputs_cancelled"] == INTERRUPTED_INPUTS - markers
    assert report["ok"] is False
    reason = (
        "interrupted (terminated by signal 15)"
        if signum == signal.SIGTERM
        else "interrupted (SIGINT)"
    )
    assert [f["error"] for f in report["failures"]] == [reason]
    assert f"read {RECORDS * markers} = written {RECORDS * markers}" in stderr
    assert not (out / ".crawlmill" / "tmp").exists()
    # the workers stop within seconds of their parent (on a loaded machine, not at once)
    deadline = time.monotonic() + 10
    while [p for p in workers if _stat(p) is not None] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in workers if _stat(p) is not None]


def test_pool_size_decides_from_the_work():
    mb = 1024 * 1024
    per = executor.BYTES_PER_WORKER
    assert executor.pool_size(8, [10 * mb]) == 1  # one input: in-process
    assert executor.pool_size(8, [1000, 2000, 3000]) == 1  # small job: in-process
    assert executor.pool_size(8, []) == 1
    assert executor.pool_size(8, [None, None]) == 1  # sizes unknown: no pool
    assert executor.pool_size(8, [per, per - 1]) == 1  # just under two workers' worth
    assert executor.pool_size(8, [per, per]) == 2
    assert executor.pool_size(2, [per] * 10) == 2  # never more than asked
    assert executor.pool_size(8, [4 * per, 4 * per]) == 2  # never more than inputs
    # a worker count the user set is honoured (at most one worker per input)
    assert executor.pool_size(4, [10, 20, 30], explicit=True) == 3
    assert executor.pool_size(2, [10, 20, 30], explicit=True) == 2
    assert executor.pool_size(1, [per] * 4, explicit=True) == 1


def test_parent_alive_in_the_main_process():
    assert executor.parent_alive() is True
