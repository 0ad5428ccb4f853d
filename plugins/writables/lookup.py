"""Finding a Writable by Java class name (as :mod:`crawlmill.plugins.writers.layouts` finds a
layout): the run's registry when given; else the Writables the imported plugin modules
register (their ``crawlmill_register_writables`` hook: a module a config lists under
``plugins:`` is imported in every process of a run; and :func:`register_writable`); else the
installed plugins' (entry points)."""

from __future__ import annotations

import sys
from typing import Any

from crawlmill.core.installed import installed_writable
from crawlmill.core.plugin import Writable
from crawlmill.formats.hadoop import writables as w

__all__ = ["WRITABLES", "WritableCodec", "find_writable", "register_writable", "registered_codec"]

#: Java class name (and each of its ``java_names``) -> Writable class of the imported modules.
WRITABLES: dict[str, type[Writable]] = {}

_scanned: set[str] = set()


def register_writable(cls: type[Writable]) -> type[Writable]:
    """Class decorator adding a Writable to :data:`WRITABLES` under its names (registration
    with crawlmill goes through the ``crawlmill_register_writables`` hook). A name belongs to
    the Writable whose ``name`` it is before one that lists it in ``java_names``, as
    :meth:`crawlmill.core.registry.Registry.writable` decides."""
    if isinstance(cls, type) and issubclass(cls, Writable) and cls.name:
        held = WRITABLES.get(cls.name)
        if held is None or held.name != cls.name:
            WRITABLES[cls.name] = cls
        for name in cls.java_names:
            WRITABLES.setdefault(name, cls)
    return cls


def _scan_imported() -> None:
    """Collect the Writables of every imported module that implements the hook."""
    for mod_name, module in list(sys.modules.items()):
        if mod_name in _scanned or module is None:
            continue
        _scanned.add(mod_name)
        hook = getattr(module, "crawlmill_register_writables", None)
        if callable(hook):
            try:
                hook(register_writable)
            except Exception:  # the registry reports a broken plugin; here it just finds nothing
                continue


def find_writable(java_name: str, registry: Any = None) -> type[Writable] | None:
    """The Writable class of ``java_name``, or ``None`` when none answers to it."""
    if registry is not None:
        return registry.writable(java_name)
    if java_name not in WRITABLES:
        _scan_imported()
    if java_name in WRITABLES:
        return WRITABLES[java_name]
    return installed_writable(java_name)


class WritableCodec(w.Codec):
    """A registered Writable (a plugin's class) as the codec of a ``MapWritable`` entry."""

    def __init__(self, writable: Writable) -> None:
        self.java_names = (writable.name,)
        self.writable = writable

    def read(self, buf: Any, pos: int) -> tuple[Any, int]:
        return self.writable.read_at(bytes(buf), pos)

    def write(self, value: Any) -> bytes:
        return self.writable.write(value)


def registered_codec(java_name: str) -> w.Codec | None:
    """The codec of the Writable registered for ``java_name`` (:func:`find_writable`), or
    ``None``: what a map's built-in codecs leave to the plugins."""
    cls = find_writable(java_name)
    return WritableCodec(cls()) if cls is not None else None
