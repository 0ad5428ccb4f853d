"""The text-extraction component: body decoding, charset, extractors, title and description."""

from __future__ import annotations

import gzip

import pytest
from crawlmill.algorithms.text_extraction import (
    EXTRACTORS,
    decoded_page,
    extract_html,
    is_html,
    record_text,
)
from crawlmill.core import Record, RecordKind

PAGE = (
    "<!DOCTYPE html><html><head><title> Caf\u00e9  Menu </title>"
    '<meta name="Description" content="Our daily  menu">'
    "<script>var hidden = 'scriptword';</script><style>.x{color:red}</style></head>"
    "<body><nav><a href='/'>Home</a></nav><article><h1>Caf\u00e9 menu</h1>"
    + "".join(
        f"<p>Paragraph {i}: the kitchen serves fresh bread, soup and coffee every morning "
        f"from seven until eleven o'clock, and the terrace opens when the sun shines.</p>"
        for i in range(6)
    )
    + "</article><!-- commentword --></body></html>"
)


def response(body: bytes, head: bytes, **fields) -> Record:
    return Record(
        kind=RecordKind.RESPONSE,
        url="http://example.com/",
        http_head=head,
        payload=body,
        content_type="text/html",
        **fields,
    )


def chunked(data: bytes, size: int = 50) -> bytes:
    out = b""
    for i in range(0, len(data), size):
        piece = data[i : i + size]
        out += b"%x\r\n" % len(piece) + piece + b"\r\n"
    return out + b"0\r\n\r\n"


def test_decodes_chunked_gzip_body_in_the_declared_charset():
    # RFC 9112 7.1: "The chunked transfer coding wraps content in order to transfer it as a
    # series of chunks"; RFC 9110 8.4: the content coding is undone by the recipient.
    raw = PAGE.encode("cp1252")
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=windows-1252\r\n"
        b"Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    html, codec, source = decoded_page(response(chunked(gzip.compress(raw)), head))
    assert html == PAGE
    assert codec == "cp1252"
    assert source == 0  # from the header


def test_charset_from_meta_when_the_header_names_none():
    page = '<html><head><meta charset="euc-jp"></head><body>\u65e5\u672c\u8a9e</body></html>'
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
    html, codec, source = decoded_page(response(page.encode("euc_jp"), head))
    assert "\u65e5\u672c\u8a9e" in html
    assert (codec, source) == ("euc_jp", 1)


@pytest.mark.parametrize("extractor", EXTRACTORS)
def test_each_extractor_keeps_title_and_description_apart(extractor):
    if extractor != "lxml":
        pytest.importorskip(extractor)
    text, title, description = extract_html(PAGE, extractor)
    assert title == "Caf\u00e9 Menu"
    assert description == "Our daily menu"
    assert "fresh bread, soup and coffee" in text
    for hidden in ("scriptword", "color:red", "commentword", "Our daily menu"):
        assert hidden not in text


def test_lxml_puts_blocks_on_their_own_lines():
    text, _, _ = extract_html("<html><body><p>one</p><p>two</p>three<br>four</body></html>", "lxml")
    assert text.split("\n") == ["one", "two", "three", "four"]


def test_lxml_never_resolves_entities_or_network():
    page = (
        '<!DOCTYPE html SYSTEM "http://127.0.0.1:9/never.dtd" [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        "<html><body><p>kept &x; text</p></body></html>"
    )
    text, _, _ = extract_html(page, "lxml")
    assert "root:" not in text
    assert "kept" in text


def test_unknown_extractor_is_refused():
    with pytest.raises(ValueError, match="unknown text extractor 'nope'"):
        extract_html(PAGE, "nope")


def test_record_text_only_for_html_captures():
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
    page = record_text(response(PAGE.encode(), head), "lxml")
    assert page is not None and page.title == "Caf\u00e9 Menu" and page.charset == "utf-8"
    assert page.extractor == "lxml"
    image = Record(kind=RecordKind.RESPONSE, payload=b"\x89PNG", content_type="image/png")
    assert record_text(image) is None
    request = Record(kind=RecordKind.REQUEST, payload=PAGE.encode(), content_type="text/html")
    assert record_text(request) is None


def test_is_html_sniffs_a_body_without_a_media_type():
    assert is_html(Record(kind=RecordKind.RESOURCE, payload=b"  <!doctype html><p>x"))
    assert not is_html(Record(kind=RecordKind.RESOURCE, payload=b"plain words"))
