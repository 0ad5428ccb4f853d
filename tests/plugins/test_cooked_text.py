"""``cooked-text`` on the real EUC-JP pages of a ClueWeb09 sample: through the CLI (counts,
nothing dropped, the text refused by the WARC writer with a warning) and at the mechanism
(the text is the cooked page, Japanese text intact, encodable to EUC-JP)."""

from __future__ import annotations

import json

from crawlmill import open_reader
from crawlmill.core import FilterContext, InputFile, Record, RecordKind
from crawlmill.core.commands.cli import main
from crawlmill.formats.ntcir.cooked import cook
from crawlmill.plugins.filters.cooked_text import CookedTextFilter

from tests.conftest import SAMPLES

JA = SAMPLES / "chatnoir-eu-chatnoir-resiliparse/tests/data/clueweb-quirk.warc.gz"


def _filter(**options) -> CookedTextFilter:
    step = CookedTextFilter(CookedTextFilter.Options(**options))
    step.open(FilterContext(InputFile("x", "x", 0)))
    return step


def test_through_the_cli_nothing_dropped_and_counted(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(
        ["convert", str(JA), "--to", "warc", "-o", str(out), "--filter", "cooked-text",
         "--progress", "never"]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    with open_reader(str(JA)) as records:
        responses = sum(r.kind == "response" for r in records)
    counts = report["counts"]["cooked-text"]
    assert counts["cooked"] == responses == counts["charset:header"]
    assert report["written"] == report["read"]
    assert not any(report["dropped"].values())


def test_the_text_is_the_cooked_page():
    step = _filter()
    with open_reader(str(JA)) as records:
        pages = [r for r in records if r.kind == "response"]
    for record in pages:
        result = step.apply(record)
        expected = cook(record.payload.decode("euc_jp", "replace"))
        assert result.text == expected
        assert result.payload == record.payload and result.http_head == record.http_head
        source = record.payload.decode("euc_jp", "replace").lower()
        for tag in ("<script", "<style", "<!--", "<meta", "<img", "<a "):
            text = result.text.replace("<META>", "").replace("<ALT>", "").lower()
            assert tag not in text or "&lt;" + tag[1:] in source, tag
        assert any("\u3040" <= ch <= "\u30ff" for ch in result.text)  # kana survived
        result.text.encode("euc_jp", "replace")


def test_kinds_and_content_types_pass_unchanged():
    step = _filter(content_types="text/html")
    image = Record(kind=RecordKind.RESPONSE, content_type="image/png", payload=b"<b>x</b>")
    assert step.apply(image) is image
    request = Record(kind=RecordKind.REQUEST, content_type="text/html", payload=b"<b>x</b>")
    assert step.apply(request) is request
    page = Record(kind=RecordKind.RESPONSE, content_type="text/HTML; charset=utf-8",
                  payload="<p>caf&eacute; é</p>".encode())  # fmt: skip
    assert step.apply(page).text == "cafe é"


def test_markers_are_options():
    step = _filter(meta_marker="K:", alt_marker="A:")
    page = Record(kind=RecordKind.RESOURCE, content_type="text/html",
                  payload=b'<meta name=description content=d><img alt=a>')  # fmt: skip
    assert step.apply(page).text == "\nK:d\n\nA:a\n"
