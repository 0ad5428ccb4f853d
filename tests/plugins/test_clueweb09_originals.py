"""ClueWeb09 values a target format cannot hold: one rule (docs/formats/clueweb09.md, "Original
values"), issue 19. The output is valid for its target; the value as written is kept where a
reader of ours restores it; a best-effort date is derived, counted and reported; nothing becomes
1970 or today silently.

The dataset page: "The WARC formatting used conforms to the WARC ISO 28500 final draft (as of
June 18th, 2008), version 018." Its files (the real samples) write dates such as
``2009-03-67T15:35:34-0700`` (Java's ``yyyy-MM-DD``: day 67 of the year, in March as the month
says), an empty ``WARC-Identified-Payload-Type:`` and, for pages reached by outlinks, target
URIs with spaces: none of these is valid WARC 1.1.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from crawlmill.core import open_reader
from crawlmill.core.record import RecordKind
from crawlmill.formats.warc.fields import derive_warc_date, escape_uri, valid_warc_date

from tests.helpers import cli

SPACED = "http://example.org/a page/index.html?q=x y"


def clueweb09_file(path: Path, *, warcinfo: bool = True) -> None:
    """Two ClueWeb09 responses as the collection writes them: LF, Content-Length counting the
    trailing blank line, day-of-year dates, an empty WARC-Identified-Payload-Type, and (the
    second) a target URI with spaces."""
    records = []
    info = str(uuid.uuid5(uuid.NAMESPACE_URL, "info"))
    if warcinfo:
        fields = b"software: Nutch 1.0-dev (modified for clueweb09)\n"
        records.append(
            b"WARC/0.18\nWARC-Type: warcinfo\nWARC-Date: 2009-04-119T12:48:17-0400\n"
            b"WARC-Record-ID: " + info.encode() + b"\nContent-Type: application/warc-fields\n"
            b"Content-Length: %d\n\n" % (len(fields) + 2) + fields + b"\n\n"
        )
    for n, (url, date) in enumerate(
        (("http://example.org/", "2009-03-67T15:35:34-0700"), (SPACED, "2009-03-78T01:02:03-0800"))
    ):
        body = b"<html><body>page %d</body></html>" % n
        block = b"HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Length: %d\n\n" % len(body)
        block += body + b"\n\n"
        records.append(
            b"WARC/0.18\nWARC-Type: response\nWARC-Date: " + date.encode() + b"\n"
            b"WARC-Record-ID: <urn:uuid:%s>\n"
            % str(uuid.uuid5(uuid.NAMESPACE_URL, url)).encode()
            + b"WARC-Warcinfo-ID: "
            + info.encode()
            + b"\nWARC-TREC-ID: clueweb09-en0040-54-%05d\n" % n
            + b"WARC-Target-URI: "
            + url.encode()
            + b"\nWARC-Identified-Payload-Type: \n"
            + b"Content-Type: application/http;msgtype=response\n"
            + b"Content-Length: %d\n\n" % len(block)
            + block
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(records))


def convert(src: Path, out: Path, *args: str, expect: int = 0) -> dict:
    result = cli("convert", src, "-o", out, "--workers", "1", *args)
    assert result.exit_code == expect
    return result.report


def only_file(root: Path, pattern: str) -> Path:
    (path,) = [p for p in root.rglob(pattern) if ".crawlmill" not in p.parts]
    return path


def test_day_of_year_dates_are_read_as_the_date_they_mean():
    # every date of both real samples has this form (English: 2009-03-67, warcinfo
    # 2009-04-119; Chinese: 2009-03-78): the third field is the day of the year, in the month
    assert derive_warc_date("2009-03-67T15:35:34-0700") == datetime(
        2009, 3, 8, 22, 35, 34, tzinfo=UTC
    )
    assert derive_warc_date("2009-04-119T12:48:17-0400") == datetime(
        2009, 4, 29, 16, 48, 17, tzinfo=UTC
    )
    assert derive_warc_date("2009-03-78T01:02:03-0800").date().isoformat() == "2009-03-19"
    # a day of the year outside the month it names means nothing we can tell
    assert derive_warc_date("2009-03-32T00:00:00Z") is None
    assert derive_warc_date("2009-02-30T00:00:00Z") is None
    assert derive_warc_date("not a date") is None


def test_uris_are_escaped_only_where_a_uri_cannot_hold_the_byte():
    assert escape_uri(SPACED.encode()) == b"http://example.org/a%20page/index.html?q=x%20y"
    assert escape_uri(b"http://x/%20a?b=<c>") == b"http://x/%20a?b=%3Cc%3E"
    assert escape_uri("http://x/é".encode()) == "http://x/é".encode()  # an IRI's UTF-8 stays


def test_clueweb09_to_warc_11_is_valid_and_keeps_what_it_changed(tmp_path, need):
    src = tmp_path / "in" / "en0040" / "54.warc"
    clueweb09_file(src)
    report = convert(src.parent.parent, tmp_path / "w11", "--option", "version=1.1")
    # counted and reported: each change by its code
    assert report["warnings"]["date-derived"] == 3  # read: warcinfo + 2 responses
    assert report["warnings"]["date-replaced"] == 3  # written
    assert report["warnings"]["empty-field-dropped"] == 2
    assert report["warnings"]["uri-escaped"] == 1
    out = only_file(tmp_path / "w11", "*.warc.gz")
    # warcio: every date valid, no empty field, the spaced URI escaped, the originals beside
    need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    with open(out, "rb") as fh:
        heads = [r.rec_headers for r in ArchiveIterator(fh)]
    assert len(heads) == 3
    for head in heads:
        assert valid_warc_date(head.get_header("WARC-Date").encode())
        assert all(value.strip() for _, value in head.headers)
        assert " " not in (head.get_header("WARC-Target-URI") or "")
    assert [h.get_header("WARC-Date") for h in heads] == [
        "2009-04-29T16:48:17Z",
        "2009-03-08T22:35:34Z",
        "2009-03-19T09:02:03Z",
    ]
    assert [h.get_header("Crawlmill-Original-Date") for h in heads] == [
        "2009-04-119T12:48:17-0400",
        "2009-03-67T15:35:34-0700",
        "2009-03-78T01:02:03-0800",
    ]
    assert (
        heads[2].get_header("WARC-Target-URI") == "http://example.org/a%20page/index.html?q=x%20y"
    )
    assert heads[2].get_header("Crawlmill-Original-Target-URI") == SPACED
    # our reader restores the originals: the date as written, the URL with its spaces
    with open_reader(str(out), "warc") as records:
        read = [r for r in records if r.kind == RecordKind.RESPONSE]
    assert [r.date_raw for r in read] == ["2009-03-67T15:35:34-0700", "2009-03-78T01:02:03-0800"]
    assert read[0].date == datetime(2009, 3, 8, 22, 35, 34, tzinfo=UTC)
    assert read[1].url == SPACED


def test_back_to_018_writes_the_originals_again(tmp_path):
    src = tmp_path / "in" / "en0040" / "54.warc"
    clueweb09_file(src)
    convert(src.parent.parent, tmp_path / "w11", "--option", "version=1.1")
    report = convert(
        tmp_path / "w11",
        tmp_path / "w18",
        "--option",
        "version=0.18",
        "--option",
        "compression=none",
    )
    assert "date-replaced" not in report["warnings"] and "uri-escaped" not in report["warnings"]
    data = only_file(tmp_path / "w18", "*.warc").read_bytes()
    source = src.read_bytes()
    for field in (b"WARC-Date", b"WARC-Target-URI"):
        pattern = rb"(?m)^" + field + rb": (.*)$"
        assert re.findall(pattern, data) == re.findall(pattern, source)
    assert b"Crawlmill-Original" not in data


def test_cc2012_from_clueweb09_gets_the_derived_dates(tmp_path):
    # before: every page quarantined for its invalid date, an empty ARC, exit 3
    src = tmp_path / "in" / "en0040" / "54.warc"
    clueweb09_file(src)
    report = convert(src.parent.parent, tmp_path / "cc", "--to", "cc2012")
    assert report["quarantined"] == 0 and report["written"] == report["read"] == 3
    assert report["warnings"]["date-derived"] == 3


def test_nutch_segment_fetch_time_is_the_derived_date_not_1970(tmp_path):
    src = tmp_path / "in" / "en0040" / "54.warc"
    clueweb09_file(src, warcinfo=False)  # (a warcinfo is no Nutch page: another issue)
    report = convert(src.parent.parent, tmp_path / "nutch", "--to", "nutch-segment")
    assert report["quarantined"] == 0 and "date-missing" not in report["warnings"]
    back = convert(tmp_path / "nutch", tmp_path / "back", "--option", "version=1.1")
    assert back["read"] == 2
    with open_reader(str(only_file(tmp_path / "back", "*.warc.gz")), "warc") as records:
        dates = sorted(r.date for r in records if r.kind == RecordKind.RESPONSE)
    assert [d.date().isoformat() for d in dates] == ["2009-03-08", "2009-03-19"]


@pytest.mark.parametrize("version", ["1.0", "1.1"])
def test_a_date_nothing_can_be_told_from_is_the_conversion_time_and_reported(tmp_path, version):
    src = tmp_path / "in" / "x.warc"
    clueweb09_file(src, warcinfo=False)
    src.write_bytes(src.read_bytes().replace(b"2009-03-67T15:35:34-0700", b"2009-13-99T00:00:00Z"))
    report = convert(
        src.parent,
        tmp_path / "out",
        "--option",
        f"version={version}",
        "--option",
        "compression=none",
        "--option",
        "warcinfo=never",
    )
    assert report["warnings"]["invalid-date"] == 1 and report["warnings"]["date-replaced"] == 2
    message = report["warning_examples"]["date-replaced"]
    assert "2009-13-99" in message or "2009-03-78" in message
    data = only_file(tmp_path / "out", "*.warc").read_bytes()
    assert b"Crawlmill-Original-Date: 2009-13-99T00:00:00Z" in data
    assert all(valid_warc_date(d) for d in re.findall(rb"(?m)^WARC-Date: (\S+)\r$", data))
