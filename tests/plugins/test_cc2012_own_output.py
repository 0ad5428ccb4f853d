"""crawlmill's own cc2012 segment read back (issue 24): the ``dns:`` record an ARC carries is
written to the segment's ARC file without a metadata entry (the 2012 crawler wrote metadata
for HTTP pages only), and reading the segment back delivers it without the
``cc2012-no-metadata`` warning (an HTTP capture whose entry is missing still warns:
tests/plugins/test_cc2012.py)."""

from __future__ import annotations

import json
from pathlib import Path

from crawlmill import open_reader
from crawlmill.core.commands.cli import main

LEGACY = Path(__file__).resolve().parents[2] / "fixtures" / "legacy" / "example-2008.arc.gz"


def convert(capsys, *args: str) -> tuple[int, str]:
    code = main(["convert", *args, "--workers", "1"])
    return code, capsys.readouterr().err


def test_a_dns_record_written_to_a_segment_reads_back_without_a_warning(tmp_path, capsys):
    code, err = convert(capsys, str(LEGACY), "--to", "cc2012", "-o", str(tmp_path / "seg"))
    assert code == 0, err
    code, err = convert(capsys, str(tmp_path / "seg"), "-o", str(tmp_path / "back"))
    assert code == 0, err
    assert "cc2012-no-metadata" not in err
    report = json.loads((tmp_path / "back" / ".crawlmill" / "report.json").read_text())
    assert "cc2012-no-metadata" not in report["warnings"]
    (warc,) = (tmp_path / "back").glob("*.warc.gz")
    with open_reader(str(warc)) as records:
        urls = [r.url for r in records]
    assert "dns:www.example.org" in urls  # still there, only not warned about
