"""One vocabulary for problems: one damage type and one warning type, each with a stable code,
counted per code in the run report, the summary line and the quarantine index."""

from __future__ import annotations

import json
import re

import pytest
from crawlmill.core import Damage, Notice, ReadContext, WriteContext, open_reader
from crawlmill.core.commands.cli import main
from crawlmill.core.plugin import InputFile
from crawlmill.core.problems import derive_code, is_code

from tests.conftest import ARC_SAMPLES, REAL_WORLD_ARC_SAMPLES, ROOT, listed_codes


def _arc(records: list[tuple[str, str, bytes]]) -> bytes:
    """An ARC v1 file: a filedesc, then ``(url, date, block)`` records."""
    desc = b"1 0 crawlmill\nURL IP-address Archive-date Content-type Archive-length\n"
    out = b"filedesc://t.arc 0.0.0.0 20240101000000 text/plain %d\n" % len(desc) + desc + b"\n"
    for url, date, block in records:
        out += f"{url} 1.2.3.4 {date} text/plain {len(block)}\n".encode() + block + b"\n"
    return out


# -- through the CLI --------------------------------------------------------------------------


def test_two_arc_dates_with_different_numbers_are_counted_under_one_code(tmp_path, capsys):
    src = tmp_path / "in.arc"
    src.write_bytes(
        _arc(
            [
                ("http://a.example/", "202401010000", b"one"),
                ("http://b.example/", "2024010100", b"two"),
            ]
        )
    )
    out = tmp_path / "out"
    assert main(["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"]) == 0
    err = capsys.readouterr().err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    # "Archive-date has 12 digits; padded to 14" and "... 10 digits ...": one kind
    assert report["warnings"] == {"date-padded": 2}
    assert report["warning_examples"]["date-padded"] == "Archive-date has 12 digits; padded to 14"
    assert "2 warnings of 1 kind (date-padded 2); see" in err


def test_damage_codes_reach_the_report_and_the_quarantine_index(tmp_path, capsys):
    src = tmp_path / "in.arc"
    good = _arc([("http://a.example/", "20240101000000", b"one")])
    src.write_bytes(good + b"http://b.example/ 1.2.3.4 20240101000000 text/plain 9999\nshort\n")
    out = tmp_path / "out"
    assert main(["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"]) == 3
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert [d["code"] for d in report["damages"]] == ["truncated-record"]
    (index,) = (out / ".crawlmill" / "quarantine").glob("*.jsonl")
    entries = [json.loads(line) for line in index.read_text().splitlines()]
    assert [e["code"] for e in entries] == ["truncated-record"]
    assert "declares 9999 bytes" in entries[0]["reason"]


def test_inspect_shows_each_problem_with_its_code(tmp_path, capsys):
    src = tmp_path / "in.arc"
    src.write_bytes(_arc([("http://a.example/", "2024010100", b"one")]))
    assert main(["inspect", str(src)]) == 0
    assert "Archive-date has 10 digits; padded to 14 [date-padded]" in capsys.readouterr().out


# -- the API: the call forms ---------------------------------------------------------------


def _read_ctx(seen: list) -> ReadContext:
    return ReadContext(InputFile("f.x", "f.x"), seen.append, on_warning=seen.append)


def test_report_warning_takes_a_code_in_both_contexts():
    seen: list[Notice] = []
    _read_ctx(seen).report_warning("invalid-date", "WARC-Date 2009-13-01 is not a date", 12)
    wctx = WriteContext(InputFile("f.x", "f.x"), 1, None, None, on_warning=seen.append)
    wctx.report_warning("date-missing", "record without a capture date")
    assert [(n.code, n.offset, n.message) for n in seen] == [
        ("invalid-date", 12, "WARC-Date 2009-13-01 is not a date"),
        ("date-missing", None, "record without a capture date"),
    ]
    assert (
        seen[0].path == "f.x"
        and str(seen[0]) == "f.x at byte 12: WARC-Date 2009-13-01 is not a date"
    )


def test_a_problem_without_a_code_is_refused():
    """One call form, with an explicit code: the forms before codes (a reader's
    ``report_warning(offset, message)``, a writer's ``report_warning(message)``, a ``Damage``
    without a code) are errors, not a code made up from the sentence."""
    with pytest.raises(TypeError):
        _read_ctx([]).report_warning(7, "declared length is 12 bytes off")
    with pytest.raises(ValueError, match="needs a code"):
        _read_ctx([]).report_warning(None, "lf-line-endings: LF-only line endings")
    wctx = WriteContext(InputFile("f.x", "f.x"), 1, None, None, on_warning=[].append)
    with pytest.raises(TypeError):
        wctx.report_warning("doc id not written (no field)")
    with pytest.raises(ValueError, match="needs a code"):
        Damage("f.x", 3, "checksum mismatch in 'x.gz' (crc 1234)")
    with pytest.raises(ValueError, match="needs a code"):
        Notice("f.x", 3, "a quirk")
    assert Damage("f.x", 3, "x", 1, b"x", "bad-length").code == "bad-length"
    seen: list[Notice] = []
    _read_ctx(seen).report_warning(code="bad-length", message="m", offset=4)
    assert [(n.code, n.offset, n.message) for n in seen] == [("bad-length", 4, "m")]


def test_a_code_must_be_kebab_case():
    with pytest.raises(ValueError, match="kebab-case"):
        Damage("f", 0, "r", code="Bad Length")
    with pytest.raises(ValueError, match="kebab-case"):
        _read_ctx([]).report_warning("bad_length", "m")
    with pytest.raises(TypeError):
        _read_ctx([]).report_warning(3)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("invalid-date: WARC-Date is not a valid date", "invalid-date"),
        ("Archive-date has 12 digits; padded to 14", "archive-date-has-digits-padded"),
        ("record 'http://x/' declares 12 bytes", "record-declares-bytes"),
        ("1234", "problem"),
    ],
)
def test_derive_code(text, code):
    assert derive_code(text) == code and is_code(code)


# -- the codes the WARC and ARC framers set at the source: tests/plugins/test_codes_at_source.py


def test_the_catalogue_is_sorted_and_each_code_once():
    text = (ROOT / "docs" / "problems.md").read_text()
    codes = re.findall(r"^\| `([a-z0-9-]+)` \|", text, re.M)
    assert codes == sorted(codes) and len(codes) == len(set(codes))
    assert all(is_code(c) for c in codes)


@pytest.mark.slow
def test_every_code_the_readers_emit_on_the_samples_is_listed(samples):
    """Every ARC and WARC sample file, read by the built-in readers: each code is listed."""
    files = [samples / rel for rel in ARC_SAMPLES + REAL_WORLD_ARC_SAMPLES]
    files += sorted(p for p in samples.rglob("*") if re.search(r"\.warc(\.gz)?$", p.name))
    codes: set[str] = set()
    for path in files:
        reader = "arc" if ".arc" in path.name.lower() else "warc"
        with open_reader(path, reader) as records:
            for _ in records:
                pass
        codes |= {p.code for p in records.damages + records.warnings}
    assert len(codes) > 5
    assert not codes - listed_codes(), codes - listed_codes()
