"""docs/source-facts.md stays true: every test it names exists, every fact row names a test or
says why it is not tested, and its quotes are the documents' words."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LEDGER = ROOT / "docs" / "source-facts.md"
DOCS = ROOT.parent / "shared" / "specs" / "source-docs"


def _rows() -> list[str]:
    return [line for line in LEDGER.read_text(encoding="utf-8").splitlines()
            if re.match(r"\| [A-Z]\d+ \|", line)]  # fmt: skip


def test_every_named_test_exists():
    text = LEDGER.read_text(encoding="utf-8")
    named = re.findall(r"`(tests/[\w/]+\.py)(?:::(\w+))?`", text)
    assert len(named) > 100
    missing = []
    for path, name in named:
        source = ROOT / path
        if not source.is_file():
            missing.append(path)
        elif name and not re.search(rf"^(?:    )?def {name}\(", source.read_text("utf-8"), re.M):
            missing.append(f"{path}::{name}")
    assert not missing, missing


def test_every_fact_names_a_test_or_why_not():
    rows = _rows()
    assert len(rows) > 150
    ids = [row.split("|")[1].strip() for row in rows]
    assert len(ids) == len(set(ids)), "a fact number used twice"
    for row in rows:
        tests = row.rstrip(" |").split("|")[-1]
        assert "`tests/" in tests or "not tested" in tests or "as U10-U13" in tests, row


def test_quotes_are_the_documents_words():
    """Each quoted phrase of six or more characters in the words column is in the document
    (whitespace ignored: the
    documents' text lost spaces around tags and links)."""
    sections = re.split(r"^## ", LEDGER.read_text(encoding="utf-8"), flags=re.M)
    files = {
        "ClueWeb09": "clueweb09-dataset-information.txt",
        "NTCIR": "ntcir-nw100g-01-readme-data.txt",
        "Nutch": "nutch-file-formats.txt",
        "Common Crawl": "commoncrawl-2012-dataset.txt",
        "Chuweb21D": "chuweb21d-paper.txt",
    }
    checked, wrong = 0, []
    for section in sections[1:]:
        name = next(k for k in files if section.startswith(k))
        doc = "".join((DOCS / files[name]).read_text(encoding="utf-8").split())
        for row in re.findall(r"^\| [A-Z]\d+ \|.*$", section, re.M):
            words = row.split("|")[3]
            for quote in re.findall(r'(?<![\w\\])"([^"]{6,}?)"(?![\w])', words):
                if quote.startswith("$") or "..." in quote:
                    continue
                if "".join(quote.split()) not in doc:
                    wrong.append((name, quote))
                checked += 1
    assert not wrong, wrong
    assert checked > 60
