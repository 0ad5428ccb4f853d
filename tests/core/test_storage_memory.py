"""A worker's memory while it reads a remote input is bounded, whatever the object's size
(core/storage.py): a stream holds its read-ahead window, and a decoder's whole-file buffer
(``storage.mapped``: the object downloaded to a scratch file and memory-mapped) is downloaded
in small pieces and its pages handed back behind the walk. A local HTTP server (``Range`` as
RFC 9110 says, each answer read from disk in 1 MiB pieces) serves one 200 MB SequenceFile;
peak resident memory is read from ``/proc/self/status`` (``VmHWM``, reset through
``/proc/self/clear_refs`` before each read).

Issue 22: "Inputs: listing (globs, prefixes), ranged and streaming reads (a gzip member is
fetched without downloading the file)"; the scale curve's S3 rows showed Python workers of
400-510 MB at 1 GB, growing with the objects' size.
"""

from __future__ import annotations

import gc
import os
import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from crawlmill.core import storage
from crawlmill.formats.hadoop.sequencefile import Entry, SequenceFileWriter, iter_entries
from crawlmill.plugins.readers.nutch_parts import keys_sorted

from tests.conftest import need
from tests.ranged_http import send_range_head

pytestmark = pytest.mark.xdist_group("storage-memory")

RECORDS = 2000
VALUE = 100_000
#: far below the object's 200 MB: a read-ahead window or a release step, and their copies
BOUND = 56 << 20


def _status(field: str) -> int:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) * 1024 for line in fh if line.startswith(field))


def _peak_growth(read) -> int:
    """How far this process's resident memory rose above its start while ``read()`` ran."""
    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")  # resets VmHWM to the current RSS (Linux 4.0+)
    except OSError:
        pytest.skip("no /proc/self/clear_refs: peak memory cannot be reset here")
    before = _status("VmRSS:")
    read()
    return _status("VmHWM:") - before


class _Files(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # quiet
        pass

    def _serve(self, body: bool) -> None:
        path = os.path.join(self.server.folder, self.path.lstrip("/"))  # type: ignore[attr-defined]
        size = os.path.getsize(path)
        start, end = send_range_head(self, size)
        if body:
            with open(path, "rb") as fh:
                fh.seek(start)
                left = end - start
                while left:
                    chunk = fh.read(min(left, 1 << 20))
                    self.wfile.write(chunk)
                    left -= len(chunk)

    def do_GET(self) -> None:
        self._serve(True)

    def do_HEAD(self) -> None:
        self._serve(False)


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """``(url, local path, size)`` of a 200 MB SequenceFile (Text keys in order, 100 KB
    BytesWritable values of random bytes) served over HTTP."""
    need("aiohttp")  # fsspec's HTTP filesystem
    folder = tmp_path_factory.mktemp("www")
    path = folder / "big.seq"
    value = random.Random(22).randbytes(VALUE)
    with open(path, "wb") as fh:
        w = SequenceFileWriter(
            fh, "org.apache.hadoop.io.Text", "org.apache.hadoop.io.BytesWritable"
        )
        for i in range(RECORDS):
            key = b"http://example.com/%08d" % i
            w.append(bytes([len(key)]) + key, VALUE.to_bytes(4, "big") + value)
        w.close()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Files)
    server.daemon_threads = True
    server.folder = str(folder)  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/big.seq"
    size = os.path.getsize(path)
    assert size > 3 * BOUND
    storage.size(url)  # the HTTP session opened before any measurement
    yield url, str(path), size
    server.shutdown()


def test_the_measure_sees_a_whole_file_held(big):
    """The control: a walk over a mapped file that keeps its pages (no release) rises by
    about the file's size, so the bounds below are not met by a blind measure."""
    _, path, size = big

    def touch_all() -> None:
        with storage.mapped(path) as data:  # a local file: memory-mapped
            assert sum(data[i] for i in range(0, len(data), 4096)) >= 0

    assert _peak_growth(touch_all) > size * 0.9


def test_streaming_a_remote_object_holds_its_window(big):
    """``storage.open_input`` (the WARC and ARC readers' stream): 8 MiB read-ahead."""
    url, _, size = big
    got = []

    def stream() -> None:
        with storage.open_input(url) as fh:
            got.append(sum(len(c) for c in iter(lambda: fh.read(1 << 16), b"")))

    assert _peak_growth(stream) < BOUND
    assert got == [size]


def test_a_mapped_remote_sequencefile_is_read_in_bounded_memory(big, tmp_path, monkeypatch):
    """``storage.mapped`` of a remote object (the SequenceFile, MapFile, Nutch and Common
    Crawl 2012 decoders): downloaded in pieces to a scratch file, whose mapped pages the
    framer hands back behind it; the scratch file is gone when the block ends."""
    url, _, _ = big
    monkeypatch.setenv("CRAWLMILL_WORK_DIR", str(tmp_path))
    seen = []

    def walk() -> None:
        with storage.mapped(url) as data:
            assert os.listdir(tmp_path) == []  # unlinked once open: nothing to clean up
            keys = [e.key for e in iter_entries(data) if isinstance(e, Entry)]
            seen.append((len(keys), keys[0], keys[-1]))

    assert _peak_growth(walk) < BOUND
    first, last = b"http://example.com/%08d" % 0, b"http://example.com/%08d" % (RECORDS - 1)
    assert seen == [(RECORDS, bytes([len(first)]) + first, bytes([len(last)]) + last)]
    assert os.listdir(tmp_path) == []


def test_the_nutch_order_check_of_a_remote_part_is_bounded(big):
    """A Nutch segment part's order check walks the keys of the whole mapped file."""
    url, _, _ = big
    result = []
    assert _peak_growth(lambda: result.append(keys_sorted(url))) < BOUND
    assert result == [True]
