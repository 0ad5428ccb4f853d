"""Every reader family reads its input through the storage layer (core/storage.py): one small
input of each, uploaded to moto's S3 server (bound to 127.0.0.1, as s3fs tests itself),
converts to the same output bytes as the same file on a local path; a Nutch crawl folder on
S3 is discovered and converted as a collection like the local folder; a damaged object's
error names its URL and the byte offset.

Issue 22: "One storage layer for every path ... behind the context readers and writers
already use, so no plugin opens a path itself."
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main

from tests.conftest import need
from tests.ranged_http import send_range_head

#: one worker runs this module's tests: one S3 server serves them all.
pytestmark = pytest.mark.xdist_group("storage-s3")

BUCKET = "readers-in"

#: (test id, sample path below ../shared/samples, reader forced or None: detected).
SINGLE = [
    (
        "arc",
        "commoncrawl-arc2warc-conversion/test/resources/arc/"
        "crawl-002_2010_02_16_114_1266352769711_14-7060652.arc.gz",
        None,
    ),
    ("sequencefile", "hadoop-oracle-generated/text_text_RECORD_DefaultCodec.seq", None),
    # one part of a CrawlDB given alone (the crawl folder below reads LinkDB and segments)
    (
        "nutch-crawldb-part",
        "apache-nutch/testcrawl/crawldb/current/part-00000/data",
        "nutch-crawldb",
    ),
    ("cc-metadata", "cc2012-synthetic/text-gzip/metadata-00000", None),
]


@pytest.fixture(scope="module")
def s3():
    """An S3 server (moto) on 127.0.0.1 and an s3fs filesystem on it; the environment names
    its endpoint and credentials the usual way (``AWS_*``)."""
    need("moto.server")
    s3fs = need("s3fs")
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    port = server._server.server_address[1]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
        mp.setenv("AWS_ACCESS_KEY_ID", "testing")
        mp.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
        mp.setenv("SOURCE_DATE_EPOCH", "1700000000")  # the writer's warcinfo date: fixed
        for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3"):
            mp.delenv(name, raising=False)
        s3fs.S3FileSystem.clear_instance_cache()
        fs = s3fs.S3FileSystem()
        if fs.exists(BUCKET):  # moto keeps its buckets per process, not per server: another
            fs.rm(BUCKET, recursive=True)  # module's use of this fixture left them
        fs.mkdir(BUCKET)
        yield fs
        s3fs.S3FileSystem.clear_instance_cache()
    server.stop()


def _files(root: Path) -> dict[str, bytes]:
    """Every output file below ``root`` (not the bookkeeping in ``.crawlmill/``)."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".crawlmill"]
        for name in filenames:
            full = os.path.join(dirpath, name)
            found[os.path.relpath(full, root)] = Path(full).read_bytes()
    return found


def _convert(src: str, out: Path, reader: str | None) -> int:
    argv = ["convert", src, "-o", str(out), "--workers", "1"]
    return main([*argv, "--from", reader] if reader else argv)


@pytest.mark.parametrize(("name", "rel", "reader"), SINGLE, ids=[s[0] for s in SINGLE])
def test_one_input_of_each_reader_family_converts_from_s3_as_from_a_local_path(
    s3, samples, tmp_path, name, rel, reader
):
    sample = samples / rel
    local = tmp_path / "local" / sample.name
    local.parent.mkdir()
    shutil.copyfile(sample, local)
    assert _convert(str(local), tmp_path / "out-local", reader) == 0
    s3.pipe(f"{BUCKET}/{name}/{sample.name}", sample.read_bytes())
    url = f"s3://{BUCKET}/{name}/{sample.name}"
    assert _convert(url, tmp_path / "out-s3", reader) == 0
    expected = _files(tmp_path / "out-local")
    assert expected and all(expected.values())  # something was written
    assert _files(tmp_path / "out-s3") == expected


def test_a_damaged_object_names_its_url_and_byte_offset(s3, samples, tmp_path):
    data = bytearray((samples / "hadoop-oracle-generated/text_text_NONE_sync2000.seq").read_bytes())
    data[5000:5040] = b"\xff" * 40  # a sync marker and records overwritten
    s3.pipe(f"{BUCKET}/damaged/bad.seq", bytes(data))
    url = f"s3://{BUCKET}/damaged/bad.seq"
    local = tmp_path / "bad.seq"
    local.write_bytes(bytes(data))
    damages = {}
    for where, src in (("local", str(local)), ("s3", url)):
        out = tmp_path / where
        assert _convert(src, out, None) == 3  # damage: quarantined, exit 3
        report = json.loads((out / ".crawlmill" / "report.json").read_text())
        damages[where] = report["damages"]
        quarantined = (out / ".crawlmill" / "quarantine" / "bad.seq.bin").read_bytes()
        assert quarantined and quarantined in bytes(data)
    (damage,) = damages["s3"]
    assert damage["path"] == url  # the URL, not a scratch copy
    assert 5000 <= damage["offset"] < 5040 + 2000 and damage["reason"]
    assert damages["s3"] == [dict(d, path=url) for d in damages["local"]]  # same offset


def _nutch_crawl(root: Path, samples: Path) -> None:
    """A Nutch crawl folder: crawldb/, linkdb/ and two segments (MapFiles, .crc files)."""
    shutil.copytree(samples / "apache-nutch" / "testcrawl", root / "testcrawl")


def _clueweb09(root: Path, samples: Path) -> None:
    """A ClueWeb09 root: four segments, md5 lists, record counts."""
    from tests.plugins.test_clueweb09_reader import build_collection

    build_collection(root)


def _cc2012(root: Path, samples: Path) -> None:
    """Two Common Crawl 2012 segments (metadata-NNNNN, textData-NNNNN; two variants)."""
    for variant in ("text-gzip", "textbytes-snappy"):
        shutil.copytree(samples / "cc2012-synthetic" / variant, root / "segments" / variant)


def _mapfile(root: Path, samples: Path) -> None:
    """A Hadoop MapFile folder (``data`` + ``index``, written by Hadoop)."""
    shutil.copytree(samples / "hadoop-oracle-generated" / "mapfile_block_deflate", root / "m")


def _nutch_legacy(root: Path, samples: Path) -> None:
    """A Nutch 0.7 segment (ArrayFiles: fetchlist, fetcher, content, parse_text, parse_data)."""
    legacy = Path(__file__).parents[2] / "fixtures" / "nutch-legacy" / "20050301120000"
    shutil.copytree(legacy, root / "segments" / legacy.name)


def _ntcir(root: Path, samples: Path) -> None:
    """An NTCIR WEB tree: two sites of two pages (raw, euc, cooked) and the lists."""
    from tests.plugins.ntcir_tree import build_tree

    build_tree(root / "NW100G", sites=2, per=2)


#: (test id, builder of the local tree, outputs it writes, collection checks that pass).
COLLECTIONS = [
    ("nutch-crawl", _nutch_crawl, 4, 0),  # the CrawlDB, the LinkDB, two segments
    ("clueweb09", _clueweb09, 6, 12),  # six files, each with its md5 and record count
    ("cc2012", _cc2012, 2, 0),  # one partition of each segment
    ("mapfile", _mapfile, 1, 1),  # the index checked against the data
    ("nutch-legacy", _nutch_legacy, 1, 0),
    ("ntcir", _ntcir, 2, 2),  # two sites (the lists unit writes none); lists, doclist checks
]


@pytest.mark.parametrize(("name", "build", "outputs", "checks"), COLLECTIONS,
                         ids=[c[0] for c in COLLECTIONS])  # fmt: skip
def test_a_collection_below_a_prefix_converts_as_the_local_folder(
    s3, samples, tmp_path, name, build, outputs, checks
):
    """Below a prefix, collections are discovered as in a local folder: each MapFile's
    ``index`` + ``data`` one input, ``.crc`` side files skipped, the lists checked."""
    local = tmp_path / "local"
    local.mkdir()
    build(local, samples)
    for path in sorted(local.rglob("*")):
        if path.is_file():
            s3.pipe(f"{BUCKET}/{name}/{path.relative_to(local).as_posix()}", path.read_bytes())
    assert _convert(str(local), tmp_path / "out-local", None) == 0
    assert _convert(f"s3://{BUCKET}/{name}/", tmp_path / "out-s3", None) == 0
    expected = _files(tmp_path / "out-local")
    assert len(expected) == outputs  # one output per unit: the collection was discovered
    assert _files(tmp_path / "out-s3") == expected
    local_report, s3_report = (
        json.loads((tmp_path / where / ".crawlmill" / "report.json").read_text())
        for where in ("out-local", "out-s3")
    )
    for key in ("inputs", "read", "written", "checks_passed", "warnings", "not_converted"):
        assert s3_report[key] == local_report[key], key
    assert local_report["checks_failed"] == s3_report["checks_failed"] == []
    assert s3_report["checks_passed"] == checks  # the md5 and count lists read on S3


class _Counting(BaseHTTPRequestHandler):
    """Serves one file (``server.data``), honouring ``Range: bytes=a-b`` (RFC 9110), and
    notes the span of every body it sends (``server.sent``)."""

    def log_message(self, *args) -> None:  # quiet
        pass

    def _serve(self, body: bool) -> None:
        data = self.server.data  # type: ignore[attr-defined]
        start, end = send_range_head(self, len(data))
        if body:
            self.server.sent.append((start, end))  # type: ignore[attr-defined]
            self.wfile.write(data[start:end])

    def do_GET(self) -> None:
        self._serve(True)

    def do_HEAD(self) -> None:
        self._serve(False)


def test_a_remote_sequencefile_is_fetched_once(samples, tmp_path, monkeypatch):
    """The SequenceFile decoder searches sync markers across the whole file: a remote one is
    streamed once into scratch space, not fetched range by range or twice."""
    need("aiohttp")  # fsspec's HTTP filesystem
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # the writer's warcinfo date
    data = (samples / "hadoop-oracle-generated/text_text_NONE_big.seq").read_bytes()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    server.daemon_threads = True
    server.data, server.sent = data, []  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/big.seq"
        local = tmp_path / "big.seq"
        local.write_bytes(data)
        assert _convert(str(local), tmp_path / "out-local", None) == 0
        assert _convert(url, tmp_path / "out-http", None) == 0
        assert _files(tmp_path / "out-http") == _files(tmp_path / "out-local")
        # the object once, in one stream; besides it only detection's bounded looks at its
        # start (64 KiB at most each): no ranged fetch per record, no second fetch
        sent = server.sent  # type: ignore[attr-defined]
        assert sent.count((0, len(data))) == 1
        assert all(end - start <= 64 << 10 for start, end in sent if (start, end) != (0, len(data)))
    finally:
        server.shutdown()
