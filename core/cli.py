"""The ``crawlmill`` console script's entry point (``crawlmill = crawlmill.core.cli:main``,
``python -m crawlmill.core.cli``); the command lives in :mod:`crawlmill.core.commands.cli`."""

from __future__ import annotations

import sys

from .commands.cli import main

__all__ = ["main"]

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
