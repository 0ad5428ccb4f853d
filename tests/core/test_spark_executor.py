"""The ``spark`` executor (core/run/spark_executor.py) on a real Spark in ``local[2]`` mode.

One SparkContext for the whole session (``spark_sc`` in tests/core/conftest.py; the executor
reuses a running context with the same master), so the suite pays the JVM start-up once. pyspark and Java are oracles: a missing one
skips these tests on a user's machine and fails them in CI (``CRAWLMILL_REQUIRE_ORACLES=1``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.core.run.executor import WorkerCrash, make_executor
from crawlmill.core.spec import SparkSpec

from tests.conftest import SAMPLES, need, need_command
from tests.core.conftest import SPARK_CONF, SPARK_MASTER
from tests.core.spark_compare import bookkeeping_of as _bookkeeping
from tests.core.spark_compare import build_inputs, spark_pipeline
from tests.core.spark_compare import files_of as _files

HERE = Path(__file__).resolve().parent
MASTER = SPARK_MASTER
CONF = SPARK_CONF

#: real third-party files: WARC (gzip and plain, one with a record cut short: damage) and ARC
#: (an ARC filedesc becomes a metadata record beside crawlmill's warcinfo).
CONVERSION_INPUTS = [
    "real-world-2026-11/N0taN3rd-node-warc/test__files__parseMe.warc.gz",
    "real-world-2026-11/chfoo-warcat/example__at.warc.gz",
    "real-world-2026-11/datatogether-warc/testdata__warcio__example-trunc.warc",
    "webrecorder-warcio/test/data/example.arc.gz",
    "kris-sigur-jwat/jwat-arc/src/test/resources/IAH-20080430204825-00000-blackbook.arc.gz",
]


@pytest.fixture
def tasks(monkeypatch, spark_sc):
    """The task functions of tests/core/spark_tasks.py, importable in the workers too."""
    monkeypatch.syspath_prepend(str(HERE))
    import spark_tasks

    return spark_tasks


def _spark():
    """A Spark executor as the engine makes it for ``run: {executor: spark, spark: ...}``."""
    return make_executor("spark", 1, SparkSpec(master=MASTER, conf=CONF))


# -- the same outputs and report as the local executor, through the CLI --------------------------


def test_a_pipeline_file_converts_alike_on_local_1_local_2_and_spark(
    spark_sc, tmp_path, monkeypatch, capsys
):
    """The same pipeline file: byte-identical outputs and quarantine, the same report counts
    and the same markers with the local executor at 1 and 2 workers and with Spark local[2]
    (the file says spark; --executor local --workers N overrides it)."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # the warcinfo's conversion date
    inputs = build_inputs(tmp_path / "in", CONVERSION_INPUTS, overlapping=False)
    pipeline = tmp_path / "pipeline.yaml"
    body = "writer: {name: warc, gzip_backend: zlib}\n"
    pipeline.write_text(spark_pipeline(inputs, body, MASTER, progress="always"))
    runs = {
        "spark": [],
        "local1": ["--executor", "local", "--workers", "1"],
        "local2": ["--executor", "local", "--workers", "2"],
    }
    seen = {}
    for name, flags in runs.items():
        out = tmp_path / name
        monkeypatch.setenv("OUT", str(out))
        code = main(["run", str(pipeline), *flags])
        err = capsys.readouterr().err
        assert code == 3, err  # the cut record is damage: quarantined, exit 3
        assert "read 344 + added 2 by the writer = written 345 + dropped 0 + quarantined 1" in err
        seen[name] = (_files(out), _bookkeeping(out), err)
    spark_files, spark_books, spark_err = seen["spark"]
    assert len([f for f in spark_files if f.endswith(".warc.gz")]) == len(CONVERSION_INPUTS)
    assert any(f.startswith(".crawlmill/quarantine/") for f in spark_files)
    for name in ("local1", "local2"):
        files, books, _ = seen[name]
        assert sorted(files) == sorted(spark_files)
        for rel, data in files.items():
            assert data == spark_files[rel], f"{rel} differs between {name} and spark"
        assert books == spark_books, name
    # the driver's terminal: progress (tasks done / total) and the task's damage line
    assert f"crawlmill: {len(CONVERSION_INPUTS)}/{len(CONVERSION_INPUTS)} inputs" in spark_err
    assert "damaged record quarantined: " in spark_err and "example-trunc.warc" in spark_err
    # a rerun on Spark of what the local executor made resumes every input
    monkeypatch.setenv("OUT", str(tmp_path / "local2"))
    assert main(["run", str(pipeline)]) == 3
    assert f"{len(CONVERSION_INPUTS)} already complete" in capsys.readouterr().err


def test_spark_master_on_the_command_line_runs_a_conversion_on_spark(
    spark_sc, tmp_path, monkeypatch, capsys
):
    """``convert --spark-master URL`` runs on Spark (it implies --executor spark)."""
    src = SAMPLES / CONVERSION_INPUTS[1]
    calls = []
    from crawlmill.core.run import spark_executor

    real = spark_executor.SparkExecutor.map

    def spy(self, fn, payloads):
        calls.append(len(payloads))
        return real(self, fn, payloads)

    monkeypatch.setattr(spark_executor.SparkExecutor, "map", spy)
    code = main(["convert", str(src), "--to", "warc", "-o", str(tmp_path / "o"),
                 "--spark-master", MASTER])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0, err
    assert calls == [1]
    assert (tmp_path / "o" / "example__at.warc.gz").is_file()


# -- Executor.map ----------------------------------------------------------------------------


def test_map_yields_each_result_as_its_task_finishes(tasks, tmp_path):
    """Results stream back as tasks end (a slow first task does not hold the others), each
    with the task's log lines posted on the executor's channel; no parent channel is needed
    in the worker, and its stop flag is never set there."""
    executor = _spark()
    done = str(tmp_path)  # task 0 ends only after the four others (then 2 s for their results)
    payloads = [{"i": 0, "sleep": 2.0, "done_dir": done, "wait_for": 4}] + [
        {"i": i, "sleep": 0.0, "done_dir": done} for i in range(1, 5)
    ]
    order = [i for i, result in executor.map(tasks.echo, payloads)]
    assert sorted(order) == [0, 1, 2, 3, 4]
    assert order[-1] == 0  # the others finished (and came back) while task 0 slept
    events = []
    while (event := executor.channel.get(0)) is not None:
        events.append(event)
    assert sorted(e[1] for e in events if e[0] == "log") == [
        f"task {i} says hello" for i in range(5)
    ]
    # each task's progress counts once: what came live plus the rest with its result
    for i in range(5):
        mine = [e for e in events if e[0] == "progress" and e[1] == f"k{i}"]
        assert (sum(e[2] for e in mine), sum(e[3] for e in mine)) == (3, 30), mine


def test_progress_reaches_the_driver_while_the_task_runs(tasks, tmp_path):
    """A task's progress events arrive on the executor's channel while it still runs (the
    status channel, core/run/spark_progress.py), not only with its result; the counts add up
    to the task's own once it ends."""
    import threading

    executor = _spark()
    go = tmp_path / "go"
    payload = {"key": "slow", "go": str(go), "records": 5, "bytes": 50}
    results = []
    thread = threading.Thread(
        target=lambda: results.extend(executor.map(tasks.progress_then_wait, [payload]))
    )
    thread.start()
    events = []
    deadline = time.monotonic() + 120
    while not events and time.monotonic() < deadline:
        event = executor.channel.get(0.2)
        if event is not None and event[0] == "progress":
            events.append(event)
    running = not results
    go.write_text("")
    thread.join(timeout=120)
    assert running and events == [("progress", "slow", 5, 50)], events
    assert results and results[0][1] == {"key": "slow"}
    while (event := executor.channel.get(0)) is not None:
        events.append(event)
    mine = [e for e in events if e[0] == "progress"]
    assert (sum(e[2] for e in mine), sum(e[3] for e in mine)) == (6, 60), mine


def test_map_runs_in_spark_workers_with_the_drivers_environment(tasks, monkeypatch):
    """Tasks run in Spark's Python workers (not this process) and see the driver's
    SOURCE_DATE_EPOCH although it was set after the context started."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1234567890")
    results = dict(_spark().map(tasks.echo, [{"i": 0}, {"i": 1}]))
    assert {r["epoch"] for r in results.values()} == {"1234567890"}
    assert all(r["pid"] != os.getpid() for r in results.values())
    assert all(r["stop_requested"] is False for r in results.values())


def test_a_failing_or_dying_task_fails_only_its_payload(tasks):
    """An exception in the task, a worker killed under it and a payload that cannot be
    pickled are WorkerCrash results of those payloads; the others complete."""
    executor = _spark()
    results = dict(executor.map(tasks.fail, [{"i": 0}]))
    assert isinstance(results[0], WorkerCrash)
    assert "ValueError: bad payload" in results[0].message

    payloads = [{"i": 0}, {"i": 1, "die": True}, {"i": 2, "bad": lambda: None}, {"i": 3}]
    results = dict(executor.map(tasks.die, payloads))
    assert sorted(results) == [0, 1, 2, 3]
    assert results[0]["i"] == 0 and results[3]["i"] == 3
    assert isinstance(results[1], WorkerCrash) and "Spark task failed" in results[1].message
    assert isinstance(results[2], WorkerCrash) and "pickle" in results[2].message.lower()


def test_a_task_function_that_cannot_be_shipped_by_reference_is_refused(spark_sc):
    with pytest.raises(TypeError, match="by reference"):
        list(_spark().map(lambda p: p, [1]))


def test_cancel_kills_the_running_tasks_before_map_ends(tasks, tmp_path):
    """Cancelling (what Ctrl-C and on_error: fail do) cancels the Spark job group; map ends
    only once the tasks' Python workers are gone, so nothing of the run writes afterwards."""
    from crawlmill.core.run.spark_executor import _active_tasks

    executor = _spark()
    pid_file = tmp_path / "pid"
    payloads = [
        {"i": 0, "sleep": 0.0},
        {"i": 1, "sleep": 120.0, "pid_file": str(pid_file)},
        {"i": 2, "sleep": 0.0},  # not started before the cancel: never runs
    ]
    started = time.monotonic()
    stream = executor.map(tasks.echo, payloads)
    first, _ = next(stream)
    assert first == 0
    while not pid_file.exists():  # the sleeper is running
        assert time.monotonic() - started < 60
        time.sleep(0.1)
    executor.cancel()
    assert list(stream) == []  # cancelled payloads are never yielded
    assert time.monotonic() - started < 60
    assert _active_tasks(executor.sc.statusTracker(), executor.group) == 0
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid), "the cancelled task's Python worker still runs"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:  # a zombie is gone for our purpose
        return fh.read().split(") ", 1)[1][0] != "Z"


def test_the_consumer_giving_up_cancels_the_tasks(tasks, tmp_path):
    """A consumer that stops iterating (an exception in the engine's loop, Ctrl-C) closes the
    generator: the running tasks are cancelled before close() returns."""
    from crawlmill.core.run.spark_executor import _active_tasks

    executor = _spark()
    payloads = [{"i": 0, "sleep": 0.0}, {"i": 1, "sleep": 120.0}]
    stream = executor.map(tasks.echo, payloads)
    assert next(stream)[0] == 0
    started = time.monotonic()
    stream.close()
    assert executor.cancelled
    assert time.monotonic() - started < 60
    assert _active_tasks(executor.sc.statusTracker(), executor.group) == 0


def test_ctrl_c_cancels_the_spark_tasks_and_the_report_counts_what_was_committed(
    spark_sc, tmp_path, capsys, monkeypatch
):
    """Ctrl-C (SIGINT to this process) during a Spark run: exit 130, the Spark tasks are
    cancelled (none left running, no temp files), and report.json counts exactly the
    committed inputs."""
    import signal
    import threading

    from crawlmill.core.run import spark_executor

    fake = HERE / "fake_plugins"
    monkeypatch.syspath_prepend(str(fake))
    src = tmp_path / "in"
    src.mkdir()
    inputs = 60  # 1.2 s each, two at a time: the run cannot end before the signal
    for j in range(inputs):
        (src / f"{j:03d}.txt").write_text(
            "".join(f"R http://ex.com/{j}/{k} response p{k}\n" for k in range(6))
        )
    out = tmp_path / "out"
    done = out / ".crawlmill" / "done"
    executors = []
    real_init = spark_executor.SparkExecutor.__init__

    def keep(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        executors.append(self)

    monkeypatch.setattr(spark_executor.SparkExecutor, "__init__", keep)
    running = threading.Event()

    def interrupt_after_two_commits():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and running.is_set():
            if done.exists() and len(list(done.glob("*.json"))) >= 2:
                os.kill(os.getpid(), signal.SIGINT)
                return
            time.sleep(0.02)

    argv = [str(src), "--from", "fake-lines", "--reader-option", "delay=0.2", "--to",
            "fake-jsonl", "-o", str(out), "--plugin", "cm_fake", "--progress", "never",
            "--spark-master", MASTER]  # fmt: skip
    running.set()
    watcher = threading.Thread(target=interrupt_after_two_commits, daemon=True)
    # Ctrl-C raises KeyboardInterrupt, as in a terminal, also when the suite was started in the
    # background (``nohup ... &`` from a script: SIGINT inherited ignored)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    watcher.start()
    try:
        code = main(["convert", *argv])
    finally:
        running.clear()
        signal.signal(signal.SIGINT, previous)
    err = capsys.readouterr().err
    assert code == 130, err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    markers = len(list(done.glob("*.json")))
    assert 2 <= markers < inputs
    assert report["inputs_done"] == markers and report["inputs_cancelled"] == inputs - markers
    assert [f["error"] for f in report["failures"]] == ["interrupted (SIGINT)"]
    assert report["read"] == report["written"] == 6 * markers
    from crawlmill.core.run.spark_executor import _active_tasks

    assert _active_tasks(spark_sc.statusTracker(), executors[0].group) == 0
    assert not (out / ".crawlmill" / "tmp").exists()


def test_another_master_than_the_running_contexts_is_a_config_error(spark_sc):
    from crawlmill.core.errors import ConfigError
    from crawlmill.core.run.spark_executor import SparkExecutor

    with pytest.raises(ConfigError, match="already runs in this process"):
        SparkExecutor("local[1]", {})


# -- a Spark retry of a task that committed: committed once ------------------------------------

RETRY_SCRIPT = """
import json, os, sys
sys.path.insert(0, {here!r})
os.environ["SOURCE_DATE_EPOCH"] = "1700000000"
from crawlmill.core.run import engine, spark_executor
from crawlmill.core.config import pipeline_from_arguments
from crawlmill.core.registry import Registry
import spark_tasks

def spec(out, run):
    return pipeline_from_arguments(
        Registry.load(), inputs=[{src!r}], output=out,
        writer=("warc", ["gzip_backend=zlib"]), run=run)

# local[2,2]: a task may fail once and is retried; this task's first attempt dies after
# its commit
spark_executor.spark_context("local[2,2]", {conf!r})  # the session's JVM options
engine.run_task = spark_tasks.commit_then_die
report = engine.run(spec({out!r}, {{"executor": "spark", "spark": {{"master": "local[2,2]"}}}}))
print(json.dumps(report.to_dict()))
"""


@pytest.mark.slow
def test_a_spark_retry_of_a_task_that_committed_commits_once(tmp_path, monkeypatch):
    """A task's first attempt commits its outputs and marker, then its worker dies; Spark
    retries it (local[2,2]: its own JVM, in a subprocess). The retry replaces only its own
    key's files, with the same bytes: the run ends as a local run does, with one marker."""
    need("pyspark")
    need_command("java")
    src = str(SAMPLES / CONVERSION_INPUTS[0])
    out = tmp_path / "spark"
    attempts = tmp_path / "attempts"
    attempts.mkdir()
    script = RETRY_SCRIPT.format(here=str(HERE), src=src, out=str(out), conf=CONF)
    # Spark's own log (off by default) says the first attempt was lost
    env = {
        **os.environ,
        "CRAWLMILL_TEST_ATTEMPTS": str(attempts),
        "CRAWLMILL_SPARK_LOG_LEVEL": "WARN",
    }
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True, text=True, timeout=300, check=False, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["failures"] == [] and report["inputs_done"] == 1
    assert "Lost task 0.0" in proc.stderr  # the first attempt's worker died...
    assert sorted(p.name for p in attempts.iterdir()) == ["attempt-0", "attempt-1"]
    assert {p.read_text() for p in attempts.iterdir()} == {"ok"}  # ...after it committed

    local = tmp_path / "local"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    code = main(["convert", src, "--to", "warc", "--option", "gzip_backend=zlib",
                 "-o", str(local), "--workers", "1"])  # fmt: skip
    assert code == 0
    assert _files(out) == _files(local)
    assert _bookkeeping(out)["report"]["counts"] == _bookkeeping(local)["report"]["counts"]
    assert len(list((out / ".crawlmill" / "done").glob("*.json"))) == 1
    assert not list((out / ".crawlmill" / "pending").glob("*.json"))
    tmp = out / ".crawlmill" / "tmp"
    assert not tmp.exists() or not any(tmp.iterdir())


def test_under_spark_submit_the_master_is_the_one_spark_submit_was_given(spark_sc, monkeypatch):
    """Under spark-submit (``PYSPARK_GATEWAY_PORT``: its JVM runs already) a pipeline without a
    master takes spark-submit's (``spark.master`` of that JVM), not ``local[*]``; this
    session's JVM was started as spark-submit starts one."""
    from crawlmill.core.run import spark_executor

    monkeypatch.setenv("PYSPARK_GATEWAY_PORT", "0")  # the gateway of this process is used
    assert spark_executor._submitted_master() == MASTER
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT")
    assert spark_executor._submitted_master() is None
