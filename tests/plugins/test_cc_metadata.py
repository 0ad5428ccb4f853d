"""``cc-metadata``: WARC captures -> metadata JSON lines -> Records -> WARC metadata records,
through the CLI; lines read and written again unchanged; a bad line is damage with its
offset; records that are no capture are quarantined, not lost."""

from __future__ import annotations

import json

from crawlmill import open_reader

from tests import helpers
from tests.conftest import SAMPLES

WARC = SAMPLES / "webrecorder-warcio/test/data/example.warc.gz"
JA = SAMPLES / "chatnoir-eu-chatnoir-resiliparse/tests/data/clueweb-quirk.warc.gz"


def convert(src, out, to, *extra) -> tuple[int, dict]:
    result = helpers.convert(src, to, out, *extra)
    return result.exit_code, result.report


def lines(out):
    (path,) = sorted(out.rglob("*.jsonl"))
    return path, [json.loads(x) for x in path.read_bytes().splitlines()]


def test_warc_to_metadata_to_warc(tmp_path, capsys):
    code, report = convert(JA, tmp_path / "m", "cc-metadata", "--filter", "kind",
                           "keep=response", "--option", "text=true")  # fmt: skip
    assert code == 0, capsys.readouterr().err
    path, found = lines(tmp_path / "m")
    with open_reader(str(JA)) as records:
        responses = [r for r in records if r.kind == "response"]
    assert [x["url"] for x in found] == [r.url for r in responses]
    assert all(x["metadata"]["charset_detected"] == "EUC-JP" and x["text"] for x in found)
    from crawlmill.formats.cc2012.metadata import page_text, signed64
    from simhash import Simhash  # the reference package

    for x, r in zip(found, responses, strict=True):
        text = page_text(r.payload, "euc_jp")
        assert x["metadata"]["text_simhash"] == signed64(Simhash(text).value), x["url"]

    with open_reader(str(path)) as records:  # detected by sniff
        back = list(records)
    assert [r.kind for r in back] == ["metadata"] * len(found)
    for record, line in zip(back, found, strict=True):
        assert json.loads(record.payload) == line["metadata"] and record.text == line["text"]
        links = line["metadata"]["content"]["links"]
        assert [o.url for o in record.outlinks] == [x["href"] for x in links]

    code, report = convert(path, tmp_path / "w", "warc")
    assert code == 0 and report["read"] == len(found)
    code, _ = convert(path, tmp_path / "again", "cc-metadata")
    assert code == 0
    assert lines(tmp_path / "again")[1] == found  # read and written again: the same lines


def test_records_that_are_no_capture_are_quarantined(tmp_path):
    code, report = convert(WARC, tmp_path / "m", "cc-metadata")
    with open_reader(str(WARC)) as records:
        kinds = [r.kind for r in records]
    assert code == 3  # quarantined records: not silently lost
    assert report["written"] == kinds.count("response")
    assert report["quarantined"] == len(kinds) - kinds.count("response")


def test_a_bad_line_is_damage_and_the_next_is_read(tmp_path):
    good = json.dumps({"url": "http://a/", "metadata": {"disposition": "FAILURE"}}) + "\n"
    src = tmp_path / "m.jsonl"
    src.write_text(good + "{not json\n" + good)
    with open_reader(str(src), "cc-metadata") as records:
        found = list(records)
        damages = list(records.damages)
    assert len(found) == 2 and found[0].extras["cc_metadata"]["disposition"] == "FAILURE"
    (damage,) = damages
    assert damage.offset == len(good) and damage.code == "bad-json-line"


def test_changed_fields_the_json_does_not_hold_are_warned(tmp_path, monkeypatch):
    from tests.helpers import put_fake_plugins_on_path

    put_fake_plugins_on_path(monkeypatch)
    code, report = convert(
        JA, tmp_path / "m", "cc-metadata", "--plugin", "cm_fake", "--filter", "kind",
        "keep=response", "--filter", "fake-set", "text=t", "content_type=text/plain",
        "doc_id=X1",
    )  # fmt: skip
    assert code == 0
    for warning in ("text-not-written", "content-type-not-written", "doc-id-not-written"):
        assert report["warnings"][warning] == report["written"], warning
