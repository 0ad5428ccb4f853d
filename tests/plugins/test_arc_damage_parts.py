"""Issue 25: "the accounting counts a record quarantined in two pieces as two reads" -- for
ARC as for WARC (``Damage.continues``): a damaged range longer than the record bound is
reported and quarantined in parts (so memory stays at the bound), and counted as one read."""

from __future__ import annotations

import json
from pathlib import Path

from crawlmill.core.commands.cli import main

MIB = 1 << 20


def _record(i: int) -> bytes:
    body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>page %d</p>" % i
    head = b"http://example.org/%d 10.0.0.1 2026010100000%d text/html %d\n" % (i, i, len(body))
    return head + body + b"\n"


def test_a_huge_arc_header_line_quarantined_in_parts_is_one_damaged_record(tmp_path: Path, capsys):
    desc = b"1 0 test\nURL IP-address Archive-date Content-type Archive-length\n"
    filedesc = b"filedesc://x.arc 0.0.0.0 20260101000000 text/plain %d\n" % len(desc) + desc + b"\n"
    recs = [filedesc, _record(1), _record(2), _record(3)]
    # a header line of 20 MiB: longer than the scan bound (max_record_bytes + max_header_bytes)
    huge = (
        b"http://example.org/huge"
        + b"a" * (20 * MIB)
        + b" 10.0.0.1 20260101000000 text/html 5\nhello\n"
    )
    src = tmp_path / "plain.arc"
    src.write_bytes(recs[0] + recs[1] + huge + recs[2] + recs[3])
    out = tmp_path / "out"
    config = tmp_path / "pipeline.yaml"
    config.write_text(
        f"inputs: {src}\nwriter: warc\noutput: {out}\n"
        f"run: {{workers: 1, max_record_bytes: {64 * 1024}, max_decompressed_bytes: {128 * MIB}}}\n"
    )
    code = main(["run", str(config)])
    err = capsys.readouterr().err
    assert code == 3, err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    parts = report["damages"]
    assert len(parts) > 1
    start = len(recs[0]) + len(recs[1])
    assert parts[0]["offset"] == start
    # the parts are adjacent and cover exactly the damaged line and the record it holds
    assert [d["offset"] for d in parts[1:]] == [d["offset"] + d["length"] for d in parts[:-1]]
    assert sum(d["length"] for d in parts) == len(huge)
    assert (report["read"], report["quarantined"]) == (5, 1)
    assert "read 5 + added 1 by the writer = written 5 + dropped 0 + quarantined 1" in err
    # every part is quarantined (its first max_record_bytes)
    q = out / ".crawlmill" / "quarantine"
    assert len((q / "plain.arc.jsonl").read_text().splitlines()) == len(parts)
    assert (q / "plain.arc.bin").stat().st_size == sum(min(d["length"], 64 * 1024) for d in parts)
