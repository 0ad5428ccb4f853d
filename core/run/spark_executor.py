"""The ``spark`` executor: :meth:`Executor.map` on a Spark cluster (or ``local[N]``).

``pip install '.[spark]'`` in the checkout (pyspark; Spark 4 needs Java 17 or later). This module is
imported only when a run names ``executor: spark``, and imports pyspark only then.

How :meth:`SparkExecutor.map` runs ``fn(payload)`` for each payload:

* The payloads become one RDD of ``(index, pickled payload)`` pairs with **one partition per
  payload** (``sc.parallelize(pairs, len(pairs))``). Payloads are plain data (the engine's
  :class:`~crawlmill.core.messages.TaskPayload`: the spec as JSON, the input, its marker key);
  they are pickled in the driver one by one, so one that cannot be pickled fails only its
  payload (a :class:`WorkerCrash`), as with the local executor. ``fn`` is pickled the same way
  (by reference: a module-level function, or a ``functools.partial`` of one).
* Each partition is its own Spark job (``sc.runJob(rdd, ..., [i])``) submitted from a driver
  thread; at most ``sc.defaultParallelism`` jobs (the cluster's cores, or
  ``spark.default.parallelism``) are in flight, so every submitted job is running and a result
  comes back **as soon as its task finishes**, not when a batch ends. The engine therefore
  does the same bookkeeping (markers, accounting, report) as with the local executor, and the
  driver's progress line counts tasks done / total as results arrive.
* In the Python worker, :func:`_run_partition` (module-level, so Spark ships it by reference)
  puts the driver's ``sys.path`` on the worker's (``plugins:`` modules importable in the
  driver are importable in ``local`` mode) and its ``CRAWLMILL_*`` and ``SOURCE_DATE_EPOCH``
  variables on the worker's environment (:data:`SHIPPED_ENV`: a Python worker is reused
  across jobs and started before a test or a script set them), refuses to run under another
  crawlmill version than the driver's, unpickles ``fn`` and the payload, and runs
  ``fn(payload)`` with a
  :class:`TaskEvents` channel as :func:`~crawlmill.core.run.executor.current_channel`: the
  task's log lines (damage, failures) and progress come back with its result and are posted
  on :attr:`SparkExecutor.channel`, so they print on the driver's terminal. ``fn`` rebuilds
  the plugin registry from entry points and the spec's ``plugins`` (as
  :func:`~crawlmill.core.run.task.run_task` does): nothing pickles a pipeline or a plugin.
* A Python exception escaping ``fn`` comes back as a :class:`WorkerCrash`; a worker process
  that dies fails its Spark task, which Spark retries up to ``spark.task.maxFailures`` (1 in
  ``local[N]``; ``local[N,F]`` allows F attempts) and which, when it still fails, is a
  :class:`WorkerCrash` of that payload only.

A writer's sorted shuffle runs on Spark's own shuffle and sort: :meth:`SparkExecutor.shuffle`
(:mod:`crawlmill.core.run.spark_shuffle`), whose jobs go through :meth:`SparkExecutor.jobs` as
``map``'s do.

Commits and retries: speculation is refused (``spark.speculation`` true is a configuration
error), so two attempts of one task never run at once. A retry runs after its attempt died;
the task writes under the output root's temp folder of its marker key, which it empties first,
and its commit may replace only the files its own key's markers list: a retry of an attempt
that died after committing replaces them with the same bytes and writes the same marker, so
an input is committed once whatever Spark retries (tests/core/test_spark_executor.py). The
one case this does not cover is a cluster executor Spark declared lost while its Python worker
still runs: a retry may then run beside it in the same temp folder (a per-attempt temp folder
in core/run/outputs.py would close that; not done yet).

Cancellation (Ctrl-C, SIGTERM, ``on_error: fail``): :meth:`SparkExecutor.cancel` stops
submitting and cancels the executor's job group (``interruptOnCancel``); ``map`` then waits
until Spark reports every task of the group ended (killed Python workers included), so no task
of this run still writes when the engine writes its report and releases the run lock.

The Spark context: one per process (Spark's rule). :func:`spark_context` starts it with
crawlmill's settings (app name ``crawlmill``, no console progress bar, no speculation, Spark's
log off from the JVM's start; the workers' Python is this interpreter unless ``PYSPARK_PYTHON``
names one, with a note for a cluster; for a ``local`` master Spark binds to 127.0.0.1) and
keeps it for later runs of the process (stopped at exit, or by :func:`stop_context`); a
context already running with the same master (a ``pyspark`` shell, a test fixture) is used as
it is. A ``spark://``/``k8s://`` master is first reached with a bounded connect, and each
context runs one probe task that imports crawlmill in a worker's Python
(:mod:`crawlmill.core.run.spark_checks`): either failing is one line and exit 2, before any
input. Tasks' progress reaches the driver while they run through a status channel
(:mod:`crawlmill.core.run.spark_progress`); a lost executor is one line of ours. docs/spark.md
says how to run on a cluster.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import shutil
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from ..errors import ConfigError
from .channel import Channel, Executor, WorkerCrash
from .spark_checks import spark_failure, unreachable_master
from .spark_conf import check_conf
from .spark_progress import ENV_VAR as STATUS_ENV
from .spark_progress import LiveTally, StatusServer, server_host
from .spark_stage import apply_events, publish_driver
from .spark_worker import (
    MAX_TASK_LOGS,
    SHIPPED_ENV,
    TaskEvents,
    dump_result,
    prepare_worker,
    probe_partition,
    run_one,
)
from .spark_worker import crawlmill_version as _version  # the names of before
from .spark_worker import driver_env as _driver_env
from .spark_worker import sync_env as _sync_env  # noqa: F401  (tests call it by this name)

__all__ = [
    "MAX_TASK_LOGS",
    "SHIPPED_ENV",
    "SparkExecutor",
    "TaskEvents",
    "check_conf",
    "missing_requirement",
    "spark_context",
    "stop_context",
]

#: how long ``map`` waits for cancelled tasks to end before it gives up waiting.
CANCEL_WAIT_SECONDS = 60.0
#: how long no task of a cancelled group must be seen running before a cancel is done (the
#: tracker may show none for a moment before it has heard of a task that started)
CANCEL_QUIET_SECONDS = 1.0
#: conf crawlmill sets unless the run's ``run.spark.conf`` says otherwise.
DEFAULT_CONF = {
    "spark.app.name": "crawlmill",
    "spark.ui.showConsoleProgress": "false",  # the driver's own progress line is crawlmill's
}
#: conf crawlmill sets for a ``local`` master unless the run says otherwise.
LOCAL_CONF = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
}
#: Spark's log level on the driver (``CRAWLMILL_SPARK_LOG_LEVEL`` overrides it).
SPARK_LOG_LEVEL = "OFF"
_WHERE = "run.spark"


def _java() -> str | None:
    """The ``java`` Spark's launcher will run (``JAVA_HOME`` first, then ``PATH``)."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = os.path.join(home, "bin", "java")
        return candidate if os.path.isfile(candidate) else None
    return shutil.which("java")


def _java_version(java: str) -> str:
    import subprocess

    try:
        out = subprocess.run(
            [java, "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"cannot run {java}: {exc}"
    lines = (out.stderr or out.stdout).strip().splitlines()
    return lines[0] if lines else "unknown version"


def missing_requirement() -> str | None:
    """What this machine lacks to run the spark executor (pyspark, Java), said with what to
    install; ``None`` when nothing is missing. Cheap: nothing is imported or started."""
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        return (
            "the spark executor needs pyspark, which is not installed: "
            "pip install '.[spark]' in the crawlmill checkout (crawlmill is not on PyPI), "
            "or pip install pyspark"
        )
    if _java() is None:
        where = "JAVA_HOME/bin/java" if os.environ.get("JAVA_HOME") else "java on PATH"
        return (
            f"the spark executor needs Java (Spark 4: a JDK 17 or later); no {where} found: "
            "install one (Debian: apt-get install openjdk-17-jdk-headless) or set JAVA_HOME"
        )
    return None


def _require_spark() -> None:
    """A :class:`ConfigError` saying what to install when pyspark or Java is missing."""
    reason = missing_requirement()
    if reason is not None:
        raise ConfigError([("run.executor", reason)])


_LOCK = threading.Lock()
_OWNED: Any = None  # the context this module started (stopped at exit)


def _is_local(master: str) -> bool:
    return master == "local" or master.startswith("local[") or master.startswith("local-")


def spark_context(master: str | None = None, conf: Mapping[str, Any] | None = None) -> Any:
    """The process's ``SparkContext`` for ``master`` (``None``: the running one, else
    ``local[*]``), started with crawlmill's settings and ``conf`` when none runs. A context
    running with another master is an error (Spark allows one per process). Raises
    :class:`ConfigError` when pyspark or Java is missing or the context cannot start."""
    global _OWNED
    try:
        settings = check_conf(master, conf or {})
    except ValueError as exc:
        raise ConfigError([(f"{_WHERE}.conf", str(exc))]) from None
    _require_spark()
    unreachable = unreachable_master(master)
    if unreachable is not None:
        raise ConfigError([(f"{_WHERE}.master", unreachable)])
    from pyspark import SparkConf, SparkContext

    with _LOCK:
        active = SparkContext._active_spark_context
        if active is not None:
            if master is not None and active.master != master:
                raise ConfigError(
                    [
                        (
                            f"{_WHERE}.master",
                            f"a SparkContext with master {active.master!r} already runs in this "
                            f"process; Spark allows one, so crawlmill cannot start one with "
                            f"master {master!r}",
                        )
                    ]
                )
            _check_running(active)
            _probe(active)
            return active
        master = master or _submitted_master() or "local[*]"
        spark_conf = SparkConf().setMaster(master)
        defaults = {**DEFAULT_CONF, **(LOCAL_CONF if _is_local(master) else {})}
        if not os.environ.get("PYSPARK_PYTHON"):
            if settings.get("spark.pyspark.python"):
                os.environ["PYSPARK_PYTHON"] = settings["spark.pyspark.python"]
            else:
                _default_python(master)
        defaults["spark.pyspark.python"] = os.environ["PYSPARK_PYTHON"]
        for key, value in {**defaults, **settings, **_log_config(settings)}.items():
            spark_conf.set(key, value)
        spark_conf.set("spark.speculation", "false")
        if _is_local(master):
            os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # no interface look-up
        previous = signal.getsignal(signal.SIGINT)
        try:
            sc = SparkContext(conf=spark_conf)
        except Exception as exc:
            java = _java()
            version = _java_version(java) if java else "no java found"
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ConfigError(
                [
                    (
                        f"{_WHERE}.master",
                        f"cannot start Spark with master {master!r}: {first} (java: {version}; "
                        "Spark 4 needs Java 17 or later)",
                    )
                ]
            ) from None
        finally:
            # pyspark replaces the SIGINT handler with one that cancels every job of the
            # context; crawlmill's own cancel path (this executor's job group) is kept instead
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGINT, previous)
        _OWNED = sc
        atexit.register(_stop_owned)
    _quiet(sc)
    _probe(sc)
    return sc


def _submitted_master() -> str | None:
    """Under ``spark-submit`` (its JVM already runs: ``PYSPARK_GATEWAY_PORT``), the master it
    was given (``spark.master`` of that JVM); else ``None``."""
    if not os.environ.get("PYSPARK_GATEWAY_PORT"):
        return None
    from pyspark import SparkConf, SparkContext

    try:
        SparkContext._ensure_initialized()  # connects to spark-submit's JVM
        return SparkConf().get("spark.master", None)
    except Exception:
        return None


def _default_python(master: str) -> None:
    """The workers' Python when the user named none: this driver's own interpreter (Spark's
    default, ``python3`` on each worker, seldom has crawlmill), said in a note for a cluster."""
    # pyspark's in-process context reads the environment, not the conf
    os.environ["PYSPARK_PYTHON"] = sys.executable
    if not _is_local(master):
        print(
            f"crawlmill: note: PYSPARK_PYTHON is not set, so Spark's workers run this driver's "
            f"Python, {sys.executable}: it must exist with crawlmill installed on every worker "
            "(set PYSPARK_PYTHON to name the workers' Python)",
            file=sys.stderr,
        )


_LOG4J = """\
rootLogger.level = {level}
logger.spark.name = org.apache.spark
logger.spark.level = {level}
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{{yy/MM/dd HH:mm:ss}} %p %c{{1}}: %m%n
"""


def _log_config(settings: Mapping[str, str]) -> dict[str, str]:
    """The driver JVM's log4j configuration when crawlmill starts it: Spark's log at
    :func:`_quiet`'s level from the start (no start-up WARN lines, no "Setting default log
    level" banner); none when the run's conf or ``SPARK_CONF_DIR`` configures logging."""
    import tempfile

    options = settings.get("spark.driver.extraJavaOptions", "")
    home_conf = os.path.join(os.environ.get("SPARK_HOME", ""), "conf", "log4j2.properties")
    if "log4j" in options or os.environ.get("SPARK_CONF_DIR") or os.path.isfile(home_conf):
        return {}
    level = os.environ.get("CRAWLMILL_SPARK_LOG_LEVEL", SPARK_LOG_LEVEL).lower()
    fd, path = tempfile.mkstemp(prefix="crawlmill-log4j2-", suffix=".properties")
    with os.fdopen(fd, "w") as fh:
        fh.write(_LOG4J.format(level=level))
    atexit.register(_remove, path)
    return {"spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={path} {options}".strip()}


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _quiet(sc: Any) -> None:
    """Spark's own log (log4j) off the user's terminal: its WARN lines and lost-executor
    errors would be glued to the progress line. ``CRAWLMILL_SPARK_LOG_LEVEL`` (e.g. ``WARN``)
    sets another level; crawlmill says what matters in its own lines."""
    level = os.environ.get("CRAWLMILL_SPARK_LOG_LEVEL", SPARK_LOG_LEVEL)
    with contextlib.suppress(Exception):
        sc.setLogLevel(level)


def _probe(sc: Any) -> None:
    """Once per context: one tiny task that imports crawlmill in a Spark worker's Python, so
    a worker Python without crawlmill (or of another version) stops the run before any input
    with one line, not every input after four attempts."""
    if getattr(sc, "_crawlmill_probed", False):
        return
    try:
        rows = sc.runJob(sc.parallelize([0], 1), probe_partition, [0])
    except Exception as exc:
        raise ConfigError([(f"{_WHERE}.master", spark_failure(exc))]) from None
    version = _version()
    if rows and rows[0] != version:
        raise ConfigError(
            [
                (
                    f"{_WHERE}.master",
                    f"crawlmill {rows[0]} runs on the Spark workers but {version} on the "
                    "driver: install the same crawlmill on every worker",
                )
            ]
        )
    sc._crawlmill_probed = True


def _check_running(sc: Any) -> None:
    """A running context must not speculate (see :func:`check_conf`)."""
    value = sc.getConf().get("spark.speculation", "false") or "false"
    if value.strip().lower() != "false":
        raise ConfigError(
            [
                (
                    f"{_WHERE}.conf",
                    "the running SparkContext has spark.speculation on: a speculative copy of a "
                    "task would write the same output files as the task at the same time",
                )
            ]
        )


def stop_context() -> None:
    """Stop the context :func:`spark_context` started (the process's JVM stays up, so a later
    :func:`spark_context` starts a new context, on another master too, in seconds)."""
    _stop_owned()


def _stop_owned() -> None:
    global _OWNED
    sc, _OWNED = _OWNED, None
    if sc is not None:
        with contextlib.suppress(Exception):
            sc.stop()


# -- worker side --------------------------------------------------------------------------------


def _run_partition(
    fn_blob: bytes,
    sys_path: list[str],
    driver_version: str,
    env: Mapping[str, str],
    pairs: Iterable[tuple[int, bytes]],
) -> Iterator[tuple[int, bytes]]:
    """Spark's function of a partition, run in a Python worker: ``(i, pickled (result,
    events))`` for each ``(i, pickled payload)`` (one per partition)."""
    refused = prepare_worker(sys_path, driver_version, env)
    fn: Callable[[Any], Any] | None = None
    for i, blob in pairs:
        if refused is not None:
            out: tuple[Any, list[tuple]] = (WorkerCrash(refused), [])
        else:
            try:
                fn = fn if fn is not None else pickle.loads(fn_blob)
                out = run_one(fn, blob)
            except Exception as exc:  # fn or payload could not be unpickled here
                out = (WorkerCrash(f"{type(exc).__name__}: {exc}"), [])
        yield i, dump_result(out)


class SparkExecutor(Executor):
    """Runs payloads as Spark tasks, one partition (and job) each; see the module docstring."""

    def __init__(self, master: str | None = None, conf: Mapping[str, Any] | None = None) -> None:
        self.sc = spark_context(master, conf)
        self.channel = Channel(_queue(), threading.Event())
        #: the Spark job group of this executor's jobs (what :meth:`cancel` cancels).
        self.group = f"crawlmill-{uuid.uuid4().hex[:12]}"
        #: jobs (tasks) in flight at most.
        self.slots = max(1, int(self.sc.defaultParallelism))
        self._submitted = False
        #: the tasks' live progress (the status channel) against their final counts.
        self._tally = LiveTally(self.channel.post)
        self._status = _status_server(self.sc)
        if self._status is not None:
            self._status.route(self._tally.live)
        self._executors: set[str] | None = None
        self._watched = 0.0

    def map(self, fn: Callable[[Any], Any], payloads: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        """Yield ``(i, result)`` as Spark tasks finish (see the module docstring)."""
        if not payloads:
            return
        try:
            fn_blob = pickle.dumps(fn)
        except Exception as exc:
            raise TypeError(
                f"the spark executor ships task functions by reference: {fn!r} cannot be "
                f"pickled ({exc})"
            ) from exc
        pairs: list[tuple[int, bytes]] = []
        for i, payload in enumerate(payloads):
            try:
                pairs.append((i, pickle.dumps(payload)))
            except Exception as exc:  # as the local executor: this payload fails, not the run
                yield i, WorkerCrash(f"{type(exc).__name__}: {exc}")
        if not pairs:
            return
        rdd = self.sc.parallelize(pairs, len(pairs))
        partition_fn = _partition_fn(fn_blob, list(sys.path), _version())
        jobs = [(pairs[part][0], rdd, part, partition_fn) for part in range(len(pairs))]
        yield from self.jobs(jobs)

    def jobs(self, jobs: Sequence[tuple[int, Any, int, Callable]]) -> Iterator[tuple[int, Any]]:
        """Run each ``(i, rdd, partition, fn)`` as one Spark job, ``fn`` on the iterator of
        ``rdd``'s ``partition`` returning one ``(i, pickled (result, events))``, at most
        :attr:`slots` at once in the executor's job group; yield ``(i, result)`` as jobs end
        (a failed job: a :class:`WorkerCrash`; a cancelled one: nothing)."""
        publish_driver()  # the driver's own writes reach the store before tasks pull it
        todo = list(jobs)
        todo.reverse()
        running: dict[Future, int] = {}
        threads = ThreadPoolExecutor(self.slots, thread_name_prefix="crawlmill-spark")
        try:
            while todo or running:
                while todo and len(running) < self.slots and not self.cancelled:
                    i, rdd, part, fn = todo.pop()
                    running[threads.submit(self._job, rdd, fn, part)] = i
                    self._submitted = True
                if not running:
                    break
                done, _ = wait(running, timeout=0.25, return_when=FIRST_COMPLETED)
                self._watch_executors()
                for fut in done:
                    answer = self._answer(fut, running.pop(fut))
                    if answer is not None:
                        yield answer
        except BaseException:  # Ctrl-C or the consumer gave up: stop the tasks first
            self.cancel()
            raise
        finally:
            if self.cancelled:
                self._wait_for_tasks(running)
            threads.shutdown(wait=True, cancel_futures=True)

    def _job(self, rdd: Any, partition_fn: Callable, part: int) -> list[tuple[int, bytes]]:
        """One partition as one Spark job, in the executor's job group (a driver thread)."""
        self.sc.setJobGroup(self.group, "crawlmill tasks", interruptOnCancel=True)
        return self.sc.runJob(rdd, partition_fn, [part])

    def _answer(self, fut: Future, i: int) -> tuple[int, Any] | None:
        """``(i, result)`` of a finished job, its events posted on the channel; ``None`` for a
        job cancelled by :meth:`cancel` (a cancelled payload is never yielded)."""
        try:
            rows = fut.result()
        except Exception as exc:
            if self.cancelled:
                return None
            return i, WorkerCrash(spark_failure(exc))
        if len(rows) != 1:
            return i, WorkerCrash(f"the Spark task returned {len(rows)} results, expected 1")
        result, events = pickle.loads(rows[0][1])
        events = apply_events(events)  # what a staged task uploaded, into the driver's stage
        self._tally.final(events)
        return i, result

    def cancel(self) -> None:
        """Submit no further task and cancel the running ones (their Spark job group)."""
        already = self.cancelled
        super().cancel()
        if not already and self._submitted:
            with contextlib.suppress(Exception):
                self.sc.cancelJobGroup(self.group)

    def _wait_for_tasks(self, running: Mapping[Future, int]) -> None:
        """After a cancel: until Spark reports no task of the group running (at most
        :data:`CANCEL_WAIT_SECONDS`), so nothing of this run writes after ``map`` ends."""
        deadline = time.monotonic() + CANCEL_WAIT_SECONDS
        wait(list(running), timeout=CANCEL_WAIT_SECONDS)
        quiet_since = None  # Spark's status tracker follows its listener bus, which lags
        while time.monotonic() < deadline:
            try:
                active = _active_tasks(self.sc.statusTracker(), self.group)
            except Exception:  # the context went away: its tasks with it
                return
            now = time.monotonic()
            if active:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = now
            elif now - quiet_since >= CANCEL_QUIET_SECONDS:
                return
            time.sleep(0.1)

    def _watch_executors(self) -> None:
        """At most once a second while jobs run: one line of ours for each Spark executor
        that went away (a lost worker; Spark runs its tasks again elsewhere)."""
        now = time.monotonic()
        if now - self._watched < 1.0:
            return
        self._watched = now
        try:
            infos = self.sc._jsc.sc().statusTracker().getExecutorInfos()
            current = {f"{info.host()}:{info.port()}" for info in infos}
        except Exception:  # the context went away: the jobs say so
            return
        for lost in sorted((self._executors or set()) - current):
            self.channel.post(
                (
                    "log",
                    f"crawlmill: Spark lost its executor at {lost} (its worker stopped or "
                    "was lost, or dynamic allocation released it); any task it ran runs "
                    "again on the other executors",
                )
            )
        self._executors = current

    def close(self) -> None:
        """The context stays up for later runs of this process (stopped at exit); the
        status channel stops feeding this executor."""
        if self._status is not None:
            self._status.route(None)

    def shuffle(self, shuffle: Any) -> Any:
        """A sorted shuffle on Spark's own shuffle and sort for ``shuffle`` (a
        :class:`~crawlmill.core.ShuffleSpec`), run by this executor:
        :class:`~crawlmill.core.run.spark_shuffle.SparkShuffle`."""
        from .spark_shuffle import SparkShuffle

        return SparkShuffle(self, shuffle)


_STATUS: StatusServer | None = None
_STATUS_TRIED = False


def _status_server(sc: Any) -> StatusServer | None:
    """The process's status channel (:mod:`crawlmill.core.run.spark_progress`), started at
    the first executor; its address goes to the workers with the driver's ``CRAWLMILL_*``
    variables. ``None`` when it cannot listen (progress then comes as tasks end)."""
    global _STATUS, _STATUS_TRIED
    with _LOCK:
        if not _STATUS_TRIED:
            _STATUS_TRIED = True
            try:
                _STATUS = StatusServer(server_host(sc.getConf()))
            except OSError:
                _STATUS = None
            else:
                os.environ[STATUS_ENV] = _STATUS.address
        return _STATUS


def _partition_fn(fn_blob: bytes, sys_path: list[str], version: str) -> Callable:
    from functools import partial

    return partial(_run_partition, fn_blob, sys_path, version, _driver_env())


def _active_tasks(tracker: Any, group: str) -> int:
    """Tasks of ``group``'s jobs that Spark still counts as running."""
    active = 0
    for job_id in tracker.getJobIdsForGroup(group):
        job = tracker.getJobInfo(job_id)
        for stage_id in job.stageIds if job is not None else []:
            stage = tracker.getStageInfo(stage_id)
            if stage is not None:
                active += stage.numActiveTasks
    return active


def _queue() -> Any:
    import queue

    return queue.Queue()
