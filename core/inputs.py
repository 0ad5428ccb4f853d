"""Resolve a spec's inputs into the list of files and collection units a run processes, one
task each.

Rules:

* a **file** path is an input; a **directory** is planned as a tree (below), or, when a
  reader is forced, expanded by that reader's ``Reader.discover`` into units
  (:mod:`crawlmill.core.collection`: one file, or named parts, with expectations) or else
  listed recursively. A unit with a missing part is left out of the run; its presence
  checks (failed and passed) go to ``InputPlan.checks``, which the engine reports beside the
  accounting (exit 3). A unit's size is that of its parts;
* a path with ``*``, ``?`` or ``[`` is a **glob** (``**`` recurses); matching directories are
  planned like directories;
* ``inputs.list_file`` names a text file with one path (or glob) per line; blank lines and
  ``#`` comments are ignored; relative lines are relative to the list file's folder;
* while listing directories and globs, side files that are not records are skipped: names
  starting with ``.`` (files and folders), ``*.crc`` and ``_SUCCESS`` (Hadoop), and anything
  inside the run's output folder. No other file is ever skipped in silence;
* **relpath** (what outputs are named after): for files under a directory or glob, the path
  relative to that directory (or the glob's fixed leading folder); a unit of a collection
  found below the directory keeps its reader's relpath below the collection's folder, so two
  Common Crawl 2012 segments' ``partition-00000`` stay apart; for files named one by one
  (paths and list-file lines), the path relative to the deepest folder common to all of them
  (so ``en0000/00.warc.gz`` and ``en0001/00.warc.gz`` stay apart);
* two folders given as inputs that would give one relpath (two Common Crawl 2012 segments,
  each with its ``partition-00000``) are kept apart: every folder input's relpaths are then
  prefixed with the folder's path relative to the deepest folder common to them all;
* **order**: the inputs in the order the user gave them (paths, then list-file lines); within
  a directory or glob, by path, except that the units of a collection keep their reader's
  order (ClueWeb09 segments by number); ``index`` numbers the result (what ``url-dedup
  rule=first`` calls first). The same file reached twice (by real path) is kept once, where it
  was first given. Two different files with the same relpath are an error (their outputs
  would collide).

**Trees** (a directory, no reader forced: :class:`_TreeScan`). Every folder of the tree is
offered to the readers (``Registry.detect(folder, b"")``; first to the reader of a
collection it lies in) unless a collection found above it already reads a file below it;
the best reader claiming it with confidence >=
:data:`DIRECTORY_CLAIM` expands it with ``discover``. A collection claims exactly its units'
parts and the side files its reader names (``Reader.side_files``: a MapFile's ``index``, the
md5 and record-count lists a check reads; listed in ``InputPlan.claimed``). The walk goes on
below every folder, so a Nutch crawl folder (``crawldb/``, ``linkdb/``, ``segments/``), a
parent of many Common Crawl 2012 segments or a folder of collections beside loose files is
planned whole: each collection once, and every other file with its own detected reader, or
named as not converted.

Each planned input gets a **stem** (:mod:`crawlmill.core.naming`): its relpath without
compression and format suffixes, kept longer where two inputs would share it, so that writers
naming outputs after it never give two inputs one name. ``InputPlan.folders`` lists the folders
the run lists (directory inputs), which the engine keeps apart from the output folder.

When ``spec.reader`` is ``None`` each file's reader is detected with
``registry.detect(path, read_head(path))``. A file no reader claims never blocks the others; it
is left out of the run and listed in ``InputPlan.not_converted`` with the reason
(``core/file_detection.py``): named like a format a reader reads (``*.warc.gz`` with a
damaged start), in
a format crawlmill knows but has no reader for (``formats/foreign.py``: "Hadoop SequenceFile:
no reader installed for it yet"), binary data (a PDF, a damaged start), text no reader reads
and no collection beside it checks (a README, a stray list), or
unreadable. The run exits 3 for them. (``InputPlan.skipped`` is kept for callers and stays
empty.)

A plan with no input left is an error ("nothing to convert"), naming what was found and why
each file was left out.
When a reader is forced, each file is still detected, and a file that detection gives to
another reader (and the forced one does not claim as surely) is listed in
``InputPlan.warnings``, naming both readers. So is each plugin whose reader's ``sniff`` or
``crawlmill_detect_format`` hook raised while planning (once per plugin,
``Registry.detection_failures``): that reader claimed nothing and the others still detect.
"""

from __future__ import annotations

import glob
import os
import shutil
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from . import remote_tree, storage
from .collection import Check, presence_checks, unit_size
from .components import resolve
from .detect_prefetch import DetectionPrefetch
from .detect_prefetch import threads as detection_threads
from .errors import ConfigError
from .file_detection import check_forced_reader, detect_reader
from .naming import output_stems
from .plugin import InputFile
from .registry import Registry
from .spec import PipelineSpec
from .storage_root import remote_url

__all__ = ["InputPlan", "PlannedInput", "expand_inputs", "is_side_file"]

#: a directory reader claim needs at least this confidence to take over the listing.
DIRECTORY_CLAIM = 0.5
#: warning code of planning (docs/problems.md).
DETECTION_FAILED = "detection-failed"
_SIDE_NAMES = frozenset({"_SUCCESS"})
_SIDE_SUFFIXES = (".crc",)


class _NoMeta(dict):  # type: ignore[type-arg]
    """The ``meta`` and ``parts`` of a plain file's :class:`InputFile`: empty, one object
    shared by every such input of a run (100,000 of them), so it refuses to change (a
    plugin writing into it would write into every input's)."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("an input's meta and parts are read-only")

    __setitem__ = __delitem__ = update = setdefault = pop = popitem = clear = _refuse  # type: ignore[assignment]
    __ior__ = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> Any:  # a worker gets a dict of its own
        return (dict, ())


#: the shared empty ``meta`` / ``parts`` of plain files (see :class:`_NoMeta`).
NO_META: dict[str, Any] = _NoMeta()


class InputPlan(list):
    """The planned inputs (a list of :class:`PlannedInput`) plus the files no reader claims, as
    ``(path, reason)`` pairs: ``not_converted`` (meant as input; the run exits 3) and
    ``skipped`` (side files found by listing a directory or glob). Both are left out of the
    run and reported, never dropped silently (see the module docstring)."""

    def __init__(
        self,
        items=(),
        skipped: list[tuple[str, str]] | None = None,
        not_converted: list[tuple[str, str]] | None = None,
    ) -> None:
        super().__init__(items)
        self.skipped: list[tuple[str, str]] = skipped or []
        self.not_converted: list[tuple[str, str]] = not_converted or []
        #: ``(path, message, code)``: a forced reader that detection disagrees with
        #: (``forced-reader``), or a plugin whose detection raised
        #: (``detection-failed``, ``Registry.detection_failures``).
        self.warnings: list[tuple[str, str, str]] = []
        #: folders the run lists as inputs (absolute real paths).
        self.folders: list[str] = []
        #: presence checks of discovered units (:mod:`crawlmill.core.collection`); a unit
        #: with a failed one is not read.
        self.checks: list[Check] = []
        #: ``(path, reader)``: files a collection reads or checks beside its units' parts
        #: (``Reader.side_files``: a MapFile's index, md5 and record-count lists).
        self.claimed: list[tuple[str, str]] = []


@dataclass(frozen=True, slots=True)
class PlannedInput:
    """One input of a run and the reader that reads it."""

    input: InputFile
    reader: str
    #: size in bytes (of all parts for a multi-part unit; 0 when unknown).
    size: int = 0


def is_side_file(name: str) -> bool:
    """True for directory entries that are never records (hidden, ``*.crc``, ``_SUCCESS``)."""
    return name.startswith(".") or name in _SIDE_NAMES or name.endswith(_SIDE_SUFFIXES)


def _walk(root: str, skip_under: str) -> list[str]:
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not is_side_file(d) and not _within(os.path.join(dirpath, d), skip_under)
        )
        for name in sorted(filenames):
            if not is_side_file(name):
                found.append(os.path.join(dirpath, name))
    return sorted(found)


def _within(path: str, root: str) -> bool:
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _glob_root(pattern: str, sep: str = os.sep) -> str:
    parts = pattern.split(sep)
    fixed = []
    for part in parts:
        if glob.has_magic(part):
            break
        fixed.append(part)
    return sep.join(fixed) or "."


class _Entry(NamedTuple):
    """One input found: its path, its relpath (``None`` when named on its own), the unit a
    collection reader discovered (``None`` for a plain file), the reader that discovered it
    and the sort key."""

    path: str
    relpath: str | None
    unit: InputFile | None
    reader: str | None
    key: tuple


class _Collector:
    """Accumulates :class:`_Entry` items and the problems found."""

    def __init__(self, spec: PipelineSpec, registry: Registry) -> None:
        self.spec = spec
        self.registry = registry
        self.problems: list[tuple[str, str]] = []
        self.entries: list[_Entry] = []
        self.output = os.path.abspath(spec.output)
        self.real_output = os.path.realpath(self.output)
        self.folders: list[str] = []
        #: the files collections read beside their units' parts: ``(path, reader)``.
        self.claimed: list[tuple[str, str]] = []
        #: the place of the input being added among the inputs the user gave.
        self.order = -1
        #: ``(path, reason)``: files of a folder a forced collection reader does not read.
        self.unread: list[tuple[str, str]] = []
        #: the folder a directory or glob input's relpaths are relative to, by its place.
        self.roots: dict[int, str] = {}
        #: the store root a staged output publishes to: its objects are never inputs.
        self.remote_output = remote_url(self.output)
        #: sizes of the objects a listing found (no second request for each).
        self.sizes: dict[str, int] = {}
        self.reader = None
        if spec.reader is not None:
            self.reader = resolve(registry, "reader", spec.reader, "reader", self.problems)

    def add(self, raw: str, loc: str, base: str | None = None) -> None:
        self.order += 1
        try:
            raw = storage.local_path(raw)  # a file:// URL is a local path
        except storage.StorageError as exc:
            self.problems.append((loc, str(exc)))
            return
        if storage.is_remote(raw):
            self.add_remote(raw, loc)
            return
        path = os.path.join(base, raw) if base and not os.path.isabs(raw) else raw
        path = os.path.expanduser(path)
        if os.path.isfile(path):
            self.entries.append(_Entry(path, None, None, None, self._key(path)))
        elif os.path.isdir(path):
            self.add_dir(path, path)
        elif glob.has_magic(path):
            matches = sorted(glob.glob(path, recursive=True))
            root = _glob_root(path)
            if not matches:
                self.problems.append((loc, f"no file matches {raw!r}"))
            for m in matches:
                rel = os.path.relpath(m, root)
                if os.path.isdir(m):
                    self.add_dir(m, root)
                elif not is_side_file(os.path.basename(m)) and not _within(m, self.output):
                    self.entries.append(_Entry(m, rel, None, None, self._key(m)))
        else:
            self.problems.append((loc, f"no such file: {raw}"))

    def add_remote(self, url: str, loc: str) -> None:
        """Plan a URL (:mod:`crawlmill.core.storage`): an object, a glob of objects, or a
        folder (prefix) listed recursively; relpaths are relative to the prefix (the glob's
        fixed leading folder). Below a prefix, collections are discovered as in a local folder
        (:meth:`_add_remote_tree`); the objects a glob matches are each detected on their
        own."""
        shown = storage.redact(url)
        try:
            if storage.has_magic(url):
                root = _glob_root(url.rstrip("/"), "/")
                found = [(u, storage.size(u)) for u in storage.glob(url) if storage.isfile(u)]
                if not found:
                    self.problems.append((loc, f"no file matches {shown!r}"))
            elif storage.isfile(url):
                if not self._in_remote_output(url):
                    self.entries.append(_Entry(url, None, None, None, self._key(url)))
                return
            elif storage.isdir(url):
                root = url.rstrip("/")
                found = storage.find(root)
            else:
                self.problems.append((loc, f"no such file: {shown}"))
                return
        except (OSError, ValueError) as exc:  # a refusal (HTTP 403), a store that fails
            why = exc.strerror if isinstance(exc, storage.BackendError) else exc
            self.problems.append((loc, f"cannot read {shown}: {why}"))
            return
        self.roots[self.order] = storage.url_path(root)
        tree = not storage.has_magic(url)
        safe = []
        for u, n in found:
            rel = u[len(root) :].lstrip("/")
            parts = rel.split("/")
            if ".." in parts or "." in parts or "" in parts or "\\" in rel:
                # an object key names no path outside the output root
                why = (
                    "not read: its object key has an empty, '.' or '..' part (or a "
                    "backslash): it names no safe output path"
                )
                self.unread.append((storage.redact(u), why))
            elif self._in_remote_output(u):
                continue  # the run's own output root: never an input
            elif not any(is_side_file(part) for part in parts):
                self.sizes[u] = n
                if tree:
                    safe.append((u, n))
                else:
                    self.entries.append(_Entry(u, rel, None, None, self._key(u)))
        if tree:
            self._add_remote_tree(root, safe)

    def _add_remote_tree(self, root: str, found: list[tuple[str, int]]) -> None:
        """Plan the objects ``found`` below the prefix ``root`` as a local folder is planned
        (collections discovered, every other file on its own), on a shadow of the listing
        (:mod:`crawlmill.core.remote_tree`), its paths turned back into URLs."""
        scratch = remote_tree.shadow_folder(found, self.registry, "crawlmill-listing-")
        # the shadow has the prefix's name: a collection unit the prefix itself is (a MapFile
        # folder, a segment) is named after its folder, as the same local folder's is
        name = root.rsplit("/", 1)[-1]
        shadow = os.path.join(scratch, name if name not in ("", ".", "..") else "listing")
        try:
            os.mkdir(shadow)
        except OSError:  # a name no local folder can have
            shadow = os.path.join(scratch, "listing")
            os.mkdir(shadow)
        marks = [len(x) for x in (self.entries, self.unread, self.claimed, self.problems)]
        folders, roots = list(self.folders), dict(self.roots)
        try:
            remote_tree.build(root, found, shadow, self.registry)
            self.add_dir(shadow, shadow)
        except OSError as exc:  # an object that cannot be fetched, a key no local name holds
            shown = storage.redact(remote_tree.to_urls(str(exc), shadow, root))
            self.problems.append(("inputs", f"cannot plan {storage.redact(root)}/: {shown}"))
        finally:
            self.folders, self.roots = folders, roots
            for items, mark in zip(
                (self.entries, self.unread, self.claimed, self.problems), marks, strict=True
            ):
                items[mark:] = remote_tree.to_urls(items[mark:], shadow, root)
            shutil.rmtree(scratch, ignore_errors=True)
        self.entries[marks[0] :] = [
            e for e in self.entries[marks[0] :] if not self._in_remote_output(e.path)
        ]

    def _in_remote_output(self, url: str) -> bool:
        """Whether ``url`` lies in the store root the run writes (never an input)."""
        out = self.remote_output
        return bool(out) and (url + "/").startswith(out.rstrip("/") + "/")

    def _key(self, path: str, group: str | None = None, position: int = 0) -> tuple:
        """Sort key: the input's place among the inputs the user gave, then the path (a
        collection's units keep their reader's order within the collection's folder)."""
        absolute = _absolute(path)
        return (self.order, group if group is not None else absolute, position, absolute)

    def add_dir(self, path: str, rel_root: str) -> None:
        self.folders.append(os.path.realpath(path))
        self.roots[self.order] = os.path.abspath(rel_root)
        if self.reader is not None:  # a forced reader lists the folder, or the engine does
            discovered = self.reader.cls.discover(path, self.reader.options)
            if discovered is not None:
                self._add_units(path, rel_root, self.reader, discovered)
                self._name_unread(path, self.reader, discovered)
                return
            for f in _walk(path, self.output):
                self.entries.append(
                    _Entry(f, os.path.relpath(f, rel_root), None, None, self._key(f))
                )
            return
        _TreeScan(self, rel_root).visit(path, offer=True)

    def _name_unread(self, folder: str, reader, units: list[InputFile]) -> None:
        """With a forced collection reader: every file of ``folder`` its collection does not
        read (no unit's part, no side file) is named as not converted."""
        read = {os.path.realpath(p) for u in units for p in (u.parts or {"": u.path}).values()}
        for side in reader.cls.side_files(folder, units):
            read.add(os.path.realpath(side))
            self.claimed.append((side, reader.name))
        for f in _walk(folder, self.output):
            if os.path.realpath(f) not in read:
                why = (
                    f"not read: not part of the {reader.name!r} collection in {folder} (the "
                    "reader is forced with --from / reader:; without it, each file is detected)"
                )
                self.unread.append((f, why))

    def collection_reader(self, path: str):
        """The reader detection gives the folder ``path`` as a collection, or ``None``."""
        ranking = self.registry.detect(path, b"")
        if ranking and ranking[0][1] >= DIRECTORY_CLAIM:
            return resolve(
                self.registry, "reader", _component(ranking[0][0]), "reader", self.problems
            )
        return None

    def _add_units(self, folder: str, rel_root: str, reader, units: list[InputFile]) -> None:
        group = os.path.abspath(folder)
        for position, item in enumerate(units):
            rel = _unit_relpath(item, folder, rel_root)
            key = self._key(item.path, group, position)
            self.entries.append(_Entry(item.path, rel, item, reader.name, key))

    def add_list_file(self, list_file: str) -> None:
        try:
            with open(list_file, encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        except OSError as exc:
            self.problems.append(
                ("inputs.list_file", f"cannot read {list_file}: {exc.strerror or exc}")
            )
            return
        base = os.path.dirname(os.path.abspath(list_file))
        for n, line in enumerate(lines, 1):
            line = line.strip()
            if line and not line.startswith("#"):
                self.add(line, f"inputs.list_file line {n}", base)


class _TreeScan:
    """Plans a folder given as input when no reader is forced: every collection root at any
    depth, and every other file (see the module docstring, "Trees").

    A folder is offered to the readers (``Registry.detect`` with ``head=b""``) unless a
    collection found above it already reads some file under it; a reader claiming it with
    confidence >= :data:`DIRECTORY_CLAIM` expands it through ``discover`` into units, whose
    parts (and the reader's ``side_files``) are the collection's. The walk goes on below
    every folder, so a file no collection reads is planned on its own (its reader detected,
    or named as not converted), and a collection nested in an unclaimed folder is found."""

    def __init__(self, col: _Collector, rel_root: str) -> None:
        self.col = col
        self.rel_root = rel_root
        self.claimed: set[str] = set()  # real paths of files a collection reads
        self.holding: set[str] = set()  # real paths of folders holding such files
        self.visited: set[str] = set()  # real paths of folders walked (symlink loops)

    def _claim(self, path: str, top: str) -> None:
        real = os.path.realpath(path)
        self.claimed.add(real)
        folder = os.path.dirname(real)
        while folder not in self.holding and folder.startswith(top):
            self.holding.add(folder)
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent

    def visit(self, folder: str, offer: bool, above=None) -> None:
        """Plan ``folder`` (offered to the readers when ``offer``; first to ``above``, the
        reader of the collection it lies in, as a CrawlDB's ``old/`` beside the ``current/``
        its reader read) and walk below it."""
        col = self.col
        real = os.path.realpath(folder)
        if real in self.visited:
            return
        self.visited.add(real)
        if offer:
            reader = None
            if above is not None and (above.cls.sniff(folder, b"") or 0.0) >= DIRECTORY_CLAIM:
                reader = above
            reader = reader or col.collection_reader(folder)
            units = reader.cls.discover(folder, reader.options) if reader is not None else None
            if reader is not None and units is not None:
                above = reader
                col._add_units(folder, self.rel_root, reader, units)
                top = os.path.realpath(folder)
                for unit in units:
                    for part in (unit.parts or {"": unit.path}).values():
                        self._claim(part, top)
                for side in reader.cls.side_files(folder, units):
                    if os.path.realpath(side) not in self.claimed:
                        col.claimed.append((side, reader.name))
                    self._claim(side, top)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            col.problems.append(("inputs", f"cannot list {folder}: {exc.strerror or exc}"))
            return
        output = col.real_output
        base = real  # the folder's real path: an entry that is no symlink is below it
        for entry in entries:
            if is_side_file(entry.name):
                continue
            # no realpath (a system call per path component) for each of 100,000 files
            if entry.is_symlink():
                real = os.path.realpath(entry.path)
            else:
                real = os.path.join(base, entry.name)
            if real == output or real.startswith(output.rstrip(os.sep) + os.sep):
                continue  # in the output folder (``_within``)
            if entry.is_dir():
                self.visit(entry.path, offer=real not in self.holding, above=above)
            elif entry.is_file() and real not in self.claimed:
                rel = os.path.relpath(entry.path, self.rel_root)
                col.entries.append(_Entry(entry.path, rel, None, None, col._key(entry.path)))


def _unit_relpath(unit: InputFile, folder: str, rel_root: str) -> str:
    """The relpath of a unit a reader discovered in ``folder``, relative to ``rel_root``
    (the input folder): the reader's own relpath for a folder given as input; below it, the
    reader's relpath is relative to the folder ``unit.path`` ends it with, else to
    ``folder``."""
    if os.path.abspath(folder) == os.path.abspath(rel_root):
        return unit.relpath
    own = [p for p in unit.relpath.replace(os.sep, "/").split("/") if p]
    where = os.path.abspath(unit.path).split(os.sep)
    if own and len(where) > len(own) and where[-len(own) :] == own:
        base = os.sep.join(where[: -len(own)])
        if _within(base, rel_root):
            return os.path.relpath(os.path.join(base, *own), rel_root)
    return os.path.join(os.path.relpath(folder, rel_root), unit.relpath)


def _apart(entries: list[_Entry], roots: dict[int, str]) -> list[_Entry]:
    """``entries`` with the relpaths of different folder inputs kept apart: when two folders
    given as inputs would give one relpath (two Common Crawl 2012 segments, each with its
    ``partition-00000``), every folder input's relpaths are prefixed with the folder's path
    relative to the deepest folder common to them all."""
    owner: dict[str, int] = {}
    clash = False
    for e in entries:
        order = e.key[0]
        if order in roots and owner.setdefault(str(e.relpath), order) != order:
            clash = True
    if not clash or len(set(roots.values())) < 2:
        return entries
    common = os.path.commonpath([os.path.dirname(r) for r in roots.values()])
    prefix = {o: os.path.relpath(r, common).replace(os.sep, "/") for o, r in roots.items()}
    return [
        e._replace(relpath=f"{prefix[e.key[0]]}/{e.relpath}") if e.key[0] in roots else e
        for e in entries
    ]


def _component(name: str):
    from .spec import ComponentSpec

    return ComponentSpec(name=name)


def _absolute(path: str) -> str:
    """The absolute path of a local ``path``; a URL's naming path (``/s3/bucket/key``)."""
    return storage.url_path(path) if storage.is_remote(path) else os.path.abspath(path)


def _real(path: str) -> str:
    """The real path of a local ``path`` (the same file reached twice); a URL itself."""
    return path if storage.is_remote(path) else os.path.realpath(path)


def _loose_relpaths(paths: list[str]) -> dict[str, str]:
    if not paths:
        return {}
    absolute = [_absolute(p) for p in paths]
    if len(set(absolute)) == 1:
        return {paths[0]: os.path.basename(absolute[0])}
    common = os.path.commonpath([os.path.dirname(a) for a in absolute])
    return {p: os.path.relpath(a, common) for p, a in zip(paths, absolute, strict=True)}


def expand_inputs(spec: PipelineSpec, registry: Registry) -> InputPlan:
    """The run's inputs, sorted and de-duplicated, each with its reader; see the module
    docstring. Raises :class:`ConfigError` listing every problem (missing path, empty glob,
    colliding relpaths, nothing to convert)."""
    col = _Collector(spec, registry)
    for i, raw in enumerate(spec.inputs.paths):
        col.add(raw, f"inputs.paths[{i}]")
    if spec.inputs.list_file:
        col.add_list_file(spec.inputs.list_file)
    if not spec.inputs.paths and not spec.inputs.list_file:
        col.problems.append(("inputs", "no inputs given"))
    if col.problems:
        raise ConfigError(col.problems)

    loose = _loose_relpaths([e.path for e in col.entries if e.relpath is None])
    listed = {e.path for e in col.entries if e.relpath is not None and e.reader is None}
    seen: dict[str, _Entry] = {}
    for e in col.entries:
        real = _real(e.path)
        if real not in seen:
            relpath = (e.relpath if e.relpath is not None else loose[e.path]).replace(os.sep, "/")
            seen[real] = e._replace(relpath=relpath)
    col.entries.clear()  # (each step below lets go of the one before: 100,000 inputs)
    ordered = _apart(sorted(seen.values(), key=lambda e: e.key), col.roots)
    del seen, loose
    ordered.reverse()  # taken from the end: each entry is dropped once read

    problems: list[tuple[str, str]] = []
    by_rel: dict[str, str] = {}
    planned = InputPlan(not_converted=list(col.unread))
    #: ``(path, relpath, unit, reader, size)`` of the inputs, made into planned inputs once
    #: their stems are known (each input's objects made once: 100,000 inputs)
    chosen: list[tuple[str, str, Any, str, int]] = []
    forced = col.reader.name if col.reader else None
    detected = [e.path for e in reversed(ordered) if (e.reader or forced) is None]
    with DetectionPrefetch(detected, detection_threads()) as ahead:  # remote objects only
        del detected
        while ordered:
            path, relpath, unit, reader, _ = ordered.pop()
            assert relpath is not None
            if unit is not None:  # a collection's unit: its parts must be there to be read
                checks, readable = presence_checks(unit)
                planned.checks.extend(checks)
                if not readable:
                    continue
            if relpath in by_rel:
                problems.append(
                    (
                        "inputs",
                        f"{by_rel[relpath]} and {path} both map to {relpath!r}; their outputs would collide",
                    )
                )
            by_rel[relpath] = path
            name = reader or (col.reader.name if col.reader else None)
            if name is None:
                name, why, meant = detect_reader(
                    registry, path, named=path not in listed, read=ahead.get
                )
                if name is None:  # left out, reported: it never blocks the other inputs
                    (planned.not_converted if meant else planned.skipped).append((path, why))
                    continue
            elif col.reader is not None and reader is None:
                check_forced_reader(registry, path, col.reader.name, planned.warnings)
            if unit is None:
                size = col.sizes.get(path)
                if size is None:
                    size = storage.size(path) if storage.isfile(path) else 0
            else:
                size = unit_size(unit)
            chosen.append((path, relpath, unit, name or "", size))
    if problems:
        raise ConfigError(problems)
    if not chosen:
        failed = [v for _, v in sorted(registry.detection_failures.items())]
        raise ConfigError(_nothing_to_convert(spec, planned) + [("inputs", m) for _, m in failed])
    stems = output_stems([c[1] for c in chosen], registry.file_suffixes())
    chosen.reverse()  # taken from the end: each is dropped once its input is made
    for index, stem in enumerate(stems):
        path, relpath, unit, name, size = chosen.pop()
        if unit is None:  # a plain file: nothing to say beyond its names (shared empty maps)
            item = InputFile(path, relpath, index, NO_META, stem, NO_META)
        else:
            item = replace(unit, relpath=relpath, index=index, meta=dict(unit.meta), stem=stem)
        planned.append(PlannedInput(item, name, size))
    planned.folders = sorted(set(col.folders))
    planned.claimed = list(col.claimed)
    planned.warnings.extend(
        (*v, DETECTION_FAILED) for _, v in sorted(registry.detection_failures.items())
    )
    return planned


#: how many left-out files a "nothing to convert" error names.
_NAMED_AT_MOST = 20


def _nothing_to_convert(spec: PipelineSpec, plan: InputPlan) -> list[tuple[str, str]]:
    """The problems of a plan with no input: what was looked at and why each file was left out."""
    missing = [(c.path, f"{c.check} check failed: {c.reason}") for c in plan.checks if not c.ok]
    left_out = plan.not_converted + missing + plan.skipped
    where = ", ".join(spec.inputs.paths) or spec.inputs.list_file or "the inputs"
    inside = [p for p in spec.inputs.paths if os.path.isdir(p) and _within(p, spec.output)]
    if not left_out and inside:  # the output folder's files are never inputs
        folder = os.path.realpath(inside[0]).rstrip(os.sep)
        return [
            (
                "output",
                f"{spec.output} is (or holds) the input folder {inside[0]}: crawlmill never reads "
                "its own output folder, so nothing is left to convert; choose an output folder "
                f"outside the inputs, such as {folder}-out",
            )
        ]
    if not left_out:
        head = f"nothing to convert: no file found in {where}"
    elif len(missing) == len(left_out):
        head = f"nothing to convert: every unit of the collection in {where} misses a part"
    else:
        head = f"nothing to convert: no reader claims any of the {len(left_out)} file(s) found in {where}"
    problems = [("inputs", head)]
    problems += [("inputs", f"{path}: {why}") for path, why in left_out[:_NAMED_AT_MOST]]
    if len(left_out) > _NAMED_AT_MOST:
        problems.append(("inputs", f"... and {len(left_out) - _NAMED_AT_MOST} more"))
    return problems
