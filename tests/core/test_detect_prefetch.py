"""Planning reads the detection bytes of remote objects ahead, a few at once
(core/detect_prefetch.py), and gives the plan the sequential code gives.

Issue 22: "100,000 inputs (Common Crawl has 80,000+ WARC files per crawl) list, plan ... in
bounded driver memory and time". A local HTTP server (honouring ``Range`` as RFC 9110 says)
holds each ``GET`` (detection's ranged reads) ``server.delay`` seconds and counts the ``GET``
requests in flight.
"""

from __future__ import annotations

import gzip
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from crawlmill.core import detect_prefetch, storage
from crawlmill.core.inputs import expand_inputs
from crawlmill.core.registry import Registry
from crawlmill.core.spec import PipelineSpec

from tests.conftest import need
from tests.ranged_http import send_range_head

pytestmark = pytest.mark.xdist_group("detect-prefetch")

WARC = (
    b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:%d>\r\n"
    b"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/\r\n"
    b"Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n"
)
ARC = (
    b"filedesc://x.arc 0.0.0.0 20240101000000 text/plain 76\n"
    b"1 0 InternetArchive\nURL IP-address Archive-date Content-type Archive-length\n\n"
)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    delay = 0.0
    active = 0
    most = 0


class _Slow(BaseHTTPRequestHandler):
    """Serves ``server.folder``; a name with ``broken`` answers ``HEAD`` but fails ``GET``."""

    def log_message(self, *args) -> None:  # quiet
        pass

    def _serve(self, body: bool) -> None:
        server = self.server
        with server.lock:
            server.active += body
            server.most = max(server.most, server.active)
        try:
            time.sleep(server.delay if body else 0.0)
            path = os.path.join(server.folder, self.path.lstrip("/").split("?")[0])
            if not os.path.isfile(path):
                self.send_error(404)
                return
            if body and "broken" in path:
                self.send_error(403)
                return
            with open(path, "rb") as fh:
                data = fh.read()
            start, end = send_range_head(self, len(data))
            if body:
                self.wfile.write(data[start:end])
        finally:
            with server.lock:
                server.active -= body

    def do_GET(self) -> None:
        self._serve(True)

    def do_HEAD(self) -> None:
        self._serve(False)


@pytest.fixture(scope="module")
def http(tmp_path_factory):
    """40 small objects of every kind detection tells apart: WARC and ARC files, an empty
    file, binary and text files no reader claims, objects whose read fails."""
    need("aiohttp")  # fsspec's HTTP filesystem
    need("fsspec")
    folder = tmp_path_factory.mktemp("www")
    names = []
    for i in range(40):
        kind = i % 8
        if kind in (0, 1):
            name, data = f"{i:02d}.warc.gz", gzip.compress(WARC % i, mtime=0)
        elif kind == 2:
            name, data = f"{i:02d}.arc.gz", gzip.compress(ARC, mtime=0)
        elif kind == 3:
            name, data = f"{i:02d}.dat", b""
        elif kind == 4:
            name, data = f"{i:02d}.bin", bytes(range(256)) * 4
        elif kind == 5:
            name, data = f"{i:02d}.txt", b"just some text\n"
        elif kind == 6:
            name, data = f"{i:02d}-broken.warc.gz", gzip.compress(WARC % i, mtime=0)
        else:
            name, data = f"{i:02d}.warc", b"not a warc at all\x00\x01"
        (folder / name).write_bytes(data)
        names.append(name)
    server = _Server(("127.0.0.1", 0), _Slow)
    server.folder = str(folder)
    server.lock = threading.Lock()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    server.urls = [f"{base}/{n}" for n in names]
    yield server
    server.shutdown()


def _plan(http, tmp_path, threads: int, monkeypatch) -> tuple:
    monkeypatch.setenv("CRAWLMILL_DETECT_THREADS", str(threads))
    spec = PipelineSpec.model_validate(
        {"inputs": {"paths": http.urls}, "writer": {"name": "warc"}, "output": str(tmp_path)}
    )
    plan = expand_inputs(spec, Registry.load())
    return (
        [(p.input.path, p.input.relpath, p.reader, p.size) for p in plan],
        plan.not_converted,
        plan.skipped,
        plan.warnings,
    )


def test_plan_read_ahead_is_the_sequential_plan(http, tmp_path, monkeypatch):
    http.delay = 0.0
    ahead = _plan(http, tmp_path, 8, monkeypatch)
    one_by_one = _plan(http, tmp_path, 0, monkeypatch)
    assert ahead == one_by_one
    readers = {os.path.basename(p): r for p, _, r, _ in ahead[0]}
    assert readers["00.warc.gz"] == "warc" and readers["02.arc.gz"] == "arc"
    why = {os.path.basename(p): w for p, w in ahead[1]}
    assert why["03.dat"] == "an empty file (0 bytes): no records to read"
    # the 403 of the read (aiohttp's ClientResponseError) is a PermissionError naming it
    reason = "cannot read it: Permission denied (HTTP 403 Forbidden), reading from byte 0"
    assert why["06-broken.warc.gz"] == reason
    assert "named like a file of the 'warc' reader" in why["07.warc"]
    assert len(ahead[0]) + len(ahead[1]) + len(ahead[2]) == 40


def test_objects_are_read_at_once_at_most_the_pool_size(http, tmp_path, monkeypatch):
    """Reads of detection bytes overlap (the server sees several ``GET`` at once), never more
    than the pool's threads at once."""
    real = storage.read_detection
    lock = threading.Lock()
    now = [0, 0]  # reads of detection bytes running, most at once

    def counted(path: str, raw: int = 512):
        with lock:
            now[0] += 1
            now[1] = max(now)
        try:
            return real(path, raw)
        finally:
            with lock:
                now[0] -= 1

    monkeypatch.setattr(storage, "read_detection", counted)
    http.delay = 0.03
    http.most = 0
    try:
        _plan(http, tmp_path, 4, monkeypatch)
    finally:
        http.delay = 0.0
    assert 1 < now[1] <= 4
    assert http.most > 1


def test_the_window_bounds_what_is_held(http, monkeypatch):
    seen = []
    real = storage.read_detection

    def counted(path, raw=512):
        seen.append(path)
        return real(path, raw)

    monkeypatch.setattr(storage, "read_detection", counted)
    urls = [u for u in http.urls if "broken" not in u]
    with detect_prefetch.DetectionPrefetch(urls, workers=4, window=3) as ahead:
        assert ahead.held <= 3
        for i, url in enumerate(urls):
            if i % 5 == 4:
                continue  # never asked for (a unit left out): dropped, not waited for
            assert ahead.get(url) == real(url, 512)
            assert ahead.held <= 3
            assert len(seen) <= i + 1 + 3  # never more than the window read ahead
    assert ahead.held == 0
