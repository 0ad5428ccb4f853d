"""A store's HTTP errors become ``OSError`` s naming the URL and the status, in one place
(core/storage.py ``backend_error``): 401/403 -> ``PermissionError``, 404/410 ->
``FileNotFoundError``, any other status -> ``OSError``; never a credential or a signature in
the message. Every entry point of the layer is checked over a local HTTP server (honouring
``Range`` as RFC 9110 says), then what the user sees: a forbidden URL among the inputs, an
object whose reads are refused, and a 500 in the middle of a large object (the task fails
naming the URL, the offset and the status; the rerun resumes).

Issue 22: "retries with backoff on transient errors ... credentials ... never in report.json
or logs"; developers' guide: "bad input gets an error naming file, byte offset and reason".
"""

from __future__ import annotations

import errno
import gzip
import io
import json
import os
import random
import re
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from crawlmill.core import storage
from crawlmill.core.commands.cli import main

from tests.conftest import need
from tests.ranged_http import send_range_head

pytestmark = pytest.mark.xdist_group("storage-errors")

_RANGE_START = re.compile(r"bytes=(\d+)-")


def record(i: int, pad: int = 0) -> bytes:
    """One gzip member holding a WARC response record (``pad`` bytes of varied body)."""
    noise = random.Random(i).randbytes(pad // 2).hex().encode()
    body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>%d %s</html>" % (i, noise)
    head = (
        f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{uuid.UUID(int=i)}>\r\n"
        f"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/{i}\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    return gzip.compress(head + body + b"\r\n\r\n", mtime=0, compresslevel=1)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fail_from: int | None = None  # a GET of large.warc.gz from this offset on: 500


class _Faulty(BaseHTTPRequestHandler):
    """Serves ``server.folder``. A name with ``forbidden`` answers 403 to everything, one with
    ``denied`` answers ``HEAD`` but 403 to ``GET``, ``gone`` 410, ``broken`` 500; a ``GET`` of
    ``large.warc.gz`` from ``server.fail_from`` on answers 500."""

    def log_message(self, *args) -> None:  # quiet
        pass

    def _serve(self, body: bool) -> None:
        name = self.path.lstrip("/").split("?")[0]
        for word, status in (("forbidden", 403), ("gone", 410), ("broken", 500)):
            if word in name:
                self.send_error(status)
                return
        path = os.path.join(self.server.folder, name)
        if not os.path.isfile(path):
            self.send_error(404)
            return
        if body and "denied" in name:
            self.send_error(403)
            return
        m = _RANGE_START.match(self.headers.get("Range", ""))
        late = self.server.fail_from
        if body and name == "large.warc.gz" and late is not None and m and int(m[1]) >= late:
            self.send_error(500)
            return
        with open(path, "rb") as fh:
            data = fh.read()
        start, end = send_range_head(self, len(data))
        if body:
            self.wfile.write(data[start:end])

    def do_GET(self) -> None:
        self._serve(True)

    def do_HEAD(self) -> None:
        self._serve(False)


@pytest.fixture(scope="module")
def http(tmp_path_factory):
    """The faulty server over ``good.warc.gz``, ``denied.warc.gz`` (3 records each) and
    ``large.warc.gz`` (120 members of ~10 KB)."""
    need("aiohttp")  # fsspec's HTTP filesystem
    need("fsspec")
    folder = tmp_path_factory.mktemp("www")
    small = b"".join(record(i) for i in range(3))
    (folder / "good.warc.gz").write_bytes(small)
    (folder / "denied.warc.gz").write_bytes(small)
    (folder / "large.warc.gz").write_bytes(b"".join(record(i, 20000) for i in range(120)))
    server = _Server(("127.0.0.1", 0), _Faulty)
    server.folder = str(folder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.base = f"http://127.0.0.1:{server.server_address[1]}"
    yield server
    server.shutdown()


# -- the translation ------------------------------------------------------------------------


def test_statuses_become_oserrors_naming_url_and_status():
    aiohttp = need("aiohttp")
    yarl = need("yarl")
    url = "https://user:pw@data.example/x.warc.gz?X-Amz-Signature=c0ffee&token=t0k&part=2"

    def response(status: int, message: str):
        info = aiohttp.RequestInfo(yarl.URL(url), "GET", {}, yarl.URL(url))
        return aiohttp.ClientResponseError(info, (), status=status, message=message)

    cases = {  # the server's reason ("x") after the standard phrase
        401: (storage.RemotePermissionError, "Permission denied (HTTP 401 Unauthorized: x)"),
        403: (storage.RemotePermissionError, "Permission denied (HTTP 403 Forbidden: x)"),
        404: (storage.RemoteNotFoundError, "No such file (HTTP 404 Not Found: x)"),
        410: (storage.RemoteNotFoundError, "No such file (HTTP 410 Gone: x)"),
        416: (storage.RemoteError, "HTTP 416 Requested Range Not Satisfiable: x"),
        500: (storage.RemoteError, "HTTP 500 Internal Server Error: x"),
        503: (storage.RemoteError, "HTTP 503 Service Unavailable: x"),
    }
    for status, (kind, text) in cases.items():
        error = storage.backend_error(response(status, "x"), url, 4096)
        assert type(error) is kind and isinstance(error, OSError)
        assert error.strerror == f"{text}, reading from byte 4096"
        shown = "https://data.example/x.warc.gz?X-Amz-Signature=REDACTED&token=REDACTED&part=2"
        assert str(error) == f"{shown}: {error.strerror}"
        assert "pw" not in str(error) and "c0ffee" not in str(error) and "t0k" not in str(error)
    assert isinstance(storage.backend_error(response(403, "x"), url), PermissionError)
    assert isinstance(storage.backend_error(response(404, "x"), url), FileNotFoundError)
    full_disk = OSError(errno.ENOSPC, "No space left on device", "/scratch/x")
    assert storage.backend_error(full_disk, url) is full_disk  # a local error stays as it is


def test_s3_client_errors_as_s3fs_raises_them():
    """s3fs turns botocore's ``ClientError`` into a bare ``PermissionError("Access Denied")``
    (its cause: the status and S3's error code)."""
    need("s3fs")
    from botocore.exceptions import ClientError
    from s3fs.errors import translate_boto_error

    def raised(code: str, status: int) -> OSError:
        meta = {
            "Error": {"Code": code, "Message": "m"},
            "ResponseMetadata": {"HTTPStatusCode": status},
        }
        return translate_boto_error(ClientError(meta, "GetObject"))

    denied = storage.backend_error(raised("AccessDenied", 403), "s3://b/k.warc.gz")
    assert isinstance(denied, PermissionError)
    assert str(denied) == "s3://b/k.warc.gz: Permission denied (HTTP 403 Forbidden: AccessDenied)"
    missing = storage.backend_error(raised("NoSuchKey", 404), "s3://b/k.warc.gz")
    assert isinstance(missing, FileNotFoundError) and "HTTP 404 Not Found: NoSuchKey" in str(
        missing
    )
    failed = storage.backend_error(raised("InternalError", 500), "s3://b/k.warc.gz", 8)
    assert type(failed) is storage.RemoteError
    assert (
        str(failed)
        == "s3://b/k.warc.gz: HTTP 500 Internal Server Error: InternalError, reading from byte 8"
    )


def test_gcs_and_azure_errors_by_their_status_attributes():
    """gcsfs' ``HttpError`` carries ``code``, azure-core's ``HttpResponseError``
    ``status_code`` and ``reason`` (neither library runs in CI: stand-ins of their shape)."""
    http_error = type("HttpError", (Exception,), {"__module__": "gcsfs.retry"})
    gcs = http_error("Forbidden")
    gcs.code, gcs.message = 403, "Forbidden"
    denied = storage.backend_error(gcs, "gs://b/k")
    assert str(denied) == "gs://b/k: Permission denied (HTTP 403 Forbidden)"
    response_error = type(
        "HttpResponseError", (Exception,), {"__module__": "azure.core.exceptions"}
    )
    azure = response_error("boom")
    azure.status_code, azure.reason = 503, "Service Unavailable"
    assert str(storage.backend_error(azure, "az://c/k")) == "az://c/k: HTTP 503 Service Unavailable"
    plain = ValueError("not a store's")
    assert storage.backend_error(plain, "gs://b/k") is plain  # a bug stays a bug


# -- every entry point over HTTP ------------------------------------------------------------


def test_every_entry_point_names_the_url_and_the_status(http, tmp_path):
    forbidden = f"{http.base}/forbidden.warc.gz"  # HEAD and GET: 403
    denied = f"{http.base}/denied.warc.gz"  # HEAD 200, GET 403
    calls = {
        "isfile": lambda u: storage.isfile(u),
        "size": lambda u: storage.size(u),
        "read_detection": lambda u: storage.read_detection(u, 512),
        "read_head": lambda u: storage.read_head(u),
        "read_start": lambda u: storage.read_start(u, 10),
        "read_all": lambda u: storage.read_all(u),
        "open_range": lambda u: storage.open_range(u).read(10),
        "stream": lambda u: list(storage.open_input(u)),
        "download": lambda u: storage.download(u, str(tmp_path / "x")),
        "mapped": lambda u: storage.mapped(u).__enter__(),
    }
    for name, call in calls.items():
        for url in (forbidden, denied):
            if url == denied and name in ("isfile", "size"):
                continue  # a HEAD: answered
            with pytest.raises(PermissionError) as caught:
                call(url)
            assert str(caught.value).startswith(f"{url}: Permission denied (HTTP 403 Forbidden)")
    with storage.open_range(denied) as fh:  # opened (HEAD), a ranged read refused
        fh.seek(100)
        with pytest.raises(PermissionError, match=r"403 Forbidden\), reading from byte 100$"):
            fh.read(10)
    missing = f"{http.base}/missing.warc.gz"
    assert storage.isfile(missing) is False and storage.read_detection(missing) is None
    with pytest.raises(FileNotFoundError, match=r"missing.warc.gz: No such file \(HTTP 404"):
        storage.size(missing)
    for word, kind, text in (
        ("gone", FileNotFoundError, "No such file (HTTP 410 Gone)"),
        ("broken", storage.RemoteError, "HTTP 500 Internal Server Error"),
    ):
        url = f"{http.base}/{word}.warc.gz"
        with pytest.raises(kind) as caught:
            storage.size(url)
        assert str(caught.value) == f"{url}: {text}"
    assert storage.isfile(f"{http.base}/gone.warc.gz") is False  # not there (any more)
    with pytest.raises(storage.RemoteError, match="HTTP 500"):  # not "not there": it failed
        storage.isfile(f"{http.base}/broken.warc.gz")
    refused = "http://127.0.0.1:1/x.warc.gz"  # nothing listens: no status, a failed connection
    with pytest.raises(storage.RemoteError, match=r"^http://127.0.0.1:1/x.warc.gz: \w+"):
        storage.isfile(refused)


def test_a_file_url_keeps_the_local_error(tmp_path):
    missing = tmp_path / "missing.warc.gz"
    with pytest.raises(FileNotFoundError) as caught:
        storage.open_input(f"file://{missing}")
    assert caught.value.filename == str(missing)
    assert storage.isfile(f"file://{missing}") is False


# -- what the user sees ---------------------------------------------------------------------


def test_a_forbidden_url_is_named_with_its_status_not_as_missing(http, tmp_path, capsys):
    url = f"{http.base}/forbidden.warc.gz"
    code = main(["convert", f"{http.base}/good.warc.gz", url, "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2  # an input that cannot be looked at: a usage error, nothing written
    assert f"inputs.paths[1]: cannot read {url}: Permission denied (HTTP 403 Forbidden)" in err
    assert "no such file" not in err
    code = main(["inspect", url])
    assert code == 2
    assert f"FILE: {url}: Permission denied (HTTP 403 Forbidden)" in capsys.readouterr().err


@pytest.mark.parametrize("threads", ["0", "4"])  # read one by one, and read ahead
def test_an_object_whose_reads_are_refused_is_not_converted(
    http, tmp_path, capsys, monkeypatch, threads
):
    """The object is there (``HEAD`` answers) but its bytes are refused: like a local file
    without read permission it is not converted, named with its reason (exit 3), and the
    others are converted."""
    monkeypatch.setenv("CRAWLMILL_DETECT_THREADS", threads)
    good, denied = f"{http.base}/good.warc.gz", f"{http.base}/denied.warc.gz"
    out = tmp_path / "o"
    assert main(["convert", good, denied, "-o", str(out), "--workers", "1"]) == 3
    err = capsys.readouterr().err
    why = "cannot read it: Permission denied (HTTP 403 Forbidden), reading from byte 0"
    assert f"{denied}: {why}" in err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["not_converted"] == [{"path": denied, "reason": why}]
    assert (out / "good.warc.gz").is_file() and not (out / "denied.warc.gz").exists()


def test_a_500_in_the_middle_fails_the_task_naming_url_offset_status_and_resumes(
    http, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(storage, "STREAM_BLOCK", 128 << 10)  # several requests per object
    good, large = f"{http.base}/good.warc.gz", f"{http.base}/large.warc.gz"
    out = tmp_path / "o"
    http.fail_from = 400 << 10
    try:
        code = main(["convert", good, large, "-o", str(out), "--workers", "1"])
    finally:
        http.fail_from = None
    err = capsys.readouterr().err
    assert code == 1  # a failed task: "1 the run failed (a task ...)", README's exit codes
    failed = re.search(
        rf"task failed: {re.escape(large)}: RemoteError: {re.escape(large)}: "
        r"HTTP 500 Internal Server Error, reading from byte (\d+) ",
        err,
    )
    assert failed, err
    assert int(failed[1]) >= 400 << 10
    assert (out / "good.warc.gz").is_file() and not (out / "large.warc.gz").exists()
    assert main(["convert", good, large, "-o", str(out), "--workers", "1"]) == 0
    assert "1 already complete" in capsys.readouterr().err
    local = tmp_path / "local"
    source = os.path.join(http.folder, "large.warc.gz")
    assert main(["convert", source, "-o", str(local), "--workers", "1"]) == 0
    assert (out / "large.warc.gz").read_bytes() == (local / "large.warc.gz").read_bytes()


def test_a_remote_read_is_whole_unless_at_the_end():
    """A store's stream may answer ``read(n)`` with what has arrived; ``RemoteFile.read``
    reads on until ``n`` bytes or the end, as a local file does. A short answer taken for the
    end made the ARC reader miss the gzip container past damage at the file's start (one CI
    run: the storage sweep's http-arc/sample-gzip/garbage-prefix/s0 differed from the local
    conversion)."""
    data = bytes(range(256)) * 64

    class Trickle(io.BytesIO):
        def read(self, n=-1):
            return super().read(n if n is None or n < 0 else min(n, 7))

    fh = storage.RemoteFile(Trickle(data), "http://example.com/x")
    assert fh.read(1000) == data[:1000]
    assert fh.read(4) == data[1000:1004]
    assert fh.read(len(data)) == data[1004:]  # fewer only at the end
    assert fh.read(10) == b""
