"""The CrawlDB and LinkDB writers (issue 24): ``written`` counts the captures the writer took
in (README: records in the output files; a database holds more entries than captures), and a
second, clearly named count, ``writer reduce`` ``database entries``, says how many entries the
databases hold: in the summary's ``counts:`` line and report.json. The entries are counted
back from the MapFile data written (Hadoop's oracle reads these files in
tests/plugins/test_nutch_db_writers*.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from crawlmill import open_reader
from crawlmill.core.commands.cli import main

ROOT = Path(__file__).resolve().parents[2]


def response(url: str, html: str, n: int) -> bytes:
    body = html.encode()
    http = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    head = (
        "WARC/1.0\r\nWARC-Type: response\r\n"
        f"WARC-Target-URI: {url}\r\nWARC-Date: 2020-01-0{n}T00:00:00Z\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{n:012d}>\r\n"
        f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n"
    ).encode()
    return head + http + b"\r\n\r\n"


def entries(part: Path) -> int:
    with open_reader(str(part / "data"), "sequencefile") as records:
        return sum(1 for r in records if r.kind != "warcinfo")


@pytest.mark.parametrize(
    ("writer", "expected"),
    # the CrawlDB: the two fetched pages and the unfetched target c.example; the LinkDB:
    # the two URLs something links to (a.example/b and c.example, from a.example)
    [("nutch-crawldb", 3), ("nutch-linkdb", 2)],
)
def test_written_counts_captures_and_the_entries_are_a_count_of_their_own(
    tmp_path, capsys, writer, expected
):
    src = tmp_path / "in.warc"
    src.write_bytes(
        response(
            "http://a.example/",
            '<html><body><a href="http://a.example/b">b</a> <a href="http://c.example/">c</a>',
            1,
        )
        + response("http://a.example/b", "<html><body>no links</body></html>", 2)
    )
    out = tmp_path / "out"
    code = main(["convert", str(src), "--to", writer, "-o", str(out), "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "read 2 = written 2 + dropped 0 + quarantined 0" in err
    assert f"counts: writer reduce database entries {expected}" in err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["written"] == 2
    assert report["counts"]["writer reduce"] == {"database entries": expected}
    assert entries(out / "current" / "part-r-00000") == expected
    assert "the reduce wrote the database" in err  # the pass line says where the rows went


def test_readme_and_the_recipe_say_which_count_is_which():
    readme = " ".join((ROOT / "README.md").read_text().split())
    recipes = " ".join((ROOT / "docs" / "recipes.md").read_text().split())
    for text in (readme, recipes):
        assert "writer reduce database entries" in text
