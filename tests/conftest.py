"""Shared test fixtures: the sample folder and the oracle rule.

Oracle rule: a test that needs an independent implementation (warcio, FastWARC, cdxj-indexer,
Java, pyspark...) calls :func:`need`. On a user's machine a missing oracle skips the test with a
reason; in CI (``CRAWLMILL_REQUIRE_ORACLES=1``) it fails, so no oracle check is ever skipped
silently there.
"""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path

import pytest
from crawlmill.core import problems as _problems

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SAMPLES = Path(os.environ.get("CRAWLMILL_SAMPLES", ROOT.parent / "shared" / "samples"))
REQUIRE_ORACLES = os.environ.get("CRAWLMILL_REQUIRE_ORACLES") == "1"


#: every ARC file in ../shared/samples (test_arc_reader.py fails when a new one is not listed);
#: tests that take an ``arc_rel`` argument run once per file.
ARC_SAMPLES = [
    "webrecorder-warcio/test/data/example.arc",
    "webrecorder-warcio/test/data/example.arc.gz",
    "webrecorder-warcio/test/data/example-space-in-url.arc",
    "webrecorder-warcio/test/data/bad.arc",
    "kris-sigur-jwat/jwat-arc/src/test/resources/1-1-20110922131213-00000-svc-VirtualBox.arc",
    "kris-sigur-jwat/jwat-arc/src/test/resources/IAH-20080430204825-00000-blackbook.arc.gz",
    "kris-sigur-jwat/jwat-arc/src/test/resources/small_BNF.arc",
    "kris-sigur-jwat/jwat-arc/src/test/resources/test-arc-1.0-dashed-fields.arc",
    "kris-sigur-jwat/jwat-arc/src/test/resources/test-arc-1.0-invalid-fields.arc",
    "ukwa-webarchive-discovery/warc-indexer/src/test/resources/IAH-20080430204825-00000-blackbook-truncated.arc.gz",
    "commoncrawl-arc2warc-conversion/test/resources/arc/crawl-002_2009_09_17_12_1253241189984_12-4827319.arc.gz",
    "commoncrawl-arc2warc-conversion/test/resources/arc/crawl-002_2010_02_16_114_1266352769711_14-7060652.arc.gz",
    "commoncrawl-arc2warc-conversion/test/resources/arc/crawl-2012_1341690165636_1341785606830_6-0-4421.arc.gz",
    "commoncrawl-arc2warc-conversion/test/resources/arc/crawl-2012_1341690165832_1341699469441_1478-7224105.arc.gz",
]

#: the ARC files (and the one non-archive control, input-nonarc.arc) of
#: ../shared/samples/real-world-2026-11: many are damaged, so they are checked by
#: tests/plugins/test_real_world_arc.py (against warcio and warctools, damage allowed where
#: reported), not by the damage-free oracle comparison of test_arc_reader.py.
REAL_WORLD_ARC_SAMPLES = [
    "real-world-2026-11/archivesunleashed-aut/src__test__resources__arc__badexample.arc.gz",
    "real-world-2026-11/iipc-openwayback/wayback-core__src__test__java__org__archive__wayback__resourcestore__testdata__testdata1.arc",
    "real-world-2026-11/iipc-webarchive-commons/src__test__resources__org__archive__format__arc__137542-153-20111129020925-00316-kb-prod-har-003.kb.dk_truncated.arc",
    "real-world-2026-11/iipc-webarchive-commons/src__test__resources__org__archive__format__arc__IAH-20080430204825-00000-blackbook-truncated.arc",
    "real-world-2026-11/iipc-webarchive-commons/wax__src__regression__data__cz-pagesinczech.arc.gz",
    "real-world-2026-11/internetarchive-warc/test_data__alexa_short_header.arc.gz",
    "real-world-2026-11/netarchivesuite-netarchivesuite/archive__archive-core__tests__dk__netarkivet__archive__arcrepository__data__get__originals__bitarchive1__filedir__get1.ARC",
    "real-world-2026-11/netarchivesuite-netarchivesuite/archive__archive-test__tests__dk__netarkivet__archive__arcrepository__bitpreservation__data__originals__bitarchive1_to_fail__filedir__integrity1.ARC",
    "real-world-2026-11/netarchivesuite-netarchivesuite/archive__archive-test__tests__dk__netarkivet__archive__bitarchive__data__admin__originals__CorrectTest1.ARC",
    "real-world-2026-11/netarchivesuite-netarchivesuite/archive__archive-test__tests__dk__netarkivet__archive__checksum__distribute__data__original__basefiledir__NetarchiveSuite-correct2.arc",
    "real-world-2026-11/netarchivesuite-netarchivesuite/archive__archive-test__tests__dk__netarkivet__archive__distribute__arcrepository__data__originals__3-3-20070119143010-00000-sb-test-har-001.statsbiblioteket.dk.arc",
    "real-world-2026-11/netarchivesuite-netarchivesuite/archive__archive-test__tests__dk__netarkivet__common__utils__arc__data__originals__input-illegal.arc",
    "real-world-2026-11/netarchivesuite-netarchivesuite/archive__archive-test__tests__dk__netarkivet__common__utils__arc__data__originals__input-nonarc.arc",
    "real-world-2026-11/netarchivesuite-netarchivesuite/common__common-test__tests__dk__netarkivet__common__utils__arc__data__input__NetarchiveSuite-netarkivet.arc.gz",
    "real-world-2026-11/netarchivesuite-netarchivesuite/common__common-test__tests__dk__netarkivet__common__utils__arc__data__input__fyensdk.arc",
    "real-world-2026-11/netarchivesuite-netarchivesuite/harvester__harvester-test__tests__dk__netarkivet__harvester__indexserver__data__originals__arcfiles__30-metadata-4.arc",
    "real-world-2026-11/richardlehane-webarchive/examples__hello-world.arc",
    "real-world-2026-11/richardlehane-webarchive/examples__hello-world2.arc",
]


def pytest_configure(config: pytest.Config) -> None:
    """Register the opt-in per-test CPU log (tests/cpu_log.py) when asked for."""
    prefix = os.environ.get("CRAWLMILL_TEST_CPU_LOG")
    if prefix:
        from tests.cpu_log import CpuLog

        config.pluginmanager.register(CpuLog(prefix), "crawlmill-cpu-log")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``arc_rel`` (a path below the samples folder) over :data:`ARC_SAMPLES`, and
    ``real_arc`` over :data:`REAL_WORLD_ARC_SAMPLES`."""
    if "arc_rel" in metafunc.fixturenames:
        metafunc.parametrize("arc_rel", ARC_SAMPLES, ids=lambda p: p.rsplit("/", 1)[-1])
    if "real_arc" in metafunc.fixturenames:
        metafunc.parametrize(
            "real_arc", REAL_WORLD_ARC_SAMPLES, ids=lambda p: p.rsplit("__", 1)[-1]
        )


#: the ``xdist_group`` of the tests of the Spark executor that use the session's SparkContext
#: (``spark_sc``): the modules named ``*spark*``.
SPARK_GROUP = "spark"
#: the ``xdist_group`` of the other tests of ``spark_sc``: Hadoop's and Nutch's Java classes as
#: oracles, reached through the context's JVM.
HADOOP_GROUP = "hadoop-oracles"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers per core (at most 16). A third of the suite's time is spent
    waiting (subprocesses, JVMs starting, Spark tasks, a server), not computing; on CI's two
    cores four workers fill those waits."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(2 * (cores or 1), 16)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``--dist loadgroup``, pyproject.toml) the tests that use the
    session's SparkContext run in two workers, not in every one: the Spark executor's tests in
    one (:data:`SPARK_GROUP`), the Java oracles' in another (:data:`HADOOP_GROUP`), so the
    suite starts at most two Spark JVMs and the two halves run side by side (xdist hands out
    the largest groups first). They are ``slow`` too: the quick loop (``-m "not slow"``)
    starts no JVM."""
    for item in items:
        if "spark_sc" in item.fixturenames:
            group = SPARK_GROUP if "spark" in item.path.name else HADOOP_GROUP
            item.add_marker(pytest.mark.xdist_group(group))
            item.add_marker(pytest.mark.slow)


def _missing(what: str) -> None:
    if REQUIRE_ORACLES:
        pytest.fail(f"oracle {what} is missing and CRAWLMILL_REQUIRE_ORACLES=1", pytrace=False)
    pytest.skip(f"oracle {what} is not installed")


def need(module: str):
    """Import and return the oracle ``module``; skip (or fail in CI) when it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError:
        _missing(f"python module {module!r}")


def need_command(command: str) -> str:
    """Path of the oracle command ``command``; skip (or fail in CI) when it is missing."""
    path = shutil.which(command)
    if path is None:
        _missing(f"command {command!r}")
    return path


@pytest.fixture(name="need", scope="session")
def need_fixture():
    """The :func:`need` function as a fixture: ``def test_x(need): fastwarc = need("fastwarc")``."""
    return need


@pytest.fixture(name="need_command", scope="session")
def need_command_fixture():
    """The :func:`need_command` function as a fixture."""
    return need_command


@pytest.fixture(scope="session")
def nutch_java(tmp_path_factory):
    """Nutch's own classes, compiled once per session (by the first xdist worker that needs
    them) on first use (tests/nutch_oracle.py: skips, or fails in CI, without javac, java or
    pyspark)."""
    from tests.nutch_oracle import NutchJava
    from tests.shared_build import shared_root

    return NutchJava(shared_root(tmp_path_factory))


@pytest.fixture(scope="session")
def samples() -> Path:
    """``../shared/samples`` (third-party sample files); skips when the folder is absent,
    fails in CI where it must be present."""
    if not SAMPLES.is_dir():
        _missing(f"sample folder {SAMPLES}")
    return SAMPLES


@pytest.fixture
def arc_sample(arc_rel: str, samples: Path) -> Path:
    """The sample ARC file ``arc_rel`` names (see :func:`pytest_generate_tests`); fails when it
    is missing."""
    path = samples / arc_rel
    if not path.exists():
        pytest.fail(f"sample {path} is missing")
    return path


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """The repository's own ``fixtures/`` folder."""
    return FIXTURES


@pytest.fixture(scope="session")
def arc_samples() -> list[str]:
    """:data:`ARC_SAMPLES` + :data:`REAL_WORLD_ARC_SAMPLES`: every ARC file of the samples
    folder, relative to it."""
    return list(ARC_SAMPLES) + list(REAL_WORLD_ARC_SAMPLES)


@pytest.fixture(scope="session")
def real_world_arcs() -> list[str]:
    """:data:`REAL_WORLD_ARC_SAMPLES`, relative to the samples folder."""
    return list(REAL_WORLD_ARC_SAMPLES)


@pytest.fixture(scope="session")
def arc_named(samples: Path):
    """``arc_named("example.arc.gz")``: the path of the ARC sample with that file name."""

    def find(name: str) -> Path:
        (rel,) = [r for r in ARC_SAMPLES if r.rsplit("/", 1)[-1] == name]
        return samples / rel

    return find


def listed_codes() -> set[str]:
    """The problem codes ``docs/problems.md`` lists (its table rows start with a code)."""
    import re

    text = (ROOT / "docs" / "problems.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| `([a-z0-9-]+)` \|", text, re.M))


@pytest.fixture(autouse=True)
def _codes_are_listed(request: pytest.FixtureRequest):
    """Every problem code a test makes in this process (built-in readers and writers give
    theirs explicitly) must be listed in docs/problems.md, except in tests marked
    ``own_codes`` (a test plugin's own codes)."""
    made: list[str] = []

    def observe(code: str) -> None:
        made.append(code)

    _problems.observers.append(observe)
    yield
    _problems.observers.remove(observe)
    if made and request.node.get_closest_marker("own_codes") is None:
        unlisted = sorted(set(made) - listed_codes())
        if unlisted:
            pytest.fail(f"problem codes not listed in docs/problems.md: {unlisted}", pytrace=False)


@pytest.fixture(autouse=True)
def _record_ids_are_unique(request: pytest.FixtureRequest):
    """Every WARC file crawlmill built (first record crawlmill's warcinfo) that a test leaves
    under its ``tmp_path`` has unique ``WARC-Record-ID``s (WARC 1.1 section 5.2), read by
    FastWARC after the test (files up to ``helpers.ID_CHECK_MAX_BYTES``); tests that do not
    use ``tmp_path`` write nowhere this check looks."""
    if "tmp_path" not in request.fixturenames:
        yield
        return
    root = request.getfixturevalue("tmp_path")
    yield
    from tests.helpers import assert_unique_ids_under

    try:
        assert_unique_ids_under(root)
    except AssertionError as exc:
        pytest.fail(f"duplicate record ids in an output: {exc}", pytrace=False)
