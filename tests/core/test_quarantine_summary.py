"""Records a writer quarantines are summed up per code on the terminal (issue 24): one line per
code with its count and the first example (naming the input, never a shuffle work file), and,
when the records were kinds the writer cannot hold, the filter that leaves them out; every
entry stays in the quarantine's ``.jsonl`` and report.json keeps the groups."""

from __future__ import annotations

import io
import json
from pathlib import Path

from crawlmill.core.commands.cli import main


def _warc(tmp_path: Path, need, name: str = "in.warc.gz", requests: int = 3) -> Path:
    """warcinfo + ``requests`` request/response pairs, written by warcio (the oracle)."""
    warcio = need("warcio.warcwriter")
    statusandheaders = need("warcio.statusandheaders")
    path = tmp_path / name
    with path.open("wb") as fh:
        writer = warcio.WARCWriter(fh, gzip=True)
        writer.write_record(writer.create_warcinfo_record(name, {"software": "test"}))
        for i in range(requests):
            url = f"http://example.org/{name}/{i}"
            req = statusandheaders.StatusAndHeaders(
                f"GET /{i} HTTP/1.1", [("Host", "example.org")], is_http_request=True
            )
            writer.write_record(
                writer.create_warc_record(url, "request", payload=io.BytesIO(b""), http_headers=req)
            )
            resp = statusandheaders.StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1"
            )
            writer.write_record(
                writer.create_warc_record(
                    url, "response", payload=io.BytesIO(b"<p>hi</p>"), http_headers=resp
                )
            )
    return path


def test_arc_writer_refusals_are_one_line_with_count_and_filter_hint(tmp_path, capsys, need):
    src = _warc(tmp_path, need, requests=3)
    code = main(["convert", "--to", "arc", "--workers", "1", "-o", str(tmp_path / "out"), str(src)])
    err = capsys.readouterr().err
    assert code == 3  # completed, but records were quarantined
    lines = [line for line in err.splitlines() if "quarantined by the writer" in line]
    # "ARC v1 cannot hold a request record": 3 requests (the warcinfo became the filedesc),
    # one line for them all
    assert lines == [
        f"crawlmill: 3 record(s) quarantined by the writer [unwritable-kind], first: {src}: "
        "unwritable-kind: ARC v1 cannot hold a request record; "
        "to leave out the request records: --filter kind keep=response,resource"
    ]
    report = json.loads((tmp_path / "out/.crawlmill/report.json").read_text())
    assert report["refused"]["unwritable-kind"]["count"] == 3
    assert report["refused"]["unwritable-kind"]["kinds"] == ["request"]
    entries = [
        json.loads(line)
        for f in report["quarantine_files"]
        if f.endswith(".jsonl")
        for line in (tmp_path / "out" / f).read_text().splitlines()
    ]
    assert [e["url"] for e in entries] == [f"http://example.org/in.warc.gz/{i}" for i in range(3)]


def test_the_suggested_filter_avoids_the_quarantine(tmp_path, capsys, need):
    src = _warc(tmp_path, need, requests=2)
    argv = ["convert", "--to", "arc", "--workers", "1", "-o", str(tmp_path / "out"), str(src)]
    code = main([*argv, "--filter", "kind", "keep=response,resource"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "quarantined by the writer" not in err


def test_shuffled_refusals_name_the_input_not_the_shuffle_file(tmp_path, capsys, need):
    first = _warc(tmp_path, need, name="a.warc.gz", requests=2)
    second = _warc(tmp_path, need, name="b.warc.gz", requests=2)
    out = tmp_path / "out"
    code = main(
        [
            "convert",
            "--to",
            "nutch-segment",
            "--workers",
            "1",
            "-o",
            str(out),
            str(first),
            str(second),
        ]
    )
    err = capsys.readouterr().err
    assert code == 3
    lines = [line for line in err.splitlines() if "quarantined by the writer" in line]
    assert len(lines) == 1, err  # 4 requests of two inputs, one code
    assert lines[0].startswith(
        "crawlmill: 4 record(s) quarantined by the writer [not-a-capture], first: "
    )
    assert str(first) in lines[0] or str(second) in lines[0]
    assert "/.crawlmill/" not in lines[0] and "/passes/" not in lines[0]  # no work file
    assert lines[0].endswith(
        "; to leave out the request records: --filter kind keep=response,resource"
    )
