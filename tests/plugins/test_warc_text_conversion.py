"""Extracted text to WARC (issue 24): Nutch parse text (and cc2012 textData, NTCIR cooked
text) is dropped by default with the warning ``text-not-written``, which now says how to keep
it; ``--option text=conversion`` writes it after its record as a WARC ``conversion`` record of
the same URL, as WET files hold text (WARC 1.1, 6.7: "a conversion record shall contain an
alternative version of the content in another record"). warcio reads the result."""

from __future__ import annotations

import json
import shutil

from crawlmill.core.commands.cli import main

SEGMENT = "apache-nutch/testcrawl/segments/20060919213635"


def convert(capsys, *args: str) -> tuple[int, str]:
    code = main(["convert", *args, "--workers", "1"])
    return code, capsys.readouterr().err


def test_parse_text_is_dropped_with_a_warning_that_says_how_to_keep_it(tmp_path, samples, capsys):
    seg = tmp_path / "20060919213635"
    shutil.copytree(samples / SEGMENT, seg)
    code, err = convert(capsys, str(seg), "-o", str(tmp_path / "out"))
    assert code == 0, err
    report = json.loads((tmp_path / "out/.crawlmill/report.json").read_text())
    assert report["warnings"]["text-not-written"] == 1
    example = json.dumps(report["warning_examples"]["text-not-written"])
    assert "to keep it as one after each record: --option text=conversion" in example


def test_text_conversion_writes_the_text_after_its_record(tmp_path, samples, need, capsys):
    archive = need("warcio.archiveiterator")
    seg = tmp_path / "20060919213635"
    shutil.copytree(samples / SEGMENT, seg)
    out = tmp_path / "out"
    code, err = convert(capsys, str(seg), "-o", str(out), "--option", "text=conversion")
    assert code == 0, err
    assert "read 1 + added 2 by the writer = written 3" in err  # warcinfo + the text
    assert "text-not-written" not in err
    (warc,) = out.glob("*.warc.gz")
    with open(warc, "rb") as fh:
        records = [
            (r.rec_type, r.rec_headers.get_header("WARC-Target-URI"),
             r.rec_headers.get_header("Content-Type"), r.content_stream().read())
            for r in archive.ArchiveIterator(fh)
        ]  # fmt: skip
    assert [r[0] for r in records] == ["warcinfo", "response", "conversion"]
    assert records[2][1] == records[1][1] == "http://www.apache.org/"
    assert records[2][2].startswith("text/plain")
    # the page's parse text as Nutch stored it (its title first)
    assert records[2][3].decode("utf-8").startswith("Welcome! - The Apache Software Foundation")
