"""The Record's own rules: immutable, and every field change through ``evolve`` marks it."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest
from crawlmill.core.record import CONTENT_FIELDS, Outlink, Provenance, Record, RecordKind

BASE = Record(
    kind=RecordKind.RESPONSE,
    url="http://example.com/",
    doc_id="d1",
    date=datetime(2020, 1, 1, tzinfo=UTC),
    date_raw="2020-01-01T00:00:00Z",
    http_head=b"HTTP/1.1 200 OK\r\n\r\n",
    payload=b"x",
    content_type="text/html",
    charset="utf-8",
    ip="1.1.1.1",
    source=Provenance("in.warc", 0, 10, "warc"),
)

NEW_VALUES = {
    "kind": RecordKind.RESOURCE,
    "url": "http://example.org/",
    "doc_id": "d2",
    "date": datetime(2021, 1, 1, tzinfo=UTC),
    "date_raw": "2021-01-01T00:00:00Z",
    "http_head": b"HTTP/1.1 404 Not Found\r\n\r\n",
    "payload": b"y",
    "content_type": "text/plain",
    "charset": "latin-1",
    "ip": "9.9.9.9",
    "text": "words",
    "outlinks": [Outlink("http://example.net/")],
    "extras": {"fmt": {"k": 1}},
}


def test_every_field_but_provenance_is_a_content_field():
    fields = {f.name for f in dataclasses.fields(Record)}
    assert fields - {"source", "modified", "changed"} == CONTENT_FIELDS
    assert set(NEW_VALUES) == CONTENT_FIELDS


@pytest.mark.parametrize("name", sorted(NEW_VALUES))
def test_changing_any_field_through_evolve_marks_the_record_modified(name):
    changed = BASE.evolve(**{name: NEW_VALUES[name]})
    assert changed.modified
    assert name in changed.changed
    assert getattr(changed, name) == NEW_VALUES[name]
    assert not BASE.modified and BASE.changed == frozenset()  # the original is untouched


def test_an_equal_value_or_a_new_provenance_is_no_change():
    same = BASE.evolve(ip="1.1.1.1", payload=b"x", source=Provenance("other", 5, 1, "warc"))
    assert not same.modified and same.changed == frozenset()


def test_changes_accumulate_and_modified_is_never_unset():
    changed = BASE.evolve(ip="9.9.9.9").evolve(doc_id="d2", modified=False)
    assert changed.modified
    assert changed.changed == {"ip", "doc_id"}
    assert BASE.evolve(modified=True).modified  # a reader marks a repaired record


def test_a_new_date_without_a_raw_spelling_drops_the_old_one():
    changed = BASE.evolve(date=datetime(2021, 1, 1, tzinfo=UTC))
    assert changed.date_raw is None
    assert {"date", "date_raw"} <= changed.changed
    kept = BASE.evolve(date=datetime(2021, 1, 1, tzinfo=UTC), date_raw="2021")
    assert kept.date_raw == "2021"


@pytest.mark.parametrize("name", ["ip", "payload", "modified", "changed", "extras"])
def test_a_record_cannot_be_changed_in_place(name):
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(BASE, name, None)


def test_the_quarantine_line_of_a_record_names_what_changed_and_only_then():
    import json

    from crawlmill.core.run.quarantine import record_to_json

    assert "changed" not in json.loads(record_to_json(BASE))  # a reader's record: as before
    line = json.loads(record_to_json(BASE.evolve(ip="9.9.9.9", doc_id="d2")))
    assert line["changed"] == ["doc_id", "ip"]
    assert line["ip"] == "9.9.9.9" and line["modified"] is True


def test_the_quarantine_line_of_a_record_leaves_out_the_held_members():
    """``Provenance.held`` is a handle on the reader's buffer (not shown, not compared): its
    repr is an object address, so in the quarantine line it made the bytes differ from run
    to run (a CrawlDB's quarantine differed between Spark and the local executor)."""
    import json

    from crawlmill.core.run.quarantine import record_to_json

    source = Provenance("x.warc.gz", 0, 10, "warc", held=object())  # type: ignore[arg-type]
    line = json.loads(record_to_json(dataclasses.replace(BASE, source=source)))
    assert line["source"] == {"path": "x.warc.gz", "offset": 0, "length": 10,
                              "format": "warc", "space": None}  # fmt: skip
