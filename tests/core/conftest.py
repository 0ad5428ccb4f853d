"""Fixtures of the engine tests: the fake plugins (``tests/core/fake_plugins/cm_fake.py``) and
spec/input builders.

Fake plugins reach worker processes by module name (``spec.plugins == ["cm_fake"]``): the
fixture puts their folder on ``sys.path`` and the local executor hands the parent's
``sys.path`` to every worker.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import need, need_command

FAKE_DIR = Path(__file__).resolve().parent / "fake_plugins"


@pytest.fixture
def fake(monkeypatch, request):
    """Makes ``cm_fake`` importable (here and in workers); returns a spec factory. The fake
    plugins' problem codes are their own (``own_codes``: not listed in docs/problems.md)."""
    monkeypatch.syspath_prepend(str(FAKE_DIR))
    request.node.add_marker(pytest.mark.own_codes)

    from crawlmill.core.spec import PipelineSpec

    def make_spec(
        inputs,
        output,
        *,
        reader="fake-lines",
        reader_options=None,
        filters=(),
        writer_options=None,
        **run,
    ):
        return PipelineSpec.model_validate(
            {
                "inputs": {"paths": [str(i) for i in inputs]},
                "reader": {"name": reader, "options": reader_options or {}} if reader else None,
                "filters": [{"name": n, "options": o} for n, o in filters],
                "writer": {"name": "fake-jsonl", "options": writer_options or {}},
                "output": str(output),
                "run": {"workers": 1, "progress": "never", **run},
                "plugins": ["cm_fake"],
            }
        )

    return make_spec


def write_lines(path: Path, lines: list[str]) -> Path:
    """Write a fake-format input file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines))
    return path


@pytest.fixture
def lines():
    """The :func:`write_lines` helper."""
    return write_lines


#: the Spark master of the Spark tests (tests/core/test_spark*.py).
SPARK_MASTER = "local[2]"
#: the options of the tests' Spark JVMs (the session's driver, the standalone cluster's
#: daemons, executors and driver): the client compiler only and the serial collector (a
#: driver's start: about 7 s of CPU instead of 11 on this 2-core machine), and no bytecode
#: verification of the jars' classes (a fifth less CPU to start a Spark daemon; the classes
#: are the pyspark wheel's, and none of ours is tested by the verifier).
JVM_OPTIONS = (
    "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC "
    "-XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote"
)
#: Spark conf of the tests: no web UI; the driver JVM with :data:`JVM_OPTIONS`.
SPARK_CONF = {
    "spark.ui.enabled": "false",
    "spark.python.task.killTimeout": "500ms",
    "spark.driver.extraJavaOptions": JVM_OPTIONS,
}


@pytest.fixture(scope="session")
def spark_sc():
    """The session's SparkContext (``local[2]``, UI off), started as the spark executor starts
    it, shared by every Spark test so the suite pays the JVM start-up once. pyspark and Java
    are oracles: missing, the test skips (fails under ``CRAWLMILL_REQUIRE_ORACLES=1``)."""
    need("pyspark")
    need_command("java")
    from crawlmill.core.run import spark_executor

    sc = spark_executor.spark_context(SPARK_MASTER, SPARK_CONF)
    yield sc
    spark_executor._stop_owned()


@pytest.fixture(scope="session")
def hadoop_loops(spark_sc, tmp_path_factory):
    """Hadoop's readers and writers over many keys per py4j call (tests/hadoop_oracle.py), in
    the session SparkContext's JVM; the harness compiled once per session."""
    from tests.hadoop_oracle import HadoopLoops
    from tests.shared_build import shared_root

    return HadoopLoops(spark_sc, shared_root(tmp_path_factory))
