"""The fault harness's damaged inputs read through the storage layer (core/storage.py) as
``file://`` URLs, over a local HTTP server (plain ``http://``: the existing fixture has no
TLS) and from moto's S3 server: each delivers what the same damaged file on a local path
delivers, and its problems name the URL (a ``file://`` URL: its path), never a scratch copy.

The developers' guide: "Bad input gets a clear error naming file, byte offset and reason;
readers resync and deliver the good records around damage; every run ends with exact
accounting." Remote reads take other code paths than a local file (ranged and streamed reads,
a scratch copy mapped for SequenceFiles, a shadow tree for folders), so resync after damage,
seeking back and reading past a truncated end are compared, not assumed.

Two levels, both in-process, against a local-path run made in the same process:

* **reading** (``open_reader``, the ``RecordIterator`` a run's task reads through): every
  record (all its fields, as the quarantine stores one), every damage (offset, length, code,
  reason, its bytes), warning, check and reader counter, or the exception;
* **converting** (the CLI's ``main``): exit code, the whole report (accounting, damages with
  path and offset, warnings, checks), every output file and the quarantine's bytes and index.

The cases are the harness's CI cases (tests/faults/test_faults.py, test_seq_faults.py,
test_db_faults.py: 486 without the bombs, which inflate 256 MiB and are the memory bound's
tests), damaged by the harness's own seeded patterns, each built once per session
(:mod:`.storage_sweep`). **Sampled**, to keep CI's cost to a few seconds of CPU: the whole
sweep (every case, 3 transports, both levels: ``CRAWLMILL_STORAGE_FAULTS=all``) costs
minutes. In CI: reading over ``file://`` and HTTP, :data:`READ_PER_INPUT` cases of every
input file; reading from S3, :data:`S3_READS_PER_FORMAT` cases per reader family (an S3 read
costs several times an HTTP one: moto's server runs in this process); converting, one case
per reader family on each transport (folders, i.e. MapFiles and the Nutch databases, on
``file://`` and S3 only: HTTP has no folders). Each draw is seeded by the input's id or
family (:func:`.storage_sweep.sample`), so the sample is the same on every run.

Besides the sweep: a SequenceFile of a header alone over HTTP (the sweep found its writer read
the header with ``open()``: no output at all for a URL, exit 0); ``ctx.open()`` over a
truncated and a corrupt gzip member, as tests/faults/test_input_stream_faults.py reads them;
an NTCIR WEB tree (no harness damages it) with a damaged page, on S3.
"""

from __future__ import annotations

import gzip
import logging
import os
import random
from pathlib import Path

import pytest
from crawlmill.core.plugin import InputFile, Limits
from crawlmill.core.reading import RecordIterator
from crawlmill.core.registry import Registry
from crawlmill.formats.hadoop.sequencefile import read_header

from tests.core import test_storage_http, test_storage_readers

from . import test_db_faults, test_input_stream_faults, test_seq_faults
from .cases import enumerate_cases
from .seq_inputs import SEQ_INPUTS
from .storage_sweep import DamagedSet, Input, inputs_of, read_summary, run_summary, sample

#: one worker runs this module: one HTTP server, one S3 server, one damaged set.
pytestmark = pytest.mark.xdist_group("storage-faults")

#: moto's S3 server on 127.0.0.1 and an s3fs filesystem on it (tests/core's fixture).
s3 = test_storage_readers.s3
#: a local HTTP server over a folder, honouring ``Range`` (tests/core's fixture).
http = test_storage_http.http
BUCKET = test_storage_readers.BUCKET

FULL = os.environ.get("CRAWLMILL_STORAGE_FAULTS") == "all"
#: cases per input file read over ``file://`` and HTTP in CI.
READ_PER_INPUT = 2
#: cases per format (reader family) read from S3 in CI.
S3_READS_PER_FORMAT = 2

ALL = inputs_of(enumerate_cases(), test_seq_faults.CASES, test_db_faults.CASES)
FILES = [i for i in ALL if not i.folder]


def _read_cases() -> list:
    if FULL:
        return [(t, i) for t in ("file", "http", "s3") for i in FILES]
    cheap = sample(FILES, READ_PER_INPUT, "read")
    on_s3 = sample(FILES, S3_READS_PER_FORMAT, "read-s3", by=lambda i: i.fmt)
    return [("file", i) for i in cheap] + [("http", i) for i in cheap] + [("s3", i) for i in on_s3]


def _run_cases() -> list:
    if FULL:
        return [(t, i) for t in ("file", "http", "s3") for i in ALL if t != "http" or not i.folder]
    by_fmt: dict[str, list[Input]] = {}
    for inp in ALL:
        by_fmt.setdefault(inp.fmt, []).append(inp)
    out = []
    for fmt, group in sorted(by_fmt.items()):
        for transport in ("file", "http", "s3"):
            choices = [i for i in group if transport != "http" or not i.folder]
            if choices:
                out.append((transport, random.Random(f"run/{transport}/{fmt}").choice(choices)))
    return out


READS = _read_cases()
RUNS = _run_cases()


@pytest.fixture(scope="session")
def damaged(tmp_path_factory) -> DamagedSet:
    """The harnesses' damaged inputs, each built once per session on first use."""
    return DamagedSet(tmp_path_factory.mktemp("storage-faults"))


@pytest.fixture(scope="module", autouse=True)
def _quiet_moto():
    """No log record per request of moto's server (werkzeug, captured by pytest)."""
    logger = logging.getLogger("werkzeug")
    level = logger.level
    logger.setLevel(logging.WARNING)
    yield
    logger.setLevel(level)


@pytest.fixture(scope="module")
def registry() -> Registry:
    """The installed plugins, loaded once (``open_reader`` would load them per call)."""
    return Registry.load()


@pytest.fixture(scope="module")
def local_reads() -> dict[str, dict]:
    """What reading each damaged local file delivered (computed once per case)."""
    return {}


@pytest.fixture(scope="module")
def local_runs() -> dict[str, dict]:
    """What converting each damaged local input delivered (computed once per case)."""
    return {}


def _source(request, damaged: DamagedSet, transport: str, inp: Input) -> tuple[str, str]:
    """``(what crawlmill is given, the name its problems must give)`` for ``inp``."""
    path = damaged.path(inp)
    if transport == "file":
        return path.as_uri(), str(path)  # a file:// URL is that local path in every respect
    rel = path.relative_to(damaged.folder).as_posix()
    if transport == "http":
        server = request.getfixturevalue("http")
        served = Path(server.folder) / "faults"
        if not served.exists():
            served.symlink_to(damaged.folder, target_is_directory=True)
        url = f"{server.base}/faults/{rel}"
        return url, url
    fs = request.getfixturevalue("s3")
    key = f"{BUCKET}/faults/{rel}"
    if not fs.exists(key):
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for f in files:
            fs.pipe(f"{BUCKET}/faults/{f.relative_to(damaged.folder).as_posix()}", f.read_bytes())
    url = f"s3://{key}"
    return (url + "/" if inp.folder else url), url


def _differences(local: dict, remote: dict) -> list[str]:
    return [
        f"{key}: local {local.get(key)!r}\n{' ' * len(key)}  remote {remote.get(key)!r}"
        for key in sorted(set(local) | set(remote))
        if local.get(key) != remote.get(key)
    ]


@pytest.mark.parametrize(("transport", "inp"), READS, ids=[f"{t}-{i.id}" for t, i in READS])
def test_reading_a_damaged_file_through_storage_delivers_what_the_local_file_does(
    request, damaged, registry, local_reads, transport, inp
):
    """Records, damages (offset, length, code, reason, bytes), warnings, checks and counters
    equal the local file's; every problem names the URL."""
    path = str(damaged.path(inp))
    if inp.id not in local_reads:
        local_reads[inp.id] = read_summary(path, path, inp.reader, registry)
    local = local_reads[inp.id]
    assert "path-mismatch" not in local, local["path-mismatch"]
    src, named = _source(request, damaged, transport, inp)
    remote = read_summary(src, named, inp.reader, registry)
    assert not _differences(local, remote), "\n".join([src, *_differences(local, remote)])


@pytest.mark.parametrize(("transport", "inp"), RUNS, ids=[f"{t}-{i.id}" for t, i in RUNS])
def test_converting_a_damaged_input_through_storage_reports_what_the_local_run_does(
    request, damaged, local_runs, tmp_path, monkeypatch, transport, inp
):
    """Exit code, report (accounting, damages with path and offset, warnings, checks),
    outputs and quarantine equal the local run's; every damage names the URL."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # the writers' dates: fixed
    path = damaged.path(inp)
    argv = ["convert", "", "--to", inp.writer] + (["--from", inp.reader] if inp.reader else [])
    if inp.id not in local_runs:
        argv[1] = str(path)
        local_runs[inp.id] = run_summary(argv, tmp_path / "local", str(path), str(path))
    local = local_runs[inp.id]
    assert local["exit"] in (0, 3) and "path-mismatch" not in local, local
    argv[1], named = _source(request, damaged, transport, inp)
    remote = run_summary(argv, tmp_path / transport, named, str(path))
    assert not _differences(local, remote), "\n".join([argv[1], *_differences(local, remote)])


def test_a_sequencefile_header_alone_over_http_converts_to_that_header(
    request, tmp_path, monkeypatch
):
    """A SequenceFile cut right after its header (no entries) converts to a SequenceFile with
    that header, as Hadoop writes an empty file (plugins/writers/sequencefile.py), also when
    it is read over HTTP: the writer reads the header through the storage layer (it used
    ``open()``, so the URL gave no output at all, with exit 0)."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    (tmp_path / "intact").mkdir()
    intact = next(k for k in SEQ_INPUTS if k.id == "seq/none").make(tmp_path / "intact")
    data = intact.read_bytes()
    header = data[: read_header(data).length]
    server = request.getfixturevalue("http")
    name = "header-only.seq"
    path = Path(server.folder) / name
    path.write_bytes(header)
    argv = ["convert", "", "--to", "sequencefile"]
    argv[1] = str(path)
    local = run_summary(argv, tmp_path / "local", str(path), str(path))
    (written,) = [f for f in local["files"] if not f.startswith(".crawlmill")]
    assert local["exit"] == 0 and local["report"]["read"] == 0
    assert (tmp_path / "local" / written).read_bytes() == header  # the header, nothing after
    argv[1] = url = f"{server.base}/{name}"
    assert run_summary(argv, tmp_path / "http", url, str(path)) == local


#: the how-to's reader (docs/adding-a-reader.md: one URL per line of a ``.urls.gz``, read
#: through ``ctx.open()``), as tests/faults/test_input_stream_faults.py loads it.
reader_class = test_input_stream_faults.reader_class


def _urls_gz(damage: str) -> bytes:
    """Three gzip members of URL lines (RFC 1952): the last cut in half (``truncated``), or
    the middle one's CRC-32 wrong (``corrupt``)."""
    parts = [b"".join(f"https://{t}.example/page/{i}\n".encode() for i in range(60)) for t in "abc"]
    members = [gzip.compress(p, mtime=0) for p in parts]
    if damage == "truncated":
        members[2] = members[2][: len(members[2]) // 2]
    else:
        bad = bytearray(members[1])
        bad[-8] ^= 0x01
        members[1] = bytes(bad)
    return b"".join(members)


@pytest.mark.parametrize("transport", ["http", "s3"])
@pytest.mark.parametrize("damage", ["truncated", "corrupt"])
def test_ctx_open_under_damage_reads_a_url_as_a_local_file(
    request, reader_class, tmp_path, transport, damage
):
    """``ctx.open()`` (core/input_stream.py) over a damaged ``.urls.gz`` at a URL: the same
    records at the same stream offsets, the same damage (offset, length, code, reason, bytes)
    naming the URL, as the local file gives."""
    data = _urls_gz(damage)
    name = f"{damage}.urls.gz"
    (local := tmp_path / name).write_bytes(data)
    if transport == "http":
        server = request.getfixturevalue("http")
        (Path(server.folder) / name).write_bytes(data)
        url = f"{server.base}/{name}"
    else:
        request.getfixturevalue("s3").pipe(f"{BUCKET}/ctx-open/{name}", data)
        url = f"s3://{BUCKET}/ctx-open/{name}"

    def read(src: str) -> tuple[list, list]:
        cls = reader_class
        it = RecordIterator(cls(cls.Options()), cls.name, InputFile(src, name), limits=Limits())
        with it:
            records = [(r.payload, r.source.offset, r.source.length, r.source.space,
                        r.source.path == src) for r in it]  # fmt: skip
        damages = [(d.path == src, d.offset, d.length, d.code, d.reason, d.data)
                   for d in it.damages]  # fmt: skip
        return records, damages

    expected = read(str(local))
    assert len(expected[1]) == 1 and len(expected[0]) >= 120  # one damage, records around it
    assert read(url) == expected


def test_a_damaged_ntcir_tree_on_s3_converts_as_the_local_tree(
    request, samples, tmp_path, monkeypatch
):
    """An NTCIR WEB tree (tests/plugins/ntcir_tree.py; no harness damages one) below an S3
    prefix, with a ``.meta`` whose byte 10 is flipped (a field lost, an other line, the
    doclist check failing) and a page's ``.data`` missing (its pair check failing): the same
    report (accounting, warnings by code, failed checks naming the objects), outputs and
    exit code as the local tree."""
    from tests.plugins.ntcir_tree import build_tree

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    root = tmp_path / "NW100G"
    build_tree(root, sites=2, per=2)
    meta = root / "raw/00/0000/000001/0001.meta"
    data = bytearray(meta.read_bytes())
    data[10] ^= 0xFF
    meta.write_bytes(bytes(data))
    (root / "raw/00/0000/000002/0002.data").unlink()
    fs = request.getfixturevalue("s3")
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        fs.pipe(f"{BUCKET}/ntcir/NW100G/{path.relative_to(root).as_posix()}", path.read_bytes())
    local = run_summary(["convert", str(root)], tmp_path / "local", str(root), str(root))
    failed = {c["check"] for c in local["report"]["checks_failed"]}
    assert local["exit"] == 3 and {"doclist", "page pair"} <= failed  # the damage is seen
    url = f"s3://{BUCKET}/ntcir/NW100G"
    remote = run_summary(["convert", url + "/"], tmp_path / "s3", url, str(root))
    assert not _differences(local, remote), "\n".join([url, *_differences(local, remote)])
