"""formats/http/head.py: where an archived HTTP head ends, and its Content-Type."""

from __future__ import annotations

import pytest
from crawlmill.formats.http.head import (
    content_type,
    content_type_value,
    head_end,
    media_type,
    split_response,
    with_content_type,
)

CRLF_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"


@pytest.mark.parametrize(
    ("block", "cut"),
    [
        (b"HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody\r\n\r\nmore", 25),
        (b"HTTP/1.1 200 OK\nA: b\n\nbody\r\n\r\n", 22),  # LF head, CRLF body: first blank wins
        (b"HTTP/1.1 200 OK\nA: b\n\r\nbody", 23),  # a mixed blank line
        (b"HTTP/1.1 200 OK\nA: b\n\r\r\nbody", 24),  # a stray CR inside the blank line
        (b"HTTP/1.1 200 OK\r\nA: b\r\n", -1),
    ],
)
def test_head_end(block: bytes, cut: int) -> None:
    assert head_end(block) == cut


def test_head_end_inside_a_larger_buffer() -> None:
    buf = b"xxxx" + CRLF_HEAD + b"body" + b"\r\n\r\nnext"
    assert head_end(buf, 4, 4 + len(CRLF_HEAD) + 4) == 4 + len(CRLF_HEAD)
    assert head_end(buf, 4, 10) == -1  # the window ends before the blank line


@pytest.mark.parametrize(
    ("block", "head"),
    [
        (CRLF_HEAD + b"body", CRLF_HEAD),
        (b"HTTP/1.0 200 OK\nA: b\n\nbody", b"HTTP/1.0 200 OK\nA: b\n\n"),
        (b"HTTP/1.1 200\r\nA: b\r\n\r\nbody", b"HTTP/1.1 200\r\nA: b\r\n\r\n"),  # no reason phrase
        (b"HTTP/1.1 304 Not Modified\r\nA: b\r\n", b"HTTP/1.1 304 Not Modified\r\nA: b\r\n"),
    ],
)
def test_split_response(block: bytes, head: bytes) -> None:
    got_head, payload = split_response(block)
    assert got_head == head
    assert got_head + payload == block


def test_split_response_leaves_non_http_alone() -> None:
    dns = b"20110922131211\nwww.x.dk.\t43200\tIN\tA\t1.2.3.4\n"
    assert split_response(dns) == (None, dns)
    assert split_response(b"HTTP/x broken")[0] is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (b"text/html", ("text/html", None)),
        (b'text/HTML; Charset="UTF-8"', ("text/html", "utf-8")),
        (b"text/html;charset=iso-8859-1; q=1", ("text/html", "iso-8859-1")),
        (b"application/xhtml+xml; boundary=x", ("application/xhtml+xml", None)),
        (b"", (None, None)),
    ],
)
def test_media_type(value: bytes, expected: tuple) -> None:
    assert media_type(value) == expected


def test_content_type_takes_the_first_content_type_line() -> None:
    head = b"HTTP/1.1 200 OK\nX-Content-Type-Options: nosniff\ncontent-type: image/gif\nContent-Type: text/html\n\n"
    assert content_type(head) == ("image/gif", None)
    assert content_type(b"HTTP/1.1 204 No Content\r\n\r\n") == (None, None)


@pytest.mark.parametrize(
    ("head", "media", "charset", "expected"),
    [
        # the media type replaced, the charset parameter kept as spelled when it is the same
        (
            b'HTTP/1.1 200 OK\r\nContent-Type: text/html; Charset="UTF-8"\r\nX: y\r\n\r\n',
            "text/csv",
            "utf-8",
            b'HTTP/1.1 200 OK\r\nContent-Type: text/csv; Charset="UTF-8"\r\nX: y\r\n\r\n',
        ),
        # a new charset replaces the old parameter, other parameters stay
        (
            b"HTTP/1.1 200 OK\r\ncontent-type: text/html;q=1; charset=x\r\n\r\n",
            "text/html",
            "latin-1",
            b"HTTP/1.1 200 OK\r\ncontent-type: text/html; q=1; charset=latin-1\r\n\r\n",
        ),
        # no Content-Type line: added last, with the head's line ending
        (
            b"HTTP/1.1 200 OK\nServer: x\n\n",
            "text/plain",
            None,
            b"HTTP/1.1 200 OK\nServer: x\nContent-Type: text/plain\n\n",
        ),
    ],
)
def test_with_content_type_rewrites_only_the_content_type_line(head, media, charset, expected):
    out = with_content_type(head, media, charset)
    assert out == expected
    assert content_type(out) == (media, charset)


def test_content_type_value_without_an_old_value():
    assert content_type_value(None, "text/plain", "utf-8") == b"text/plain; charset=utf-8"
    assert content_type_value(None, "text/plain", None) == b"text/plain"


def test_parse_http_head_has_one_home_in_formats() -> None:
    """The Record's header view parses with the formats codec, not a copy of its own."""
    from crawlmill.core import record
    from crawlmill.formats.http import head as http

    assert record.parse_http_head is http.parse_http_head
    first, headers = http.parse_http_head(b"HTTP/1.1 200 OK\r\nA: 1\r\n folded\nB\n\r\n")
    assert first == b"HTTP/1.1 200 OK"
    assert headers == [(b"A", b"1 folded"), (b"B", b"")]
