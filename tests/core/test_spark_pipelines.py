"""Issue 8's must-show on Spark: one pipeline file gives the same output records, the same
report counts and the same markers with the local executor at 1 and 2 workers and with Spark
``local[2]``, for ``url-dedup`` over several inputs with duplicate URLs and for the sorted
WARC writer (hash and range partitions). The plain conversion is
tests/core/test_spark_executor.py's.

Each case runs the same pipeline file three times through the CLI (the file says spark;
``--executor local --workers N`` overrides it) on the session's SparkContext (``spark_sc``),
and compares every file the runs left (outputs, quarantine, the passes' Arrow tables: bytes),
report.json and the completion and pass-task markers (without timings).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import crawlmill
import pytest
from crawlmill.core.commands.cli import main
from crawlmill.plugins.writers.warc_sorted import sort_key

from tests.core.conftest import SPARK_MASTER
from tests.core.spark_compare import assert_alike as _assert_alike
from tests.core.spark_compare import bookkeeping_of as _bookkeeping
from tests.core.spark_compare import build_inputs, spark_pipeline
from tests.core.spark_compare import files_of as _files
from tests.helpers import warc_record

#: real third-party files; the first is copied twice (every URL of it duplicated), the
#: truncated one is damage (quarantined, exit 3).
SAMPLE_INPUTS = [
    "real-world-2026-11/N0taN3rd-node-warc/test__files__parseMe.warc.gz",
    "real-world-2026-11/chfoo-warcat/example__at.warc.gz",
    "real-world-2026-11/datatogether-warc/testdata__warcio__example-trunc.warc",
    "webrecorder-warcio/test/data/example.arc.gz",
]

EXECUTORS = {
    "spark": [],
    "local1": ["--executor", "local", "--workers", "1"],
    "local2": ["--executor", "local", "--workers", "2"],
}


def _run_everywhere(
    tmp_path, monkeypatch, capsys, body: str, code: int, run: str = "", jobs: int = 2
):
    """Run the pipeline ``body`` (YAML without inputs/output/run; ``run``: more settings of
    ``run``, one YAML line each) with each executor; return
    ``{executor: (files, bookkeeping, stderr)}`` after checking the exit codes and that the
    spark run's passes all ran as Spark jobs (and the local runs' through none)."""
    from crawlmill.core.run import spark_executor

    calls: list[int] = []
    real = spark_executor.SparkExecutor.jobs

    def spy(self, jobs):
        calls.append(len(jobs))
        return real(self, jobs)

    monkeypatch.setattr(spark_executor.SparkExecutor, "jobs", spy)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # the warcinfo's conversion date
    inputs = build_inputs(tmp_path / "in", SAMPLE_INPUTS)
    pipeline = tmp_path / "pipeline.yaml"
    pipeline.write_text(spark_pipeline(inputs, body, SPARK_MASTER, run=run))
    seen = {}
    for name, flags in EXECUTORS.items():
        out = tmp_path / name
        monkeypatch.setenv("OUT", str(out))
        result = main(["run", str(pipeline), *flags])
        err = capsys.readouterr().err
        assert result == code, f"{name}: {err}"
        assert (len(calls) >= jobs) if name == "spark" else not calls, (name, calls)
        calls.clear()
        seen[name] = (_files(out), _bookkeeping(out), err)
    return seen


def _summary(err: str) -> str:
    (line,) = [x for x in err.splitlines() if x.startswith("read ")]
    return line


def _keys(path: Path) -> list[bytes]:
    with crawlmill.open_reader(str(path), "warc") as records:
        return [sort_key(r) for r in records]


@pytest.mark.parametrize("split", [False, True], ids=["driver-reduce", "split-reduce"])
def test_url_dedup_over_inputs_with_duplicate_urls_is_alike_on_local_and_spark(
    spark_sc, tmp_path, monkeypatch, capsys, split
):
    """``split``: with ``reduce_memory`` below the rows' size, the reduce runs in partitions
    on the executors (Spark's, for the spark run), never in the driver."""
    seen = _run_everywhere(
        tmp_path,
        monkeypatch,
        capsys,
        """\
        filters: [{name: url-dedup, rule: latest}]
        writer: {name: warc, gzip_backend: zlib}
        """,
        code=3,  # the truncated sample
        run="reduce_memory: 4096\n" if split else "",
        jobs=4 if split else 2,  # collect, split, reduce, final
    )
    _assert_alike(seen)
    tables = [
        len(data["tables"])
        for rel, data in seen["spark"][1].items()
        if rel.endswith("/done.json") and rel.startswith("passes/")
    ]
    assert (tables[0] > 1) if split else tables == [1], tables
    files, books, err = seen["spark"]
    report = books["report"]
    line = _summary(err)
    assert all(_summary(e) == line for _, _, e in seen.values())
    # the overlapping constructed URLs (6 + 3) and the copied sample's captures are duplicates
    assert report["dropped"]["url-dedup"]["duplicate"] > 6 + 3, line
    assert any(rel.startswith(".crawlmill/quarantine/") for rel in files)
    assert any(rel.endswith(".arrow") and "/table" in rel for rel in files)  # compared


@pytest.mark.parametrize("partitioning", ["hash", "range"])
def test_the_sorted_warc_writer_is_alike_on_local_and_spark(
    spark_sc, tmp_path, monkeypatch, capsys, partitioning
):
    """Sorted (with url-dedup before it for range: a pass, then the shuffle): the same
    partition files, each in key order (range: the partitions in order are one sorted
    collection), the same counts."""
    dedup = "[url-dedup]" if partitioning == "range" else "[]"
    seen = _run_everywhere(
        tmp_path,
        monkeypatch,
        capsys,
        f"""\
        filters: {dedup}
        writer:
          name: warc
          gzip_backend: zlib
          sorted: {{partitions: 3, partitioning: {partitioning}}}
        """,
        code=3,
    )
    _assert_alike(seen)
    files, books, err = seen["spark"]
    parts = sorted(rel for rel in files if rel.startswith("part-"))
    assert parts == [f"part-{i:05d}.warc.gz" for i in range(3)]
    line = _summary(err)
    assert all(_summary(e) == line for _, _, e in seen.values())
    everything: list[bytes] = []
    for rel in parts:
        keys = _keys(tmp_path / "spark" / rel)
        assert keys, rel
        assert keys == sorted(keys), rel
        everything += keys
    if partitioning == "range":
        assert everything == sorted(everything)
    assert len(everything) == books["report"]["written"]  # every record in one partition
    # Spark's shuffle carried the records: no run file was written, the map markers say so
    maps = [data for rel, data in books.items() if "/map/" in rel]
    assert len(maps) == len(list((tmp_path / "in").iterdir()))
    assert all(data["notes"]["runs"] is None for data in maps)


def test_a_spark_shuffle_killed_before_every_partition_resumes(
    spark_sc, tmp_path, monkeypatch, capsys
):
    """What a Spark run killed in its partition pass leaves (some partitions committed, no
    shuffle files: they were the Spark application's) resumes on Spark by reading every input
    again and writing only the partitions without a marker, and on the local executor
    likewise (the map markers list no run files, so the map pass runs again); both end with
    the uninterrupted run's files. A finished run is not redone."""
    seen = _run_everywhere(
        tmp_path,
        monkeypatch,
        capsys,
        """\
        filters: []
        writer: {name: warc, gzip_backend: zlib, sorted: {partitions: 3}}
        """,
        code=3,
    )
    clean = seen["spark"][0]
    out = tmp_path / "spark"
    done = out / ".crawlmill" / "done"
    for executor in ("spark", "local"):
        for i in (1, 2):  # killed before these partitions committed
            (marker,) = done.glob(f"shuffle-*-p{i:05d}.json")
            marker.unlink()
            (out / f"part-{i:05d}.warc.gz").unlink()
        before = (out / "part-00000.warc.gz").stat().st_mtime_ns
        monkeypatch.setenv("OUT", str(out))
        assert main(["run", str(tmp_path / "pipeline.yaml"), "--executor", executor]) == 3
        err = capsys.readouterr().err
        assert "already complete" not in err
        assert _files(out) == clean, executor
        assert (out / "part-00000.warc.gz").stat().st_mtime_ns == before  # not rewritten
        assert len(list(done.glob("shuffle-*.json"))) == 3
    assert main(["run", str(tmp_path / "pipeline.yaml")]) == 3
    assert "already complete" in capsys.readouterr().err


def test_spark_range_partitions_are_the_local_merges_key_ranges():
    """The Spark shuffle's range partition of a key is the partition whose ``[lo, hi)``
    (algorithms/sorted_runs/merge.py ``key_range``, what a local partition task reads) holds it; hash
    keeps the map task's partition. No Spark needed."""
    from crawlmill.algorithms.sorted_runs.merge import key_range
    from crawlmill.core.run.spark_shuffle import _keyed

    bounds = [b"b", b"d", b"d", b"f\xff"]
    for key in [b"", b"a", b"b", b"c", b"d", b"d\x00", b"e", b"f\xff", b"\xff"]:
        (part, k, i, s), blob = _keyed(bounds, (0, key, 7, 9, b"x"))
        lo, hi = key_range(bounds, part)
        assert (lo is None or lo <= key) and (hi is None or key < hi), (key, part)
        assert (k, i, s, blob) == (key, 7, 9, b"x")
    assert _keyed(None, (2, b"zz", 1, 0, b"y")) == ((2, b"zz", 1, 0), b"y")


def test_a_failed_spark_partition_fails_the_run_and_a_rerun_writes_only_it(
    spark_sc, tmp_path, monkeypatch, capsys
):
    """A partition task that fails on Spark (a foreign file where its output goes) fails the
    run (exit 1, nothing counted as written), the others commit; once the file is moved
    away the rerun writes that partition only, as the local executor would have. ``on_error:
    fail`` with damage in the map pass writes no partition."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    data = tmp_path / "in"
    data.mkdir()
    for name, numbers in (("a", range(0, 12)), ("b", range(6, 18))):
        (data / f"{name}.warc").write_bytes(b"".join(warc_record(i) for i in numbers))
    pipeline = tmp_path / "pipeline.yaml"
    pipeline.write_text(
        textwrap.dedent(
            f"""\
            inputs: {data}
            writer: {{name: warc, gzip_backend: zlib, sorted: {{partitions: 3}}}}
            output: ${{OUT}}
            run:
              executor: spark
              progress: never
              spark: {{master: "{SPARK_MASTER}"}}
            """
        )
    )
    out = tmp_path / "out"
    out.mkdir()
    (out / "part-00001.warc.gz").write_bytes(b"not crawlmill's")
    monkeypatch.setenv("OUT", str(out))
    assert main(["run", str(pipeline)]) == 1
    err = capsys.readouterr().err
    assert "1 of 3 shuffle partition task(s) did not complete" in err, err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["written"] == 0 and report["inputs_done"] == 0
    assert len(list((out / ".crawlmill" / "done").glob("shuffle-*"))) == 2
    before = (out / "part-00000.warc.gz").stat().st_mtime_ns
    (out / "part-00001.warc.gz").unlink()
    assert main(["run", str(pipeline)]) == 0, capsys.readouterr().err
    assert (out / "part-00000.warc.gz").stat().st_mtime_ns == before
    monkeypatch.setenv("OUT", str(tmp_path / "local"))
    assert main(["run", str(pipeline), "--executor", "local", "--workers", "1"]) == 0
    assert _files(out) == _files(tmp_path / "local")

    (data / "c.warc").write_bytes(warc_record(30) + b"JUNK\r\n\r\n" + warc_record(31))
    monkeypatch.setenv("OUT", str(tmp_path / "failing"))
    assert main(["run", str(pipeline), "--on-error", "fail"]) != 0
    err = capsys.readouterr().err
    assert "no partition was written" in err, err
    assert not list((tmp_path / "failing").glob("part-*"))


def test_chuweb21d_dedup_is_alike_on_local_and_spark(spark_sc, tmp_path, monkeypatch, capsys):
    """docs/examples/chuweb21d.yaml's steps (kind, http-status, simhash-dedup with the
    statistics of four thresholds, the chuweb21 layout): the same clusters (the cluster
    table, byte for byte), statistics, plots and collection with Spark ``local[2]`` and the
    local executor at 1 and 2 workers."""
    import pyarrow.parquet as pq

    seen = _run_everywhere(
        tmp_path,
        monkeypatch,
        capsys,
        """\
        filters:
          - {name: kind, keep: [response]}
          - {name: http-status, keep: ["200-299"]}
          - {name: simhash-dedup, tau: 3, thresholds: [0, 1, 2, 3]}
        writer: {name: warc, gzip_backend: zlib, layout: chuweb21}
        """,
        code=3,  # the truncated sample
    )
    _assert_alike(seen)
    files, books, err = seen["spark"]
    for rel in ("clusters.parquet", "simhash-stats.csv", "md5_checksum.txt"):
        assert rel in files, rel
    table = pq.read_table(tmp_path / "spark" / "clusters.parquet")
    dropped = books["report"]["dropped"]["simhash-dedup"]["near-duplicate"]
    assert dropped == table.num_rows - sum(table["kept"].to_pylist()) > 0
    assert all(_summary(e) == _summary(err) for _, _, e in seen.values())


def test_text_output_after_simhash_dedup_is_alike_on_local_and_spark(
    spark_sc, tmp_path, monkeypatch, capsys
):
    """Issue 23 ("runs on Spark, works after simhash-dedup"): the deduplicated collection to
    Pyserini JSONL in one pipeline gives the same JSONL files, cluster table, report and
    markers on Spark as on the local executor at 1 and 2 workers."""
    seen = _run_everywhere(
        tmp_path,
        monkeypatch,
        capsys,
        """\
        filters: [{name: simhash-dedup, tau: 3, hash: text, clusters: clusters.parquet}]
        writer: {name: pyserini, extractor: lxml}
        """,
        code=3,  # the truncated sample
    )
    _assert_alike(seen)
    files, books, err = seen["spark"]
    lines = [
        json.loads(line)
        for rel, data in files.items()
        if rel.endswith(".jsonl") and not rel.startswith(".crawlmill/")
        for line in data.decode().splitlines()
    ]
    assert lines and all(set(doc) >= {"id", "contents"} for doc in lines)
    assert len({doc["id"] for doc in lines}) == len(lines)
    assert "clusters.parquet" in files
    report = books["report"]
    assert report["dropped"]["simhash-dedup"], _summary(err)  # the copied sample's pages
