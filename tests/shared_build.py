"""Build a test artefact once per test session, shared by every pytest-xdist worker.

Compiled Java oracles, built wheels and pip-installed test packages cost seconds of CPU each;
a session-scoped fixture under xdist runs once per *worker*, so up to four times. :func:`built`
builds one into a folder beside the workers' own temp folders (``getbasetemp().parent`` under
xdist: the session's ``pytest-N`` folder, which all workers share; ``getbasetemp()`` itself
without xdist): the first worker to ask builds under an exclusive ``fcntl`` lock in a
temporary folder and renames the finished folder into place atomically; the others wait on
the lock and use it. A failed build leaves nothing behind, so the next worker that asks builds
(and fails) again on its own. Each session has a fresh ``pytest-N`` folder, so nothing is
reused from an earlier session.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest


def shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's temp folder that every xdist worker of this session sees."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built(root: Path, name: str, build: Callable[[Path], None]) -> Path:
    """``root/shared-<name>``, made by ``build(folder)`` (into an empty folder) by the first
    process of the session that asks; later calls, in any worker, return it as it is."""
    done = root / f"shared-{name}"
    if done.is_dir():
        return done
    with open(root / f"shared-{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.is_dir():
                work = Path(tempfile.mkdtemp(prefix=f"building-{name}-", dir=root))
                try:
                    build(work)
                except BaseException:
                    shutil.rmtree(work, ignore_errors=True)
                    raise
                os.rename(work, done)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return done
