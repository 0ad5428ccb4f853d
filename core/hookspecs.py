"""Hook specifications: the whole contract between crawlmill and its plugins.

A plugin is a module (or object) named by an entry point in the ``crawlmill`` group, or listed
in a pipeline config's ``plugins:``. It implements any of the hooks below, decorated with
:data:`crawlmill.core.hookimpl`. As in pluggy, an implementation may accept any subset of a
hook's arguments, so new arguments can be added without breaking plugins. Built-in readers,
writers, filters and layouts register through exactly these hooks.

The reference of these hooks in ``docs/plugin_hooks.md`` is checked against this module by a
test: a hook without documentation fails the build.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .markers import hookspec

if TYPE_CHECKING:
    from .plugin import Filter, Layout, Reader, Writable, Writer


@hookspec
def crawlmill_register_readers(register: Callable[[type[Reader]], None]) -> None:
    """Register reader classes.

    :param register: call ``register(ReaderClass)`` once per :class:`~crawlmill.core.plugin.Reader`
        subclass the plugin provides. Its ``name`` must be unique among all readers; a
        duplicate is reported with both plugins and the later one is refused.

    Called once when the registry loads plugins, in every process that runs tasks.
    """


@hookspec
def crawlmill_register_writers(register: Callable[[type[Writer]], None]) -> None:
    """Register writer classes.

    :param register: call ``register(WriterClass)`` once per :class:`~crawlmill.core.plugin.Writer`
        subclass. Names are unique among writers (a reader and a writer may share a name,
        as ``warc`` does).
    """


@hookspec
def crawlmill_register_filters(register: Callable[[type[Filter]], None]) -> None:
    """Register filter classes.

    :param register: call ``register(FilterClass)`` once per :class:`~crawlmill.core.plugin.Filter`
        subclass. Names are unique among filters.
    """


@hookspec
def crawlmill_register_layouts(register: Callable[[type[Layout]], None]) -> None:
    """Register output layouts (where a file writer's records go).

    :param register: call ``register(LayoutClass)`` once per :class:`~crawlmill.core.plugin.Layout`
        subclass. Names are unique among layouts; a writer's ``layout`` option picks one by
        name (``layout: plain`` or ``layout: {name: plain, ...its options}``).
    """


@hookspec
def crawlmill_register_writables(register: Callable[[type[Writable]], None]) -> None:
    """Register Hadoop Writable classes (the key and value classes of SequenceFiles).

    :param register: call ``register(WritableClass)`` once per
        :class:`~crawlmill.core.plugin.Writable` subclass. Its ``name`` is its Java class
        name, unique among Writables; the SequenceFile reader and writer look a file's classes
        up by that name or one of the class's ``java_names``.
    """


@hookspec
def crawlmill_detect_format(path: str, head: bytes) -> list[tuple[str, float]] | None:
    """Say how sure the plugin is that an input is in a format one of its readers reads.

    A reader's own :meth:`~crawlmill.core.plugin.Reader.sniff` needs no hook; both feed one
    ranking (:meth:`crawlmill.core.registry.Registry.detect`): a reader gets the highest
    confidence its ``sniff`` or any implementation of this hook gives it.

    :param path: the input's path (a file, or a directory for collection readers).
    :param head: up to the first 64 KiB of the file, already decompressed when the file is
        compressed with any codec of :mod:`crawlmill.formats.codecs.table`; ``b""`` for a directory.
    :return: ``[(reader_name, confidence), ...]`` with confidence from 0.0 (not mine) to 1.0
        (certain), or ``None``. All implementations are called; the reader with the highest
        confidence wins, and ``crawlmill inspect`` shows the ranking.
    """
