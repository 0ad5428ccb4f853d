"""The spark executor on a Spark standalone cluster that shares no disk with the driver (issue
22 item 2): a master and two workers started from the pyspark package on 127.0.0.1, each worker
with its own working and temporary folders (tests/core/spark_cluster.py) and, where this machine
allows mount namespaces, an empty tmpfs over the driver's folder (its stages, its work folders),
so a task that reached for the driver's disk would find nothing. Inputs and outputs are on an S3
server (moto's server mode bound to 127.0.0.1, as s3fs and fsspec test themselves); every
output object is compared byte for byte with the local executor's run of the same pipeline
from the same inputs to the same store.

Issue 22: "A Spark standalone cluster ... converts, url-dedups, simhash-dedups and writes a
Nutch CrawlDB from inputs on a local S3-compatible server ... to outputs on it; every output
byte-identical to the local executor's; a worker killed mid-run changes nothing."

One cluster, one S3 server and one driver process for the module (``cluster_runs``): the
driver runs every scenario in turn in its own process (tests/core/spark_cluster_driver.py),
because Spark allows one SparkContext per process and this test process may hold the
session's ``local[2]`` one (``spark_sc``, in the ``spark`` xdist group). The module's tests are
one xdist group, so the cluster starts once. pyspark, Java, moto and s3fs are oracles:
missing, the tests skip (fail under ``CRAWLMILL_REQUIRE_ORACLES=1``).
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

from tests.conftest import SAMPLES, need, need_command
from tests.core.conftest import FAKE_DIR, JVM_OPTIONS
from tests.core.spark_cluster import StandaloneCluster, can_hide
from tests.core.spark_compare import assert_alike, bookkeeping_of, files_of
from tests.helpers import warc_record

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("spark-cluster")]

HERE = Path(__file__).resolve().parent
#: real third-party WARC files (the truncated one is damage: quarantined, exit 3).
SAMPLE_INPUTS = [
    "real-world-2026-11/N0taN3rd-node-warc/test__files__parseMe.warc.gz",
    "real-world-2026-11/datatogether-warc/testdata__warcio__example-trunc.warc",
]
#: the executors' memory: small, within the workers' 640m; JVMs that compile less and verify
#: no jar's bytecode (the jobs are small: start-up is their cost).
JVM = JVM_OPTIONS
CONF = (
    f"{{spark.ui.enabled: false, spark.executor.memory: 512m, "
    f'spark.driver.extraJavaOptions: "{JVM}", spark.executor.extraJavaOptions: "{JVM}"}}'
)
INPUTS = "s3://cluster-in/crawl/"
STORE = "s3://cluster-out"
WARC = "writer: {name: warc, gzip_backend: zlib}\n"

PIPELINES = {
    "convert": WARC,
    "dedup": "filters: [{name: url-dedup, rule: latest}]\n" + WARC,
    "simhash": "filters: [{name: simhash-dedup, tau: 3}]\n" + WARC,
    "crawldb": "writer: {name: nutch-crawldb}\n",
    # a task's first record waits 0.3 s (its progress count is posted), the later ones at the
    # gate (a file outside the driver's folder) until the killer opens it: both workers run a
    # task when one of them is killed (tests/core/spark_cluster_driver.py)
    "killed": 'plugins: [cm_fake]\nfilters: [{name: fake-sleep, delay: 0.3, gate: "{gate}"}]\n'
    + WARC,
}
#: the inputs: the samples, one of them twice, and three constructed WARCs whose URLs overlap.
INPUT_COUNT = len(SAMPLE_INPUTS) + 1 + 3


def _inputs(fs) -> None:
    """Upload the inputs to ``INPUTS``."""
    for rel in SAMPLE_INPUTS:
        src = SAMPLES / rel
        assert src.is_file(), f"sample {rel} missing"
        fs.pipe(f"{INPUTS[5:]}{src.name}", src.read_bytes())
    first = SAMPLES / SAMPLE_INPUTS[0]
    fs.pipe(f"{INPUTS[5:]}copy-{first.name}", first.read_bytes())
    for name, numbers in (("a", range(0, 12)), ("b", range(6, 18)), ("c", range(15, 24))):
        fs.pipe(f"{INPUTS[5:]}{name}.warc", b"".join(warc_record(i) for i in numbers))


def _pipeline(root: Path, name: str, master: str, as_name: str = "") -> Path:
    path = root / f"{as_name or name}.yaml"
    path.write_text(
        f"inputs: {INPUTS}\n"
        + PIPELINES[name].replace("{gate}", str(_gate(root)))
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


def _gate(root: Path) -> Path:
    """The ``killed`` run's gate: in a folder the workers see (not the driver's)."""
    return root / "gate" / "open"


@pytest.fixture(scope="module")
def s3_store():
    """moto's S3 server on 127.0.0.1 with the inputs uploaded; its endpoint and credentials in
    the environment the usual way (``AWS_*``), which the driver and the workers inherit (as
    a cluster's nodes would have theirs); yields an s3fs filesystem on it."""
    need("moto.server")
    s3fs = need("s3fs")
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    port = server._server.server_address[1]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
        mp.setenv("AWS_ACCESS_KEY_ID", "testing")
        mp.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
        for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3"):
            mp.delenv(name, raising=False)
        s3fs.S3FileSystem.clear_instance_cache()
        fs = s3fs.S3FileSystem()
        fs.mkdir("cluster-in")
        fs.mkdir("cluster-out")
        _inputs(fs)
        yield fs
        s3fs.S3FileSystem.clear_instance_cache()
    server.stop()


@pytest.fixture(scope="module")
def cluster_runs(tmp_path_factory, s3_store):
    """Start the cluster (the driver's folder hidden from its workers), run the scenarios in
    one driver process, stop the cluster; return ``(root, results)``."""
    need("pyspark")
    need_command("java")
    root = tmp_path_factory.mktemp("spark-cluster")
    driver = root / "driver"  # the driver's cwd and work folders (its stages)
    driver.mkdir()
    _gate(root).parent.mkdir()
    hidden = can_hide(driver)
    cluster = StandaloneCluster(root / "cluster", hide=(driver,) if hidden else ())
    try:
        cluster.start()
        scenarios = []
        for name in PIPELINES:
            pipeline = _pipeline(root, name, cluster.master_url)
            scenarios.append(
                {
                    "name": name,
                    "argv": ["run", str(pipeline), "--work-dir", str(driver / f"work-{name}")],
                    "env": {"OUT": f"{STORE}/spark/{name}"},
                    "kill": cluster.worker_pid(1) if name == "killed" else None,
                    "gate": str(_gate(root)) if name == "killed" else None,
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
                "argv": ["run", str(_pipeline(root, "convert", "local[1]", "bare"))],
                "env": {"OUT": str(driver / "bare"), "PYSPARK_PYTHON": str(bare)},
            }
        )
        script = root / "scenarios.json"
        script.write_text(json.dumps(scenarios))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
        env.update(SOURCE_DATE_EPOCH="1700000000")  # no PYSPARK_PYTHON: crawlmill's default
        env["PYTHONPATH"] = os.pathsep.join([str(FAKE_DIR), env.get("PYTHONPATH", "")])
        proc = subprocess.run(
            [sys.executable, str(HERE / "spark_cluster_driver.py"), str(script)],
            capture_output=True, text=True, timeout=900, check=False, env=env, cwd=driver,
        )  # fmt: skip
        mounts = [_mounts(cluster.worker_pid(n)) for n in (2,)]  # worker 1 was killed
    finally:
        cluster.stop()
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    results["_stderr"] = proc.stderr
    results["_hidden"] = hidden
    results["_mounts"] = mounts
    return root, results


def _mounts(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/mountinfo").read_text()
    except OSError:
        return ""


def _tree(fs, url: str, dest: Path, work: Path) -> Path:
    """The objects below ``url`` as files below ``dest``: in JSON, the run's stage folder and
    ``url`` read ``dest`` (what :func:`bookkeeping_of` turns into ``OUT``); in a SequenceFile
    (the CrawlDB's data and index) its random sync hash zeroed (Hadoop draws one per file)."""
    from crawlmill.core.storage_root import RemoteRoot
    from crawlmill.formats.hadoop.sequencefile import read_header

    stage = RemoteRoot(url, str(work)).stage
    fs.invalidate_cache()
    base = url[len("s3://") :]
    for key in fs.find(base):
        data = fs.cat(key)
        if key.endswith(".json"):
            text = data.decode().replace(stage, str(dest)).replace(url, str(dest))
            data = text.encode()
        elif data.startswith(b"SEQ"):
            sync = read_header(data).sync
            data = data.replace(sync, bytes(16)) if sync else data
        path = dest / key[len(base) + 1 :]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return dest


def _local(root: Path, name: str, fs, monkeypatch, capsys) -> tuple:
    """The same pipeline with the local executor (one worker, in this process, the same
    inputs, to the same store; the progress line drawn, as in the cluster's ``killed`` run)."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.syspath_prepend(str(FAKE_DIR))
    url = f"{STORE}/local/{name}"
    monkeypatch.setenv("OUT", url)
    work = root / "local-work" / name
    flags = ["--executor", "local", "--workers", "1", "--progress", "always"]
    code = main(["run", str(root / f"{name}.yaml"), *flags, "--work-dir", str(work)])
    err = capsys.readouterr().err
    out = _tree(fs, url, root / "local-out" / name, work)
    return code, files_of(out), bookkeeping_of(out), err


def _alike(root: Path, name: str, results: dict, fs, monkeypatch, capsys) -> dict:
    code, files, books, err = _local(root, name, fs, monkeypatch, capsys)
    ran = results[name]
    assert ran["code"] == code == 3, (ran["err"], err)  # the truncated sample's damage
    out = _tree(fs, f"{STORE}/spark/{name}", root / "cluster-out" / name,
                root / "driver" / f"work-{name}")  # fmt: skip
    seen = {"spark": (files_of(out), bookkeeping_of(out)), "local": (files, books)}
    assert set(files) == set(seen["spark"][0]), (sorted(files), sorted(seen["spark"][0]))
    for rel, data in files.items():
        other = seen["spark"][0][rel]
        at = next((i for i, (x, y) in enumerate(zip(data, other, strict=False)) if x != y), None)
        assert data == other, (rel, len(data), len(other), at, data[at or 0 :][:200],
                               other[at or 0 :][:200], ran["err"][-3000:])  # fmt: skip
    assert_alike(seen)
    return books["report"], err, files


def test_the_workers_do_not_see_the_drivers_folder(cluster_runs):
    """Each worker daemon (and the executors and Python workers it starts) ran with an empty
    tmpfs over the driver's folder (its stages and work folders): whatever the tasks needed
    came from the store."""
    root, results = cluster_runs
    if not results["_hidden"]:
        pytest.skip("this machine cannot make mount namespaces (unshare -m): not shown here")
    (mounts,) = results["_mounts"]
    assert f" {root / 'driver'} " in mounts and "tmpfs" in mounts, mounts[-2000:]


def test_a_conversion_on_a_standalone_cluster_is_the_local_executors(
    cluster_runs, s3_store, monkeypatch, capsys
):
    """Output objects (bytes), quarantine, report and markers as with the local executor."""
    root, results = cluster_runs
    report, _, files = _alike(root, "convert", results, s3_store, monkeypatch, capsys)
    assert report["inputs_done"] == INPUT_COUNT and report["written"] > 30
    assert "a.warc.gz" in files


def test_url_dedup_on_a_standalone_cluster_is_the_local_executors(
    cluster_runs, s3_store, monkeypatch, capsys
):
    """The collect pass, its reduce and the final pass on the cluster: the same tables,
    outputs and counts."""
    root, results = cluster_runs
    report, _, _ = _alike(root, "dedup", results, s3_store, monkeypatch, capsys)
    assert report["dropped"]["url-dedup"]["duplicate"] > 6 + 3


def test_simhash_dedup_on_a_standalone_cluster_is_the_local_executors(
    cluster_runs, s3_store, monkeypatch, capsys
):
    """simhash-dedup's collect, reduce (the clusters) and final pass: the same objects."""
    root, results = cluster_runs
    report, _, files = _alike(root, "simhash", results, s3_store, monkeypatch, capsys)
    assert report["dropped"]["simhash-dedup"]["near-duplicate"] > 0
    assert "clusters.parquet" in files


def test_a_nutch_crawldb_on_a_standalone_cluster_is_the_local_executors(
    cluster_runs, s3_store, monkeypatch, capsys
):
    """The CrawlDB's split reduce on the cluster: the same MapFile bytes (each file's random
    sync hash aside, which Hadoop's writer draws too)."""
    root, results = cluster_runs
    _, _, files = _alike(root, "crawldb", results, s3_store, monkeypatch, capsys)
    assert files["current/part-r-00000/data"].startswith(b"SEQ")
    assert "current/part-r-00000/index" in files


def test_a_worker_killed_mid_run_changes_nothing(cluster_runs, s3_store, monkeypatch, capsys):
    """``kill -9`` of a worker's JVM while both workers run tasks: Spark reruns the lost
    tasks on the other worker; outputs, report and markers are the local executor's."""
    root, results = cluster_runs
    ran = results["killed"]
    assert ran["killed"], ran["err"]
    report, local_err, _ = _alike(root, "killed", results, s3_store, monkeypatch, capsys)
    assert report["failures"] == [] and report["inputs_done"] == INPUT_COUNT
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
    early = [
        x for x in lines if re.match(rf"crawlmill: 0/{INPUT_COUNT} inputs, [1-9][\d,]* records", x)
    ]
    assert early, err[-3000:]
    assert _last_status(err).startswith(f"crawlmill: {INPUT_COUNT}/{INPUT_COUNT} inputs, ")


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
    out = root / "driver" / "bare"
    assert not list(out.rglob("*.warc.gz"))
