"""User-visible files of a reduce (``ctx.output(relpath)``): written in the pass's scratch
folder, renamed into the output root when the reduce succeeds, listed in the pass marker.

The rules (:class:`ReduceOutputs`): ``relpath`` must be a safe relative path inside the
output root and outside ``.crawlmill/`` (checked when the reduce asks, so a bad option fails
before the work); a file the reduce asked for and did not write fails the reduce; an existing
file is replaced only when crawlmill wrote it as a reduce output of this root (listed in
``.crawlmill/reduce_outputs.json``, which each commit extends before its renames, so a run
killed between them, a ``--no-resume`` run and a run with other options may replace it), or
with ``run.overwrite``, and never when it is an input of the run. :func:`outputs_present`
tells whether a complete pass still has its files (else the reduce is redone).

A split reduce (:mod:`crawlmill.core.run.reduce_tasks`) has outputs too: each partition's task
writes the files it asks for in its own scratch folder (:class:`PartOutputs`, checked as
above when asked), lists them in its marker, and the driver, once every partition is done,
hands them to one :class:`ReduceOutputs` (:meth:`ReduceOutputs.adopt`: two partitions asking
for one path fail the reduce) that commits them as a driver reduce's.
"""

from __future__ import annotations

import json
import os
from typing import Any

from .outputs import (
    BOOKKEEPING,
    OutputConflict,
    inside_root,
    refusal,
    safe_relpath,
    write_json_atomic,
)

__all__ = ["PartOutputs", "ReduceOutputs", "outputs_present", "part_outputs_present"]

#: the file of the output root listing every reduce output crawlmill wrote there.
REGISTRY = "reduce_outputs.json"


def _registry(root: str) -> str:
    return os.path.join(root, BOOKKEEPING, REGISTRY)


def _listed(root: str) -> set[str]:
    """Relpaths crawlmill wrote as reduce outputs in ``root``."""
    try:
        with open(_registry(root), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return set()
    entries = data.get("outputs", []) if isinstance(data, dict) else []
    return {e for e in entries if isinstance(e, str)}


class _Requests:
    """Files asked for as ``OUT/<relpath>``, each given a file in ``scratch`` once the path is
    checked: a safe relative path inside the output root, outside ``.crawlmill/``, not an
    input of the run."""

    def __init__(self, root: str, scratch: str, inputs: list[str]) -> None:
        self.root = os.path.abspath(root)
        self.scratch = scratch
        self.inputs = {os.path.realpath(p) for p in inputs}
        self.files: dict[str, str] = {}

    def request(self, relpath: str) -> str:
        """The scratch path to write ``OUT/<relpath>`` to."""
        norm = safe_relpath(relpath)
        final = inside_root(self.root, norm)
        if os.path.realpath(final) in self.inputs:
            raise OutputConflict(refusal(final, "is an input of this run"))
        if norm not in self.files:
            os.makedirs(self.scratch, exist_ok=True)
            self.files[norm] = os.path.join(self.scratch, f"{len(self.files)}.out")
        return self.files[norm]


class ReduceOutputs(_Requests):
    """The output files one reduce asks for (``request``) and their commit."""

    def __init__(
        self, root: str, pass_dir: str, workdir: str, *, overwrite: bool, inputs: list[str]
    ) -> None:
        super().__init__(root, os.path.join(workdir, "outputs"), inputs)
        self.pass_dir = pass_dir
        self.overwrite = overwrite
        self.owners: dict[str, str] = {}

    def adopt(self, relpath: str, path: str, owner: str) -> None:
        """Take the file ``path`` a split reduce's partition (``owner``) wrote for
        ``OUT/<relpath>``; refuses a path another partition wrote."""
        norm = safe_relpath(relpath)
        if norm in self.files:
            raise RuntimeError(
                f"partitions {self.owners.get(norm, '?')} and {owner} of the reduce both wrote {relpath!r}"
            )
        self.files[norm] = path
        self.owners[norm] = owner

    def commit(self) -> list[list[Any]]:
        """Rename every file into place; returns ``[[relpath, size], ...]`` for the marker."""
        if not self.files:
            return []
        listed = _listed(self.root)
        entries = []
        for relpath, tmp in self.files.items():
            if not os.path.isfile(tmp):
                raise RuntimeError(f"the reduce asked for {relpath!r} and did not write it")
            final = inside_root(self.root, relpath)
            if os.path.lexists(final) and relpath not in listed and not self.overwrite:
                raise OutputConflict(
                    refusal(final, "crawlmill did not write it (no reduce of this root lists it)")
                )
            entries.append([relpath, os.path.getsize(tmp)])
        write_json_atomic(_registry(self.root), {"outputs": sorted(listed | set(self.files))})
        for relpath, tmp in self.files.items():
            final = inside_root(self.root, relpath)
            os.makedirs(os.path.dirname(final), exist_ok=True)
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, final)
        return entries


class PartOutputs(_Requests):
    """The output files one partition of a split reduce asks for, in its own ``scratch``
    folder (emptied first, so a retried task starts clean); checked as
    :meth:`ReduceOutputs.request` checks them."""

    def __init__(self, root: str, scratch: str, *, inputs: list[str]) -> None:
        super().__init__(root, scratch, inputs)

    def entries(self) -> list[list[Any]]:
        """``[[relpath, scratch file name, size], ...]`` for the partition's marker (each file
        synced); a file asked for and not written fails the partition."""
        out = []
        for relpath, tmp in self.files.items():
            if not os.path.isfile(tmp):
                raise RuntimeError(f"the reduce asked for {relpath!r} and did not write it")
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            out.append([relpath, os.path.basename(tmp), os.path.getsize(tmp)])
        return out


def part_outputs_present(scratch: str, entries: list[list[Any]]) -> bool:
    """Whether every file a partition's marker lists is still in its ``scratch`` folder with
    its size (a commit killed half way moved some: the partition is redone)."""
    try:
        return all(os.path.getsize(os.path.join(scratch, os.path.basename(name))) == size
                   for _, name, size in entries)  # fmt: skip
    except (OSError, TypeError, ValueError):
        return False


def outputs_present(root: str, marker: dict[str, Any]) -> bool:
    """Whether every output a pass marker lists is in the root with its size."""
    for entry in marker.get("outputs") or []:
        try:
            relpath, size = entry
            if os.path.getsize(inside_root(os.path.abspath(root), safe_relpath(relpath))) != size:
                return False
        except (OSError, TypeError, ValueError):
            return False
    return True
