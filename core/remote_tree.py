"""Collections below a URL: a listed prefix mirrored as a local **shadow tree** the readers'
``discover`` and ``sniff`` see as a folder, and what they found mapped back to URLs.

A collection reader finds its units by names and folders (a Nutch crawl folder's
``crawldb/current/part-00000/data``, a ClueWeb09 segment's ``en0000/00.warc.gz``, a Common
Crawl 2012 segment's ``metadata-NNNNN``) and reads a few small files to decide (a Hadoop
``data`` file's header: CrawlDB or LinkDB; a ClueWeb09 ``.md5`` list). A prefix listed once
(:func:`crawlmill.core.storage.find`, sizes included) is therefore mirrored in a temporary
folder (:func:`shadow_folder`: in ``/dev/shm`` when it can): every object becomes a sparse
file of its size (no bytes fetched), except the files the readers declare their discovery
reads (:attr:`crawlmill.core.plugin.Reader.discovery_reads`, collected by :meth:`crawlmill.core.registry.Registry.discovery_reads`: a name pattern and how
many first bytes, or the whole file): of a file whose name several declarations match, the
most bytes any of them reads are fetched (one ranged read, or one stream for a whole file).
This module knows no format. The planning of a local folder then runs unchanged on the
shadow, and :func:`to_urls` turns every shadow path in what it found (units, their parts and
meta, side files, problems) back into the object's URL; readers read the URLs through the
storage layer. The shadow is removed after planning.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import storage

if TYPE_CHECKING:
    from .registry import Registry

__all__ = ["SHM", "SHM_BYTES", "build", "fetched_bytes", "shadow_folder", "to_urls"]

#: the memory file system a shadow is made in when there is one (:func:`shadow_folder`).
SHM = "/dev/shm"
#: the most bytes discovery may fetch for a shadow in :data:`SHM` (they take memory there).
SHM_BYTES = 16 << 20
#: ``(name pattern, bytes or None: the whole file)``, as ``Registry.discovery_reads`` gives.
Reads = Sequence[tuple[re.Pattern[str], "int | None"]]


def fetched_bytes(name: str, size: int, reads: Reads) -> int:
    """How many first bytes of a file called ``name`` of ``size`` bytes discovery reads: the
    most any declaration matching ``name`` reads (``size`` for a whole file), 0 when none
    matches."""
    want = 0
    for pattern, n in reads:
        if pattern.fullmatch(name):
            want = max(want, size if n is None else min(n, size))
    return want


def shadow_folder(found: list[tuple[str, int]], registry: Registry, prefix: str) -> str:
    """A new empty folder for the shadow of the objects ``found`` (named ``prefix``...): in
    the memory file system ``/dev/shm`` when this machine has one with room to spare (four
    times those bytes, an inode for each object twice over) and the bytes discovery fetches
    (:func:`fetched_bytes`) come to at most :data:`SHM_BYTES`, else in the temp folder. A shadow is mostly directory entries of files of holes; creating 100,000 of them
    on a disk file system is the kernel's journal work (seconds), in memory a fraction of it,
    and holes take no memory."""
    reads = registry.discovery_reads()
    fetched = 0
    for url, size in found:
        fetched += fetched_bytes(url.rsplit("/", 1)[-1], size, reads)
        if fetched > SHM_BYTES:
            break
    if fetched <= SHM_BYTES and _room(SHM, 4 * fetched + (1 << 20), 2 * len(found) + 64):
        try:
            return tempfile.mkdtemp(prefix=prefix, dir=SHM)
        except OSError:
            pass
    return tempfile.mkdtemp(prefix=prefix)


def _room(folder: str, free_bytes: int, inodes: int) -> bool:
    """Whether ``folder`` is a writable folder with ``free_bytes`` and ``inodes`` to spare (a
    container's ``/dev/shm`` may be 64 MB in all, shared with other processes)."""
    if not (os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK)):
        return False
    try:
        st = os.statvfs(folder)
    except OSError:
        return False
    spare_inodes = st.f_favail if st.f_files else inodes  # 0 files: no inode limit
    return st.f_bavail * st.f_frsize >= free_bytes and spare_inodes >= inodes


def build(root: str, found: list[tuple[str, int]], shadow: str, registry: Registry) -> None:
    """Mirror the objects ``found`` below the URL ``root`` (``(url, size)``, keys already
    checked safe) in the local folder ``shadow``, fetching what ``registry``'s readers
    declare their discovery reads (see the module docstring). A file nothing is fetched for
    is created with its size and no bytes (three system calls)."""
    reads = registry.discovery_reads()
    made: set[str] = set()
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
    for url, size in found:
        rel = url[len(root) :].lstrip("/")
        folder, _, name = rel.rpartition("/")
        where = os.path.join(shadow, *folder.split("/")) if folder else shadow
        if where not in made:
            os.makedirs(where, exist_ok=True)
            made.add(where)
        local = os.path.join(where, name)
        want = fetched_bytes(name, size, reads)
        if not want:  # the most common case: a hole of the object's size
            fd = os.open(local, flags, 0o644)
            try:
                if size:
                    os.ftruncate(fd, size)
            finally:
                os.close(fd)
            continue
        with open(local, "wb") as fh:
            if want >= size > 0:  # the whole file: streamed, never held in memory
                with storage.open_input(url) as src:
                    shutil.copyfileobj(src, fh, storage.STREAM_BLOCK)
            else:
                fh.write(storage.read_start(url, want))
            fh.truncate(max(size, fh.tell()))  # the rest: a hole, no bytes on disk


def to_urls(value: Any, shadow: str, root: str) -> Any:
    """``value`` with every path below ``shadow`` (a string, or inside a tuple, list, dict or
    :class:`~crawlmill.core.input_file.InputFile`) turned into the URL below ``root``."""
    bases = tuple({shadow, os.path.realpath(shadow)})  # the real path once, not per string
    return _to_urls(value, bases, root)


def _to_urls(value: Any, bases: tuple[str, ...], root: str) -> Any:
    if isinstance(value, str):
        for base in bases:
            if value == base:
                return root
            if value.startswith(base + os.sep):
                return root + "/" + value[len(base) + 1 :].replace(os.sep, "/")
        return value
    if isinstance(value, tuple) and hasattr(value, "_replace"):  # a NamedTuple
        return type(value)(*(_to_urls(v, bases, root) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(_to_urls(v, bases, root) for v in value)
    if isinstance(value, dict):
        return {k: _to_urls(v, bases, root) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _to_urls(getattr(value, f.name), bases, root)
                  for f in dataclasses.fields(value) if f.init}  # fmt: skip
        return dataclasses.replace(value, **fields)
    return value
