"""CPU, wall and peak RSS of a command's whole process tree, measured from outside.

``resource.getrusage(RUSAGE_CHILDREN)`` and ``os.wait4`` count a process and only the
descendants that were waited for along the way. A descendant that is orphaned is reparented to
init and counted by nobody: crawlmill's pool workers are children of multiprocessing's
forkserver, which reaps them (their CPU and RSS go to the forkserver), and the forkserver itself
is never waited for by crawlmill (it exits on EOF after crawlmill and is reparented). So a
multi-worker run measured with ``RUSAGE_CHILDREN`` silently misses the workers.

:func:`run` makes the measuring process a *child subreaper* (Linux,
``prctl(PR_SET_CHILD_SUBREAPER)``) while the command runs, so orphaned descendants are
reparented to it; it waits for the command, then reaps every remaining descendant (bounded by
``reap_timeout``: one still alive then is reported in :attr:`TreeUsage.stuck`, not waited for),
and sums the ``wait4`` usage of every process it reaped. Elsewhere there is no subreaper:
:attr:`TreeUsage.complete` is ``False`` and the figures may miss orphaned descendants.

The peak RSS is the largest ``ru_maxrss`` of one process of the tree (the kernel keeps a maximum
per process, not a sum): the largest single process, not the tree's total. Linux carries the
parent's high-water mark into a vfork+exec child's ``ru_maxrss``, so the command's own figure
can include the measuring process's; a command that reports its own ``VmHWM`` is more exact, and
:attr:`TreeUsage.orphan_peak_rss` gives the rest of the tree (the forkserver and its workers).
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

__all__ = ["TreeUsage", "run", "subreaper_available"]

_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
#: ``ru_maxrss`` is in KiB on Linux, bytes on macOS
_RSS_UNIT = 1 if sys.platform == "darwin" else 1024


@dataclass(frozen=True)
class TreeUsage:
    """What :func:`run` measured for one command and all its descendants."""

    returncode: int
    #: wall seconds from the start to the command's exit (what its user waits for)
    wall: float
    #: wall seconds from the start to the last descendant reaped
    tree_wall: float
    #: user and system CPU seconds of the whole tree
    user: float
    system: float
    #: the largest ``ru_maxrss`` of a single process of the tree, bytes
    peak_rss: int
    #: the largest ``ru_maxrss`` of the orphans reaped (with the descendants they waited for),
    #: bytes; 0 when there were none
    orphan_peak_rss: int
    #: CPU seconds of the command and the descendants it waited for itself: what
    #: ``RUSAGE_CHILDREN`` / ``wait4`` of the command alone report
    command_cpu: float
    #: orphaned descendants reaped after they were reparented to the measuring process
    orphans: int
    #: pids of descendants still alive after ``reap_timeout`` (not counted)
    stuck: tuple[int, ...]
    #: ``True`` when a subreaper caught orphans (Linux); ``False``: orphans may be missed
    complete: bool
    stdout: str | bytes | None = None
    stderr: str | bytes | None = None

    @property
    def cpu(self) -> float:
        """User + system CPU seconds of the whole tree."""
        return self.user + self.system

    @property
    def peak_rss_mib(self) -> float:
        """:attr:`peak_rss` in MiB."""
        return self.peak_rss / 2**20


def _prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):
        return None


def _get_subreaper(prctl) -> int:
    flag = ctypes.c_int(0)
    if prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) != 0:
        return 0
    return flag.value


def _set_subreaper(prctl, value: int) -> bool:
    return prctl(_PR_SET_CHILD_SUBREAPER, value, 0, 0, 0) == 0


def subreaper_available() -> bool:
    """Whether this OS lets :func:`run` catch orphaned descendants (Linux)."""
    prctl = _prctl()
    return prctl is not None and _set_subreaper(prctl, _get_subreaper(prctl))


def _children() -> set[int] | None:
    """This process's live and zombie children (Linux ``/proc``), or ``None`` if unknown."""
    try:
        tasks = os.listdir("/proc/self/task")
        found: set[int] = set()
        for tid in tasks:
            with open(f"/proc/self/task/{tid}/children", encoding="ascii") as f:
                found.update(int(pid) for pid in f.read().split())
        return found
    except (OSError, ValueError):
        return None


def _drain(stream, into: list) -> threading.Thread:
    thread = threading.Thread(target=lambda: into.append(stream.read()), daemon=True)
    thread.start()
    return thread


def run(
    cmd: list[str],
    *,
    reap_timeout: float = 30.0,
    capture_output: bool = False,
    text: bool = False,
    **popen_kwargs,
) -> TreeUsage:
    """Run ``cmd`` and measure it with all its descendants (see the module docstring).

    ``capture_output``/``text`` are as in :func:`subprocess.run`; other keywords go to
    :class:`subprocess.Popen`. The caller's other children, if any, are left alone (Linux).
    """
    if capture_output:
        popen_kwargs.update(stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    prctl = _prctl()
    was = _get_subreaper(prctl) if prctl is not None else 0
    complete = prctl is not None and _set_subreaper(prctl, 1)
    known = _children() or set()
    try:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, text=text, **popen_kwargs)
        out: list = []
        err: list = []
        readers = [_drain(proc.stdout, out)] if proc.stdout is not None else []
        readers += [_drain(proc.stderr, err)] if proc.stderr is not None else []
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        user, system = usage.ru_utime, usage.ru_stime
        peak = usage.ru_maxrss
        orphan_peak = 0
        command_cpu = user + system
        orphans = 0
        stuck: tuple[int, ...] = ()
        deadline = time.monotonic() + reap_timeout
        while complete:
            kids = _children()
            # without /proc: any child (the caller's other children included)
            pending = [-1] if kids is None else sorted(kids - known)
            reaped = 0
            for pid in pending:
                try:
                    got, _, usage = os.wait4(pid, os.WNOHANG)
                except ChildProcessError:
                    pending = [p for p in pending if p != pid]
                    continue
                if got:
                    reaped += 1
                    user += usage.ru_utime
                    system += usage.ru_stime
                    orphan_peak = max(orphan_peak, usage.ru_maxrss)
            orphans += reaped
            if not pending:
                break
            if not reaped:
                if time.monotonic() > deadline:
                    stuck = tuple(p for p in pending if p != -1)
                    break
                time.sleep(0.005)
        tree_wall = time.perf_counter() - started
        for reader in readers:  # a stuck descendant may hold the pipe: bounded too
            reader.join(timeout=max(0.1, deadline - time.monotonic()))
    finally:
        if prctl is not None:
            _set_subreaper(prctl, was)
    return TreeUsage(
        returncode=proc.returncode,
        wall=wall,
        tree_wall=tree_wall,
        user=user,
        system=system,
        peak_rss=max(peak, orphan_peak) * _RSS_UNIT,
        orphan_peak_rss=orphan_peak * _RSS_UNIT,
        command_cpu=command_cpu,
        orphans=orphans,
        stuck=stuck,
        complete=complete,
        stdout=out[0] if out else None,
        stderr=err[0] if err else None,
    )


def describe(usage: TreeUsage) -> str:
    """A one-line warning when the figures may be incomplete, else ``""``."""
    if not usage.complete:
        return "(no subreaper on this OS: orphaned descendants may be missing from the figures)"
    if usage.stuck:
        return f"(descendants still alive after the run, not counted: {list(usage.stuck)})"
    return ""


def run_json(cmd: list[str], env: dict[str, str] | None = None) -> tuple[TreeUsage, dict]:
    """:func:`run` ``cmd`` (its output kept in temporary files); its usage and the last line
    of its standard output that is a JSON object (``{}`` when none). ``RuntimeError`` naming
    the exit status and the output's tails when it fails; :func:`describe`'s warning, if
    any, on stderr."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        usage = run(cmd, stdout=out, stderr=err, env=env)
        out.seek(0)
        err.seek(0)
        text, problems = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    if usage.returncode != 0:
        raise RuntimeError(
            f"{cmd[:3]} failed ({usage.returncode}): {text[-2000:]} {problems[-2000:]}"
        )
    if describe(usage):
        print(describe(usage), file=sys.stderr)
    lines = [line for line in text.splitlines() if line.startswith("{")]
    return usage, json.loads(lines[-1]) if lines else {}


if __name__ == "__main__":
    got = run(sys.argv[1:])
    print(
        f"cpu {got.cpu:.2f} s (command alone {got.command_cpu:.2f} s), wall {got.wall:.2f} s, "
        f"largest process {got.peak_rss_mib:.0f} MiB, {got.orphans} orphans reaped "
        f"{describe(got)}",
        file=sys.stderr,
    )
    sys.exit(got.returncode)
