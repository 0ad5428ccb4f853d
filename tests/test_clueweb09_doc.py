"""docs/formats/clueweb09.md is true to the code: every path, dotted name and problem code it
gives exists, and the examples it gives are what the code computes (issue 19)."""

from __future__ import annotations

import importlib
import re
from datetime import UTC, datetime
from pathlib import Path

from crawlmill.core.commands.dedup_runs import MIN_MATCHED
from crawlmill.formats.clueweb09 import collection as cw
from crawlmill.formats.warc.fields import derive_warc_date, escape_uri

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "formats" / "clueweb09.md"


def text() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_paths_and_names_exist():
    paths = re.findall(r"`((?:core|formats|plugins|tests|docs)/[\w/.-]+)`", text())
    paths += re.findall(r"\b(tests/[\w/]+\.py)\b", text())
    assert paths and all((ROOT / p).exists() for p in paths), [
        p for p in paths if not (ROOT / p).exists()
    ]
    for dotted in sorted(set(re.findall(r"\bcrawlmill(?:\.[A-Za-z_]\w*)+", text()))):
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            for attr in parts[i:]:
                obj = getattr(obj, attr)  # AttributeError: the page names what is not there
            break
    for name in re.findall(r"`(\w+)`", text()):
        if name.startswith(("parse_", "format_", "md5_", "counts_")) or name in ("trec_id",):
            assert hasattr(cw, name), name


def test_problem_codes_it_names_are_documented():
    problems = (ROOT / "docs" / "problems.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z0-9-]+)` \|", problems, re.M))
    named = set(re.findall(r"\(`([a-z][a-z0-9]*(?:-[a-z0-9]+)+)`", text()))
    named |= set(re.findall(r"warning `([a-z][a-z0-9]*(?:-[a-z0-9]+)+)`", text()))
    named |= {"no-list", "not-listed", "listed-elsewhere", "bad-list-line", "not-read"}
    named |= {"foreign-trec-id", "cl-includes-separator", "empty-field-dropped", "uri-escaped"}
    named -= {"ids-by-position", "warc3-wet-clueweb09"}  # a count and a package
    assert named <= listed, sorted(named - listed)


def test_the_examples_are_what_the_code_computes():
    page = text()
    # names of the lists
    assert "`ClueWeb_English_1.md5` for `ClueWeb09_English_1`" in page
    assert cw.md5_file_name("ClueWeb09_English_1") == "ClueWeb_English_1.md5"
    assert "`record_counts/ClueWeb09_English_1_counts.txt`" in page
    assert (
        cw.counts_file_name("ClueWeb09_English_1") == "record_counts/ClueWeb09_English_1_counts.txt"
    )
    # the date rule
    assert "`WARC-Date: 2009-03-08T22:35:34Z`" in page
    assert derive_warc_date("2009-03-67T15:35:34-0700") == datetime(
        2009, 3, 8, 22, 35, 34, tzinfo=UTC
    )
    assert "`http://x/a%20b`" in page and escape_uri(b"http://x/a b") == b"http://x/a%20b"
    # "few" in dedup-runs
    assert "fewer than half" in page and MIN_MATCHED == 0.5
