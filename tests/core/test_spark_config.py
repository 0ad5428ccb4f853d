"""The ``spark`` executor's settings and errors, without starting Spark: ``run.executor`` and
``run.spark`` in a config, ``--executor``/``--spark-master`` on the command line, the error
when pyspark or Java is missing, and the worker side of core/run/spark_executor.py run in this
process."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.core.config import build_pipeline
from crawlmill.core.errors import ConfigError
from crawlmill.core.run import spark_checks, spark_executor
from crawlmill.core.run.executor import WorkerCrash, current_channel

from tests.conftest import SAMPLES

HERE = Path(__file__).resolve().parent
SAMPLE = "real-world-2026-11/chfoo-warcat/example__at.warc.gz"


def _config(tmp_path: Path, run: dict) -> dict:
    return {
        "inputs": [str(tmp_path / "x.warc")],
        "writer": {"name": "warc"},
        "output": str(tmp_path / "out"),
        "run": run,
    }


@pytest.fixture(autouse=True)
def _spark_installed(request, monkeypatch):
    """Settings are checked as if pyspark and Java were installed (they are not started)."""
    if "missing" not in request.fixturenames:
        monkeypatch.setattr(spark_executor, "missing_requirement", lambda: None)


def test_run_spark_settings_are_validated(tmp_path):
    spec = build_pipeline(
        _config(
            tmp_path,
            {
                "executor": "spark",
                "spark": {
                    "master": "local[2]",
                    "conf": {"spark.ui.enabled": False, "spark.executor.cores": 2},
                },
            },
        )
    )
    assert spec.run.executor == "spark"
    assert spec.run.spark.master == "local[2]"
    assert spark_executor.check_conf(None, spec.run.spark.conf) == {
        "spark.ui.enabled": "false",
        "spark.executor.cores": "2",
    }


@pytest.mark.parametrize(
    ("run", "where", "message"),
    [
        ({"executor": "sprak"}, "run.executor", "'local' or 'spark'"),
        ({"spark": {"mastr": "local"}}, "run.spark.mastr", "did you mean 'master'"),
        ({"spark": {"conf": {"ui.enabled": False}}}, "run.spark.conf", "not a Spark setting"),
        ({"spark": {"conf": {"spark.speculation": True}}}, "run.spark.conf", "must stay false"),
        ({"spark": {"conf": {"spark.master": "yarn"}}}, "run.spark.conf", "run.spark.master"),
    ],
)
def test_bad_spark_settings_are_config_errors_with_their_place(tmp_path, run, where, message):
    with pytest.raises(ConfigError) as info:
        build_pipeline(_config(tmp_path, run))
    assert any(loc == where and message in msg for loc, msg in info.value.problems), (
        info.value.problems
    )


def test_the_executor_and_its_settings_do_not_change_the_fingerprint(tmp_path):
    """Outputs do not depend on the executor: a run resumes across executors."""
    local = build_pipeline(_config(tmp_path, {}))
    spark = build_pipeline(
        _config(
            tmp_path, {"executor": "spark", "spark": {"master": "yarn", "conf": {"spark.a": 1}}}
        )
    )
    assert local.fingerprint() == spark.fingerprint()


def test_spark_master_needs_the_spark_executor(tmp_path, capsys):
    code = main(["convert", str(SAMPLES / SAMPLE), "--to", "warc", "-o", str(tmp_path / "o"),
                 "--executor", "local", "--spark-master", "local[2]"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert "--spark-master: needs --executor spark" in err
    assert not (tmp_path / "o").exists()


def test_run_flags_override_the_configs_executor(tmp_path, monkeypatch):
    """``--spark-master`` sets the master and implies spark; the config's conf is kept."""
    from crawlmill.core.commands import cli

    seen = []
    monkeypatch.setattr(cli, "_execute", lambda spec, *rest: seen.append(spec.run) or 0)
    monkeypatch.setattr(spark_executor, "missing_requirement", lambda: None)  # not run here
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text(
        textwrap.dedent(
            f"""\
            inputs: {SAMPLES / SAMPLE}
            writer: warc
            output: {tmp_path / "o"}
            run: {{spark: {{conf: {{spark.ui.enabled: false}}}}}}
            """
        )
    )
    assert main(["run", str(pipeline), "--spark-master", "spark://h:7077"]) == 0
    assert main(["run", str(pipeline), "--executor", "spark"]) == 0
    assert main(["run", str(pipeline)]) == 0
    assert [(r.executor, r.spark.master) for r in seen] == [
        ("spark", "spark://h:7077"),
        ("spark", None),
        ("local", None),
    ]
    assert seen[0].spark.conf == {"spark.ui.enabled": False}


@pytest.mark.parametrize("missing", ["pyspark", "java"])
def test_a_missing_pyspark_or_java_is_a_clear_error_not_a_traceback(
    tmp_path, monkeypatch, capsys, missing
):
    import importlib.util

    real = importlib.util.find_spec
    installed = missing != "pyspark"

    def find_spec(name, *args):
        if name == "pyspark":
            return object() if installed else None
        return real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    if missing == "pyspark":
        expected = "needs pyspark, which is not installed: pip install '.[spark]' in the crawlmill checkout"
    else:
        monkeypatch.delenv("JAVA_HOME", raising=False)
        monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
        expected = "needs Java (Spark 4: a JDK 17 or later); no java on PATH found"
    code = main(["convert", str(SAMPLES / SAMPLE), "--to", "warc", "-o", str(tmp_path / "o"),
                 "--executor", "spark"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert f"crawlmill: error: run.executor: the spark executor {expected}" in err
    assert "Traceback" not in err
    assert "nothing was run and nothing was written" in err
    assert not (tmp_path / "o").exists()


def test_importing_the_engine_imports_neither_pyspark_nor_the_spark_executor():
    code = (
        "import sys, crawlmill.core.run.engine, crawlmill.core.commands.cli; "
        "assert 'pyspark' not in sys.modules and 'crawlmill.core.run.spark_executor' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the worker side, in this process ----------------------------------------------------------


def _partition(fn, payload, version=None, env=None):
    [(i, blob)] = spark_executor._run_partition(
        pickle.dumps(fn), [str(HERE)], version or spark_executor._version(),
        spark_executor._driver_env() if env is None else env,
        iter([(0, pickle.dumps(payload))]),
    )  # fmt: skip
    return i, pickle.loads(blob)


def _post_many(n: int) -> int:
    for k in range(n):
        current_channel().post(("log", f"line {k}"))
        current_channel().post(("progress", "key", 1, 5))
    return n


def test_a_task_posts_to_its_own_channel_in_a_worker_without_a_parent():
    """In a Spark worker the task's channel keeps its events for the driver: log lines up to
    a bound (then one line saying how many more), progress summed while consecutive."""
    i, (result, events) = _partition(_post_many, spark_executor.MAX_TASK_LOGS + 5)
    assert (i, result) == (0, spark_executor.MAX_TASK_LOGS + 5)
    logs = [e[1] for e in events if e[0] == "log"]
    assert len(logs) == spark_executor.MAX_TASK_LOGS + 1
    assert logs[-1] == "crawlmill: ... 5 more log line(s) of this task not shown"
    progress = [e for e in events if e[0] == "progress"]
    assert sum(e[2] for e in progress) == spark_executor.MAX_TASK_LOGS + 5


def test_a_worker_with_another_crawlmill_version_refuses_the_task():
    _, (result, _) = _partition(_post_many, 1, version="0.0.0-other")
    assert isinstance(result, WorkerCrash)
    mine = spark_executor._version()
    assert f"crawlmill {mine} runs on the Spark worker but 0.0.0-other on the driver" in (
        result.message
    )


def test_the_worker_takes_the_drivers_crawlmill_variables(monkeypatch):
    """SOURCE_DATE_EPOCH and CRAWLMILL_* of the driver are the task's; others of the worker
    are removed, and the worker's cached plugin registries are dropped when they change."""
    from crawlmill.core.run import task

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1")  # restored (or removed) after the test
    driver = {**spark_executor._driver_env(), "SOURCE_DATE_EPOCH": "42"}
    driver.pop("CRAWLMILL_DISABLE_PLUGINS", None)
    monkeypatch.setenv("CRAWLMILL_DISABLE_PLUGINS", "arc-reader")  # the worker's, not the driver's
    task._REGISTRIES[("sentinel",)] = object()
    spark_executor._sync_env(driver)

    assert os.environ.get("SOURCE_DATE_EPOCH") == "42"
    assert "CRAWLMILL_DISABLE_PLUGINS" not in os.environ
    assert ("sentinel",) not in task._REGISTRIES


# -- a master that does not answer; a worker Python without crawlmill ---------------------------


def test_an_unreachable_master_fails_at_once_with_one_line_naming_it(tmp_path, capsys):
    """A ``spark://`` master whose port refuses connections: exit 2 before a JVM starts, one
    line naming the master, no output written (not Spark's 80 s and a failure per input)."""
    import socket
    import time

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    master = f"spark://127.0.0.1:{port}"
    started = time.monotonic()
    code = main(["convert", str(SAMPLES / SAMPLE), "--to", "warc", "-o", str(tmp_path / "o"),
                 "--spark-master", master])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2, err
    assert time.monotonic() - started < 10
    (line,) = [x for x in err.splitlines() if "cannot reach" in x]
    assert f"cannot reach the Spark master {master} (127.0.0.1:{port}: " in line, line
    assert not list((tmp_path / "o").glob("*.warc*"))


def test_master_addresses():
    """Standby masters (``spark://h1:p1,h2:p2``), the default port, Kubernetes' API server;
    no address for the masters Spark's own clients find (``local``, ``yarn``)."""
    assert spark_checks.master_addresses("spark://a:7078,b:7079") == [("a", 7078), ("b", 7079)]
    assert spark_checks.master_addresses("spark://a") == [("a", 7077)]
    assert spark_checks.master_addresses("k8s://https://k.example:6443") == [("k.example", 6443)]
    for master in (None, "local[2]", "yarn", "local-cluster[2,1,1024]"):
        assert spark_checks.master_addresses(master) == []


#: what a Spark job fails with when the worker's Python cannot import crawlmill (the shape of
#: pyspark's Py4JJavaError text: Spark's line, the Python traceback, the Java frames).
NO_CRAWLMILL = """An error occurred while calling z:org.apache.spark.api.python.PythonRDD.runJob.
: org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 0.0 failed 4 \
times, most recent failure: Lost task 0.3 in stage 0.0 (TID 3) (127.0.0.1 executor 0): \
org.apache.spark.api.python.PythonException: Traceback (most recent call last):
  File "/x/pyspark.zip/pyspark/worker.py", line 3000, in main
    func, profiler, deserializer, serializer = read_command(pickleSer, infile)
  File "/x/pyspark.zip/pyspark/serializers.py", line 473, in loads
    return cloudpickle.loads(obj, encoding=encoding)
ModuleNotFoundError: No module named 'crawlmill'

\tat org.apache.spark.api.python.BasePythonRunner$ReaderIterator.handlePythonException(PythonRunner.scala:600)
\tat org.apache.spark.api.python.PythonRunner$$anon$3.read(PythonRunner.scala:900)
"""


def test_a_worker_python_without_crawlmill_is_said_in_one_line(monkeypatch):
    """The Python exception is pulled from the Java trace; a missing crawlmill says which
    Python and what to do. The real text of a real cluster: tests/core/test_spark_cluster.py."""
    monkeypatch.setenv("PYSPARK_PYTHON", "/opt/py/bin/python")
    text = NO_CRAWLMILL
    assert spark_checks.python_exception(text) == "ModuleNotFoundError: No module named 'crawlmill'"
    message = spark_checks.spark_failure(RuntimeError(text))
    assert "\n" not in message
    assert message.startswith(
        "the Spark worker's Python (/opt/py/bin/python, PYSPARK_PYTHON) cannot import crawlmill: "
        "ModuleNotFoundError: No module named 'crawlmill'; install crawlmill"
    ), message
    other = text.replace("ModuleNotFoundError: No module named 'crawlmill'", "ValueError: bad")
    assert spark_checks.spark_failure(RuntimeError(other)) == (
        "the Spark task failed in its Python worker: ValueError: bad"
    )
    plain = "org.apache.spark.SparkException: Job 3 cancelled\n\tat org.apache..."
    assert spark_checks.spark_failure(RuntimeError(plain)) == (
        "the Spark task failed: org.apache.spark.SparkException: Job 3 cancelled"
    )


# -- the status channel (live progress), without Spark ------------------------------------------


def test_the_status_channel_carries_progress_with_the_token_only(monkeypatch):
    """A worker's progress event reaches the driver's route at once; a connection without
    the driver's token is closed unread."""
    import socket
    import time

    from crawlmill.core.run import spark_progress

    server = spark_progress.StatusServer("127.0.0.1")
    got: list[tuple] = []
    server.route(lambda *event: got.append(event))
    try:
        with socket.create_connection(("127.0.0.1", server.port)) as stranger:
            stranger.sendall(b"not-the-token\n" + b'["x", 1, 1]\n')
        monkeypatch.setenv(spark_progress.ENV_VAR, server.address)
        spark_progress.send_progress(("progress", "k", 3, 30))
        deadline = time.monotonic() + 10
        while not got and time.monotonic() < deadline:
            time.sleep(0.02)
        assert got == [("k", 3, 30)]
    finally:
        server.close()


def test_live_progress_and_the_tasks_own_counts_add_up_once():
    """What came live (a lost attempt's and its retry's) is taken back from the task's own
    counts when it ends; a late live line of an ended task is dropped; logs pass as they are."""
    from crawlmill.core.run.spark_progress import LiveTally

    posted: list[tuple] = []
    tally = LiveTally(posted.append)
    tally.live("k", 5, 50)  # the attempt on the lost worker
    tally.live("k", 2, 20)  # its retry, so far
    tally.final([("log", "a damage line"), ("progress", "k", 4, 40), ("progress", "k", 2, 20)])
    tally.live("k", 1, 10)  # late
    assert ("log", "a damage line") in posted
    progress = [e for e in posted if e[0] == "progress"]
    assert (sum(e[2] for e in progress), sum(e[3] for e in progress)) == (6, 60), progress
