"""Atomic output files, completion markers and resume, confined to the output root.

Layout of an output root::

    <output>/<relpath>...                 the writer's files (final names only)
    <output>/.crawlmill/tmp/<key>/...     files of a running task (removed on failure/restart)
    <output>/.crawlmill/done/<key>.json   completion marker of one input
    <output>/.crawlmill/pending/<key>.json  files a commit is renaming into place (see below)
    <output>/.crawlmill/finalize.json     marker of the files ``Writer.finalize`` wrote
    <output>/.crawlmill/pipeline.json     fingerprint and settings of the root's pipeline
    <output>/.crawlmill/replaceable.json  during a run: files its tasks may replace
    <output>/.crawlmill/quarantine/...    damaged bytes (see :mod:`crawlmill.core.run.quarantine`)
    <output>/.crawlmill/report.json       the last run's :class:`~crawlmill.core.stats.RunReport`
    <output>/.crawlmill/lock              held (flock) while a run uses the root

A task writes every file under ``tmp/<key>/`` while it runs; its size and a checksum are
computed on the way: the MD5 (``"md5"`` in the marker) when the run needs it (a writer or layout
that reads it in ``finalize``, or ``run.md5``: :func:`md5_needed`), else the CRC-32 (``"crc32"``,
eight hex digits, as ``zlib.crc32``), which costs almost nothing (docs/architecture.md,
"Completion markers: which checksum").

When the task succeeds it fsyncs the files, renames each to its final name, fsyncs
the directories and only then writes its marker (atomically: temp file, fsync, rename). The
marker ``key`` hashes the input's absolute path with ``PipelineSpec.fingerprint()``.

Resume: an input is complete when its marker exists, names the same fingerprint, input size,
input position and input count (writers may name outputs after the position), and every file
it lists exists with the recorded size. Anything else is redone from
scratch. A task killed between its renames and its marker therefore leaves final files
listed only by its pending marker; the rerun redoes the task and replaces them with identical
bytes (outputs are deterministic), so the end state equals an uninterrupted run. The run holds
an exclusive lock on the root, so the parent may remove every stale ``tmp/`` entry at start.

When an input is redone (changed settings or position), the parent deletes, after the run's
tasks, the files its older markers listed that no current marker claims, and the markers of
other fingerprints, so a changed pipeline never leaves a mixture of old and new outputs.

Writers name files with relative paths; :func:`safe_relpath` refuses absolute paths, ``..``,
the ``.crawlmill`` bookkeeping folder and anything whose real path leaves the root.

Ownership: crawlmill replaces only files a marker of its own lists. Before its renames a task
writes a *pending* marker ``.crawlmill/pending/<key>.json`` (``"state": "committing"``, the
paths it is about to commit plus those the key's previous marker listed), so a task killed
between its renames and its final marker leaves files that are still listed; the engine
removes the pending markers of completed tasks. :meth:`TaskOutputs.commit` replaces an
existing final file only when it may (``replaceable``, or listed in ``replaceable.json``, which
the engine writes at the start of a run: files of markers of inputs the run redoes, and of
pending markers) or with ``overwrite``; any other
existing file stops the commit with :class:`OutputConflict` before it is touched (a hard link
creates the final name, so two tasks never replace each other's file).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import zlib
from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from typing import Any

from .. import storage
from ..errors import ConfigError, CrawlmillError
from ..output_paths import BOOKKEEPING, UnsafeOutputPath, safe_relpath

try:  # ISA-L's CRC-32 (several times zlib's speed; the same values), where installed
    from isal.isal_zlib import crc32 as _crc32
except ImportError:  # pragma: no cover - depends on the installation
    _crc32 = zlib.crc32

#: ``os.writev`` (``None`` where there is none) and the buffers one call takes at most.
_writev = getattr(os, "writev", None)


def _iov_max() -> int:
    try:
        return max(1, min(1024, os.sysconf("SC_IOV_MAX")))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return 16


_IOV_MAX = _iov_max()

__all__ = [
    "BOOKKEEPING",
    "OutputConflict",
    "OutputRoot",
    "TaskOutputs",
    "TrackedFile",
    "UnsafeOutputPath",
    "marker_key",
    "replaceable_path",
    "safe_relpath",
    "sync_files",
    "json_chunks",
    "listed_paths",
    "md5_needed",
    "write_json_atomic",
    "write_text_atomic",
]


class OutputConflict(CrawlmillError):
    """An output would replace a file that crawlmill did not write, or one another input
    owns."""


def refusal(
    path: str, what: str = "crawlmill did not write it (no completion marker lists it)"
) -> str:
    """The message refusing to replace the file ``path``, with the ways out."""
    return (
        f"{path} exists and {what}; refusing to replace it: move it away, choose another "
        "output folder (convert: -o DIR; run: `output:` in the pipeline file), or pass "
        "--overwrite (run.overwrite: true) to replace it"
    )


PENDING = "committing"


def inside_root(root: str, relpath: str, real_root: str | None = None) -> str:
    """The absolute final path of ``relpath``; refuses symlinks that lead out of ``root``
    (``real_root``: its real path when the caller knows it, so a loop over many files
    resolves the root once)."""
    real_root = real_root or os.path.realpath(root)
    final = os.path.join(real_root, *relpath.split("/"))
    real = os.path.realpath(final)
    if real != final and os.path.commonpath([real_root, real]) != real_root:
        raise UnsafeOutputPath(
            f"output path {relpath!r} resolves to {real}, outside the output root"
        )
    return final


def marker_key(input_path: str, fingerprint: str) -> str:
    """The completion-marker key of one input under one pipeline fingerprint."""
    blob = f"{storage.absolute(input_path)}\0{fingerprint}".encode("utf-8", "surrogateescape")
    return hashlib.sha256(blob).hexdigest()[:32]


def _fsync_dir(path: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_json_atomic(path: str, data: Any, *, durable: bool = True) -> None:
    """Write ``data`` as JSON to ``path`` atomically (temp file, fsync, rename, fsync dir;
    ``durable=False``: no fsync, see :func:`write_text_atomic`)."""
    write_text_atomic(
        path, [json.dumps(data, indent=1, sort_keys=True, default=str), "\n"], durable=durable
    )


def json_chunks(data: dict[str, Any]) -> Iterator[str]:
    """The JSON text of the object ``data`` in chunks: one line per key (sorted) and, for a
    list value (or an iterator, written as a list), one line per item (for a mapping that is
    no ``dict``, made as it is read: one line per member, in its order), each encoded on its
    own by the C encoder (``json.dump`` with an indent encodes in Python). For the large files of a run (a stage listing, the
    report) with 100,000 entries: the same JSON to a reader, linear time, no whole string."""
    yield "{"
    for n, key in enumerate(sorted(data)):
        value = data[key]
        yield ("," if n else "") + f"\n {json.dumps(str(key))}: "
        if isinstance(value, (list, Iterator)):  # an iterator: items made as written
            m = -1
            for m, item in enumerate(value):
                yield ("[" if m == 0 else ",") + "\n  "
                yield json.dumps(item, sort_keys=True, default=str)
            yield "[]" if m < 0 else "\n ]"
        elif isinstance(value, Mapping) and not isinstance(value, dict):  # made as written
            m = -1
            for m, (name, item) in enumerate(value.items()):
                yield ("{" if m == 0 else ",") + f"\n  {json.dumps(str(name))}: "
                yield json.dumps(item, sort_keys=True, default=str)
            yield "{}" if m < 0 else "\n }"
        else:
            yield json.dumps(value, sort_keys=True, default=str)
    yield "\n}\n"


def write_text_atomic(path: str, chunks: Iterable[str], *, durable: bool = True) -> None:
    """Write the text ``chunks`` to ``path`` atomically (temp file, fsync, rename, fsync
    dir); the chunks are written as they come, so a large file (a stage listing of 100,000
    tasks) is never one string in memory.

    ``durable=False`` leaves out both fsyncs: the rename still shows readers the old or the
    new text whole, but a power loss may leave the old file, none or an empty one. Only for
    files nothing trusts after a crash (docs/architecture.md, "Durability"): what a rerun
    writes again, or what only describes a run in progress."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        for chunk in chunks:
            fh.write(chunk)
        if durable:
            fh.flush()
            os.fsync(fh.fileno())
    os.replace(tmp, path)
    if durable:
        _fsync_dir(os.path.dirname(path))


_JSON_TEMP = re.compile(r"\.tmp-\d+$")


def _remove_stale_json_temps(folder: str) -> None:
    """Delete the ``<name>.tmp-<pid>`` files :func:`write_json_atomic` left in ``folder`` when
    its process was killed between writing and renaming (only called under the run lock)."""
    for name in os.listdir(folder):
        if _JSON_TEMP.search(name):
            with contextlib.suppress(OSError):
                os.remove(os.path.join(folder, name))


class TrackedFile(io.BufferedIOBase):
    """A binary output file written under a temporary name; tracks its size and its MD5
    (``md5=True``) or, cheaper, its CRC-32 (``md5=False``).

    ``name`` is the final relative path (so ``gzip.GzipFile`` stores a stable name).
    """

    def __init__(self, relpath: str, tmp_path: str, *, md5: bool = True) -> None:
        super().__init__()
        self.relpath = relpath
        self.name = relpath
        self.tmp_path = tmp_path
        os.makedirs(os.path.dirname(tmp_path), exist_ok=True)
        self._fh = open(tmp_path, "wb")  # noqa: SIM115 - closed in close()
        self._md5 = hashlib.md5() if md5 else None
        self._crc = 0
        self.size = 0

    def writable(self) -> bool:
        """Always writable until closed."""
        return not self.closed

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        """Write ``data``; returns its length."""
        if self.closed:
            raise ValueError(f"write to closed output {self.relpath}")
        view = memoryview(data).cast("B")
        self._fh.write(view)
        if self._md5 is not None:
            self._md5.update(view)
        else:
            self._crc = _crc32(view, self._crc)
        self.size += len(view)
        return len(view)

    def write_parts(self, parts: Sequence[bytes | bytearray | memoryview]) -> int:
        """Write the buffers ``parts`` one after the other, as :meth:`write` of their
        concatenation would, without making it: a ``writev`` per :data:`_IOV_MAX` of them
        (the compressed members of a WARC writer's batch). Returns the bytes written."""
        if self.closed:
            raise ValueError(f"write to closed output {self.relpath}")
        if _writev is None:  # pragma: no cover - not POSIX
            return self.write(b"".join(parts))
        self._fh.flush()  # (the buffered bytes first; the parts then go to the descriptor)
        fd = self._fh.fileno()
        total = 0
        for i in range(0, len(parts), _IOV_MAX):
            chunk = parts[i : i + _IOV_MAX]
            want = sum(map(len, chunk))
            done = _writev(fd, chunk)
            if done < want:  # a short write: the rest as plain writes, from where it stopped
                rest = memoryview(b"".join(chunk))[done:]
                while rest:
                    rest = rest[os.write(fd, rest) :]
            for part in chunk:
                if self._md5 is not None:
                    self._md5.update(part)
                else:
                    self._crc = _crc32(part, self._crc)
            total += want
        self.size += total
        return total

    def tell(self) -> int:
        """Bytes written so far."""
        return self.size

    def flush(self) -> None:
        """Flush Python buffers."""
        if not self.closed and not self._fh.closed:
            self._fh.flush()

    def close(self) -> None:
        """Flush and close (idempotent). Not synced yet: :meth:`TaskOutputs.commit` makes
        every file of the task durable before it renames any (:func:`sync_files`)."""
        if self.closed:
            return
        try:
            self._fh.flush()
        finally:
            super().close()
            self._fh.close()

    def abandon(self) -> None:
        """Close without fsync (the file is about to be deleted)."""
        if not self.closed:
            super().close()
            self._fh.close()

    @property
    def md5(self) -> str | None:
        """Hex MD5 of the bytes written; ``None`` when the file tracks its CRC-32 instead."""
        return None if self._md5 is None else self._md5.hexdigest()

    @property
    def crc32(self) -> str | None:
        """CRC-32 of the bytes written (``zlib.crc32``) as eight lowercase hex digits;
        ``None`` when the file tracks its MD5 instead."""
        return None if self._md5 is not None else f"{self._crc:08x}"

    def checksum(self) -> dict[str, str]:
        """``{"md5": hex}`` or ``{"crc32": hex}``: the marker's checksum of the file, named."""
        if self._md5 is not None:
            return {"md5": self._md5.hexdigest()}
        return {"crc32": f"{self._crc:08x}"}


def md5_needed(writer: Any, options: Any, run_md5: bool = False) -> bool:
    """Whether a run's outputs get an MD5 (else a CRC-32): ``run.md5`` asks for it, or the
    writer class ``writer`` reads it (``Writer.needs_md5(options)``: by default a writer with
    a ``finalize`` of its own, which receives ``OutputFile.md5``; a file writer asks its
    layout). A class without ``needs_md5`` (not a crawlmill writer) gets it."""
    if run_md5:
        return True
    needs = getattr(writer, "needs_md5", None)
    return True if needs is None else bool(needs(options))


#: a task with more files (or output folders) than this makes them durable with one
#: ``syncfs`` of the output root's filesystem instead of an ``fsync`` per file (an NTCIR tree
#: writes six small files per page: one fsync each costs more than writing them).
SYNC_BATCH = 32


def _syncfs(path: str) -> bool:
    """``syncfs(2)`` on the filesystem holding ``path``; ``False`` where there is none (not
    Linux) or it fails, so the caller syncs file by file."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        syncfs = libc.syncfs
    except (OSError, AttributeError):
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        return syncfs(fd) == 0
    finally:
        os.close(fd)


def sync_files(folder: str, paths: list[str]) -> None:
    """Make the closed files ``paths`` (below ``folder``) durable: one ``syncfs`` when there
    are more than :data:`SYNC_BATCH` and the platform has it, else an ``fsync`` each."""
    if len(paths) > SYNC_BATCH and _syncfs(folder):
        return
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class TaskOutputs:
    """The files one task creates, kept under ``.crawlmill/tmp/<key>/`` until :meth:`commit`."""

    def __init__(
        self,
        root: str,
        key: str,
        *,
        replaceable: list[str] | set[str] | tuple[str, ...] = (),
        overwrite: bool = False,
        marker_path: str | None = None,
        md5: bool = True,
    ) -> None:
        self.root = os.path.abspath(root)
        self.key = key
        #: where the task's marker (first pending, then complete) is written.
        self.marker_path = marker_path or os.path.join(
            self.root, BOOKKEEPING, "done", f"{key}.json"
        )
        #: ``tmp/<key>/``: the temp folders of every attempt of this task.
        self.key_dir = os.path.join(self.root, BOOKKEEPING, "tmp", key)
        #: ``tmp/<key>/<attempt>/``: this attempt's own, so an attempt a cluster gave up on
        #: (a lost Spark executor whose process still runs) never renames another attempt's
        #: half-written files into place: :meth:`start` of a later attempt removes its folder,
        #: and its commit then fails.
        self.tmp_dir = os.path.join(self.key_dir, f"a{os.getpid()}-{os.urandom(4).hex()}")
        self.files: dict[str, TrackedFile] = {}
        self.internal: set[str] = set()
        #: existing final files this task may replace (older outputs of crawlmill's own).
        self.replaceable = set(replaceable)
        self.overwrite = overwrite
        #: the files' checksum: MD5 (``True``) or CRC-32 (:func:`md5_needed`; set before the
        #: first :meth:`create`).
        self.md5 = md5

    def start(self) -> None:
        """Remove what earlier attempts of this task left (killed, or still running on a lost
        executor) and make this attempt's temp folder."""
        shutil.rmtree(self.key_dir, ignore_errors=True)
        os.makedirs(self.tmp_dir, exist_ok=True)

    def _drop_tmp(self) -> None:
        shutil.rmtree(self.tmp_dir, ignore_errors=True)
        with contextlib.suppress(OSError):  # not empty: a later attempt began
            os.rmdir(self.key_dir)

    def create(self, relpath: str, *, internal: bool = False) -> TrackedFile:
        """Open a new output ``relpath`` (see :func:`safe_relpath`); nothing outside the root
        is ever touched, and the same path cannot be created twice in a task."""
        norm = safe_relpath(relpath, internal=internal)
        inside_root(self.root, norm)
        if norm in self.files:
            raise UnsafeOutputPath(f"output path {norm!r} was already created by this task")
        handle = TrackedFile(norm, os.path.join(self.tmp_dir, *norm.split("/")), md5=self.md5)
        self.files[norm] = handle
        if internal:
            self.internal.add(norm)
        return handle

    def commit(self) -> list[dict[str, Any]]:
        """Close (fsync) every file, rename it to its final name, fsync the folders; returns
        ``[{"path", "size", "md5" or "crc32", "internal"}]`` in creation order (the checksum
        :attr:`md5` chose, under its name). The caller writes the marker afterwards."""
        for handle in self.files.values():
            handle.close()
        finals = {
            norm: inside_root(self.root, norm) for norm in self.files if norm not in self.internal
        }
        existing = {norm: final for norm, final in finals.items() if os.path.lexists(final)}
        if existing:
            shared, protected = _read_shared(self.root)
            # also files of this key's own markers (an attempt whose result a worker crash lost)
            allowed = self.replaceable | shared | set(self._own_entries())
            for norm, final in existing.items():
                if norm in protected:
                    raise OutputConflict(
                        f"{final} is an input of this run; refusing to replace it: choose an "
                        "output folder outside the inputs"
                    )
                if not self.overwrite and norm not in allowed:
                    raise OutputConflict(refusal(final))
        # names that are new now are created exclusively: another task of the run that
        # takes one meanwhile makes this commit fail instead of being replaced
        guarded = {norm: final for norm, final in finals.items() if norm not in existing}
        sync_files(self.tmp_dir, [h.tmp_path for h in self.files.values()])
        self._write_pending()
        listed = []
        dirs = set()
        for norm, handle in self.files.items():
            final = inside_root(self.root, norm)
            os.makedirs(os.path.dirname(final), exist_ok=True)
            if norm in guarded:
                _place_new(handle.tmp_path, final)
            else:
                os.replace(handle.tmp_path, final)
            dirs.add(os.path.dirname(final))
            listed.append(
                {
                    "path": norm,
                    "size": handle.size,
                    **handle.checksum(),
                    "internal": norm in self.internal,
                }
            )
        if len(dirs) > SYNC_BATCH and _syncfs(self.root):
            pass  # the renames of every folder made durable by one filesystem sync
        else:
            for d in sorted(dirs):
                _fsync_dir(d)
        self._drop_tmp()
        return listed

    def _own_entries(self) -> dict[str, str]:
        """Path -> ``outputs``/``quarantine`` of what this key's marker and pending marker
        list."""
        entries: dict[str, str] = {}
        for path in (self.marker_path, pending_path(self.root, self.key)):
            try:
                with open(path, encoding="utf-8") as fh:
                    old = json.load(fh)
            except (OSError, ValueError):
                continue
            for field in ("outputs", "quarantine"):
                for out in old.get(field, []) if isinstance(old, dict) else []:
                    if isinstance(out, dict) and isinstance(out.get("path"), str):
                        entries[out["path"]] = field
        return entries

    def _write_pending(self) -> None:
        """List the files about to be committed (and those the key's markers listed) in a
        pending marker, so that files renamed before a kill stay crawlmill's own."""
        entries: dict[str, dict[str, Any]] = {
            path: {"path": path, "field": field} for path, field in self._own_entries().items()
        }
        for norm in self.files:
            entries[norm] = {
                "path": norm,
                "field": "quarantine" if norm in self.internal else "outputs",
            }
        pending: dict[str, Any] = {
            "key": self.key,
            "state": PENDING,
            "outputs": [],
            "quarantine": [],
        }
        for entry in entries.values():
            pending[entry["field"]].append({"path": entry["path"]})
        # durable before the renames it covers; one listing no path claims nothing
        write_json_atomic(pending_path(self.root, self.key), pending, durable=bool(entries))

    def remove_final(self, relpaths: list[str]) -> None:
        """Delete the final files ``relpaths`` (an older run's files this task no longer
        writes, such as a quarantine a redo found no damage for); missing ones are skipped."""
        for rel in relpaths:
            with contextlib.suppress(OSError):
                os.remove(inside_root(self.root, rel))

    def discard(self) -> None:
        """Drop every temp file of the task (on failure or cancellation)."""
        for handle in self.files.values():
            with contextlib.suppress(Exception):
                handle.abandon()
        self._drop_tmp()


def pending_path(root: str, key: str) -> str:
    """Where the pending marker of ``key`` lives (see the module docstring)."""
    return os.path.join(root, BOOKKEEPING, "pending", f"{key}.json")


def replaceable_path(root: str) -> str:
    """``.crawlmill/replaceable.json``: ``{"replaceable": [...], "protected": [...]}``, the
    files of the root a run's tasks may replace (crawlmill's own outputs, except those of
    inputs the run resumes) and the inputs of the run inside the root, which nothing
    replaces; the engine writes it under the run lock before the tasks start."""
    return os.path.join(root, BOOKKEEPING, "replaceable.json")


def _read_shared(root: str) -> tuple[set[str], set[str]]:
    """``(replaceable, protected)`` from ``replaceable.json``: files any task may replace, and
    inputs of the run inside the root, which no task replaces."""
    try:
        with open(replaceable_path(root), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return set(), set()
    if not isinstance(data, dict):
        return set(), set()
    return (
        {p for p in data.get("replaceable", []) if isinstance(p, str)},
        {p for p in data.get("protected", []) if isinstance(p, str)},
    )


def _place_new(tmp_path: str, final: str) -> None:
    """Give ``tmp_path`` the name ``final`` only if no file has it (a hard link fails on an
    existing name, where a rename would replace it); :class:`OutputConflict` otherwise."""
    try:
        os.link(tmp_path, final)
    except FileExistsError:
        raise OutputConflict(refusal(final, "was written meanwhile by another task")) from None
    except OSError:  # a file system without hard links: check, then rename
        if os.path.lexists(final):
            raise OutputConflict(refusal(final)) from None
        os.replace(tmp_path, final)
        return
    os.remove(tmp_path)


class OutputRoot:
    """The output folder of a run: bookkeeping folders, the run lock and completion markers."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        self.meta = os.path.join(self.path, BOOKKEEPING)
        self._lock_fh: Any = None
        self._real: str | None = None
        self._folders: dict[str, str] = {}  # folder -> its real path (see _inside)

    @property
    def real_path(self) -> str:
        """The root's real path (resolved once: every marker's files are checked below it)."""
        if self._real is None:
            self._real = os.path.realpath(self.path)
        return self._real

    # -- lifecycle -------------------------------------------------------------------------

    def open(self) -> None:
        """Create the folders, take the run lock, and remove stale temp files of killed runs."""
        if os.path.exists(self.path) and not os.path.isdir(self.path):
            raise ConfigError([("output", f"{self.path} exists and is not a folder")])
        try:
            for sub in ("done", "tmp"):
                os.makedirs(os.path.join(self.meta, sub), exist_ok=True)
            self._lock_fh = open(os.path.join(self.meta, "lock"), "a+")  # noqa: SIM115 - held for the run
        except OSError as exc:
            raise ConfigError([("output", _unwritable(self.path, exc))]) from None
        try:
            import fcntl

            fcntl.flock(self._lock_fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # pragma: no cover - not POSIX: no lock
            pass
        except OSError as exc:
            self._lock_fh.close()
            self._lock_fh = None
            raise ConfigError(
                [("output", f"{self.path} is in use by another crawlmill run")]
            ) from exc
        tmp = os.path.join(self.meta, "tmp")
        for entry in os.listdir(tmp):
            shutil.rmtree(os.path.join(tmp, entry), ignore_errors=True)
        for folder in (
            self.meta,
            os.path.join(self.meta, "done"),
            os.path.join(self.meta, "pending"),
        ):
            if os.path.isdir(folder):
                _remove_stale_json_temps(folder)

    def close(self) -> None:
        """Remove the empty temp folder and release the lock."""
        with contextlib.suppress(OSError):
            tmp = os.path.join(self.meta, "tmp")
            for entry in os.listdir(tmp):
                shutil.rmtree(os.path.join(tmp, entry), ignore_errors=True)
            os.rmdir(tmp)
        if self._lock_fh is not None:
            self._lock_fh.close()
            self._lock_fh = None

    # -- markers ---------------------------------------------------------------------------

    def marker_path(self, key: str) -> str:
        """Where the completion marker of ``key`` lives."""
        return os.path.join(self.meta, "done", f"{key}.json")

    def read_marker(self, key: str) -> dict[str, Any] | None:
        """The marker of ``key`` or ``None`` (absent or unreadable: redo the input)."""
        try:
            with open(self.marker_path(key), encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def complete_marker(
        self,
        key: str,
        fingerprint: str,
        input_size: int | None,
        index: int | None = None,
        count: int | None = None,
        data: dict[str, Any] | None = None,
        md5: bool = False,
    ) -> dict[str, Any] | None:
        """The marker of ``key`` when the input is complete (same fingerprint, input size,
        position ``index`` among ``count`` inputs, every listed file present with its size,
        and with ``md5`` (the run needs the outputs' MD5: :func:`md5_needed`) an MD5 listed
        for each output, not a CRC-32 only), else ``None``; ``data``: the marker as the
        caller just read it (not read again)."""
        marker = data if data is not None else self.read_marker(key)
        if not marker or marker.get("fingerprint") != fingerprint:
            return None
        if input_size is not None and marker.get("input_size") not in (None, input_size):
            return None
        if index is not None and marker.get("index") != index:
            return None
        if count is not None and marker.get("input_count") != count:
            return None
        if md5 and not all(
            isinstance(out, dict) and isinstance(out.get("md5"), str)
            for out in marker.get("outputs", [])
        ):
            return None  # written without MD5s (a run without --md5): redone with them
        for out in marker.get("outputs", []) + marker.get("quarantine", []):
            try:
                final = self._inside(safe_relpath(out["path"], internal=True))
                if os.path.getsize(final) != out["size"]:
                    return None
            except (OSError, KeyError, TypeError, UnsafeOutputPath):
                return None
        return marker

    def _inside(self, relpath: str) -> str:
        """:func:`inside_root` of ``relpath``, the real path of its folder resolved once per
        folder (a resume checks 100,000 files in a few folders)."""
        real_root = self.real_path
        final = os.path.join(real_root, *relpath.split("/"))
        folder, name = os.path.split(final)
        real_folder = self._folders.get(folder)
        if real_folder is None:
            real_folder = self._folders[folder] = os.path.realpath(folder)
        real = os.path.join(real_folder, name)
        if os.path.islink(real):
            real = os.path.realpath(real)
        if real != final and os.path.commonpath([real_root, real]) != real_root:
            raise UnsafeOutputPath(
                f"output path {relpath!r} resolves to {real}, outside the output root"
            )
        return final

    def marker_keys(self) -> list[str]:
        """The keys of the completion markers in ``done/``, sorted (their files not read)."""
        done = os.path.join(self.meta, "done")
        names = os.listdir(done) if os.path.isdir(done) else []
        return sorted(n[: -len(".json")] for n in names if n.endswith(".json"))

    def markers(self, skip: Container[str] = ()) -> dict[str, dict[str, Any]]:
        """Every readable marker of the root by key, but those of the keys in ``skip`` (not
        read at all: a run passes the keys it holds the markers of already)."""
        return dict(self.iter_markers(skip))

    def iter_markers(self, skip: Container[str] = ()) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(key, marker)`` of every readable marker of the root but those in ``skip``, by
        key, read one at a time (100,000 markers are never all in memory at once)."""
        for key in self.marker_keys():
            if key not in skip and (marker := self.read_marker(key)) is not None:
                yield key, marker

    def remove_superseded(
        self, key: str, marker: dict[str, Any], claimed: set[str], *, drop_marker: bool
    ) -> list[str]:
        """Delete the files an older ``marker`` (of an input that was redone) lists and no
        current marker claims, and (``drop_marker``) the marker file ``key``; returns the
        deleted paths."""
        removed = []
        for out in marker.get("outputs", []) + marker.get("quarantine", []):
            try:
                rel = safe_relpath(out["path"], internal=True)
                if rel not in claimed:
                    os.remove(inside_root(self.path, rel))
                    removed.append(rel)
            except (OSError, KeyError, TypeError, UnsafeOutputPath):
                continue
        if drop_marker:
            with contextlib.suppress(OSError):
                os.remove(self.marker_path(key))
        return removed

    @property
    def finalize_marker_path(self) -> str:
        """``.crawlmill/finalize.json``: the marker of the files ``Writer.finalize`` wrote."""
        return os.path.join(self.meta, "finalize.json")

    def pending_markers(self) -> dict[str, dict[str, Any]]:
        """The pending markers of commits that did not finish (or not yet cleaned), by key."""
        found = {}
        folder = os.path.join(self.meta, "pending")
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if name.endswith(".json"):
                with contextlib.suppress(OSError, ValueError):
                    with open(os.path.join(folder, name), encoding="utf-8") as fh:
                        data = json.load(fh)
                    if isinstance(data, dict):
                        found["pending:" + name[: -len(".json")]] = data
        return found

    def drop_pending(self, key: str) -> None:
        """Remove the pending marker of ``key`` (its task's complete marker is written)."""
        with contextlib.suppress(OSError):
            os.remove(pending_path(self.path, key))

    def owned_markers(self) -> dict[str, dict[str, Any]]:
        """:meth:`markers`, the pending markers (keys ``pending:<key>``) and the finalize
        marker (key ``finalize``): everything that lists files crawlmill wrote in the root."""
        return dict(self.iter_owned_markers())

    def iter_owned_markers(self, skip: Container[str] = ()) -> Iterator[tuple[str, dict[str, Any]]]:
        """:meth:`owned_markers` one at a time, the completion markers of the keys in
        ``skip`` not read."""
        yield from self.iter_markers(skip)
        yield from self.pending_markers().items()
        finalize = self.finalize_marker()
        if finalize is not None:
            yield "finalize", finalize

    def finalize_marker(self) -> dict[str, Any] | None:
        """The finalize marker (``finalize.json``), or ``None``."""
        try:
            with open(self.finalize_marker_path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def listed_files(self) -> dict[str, list[tuple[str, dict[str, Any]]]]:
        """Every file (relpath) a marker of the root lists, with the ``(key, marker)`` pairs
        that list it: the files crawlmill wrote here."""
        found: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        for key, marker in self.iter_owned_markers():
            for path in listed_paths(marker):
                found.setdefault(path, []).append((key, marker))
        return found

    @property
    def pipeline_path(self) -> str:
        """``.crawlmill/pipeline.json``: the fingerprint and description of the pipeline the
        root belongs to."""
        return os.path.join(self.meta, "pipeline.json")

    def read_pipeline(self) -> dict[str, Any] | None:
        """The root's ``pipeline.json``, or ``None``."""
        try:
            with open(self.pipeline_path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def write_marker(self, key: str, data: dict[str, Any]) -> None:
        """Write the completion marker of ``key`` atomically; in the stage of a store root,
        publish the task (:func:`crawlmill.core.storage_root.publish_marker`)."""
        write_json_atomic(self.marker_path(key), data)
        from ..storage_root import publish_marker

        publish_marker(self.path, key, data, self.marker_path(key))


def listed_paths(marker: dict[str, Any]) -> list[str]:
    """The relpaths a marker's JSON lists (``outputs`` and ``quarantine``)."""
    return [
        out["path"]
        for field in ("outputs", "quarantine")
        for out in marker.get(field) or []
        if isinstance(out, dict) and isinstance(out.get("path"), str)
    ]


def _unwritable(path: str, exc: OSError) -> str:
    """The refusal of an output folder crawlmill cannot create or write in, and what to do."""
    if isinstance(exc, PermissionError):
        why = "you have no permission to write there"
    elif isinstance(exc, (NotADirectoryError, FileExistsError)):
        why = "a part of its path is a file, not a folder"
    else:
        why = exc.strerror or str(exc)
    return (
        f"cannot create or write the output folder {path}: {why}; choose a folder you can "
        "write (convert: -o DIR; run: `output:` in the pipeline file) or fix this one"
    )
