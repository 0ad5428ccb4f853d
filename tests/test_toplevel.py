"""The top of the ``crawlmill`` package: ``import crawlmill`` is cheap, and
``crawlmill.open_reader(path)`` reads a file as ``crawlmill.core.open_reader`` does."""

from __future__ import annotations

import importlib.metadata as md
import json
import subprocess
import sys
from pathlib import Path

import crawlmill
import crawlmill.core
import pytest

ROOT = Path(__file__).resolve().parent.parent
ARC = ROOT / "fixtures" / "legacy" / "example-2008.arc.gz"
WARC = ROOT / "fixtures" / "legacy" / "clueweb09-style-segment1.warc.gz"

#: the captures make_legacy_arc.py writes into example-2008.arc.gz (fixtures/SOURCES.md)
ARC_URLS = [
    "filedesc://example-2008.arc.gz",
    "dns:www.example.org",
    "http://www.example.org/",
    "http://www.example.org/about.html",
    "http://www.example.org/pixel.gif",
    "http://www.example.com/missing page.html",
]


def test_open_reader_at_the_top_yields_the_records_of_a_file() -> None:
    with crawlmill.open_reader(ARC) as records:
        got = list(records)
    assert records.reader_name == "arc"
    assert [r.url for r in got] == ARC_URLS
    assert all(isinstance(r, crawlmill.Record) for r in got)
    assert [r.kind for r in got] == [crawlmill.RecordKind("metadata"), "resource"] + [
        "response"
    ] * 4
    assert got[2].http_head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert got[2].payload.startswith(b"<html>") and got[4].payload.startswith(b"GIF89a")
    assert records.damages == [] and records.warnings == []


def test_open_reader_at_the_top_takes_a_reader_and_its_options() -> None:
    with crawlmill.open_reader(WARC, "warc") as records:
        got = list(records)
    assert [r.url for r in got] == [None, "http://clueweb09.test.com/"]
    assert {w.code for w in records.warnings} & {"invalid-date", "date-derived"}
    assert "lf-line-endings" in {w.code for w in records.warnings}
    assert all(isinstance(w, crawlmill.Notice) for w in records.warnings)
    with pytest.raises(crawlmill.CrawlmillError, match="strict"):
        crawlmill.open_reader(ARC, "arc", strict="maybe")
    with crawlmill.open_reader(ARC, "arc", strict=True) as records:
        assert len(list(records)) == len(ARC_URLS)


def test_the_top_names_are_the_cores() -> None:
    names = set(crawlmill.__all__) - {"__version__"}
    assert {"open_reader", "Record", "RecordKind", "Damage", "Notice", "CrawlmillError"} <= names
    for name in names:
        assert getattr(crawlmill, name) is getattr(crawlmill.core, name), name
    assert set(crawlmill.__all__) <= set(dir(crawlmill))
    with pytest.raises(AttributeError, match="no_such_thing"):
        crawlmill.no_such_thing  # noqa: B018
    namespace: dict = {}
    exec("from crawlmill import *", namespace)
    assert set(crawlmill.__all__) <= set(namespace)


def test_version_is_the_distributions() -> None:
    assert crawlmill.__version__ == md.version("crawlmill")
    assert crawlmill.__version__ == crawlmill.core.__version__
    result = subprocess.run(
        [sys.executable, "-m", "crawlmill.core.commands.cli", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.stdout.strip() == f"crawlmill {md.version('crawlmill')}", result.stderr


def test_import_crawlmill_loads_nothing_else() -> None:
    """``import crawlmill`` imports no crawlmill module, no plugin and no dependency."""
    code = (
        "import json, sys; before = set(sys.modules); import crawlmill; "
        "print(json.dumps([crawlmill.__file__, sorted(set(sys.modules) - before)]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    file, new = json.loads(out)
    assert file is not None and Path(file).name == "__init__.py"  # a real package
    assert new == ["crawlmill"], new
