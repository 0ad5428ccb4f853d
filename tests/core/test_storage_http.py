"""``http(s)://`` and ``file://`` inputs work like local paths (core/storage.py), and a read of
one gzip member of a large object fetches that member's bytes, not the object: a local HTTP
server (plain http, honouring ``Range`` as RFC 9110 says) counts every byte it sends.

Issue 22: "Ranged reads: converting one member range of a large object fetches only that range
(counted)." and "An ``https://`` input (a local HTTP server in the test) and a ``file://`` URL
work like local paths."
"""

from __future__ import annotations

import gzip
import os
import random
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from crawlmill.core import storage
from crawlmill.core.commands.cli import main
from crawlmill.core.reading import open_reader
from crawlmill.formats.codecs.compression import MemberSource

from tests.conftest import need
from tests.ranged_http import send_range_head


def record(i: int, pad: int = 0) -> bytes:
    """One gzip member holding a WARC response record (``pad`` random bytes of body)."""
    noise = random.Random(i).randbytes(pad).hex().encode()[:pad]
    body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>%d %s</html>" % (i, noise)
    head = (
        f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{uuid.UUID(int=i)}>\r\n"
        f"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/{i}\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    return gzip.compress(head + body + b"\r\n\r\n", mtime=0)


#: one worker runs this module's tests: one server and one 4 MB object serve them all.
pytestmark = pytest.mark.xdist_group("storage-http")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    sent = 0  # body bytes sent
    gets = 0
    heads = 0


class _Files(BaseHTTPRequestHandler):
    """Serves files of ``server.folder``; ``Range: bytes=a-b`` answers 206 with those bytes."""

    def log_message(self, *args) -> None:  # quiet
        pass

    def _serve(self, body: bool) -> None:
        path = os.path.join(self.server.folder, self.path.lstrip("/").split("?")[0])
        if not os.path.isfile(path):
            self.send_error(404)
            return
        with open(path, "rb") as fh:
            data = fh.read()
        start, end = send_range_head(self, len(data))
        if body:
            self.server.gets += 1
            self.server.sent += end - start
            self.wfile.write(data[start:end])

    def do_GET(self) -> None:
        self._serve(True)

    def do_HEAD(self) -> None:
        self.server.heads += 1
        self._serve(False)


@pytest.fixture(scope="module")
def http(tmp_path_factory):
    """A local HTTP server over a folder holding ``small.warc.gz`` (5 records) and
    ``large.warc.gz`` (400 members of ~10 KiB: about 4 MB)."""
    need("aiohttp")  # fsspec's HTTP filesystem
    need("fsspec")
    folder = tmp_path_factory.mktemp("www")
    (folder / "small.warc.gz").write_bytes(b"".join(record(i) for i in range(5)))
    members = [record(i, 20000) for i in range(400)]
    (folder / "large.warc.gz").write_bytes(b"".join(members))
    server = _Server(("127.0.0.1", 0), _Files)
    server.folder = str(folder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.base = f"http://127.0.0.1:{server.server_address[1]}"
    server.members = members
    yield server
    server.shutdown()


def _converted(tmp_path, name: str, source: str) -> bytes:
    out = tmp_path / name
    assert main(["convert", source, "-o", str(out), "--workers", "1"]) == 0
    (written,) = [p for p in out.iterdir() if p.name != ".crawlmill"]
    return written.read_bytes()


def test_http_and_file_urls_convert_like_local_paths(http, tmp_path):
    local = os.path.join(http.folder, "small.warc.gz")
    expected = _converted(tmp_path, "local", local)
    assert _converted(tmp_path, "http", f"{http.base}/small.warc.gz") == expected
    assert _converted(tmp_path, "file", f"file://{local}") == expected
    out = tmp_path / "file-out"  # a file:// output is the local folder
    assert main(["convert", local, "-o", f"file://{out}", "--workers", "1"]) == 0
    assert (out / "small.warc.gz").read_bytes() == expected


def test_open_reader_reads_a_url_like_a_path(http):
    local = os.path.join(http.folder, "small.warc.gz")
    for source in (f"{http.base}/small.warc.gz", f"file://{local}"):
        with open_reader(source) as records:
            assert [r.url for r in records] == [f"http://example.com/{i}" for i in range(5)]


def test_inspect_shows_a_url_as_a_path(http, capsys):
    assert main(["inspect", f"{http.base}/small.warc.gz", "-n", "1"]) == 0
    out = capsys.readouterr().out
    assert (
        f"{http.base}/small.warc.gz: {os.path.getsize(os.path.join(http.folder, 'small.warc.gz'))} bytes"
        in out
    )
    assert "reading with: warc" in out and "http://example.com/0" in out


def test_reading_one_member_of_a_large_object_fetches_that_member(http):
    members = http.members
    offset = sum(len(m) for m in members[:250])
    length = len(members[250])
    url = f"{http.base}/large.warc.gz"
    size = sum(len(m) for m in members)
    assert size > 4_000_000
    http.sent = http.gets = 0
    source = MemberSource(storage.open_range)  # what a writer copying a member uses
    try:
        assert source.read(url, offset, length) == members[250]
    finally:
        source.close()
    assert http.sent == length  # that member's bytes, not the 4 MB object
    assert http.gets == 1


def test_detecting_a_large_object_reads_its_start_only(http, tmp_path):
    url = f"{http.base}/large.warc.gz"
    http.sent = 0
    assert storage.read_head(url).startswith(b"WARC/1.0\r\n")
    assert http.sent <= 1 << 20  # the first MiB at most, not the object
    # a whole conversion streams the object once (plus detection's first bytes)
    http.sent = 0
    out = tmp_path / "out"
    assert main(["convert", url, "-o", str(out), "--workers", "1"]) == 0
    size = sum(len(m) for m in http.members)
    assert size <= http.sent <= size + (2 << 20)


def test_detecting_a_remote_object_looks_it_up_once_and_reads_its_start_once(http):
    """Planning detects each object of a prefix that is in no collection: one ``HEAD`` (is it
    a file, its size) and its first bytes fetched once (the first 64 KiB, then up to 1 MiB
    of a gzip file), not a lookup and a fetch of the start per check (3 ``HEAD``, 3 ``GET``)."""
    from crawlmill.core.file_detection import detect_reader
    from crawlmill.core.registry import Registry

    registry = Registry.load()
    url = f"{http.base}/large.warc.gz"
    http.sent = http.gets = http.heads = 0
    assert detect_reader(registry, url, named=True) == ("warc", "", True)
    assert (http.heads, http.gets) == (1, 2)
    assert http.sent == 1 << 20
    one_by_one = (storage.read_head(url), storage.read_start(url, 512))
    assert storage.read_detection(url) == one_by_one  # the same bytes
    assert storage.read_detection(f"{http.base}/missing.warc.gz") is None
