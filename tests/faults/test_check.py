"""The checks can fail: each assertion of :mod:`.check` is shown to fire on a run that breaks
it (real CLI runs on the synthetic WARC, with the claims or the report altered)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from .cases import Case, Harness
from .check import Baseline, evaluate


@pytest.fixture(scope="module")
def harness(tmp_path_factory, need):
    need("warcio")
    h = Harness(tmp_path_factory.mktemp("check"), keep=True)
    yield h
    h.close()


def _run(harness: Harness, pattern: str):
    case = Case("warc/plain", pattern, 0)
    res = harness.run_case(case)
    work = harness.root / "cases" / case.id.replace("/", "_")
    return res, work / "in" / harness.intact("warc/plain").name, work / "out"


def _tags(fails) -> set[str]:
    return {a for a, _ in fails}


def test_a_passing_case_passes(harness):
    res, _, _ = _run(harness, "truncate-boundary")
    assert res.failures == []


def test_each_assertion_fires(harness):
    intact = harness.intact("warc/plain")
    base = harness.baseline("warc/plain")
    res, path, out = _run(harness, "truncate-boundary")
    dmg, run_rc = res.damaged, res.rc
    run = harness.runner.run(
        ["convert", str(path), "--to", "warc", "-o", str(out), "--no-resume"],
        out.parent,
        out.parent / "logs2",
    )
    assert run_rc == run.rc == 0
    # records the truncation removed, claimed untouched: lost
    assert "lost" in _tags(
        evaluate(intact, base, replace(dmg, removed=frozenset()), path, run, out)
    )
    # damage claimed detectable, none reported: unreported
    assert "unreported" in _tags(
        evaluate(intact, base, replace(dmg, expect_report=True, clean=False), path, run, out)
    )
    # a run 200 MiB above the intact one: memory
    heavy = replace(run, maxrss_kb=base.rss_kb + 200 * 1024)
    assert "memory" in _tags(evaluate(intact, base, dmg, path, heavy, out))
    # a changed record: the exact form differs
    first = min(base.exact)
    bent = Baseline({**base.exact, first: ("WARC/1.0", (), "x", 0)}, base.rss_kb, [])
    assert "changed" in _tags(evaluate(intact, bent, dmg, path, run, out))
    # the report altered: accounting, offsets, spurious
    report = out / ".crawlmill" / "report.json"
    data = json.loads(report.read_text())
    data["written"] += 1
    data["damages"] = [{"path": str(path), "offset": len(dmg.data) + 5, "length": 3, "reason": "x"}]
    report.write_text(json.dumps(data))
    tags = _tags(evaluate(intact, base, dmg, path, run, out))
    assert {"accounting", "offsets", "spurious"} <= tags
    # an unhandled exception is recognised in stderr
    crashed = replace(run, rc=1, stderr="Traceback (most recent call last):\n  boom")
    assert "exception" in _tags(evaluate(intact, base, dmg, path, crashed, out))


def test_duplicate_ids_fire_only_in_files_crawlmill_built():
    from .check import duplicate_id_failures
    from .oracle import OutRecord

    def rec(file, rid, info=False):
        headers = (("WARC-Record-ID", rid),)
        return OutRecord(file, "WARC/1.1", headers, "x", 0, (), info, False)

    built = [
        rec("a.warc.gz", "<urn:uuid:0>", True),
        rec("a.warc.gz", "<urn:1>"),
        rec("a.warc.gz", "<urn:1>"),
    ]
    copied = [rec("b.warc.gz", "<urn:2>"), rec("b.warc.gz", "<urn:2>")]  # the input's own ids
    assert _tags(duplicate_id_failures(built + copied)) == {"duplicate-ids"}
    assert "a.warc.gz" in duplicate_id_failures(built)[0][1]
    assert duplicate_id_failures(copied) == []
    assert duplicate_id_failures(built[:2]) == []
