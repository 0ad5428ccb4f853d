"""Output layouts of file writers: file names, rollover, doc ids and collection side files.

A layout decides *where* records go; the writer decides *how* they are encoded. The writer asks
its layout for the next file name when it starts a file or rolls over, asks whether to roll
after each record, lets it assign a document id, and calls ``finalize`` once per run (through
``Writer.finalize``) for collection-wide files such as md5 and record-count lists.

Layouts are registered components (:class:`crawlmill.core.plugin.Layout`, hook
``crawlmill_register_layouts``): the built-in ``plain``, ``clueweb09`` and ``chuweb21``
register from their modules through that hook, and a writer's ``layout`` option picks one by
name, resolved with :func:`find_layout`. :data:`LAYOUTS` indexes the layout classes defined
in imported modules (:func:`register_layout`), for direct use without a registry.
(``crawlmill.plugins.writers.layouts``, where this lived before, re-exports it.)
"""

from __future__ import annotations

from typing import Any

from .installed import installed_layouts
from .plugin import Layout

__all__ = ["LAYOUTS", "Layout", "find_layout", "known_layouts", "register_layout"]

#: name -> layout class of the layout modules imported in this process.
LAYOUTS: dict[str, type[Layout]] = {}


def register_layout(cls: type[Layout]) -> type[Layout]:
    """Class decorator adding a layout to :data:`LAYOUTS` under ``cls.name`` (registration
    with crawlmill goes through the ``crawlmill_register_layouts`` hook)."""
    LAYOUTS[cls.name] = cls
    return cls


def find_layout(name: str, registry: Any = None) -> type[Layout] | None:
    """The layout called ``name``: from ``registry`` when given (the run's: it holds the
    config-listed plugins and leaves out those ``CRAWLMILL_DISABLE_PLUGINS`` blocks), else
    :data:`LAYOUTS`, else the registry of installed plugins; ``None`` when no one registered
    it."""
    if registry is not None:
        known = registry.components.get("layout", {})
        return registry.layout(name) if name in known else None
    if name in LAYOUTS:
        return LAYOUTS[name]
    table = installed_layouts()
    return table.get(name)


def known_layouts(registry: Any = None) -> dict[str, type[Layout]]:
    """Name -> class of every layout :func:`find_layout` can find (``registry``'s when given,
    else the imported and installed ones), sorted by name."""
    if registry is not None:
        table = {n: registry.layout(n) for n in registry.components.get("layout", {})}
    else:
        table = {**installed_layouts(), **LAYOUTS}
    return dict(sorted(table.items()))
