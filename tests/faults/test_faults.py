"""The fault-injection run in CI: every reader's intact inputs convert cleanly, and every
(input, damage pattern) case passes the checks of :mod:`.check` through the real CLI.

Cases that fail on today's code are listed in :mod:`.known_failures` and marked
``xfail(strict=True)``: a fixed case then fails loudly until its entry is removed."""

from __future__ import annotations

import pytest

from .cases import Harness, enumerate_cases
from .known_failures import known_failure
from .readers import all_inputs


def _case_params() -> list:
    params = []
    for case in enumerate_cases():
        reason = known_failure(case.input, case.pattern, case.seed)
        marks = (
            [pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason)] if reason else []
        )
        if case.pattern.startswith("bomb"):  # inflate 256 MiB or read a 64 MiB header line
            marks.append(pytest.mark.slow)
        params.append(pytest.param(case, id=case.id, marks=marks))
    return params


@pytest.fixture(scope="session")
def harness(tmp_path_factory, need):
    """One harness (fork server, intact inputs, baselines) for the whole session."""
    need("warcio")
    need("zstandard")
    h = Harness(tmp_path_factory.mktemp("faults"))
    yield h
    h.close()


def _needs_samples(request, input_id: str, harness: Harness) -> None:
    if harness.kind(input_id).sample:
        request.getfixturevalue("samples")  # skips (fails in CI) when the samples are absent


@pytest.mark.parametrize("input_id", [k.id for k in all_inputs()])
def test_intact_input_converts_byte_exact(request, harness, input_id):
    """The intact input converts with exit 0, no damage, every record byte-exact."""
    _needs_samples(request, input_id, harness)
    base = harness.baseline(input_id)
    assert not base.failures, "\n".join(f"{a}: {m}" for a, m in base.failures)


@pytest.mark.parametrize("case", _case_params())
def test_damaged_input(request, harness, case):
    """No crash; untouched records byte-exact; damage reported near it; accounting; memory."""
    _needs_samples(request, case.input, harness)
    result = harness.run_case(case)
    if result.failures:
        lines = [
            f"{case.id}: {result.damaged.description}",
            f"  crawlmill {result.logs['argv']} -> exit {result.rc}",
        ]
        lines += [f"  {a}: {m}" for a, m in result.failures]
        raise AssertionError("\n".join(lines))
