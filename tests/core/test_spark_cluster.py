"""The spark executor on a Spark standalone cluster (issue 22 item 2, without the storage
layer): a master and two workers started from the pyspark package on 127.0.0.1, each worker
with its own working and temporary folders (tests/core/spark_cluster.py). Outputs are on a path
driver and workers both see (this machine's disk) until the storage layer lands.

One cluster and one driver process for the module (``cluster_runs``): the driver runs every
scenario in turn in its own process (tests/core/spark_cluster_driver.py), because Spark allows
one SparkContext per process and this test process may hold the session's ``local[2]`` one
(``spark_sc``, in the ``spark`` xdist group). Stopping that shared context instead would cost
its restart for every later Spark test of the worker (and break a test running on it); a
subprocess costs one more JVM and nothing else. The module's tests are one xdist group, so the
cluster starts once. pyspark and Java are oracles: missing, the tests skip (fail under
``CRAWLMILL_REQUIRE_ORACLES=1``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main

from tests.conftest import need, need_command
from tests.core.conftest import FAKE_DIR
from tests.core.spark_cluster import StandaloneCluster
from tests.core.spark_compare import (
    assert_alike,
    bookkeeping_of,
    build_inputs,
    files_of,
    spark_pipeline,
)

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("spark-cluster")]

HERE = Path(__file__).resolve().parent
#: real third-party files (the truncated one is damage: quarantined, exit 3).
SAMPLE_INPUTS = [
    "real-world-2026-11/N0taN3rd-node-warc/test__files__parseMe.warc.gz",
    "real-world-2026-11/datatogether-warc/testdata__warcio__example-trunc.warc",
    "webrecorder-warcio/test/data/example.arc.gz",
]
#: the executors' memory: small, within the workers' 640m; JVMs that compile less (the jobs
#: are small: start-up is their cost).
JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
CONF = (
    f"{{spark.ui.enabled: false, spark.executor.memory: 512m, "
    f'spark.driver.extraJavaOptions: "{JVM}", spark.executor.extraJavaOptions: "{JVM}"}}'
)

PIPELINES = {
    "convert": "writer: {name: warc, gzip_backend: zlib}\n",
    "dedup": "filters: [{name: url-dedup, rule: latest}]\nwriter: {name: warc, gzip_backend: zlib}\n",
    # every record waits 0.1 s: tasks run long enough for a worker to be killed under them
    "killed": textwrap.dedent(
        """\
        plugins: [cm_fake]
        filters: [{name: fake-sleep, delay: 0.1}]
        writer: {name: warc, gzip_backend: zlib}
        """
    ),
}


def _pipeline(root: Path, name: str, inputs: Path, master: str, as_name: str = "") -> Path:
    path = root / f"{as_name or name}.yaml"
    path.write_text(spark_pipeline(inputs, PIPELINES[name], master, conf=CONF))
    return path


@pytest.fixture(scope="module")
def cluster_runs(tmp_path_factory):
    """Start the cluster, run the scenarios in one driver process, stop the cluster; return
    ``(root, results)``."""
    need("pyspark")
    need_command("java")
    root = tmp_path_factory.mktemp("spark-cluster")
    inputs = build_inputs(root / "in", SAMPLE_INPUTS)
    cluster = StandaloneCluster(root / "cluster")
    try:
        cluster.start()
        scenarios = []
        for name in PIPELINES:
            pipeline = _pipeline(root, name, inputs, cluster.master_url)
            scenarios.append(
                {
                    "name": name,
                    "argv": ["run", str(pipeline)],
                    "env": {"OUT": str(root / "cluster-out" / name)},
                    "kill": cluster.worker_pid(1) if name == "killed" else None,
                }
            )
        scenarios[-1]["stop"] = True  # the next scenario's context is another
        scenarios[-1]["argv"] += ["--progress", "always"]  # the live progress line
        # a Python without crawlmill (no site-packages; Spark puts pyspark on its path), on
        # local[1]: a worker's Python fails alike under any master, and local[1] starts no
        # executor JVM and tries the task once
        bare = root / "python-without-crawlmill"
        bare.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
        bare.chmod(0o755)
        scenarios.append(
            {
                "name": "bare",
                "argv": ["run", str(_pipeline(root, "convert", inputs, "local[1]", "bare"))],
                "env": {"OUT": str(root / "cluster-out" / "bare"), "PYSPARK_PYTHON": str(bare)},
            }
        )
        script = root / "scenarios.json"
        script.write_text(json.dumps(scenarios))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
        env.update(SOURCE_DATE_EPOCH="1700000000")  # no PYSPARK_PYTHON: crawlmill's default
        env["PYTHONPATH"] = os.pathsep.join([str(FAKE_DIR), env.get("PYTHONPATH", "")])
        proc = subprocess.run(
            [sys.executable, str(HERE / "spark_cluster_driver.py"), str(script)],
            capture_output=True, text=True, timeout=900, check=False, env=env, cwd=root,
        )  # fmt: skip
    finally:
        cluster.stop()
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    results["_stderr"] = proc.stderr
    return root, results


def _local(root: Path, name: str, monkeypatch, capsys) -> tuple:
    """The same pipeline with the local executor (one worker, in this process; the progress
    line drawn, as in the cluster's ``killed`` run)."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.syspath_prepend(str(FAKE_DIR))
    out = root / "local-out" / name
    monkeypatch.setenv("OUT", str(out))
    flags = ["--executor", "local", "--workers", "1", "--progress", "always"]
    code = main(["run", str(root / f"{name}.yaml"), *flags])
    return code, files_of(out), bookkeeping_of(out), capsys.readouterr().err


def _alike(root: Path, name: str, results: dict, monkeypatch, capsys) -> dict:
    code, files, books, err = _local(root, name, monkeypatch, capsys)
    ran = results[name]
    assert ran["code"] == code == 3, (ran["err"], err)  # the truncated sample's damage
    out = root / "cluster-out" / name
    seen = {"spark": (files_of(out), bookkeeping_of(out)), "local": (files, books)}
    assert_alike(seen)
    return books["report"], err


def test_a_conversion_on_a_standalone_cluster_is_the_local_executors(
    cluster_runs, monkeypatch, capsys
):
    """Outputs (bytes), quarantine, report and markers as with the local executor."""
    root, results = cluster_runs
    report, _ = _alike(root, "convert", results, monkeypatch, capsys)
    assert report["inputs_done"] == 7 and report["written"] > 30


def test_url_dedup_on_a_standalone_cluster_is_the_local_executors(
    cluster_runs, monkeypatch, capsys
):
    """The collect pass, its reduce and the final pass on the cluster: the same tables,
    outputs and counts."""
    root, results = cluster_runs
    report, _ = _alike(root, "dedup", results, monkeypatch, capsys)
    assert report["dropped"]["url-dedup"]["duplicate"] > 6 + 3


def test_a_worker_killed_mid_run_changes_nothing(cluster_runs, monkeypatch, capsys):
    """``kill -9`` of a worker's JVM while both workers run tasks: Spark reruns the lost
    tasks on the other worker; outputs, report and markers are the local executor's."""
    root, results = cluster_runs
    ran = results["killed"]
    assert ran["killed"], ran["err"]
    report, local_err = _alike(root, "killed", results, monkeypatch, capsys)
    assert report["failures"] == [] and report["inputs_done"] == 7
    # the progress line's last count is the local run's: the lost attempts' live progress
    # was taken back when their tasks' retries ended
    assert _last_status(ran["err"]) == _last_status(local_err)
    # one line of ours says so, on a line of its own (not glued to the progress line)
    lost = [x for x in re.split(r"[\r\n]", ran["err"]) if "Spark lost its executor" in x]
    assert len(lost) == 1, ran["err"][-3000:]
    assert re.search(r"^(\x1b\[K)?crawlmill: Spark lost its executor at 127\.0\.0\.1:\d+ ", lost[0])


def test_progress_shows_records_while_the_tasks_run(cluster_runs):
    """The progress line counts records before any input is done (live, through the status
    channel; Spark gives a task's result only when it ends); the last line counts them all."""
    root, results = cluster_runs
    err = results["killed"]["err"]
    lines = [x.replace("\x1b[K", "") for x in re.split(r"[\r\n]", err)]
    early = [x for x in lines if re.match(r"crawlmill: 0/7 inputs, [1-9][\d,]* records", x)]
    assert early, err[-3000:]
    assert _last_status(err).startswith("crawlmill: 7/7 inputs, ")


def _last_status(err: str) -> str:
    """The final progress line's inputs and records (``crawlmill: 7/7 inputs, 98 records``)."""
    lines = [x.replace("\x1b[K", "") for x in re.split(r"[\r\n]", err)]
    (last,) = [x for x in lines if x.startswith("crawlmill: ") and "done in" in x]
    return last.split(" records")[0]


def test_sparks_own_log_stays_off_the_terminal(cluster_runs):
    """No log4j lines of the driver's Spark (start-up warnings, a lost executor, failed task
    attempts: WARN/ERROR lines) on the driver's terminal; no console progress bar."""
    _, results = cluster_runs
    noise = [
        x
        for x in results["_stderr"].splitlines()
        if re.search(r" (WARN|ERROR) \w+: ", x) and "NativeCodeLoader" not in x
    ]
    assert not noise, noise[:5]
    assert "[Stage " not in results["_stderr"]
    assert "Setting default log level" not in results["_stderr"]


def test_without_pyspark_python_the_workers_run_the_drivers_python_with_a_note(cluster_runs):
    """PYSPARK_PYTHON unset (Spark's default, ``python3`` on each worker, has no crawlmill):
    crawlmill sets the driver's interpreter and says so, once."""
    _, results = cluster_runs
    notes = [x for x in results["convert"]["err"].splitlines() if "PYSPARK_PYTHON" in x]
    assert len(notes) == 1 and sys.executable in notes[0], notes
    assert notes[0].startswith("crawlmill: note: PYSPARK_PYTHON is not set")


def test_a_worker_python_without_crawlmill_stops_the_run_with_one_line(cluster_runs):
    """The workers' Python cannot import crawlmill: exit 2 before any input, one line with
    the worker's ``ModuleNotFoundError`` (from the Python worker's traceback), not Spark's
    truncated text; no output written."""
    root, results = cluster_runs
    ran = results["bare"]
    assert ran["code"] == 2, ran["err"]
    (line,) = [x for x in ran["err"].splitlines() if "cannot import crawlmill" in x]
    assert "python-without-crawlmill, PYSPARK_PYTHON) cannot import crawlmill: " in line, line
    assert "ModuleNotFoundError: No module named 'crawlmill'" in line, line
    assert "Traceback" not in ran["err"]
    out = root / "cluster-out" / "bare"
    assert not list(out.rglob("*.warc.gz"))
