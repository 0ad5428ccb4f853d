"""The ``crawlmill`` console script's entry point (``crawlmill = crawlmill.core.cli:main``,
``python -m crawlmill.core.cli``); the command lives in :mod:`crawlmill.core.commands.cli`.

The process ends when :func:`main` returns, so it is tuned for that (in-process callers use
``crawlmill.core.commands.cli.main``, which is not): the command runs with dataclasses'
methods precompiled (:mod:`crawlmill.core.dataclass_code`), and at its end every object is
moved to the garbage collector's permanent generation (``gc.freeze``), so the interpreter's
exit deallocates what reference counting frees and does not trace every object the run
created for cycles (about 15 ms of CPU, a tenth of a one-record convert). Python promises
no ``__del__`` at exit for an object still alive then; the run closed and synced its outputs
before it returned, and ``atexit`` handlers, the standard streams' flush and the joins of
non-daemon threads happen as before.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence

from .commands.cli import main as _command
from .dataclass_code import install

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``crawlmill`` command line ``argv`` (``sys.argv[1:]``) in a process that ends
    when this returns; returns the exit code."""
    install()  # dataclasses' methods precompiled (a fifth of a one-record convert's CPU)
    try:
        return _command(argv)
    finally:
        gc.freeze()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
