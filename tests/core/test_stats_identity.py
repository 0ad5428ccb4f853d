"""core/stats.py: the accounting identity with records the writer adds, collection checks
beside the accounting, and the one-line summaries the CLI prints."""

from __future__ import annotations

import pytest
from crawlmill.core.stats import AccountingError, RunReport, TaskStats


def _task(**kw) -> TaskStats:
    stats = TaskStats(filters={"kind": {"in": 0, "kept": 0, "dropped": {}}})
    for key, value in kw.items():
        setattr(stats, key, value)
    return stats


def test_written_includes_added_records_and_the_identity_holds():
    # 5 read: 1 damaged, 4 records; the filter drops 1; the writer refuses 1, adds 2
    stats = _task(read=5, records=4, damaged=1, received=3, writer_quarantined=1, added=2)
    stats.filters["kind"] = {"in": 4, "kept": 3, "dropped": {"wrong-kind": 1}}
    assert stats.written == 4  # 3 received - 1 refused + 2 added: the records in the files
    assert stats.quarantined == 2
    stats.check()  # 5 + 2 == 4 + 1 + 2
    report = RunReport()
    report.add_task(stats, ["kind"])
    report.check()
    assert (report.read, report.added, report.written) == (5, 2, 4)
    assert report.accounting_line() == (
        "read 5 + added 2 by the writer = written 4 + dropped 1 (kind:wrong-kind 1) + quarantined 2"
    )


def test_the_line_without_added_records_is_the_plain_identity():
    stats = _task(read=2, records=2, received=2)
    stats.filters["kind"] = {"in": 2, "kept": 2, "dropped": {}}
    report = RunReport()
    report.add_task(stats, ["kind"])
    assert report.accounting_line() == "read 2 = written 2 + dropped 0 + quarantined 0"


def test_a_wrong_added_count_breaks_the_identity():
    stats = _task(read=2, records=2, received=2, added=-1)
    stats.filters["kind"] = {"in": 2, "kept": 2, "dropped": {}}
    with pytest.raises(AccountingError, match="added -1"):
        stats.check()
    report = RunReport(read=2, written=3)  # a record in the files nobody read or added
    with pytest.raises(AccountingError, match=r"read 2 \+ added 0 != written 3"):
        report.check()


def test_checks_are_beside_the_accounting_and_failed_ones_make_the_run_incomplete():
    stats = _task()
    stats.add_check({"path": "a", "check": "md5", "ok": True, "reason": ""})
    stats.add_check({"path": "a", "check": "record count", "ok": False, "reason": "lists 3"})
    assert stats.read == 0  # a check is not a record
    stats.check()
    report = RunReport()
    assert report.complete and report.checks_line() is None
    report.add_task(stats, ["kind"])
    assert report.checks_passed == 1
    assert report.checks_failed == [{"path": "a", "check": "record count", "reason": "lists 3"}]
    assert report.checks_line() == "checks: 1 passed, 1 failed"
    assert not report.complete and report.ok
    assert report.to_dict()["complete"] is False


def test_not_converted_inputs_and_quarantine_make_the_run_incomplete():
    assert not RunReport(not_converted=[{"path": "x", "reason": "r"}]).complete
    assert not RunReport(quarantined=1).complete
    assert RunReport(unclaimed=[{"path": "README", "reason": "r"}]).complete  # side files


def test_warnings_line():
    report = RunReport()
    assert report.warnings_line("o/r.json") is None
    report.warnings = {"odd-date": 2}
    assert report.warnings_line("o/r.json") == "2 warnings of 1 kind (odd-date 2); see o/r.json"
    report.warnings = {"odd-date": 1, "odd-url": 5}
    assert (
        report.warnings_line("o/r.json")
        == "6 warnings of 2 kinds (odd-url 5, odd-date 1); see o/r.json"
    )
    report.warnings = {f"code-{i}": 1 for i in range(7)}
    assert report.warnings_line("o/r.json") == (
        "7 warnings of 7 kinds (code-0 1, code-1 1, code-2 1, code-3 1, code-4 1, ...); "
        "see o/r.json"
    )
