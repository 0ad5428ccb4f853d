"""NTCIR ``.meta`` files: both reconstructed syntaxes read, written, and read back to the same
fields; the HTTP header block verbatim (CR LF kept); empty and unknown fields; lines that are
neither field nor wrapper kept."""

from __future__ import annotations

import pytest
from crawlmill.formats.ntcir.meta import (
    CTYPE,
    DATE,
    DOCID,
    HTTPH,
    URL,
    parse_meta,
    write_meta,
)

HEAD = b"HTTP/1.0 200 OK\r\nDate: Mon, 01 Oct 2001 12:34:56 GMT\r\nContent-Type: text/html\r\n\r\n"
FIELDS = [
    (DOCID, b"NW000000001"),
    (DATE, b"Sun, 30 Sep 2001 10:00:00 GMT"),
    (CTYPE, b"text/html"),
    (URL, b"http://www.example.jp/~user/index.html?a=1&b=\xa4\xa2"),
    (HTTPH, HEAD),
]


@pytest.mark.parametrize("syntax", ["tagged", "lines"])
@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
def test_written_and_read_back(syntax, newline):
    data = write_meta(FIELDS, syntax, newline=newline)
    meta = parse_meta(data)
    assert meta.fields == FIELDS
    assert meta.syntax == syntax
    assert meta.wrapper == (b"<META>", b"</META>")
    assert meta.doc_id == "NW000000001" and meta.get(HTTPH) == HEAD
    assert not meta.other
    assert write_meta(meta.fields, meta.syntax, meta.wrapper, newline) == data


def test_the_tagged_form_by_hand():
    data = (
        b"<DOC>\n<NW:DOCID>NW000000002</NW:DOCID>\n<NW:DATE></NW:DATE>\n"
        b"<NW:CTYPE>text/plain</NW:CTYPE>\n<NW:URL>http://a.jp/</NW:URL>\n"
        b"<NW:HTTPH>\nHTTP/1.1 200 OK\r\nServer: x\r\n</NW:HTTPH>\n</DOC>\n"
    )
    meta = parse_meta(data)
    assert meta.fields == [
        (DOCID, b"NW000000002"),
        (DATE, b""),  # "This may be empty."
        (CTYPE, b"text/plain"),
        (URL, b"http://a.jp/"),
        (HTTPH, b"HTTP/1.1 200 OK\r\nServer: x\r\n"),
    ]
    assert meta.wrapper == (b"<DOC>", b"</DOC>") and meta.syntax == "tagged"


def test_the_lines_form_by_hand():
    data = (
        b"<META>\nNW:DOCID: NW000000003\nNW:DATE\nNW:URL http://b.jp/\n"
        b"NW:HTTPH\nHTTP/1.0 404 Not Found\nContent-Type: text/html\n\n</META>\n"
    )
    meta = parse_meta(data)
    assert meta.fields == [
        (DOCID, b"NW000000003"),
        (DATE, b""),
        (URL, b"http://b.jp/"),
        (HTTPH, b"HTTP/1.0 404 Not Found\nContent-Type: text/html\n\n"),
    ]
    assert meta.syntax == "lines" and meta.wrapper == (b"<META>", b"</META>")


def test_a_header_block_runs_to_the_next_field_without_a_wrapper():
    data = b"NW:HTTPH\nHTTP/1.0 200 OK\nX: 1\nNW:DOCID NW000000004\n"
    meta = parse_meta(data)
    assert meta.fields == [(HTTPH, b"HTTP/1.0 200 OK\nX: 1\n"), (DOCID, b"NW000000004")]
    assert meta.wrapper is None


def test_unknown_fields_and_other_lines_are_kept():
    data = b"<META>\n<NW:DOCID>NW1</NW:DOCID>\n<NW:SIZE>1234</NW:SIZE>\nstray text\n</META>\n"
    meta = parse_meta(data)
    assert meta.fields == [(DOCID, b"NW1"), ("NW:SIZE", b"1234")]
    assert meta.other == [b"stray text\n"]


def test_an_unterminated_block_runs_to_the_end():
    meta = parse_meta(b"<NW:HTTPH>\nHTTP/1.0 200 OK\nX: y\n")
    assert meta.fields == [(HTTPH, b"HTTP/1.0 200 OK\nX: y\n")]


def test_a_one_line_field_with_a_line_break_is_refused():
    with pytest.raises(ValueError, match="NW:URL"):
        write_meta([(URL, b"http://a/\nNW:DOCID NW9")])


def test_no_wrapper():
    data = write_meta(FIELDS[:2], "lines", wrapper=None)
    assert data == b"NW:DOCID NW000000001\nNW:DATE Sun, 30 Sep 2001 10:00:00 GMT\n"
    assert parse_meta(data).fields == FIELDS[:2]
