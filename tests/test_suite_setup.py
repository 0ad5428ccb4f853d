"""The test suite's own set-up: it runs in parallel (pytest-xdist) by default, keeps the tests of
the session's SparkContext in one worker, and README tells how to run a quick loop and how to
run in one process."""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path

import pytest

from tests.conftest import (
    HADOOP_GROUP,
    ROOT,
    SPARK_GROUP,
    pytest_collection_modifyitems,
    pytest_xdist_auto_num_workers,
)

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
INI = PYPROJECT["tool"]["pytest"]["ini_options"]


def test_the_suite_runs_in_parallel_by_default():
    addopts = shlex.split(INI["addopts"])
    assert addopts[addopts.index("-n") + 1] == "auto"
    assert addopts[addopts.index("--dist") + 1] == "loadgroup"  # xdist_group is honoured
    extras = PYPROJECT["project"]["optional-dependencies"]["test"]
    assert any(req.startswith("pytest-xdist") for req in extras)


def test_readme_shows_the_quick_loop_and_the_one_process_run():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert '`python -m pytest -m "not slow"`' in readme
    assert "`python -m pytest -n 0`" in readme
    assert any(m.startswith("slow:") for m in INI["markers"])


class _Item:
    """What the grouping hook reads of a collected test."""

    def __init__(self, *fixtures: str, module: str = "test_x.py") -> None:
        self.fixturenames = list(fixtures)
        self.path = Path("tests") / module
        self.markers: list[pytest.Mark] = []

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self.markers.append(marker.mark)


def test_the_tests_of_the_spark_context_share_two_workers_and_are_slow():
    spark = _Item("tmp_path", "spark_sc", module="test_spark_pipelines.py")
    oracle = _Item("spark_sc", module="test_mapfile_hadoop.py")
    other = _Item("tmp_path")
    pytest_collection_modifyitems([spark, oracle, other])
    assert {(m.name, m.args) for m in spark.markers} == {
        ("xdist_group", (SPARK_GROUP,)),
        ("slow", ()),
    }
    assert {(m.name, m.args) for m in oracle.markers} == {
        ("xdist_group", (HADOOP_GROUP,)),
        ("slow", ()),
    }
    assert other.markers == []


def test_auto_is_two_workers_per_core():
    import os

    cores = len(os.sched_getaffinity(0))
    assert pytest_xdist_auto_num_workers(None) == min(2 * cores, 16)
