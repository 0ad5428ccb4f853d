"""Imported by the local executor's forkserver before it forks workers; importing it is its
whole job (:func:`crawlmill.core.run.pool_start.preload`). The server runs ``python -c``, so
its working directory is first on ``sys.path``: it is taken off first, so that a file there
cannot shadow a module the workers inherit (each worker gets the parent's ``sys.path``)."""

from __future__ import annotations

import sys

while "" in sys.path:
    sys.path.remove("")

from .pool_start import preload  # noqa: E402 - after the path is cleaned

preload()
