"""What a task and the run report say when things go wrong: a failed task reports the records
it read; a report that cannot be written (full disk) still leaves the accounting line on
stderr; a quarantine entry outside its input file is flagged, never passed off as true."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest
from crawlmill.core.run import engine, outputs
from crawlmill.core.run.quarantine import INCONSISTENT_DAMAGE, check_range

from tests.helpers import convert


def _convert(src: Path, out: Path, *extra: str) -> int:
    return convert(src, "fake-jsonl", out, "--plugin", "cm_fake", *extra).exit_code


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_a_failed_task_reports_the_records_it_read(tmp_path, fake, capsys):
    src = tmp_path / "in"
    _write(src / "a.txt", [f"R http://ex.com/a{k} response p" for k in range(2)])
    bad = [f"R http://ex.com/b{k} response p" for k in range(3)] + ["X plugin bug"]
    _write(src / "b.txt", bad)
    out = tmp_path / "out"
    assert _convert(src, out, "--from", "fake-lines", "--workers", "1") == 1
    err = capsys.readouterr().err
    assert "(after reading 3 record(s);" in err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    (failure,) = report["failures"]
    assert failure["input"].endswith("b.txt") and "plugin bug" in failure["error"]
    assert failure["read"] == 3


def test_a_failed_task_in_a_worker_reports_the_records_it_read(tmp_path, fake):
    src = tmp_path / "in"
    _write(src / "a.txt", ["R http://ex.com/a response p"])
    _write(src / "b.txt", [f"R http://ex.com/b{k} response p" for k in range(4)] + ["X bug"])
    report = engine.run(fake([src], tmp_path / "out", workers=2))
    assert [f["read"] for f in report.failures] == [4]


def test_a_full_disk_at_the_report_still_prints_the_accounting(tmp_path, fake, monkeypatch, capsys):
    real = outputs.write_text_atomic

    def full_disk(path, chunks, **how):
        if path.endswith("report.json"):
            raise OSError(errno.ENOSPC, "No space left on device", path)
        return real(path, chunks, **how)

    src = _write(tmp_path / "in" / "a.txt", [f"R http://ex.com/{k} response p" for k in range(4)])
    out = tmp_path / "out"
    assert _convert(src, out, "--from", "fake-lines") == 0  # an earlier run's report.json
    capsys.readouterr()
    monkeypatch.setattr(engine, "write_text_atomic", full_disk)
    code = _convert(src, out, "--from", "fake-lines", "--no-resume")
    err = capsys.readouterr().err
    assert "read 4 = written 4 + dropped 0 + quarantined 0" in err
    assert "report.json not written" in err and "No space left on device" in err
    assert code == 1  # the run's own record is missing: not a success
    assert (out / "a.txt.out").exists()  # the outputs were committed
    assert not (out / ".crawlmill" / "report.json").exists()  # no stale report passes for it


def test_a_damage_range_outside_the_input_is_flagged(tmp_path, fake, capsys):
    lines = ["R http://ex.com/0 response p", "D garbage here", "R http://ex.com/1 response p"]
    src = _write(tmp_path / "in" / "a.txt", lines)
    size = src.stat().st_size
    out = tmp_path / "out"
    args = ("--from", "fake-skewed", "--reader-option", f"shift={size}", "--plugin", "cm_skewed")
    assert _convert(src, out, *args) == 3
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    (damage,) = report["damages"]
    assert damage["offset"] == size + len(lines[0]) + 1
    assert "past the end of the file" in damage["inconsistent"]
    assert report["warnings"][INCONSISTENT_DAMAGE] == 1
    index = (out / ".crawlmill" / "quarantine" / "a.txt.jsonl").read_text().splitlines()
    (entry,) = [json.loads(line) for line in index]
    assert entry["offset"] == damage["offset"] and "past the end" in entry["inconsistent"]
    # the quarantined bytes are still kept
    assert (out / ".crawlmill" / "quarantine" / "a.txt.bin").read_bytes() == b"D garbage here\n"


def test_a_damage_range_inside_the_input_is_not_flagged(tmp_path, fake):
    lines = ["R http://ex.com/0 response p", "D garbage here", "R http://ex.com/1 response p"]
    src = _write(tmp_path / "in" / "a.txt", lines)
    out = tmp_path / "out"
    assert _convert(src, out, "--from", "fake-skewed", "--plugin", "cm_skewed") == 3
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert "inconsistent" not in report["damages"][0]
    assert INCONSISTENT_DAMAGE not in report["warnings"]


@pytest.mark.parametrize(
    ("offset", "length", "size", "problem"),
    [
        (0, 10, 10, None),  # the whole file
        (10, 0, 10, None),  # an empty range at the end
        (9, 1, 10, None),
        (None, 5, 10, None),  # unknown offset: nothing to check
        (5, None, 10, None),
        (20, 1, None, None),  # unknown size (a collection folder)
        (9, 2, 10, "runs past the end"),
        (11, None, 10, "past the end"),
        (-1, 1, 10, "not a byte position"),
        (0, -1, 10, "not a byte count"),
        ("12", 1, 10, "not a byte position"),
    ],
)
def test_check_range(offset, length, size, problem):
    got = check_range(offset, length, size)
    assert got is None if problem is None else problem in got
