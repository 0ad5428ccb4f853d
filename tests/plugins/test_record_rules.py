"""The Record's rules as writers meet them: a filter's change of any neutral field reaches the
output (or is refused with a warning), and no WARC 1.x record is written without WARC-Date.

The runs go through the command line with the ``fake-set`` filter of tests/core/fake_plugins
(``--plugin cm_fake``), which changes fields with ``Record.evolve`` as a user's filter would.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests import helpers
from tests.helpers import put_fake_plugins_on_path

FAKE_DIR = Path(__file__).resolve().parents[1] / "core" / "fake_plugins"

HTTP_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nServer: x\r\n\r\n"
HTML = b"<html>hello</html>"


@pytest.fixture(autouse=True)
def fake_on_path(monkeypatch):
    put_fake_plugins_on_path(monkeypatch)


def warc_record(headers: list[tuple[bytes, bytes]], block: bytes, version=b"1.1") -> bytes:
    head = b"WARC/" + version + b"\r\n"
    head += b"".join(k + b": " + v + b"\r\n" for k, v in headers)
    head += b"Content-Length: " + str(len(block)).encode() + b"\r\n\r\n"
    return head + block + b"\r\n\r\n"


def input_warc(path: Path, *, date: bool = True) -> Path:
    """A gzip-per-record WARC 1.1: one response (HTTP) and one resource record."""
    dated = [(b"WARC-Date", b"2020-01-01T00:00:00Z")] if date else []
    records = [
        warc_record(
            [
                (b"WARC-Type", b"response"),
                (b"WARC-Record-ID", b"<urn:uuid:00000000-0000-4000-8000-000000000001>"),
                *dated,
                (b"WARC-Target-URI", b"http://example.com/"),
                (b"WARC-IP-Address", b"1.1.1.1"),
                (b"WARC-TREC-ID", b"old-1"),
                (b"Content-Type", b"application/http; msgtype=response"),
            ],
            HTTP_HEAD + HTML,
        ),
        warc_record(
            [
                (b"WARC-Type", b"resource"),
                (b"WARC-Record-ID", b"<urn:uuid:00000000-0000-4000-8000-000000000002>"),
                *dated,
                (b"WARC-Target-URI", b"http://example.com/a.txt"),
                (b"WARC-IP-Address", b"1.1.1.1"),
                (b"Content-Type", b"text/plain"),
            ],
            b"plain text",
        ),
    ]
    path.write_bytes(b"".join(gzip.compress(r, mtime=0) for r in records))
    return path


def convert(src: Path, out: Path, *filter_args: str) -> tuple[int, str]:
    filters = ("--filter", "fake-set", *filter_args) if filter_args else ()
    result = helpers.convert(
        src, "warc", out, "--plugin", "cm_fake", *filters, workers=1, progress=None
    )
    return result.exit_code, result.stderr


def read_back(warcio, path: Path) -> list:
    from warcio.archiveiterator import ArchiveIterator

    rows = []
    with open(path, "rb") as fh:
        for rec in ArchiveIterator(fh, check_digests="raise"):
            http = rec.http_headers.get_header("Content-Type") if rec.http_headers else None
            rows.append(
                (rec.rec_type, dict(rec.rec_headers.headers), http, rec.content_stream().read())
            )
    return rows


def test_a_filter_changing_ip_content_type_doc_id_and_date_reaches_the_warc(tmp_path, capsys, need):
    warcio = need("warcio")
    src = input_warc(tmp_path / "in.warc.gz")
    out = tmp_path / "out"
    code, err = convert(
        src, out,
        "ip=9.9.9.9", "content_type=text/csv", "doc_id=new-id", "date=2021-02-03T04:05:06+00:00",
    )  # fmt: skip
    assert code == 0, err
    rows = read_back(warcio, out / "in.warc.gz")  # check_digests="raise": digests still hold
    assert [r[0] for r in rows] == ["response", "resource"]
    for _, headers, _, _ in rows:
        assert headers["WARC-IP-Address"] == "9.9.9.9"
        assert headers["WARC-TREC-ID"] == "new-id"
        assert headers["WARC-Date"] == "2021-02-03T04:05:06Z"
    response, resource = rows
    # a response's content type is its payload's: in the HTTP head, the charset kept
    assert response[1]["Content-Type"] == "application/http; msgtype=response"
    assert response[2] == "text/csv; charset=utf-8"
    assert response[3] == HTML
    # a resource's content type is its block's: the WARC Content-Type
    assert resource[1]["Content-Type"] == "text/csv"
    assert resource[3] == b"plain text"


def test_an_unchanged_copy_stays_byte_identical(tmp_path, capsys):
    src = input_warc(tmp_path / "in.warc.gz")
    code, err = convert(src, tmp_path / "out")
    assert code == 0, err
    assert (tmp_path / "out" / "in.warc.gz").read_bytes() == src.read_bytes()


def test_extracted_text_a_warc_response_cannot_hold_is_refused_with_a_warning(tmp_path, capsys):
    src = input_warc(tmp_path / "in.warc.gz")
    out = tmp_path / "out"
    code, err = convert(src, out, "text=some words")
    assert code == 0, err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert "extracted text not written" in json.dumps(report)
    # nothing else changed: the records are written as they were (compressed anew)
    assert gzip.decompress((out / "in.warc.gz").read_bytes()) == gzip.decompress(src.read_bytes())


def test_a_record_without_a_date_gets_the_conversion_time_and_a_warning(
    tmp_path, capsys, need, monkeypatch
):
    warcio = need("warcio")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # 2023-11-14T22:13:20Z
    src = input_warc(tmp_path / "in.warc.gz", date=False)
    out = tmp_path / "out"
    code, err = convert(src, out)
    assert code == 0, err
    rows = read_back(warcio, out / "in.warc.gz")
    assert [r[1].get("WARC-Date") for r in rows] == ["2023-11-14T22:13:20Z"] * 2
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert "record without a capture date: WARC-Date is the conversion time" in json.dumps(report)


def input_arc(path: Path) -> Path:
    """A gzip-per-record ARC v1: the filedesc and one HTTP response."""
    from crawlmill.formats.arc.header import build_filedesc, build_header_line

    block = HTTP_HEAD + HTML
    line = build_header_line(
        b"http://example.com/", b"1.1.1.1", b"20200101000000", b"text/html", len(block)
    )
    members = [build_filedesc(b"in.arc.gz", b"20200101000000"), line + b"\n" + block + b"\n"]
    path.write_bytes(b"".join(gzip.compress(m, mtime=0) for m in members))
    return path


def test_a_filter_changing_ip_content_type_and_date_reaches_the_arc_header_line(
    tmp_path, capsys, need
):
    need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    src = input_arc(tmp_path / "in.arc.gz")
    out = tmp_path / "out"
    code, err = main_arc(
        src, out,
        "ip=9.9.9.9", "content_type=text/csv", "doc_id=new-id", "date=2021-02-03T04:05:06+00:00",
    )  # fmt: skip
    assert code == 0, err
    with open(out / "in.arc.gz", "rb") as fh:
        rows = [dict(r.rec_headers.headers) for r in ArchiveIterator(fh)]
    page = rows[-1]
    assert page["uri"] == "http://example.com/"
    assert page["ip-address"] == "9.9.9.9"
    assert page["archive-date"] == "20210203040506"
    assert page["content-type"] == "text/csv"
    # the doc id has no field in an ARC header line: refused with a warning
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert "doc id not written: an ARC header line has no field for it" in json.dumps(report)


def main_arc(src: Path, out: Path, *filter_args: str) -> tuple[int, str]:
    result = helpers.convert(
        src,
        "arc",
        out,
        "--plugin",
        "cm_fake",
        "--filter",
        "fake-set",
        *filter_args,
        workers=1,
        progress=None,
    )
    return result.exit_code, result.stderr


@pytest.mark.parametrize(
    ("arg", "key", "value"),
    [
        ("ip=9.9.9.9", "ip-address", "9.9.9.9"),
        ("content_type=text/csv", "content-type", "text/csv"),
    ],
)
def test_one_changed_header_field_alone_reaches_the_arc(tmp_path, capsys, need, arg, key, value):
    need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    src = input_arc(tmp_path / "in.arc.gz")
    code, err = main_arc(src, tmp_path / "out", arg)
    assert code == 0, err
    with open(tmp_path / "out" / "in.arc.gz", "rb") as fh:
        page = [dict(r.rec_headers.headers) for r in ArchiveIterator(fh)][-1]
    assert page[key] == value
    assert page["archive-date"] == "20200101000000"  # the rest as it was
