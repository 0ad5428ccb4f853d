"""A segment written from a WARC parses each HTML page as Nutch's ``parse-html`` does (text,
title, outlinks, meta: ParseStatus success), says ``notparsed`` with nothing parsed for a page
that is no HTML, and compresses its parts with DefaultCodec by default.

The file formats page: "parse_text data org.apache.hadoop.io.Text org.apache.nutch.parse.ParseText
org.apache.hadoop.io.compress.DefaultCodec" and "parse_data data org.apache.hadoop.io.Text
org.apache.nutch.parse.ParseData org.apache.hadoop.io.compress.DefaultCodec"; nutch-default.xml:
"parser.html.line.separators ... Newline will be added to the parsed text after these tages."
"""

from __future__ import annotations

from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.nutch import decode_nutch
from crawlmill.formats.hadoop.nutch_parse_html import parse_html
from crawlmill.formats.hadoop.sequencefile import iter_entries, read_header

from tests.plugins.nutch_inputs import PAGES, warc_response

SEG = "20240506070809"
DEFAULT_CODEC = "org.apache.hadoop.io.compress.DefaultCodec"


def test_text_follows_dom_content_utils():
    page = (b"<html><head><title> The \n title </title><style>p{}</style></head><body>"
            b"<h1>Head</h1><p>One <b>two</b>  three</p>tail<div>x</div>"
            b"<script>var x = 1;</script><!-- a comment --><ul><li>a</li><li>b</li></ul>"
            b"</body></html>")  # fmt: skip
    got = parse_html("http://a.example/", page, "utf-8")
    # every text node (the title's too), whitespace collapsed and trimmed, a space between;
    # a line break before a block element (h1, p, div, ul, li) and after one
    assert got.text == "The title\nHead\nOne two three\ntail\nx\na\nb"
    assert got.title == "The title"
    assert got.meta[:2] == [("OriginalCharEncoding", ["UTF-8"]),
                            ("CharEncodingForConversion", ["UTF-8"])]  # fmt: skip


def test_meta_tags_robots_and_refresh_as_html_meta_processor():
    page = (b'<html><head><meta name="Keywords" content="k1"><meta name="keywords" content="k2">'
            b'<meta name="robots" content="NOINDEX, noarchive">'
            b'<meta http-equiv="refresh" content="5; URL=/next"><title>T</title></head>'
            b'<body><meta name="late" content="in body"><p>words</p></body></html>')  # fmt: skip
    got = parse_html("http://a.example/dir/p", page)
    assert ("keywords", ["k1", "k2"]) in got.meta  # lower-cased, Metadata.add
    assert ("robots", ["NOINDEX, noarchive"]) in got.meta
    assert ("caching.forbidden", ["content"]) in got.meta  # noarchive
    assert not any(name == "late" for name, _ in got.meta)  # "META tags should not be under body"
    assert got.noindex and not got.nofollow and (got.text, got.title) == ("", "")
    assert got.refresh == ("http://a.example/next", 5)
    assert got.charset == "windows-1252"  # parser.character.encoding.default


def _values(seg, sub):
    out, headers = {}, []
    for data_path in sorted((seg / sub).rglob("*")):
        if data_path.is_dir() or data_path.name == "index":
            continue
        data = data_path.read_bytes()
        h = read_header(data)
        headers.append(h)
        for e in iter_entries(data, h):
            out[e.key[1:].decode()] = decode_nutch(h.value_class, e.value)
    return out, headers


def test_a_warc_page_gets_parse_html_text_title_outlinks_and_a_png_nothing(tmp_path):
    src = tmp_path / "in.warc"
    pages = dict(PAGES)
    pages["http://a.example/"] = pages["http://a.example/"].replace(
        b"<title>", b'<meta name="description" content="about A"><title>'
    )
    data = b"".join(warc_response(u, b, n=i) for i, (u, b) in enumerate(pages.items()))
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    data += warc_response("http://a.example/i.png", png, n=9, content_type="image/png")
    src.write_bytes(data)
    assert main(["convert", str(src), "--to", "nutch-segment", "-o", str(tmp_path / "s"),
                 "--option", f"segment={SEG}", "--workers", "1"]) == 0  # fmt: skip
    seg = tmp_path / "s" / SEG
    parse, headers = _values(seg, "parse_data")
    text, text_headers = _values(seg, "parse_text")
    a = parse["http://a.example/"]
    assert (a.status.major, a.status.minor) == (1, 0)  # success
    assert a.title == "A page"
    assert [(o.to_url, o.anchor) for o in a.outlinks] == [
        ("http://b.example/x", "B \u00e9t\u00e9"), ("http://a.example/self", "self")]  # fmt: skip
    meta = dict(a.parse_meta.entries)
    assert meta["description"] == ["about A"]
    assert meta["OriginalCharEncoding"] == ["UTF-8"] and meta["nutch.segment.name"] == [SEG]
    # the " " between the two links is a whitespace-only text node: getTextHelper's
    # appendParagraphSeparator (a line break), as Nutch's parse text has it
    assert text["http://a.example/"].text == "A page B \u00e9t\u00e9\nself"
    assert text["http://c.example/"].text == "no links"
    # the png: notparsed, nothing parsed (no title, no outlinks, no parse_text)
    p = parse["http://a.example/i.png"]
    assert (p.status.major, p.title, p.outlinks) == (0, "", [])
    assert "http://a.example/i.png" not in text
    # DefaultCodec, RECORD, by default (parse_text always)
    for h in headers + text_headers:
        assert (h.compression, h.codec) == ("record", DEFAULT_CODEC)
    for sub in ("content", "crawl_fetch", "crawl_generate", "crawl_parse"):
        for h in _values(seg, sub)[1]:
            assert (h.compression, h.codec) == ("record", DEFAULT_CODEC), sub


def test_extract_links_false_says_notparsed_with_nothing_parsed(tmp_path):
    src = tmp_path / "in.warc"
    src.write_bytes(warc_response("http://a.example/", PAGES["http://a.example/"]))
    assert main(["convert", str(src), "--to", "nutch-segment", "-o", str(tmp_path / "s"),
                 "--option", f"segment={SEG}", "--option", "extract_links=false",
                 "--workers", "1"]) == 0  # fmt: skip
    parse, _ = _values(tmp_path / "s" / SEG, "parse_data")
    a = parse["http://a.example/"]
    assert (a.status.major, a.title, a.outlinks) == (0, "", [])
    assert _values(tmp_path / "s" / SEG, "parse_text")[0] == {}
