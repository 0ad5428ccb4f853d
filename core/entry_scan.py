"""The installed distributions' entry points of a few groups, read without importing
:mod:`importlib.metadata` (which imports ``email``, ``csv`` and ``zipfile``: ~20 ms of a
one-record convert's start).

:func:`scan` reads what ``importlib.metadata.entry_points()`` reads in a plain environment
(folders on ``sys.path``, each folder's ``*.dist-info`` and ``*.egg-info`` metadata, the first
distribution of a normalized name winning) and gives the same entry points in the same order;
wherever it would have to guess (a zip file or an ``.egg`` on ``sys.path``, a finder on
``sys.meta_path`` that finds distributions of its own, a file it cannot read or parse) it
returns ``None`` and the caller asks :mod:`importlib.metadata`
(tests/core/test_entry_scan.py compares both).
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
from typing import Any

__all__ = ["LightDistribution", "LightEntryPoint", "headers_identity", "scan", "version_of"]

#: importlib.metadata's ``EntryPoint.pattern``
_PATTERN = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")
_SEPARATORS = re.compile(r"[-_.]+")


class _Unsure(Exception):
    """Something :func:`scan` does not read as importlib.metadata would."""


class LightDistribution:
    """One installed distribution's metadata folder."""

    def __init__(self, path: str) -> None:
        self.path = path

    def read_text(self, filename: str) -> str | None:
        """The text of ``filename`` in the metadata folder, or ``None`` when it is missing."""
        try:
            with open(os.path.join(self.path, filename), encoding="utf-8") as fh:
                return fh.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
            return None

    @property
    def metadata(self) -> Any:
        """importlib.metadata's parse of the metadata (imports it)."""
        import importlib.metadata as md
        import pathlib

        return md.PathDistribution(pathlib.Path(self.path)).metadata

    @property
    def version(self) -> str:
        """The ``Version`` metadata (imports importlib.metadata)."""
        return self.metadata["Version"]


class LightEntryPoint:
    """An entry point: ``name = value`` of ``group``, from distribution ``dist``."""

    def __init__(self, name: str, value: str, group: str, dist: LightDistribution) -> None:
        self.name, self.value, self.group, self.dist = name, value, group, dist

    def __repr__(self) -> str:
        return f"LightEntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"

    def load(self) -> Any:
        """Import the module and return the object the value names (as importlib.metadata's
        ``EntryPoint.load``)."""
        match = _PATTERN.match(self.value)
        if match is None:
            raise ValueError(f"entry point {self.name!r}: {self.value!r} names no object")
        module = importlib.import_module(match.group("module"))
        attrs = filter(None, (match.group("attr") or "").split("."))
        return functools.reduce(getattr, attrs, module)


def _plain_finders() -> bool:
    """Whether every finder on ``sys.meta_path`` that finds distributions is the standard
    path finder (whose answer :func:`scan` reproduces)."""
    from importlib.machinery import PathFinder

    return all(
        finder is PathFinder or getattr(finder, "find_distributions", None) is None
        for finder in sys.meta_path
    )


def _normalize(name: str) -> str:
    return _SEPARATORS.sub("-", name).lower().replace("-", "_")


def _metadata_folders(entry: str) -> list[tuple[str, str]]:
    """``(normalized name, folder)`` of the metadata folders in the ``sys.path`` entry
    ``entry``, grouped by name in first-seen order (importlib.metadata's ``Lookup``)."""
    root = entry or "."
    if os.path.basename(entry).lower().endswith(".egg"):
        raise _Unsure(entry)
    try:
        children = os.listdir(root)
    except OSError:
        if os.path.exists(root):  # a zip file, or a folder it cannot list
            raise _Unsure(entry) from None
        return []
    groups: dict[str, list[str]] = {}
    for child in children:
        low = child.lower()
        if low.endswith((".dist-info", ".egg-info")):
            name = _normalize(low.rpartition(".")[0].partition("-")[0])
            groups.setdefault(name, []).append(os.path.join(entry, child))
    return [(name, path) for name, paths in groups.items() for path in paths]


def _entry_points(text: str, dist: LightDistribution, groups: set[str]) -> list[LightEntryPoint]:
    """The entry points of ``groups`` in an ``entry_points.txt`` (importlib.metadata's
    ``Sectioned`` reading: stripped lines, ``#`` comments, ``[group]`` sections)."""
    found = []
    group = None
    for line in map(str.strip, text.splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line.strip("[]")
            continue
        if group is None:
            continue
        if "=" not in line:
            raise _Unsure(f"{dist.path}: {line!r}")  # importlib.metadata raises
        name, value = map(str.strip, line.split("=", 1))
        if group in groups:
            found.append(LightEntryPoint(name, value, group, dist))
    return found


def scan(groups: tuple[str, ...]) -> dict[str, tuple[LightEntryPoint, ...]] | None:
    """Group -> its entry points in the order ``importlib.metadata.entry_points()`` gives
    them, or ``None`` when the environment needs importlib.metadata itself."""
    try:
        if not _plain_finders():
            return None
        wanted = set(groups)
        seen: set[str] = set()
        found: dict[str, list[LightEntryPoint]] = {g: [] for g in groups}
        for entry in list(sys.path):
            for name, path in _metadata_folders(entry):
                if name in seen:
                    continue
                seen.add(name)
                dist = LightDistribution(path)
                text = dist.read_text("entry_points.txt")
                for ep in _entry_points(text or "", dist, wanted):
                    found[ep.group].append(ep)
    except (_Unsure, OSError, TypeError, UnicodeDecodeError, ValueError):
        return None
    return {g: tuple(eps) for g, eps in found.items()}


def version_of(name: str) -> str | None:
    """The ``Version`` of the installed distribution ``name`` as
    ``importlib.metadata.version`` reads it (the first metadata folder of that normalized
    name on ``sys.path``), or ``None`` when it is not found or :func:`scan` would not be sure
    (then ask importlib.metadata)."""
    wanted = _normalize(name)
    try:
        if not _plain_finders():
            return None
        for entry in list(sys.path):
            for found, path in _metadata_folders(entry):
                if found == wanted:
                    dist = LightDistribution(path)
                    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO")
                    return headers_identity(text)[1] if text else None
    except (_Unsure, OSError, TypeError, UnicodeDecodeError, ValueError):
        return None
    return None


_HEADER = re.compile(r"([^\s:]+):[ \t]*(.*)")


def headers_identity(text: str) -> tuple[str | None, str | None]:
    """The ``Name`` and ``Version`` headers of a ``METADATA`` text as ``email``'s header
    parser reads them (the first of each), reading the plain form itself; a header block it
    is not sure of (continuation lines, carriage returns, a line that is no header) goes to
    ``email``."""
    got: dict[str, str] = {}
    for line in text.split("\n"):
        if not line:
            break
        match = _HEADER.fullmatch(line)
        if match is None or "\r" in line:
            return _email_identity(text)
        got.setdefault(match.group(1).lower(), match.group(2))
    return got.get("name"), got.get("version")


@functools.lru_cache(maxsize=64)
def _email_identity(text: str) -> tuple[str | None, str | None]:
    import email.parser

    headers = email.parser.HeaderParser().parsestr(text)
    return headers.get("Name"), headers.get("Version")
