"""Orphaned outputs: the files of completion markers whose input is no longer an input.

A completion marker (``OUT/.crawlmill/done/<key>.json``) names its input (``input_path``)
and the files it wrote. When a later run into the same root no longer has that input (the
file was removed from the inputs, deleted or renamed), the marker and its files stay: they
are **orphans**. A run lists them (``report.json``: ``orphans``; on the terminal) and
removes them only when asked (``--remove-orphans``, ``run.remove_orphans: true``): then the
files the orphan's marker lists, and nothing else, are deleted with the marker; a file a
current marker claims (another input took the name over) or that is an input of the run is
kept. ``crawlmill status`` lists the orphans the last run named and those whose input file
is gone since (:func:`orphans_of_root`).

Markers of a sorted shuffle's partitions (their input is a folder below ``.crawlmill``) are
no orphans: they belong to the run's shuffle, not to an input.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Container, Iterable
from typing import Any

from .outputs import OutputRoot, UnsafeOutputPath, safe_relpath

__all__ = ["NOT_AN_INPUT", "INPUT_GONE", "find_orphans", "orphans_of_root", "remove_orphans"]

#: the reason of an orphan whose input file exists but was not an input of the run.
NOT_AN_INPUT = "not an input of the run"
#: the reason of an orphan whose input file does not exist any more.
INPUT_GONE = "input file gone"


def _files(marker: dict[str, Any], field: str) -> list[str]:
    return [
        o["path"]
        for o in marker.get(field) or []
        if isinstance(o, dict) and isinstance(o.get("path"), str)
    ]


def _entry(key: str, marker: dict[str, Any]) -> dict[str, Any]:
    path = str(marker["input_path"])
    return {
        "key": key,
        "input": marker.get("input"),
        "input_path": path,
        "reason": NOT_AN_INPUT if os.path.exists(path) else INPUT_GONE,
        "outputs": _files(marker, "outputs"),
        "quarantine": _files(marker, "quarantine"),
    }


def _candidates(
    root: OutputRoot, skip: Container[str] = ()
) -> Iterable[tuple[str, dict[str, Any]]]:
    """The root's completion markers of inputs (not of a shuffle's partitions), read one at
    a time, those of the keys in ``skip`` not read."""
    for key, marker in root.iter_markers(skip):
        path = marker.get("input_path")
        if isinstance(path, str) and not os.path.abspath(path).startswith(root.meta + os.sep):
            yield key, marker


def find_orphans(root: OutputRoot, inputs: Iterable[str], keep: set[str]) -> list[dict[str, Any]]:
    """The orphans of ``root`` after a run whose input paths are ``inputs``: its completion
    markers, but those in ``keep`` (the run's own keys), whose input is none of ``inputs``;
    each ``{"key", "input", "input_path", "reason", "outputs", "quarantine"}``, by input."""
    current: set[str] | None = None  # made at the first candidate (a resume has none)
    found = []
    for key, marker in _candidates(root, keep):
        if current is None:
            current = {os.path.abspath(p) for p in inputs}
        if os.path.abspath(marker["input_path"]) not in current:
            found.append(_entry(key, marker))
    return sorted(found, key=lambda o: (o["input_path"], o["key"]))


def orphans_of_root(root: OutputRoot, named: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """What ``crawlmill status`` lists: the orphans the last run ``named`` whose marker is
    still there, and the markers whose input file is gone since (read only)."""
    keys = {o.get("key") for o in named if isinstance(o, dict)}
    found = [
        _entry(key, marker)
        for key, marker in _candidates(root)
        if key in keys or not os.path.exists(marker["input_path"])
    ]
    return sorted(found, key=lambda o: (o["input_path"], o["key"]))


def remove_orphans(
    root: OutputRoot, orphans: list[dict[str, Any]], claimed: set[str], inputs: Iterable[str]
) -> list[str]:
    """Delete each orphan's files (those its marker lists, but any in ``claimed`` or that is
    one of ``inputs``) and then its marker; returns the deleted relpaths. Only under the run
    lock."""
    protected = {os.path.realpath(p) for p in inputs}
    real_root = os.path.realpath(root.path)
    removed: list[str] = []
    for orphan in orphans:
        marker = root.read_marker(orphan["key"])
        if marker is None:
            continue
        for rel in _files(marker, "outputs") + _files(marker, "quarantine"):
            try:
                rel = safe_relpath(rel, internal=True)
            except UnsafeOutputPath:
                continue
            final = os.path.join(real_root, *rel.split("/"))
            real = os.path.realpath(final)
            if rel in claimed or real in protected:
                continue
            if real != final and os.path.commonpath([real_root, real]) != real_root:
                continue  # a symlink leading out of the root: never followed
            with contextlib.suppress(OSError):
                os.remove(final)
                removed.append(rel)
        with contextlib.suppress(OSError):
            os.remove(root.marker_path(orphan["key"]))
    return sorted(removed)
