"""The fault-injection run of ``nutch-webgraph`` and ``nutch-hostdb`` (:mod:`.db_cases`):
every intact database converts with every entry, and every damaged part passes the
SequenceFile family's checks through the real CLI, with the other parts delivered whole.
``CRAWLMILL_FAULT_SEEDS=N`` runs every pair with seeds 0..N-1."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from .cases import Case
from .db_cases import DbHarness, enumerate_db_cases
from .db_inputs import DB_INPUTS

_SWEEP = int(os.environ.get("CRAWLMILL_FAULT_SEEDS", "0") or 0)


def _cases() -> list[Case]:
    with tempfile.TemporaryDirectory() as tmp:
        return enumerate_db_cases(DbHarness(Path(tmp)), range(_SWEEP or 1))


CASES = _cases()


@pytest.fixture(scope="session")
def db_harness(tmp_path_factory):
    h = DbHarness(tmp_path_factory.mktemp("dbfaults"))
    yield h
    h.close()


@pytest.mark.parametrize("input_id", [k.id for k in DB_INPUTS])
def test_intact_database_converts_exactly(db_harness, input_id):
    """The intact folder converts with exit 0, no damage, one output entry per entry."""
    base = db_harness.baseline(input_id)
    assert not base.failures, "\n".join(f"{a}: {m}" for a, m in base.failures)
    assert len(base.part) == len(db_harness.intact(input_id)[0].entries)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_damaged_database(db_harness, case):
    """No crash (exit 0 or 3); every promised entry delivered as from the intact folder, the
    other parts whole; damage reported with file and offset near it; exact accounting."""
    result = db_harness.run_case(case)
    if result.failures:
        lines = [f"{case.id}: {result.damaged.description}",
                 f"  crawlmill {result.argv} -> exit {result.rc}"]  # fmt: skip
        lines += [f"  {a}: {m}" for a, m in result.failures]
        raise AssertionError("\n".join(lines))


def test_every_pattern_runs_on_the_databases():
    """Each input gets the SequenceFile patterns that apply to its compression."""
    by_input = {k.id: {c.pattern for c in CASES if c.input == k.id} for k in DB_INPUTS}
    assert all(len(v) >= 10 for v in by_input.values()), by_input
