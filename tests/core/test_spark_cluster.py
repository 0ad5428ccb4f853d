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
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from crawlmill.core.cli import main

from tests.conftest import SAMPLES, need, need_command
from tests.core.conftest import FAKE_DIR
from tests.core.spark_cluster import StandaloneCluster
from tests.core.spark_compare import assert_alike, bookkeeping_of, files_of
from tests.helpers import warc_record

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("spark-cluster")]

HERE = Path(__file__).resolve().parent
#: real third-party files (the truncated one is damage: quarantined, exit 3).
SAMPLE_INPUTS = [
    "real-world-2026-11/N0taN3rd-node-warc/test__files__parseMe.warc.gz",
    "real-world-2026-11/datatogether-warc/testdata__warcio__example-trunc.warc",
    "webrecorder-warcio/test/data/example.arc.gz",
]
#: the executors' memory: small, within the workers' 640m.
CONF = "{spark.ui.enabled: false, spark.executor.memory: 512m}"

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


def _inputs(folder: Path) -> Path:
    """The samples, one of them twice, and three constructed WARCs whose URLs overlap."""
    folder.mkdir(parents=True)
    for rel in SAMPLE_INPUTS:
        src = SAMPLES / rel
        assert src.is_file(), f"sample {rel} missing"
        shutil.copy(src, folder / src.name)
    first = SAMPLES / SAMPLE_INPUTS[0]
    shutil.copy(first, folder / f"copy-{first.name}")
    for name, numbers in (("a", range(0, 12)), ("b", range(6, 18)), ("c", range(15, 24))):
        (folder / f"{name}.warc").write_bytes(b"".join(warc_record(i) for i in numbers))
    return folder


def _pipeline(root: Path, name: str, inputs: Path, master: str) -> Path:
    path = root / f"{name}.yaml"
    path.write_text(
        f"inputs: {inputs}\n"
        + PIPELINES[name]
        + textwrap.dedent(
            f"""\
            output: ${{OUT}}
            run:
              executor: spark
              progress: never
              spark: {{master: "{master}", conf: {CONF}}}
            """
        )
    )
    return path


@pytest.fixture(scope="module")
def cluster_runs(tmp_path_factory):
    """Start the cluster, run the scenarios in one driver process, stop the cluster; return
    ``(root, results)``."""
    need("pyspark")
    need_command("java")
    root = tmp_path_factory.mktemp("spark-cluster")
    inputs = _inputs(root / "in")
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
        script = root / "scenarios.json"
        script.write_text(json.dumps(scenarios))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
        env.update(SOURCE_DATE_EPOCH="1700000000", PYSPARK_PYTHON=sys.executable)
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
    """The same pipeline with the local executor (one worker, in this process)."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.syspath_prepend(str(FAKE_DIR))
    out = root / "local-out" / name
    monkeypatch.setenv("OUT", str(out))
    code = main(["run", str(root / f"{name}.yaml"), "--executor", "local", "--workers", "1"])
    return code, files_of(out), bookkeeping_of(out), capsys.readouterr().err


def _alike(root: Path, name: str, results: dict, monkeypatch, capsys) -> dict:
    code, files, books, err = _local(root, name, monkeypatch, capsys)
    ran = results[name]
    assert ran["code"] == code == 3, (ran["err"], err)  # the truncated sample's damage
    out = root / "cluster-out" / name
    seen = {"spark": (files_of(out), bookkeeping_of(out)), "local": (files, books)}
    assert_alike(seen)
    return books["report"]


def test_a_conversion_on_a_standalone_cluster_is_the_local_executors(
    cluster_runs, monkeypatch, capsys
):
    """Outputs (bytes), quarantine, report and markers as with the local executor."""
    root, results = cluster_runs
    report = _alike(root, "convert", results, monkeypatch, capsys)
    assert report["inputs_done"] == 7 and report["written"] > 30


def test_url_dedup_on_a_standalone_cluster_is_the_local_executors(
    cluster_runs, monkeypatch, capsys
):
    """The collect pass, its reduce and the final pass on the cluster: the same tables,
    outputs and counts."""
    root, results = cluster_runs
    report = _alike(root, "dedup", results, monkeypatch, capsys)
    assert report["dropped"]["url-dedup"]["duplicate"] > 6 + 3


def test_a_worker_killed_mid_run_changes_nothing(cluster_runs, monkeypatch, capsys):
    """``kill -9`` of a worker's JVM while both workers run tasks: Spark reruns the lost
    tasks on the other worker; outputs, report and markers are the local executor's."""
    root, results = cluster_runs
    assert results["killed"]["killed"], results["killed"]["err"]
    report = _alike(root, "killed", results, monkeypatch, capsys)
    assert report["failures"] == [] and report["inputs_done"] == 7
