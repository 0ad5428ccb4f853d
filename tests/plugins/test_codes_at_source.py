"""Problem codes are born where the WARC and ARC framers find a problem (issue 21, item 3).

The framers, the member stream and the codecs set each damage's and quirk's code; the readers
copy it. No reader matches a sentence any more, so rewording a message cannot change a
counter: every problem the readers report over the fault corpus (every damage pattern of
``tests/faults`` applied to every WARC and ARC input) and the samples carries an explicit code
listed in ``docs/problems.md``, and the same codes come out when every text is reworded.
"""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest
from crawlmill.core import open_reader
from crawlmill.formats.codecs.stream import Damage as DamagedRange
from crawlmill.formats.notes import Note
from crawlmill.formats.warc.framer import WarcFramer

from tests.conftest import ARC_SAMPLES, ROOT, listed_codes
from tests.faults.cases import Harness, enumerate_cases
from tests.faults.damage import PATTERNS
from tests.faults.readers import all_inputs


def _problems(path, reader: str) -> list:
    with open_reader(path, reader) as records:
        for _ in records:
            pass
    return records.damages + records.warnings


def _reader(harness: Harness, case) -> str:
    return "arc" if harness.kind(case.input).fmt == "arc" else "warc"


def _fault_cases():
    kinds = [k for k in all_inputs() if not k.sample]  # WARC, ARC, ClueWeb09's WARC
    bombs = {"bomb-member", "bomb-header"}  # (the slow cases; their code is checked below)
    return [c for c in enumerate_cases(range(1), kinds) if c.pattern not in bombs]


def test_every_problem_over_the_fault_corpus_has_an_explicit_listed_code(tmp_path):
    harness = Harness(tmp_path / "harness")
    listed = listed_codes()
    seen: Counter[str] = Counter()
    for case in _fault_cases():
        reader = _reader(harness, case)
        damaged = harness.damage(case)
        path = tmp_path / "in" / case.id.replace("/", "_") / harness.intact(case.input).name
        path.parent.mkdir(parents=True)
        path.write_bytes(damaged.data)
        for problem in _problems(path, reader):
            assert problem.code, (case.id, problem)  # the reader copied a code
            assert problem.code in listed, (case.id, problem)
            seen[problem.code] += 1
    # the corpus reaches the codes of both framers and of the codecs below them
    assert {"truncated-record", "bad-length", "not-a-record", "corrupt-member"} <= set(seen)
    assert {"truncated-member", "record-too-large", "lf-line-endings"} & set(seen), seen


@pytest.mark.slow
def test_every_problem_on_the_samples_has_an_explicit_listed_code(samples):
    files = [samples / rel for rel in ARC_SAMPLES]
    files += sorted(p for p in samples.rglob("*") if re.search(r"\.warc(\.gz)?$", p.name))
    listed = listed_codes()
    for path in files:
        reader = "arc" if ".arc" in path.name.lower() else "warc"
        for problem in _problems(path, reader):
            assert problem.code and problem.code in listed, (path, problem)


def _reworded(item):
    """``item`` with every text replaced by one that names no kind of problem."""
    if isinstance(item, DamagedRange):
        item.reason = "something happened here"
    else:
        issues = item.issues
        issues[:] = [Note(n.code, "something odd") for n in issues]
    return item


def test_rewording_every_warc_message_changes_no_code(tmp_path, monkeypatch):
    rng = random.Random(7)
    harness = Harness(tmp_path / "harness")
    cases = [c for c in _fault_cases() if _reader(harness, c) == "warc"]
    paths = []
    for case in rng.sample(cases, 40):
        path = tmp_path / case.id.replace("/", "_") / harness.intact(case.input).name
        path.parent.mkdir(parents=True)
        path.write_bytes(harness.damage(case).data)
        paths.append(path)
    before = [sorted(p.code for p in _problems(p, "warc")) for p in paths]
    assert any(before)

    class Reworded(WarcFramer):
        def __iter__(self):
            return (_reworded(item) for item in super().__iter__())

    monkeypatch.setattr("crawlmill.plugins.readers.warc.WarcFramer", Reworded)
    after = [sorted(p.code for p in _problems(p, "warc")) for p in paths]
    assert after == before


def test_the_codes_the_formats_name_are_listed():
    """Every code written as a literal in the framers, the stream and the codecs (``code=``,
    ``Note("...")``, a ``Repair``'s or a ``Refusal``'s code) is listed in docs/problems.md."""
    pattern = re.compile(
        r"""(?:code=|(?:Note|Repair|Refusal)\(\s*|\b(?:code|[A-Z_]*CODE) = )"([a-z0-9-]+)\""""
    )
    found: set[str] = set()
    for path in (ROOT / "formats").rglob("*.py"):
        found.update(pattern.findall(path.read_text()))
    for path in (ROOT / "plugins" / "readers").glob("*.py"):
        if path.stem in ("warc", "arc"):
            found.update(pattern.findall(path.read_text()))
    assert {"cr-counted-length", "stray-newlines", "date-padded", "truncated-member"} <= found
    assert not found - listed_codes(), found - listed_codes()


def test_the_reader_tables_of_sentences_are_gone():
    import importlib.util

    assert importlib.util.find_spec("crawlmill.plugins.readers.codes") is None
    assert len(PATTERNS) > 10
