"""Output stems: the name an input's outputs derive from, distinct for distinct inputs.

An input's **stem** is its relpath without the suffixes that say how its bytes are stored:

* one **compression** suffix (:func:`crawlmill.formats.codecs.compression.compression_suffixes`:
  ``.gz``, ``.bz2``, ``.zst``, ``.zstd``, ``.lz4``, ``.xz``, ``.br`` and those of any codec
  registered with :func:`crawlmill.formats.codecs.table.register_codec`), then
* the **format** suffixes, repeatedly: the registered readers'
  :attr:`~crawlmill.core.plugin.Reader.file_suffixes` (the input plan passes
  :meth:`crawlmill.core.registry.Registry.file_suffixes`); for a name made without a run's
  registry (an input built by hand, a layout naming a file) those of the installed readers,
  :func:`reader_suffixes` (``FORMAT_SUFFIXES`` is the same list): ``.warc``, ``.arc``, and
  Common Crawl's ``.wet`` and ``.wat``, which are WARC files, and any plugin reader's.

:func:`reader_suffixes` is the one suffix list: naming, detection and layouts ask it (or a
run's registry) instead of keeping their own, so a compression the readers read (``.warc.lz4``)
is known everywhere a format suffix is.

Nothing else is stripped: ``example.txt.warc.gz`` -> ``example.txt``, ``a/x.arc.gz`` ->
``a/x``, ``x.warc.wet.gz`` -> ``x``.

When two inputs of one run would get the same stem (``x.arc.gz`` beside ``x.warc.gz``), every
input of that group keeps more of its name, in three deterministic levels: both suffix kinds
stripped (the default), only the compression suffix stripped (``x.arc``, ``x.warc``), nothing
stripped (``x.warc.gz``, ``x.warc.lz4``). Inputs whose stem collides with no other keep the
default, so a run without siblings names its outputs as before. Relpaths are unique within a
run, so the levels always end with distinct stems. The stems depend on the run's whole input
list: adding a sibling renames the outputs of the inputs it collides with (they are redone).
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from crawlmill.formats.codecs.compression import compression_suffixes

__all__ = [
    "named_with",
    "output_stems",
    "reader_suffixes",
    "stem_of",
    "strip_suffixes",
]

_installed: dict[str | None, tuple[str, ...]] = {}


def reader_suffixes(reader: str | None = None) -> tuple[str, ...]:
    """The ``file_suffixes`` of the installed reader called ``reader`` (of every installed
    reader when ``None``), lower case, longest first; from the registry of installed
    (entry-point) plugins, loaded once per process."""
    if reader not in _installed:
        from .registry import Registry

        registry = Registry.load()
        if reader is None:
            found = registry.file_suffixes()
        else:
            table = registry.components.get("reader", {})
            declared = table[reader].file_suffixes if reader in table else ()
            found = tuple(
                sorted(
                    {s.lower() for s in declared},
                    key=lambda s: (-len(s), s),
                )
            )
        _installed[reader] = found
    return _installed[reader]


def __getattr__(name: str) -> tuple[str, ...]:
    """``FORMAT_SUFFIXES``: :func:`reader_suffixes` of every installed reader."""
    if name == "FORMAT_SUFFIXES":
        return reader_suffixes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _strip_one(name: str, suffixes: Sequence[str]) -> str | None:
    lower = name.lower()
    for suffix in suffixes:
        if lower.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return None


def named_with(
    path: str,
    format_suffixes: Sequence[str],
    compressions: Sequence[str] | None = None,
) -> bool:
    """True when the file name of ``path`` ends with one of ``format_suffixes`` (a reader's
    ``file_suffixes``), after at most one of ``compression_suffixes``: ``x.warc``,
    ``x.warc.gz`` and ``x.warc.lz4`` are named with ``(".warc",)``. Case is ignored.
    ``compressions`` defaults to every known compression suffix, registered codecs' too."""
    name = posixpath.basename(path.replace("\\", "/")).lower()
    suffixes = tuple(s.lower() for s in format_suffixes)
    if not suffixes:
        return False
    return name.endswith(suffixes) or (
        (bare := _strip_one(name, compressions or compression_suffixes())) is not None
        and bare.endswith(suffixes)
    )


def strip_suffixes(
    relpath: str, level: int = 2, format_suffixes: Sequence[str] | None = None
) -> str:
    """``relpath`` (POSIX) without its storage suffixes: ``level`` 2 strips the compression and
    the format suffixes (``format_suffixes``, lower case with their dot; default: the
    installed readers', :func:`reader_suffixes`), 1 only the compression suffix, 0 nothing."""
    if format_suffixes is None:
        format_suffixes = reader_suffixes()
    relpath = relpath.replace("\\", "/")
    folder, name = posixpath.split(relpath)
    if level >= 1:
        name = _strip_one(name, compression_suffixes()) or name
    while level >= 2 and (shorter := _strip_one(name, format_suffixes)) is not None:
        name = shorter
    return posixpath.join(folder, name) if folder else name


def output_stems(
    relpaths: Sequence[str], format_suffixes: Sequence[str] | None = None
) -> list[str]:
    """The stem of each relpath, distinct from the others' (see the module docstring;
    ``format_suffixes`` defaults to :func:`reader_suffixes`)."""
    if format_suffixes is None:
        format_suffixes = reader_suffixes()
    levels = [2] * len(relpaths)
    while True:
        stems = [
            strip_suffixes(r, lv, format_suffixes) for r, lv in zip(relpaths, levels, strict=True)
        ]
        groups: dict[str, list[int]] = {}
        for i, stem in enumerate(stems):
            groups.setdefault(stem, []).append(i)
        bumped = False
        for members in groups.values():
            if len(members) > 1:
                for i in members:
                    if levels[i] > 0:
                        levels[i] -= 1
                        bumped = True
        if not bumped:
            return stems


def stem_of(input_file: object) -> str:
    """The stem of an :class:`~crawlmill.core.plugin.InputFile`: the one the plan assigned,
    or (an input built by hand) its relpath with both suffix kinds stripped."""
    stem = getattr(input_file, "stem", "")
    return stem or strip_suffixes(getattr(input_file, "relpath", ""))
