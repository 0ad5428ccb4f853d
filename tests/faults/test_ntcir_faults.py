"""The fault-injection run of the ``ntcir`` reader (:mod:`.ntcir_cases`): the intact synthetic
NW100G-01 collection converts with every page byte-exact, and every damage pattern passes
the family's checks through the real CLI (no crash, untouched pages byte-exact, touched pages
delivered or named, promised problems reported, exact accounting).

CI runs each pattern once (seed 0); ``CRAWLMILL_FAULT_SEEDS=N`` runs every pattern with seeds
0..N-1. Cases failing on today's code are in :mod:`.known_failures` (``xfail(strict=True)``)."""

from __future__ import annotations

import os

import pytest

from .known_failures import known_failure
from .ntcir_cases import INPUTS, NTCIR_PATTERNS, NtcirHarness, enumerate_ntcir_cases
from .runner import Runner

_SWEEP = int(os.environ.get("CRAWLMILL_FAULT_SEEDS", "0") or 0)


def _params() -> list:
    params = []
    for case in enumerate_ntcir_cases(range(_SWEEP or 1)):
        reason = known_failure(case.input, case.pattern, case.seed)
        marks = (
            [pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason)] if reason else []
        )
        params.append(pytest.param(case, id=case.id, marks=marks))
    return params


@pytest.fixture(scope="module")
def ntcir_harnesses(tmp_path_factory, need):
    """A harness per input (intact tree, baseline), one fork server, for the module."""
    need("warcio")
    root, runner = tmp_path_factory.mktemp("ntcirfaults"), Runner()
    yield {i: NtcirHarness(root, runner, input_id=i) for i in INPUTS}
    runner.close()


@pytest.mark.parametrize("input_id", list(INPUTS))
def test_intact_tree_converts_byte_exact(ntcir_harnesses, input_id):
    """The intact tree converts with exit 0, no problem, every page byte-exact."""
    harness = ntcir_harnesses[input_id]
    exact = harness.baseline()
    assert not harness.base_failures, harness.base_failures
    assert len(exact) == len(harness.pages()) == 12


@pytest.mark.parametrize("case", _params())
def test_damaged_tree(ntcir_harnesses, case):
    """No crash; untouched pages byte-exact; touched pages delivered or named; the promised
    problems reported; accounting."""
    result = ntcir_harnesses[case.input].run_case(case)
    if result.failures:
        lines = [f"{case.id}: {result.damaged.description}",
                 f"  crawlmill {result.argv} -> exit {result.rc}"]  # fmt: skip
        lines += [f"  {a}: {m}" for a, m in result.failures]
        raise AssertionError("\n".join(lines))


def test_patterns_cover_the_tree():
    """Pages (cut, zeroed, flipped, deleted, added, a folder in their place), ``.meta`` files
    (cut in the head and the fields, emptied, values changed, garbled), folders renamed and
    every way of damaging a list are all patterns of the family."""
    names = set(NTCIR_PATTERNS)
    assert {"data-cut-body", "meta-cut-head", "page-deleted", "extra-page", "folder-renamed",
            "data-is-folder", "list-nul", "list-deleted", "list-cut"} <= names  # fmt: skip
    by_input = {i: {c.pattern for c in enumerate_ntcir_cases() if c.input == i} for i in INPUTS}
    assert by_input["ntcir/nw100g"] == names
    assert by_input["ntcir/nw100g-lines"] == {n for n in names if n.startswith("meta-")}
