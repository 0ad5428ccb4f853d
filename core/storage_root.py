"""An output root on an object store (or HDFS): a local stage, pulled before the run and
published, task by task, while it runs.

Object stores have no rename and no lock, and every part of the engine (markers, ownership,
resume, collect tables, shuffle runs) works on a local folder. So a run whose output is a URL
(``-o s3://bucket/out``) runs in a local **stage** folder in the work folder
(``--work-dir``; default: the system's temp folder) and the store is kept in step with it:

1. **pull**: the store's root is listed once. Its markers (``.crawlmill/done/``,
   ``pending/``, ``pipeline.json``, ``finalize.json``) are copied into the stage; every other
   object becomes a *placeholder* there: a sparse local file of the object's size (no bytes
   are downloaded). So resume (a marker whose files exist with their sizes), ownership (a
   file no marker lists is not replaced without ``--overwrite``) and orphans see the store's
   state, unchanged code. An object key that is no safe relative path is refused.
2. **publish per task** (write-then-publish): when a task's marker is written in the stage
   (:func:`publish_marker`, called by ``OutputRoot.write_marker``), its pending marker, the
   files it lists, then the marker are uploaded; the uploaded files then become placeholders
   in the stage (*hollowed*: their bytes freed, their size kept), so the work folder holds
   the running tasks' outputs, not the whole run's (not when the run reads outputs back:
   ``hydrate``, below; nor on a file system without sparse files). An S3/GCS/Azure upload appears whole or not at all (a
   multipart upload is completed only when the file is whole); on other stores (HDFS) a file
   is written under a temporary name and renamed. A run killed mid-way leaves on the store
   only whole files, and markers only for tasks whose files are all there: a rerun resumes.
3. **publish at the end** (:meth:`RemoteRoot.publish`): every stage file that is new or
   changed (not the placeholder or pulled marker it was) is uploaded, never a placeholder
   (a file of holes only: :func:`is_placeholder`), pending markers first,
   then outputs, bookkeeping, markers and ``report.json`` last; a placeholder or marker the
   run deleted (superseded outputs, ``--remove-orphans``) is deleted on the store.

Placeholders are zeros: a writer's ``finalize`` that reads the outputs of tasks completed by an
earlier run (the ClueWeb layouts' md5 fallback and tar packing) would read zeros, so the stage
downloads the outputs markers list when the writer (or its layout) has a ``finalize``
(``hydrate``). Two runs of one store root from one work folder are refused (the stage's
lock); from two machines or work folders they are not guarded (the store has no lock).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

from . import storage
from .errors import ConfigError
from .output_paths import BOOKKEEPING, UnsafeOutputPath, safe_relpath
from .spec import PipelineSpec

__all__ = [
    "ACTIVE",
    "STAGES_ENV",
    "RemoteRoot",
    "default_work_dir",
    "publish_marker",
    "published_files",
    "remote_url",
    "staged",
]

#: the stage's link to its store root.
STATE = f"{BOOKKEEPING}/remote.json"
#: files a task's marker published: ``{relpath: [ino, size, mtime_ns]}`` per key.
PUBLISHED = f"{BOOKKEEPING}/published"
#: bookkeeping copied (not placeholdered) into the stage, by relpath prefix.
_PULLED = (f"{BOOKKEEPING}/done/", f"{BOOKKEEPING}/pending/")
_PULLED_FILES = (f"{BOOKKEEPING}/pipeline.json", f"{BOOKKEEPING}/finalize.json")
#: bookkeeping a task's pull takes only when it needs it (``RemoteRoot.pull(wanted=...)``).
_FILTERED = (*_PULLED, f"{BOOKKEEPING}/passes/")
#: stage files never published.
_LOCAL = (f"{BOOKKEEPING}/tmp/", f"{BOOKKEEPING}/lock", STATE, PUBLISHED + "/")
#: stores whose upload is atomic (an object appears whole or not at all).
_OBJECT_STORES = frozenset({"s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "adl"})
#: the stages of this process's running runs (stage folder -> its root), for executors whose
#: tasks run elsewhere (the spark executor: :mod:`crawlmill.core.run.spark_stage`).
ACTIVE: dict[str, RemoteRoot] = {}
#: the variable naming those stages to the tasks (JSON ``{stage: url}``); a ``CRAWLMILL_*``
#: variable, so the spark executor ships it to its workers.
STAGES_ENV = "CRAWLMILL_REMOTE_STAGES"


def default_work_dir() -> str:
    """``$CRAWLMILL_WORK_DIR``, else ``<temp>/crawlmill-work``."""
    return os.environ.get("CRAWLMILL_WORK_DIR") or os.path.join(
        tempfile.gettempdir(), "crawlmill-work"
    )


def _stat(path: str) -> list[int]:
    st = os.stat(path)
    return [st.st_ino, st.st_size, st.st_mtime_ns]


class RemoteRoot:
    """The store root ``url`` and its local stage below ``work_dir`` (module docstring)."""

    def __init__(self, url: str, work_dir: str) -> None:
        self.url = url.rstrip("/")
        self.fs, self.base = storage.filesystem(self.url)
        self.base = self.base.rstrip("/")
        digest = hashlib.sha256(self.url.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        self.stage = os.path.join(os.path.abspath(work_dir), f"stage-{digest}")
        #: stage relpath -> ``[ino, size, mtime_ns]`` of what the pull put there.
        self.pulled: dict[str, list[int]] = {}
        #: object keys of the root that are no safe relative path (never touched).
        self.refused: list[str] = []
        #: whether published outputs become placeholders in the stage (:func:`publish_marker`)
        self.hollow = False

    def _key(self, rel: str) -> str:
        return f"{self.base}/{rel}"

    def _get(self, rel: str, local: str) -> None:
        """Download the root's object ``rel`` to ``local`` (an error names its URL)."""
        with storage.translated(f"{self.url}/{rel}"):
            self.fs.get_file(self._key(rel), local)

    def lock(self) -> None:
        """Hold ``<stage>.lock`` for the run: another run of this store root from the same
        work folder is refused instead of wiping this stage."""
        os.makedirs(os.path.dirname(self.stage), exist_ok=True)
        self._lock_fh = open(f"{self.stage}.lock", "a+")  # noqa: SIM115 - closed in unlock()
        try:
            import fcntl

            fcntl.flock(self._lock_fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # pragma: no cover - not POSIX: no lock
            pass
        except OSError:
            self.unlock()
            raise ConfigError(
                [("output", f"{storage.redact(self.url)} is in use by another crawlmill run")]
            ) from None

    def unlock(self) -> None:
        """Release the stage lock."""
        fh = getattr(self, "_lock_fh", None)
        if fh is not None:
            fh.close()
            self._lock_fh = None

    def pull(
        self,
        hydrate: bool = False,
        passes: bool = False,
        wanted: Callable[[str], bool] | None = None,
    ) -> None:
        """Fill a fresh stage from the store (markers copied, other objects placeholders;
        ``hydrate``: the files markers list downloaded too; ``passes``: the passes' folder
        (``.crawlmill/passes/``: collect tables, their markers, reduce parts) downloaded, as a
        task on another machine needs it). ``wanted`` (a task's pull): only the markers
        (``done/``, ``pending/``) and passes' files it answers true for are pulled, the
        others neither copied nor placeholdered (a task of a run of 100,000 inputs needs its
        own marker, not 100,000)."""
        shutil.rmtree(self.stage, ignore_errors=True)
        os.makedirs(os.path.join(self.stage, BOOKKEEPING), exist_ok=True)
        self.hollow = not hydrate and _sparse_files(self.stage)
        self.fs.invalidate_cache()  # the store as it is now, not as listed earlier
        try:
            with storage.translated(self.url):  # a refusal names the root and its status
                found = self.fs.find(self.base, detail=True)
        except FileNotFoundError:
            found = {}
        objects: dict[str, int] = {}
        for name, info in found.items():
            if info.get("type", "file") != "file":
                continue
            rel = name[len(self.base) :].lstrip("/") if name.startswith(self.base) else ""
            try:
                rel = safe_relpath(rel, internal=True)
            except UnsafeOutputPath:
                self.refused.append(name)
                continue
            if wanted is not None and rel.startswith(_FILTERED) and not wanted(rel):
                continue
            objects[rel] = int(info.get("size") or 0)
        listed = self._pull_markers(objects)
        for rel, size in objects.items():
            if (
                rel.startswith(_PULLED)
                or rel in _PULLED_FILES
                or rel.startswith(BOOKKEEPING + "/tmp/")
            ):
                continue
            in_passes = rel.startswith(BOOKKEEPING + "/passes/")
            if rel == f"{BOOKKEEPING}/report.json" or (in_passes and not passes):
                continue  # rewritten by the run / redone (not resumed across stages)
            local = os.path.join(self.stage, *rel.split("/"))
            os.makedirs(os.path.dirname(local), exist_ok=True)
            if (hydrate and rel in listed) or in_passes:
                self._get(rel, local)
            else:
                with open(local, "wb") as fh:
                    fh.truncate(size)  # sparse: no bytes on disk, none downloaded
            self.pulled[rel] = _stat(local)
        self._write_state()

    def _pull_markers(self, objects: dict[str, int]) -> set[str]:
        """Copy the store's markers into the stage; the files they list."""
        listed: set[str] = set()
        for rel in sorted(objects):
            if not (rel.startswith(_PULLED) or rel in _PULLED_FILES):
                continue
            local = os.path.join(self.stage, *rel.split("/"))
            os.makedirs(os.path.dirname(local), exist_ok=True)
            self._get(rel, local)
            self.pulled[rel] = _stat(local)
            with contextlib.suppress(OSError, ValueError):
                with open(local, encoding="utf-8") as fh:
                    data = json.load(fh)
                for field in ("outputs", "quarantine"):
                    for out in data.get(field, []) if isinstance(data, dict) else []:
                        if isinstance(out, dict) and isinstance(out.get("path"), str):
                            listed.add(out["path"])
        return listed

    def _write_state(self) -> None:
        state = {"url": storage.redact(self.url), "pulled": self.pulled, "hollow": self.hollow}
        path = os.path.join(self.stage, *STATE.split("/"))
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(state, fh)

    def upload(self, rel: str) -> None:
        """Put the stage file ``rel`` on the store: whole or not at all."""
        local = os.path.join(self.stage, *rel.split("/"))
        key = self._key(safe_relpath(rel, internal=True))
        if storage.scheme(self.url) in _OBJECT_STORES:
            storage.put_file(self.fs, local, key)  # a multipart upload completes when whole
            return
        tmp = f"{key}.crawlmill-upload"
        storage.put_file(self.fs, local, tmp)
        with storage.translated(f"{self.url}/{rel}"):
            self.fs.mv(tmp, key)

    def publish(self) -> list[str]:
        """Upload every new or changed stage file (outputs, then bookkeeping, then markers,
        ``report.json`` last) and delete on the store what the run deleted; returns the
        uploaded relpaths."""
        published = published_files(self.stage)
        present: dict[str, list[int]] = {}
        for dirpath, dirnames, filenames in os.walk(self.stage):
            dirnames.sort()
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, self.stage).replace(os.sep, "/")
                if not rel.startswith(_LOCAL) and ".tmp-" not in name:
                    present[rel] = _stat(full)
        changed = [
            rel
            for rel, st in present.items()
            if self.pulled.get(rel) != st
            and published.get(rel) != st
            and not is_placeholder(os.path.join(self.stage, *rel.split("/")))
        ]
        changed.sort(key=_publish_order)
        for rel in changed:
            self.upload(rel)
        for rel in sorted((set(self.pulled) | set(published)) - set(present)):
            with contextlib.suppress(FileNotFoundError), storage.translated(f"{self.url}/{rel}"):
                self.fs.rm_file(self._key(rel))
        return changed


def _publish_order(rel: str) -> tuple[int, str]:
    """Pending markers first (the files they list stay crawlmill's own however far the upload
    gets), then outputs, bookkeeping, markers, and ``report.json`` last."""
    if rel.startswith(f"{BOOKKEEPING}/pending/"):
        return (0, rel)
    if not rel.startswith(BOOKKEEPING + "/"):
        return (1, rel)
    if rel == f"{BOOKKEEPING}/report.json":
        return (4, rel)
    if rel.startswith(_PULLED) or rel in _PULLED_FILES:
        return (3, rel)
    return (2, rel)


def published_files(stage: str) -> dict[str, list[int]]:
    """What per-task publishing (and a Spark task's publish, :mod:`crawlmill.core.run.spark_stage`)
    uploaded from the stage folder ``stage``: relpath -> ``[ino, size, mtime_ns]`` of the file
    uploaded."""
    found: dict[str, list[int]] = {}
    folder = os.path.join(stage, *PUBLISHED.split("/"))
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        path = os.path.join(folder, name)
        with contextlib.suppress(OSError, ValueError), open(path, encoding="utf-8") as fh:
            found.update(json.load(fh))
    return found


def remote_url(stage: str) -> str | None:
    """The store root URL whose stage ``stage`` is, or ``None`` (a local output root)."""
    try:
        with open(os.path.join(stage, *STATE.split("/")), encoding="utf-8") as fh:
            return str(json.load(fh)["url"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _root_of_stage(stage: str) -> RemoteRoot | None:
    """The :class:`RemoteRoot` a stage folder belongs to, or ``None`` (a local root)."""
    try:
        with open(os.path.join(stage, *STATE.split("/")), encoding="utf-8") as fh:
            state = json.load(fh)
    except (OSError, ValueError):
        return None
    remote = RemoteRoot.__new__(RemoteRoot)
    remote.url = state["url"]
    remote.fs, base = storage.filesystem(remote.url)
    remote.base = base.rstrip("/")
    remote.stage = stage
    remote.pulled = state.get("pulled", {})
    remote.refused = []
    remote.hollow = bool(state.get("hollow"))
    return remote


def is_placeholder(path: str) -> bool:
    """Whether the stage file ``path`` is a placeholder: bytes in its size but no block on
    disk (a hole only), as :meth:`RemoteRoot.pull` and hollowing make them. Never uploaded:
    its bytes are zeros, the object on the store the real ones."""
    st = os.stat(path)
    return st.st_size > 0 and getattr(st, "st_blocks", 1) == 0


def _sparse_files(folder: str) -> bool:
    """Whether ``folder``'s file system keeps a file extended by ``truncate`` as a hole (so
    :func:`is_placeholder` recognises every placeholder made there)."""
    probe = os.path.join(folder, ".sparse-probe")
    try:
        with open(probe, "wb") as fh:
            fh.truncate(1 << 20)
        return is_placeholder(probe)
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(probe)


def _hollowed(path: str) -> list[int]:
    """Free the bytes of the published stage file ``path``, keeping its size (a placeholder
    as the pull makes them); its new stat."""
    size = os.stat(path).st_size
    os.truncate(path, 0)
    os.truncate(path, size)
    return _stat(path)


def publish_marker(root: str, key: str, data: dict[str, Any], marker: str) -> None:
    """Write-then-publish one task: when ``root`` is a stage, upload the files its marker
    ``data`` lists, then the marker file ``marker``; a local root: nothing to do."""
    remote = _root_of_stage(root)
    if remote is None:
        return
    uploaded: dict[str, list[int]] = {}
    pending = os.path.join(root, BOOKKEEPING, "pending", f"{key}.json")
    if os.path.exists(pending):  # first: the files uploaded next stay crawlmill's own
        rel = os.path.relpath(pending, root).replace(os.sep, "/")
        remote.upload(rel)
        uploaded[rel] = _stat(pending)
    files: list[str] = []
    for field in ("outputs", "quarantine"):
        for out in data.get(field, []) or []:
            rel = safe_relpath(out["path"], internal=True)
            local = os.path.join(root, *rel.split("/"))
            st = _stat(local)
            if remote.pulled.get(rel) != st:
                remote.upload(rel)
            uploaded[rel] = st
            files.append(rel)
    rel = os.path.relpath(marker, root).replace(os.sep, "/")
    remote.upload(rel)
    uploaded[rel] = _stat(marker)
    folder = os.path.join(root, *PUBLISHED.split("/"))
    os.makedirs(folder, exist_ok=True)
    _write_published(folder, key, uploaded)
    if remote.hollow:  # on the store now: their bytes leave the work folder
        for rel in files:
            local = os.path.join(root, *rel.split("/"))
            if not is_placeholder(local):
                uploaded[rel] = _hollowed(local)
        _write_published(folder, key, uploaded)


def _write_published(folder: str, key: str, uploaded: dict[str, list[int]]) -> None:
    """Record (atomically) what task ``key``'s publish uploaded."""
    path = os.path.join(folder, f"{key}.json")
    with open(f"{path}.tmp", "w", encoding="utf-8") as fh:
        json.dump(uploaded, fh)
    os.replace(f"{path}.tmp", path)


@contextlib.contextmanager
def staged(
    spec: PipelineSpec, work_dir: str | None, *, hydrate: bool = False, publish: bool = True
) -> Iterator[PipelineSpec]:
    """``spec`` itself for a local output; for a URL output, ``spec`` with its output in a
    pulled stage, published when the block ends (even when it raised)."""
    if not storage.is_remote(spec.output):
        yield spec.model_copy(update={"output": storage.local_path(spec.output)})
        return
    work = work_dir or default_work_dir()
    if not publish:  # a plan only (validate, --dry-run): a stage of its own, then removed
        os.makedirs(work, exist_ok=True)
        work = tempfile.mkdtemp(prefix="plan-", dir=work)
    remote = RemoteRoot(spec.output, work)
    remote.lock()
    try:
        remote.pull(hydrate=hydrate)
    except BaseException:
        remote.unlock()
        raise
    for name in remote.refused:
        print(
            f"crawlmill: {storage.redact(spec.output)}: object {name!r} is no safe relative "
            "path of the output root; it is left alone (never read, replaced or deleted)",
            file=sys.stderr,
        )
    if publish:
        ACTIVE[remote.stage] = remote
        os.environ[STAGES_ENV] = json.dumps({k: v.url for k, v in ACTIVE.items()})
    try:
        yield spec.model_copy(update={"output": remote.stage})
    finally:
        try:
            if publish:
                ACTIVE.pop(remote.stage, None)
                if ACTIVE:
                    os.environ[STAGES_ENV] = json.dumps({k: v.url for k, v in ACTIVE.items()})
                else:
                    os.environ.pop(STAGES_ENV, None)
                remote.publish()
        finally:
            remote.unlock()
            if not publish:
                shutil.rmtree(work, ignore_errors=True)
