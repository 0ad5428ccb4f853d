"""The pluggy markers of the ``crawlmill`` project: decorate hook implementations with
:data:`hookimpl`."""

from __future__ import annotations

import pluggy

PROJECT = "crawlmill"

#: marks a hook specification (used only in :mod:`crawlmill.core.hookspecs`).
hookspec = pluggy.HookspecMarker(PROJECT)
#: marks a plugin's hook implementation: ``@hookimpl def crawlmill_register_readers(register)``.
hookimpl = pluggy.HookimplMarker(PROJECT)
