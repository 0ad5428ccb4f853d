"""One storage layer for every path crawlmill reads or writes: local paths and URLs alike.

A path is either a local path (as always) or a URL ``scheme://...``. ``file://`` URLs are
turned into local paths (:func:`local_path`) and then are local paths in every respect. Any
other scheme (``s3://``, ``gs://``, ``az://``/``abfs://``, ``hdfs://``, ``http(s)://``...) goes
through `fsspec <https://filesystem-spec.readthedocs.io>`_ and the implementation it names
(s3fs, gcsfs, adlfs, pyarrow's HDFS, its own HTTP): docs/storage.md says why fsspec and not
``pyarrow.fs``. Local paths never touch fsspec: their behaviour is the one of ``open`` and
``os``.

Reading:

* :func:`open_input` opens a file for reading start to end (sequential: the WARC reader's
  stream), with a read-ahead block of :data:`STREAM_BLOCK` bytes;
* :func:`open_range` opens a file to read spans at known offsets (a gzip member a writer
  copies, the first bytes detection reads): each read fetches only the bytes asked for (an
  HTTP ``Range``/S3 ``GetObject`` with ``Range``), never the whole object;
* :func:`isfile`, :func:`isdir`, :func:`size`, :func:`glob`, :func:`find` list and stat.

Retries with backoff on transient errors are the library's own: botocore's ``adaptive`` retry
mode with :data:`RETRIES` attempts for S3 (s3fs's ``config_kwargs``, besides s3fs's own
retries of its calls); gcsfs and adlfs retry inside; fsspec's HTTP does not retry. Credentials are found the usual way of each store (environment,
profiles, instance roles; ``AWS_*``, ``GOOGLE_APPLICATION_CREDENTIALS``, ``AZURE_*``) and never
given on the command line: a URL with a password in it (``https://user:secret@host/x``) is
refused (:func:`check_url`), and :func:`redact` drops any user part from a URL shown to the
user, so no secret reaches ``report.json`` or the terminal.

Errors: what a store's library raises (aiohttp's ``ClientResponseError``, botocore's
``ClientError`` under s3fs' bare ``PermissionError``...) is turned into an ``OSError`` naming
the URL and the HTTP status in one place, :func:`backend_error`, which every entry point and
every remote file (:class:`RemoteFile`) goes through: 401/403 -> :class:`RemotePermissionError`,
404/410 -> :class:`RemoteNotFoundError`, others -> :class:`RemoteError`.
"""

from __future__ import annotations

import contextlib
import errno
import glob as _glob
import mmap
import os
import posixpath
import re
import tempfile
from collections.abc import Iterator
from typing import Any, BinaryIO, NoReturn
from urllib.parse import unquote, urlsplit, urlunsplit

__all__ = [
    "RANGE_BLOCK",
    "BackendError",
    "STREAM_BLOCK",
    "RemoteError",
    "RemoteFile",
    "RemoteNotFoundError",
    "RemotePermissionError",
    "StorageError",
    "absolute",
    "backend_error",
    "check_url",
    "download",
    "entries",
    "filesystem",
    "find",
    "glob",
    "has_magic",
    "is_remote",
    "is_url",
    "isdir",
    "isfile",
    "local_path",
    "mapped",
    "mapped_start",
    "open_input",
    "open_range",
    "put_file",
    "read_all",
    "read_detection",
    "read_head",
    "read_start",
    "redact",
    "scheme",
    "shown",
    "size",
    "translated",
    "url_path",
]

_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+)://")

#: read-ahead of a sequential read (a reader's stream): one request per this many bytes.
STREAM_BLOCK = 8 << 20
#: block size of a file opened for ranged reads (no read-ahead: a read fetches what it asks).
RANGE_BLOCK = 1 << 20
#: schemes of HTTP: a URL is one file (no listing of folders or globs).
_HTTP = ("http", "https")
#: attempts of a request that failed with a transient error (throttling, 5xx, a reset).
RETRIES = 8
#: part size of a multipart upload to S3, one part in memory at a time (s3fs's default reads
#: up to 10 parts of 50 MiB at once: a whole 125 MB output in memory, twice over, per task).
UPLOAD_PART = STREAM_BLOCK
#: the most parts S3 takes in one multipart upload (a larger file gets larger parts).
_S3_MAX_PARTS = 10_000


class StorageError(OSError):
    """A URL crawlmill cannot use (its library is not installed, a password in it)."""


# -- backend errors --------------------------------------------------------------------------


class BackendError(OSError):
    """An error of a store's backend, shown as ``<url>: <what>`` (``filename``: the URL as
    :func:`shown` gives it; ``strerror``: what happened, with the HTTP status and reason)."""

    filename: str
    strerror: str

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


class RemoteError(BackendError):
    """A store answered a request with an error status (500, 503 after retries, 416...) or
    did not answer (a connection refused or cut, a timeout)."""


class RemotePermissionError(BackendError, PermissionError):
    """A store refused a request: HTTP 401 or 403 (S3's ``AccessDenied``)."""


class RemoteNotFoundError(BackendError, FileNotFoundError):
    """A store has no such object: HTTP 404 or 410."""


#: modules whose exceptions are a store's backend failing (aiohttp's ``ClientResponseError``
#: for fsspec's HTTP, botocore's ``ClientError`` under s3fs, gcsfs', adlfs' and Azure's).
_BACKENDS = ("aiohttp", "botocore", "aiobotocore", "s3fs", "gcsfs", "adlfs", "azure", "google")
#: a URL inside a library's message (shown without its secrets).
_ANY_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+://[^\s'\"]+")
#: query parameters a URL shown in a message never carries the value of (signed URLs, tokens).
_SECRET_PARAM = re.compile(
    r"signature|sig$|token|credential|secret|password|passwd|key|auth|policy|session",
    re.IGNORECASE,
)


def shown(url: str) -> str:
    """``url`` as a message shows it: without a user part (:func:`redact`) and with the
    value of every query parameter that looks like a signature, token or key replaced by
    ``REDACTED`` (``X-Amz-Signature``, ``X-Amz-Credential``, ``X-Amz-Security-Token``,
    ``sig``, ``token``, ``Key-Pair-Id``, ``Policy``...)."""
    url = redact(url)
    if not is_url(url) or "?" not in url:
        return url
    parts = urlsplit(url)
    pairs = []
    for pair in parts.query.split("&"):
        name, eq, _ = pair.partition("=")
        pairs.append(f"{name}=REDACTED" if eq and _SECRET_PARAM.search(name) else pair)
    return urlunsplit(parts._replace(query="&".join(pairs)))


def _status(exc: BaseException) -> tuple[int, str] | None:
    """``(HTTP status, reason)`` of the first error in ``exc``'s chain (its ``__cause__`` or
    ``__context__``) that carries one: aiohttp's ``ClientResponseError`` (``status``,
    ``message``), botocore's ``ClientError`` (``response``: its ``HTTPStatusCode`` and
    error ``Code``), which s3fs turns into a bare ``PermissionError("Access Denied")``, and
    (not tested in CI: no GCS or Azure runs there) gcsfs' ``HttpError`` (``code``) and
    azure-core's ``HttpResponseError`` (``status_code``, ``reason``)."""
    seen: set[int] = set()
    found: BaseException | None = exc
    while found is not None and id(found) not in seen:
        seen.add(id(found))
        status = getattr(found, "status", None)
        if not isinstance(status, int) and type(found).__module__.split(".", 1)[0] in _BACKENDS:
            # gcsfs' HttpError (``code``), azure-core's HttpResponseError (``status_code``)
            status = getattr(found, "code", None) or getattr(found, "status_code", None)
        if isinstance(status, int) and 100 <= status < 600:
            return status, str(getattr(found, "message", "") or getattr(found, "reason", "") or "")
        response = getattr(found, "response", None)
        if isinstance(response, dict):
            code = (response.get("ResponseMetadata") or {}).get("HTTPStatusCode")
            error = response.get("Error") or {}
            if isinstance(code, int) and 100 <= code < 600:
                name = str(error.get("Code") or "")
                return code, name if name and not name.isdigit() else ""
        found = found.__cause__ or found.__context__
    return None


def _from_backend(exc: BaseException) -> bool:
    """True when ``exc`` or an error in its chain was raised by a store's library."""
    seen: set[int] = set()
    found: BaseException | None = exc
    while found is not None and id(found) not in seen:
        seen.add(id(found))
        if type(found).__module__.split(".", 1)[0] in _BACKENDS:
            return True
        found = found.__cause__ or found.__context__
    return False


def backend_error(exc: BaseException, url: str, offset: int | None = None) -> BaseException:
    """The error to raise for ``exc``, raised by a store's library on a request for ``url``
    (``offset``: where a read began, when known): HTTP 401/403 ->
    :class:`RemotePermissionError`, 404/410 -> :class:`RemoteNotFoundError`, any other status
    (500, 503 after the retries, 416...) and a connection that failed -> :class:`RemoteError`;
    each names the URL (:func:`shown`: no credentials, no signature) and the HTTP status and
    reason. ``exc`` itself when it is none of these: an error crawlmill raised (already
    translated, a :class:`StorageError`), a local one (a full scratch disk: an ``OSError``
    with an ``errno`` no store's library raised), or a bug (a ``TypeError``...)."""
    if isinstance(exc, (BackendError, StorageError)):
        return exc
    where = f", reading from byte {offset}" if offset is not None else ""
    name = shown(url)
    found = _status(exc)
    if found is not None:
        import http

        status, reason = found
        try:
            phrase = http.HTTPStatus(status).phrase
        except ValueError:
            phrase = ""
        text = f"HTTP {status} {phrase}".rstrip()
        if reason and reason != phrase:  # the server's own reason, S3's error code
            text += f": {reason}"
        if status in (401, 403):
            return RemotePermissionError(errno.EACCES, f"Permission denied ({text}){where}", name)
        if status in (404, 410):
            return RemoteNotFoundError(errno.ENOENT, f"No such file ({text}){where}", name)
        return RemoteError(errno.EIO, f"{text}{where}", name)
    backend = _from_backend(exc)
    if isinstance(exc, OSError) and exc.errno is not None and not backend:
        return exc  # a local error (a full disk), not the store's
    if not backend and not isinstance(exc, OSError):
        return exc
    what = _ANY_URL.sub(lambda m: shown(m.group(0)), str(exc))
    if isinstance(exc, FileNotFoundError):  # fsspec's HTTP: a 404, or no answer to HEAD/GET
        cause = exc.__cause__ or exc.__context__
        if cause is None:  # over HTTP fsspec raises it for a 404 alone
            said = " (HTTP 404)" if scheme(url) in _HTTP else ""
            return RemoteNotFoundError(errno.ENOENT, f"No such file{said}{where}", name)
        return backend_error(cause, url, offset)
    if isinstance(exc, PermissionError):
        return RemotePermissionError(errno.EACCES, f"Permission denied{where}", name)
    kind = type(exc).__name__
    return RemoteError(errno.EIO, f"{kind}: {what}{where}" if what else f"{kind}{where}", name)


@contextlib.contextmanager
def translated(url: str, offset: int | None = None) -> Iterator[None]:
    """Raise what :func:`backend_error` makes of an error a store's library raises in the
    block (a request for ``url``)."""
    try:
        yield
    except Exception as exc:
        error = backend_error(exc, url, offset)
        if error is exc:
            raise
        raise error from exc


def is_url(path: str) -> bool:
    """True when ``path`` is a URL (a scheme of two or more letters, so ``C:/`` is a path)."""
    return bool(_URL.match(path))


def scheme(path: str) -> str | None:
    """The lower-cased scheme of the URL ``path``, else ``None``."""
    match = _URL.match(path)
    return match.group(1).lower() if match else None


def local_path(path: str) -> str:
    """``path`` itself, or the local path of a ``file://`` URL (``file:///abs/p`` ->
    ``/abs/p``; ``file://localhost/p`` -> ``/p``)."""
    if scheme(path) != "file":
        return path
    parts = urlsplit(path)
    if parts.netloc not in ("", "localhost"):
        raise StorageError(f"{path}: a file:// URL names a file of this machine (no host)")
    return unquote(parts.path)


def is_remote(path: str) -> bool:
    """True for a URL that is not a ``file://`` one: read and written through fsspec."""
    s = scheme(path)
    return s is not None and s != "file"


def redact(path: str) -> str:
    """``path`` with the user part of a URL (``user:password@``) removed."""
    if not is_url(path):
        return path
    parts = urlsplit(path)
    if "@" not in parts.netloc:
        return path
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def check_url(path: str) -> None:
    """Refuse a URL that carries credentials (``user:password@host``): they would be copied to
    markers, the report and the terminal; :class:`StorageError` names the URL without them."""
    if is_url(path) and "@" in urlsplit(path).netloc:
        raise StorageError(
            f"{redact(path)}: credentials in a URL are refused (they would reach logs and "
            "report.json); give them the usual way of the store: environment variables, a "
            "profile or an instance role (docs/storage.md)"
        )


def _options(proto: str) -> dict[str, Any]:
    """The library settings crawlmill gives a filesystem: retries with backoff."""
    if proto in ("s3", "s3a"):
        retries = {"max_attempts": RETRIES, "mode": "adaptive"}
        return {"config_kwargs": {"retries": retries}}
    return {}


def filesystem(url: str) -> tuple[Any, str]:
    """``(fsspec filesystem, path inside it)`` for the URL ``url``."""
    check_url(url)
    try:
        import fsspec
    except ImportError:
        raise StorageError(
            f"{url}: reading and writing URLs needs fsspec: pip install 'crawlmill[storage]'"
        ) from None
    proto = scheme(url) or "file"
    try:
        return fsspec.core.url_to_fs(url, **_options(proto))
    except ImportError as exc:
        raise StorageError(
            f"{url}: the {proto}:// store needs a library that is not installed ({exc}); "
            "see docs/storage.md"
        ) from None
    except ValueError as exc:
        raise StorageError(f"{url}: {exc}") from None


def url_path(url: str) -> str:
    """A path-shaped name of ``url`` for naming only (``/s3/bucket/key``): what relative
    output names and sorting use in place of a local absolute path."""
    parts = urlsplit(url)
    named = "/" + "/".join(p for p in (scheme(url), parts.netloc, parts.path.lstrip("/")) if p)
    return posixpath.normpath(named)  # a ".." in a URL never climbs above the root


def _unstrip(url: str, fspath: str) -> str:
    """The URL of ``fspath`` (a path inside the filesystem of ``url``)."""
    proto = scheme(url)
    parts = urlsplit(url)
    if proto in ("http", "https"):
        return fspath
    if proto in ("s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "adl", "memory"):
        return f"{proto}://{fspath.lstrip('/')}"
    if not parts.netloc:  # ``hdfs:///user/x``, ``local:///data/x``: an absolute path
        return f"{proto}:///{fspath.lstrip('/')}"
    return f"{proto}://{parts.netloc}/{fspath.lstrip('/')}"


def has_magic(path: str) -> bool:
    """True when ``path`` is a glob pattern (``*``, ``?``, ``[``); never for an HTTP URL
    (``?`` starts its query)."""
    return scheme(path) not in _HTTP and _glob.has_magic(path)


# -- stat and listing ------------------------------------------------------------------------


def isfile(path: str) -> bool:
    """True when ``path`` is a file (an object); false when it is not there (HTTP 404).
    A store that refuses to say (HTTP 403: :class:`RemotePermissionError`) or fails
    (:class:`RemoteError`) raises, so a forbidden object is never "no such file"."""
    if not is_remote(path):
        return os.path.isfile(local_path(path))
    fs, p = filesystem(path)
    try:
        with translated(path):
            info = fs.info(p)  # over HTTP a HEAD (fsspec's isfile GETs the whole body)
    except FileNotFoundError:
        return False
    return info.get("size") is not None and info.get("type", "file") == "file"


def isdir(path: str) -> bool:
    """True when ``path`` is a folder (a prefix holding objects)."""
    if not is_remote(path):
        return os.path.isdir(local_path(path))
    if scheme(path) in _HTTP:  # no folders over HTTP: a URL names one file
        return False
    fs, p = filesystem(path)
    try:
        with translated(path):
            return bool(fs.isdir(p))
    except FileNotFoundError:
        return False


def size(path: str) -> int:
    """The size of the file ``path`` in bytes (``OSError`` when it is not there)."""
    if not is_remote(path):
        return os.path.getsize(local_path(path))
    fs, p = filesystem(path)
    with translated(path):
        found = fs.size(p)
    if found is None:
        raise FileNotFoundError(f"no such file: {redact(path)}")
    return int(found)


def find(url: str) -> list[tuple[str, int]]:
    """Every file below the remote folder (prefix) ``url``, as ``(url, size)`` sorted by URL."""
    fs, p = filesystem(url)
    fs.invalidate_cache()  # a long-lived process lists the store as it is now
    with translated(url):
        found = fs.find(p.rstrip("/"), detail=True)
    return sorted(
        (_unstrip(url, name), int(info.get("size") or 0))
        for name, info in found.items()
        if info.get("type", "file") == "file"
    )


def entries(folder: str) -> list[tuple[str, bool]]:
    """``(name, is_folder)`` of every entry of the folder (prefix) ``folder``, by name; ``[]``
    when it cannot be listed (a local folder with ``os.scandir``, a prefix with one listing;
    a prefix the store refuses to list raises :class:`RemotePermissionError`)."""
    if not is_remote(folder):
        try:
            with os.scandir(local_path(folder)) as found:
                return sorted((e.name, e.is_dir()) for e in found)
        except OSError:
            return []
    if scheme(folder) in _HTTP:
        return []
    fs, p = filesystem(folder)
    try:
        with translated(folder):
            found = fs.ls(p.rstrip("/"), detail=True)
    except FileNotFoundError:
        return []
    base = p.rstrip("/")
    out = []
    for info in found:
        name = info["name"].rstrip("/").rsplit("/", 1)[-1]
        if info["name"].rstrip("/") != base:
            out.append((name, info.get("type") == "directory"))
    return sorted(out)


def glob(pattern: str) -> list[str]:
    """The paths or URLs matching ``pattern`` (``**`` recurses), sorted."""
    if not is_remote(pattern):
        return sorted(_glob.glob(local_path(pattern), recursive=True))
    fs, p = filesystem(pattern)
    fs.invalidate_cache()
    with translated(pattern):
        return sorted(_unstrip(pattern, name) for name in fs.glob(p))


# -- reading ---------------------------------------------------------------------------------


def open_input(path: str) -> BinaryIO:
    """``path`` opened to read start to end (a local file, or a remote object streamed with a
    read-ahead of :data:`STREAM_BLOCK` bytes); seekable."""
    if not is_remote(path):
        return open(local_path(path), "rb")  # noqa: SIM115 - the caller closes it
    fs, p = filesystem(path)
    with translated(path):
        return RemoteFile(fs.open(p, "rb", block_size=STREAM_BLOCK, cache_type="readahead"), path)


def open_range(path: str) -> BinaryIO:
    """``path`` opened to read spans at known offsets: a remote read fetches only the bytes
    asked for (no read-ahead), so copying one gzip member of a large object transfers that
    member, not the object."""
    if not is_remote(path):
        return open(local_path(path), "rb")  # noqa: SIM115 - the caller closes it
    fs, p = filesystem(path)
    with translated(path):
        return RemoteFile(fs.open(p, "rb", block_size=RANGE_BLOCK, cache_type="none"), path)


def put_file(fs: Any, local: str, path: str) -> None:
    """Upload the local file ``local`` to ``path`` of the fsspec filesystem ``fs`` in bounded
    memory: to S3 as a multipart upload (completed only when the file is whole) of
    :data:`UPLOAD_PART`-byte parts sent one at a time (a file under two parts in one request);
    other stores with their library's own settings (gcsfs uploads 50 MiB chunks one at a
    time)."""
    with translated(fs.unstrip_protocol(path)):
        if not _is_s3(fs):
            fs.put_file(local, path)
            return
        part = max(UPLOAD_PART, -(-os.path.getsize(local) // _S3_MAX_PARTS))
        fs.put_file(local, path, chunksize=part, max_concurrency=1)


@contextlib.contextmanager
def mapped(path: str) -> Iterator[bytes | mmap.mmap]:
    """The whole file ``path`` as a buffer, for a decoder that indexes and searches a file
    (a SequenceFile's sync markers, a MapFile's data): a local file is memory-mapped as it
    always was (``b""`` when empty); a remote object is downloaded once, in one streamed
    request written to disk as it arrives (:func:`download`: a few MiB of memory whatever
    the object's size), to a scratch file (in ``$CRAWLMILL_WORK_DIR`` when set, else the temp
    folder; unlinked once open, so gone when the block ends) and memory-mapped: the decoder
    reads it whole anyway, so one sequential fetch is the fewest requests. A mapping's pages
    are the page cache's, but count in the process's RSS once read: a decoder walking the
    buffer hands them back behind it (``madvise(MADV_DONTNEED)``, as the SequenceFile
    framer does every 32 MiB), which bounds its memory whatever the file's size."""
    if not is_remote(path):
        with open(local_path(path), "rb") as fh:
            if os.fstat(fh.fileno()).st_size == 0:
                yield b""
                return
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
                yield data
        return
    scratch = os.environ.get("CRAWLMILL_WORK_DIR") or None
    if scratch:
        os.makedirs(scratch, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix="crawlmill-fetch-", dir=scratch)
    try:
        os.close(fd)
        download(path, name)
        tmp = open(name, "rb")  # noqa: SIM115 - closed below
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)  # the open file stays readable; its blocks go when it closes
    with tmp:
        if os.fstat(tmp.fileno()).st_size == 0:
            yield b""
            return
        with mmap.mmap(tmp.fileno(), 0, access=mmap.ACCESS_READ) as data:
            yield data


def download(url: str, local: str) -> None:
    """Copy the remote object ``url`` to the local file ``local`` in one streamed request,
    written as it arrives (the library's ``get_file``: S3 in 64 KiB reads, sequentially, not
    s3fs's default of up to 10 concurrent 50 MiB parts held in memory; HTTP in 5 MiB reads)."""
    fs, p = filesystem(url)
    with translated(url):
        if _is_s3(fs):
            fs.get_file(p, local, max_concurrency=1)
        else:
            fs.get_file(p, local)


def _is_s3(fs: Any) -> bool:
    """Whether the fsspec filesystem ``fs`` is s3fs's."""
    protocol = fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)
    return "s3" in protocol


@contextlib.contextmanager
def mapped_start(path: str, n: int) -> Iterator[bytes | mmap.mmap]:
    """A buffer of at least the first ``n`` bytes of ``path`` (for a header): a local file
    memory-mapped whole, as :func:`mapped`; of a remote object only its first ``n`` bytes,
    in one ranged read."""
    if not is_remote(path):
        with mapped(path) as data:
            yield data
        return
    yield read_start(path, n)


def read_all(path: str) -> bytes:
    """The whole file ``path`` (a small one: a list, a MapFile's index), in one read."""
    with open_input(path) as fh:
        return fh.read()


def read_start(path: str, n: int) -> bytes:
    """The first ``n`` bytes of ``path`` (fewer for a shorter file), in one ranged read."""
    with open_range(path) as fh:
        return fh.read(n)


def read_head(path: str, size: int = 65536) -> bytes:
    """The first decompressed bytes of ``path`` for format detection
    (:func:`crawlmill.formats.codecs.compression.read_head`), for a local path or a URL."""
    from crawlmill.formats.codecs.compression import read_head_of

    with open_range(path) as fh:
        return read_head_of(fh, size)


def read_detection(path: str, raw: int = 512, size: int = 65536) -> tuple[bytes, bytes] | None:
    """``(read_head(path, size), read_start(path, raw))``: what format detection reads, or
    ``None`` when ``path`` is no file. A remote object is looked up once (its size with it)
    and opened once for both, its first bytes fetched once: a ``HEAD`` and one ranged ``GET``
    (two for a gzip file, whose head may need up to 1 MiB), where :func:`isfile`,
    :func:`read_head` and :func:`read_start` one after another send three ``HEAD`` and
    three ``GET`` requests (planning detects every object of a prefix that is in no
    collection)."""
    if not is_remote(path):
        if not isfile(path):
            return None
        return read_head(path, size), read_start(path, raw)
    from crawlmill.formats.codecs.compression import compression_of, read_head_of

    fs, p = filesystem(path)
    try:
        with translated(path):
            info = fs.info(p)
    except FileNotFoundError:
        return None  # as isfile: not there (a refusal raises, naming its status)
    if info.get("size") is None or info.get("type", "file") != "file":
        return None
    known = {"size": int(info["size"])} if _is_s3(fs) or scheme(path) in _HTTP else {}
    with translated(path):
        opened = fs.open(p, "rb", block_size=RANGE_BLOCK, cache_type="none", **known)
    with RemoteFile(opened, path) as fh:
        first = fh.read(max(size, 4096))
        if compression_of(first) in (None, "gzip"):  # read from the start only, onwards
            head = read_head_of(_Onwards(first, fh), size)
        else:  # another codec's decoder may seek: the file itself, from its start again
            fh.seek(0)
            head = read_head_of(fh, size)
    return head, first[:raw]


class RemoteFile:
    """A remote file opened by fsspec whose errors name its URL: every call on it (``read``,
    ``readline``, ``seek``, iteration...) raises what :func:`backend_error` makes of an error
    of the store's library, with the offset the read began at; every other attribute is the
    file's (``size``, ``loc``...). A call that succeeds costs one ``try`` (no context manager,
    no ``tell``): a line read through it costs ~0.3 us more than through the file itself."""

    def __init__(self, fh: Any, url: str) -> None:
        self._fh = fh
        self.url = url

    def _raise(self, exc: Exception, offset: int | None) -> NoReturn:
        error = backend_error(exc, self.url, offset)
        if error is exc:
            raise exc
        raise error from exc

    def _where(self) -> int | None:
        try:
            return int(self._fh.tell())
        except Exception:  # noqa: BLE001 - a closed or broken file: no offset
            return None

    def read(self, n: int = -1) -> bytes:
        """The next ``n`` bytes (all the rest when ``n < 0``); fewer only at the end, as a
        local file's read gives them: a store's stream may answer with what has arrived, and
        a reader taking a short answer for the end would decide on less than it asked for
        (a container not detected past damage at the start, seen over HTTP)."""
        where = self._fh.tell()  # where the read begins (named when it fails)
        try:
            data = self._fh.read(n)
            if n is None or n < 0 or len(data) >= n or not data:
                return data
            parts, got = [data], len(data)
            while got < n and (more := self._fh.read(n - got)):
                parts.append(more)
                got += len(more)
            return b"".join(parts)
        except Exception as exc:
            self._raise(exc, where)

    def readinto(self, buffer: Any) -> int:
        """Read into ``buffer``; the number of bytes read."""
        where = self._fh.tell()
        try:
            return self._fh.readinto(buffer)
        except Exception as exc:
            self._raise(exc, where)

    def readline(self, n: int = -1) -> bytes:
        """The next line (``n``: at most that many bytes)."""
        where = self._fh.tell()
        try:
            return self._fh.readline(n) if n >= 0 else self._fh.readline()
        except Exception as exc:
            self._raise(exc, where)

    def seek(self, offset: int, whence: int = 0) -> int:
        """Move to ``offset`` (from ``whence``); the new position."""
        try:
            return self._fh.seek(offset, whence)
        except Exception as exc:
            self._raise(exc, None)

    def tell(self) -> int:
        """The position of the next byte read."""
        return self._fh.tell()

    def close(self) -> None:
        """Close the file."""
        try:
            self._fh.close()
        except Exception as exc:
            self._raise(exc, None)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._fh, name)
        if not callable(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            where = self._where()
            try:
                return value(*args, **kwargs)
            except Exception as exc:
                self._raise(exc, where)

        return call

    def __iter__(self) -> Iterator[bytes]:
        lines = iter(self._fh)
        while True:
            where = self._fh.tell()
            try:
                line = next(lines)
            except StopIteration:
                return
            except Exception as exc:
                self._raise(exc, where)
            yield line

    def __enter__(self) -> RemoteFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Onwards:
    """A file read from its start once more, its first bytes already in hand: ``read`` gives
    them, then the rest from ``fh`` (which is past them)."""

    def __init__(self, first: bytes, fh: BinaryIO) -> None:
        self.first = first
        self.fh = fh

    def read(self, n: int = -1) -> bytes:
        out, self.first = (self.first, b"") if n < 0 else (self.first[:n], self.first[n:])
        if n < 0:
            return out + self.fh.read()
        return out + (self.fh.read(n - len(out)) if n > len(out) else b"")


def absolute(path: str) -> str:
    """``os.path.abspath`` of a local path; a URL as it is (markers name inputs by it)."""
    return path if is_remote(path) else os.path.abspath(path)
