"""Issue 19, Common Crawl 2012: facts of the data-set page
(../shared/specs/source-docs/commoncrawl-2012-dataset.txt) and of the crawler's own JSON, with
WARC inputs built here (written by warcio) and converted to ``cc2012`` and ``cc-metadata``."""

from __future__ import annotations

import gzip
import io
import json

from crawlmill.formats.cc2012.segment import iter_pairs
from crawlmill.formats.hadoop.sequencefile import read_header
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from tests import helpers


def warc(path, pages) -> None:
    """A WARC of ``(url, [(header, value)...], body)`` responses, written by warcio."""
    with open(path, "wb") as out:
        writer = WARCWriter(out, gzip=True)
        for url, headers, body in pages:
            status = headers[0][1] if headers and headers[0][0] == ":status" else "200 OK"
            http = StatusAndHeaders(status, [h for h in headers if h[0] != ":status"],
                                    protocol="HTTP/1.1")  # fmt: skip
            rec = writer.create_warc_record(url, "response", payload=io.BytesIO(body),
                                            http_headers=http)  # fmt: skip
            rec.rec_headers.replace_header("WARC-Date", "2012-07-07T10:00:00Z")
            writer.write_record(rec)


def convert(src, out, to, *extra) -> int:
    return helpers.convert(src, to, out, *extra).exit_code


def segment(out) -> tuple[dict[str, dict], dict[str, str]]:
    """``({url: metadata JSON}, {url: textData text})`` of partition 0 of a cc2012 output."""

    def pairs(name):
        data = (out / name).read_bytes()
        return [(k.decode(), v) for k, v, _ in iter_pairs(data, read_header(data))]

    meta = {k: json.loads(v) for k, v in pairs("metadata-00000")}
    return meta, {k: v.decode() for k, v in pairs("textData-00000")}


def jsonl(out) -> dict[str, dict]:
    (path,) = sorted(out.rglob("*.jsonl"))
    return {x["url"]: x for x in map(json.loads, path.read_bytes().splitlines())}


PAGE = (
    b"<html><head><title>Gzip page</title></head><body><p>plainly readable words</p></body></html>"
)


def test_text_of_a_gzip_encoded_page_is_read_from_the_decoded_body(tmp_path):
    # "Text Only files are translated from their native character sets into UTF-8. All Text
    # Only content (in all languages) can be read using the UTF-8 character set." and
    # "gunzip_content_len": "If the content was gzip'd, this is the decompressed length of the
    # incoming content." -- the text is the page's, never its compressed bytes.
    packed = gzip.compress(PAGE, mtime=0)
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(packed), packed)
    src = tmp_path / "in.warc.gz"
    warc(src, [
        ("http://g.example/", [("Content-Type", "text/html"), ("Content-Encoding", "gzip")], packed),
        ("http://c.example/", [("Content-Type", "text/html"), ("Content-Encoding", "gzip"),
                               ("Transfer-Encoding", "chunked")], chunked),
    ])  # fmt: skip
    assert convert(src, tmp_path / "seg", "cc2012") == 0
    meta, text = segment(tmp_path / "seg")
    for url in ("http://g.example/", "http://c.example/"):
        assert text[url] == "Gzip page\nplainly readable words", url
        m = meta[url]
        assert m["content_is_gzip"] is True and m["gunzip_content_len"] == len(PAGE)
        assert m["content"]["title"] == "Gzip page"
    assert convert(src, tmp_path / "j", "cc-metadata", "--option", "text=true") == 0
    lines = jsonl(tmp_path / "j")
    assert lines["http://g.example/"]["text"] == "Gzip page\nplainly readable words"
    assert lines["http://c.example/"]["text"] == "Gzip page\nplainly readable words"


PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


def test_non_html_content_gets_no_content_text_or_simhash(tmp_path):
    # "Currently we emit metadata for only HTML and Feed (Atom and RSS) content." and
    # "Currently, we are only producing Text Only files from HTML and RSS/Atom content." and
    # "text_simhash": "A 64 bit simhash of the text (UCS-2) content if document was a valid
    # text type." -- an image/png gets the fetch's fields only (the crawler's
    # ParserMapper.populateContentMetadata writes charset, simhash, parsed_as and content for
    # text types only), and no textData entry.
    src = tmp_path / "in.warc.gz"
    warc(src, [
        ("http://i.example/a.png", [("Content-Type", "image/png"), ("Content-Length", str(len(PNG)))], PNG),
        ("http://t.example/a.txt", [("Content-Type", "text/plain; charset=utf-8")], b"plain words"),
        ("http://h.example/", [("Content-Type", "text/html")], PAGE),
    ])  # fmt: skip
    assert convert(src, tmp_path / "seg", "cc2012") == 0
    meta, text = segment(tmp_path / "seg")
    png = meta["http://i.example/a.png"]
    assert list(png) == ["attempt_time", "disposition", "http_result", "http_headers",
                         "content_len", "mime_type", "download_size", "md5", "archiveInfo"]  # fmt: skip
    assert png["mime_type"] == "image/png" and png["download_size"] == len(PNG)
    # a text type that is neither HTML nor a feed: charset and simhash, no parse
    txt = meta["http://t.example/a.txt"]
    assert txt["charset_detected"] == "UTF-8" and isinstance(txt["text_simhash"], int)
    assert "parsed_as" not in txt and "content" not in txt
    assert set(text) == {"http://h.example/"}  # textData: the HTML page only
    html = meta["http://h.example/"]
    assert html["parsed_as"] == "html" and html["content"]["type"] == "html-doc"
    assert convert(src, tmp_path / "j", "cc-metadata", "--option", "text=true") == 0
    lines = jsonl(tmp_path / "j")
    assert lines["http://i.example/a.png"]["text"] == ""
    assert "content" not in lines["http://i.example/a.png"]["metadata"]


def test_redirect_from_of_a_capture_reached_by_a_redirect(tmp_path):
    # "redirect_from": "A JSON object representing the source of the final URL and document
    # (if it originated via a redirect)." -- the crawler (ParserMapper.buildRedirectObject)
    # wrote {source_url, http_result, server_ip, http_headers} of the first response, right
    # after "disposition"; a chain keeps its first response
    src = tmp_path / "in.warc.gz"
    warc(src, [
        ("http://r.example/old", [(":status", "301 Moved Permanently"),
                                  ("Location", "/mid")], b""),
        ("http://r.example/mid", [(":status", "302 Found"),
                                  ("Location", "http://r.example/new")], b""),
        ("http://r.example/new", [("Content-Type", "text/html")], PAGE),
        ("http://r.example/other", [("Content-Type", "text/html")], PAGE),
    ])  # fmt: skip
    for to, extra in (("cc2012", ()), ("cc-metadata", ())):
        out = tmp_path / to
        assert convert(src, out, to, *extra) == 0
        meta = segment(out)[0] if to == "cc2012" else {
            u: x["metadata"] for u, x in jsonl(out).items()}  # fmt: skip
        new = meta["http://r.example/new"]
        assert list(new)[:3] == ["attempt_time", "disposition", "redirect_from"]
        assert new["redirect_from"] == {
            "source_url": "http://r.example/old", "http_result": 301,
            "http_headers": {"response": "HTTP/1.1 301 Moved Permanently",
                             "location": "/mid"},
        }  # fmt: skip
        assert "redirect_from" not in meta["http://r.example/other"]
        assert "redirect_from" not in meta["http://r.example/old"]  # its own JSON is kept
        report = json.loads((out / ".crawlmill" / "report.json").read_text())
        assert "redirect_from set" in json.dumps(report)


META_PAGE = (
    b'<html><head><meta name="description" content="Flickr is almost certainly the best">'
    b'<meta property="og:title" content="O"><meta charset="utf-8"></head><body>x</body></html>'
)


def test_meta_tags_in_the_form_of_each_period(tmp_path):
    # the page's sample (Feb 2012): "meta_tags": [ { "name": "name", "value": "Flickr is almost
    # certainly the best online photo management and .." } ] -- the crawler wrote {name, value}
    # until its commit c86b748 (2012-07-06, "storing/surfacing meta tag attributes as key value
    # pairs"), every attribute after it ("If the "meta" tag uses a "property" attribute instead
    # of a "name" attribute, "property" is used as the key.")
    src = tmp_path / "in.warc.gz"
    warc(src, [("http://m.example/", [("Content-Type", "text/html")], META_PAGE)])
    got = {}
    for variant in ("text-gzip", "textbytes-snappy"):
        out = tmp_path / variant
        assert convert(src, out, "cc2012", "--option", f"variant={variant}") == 0
        got[variant] = segment(out)[0]["http://m.example/"]["content"]["meta_tags"]
    assert got["text-gzip"] == [
        {"name": "description", "content": "Flickr is almost certainly the best"},
        {"property": "og:title", "content": "O"},
        {"charset": "utf-8"},
    ]
    assert got["textbytes-snappy"] == [
        {"name": "description", "value": "Flickr is almost certainly the best"},
        {"name": "og:title", "value": "O"},
    ]
