"""The ``nutch-crawldb`` and ``nutch-linkdb`` writers through the shuffle of a split reduce:
one reduce task per ``part-r-NNNNN`` (Hadoop's ``HashPartitioner`` of the URL), each getting
only its part's rows, none in the driver; the same bytes the reduce in the driver wrote
(pinned: several WARCs with URLs captured twice, and a real segment, every compression),
through the process pool and on Spark; a commit killed half way resumes; two partitions
asking for one output path fail the run."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.mapfile import hash_partition, sort_key
from crawlmill.formats.hadoop.sequencefile import iter_entries, read_header
from crawlmill.formats.hadoop.vint import encode_vlong
from crawlmill.plugins.writers.nutch_db import NutchCrawlDbWriter, NutchLinkDbWriter

from tests import helpers
from tests.conftest import SAMPLES
from tests.core.conftest import SPARK_MASTER, spark_sc  # noqa: F401 (the fixture)
from tests.plugins.test_nutch_writer import WARCS
from tests.plugins.test_nutch_writer_db import SEGMENT

TEXT = "org.apache.hadoop.io.Text"
WRITERS = {"crawldb": NutchCrawlDbWriter, "linkdb": NutchLinkDbWriter}
#: sha256 (first 32 hex digits) of each file the code before the split wrote (the driver
#: reduce, with the outlink extraction of formats/hadoop/nutch_write_links.py that took the
#: decoded body and Nutch's link elements), sync hashes zeroed: ``{run: {relpath: digest}}``.
#: The WARC runs re-pinned when a page whose robots meta says nofollow stopped giving outlinks
#: (parse-html's HTMLMetaProcessor): with that rule off the files are the old pins' bytes.
PINS = {
    "crawldb-block": {
        "current/part-r-00000/data": "e4d0ddfa09275ac21118d7b45e2552e7",
        "current/part-r-00000/index": "070c7a5fe26deaf110320cc49514fcd5",
        "current/part-r-00001/data": "144ed29e4dd50fdc904cc528b0260454",
        "current/part-r-00001/index": "26dc09cd104a0df3b9ccdcd33d648fa9",
        "current/part-r-00002/data": "8177d2a83f42b0143fe504f3ff66468f",
        "current/part-r-00002/index": "2c8d36a6c86f9d0b06647da6f19d01ba",
    },
    "crawldb-none": {
        "current/part-r-00000/data": "d5a5beb3d5d0ea2835e8ed521613312b",
        "current/part-r-00000/index": "db7df1b0f0ead4524a196b163d702884",
        "current/part-r-00001/data": "edd3599a2dd1c011bae29b6b5203acf5",
        "current/part-r-00001/index": "fa95cc5ee0bc87ec6aa053c2bd2eb297",
        "current/part-r-00002/data": "d71eff8270687b6db4b21177bde02149",
        "current/part-r-00002/index": "3e58f00300ac5c57cd64a1cd5c200fc1",
    },
    "linkdb-block": {
        "current/part-r-00000/data": "dc8570a44ffc40a2ef8b7d55478e9cd3",
        "current/part-r-00000/index": "5090d9ac8380300a976c98ad0f91b131",
        "current/part-r-00001/data": "8b00cceab6cd9dc707b894c2e6ce3ed5",
        "current/part-r-00001/index": "82b56a24f062ba40e4522e6893f833ad",
        "current/part-r-00002/data": "d98672ede2b6261e3328ec478e6edeb7",
        "current/part-r-00002/index": "ca3a176b272516670499cc4c9bd52f64",
    },
    "linkdb-none": {
        "current/part-r-00000/data": "87f495903875cf10afb74754a7f39f1c",
        "current/part-r-00000/index": "4137cce4b78d0ed202f4764526fc3101",
        "current/part-r-00001/data": "285fd24f802a8d080a974c4787e0a421",
        "current/part-r-00001/index": "951a33300eb22482d6edeb0e7e2b37eb",
        "current/part-r-00002/data": "392be9bd35d73707293851d0338692e2",
        "current/part-r-00002/index": "e30e24666a58ccf3186d5c5ef800e6fa",
    },
    "seg-crawldb": {
        "current/part-r-00000/data": "676ddc86f06e9c320c41666e82574017",
        "current/part-r-00000/index": "61dc729dfd219eaa8959ddc697f95877",
        "current/part-r-00001/data": "3ada4c1582e8b63fc202517f5808a7c4",
        "current/part-r-00001/index": "c22351a21d8aaf3c42b3f49e733a9796",
    },
    "seg-linkdb": {
        "current/part-r-00000/data": "1e79e8b9f3752824d247a1d08a1334db",
        "current/part-r-00000/index": "45d2b3b257741a7f1a0300a15caac296",
        "current/part-r-00001/data": "cabff5de4f7047d6bb1c762c013f673c",
        "current/part-r-00001/index": "eb04ee94a328207b6dddd36fdaad6647",
    },
}


def warc_folder(tmp_path: Path) -> Path:
    """Four real WARCs and a copy of one (each of its URLs captured twice)."""
    folder = tmp_path / "in"
    folder.mkdir()
    for i in (0, 1, 2, 4):
        shutil.copy(SAMPLES / WARCS[i], folder / Path(WARCS[i]).name)
    shutil.copy(SAMPLES / WARCS[1], folder / f"copy-{Path(WARCS[1]).name}")
    return folder


#: the pins are of uncompressed parts and the LinkDB's of the Inlink layout of Nutch 1.20 (the
#: defaults are since RECORD compression and the newest release's layout;
#: tests/plugins/test_nutch_linkdb_versions.py checks both layouts).
PINNED_VERSION = {"linkdb": ("nutch_version=1.20",), "crawldb": ()}


def convert(src: Path, out: Path, kind: str, *options: str, partitions: int = 3) -> int:
    if not any(o.startswith("compression=") for o in options):
        options = (*options, "compression=none")
    options = (*options, *PINNED_VERSION[kind])
    return helpers.convert(
        src, f"nutch-{kind}", out, "--filter", "kind", "keep=response,resource",
        option=[f"partitions={partitions}", *options], workers=1,
    ).exit_code  # fmt: skip


def normalized(blob: bytes) -> bytes:
    """A SequenceFile's bytes with its random sync hash zeroed (header and markers)."""
    sync = read_header(blob).sync
    assert sync and blob.count(sync) >= 1
    return blob.replace(sync, bytes(16))


def digests(out: Path) -> dict[str, str]:
    return {
        f.relative_to(out).as_posix(): hashlib.sha256(normalized(f.read_bytes())).hexdigest()[:32]
        for f in sorted((out / "current").rglob("*"))
        if f.is_file()
    }


def done_marker(out: Path) -> dict:
    (marker,) = (out / ".crawlmill" / "passes").glob("*/done.json")
    return json.loads(marker.read_text())


@pytest.mark.parametrize("compression", ["none", "block"])
@pytest.mark.parametrize("kind", ["crawldb", "linkdb"])
def test_warcs_give_the_bytes_the_driver_reduce_wrote(tmp_path, kind, compression):
    src = warc_folder(tmp_path)
    assert convert(src, tmp_path / "db", kind, f"compression={compression}") == 0
    assert digests(tmp_path / "db") == PINS[f"{kind}-{compression}"]


@pytest.mark.parametrize("kind", ["crawldb", "linkdb"])
def test_a_segment_gives_the_bytes_the_driver_reduce_wrote(tmp_path, kind):
    out = tmp_path / "db"
    assert main(["convert", str(SAMPLES / SEGMENT), "--to", f"nutch-{kind}", "-o", str(out),
                 "--option", "partitions=2", "--workers", "1", "--progress", "never",
                 "--option", "compression=none",
                 *(a for o in PINNED_VERSION[kind] for a in ("--option", o))]) == 3  # fmt: skip
    assert digests(out) == PINS[f"seg-{kind}"]


def spy_reduce(monkeypatch, cls: type) -> list[tuple[int, int, list[bytes]]]:
    """Record ``(ctx.partition, ctx.partitions, keys of its rows)`` of every reduce call."""
    calls: list[tuple[int, int, list[bytes]]] = []
    real = cls.__dict__["reduce"].__func__

    def reduce(klass, rows, options, ctx):
        keys = rows.column(0).to_pylist()  # the URL keys (text before the split: bytes here)
        keys = [k.encode() if isinstance(k, str) else k for k in keys]
        calls.append((ctx.partition, ctx.partitions, keys))
        return real(klass, rows, options, ctx)

    monkeypatch.setattr(cls, "reduce", classmethod(reduce))
    return calls


@pytest.mark.parametrize("kind", ["crawldb", "linkdb"])
def test_each_reduce_task_gets_only_the_keys_of_its_part(tmp_path, monkeypatch, kind):
    calls = spy_reduce(monkeypatch, WRITERS[kind].__mro__[1])
    src = warc_folder(tmp_path)
    assert convert(src, tmp_path / "db", kind, partitions=4) == 0
    assert sorted(c[:2] for c in calls) == [(p, 4) for p in range(4)]
    seen: set[bytes] = set()
    for part, _, keys in calls:
        assert keys and {hash_partition(TEXT, encode_vlong(len(k)) + k, 4) for k in keys} == {part}
        assert not seen & set(keys)
        seen |= set(keys)
        # the part holds the keys its task got, sorted in Hadoop's raw order
        blob = (tmp_path / "db" / "current" / f"part-r-{part:05d}" / "data").read_bytes()
        written = [e.key for e in iter_entries(blob, read_header(blob))]
        assert written == sorted({encode_vlong(len(k)) + k for k in keys},
                                 key=lambda k: sort_key(TEXT, k))  # fmt: skip
    # the pass marker: four partition tables, each partition's rows exactly its keys' rows
    marker = done_marker(tmp_path / "db")
    assert len(marker["tables"]) == 4
    assert marker["rows_in_parts"] == [len(keys) for _, _, keys in sorted(calls)]
    assert {rel for rel, _ in marker["outputs"]} == {
        f"current/part-r-{p:05d}/{name}" for p in range(4) for name in ("data", "index")
    }


def test_non_ascii_keys_are_sorted_as_hadoop_compares_text(tmp_path):
    """Keys sorted as unsigned UTF-8 bytes (Hadoop's Text comparator), not as UTF-16."""
    urls = ["http://a/\U0001f600", "http://a/\uffee", "http://a/z", "http://a/\u00e9",
            "http://a/", "http://a/\u4e2d"]  # fmt: skip
    body = "".join(f'<a href="{u}">x</a>' for u in urls).encode()
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
    block = head + body
    record = (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://src/\r\n"
              b"WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
              b"Content-Type: application/http; msgtype=response\r\n"
              b"Content-Length: %d\r\n\r\n" % len(block) + block + b"\r\n\r\n")  # fmt: skip
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.warc").write_bytes(record)
    assert convert(tmp_path / "in", tmp_path / "db", "linkdb", partitions=1) == 0
    blob = (tmp_path / "db" / "current" / "part-r-00000" / "data").read_bytes()
    keys = [e.key for e in iter_entries(blob, read_header(blob))]
    assert len(keys) == len(urls) and keys == sorted(keys, key=lambda k: sort_key(TEXT, k))
    assert keys[-1].endswith("\U0001f600".encode())  # 4-byte UTF-8 after U+FFEE


def test_a_commit_killed_half_way_is_resumed(tmp_path, monkeypatch):
    """The driver commits the partitions' files; a run that dies after moving some redoes
    only the partitions whose files are gone, and ends with the same bytes."""
    src = warc_folder(tmp_path)
    real = os.replace
    moved: list[str] = []

    def replace(a, b, *args, **kwargs):
        if str(a).endswith(".out"):
            if len(moved) == 3:
                raise OSError("killed in the commit")
            moved.append(str(b))
        return real(a, b, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    assert convert(src, tmp_path / "db", "crawldb") == 1
    monkeypatch.setattr(os, "replace", real)
    assert len(moved) == 3
    calls = spy_reduce(monkeypatch, NutchCrawlDbWriter.__mro__[1])
    assert convert(src, tmp_path / "db", "crawldb") == 0
    # parts 0 (data, index) and 1 (data) were moved: those two partitions are redone, 2 kept
    assert sorted(c[:2] for c in calls) == [(0, 3), (1, 3)]
    assert digests(tmp_path / "db") == PINS["crawldb-none"]


def test_two_partitions_writing_one_file_fail_the_run(tmp_path, monkeypatch):
    cls = NutchLinkDbWriter.__mro__[1]
    real = cls.__dict__["reduce"].__func__

    def reduce(klass, rows, options, ctx):  # every partition names its part 0
        return real(klass, rows, options, dataclasses.replace(ctx, partition=0))

    monkeypatch.setattr(cls, "reduce", classmethod(reduce))
    src = warc_folder(tmp_path)
    assert convert(src, tmp_path / "db", "linkdb") == 1
    assert not (tmp_path / "db" / "current").exists()
    report = json.loads((tmp_path / "db" / ".crawlmill" / "report.json").read_text())
    assert "both wrote 'current/part-r-00000/data'" in json.dumps(report["failures"])


@pytest.mark.usefixtures("spark_sc")
@pytest.mark.parametrize("kind", ["crawldb", "linkdb"])
def test_on_spark_each_part_is_a_spark_task_with_the_same_bytes(tmp_path, monkeypatch, kind):
    """The same conversion on the Spark executor (``local[2]``): collect, split, the reduce
    tasks and the final pass all run as Spark jobs, and the parts are the pinned bytes."""
    from crawlmill.core.run import spark_executor

    jobs: list[int] = []
    real = spark_executor.SparkExecutor.jobs

    def spy(self, batch):
        jobs.append(len(batch))
        return real(self, batch)

    monkeypatch.setattr(spark_executor.SparkExecutor, "jobs", spy)
    calls = spy_reduce(monkeypatch, WRITERS[kind].__mro__[1])  # not called in this process
    src = warc_folder(tmp_path)
    pipeline = tmp_path / "pipeline.yaml"
    pipeline.write_text(
        textwrap.dedent(
            f"""\
            inputs: [{src}]
            filters: [{{name: kind, keep: [response, resource]}}]
            writer: {{name: nutch-{kind}, partitions: 3, compression: none{", nutch_version: '1.20'" if kind == "linkdb" else ""}}}
            output: {tmp_path / "db"}
            run:
              executor: spark
              progress: never
              spark: {{master: "{SPARK_MASTER}", conf: {{spark.ui.enabled: false}}}}
            """
        )
    )
    assert main(["run", str(pipeline)]) == 0
    assert len(jobs) >= 4 and not calls  # collect, split, reduce (3 parts), final
    assert digests(tmp_path / "db") == PINS[f"{kind}-none"]
    assert len(done_marker(tmp_path / "db")["tables"]) == 3


def synthetic_warc(path: Path, first: int, n: int) -> None:
    """``n`` HTML responses (URLs ``first``...), each linking to three URLs no page is."""
    with open(path, "wb") as fh:
        for i in range(first, first + n):
            links = "".join(f'<a href="http://t{i}-{k}.example/">{k}</a>' for k in range(3))
            block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + links.encode()
            head = (
                "WARC/1.0\r\nWARC-Type: response\r\n"
                f"WARC-Target-URI: http://h{i % 97}.example/page/{i}\r\n"
                "WARC-Date: 2020-01-01T00:00:00Z\r\n"
                f"WARC-Record-ID: <urn:uuid:{i:08d}-0000-0000-0000-000000000000>\r\n"
                "Content-Type: application/http; msgtype=response\r\n"
                f"Content-Length: {len(block)}\r\n\r\n"
            )
            fh.write(head.encode() + block + b"\r\n\r\n")


#: the CLI in a subprocess with tracemalloc on in the driver; prints the exit code and peak.
TRACED = """
import json, sys, tracemalloc
tracemalloc.start()
from crawlmill.core.commands.cli import main
code = main(sys.argv[1:])
print(json.dumps([code, tracemalloc.get_traced_memory()[1]]))
"""


@pytest.mark.slow
def test_the_driver_holds_no_database(tmp_path):
    """The driver's Python memory peak (tracemalloc) does not grow with the URLs: 13x the
    pages (4800 more entries) add less than 2 MB (measured: a few KB); the reduce in the
    driver added about 650 bytes per entry (3.1 MB here, so a driver holding the database
    still fails this). The inputs are no larger than that bound needs."""
    import subprocess
    import sys

    peaks = []
    for n in (50, 650):
        folder = tmp_path / f"in{n}"
        folder.mkdir()
        for j in range(2):
            synthetic_warc(folder / f"{j}.warc", j * n, n)
        out = tmp_path / f"db{n}"
        argv = ["convert", str(folder), "--to", "nutch-crawldb", "-o", str(out), "--workers", "2",
                "--option", "partitions=4", "--progress", "never"]  # fmt: skip
        proc = subprocess.run([sys.executable, "-c", TRACED, *argv], capture_output=True,
                              text=True, timeout=600)  # fmt: skip
        code, peak = json.loads(proc.stdout.strip().splitlines()[-1])
        assert code == 0, proc.stderr
        blobs = [(p / "data").read_bytes() for p in (out / "current").glob("part-r-*")]
        entries = sum(1 for b in blobs for _ in iter_entries(b, read_header(b)))
        assert entries == 8 * n  # each page and its three targets
        peaks.append(peak)
    assert peaks[1] - peaks[0] < 2_000_000, peaks
