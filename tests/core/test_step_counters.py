"""Steps count their own things with ``ctx.count(label, n)`` (issue 7, item 7), as datatrove's
``stat_update``: summed over files and worker processes into report.json (per step, per input
and in total) and the run summary, kept from the markers of resumed inputs, and never part of
the accounting identity.

The plugins are ``tests/core/fake_plugins/cm_counting.py``: a reader counting ``records``, a
filter counting ``urls``, ``with-query`` and ``payload-bytes``, a writer counting ``lines``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from crawlmill.core import FilterContext, InputFile, open_reader
from crawlmill.core.commands.cli import main
from crawlmill.core.stats import RunReport, TaskStats

from tests.helpers import convert, put_fake_plugins_on_path

#: input name -> (URL, payload) of its records; b.txt has one URL with a query.
INPUTS = {
    "a.txt": [("http://a/1", "xx"), ("http://a/2", "yyy")],
    "b.txt": [("http://b/1?q=1", "z"), ("http://b/2", "wwww"), ("http://b/3", "")],
    "c.txt": [("http://c/1?x", "12345")],
}


@pytest.fixture(autouse=True)
def _plugins(monkeypatch):
    put_fake_plugins_on_path(monkeypatch)


def _write_inputs(folder: Path, broken: str | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, records in INPUTS.items():
        lines = [f"R {url} response {payload}" for url, payload in records]
        if name == broken:
            lines.append("X the reader breaks")
        (folder / name).write_text("".join(line + "\n" for line in lines))


def _expected(names) -> dict[str, dict[str, int]]:
    recs = [r for n in names for r in INPUTS[n]]
    urls = {"urls": len(recs), "with-query": sum("?" in u for u, _ in recs)}
    urls["payload-bytes"] = sum(len(p) for _, p in recs)
    return {
        "reader": {"records": len(recs)},
        "count-urls": {k: v for k, v in urls.items() if v},
        "writer": {"lines": len(recs)},
    }


def _convert(src: Path, out: Path, workers: int) -> tuple[int, str, dict]:
    result = convert(src, "counting-jsonl", out, "--plugin", "cm_counting", "--plugin", "cm_fake",
                     "--from", "counting-lines", "--filter", "count-urls", workers=workers)  # fmt: skip
    return result.exit_code, result.stderr, result.report


@pytest.mark.parametrize("workers", [1, 2])
def test_step_counts_are_summed_per_step_per_input_and_in_total(tmp_path, capsys, workers):
    _write_inputs(tmp_path / "in")
    code, err, report = _convert(tmp_path / "in", tmp_path / "out", workers)
    assert code == 0, err
    every = _expected(INPUTS)
    assert report["counts"] == every
    assert report["counts_total"] == {
        "lines": 6,
        "payload-bytes": 15,
        "records": 6,
        "urls": 6,
        "with-query": 2,
    }
    per_input = {e["input"]: e["counts"] for e in report["input_outputs"]}
    assert per_input == {name: _expected([name]) for name in INPUTS}
    assert (
        "counts: reader records 6; count-urls payload-bytes 15, urls 6, with-query 2; "
        "writer lines 6\n"
    ) in err
    # counters are not records: the accounting is the records' alone
    assert report["read"] == report["written"] == 6
    assert report["accounting"] == "read 6 = written 6 + dropped 0 + quarantined 0"


def test_resumed_inputs_keep_their_counts_and_are_not_counted_twice(tmp_path, capsys):
    src, out = tmp_path / "in", tmp_path / "out"
    _write_inputs(src, broken="c.txt")  # c.txt fails: nothing of it is counted
    code, err, first = _convert(src, out, 2)
    assert code == 1 and "the reader breaks" in err
    assert first["counts"] == _expected(["a.txt", "b.txt"])
    _write_inputs(src)  # c.txt repaired: the rerun redoes it and resumes a.txt and b.txt
    code, err, second = _convert(src, out, 2)
    assert code == 0, err
    assert second["inputs_skipped"] == 2 and second["inputs_done"] == 1
    assert second["counts"] == _expected(INPUTS)
    assert {e["input"]: e["counts"] for e in second["input_outputs"]} == {
        name: _expected([name]) for name in INPUTS
    }
    # a third run resumes everything and reports the same counts
    code, err, third = _convert(src, out, 2)
    assert code == 0 and third["inputs_skipped"] == 3
    assert third["counts"] == second["counts"]


def test_a_run_whose_steps_count_nothing_says_nothing_about_counts(tmp_path, capsys):
    _write_inputs(tmp_path / "in")
    code = main(
        [
            "convert",
            str(tmp_path / "in"),
            "--plugin",
            "cm_fake",
            "--from",
            "fake-lines",
            "--to",
            "fake-jsonl",
            "-o",
            str(tmp_path / "out"),
            "--workers",
            "1",
        ]  # fmt: skip
    )
    err = capsys.readouterr().err
    report = json.loads((tmp_path / "out" / ".crawlmill" / "report.json").read_text())
    assert code == 0 and "counts:" not in err
    assert report["counts"] == {} and report["counts_total"] == {}


# -- the mechanism -------------------------------------------------------------------------


def test_task_stats_count_per_step_and_run_report_sums_them():
    a, b = TaskStats(), TaskStats()
    a.count("reader", "records", 2)
    a.count("dedup", "seen")
    b.count("dedup", "seen", 3)
    b.count("dedup", "unique")
    report = RunReport()
    report.add_task(a, ["dedup"])
    report.add_task(b, ["dedup"])
    assert report.counts == {"reader": {"records": 2}, "dedup": {"seen": 4, "unique": 1}}
    assert report.counts_line() == "counts: reader records 2; dedup seen 4, unique 1"
    assert report.read == 0  # counters never become records
    report.check()
    assert TaskStats.from_dict(a.to_dict()).counts == a.counts


def test_a_filter_counts_into_the_context_it_was_opened_with_and_outside_a_run_into_nothing():
    from cm_counting import CountUrls
    from crawlmill.core import Record, RecordKind

    record = Record(kind=RecordKind.RESPONSE, url="http://x/?q", payload=b"abc")
    step = CountUrls()
    assert step.apply(record) is record  # no run: counting goes nowhere, and does not fail
    seen: list[tuple[str, int]] = []
    step.open(FilterContext(InputFile("x", "x"), counter=lambda label, n: seen.append((label, n))))
    step.apply(record)
    assert seen == [("urls", 1), ("with-query", 1), ("payload-bytes", 3)]
    assert CountUrls().ctx is not step.ctx  # one filter's context is not another's


def test_open_reader_collects_the_readers_counts(tmp_path):
    from cm_counting import CountingLinesReader

    _write_inputs(tmp_path)
    seen: list[tuple[str, int]] = []
    count = lambda label, n: seen.append((label, n))  # noqa: E731
    with open_reader(tmp_path / "b.txt", CountingLinesReader, on_count=count) as records:
        assert len(list(records)) == 3
    assert records.counts == {"records": 3}
    assert seen == [("records", 1)] * 3
