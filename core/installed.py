"""The components the installed plugins (the ``crawlmill`` entry points) register, for code
that runs without a run's registry: a layout or a Writable looked up by name outside a run.

The registry is loaded on first use, once per process (:func:`installed_registry`); a run
passes its own registry instead (it holds the config-listed plugins and honours
``CRAWLMILL_DISABLE_PLUGINS`` as the run started).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .plugin import Layout, Writable
    from .registry import Registry

__all__ = ["installed_layouts", "installed_registry", "installed_writable"]

_registry: Registry | None = None


def installed_registry() -> Registry:
    """The registry of the installed plugins, loaded once per process."""
    global _registry
    if _registry is None:
        from .registry import Registry

        _registry = Registry.load()
    return _registry


def installed_layouts() -> dict[str, type[Layout]]:
    """Name -> class of the layouts the installed plugins register."""
    table = installed_registry().components.get("layout", {})
    return {n: c.cls for n, c in table.items()}


def installed_writable(java_name: str) -> type[Writable] | None:
    """The Writable class an installed plugin registers for the Java class ``java_name``
    (its ``name`` or one of its ``java_names``), or ``None``."""
    return installed_registry().writable(java_name)
