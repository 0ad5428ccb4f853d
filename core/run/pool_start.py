"""How the worker processes of a :class:`~crawlmill.core.run.executor.LocalExecutor` start.

Where multiprocessing has it (Linux, macOS), a worker is forked from the **forkserver**: a
server process, started once per process that makes pools, which imported :data:`PRELOAD`
(crawlmill's run machinery and the WARC reader and writer) before it forks anything. A worker
then costs a fork, not an interpreter start and ~0.3 s of imports. The server is
single-threaded when it forks (the preloaded modules start no thread and import neither numpy
nor pyarrow, which do: a test checks), so, as with spawn, no lock held by another thread is
copied in a locked state. Elsewhere (Windows), or with ``CRAWLMILL_START_METHOD=spawn`` (for
debugging: each worker a fresh interpreter), workers are spawned.

A forked worker starts with the server's state, not the parent's of now. multiprocessing hands
over ``sys.path`` and the working directory; the worker's initializer hands over
``os.environ`` (:func:`environment`). What is read only when an interpreter starts or a module
is imported cannot be handed over: when a ``PYTHON*`` variable (but ``PYTHONPATH``) or one of
:data:`IMPORT_TIME_ENV` differs from its value when the server started, that pool is spawned
(:func:`context`). The server's umask, resource limits and standard streams are the parent's
when the server started. A module changed on disk after the server started is seen by new
workers only if it is not preloaded (or with spawn)."""

from __future__ import annotations

import importlib
import multiprocessing
import os
import threading
from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError

__all__ = [
    "IMPORT_TIME_ENV",
    "METHODS",
    "PRELOAD",
    "START_METHOD_ENV",
    "adopt",
    "context",
    "method",
    "preload",
]

#: the variable choosing how workers start: ``forkserver`` or ``spawn``
START_METHOD_ENV = "CRAWLMILL_START_METHOD"
METHODS = ("forkserver", "spawn")
#: crawlmill's variables read when a module is imported (tests/core/test_pool_start.py finds
#: every such read in the sources and checks it is listed here)
IMPORT_TIME_ENV = ("CRAWLMILL_PURE",)
#: the modules the forkserver imports before it forks workers: what every worker imports
#: (the console script's module, the task functions of every stage kind, the plugin manifest)
#: and the reader and writer of the most common format
PRELOAD = (
    "crawlmill.core.commands.cli",
    "crawlmill.core.run.task",
    "crawlmill.core.run.pass_tasks",
    "crawlmill.core.run.reduce_tasks",
    "crawlmill.core.run.shuffle.tasks",
    "crawlmill.plugins.manifest",
    "crawlmill.plugins.readers.warc",
    "crawlmill.plugins.writers.warc",
)
#: the module the forkserver is told to import: importing it runs :func:`preload`
_PRELOADER = "crawlmill.core.run.pool_preload"

_lock = threading.Lock()
#: ``(pid, start-time variables)`` of the forkserver this process started, if it did
_server: tuple[int, dict[str, str]] | None = None


def method() -> str:
    """The start method asked for (:data:`START_METHOD_ENV`), else ``forkserver`` where
    multiprocessing has it, else ``spawn``."""
    asked = os.environ.get(START_METHOD_ENV, "").strip().lower()
    available = multiprocessing.get_all_start_methods()
    if not asked:
        return "forkserver" if "forkserver" in available else "spawn"
    if asked not in METHODS or asked not in available:
        known = ", ".join(m for m in METHODS if m in available)
        raise ConfigError(
            [(START_METHOD_ENV, f"{asked!r} is not a start method here (one of {known})")]
        )
    return asked


def _start_time_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables a forked worker would take from the server, not from the parent
    (``PYTHONPATH`` is not one: a worker gets the parent's ``sys.path``)."""
    return {
        k: v
        for k, v in environ.items()
        if (k.startswith("PYTHON") and k != "PYTHONPATH") or k in IMPORT_TIME_ENV
    }


def context() -> Any:
    """The multiprocessing context of a new pool (see the module docstring): the forkserver's,
    started here with :data:`PRELOAD` when this process has none yet, unless spawn is asked
    for or the server's start-time variables differ from this process's now."""
    global _server
    if method() == "spawn":
        return multiprocessing.get_context("spawn")
    now = _start_time_env(os.environ)
    with _lock:
        if _server is None:
            from multiprocessing import forkserver

            forkserver.set_forkserver_preload([_PRELOADER])
            forkserver.ensure_running()  # starts importing while the parent plans
            _server = (os.getpid(), now)
        pid, started = _server
    if pid != os.getpid() or started != now:  # a fork of the process that started it
        return multiprocessing.get_context("spawn")
    return multiprocessing.get_context("forkserver")


def adopt(environ: Mapping[str, str]) -> None:
    """In a worker: make ``os.environ`` the parent's ``environ``, and forget the import
    system's cached directory listings (a plugin installed since the server started is
    found)."""
    if dict(os.environ) != dict(environ):
        os.environ.clear()
        os.environ.update(environ)
    importlib.invalidate_caches()


def preload() -> None:
    """Import :data:`PRELOAD` (in the forkserver); a module that fails is left to the workers."""
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S112 - a worker imports what it needs itself
            continue
