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

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SAMPLES = Path(os.environ.get("CRAWLMILL_SAMPLES", ROOT.parent / "shared" / "samples"))
REQUIRE_ORACLES = os.environ.get("CRAWLMILL_REQUIRE_ORACLES") == "1"


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
def samples() -> Path:
    """``../shared/samples`` (third-party sample files); skips when the folder is absent,
    fails in CI where it must be present."""
    if not SAMPLES.is_dir():
        _missing(f"sample folder {SAMPLES}")
    return SAMPLES


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """The repository's own ``fixtures/`` folder."""
    return FIXTURES
