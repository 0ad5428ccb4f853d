"""The Common Crawl 2012 metadata JSON and textData: on every real response of the WARC and ARC
samples (fields of the schema, with the right types and meanings, checked independently: md5,
sizes, status, charset), on HTML and feeds written to exercise each field, and on malformed
pages and feeds (JSON, not a crash); lxml loads no external entity."""

from __future__ import annotations

import gzip
import hashlib
import json
from datetime import UTC, datetime

import pytest
from crawlmill import open_reader
from crawlmill.formats.cc2012.metadata import page_metadata, page_text, signed64
from crawlmill.formats.http.head import parse_http_head

from tests.conftest import SAMPLES

SAMPLE_FILES = [
    "chatnoir-eu-chatnoir-resiliparse/tests/data/clueweb-quirk.warc.gz",
    "webrecorder-warcio/test/data/example.warc.gz",
    "webrecorder-warcio/test/data/example.arc.gz",
    "sqs-freequery/test/dumps/ClueWeb09_English_Sample",
]
TYPES = {
    "attempt_time": (int, type(None)), "disposition": str, "server_ip": str, "http_result": int,
    "http_headers": dict, "content_len": int, "mime_type": str, "download_size": int,
    "content_is_gzip": bool, "gunzip_content_len": int, "gunzip_failed": bool, "md5": str, "charset_detected": str,
    "charset_detector": int, "parsed_as": str, "content": dict, "text_simhash": int,
}  # fmt: skip


def responses():
    for rel in SAMPLE_FILES:
        with open_reader(str(SAMPLES / rel)) as records:
            for r in records:
                if r.kind == "response" and r.http_head:
                    yield r


def test_every_real_response_gets_schema_json():
    seen = 0
    for r in responses():
        data = page_metadata(r.url, r.payload, r.http_head, ip=r.ip, fetched=r.date,
                             simhash=lambda text: hash(text) & (2**64 - 1))  # fmt: skip
        json.dumps(data)  # plain JSON
        for key, value in data.items():
            assert isinstance(value, TYPES[key]), (key, value)
        status, _ = parse_http_head(r.http_head)
        assert data["http_result"] == int(status.split()[1])
        if 200 <= data["http_result"] < 300 and r.payload:  # the content the crawler read
            content = r.payload  # no sample is chunked
            if data.get("content_is_gzip") and "gunzip_failed" not in data:
                content = gzip.decompress(r.payload)  # md5 of the content it went on with
            assert data["md5"] == hashlib.md5(content).hexdigest()
            assert data["content_len"] == data["download_size"] == len(r.payload)
        else:
            assert "md5" not in data and "content" not in data
        assert data["http_headers"]["response"] == status.decode("latin-1").strip()
        if "text_simhash" in data:
            assert -(2**63) <= data["text_simhash"] < 2**63
        if r.date is not None:
            assert data["attempt_time"] == int(r.date.timestamp() * 1000)
        else:  # an unreadable capture date (ClueWeb09's "2008-10-294...")
            assert data["attempt_time"] is None
        if "parsed_as" in data:
            assert data["content"]["type"] in ("html-doc", "rss-feed", "atom-feed")
        seen += 1
    assert seen > 100


def test_charset_of_the_japanese_pages():
    ja = SAMPLES / SAMPLE_FILES[0]
    with open_reader(str(ja)) as records:
        pages = [r for r in records if r.kind == "response"]
    for r in pages:
        data = page_metadata(r.url, r.payload, r.http_head)
        assert (data["charset_detected"], data["charset_detector"]) == ("EUC-JP", 0)
        title = r.payload.split(b"<title>")[1].split(b"</title>")[0].decode("euc_jp").strip()
        assert data["content"]["title"] == " ".join(title.split())  # decoded once, right
        assert len(page_text(r.payload, "euc_jp")) > len(title)


HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: %s\r\n\r\n"


def test_html_doc_fields():
    body = (
        b"<html><head><title>\n A  title </title><meta name=description content=D>"
        b'<meta property="og:title" content=O><meta charset=utf-8></head><body>'
        b'<a href="/x" class=c rel=nofollow>Link <b>x</b></a><a name=anchor>no link</a>'
        b"<area href=map.html alt=M><frame src=f.html><iframe src=i.html></iframe>"
        b"<img src=i.png alt=A><script src=s.js></script><script>inline()</script>"
        b'<link rel=stylesheet href=c.css><link rel=alternate type="application/rss+xml" href=f.xml>'
        b"</body></html>"
    )
    data = page_metadata("http://a/", body, HEAD % b"text/html")
    assert (data["charset_detected"], data["charset_detector"]) == ("UTF-8", 1)  # meta tag
    content = data["content"]
    assert content["title"] == "A title"
    assert content["meta_tags"] == [
        {"name": "description", "content": "D"},
        {"property": "og:title", "content": "O"},
        {"charset": "utf-8"},
    ]
    # "content > links > text": "The text displayed for the link." -- on every link type, as
    # the crawler's JSON has it: {"type":"link","rel":"shortcut icon","text":"","href":...};
    # keys in its order (type, the attributes, text, href), hrefs resolved against the page
    assert content["links"] == [
        {"type": "a", "class": "c", "rel": "nofollow", "text": "Link x", "href": "http://a/x"},
        {"type": "area", "alt": "M", "text": "", "href": "http://a/map.html"},
        {"type": "frame", "text": "", "href": "http://a/f.html"},
        {"type": "iframe", "text": "", "href": "http://a/i.html"},
        {"type": "img", "alt": "A", "text": "", "href": "http://a/i.png"},
        {"type": "script", "text": "", "href": "http://a/s.js"},
        {"type": "link", "rel": "stylesheet", "text": "", "href": "http://a/c.css"},
        {"type": "application/rss+xml", "rel": "alternate", "text": "", "href": "http://a/f.xml"},
    ]
    for link in content["links"]:
        assert list(link)[0] == "type" and list(link)[-2:] == ["text", "href"]
    # "From HTML pages, the text content includes the page title, the page meta description
    # content, and all text content from the HTML body." -- words of two elements not glued
    assert page_text(body, "utf-8") == "A title\nD\nLink x no link"


def test_text_words_are_never_glued_across_elements():
    body = (
        b"<html><body><table><tr><td>alpha</td><td>beta</td></tr></table>"
        b"<p>gamma</p><p>delta</p><span>eps</span><span>ilon</span><b>x</b>y"
        b"<ul><li>one</li><li>two</li></ul><noscript>hidden</noscript></body></html>"
    )
    assert page_text(body, "utf-8").split("\n") == [
        "alpha", "beta", "gamma", "delta", "eps ilon x y", "one", "two",
    ]  # fmt: skip


def test_meta_tags_and_link_type_as_the_crawler_wrote_them():
    # the data-set page: "If the "meta" tag uses a "property" attribute instead of a "name"
    # attribute, "property" is used as the key." The crawler's JSON of the public segments:
    # {"name":"keywords","content":...},{"http-equiv":"Content-Type","content":...} and
    # {"type":"text/javascript","text":"","href":...} for <script type="text/javascript">
    body = (
        b'<html><head><base href="http://b.example/dir/"><meta name="keywords" content="k">'
        b'<meta http-equiv="Content-Type" content="text/html; charset=utf-8">'
        b'<meta property="og:title" content="O"></head><body>'
        b'<script type="text/javascript" src="s.js"></script><a href="#top">skip</a>'
        b'<a href="">empty</a><a href="javascript:go()">js</a><a href="/p" title="T">P</a>'
        b"</body></html>"
    )
    content = page_metadata("http://a.example/x", body, HEAD % b"text/html")["content"]
    assert content["meta_tags"] == [
        {"name": "keywords", "content": "k"},
        {"http-equiv": "Content-Type", "content": "text/html; charset=utf-8"},
        {"property": "og:title", "content": "O"},
    ]
    assert content["links"] == [
        {"type": "text/javascript", "text": "", "href": "http://b.example/dir/s.js"},
        {"type": "a", "title": "T", "text": "P", "href": "http://b.example/p"},
    ]
    assert "title" not in content  # only when the page has one


RSS = b"""<?xml version="1.0"?><rss version="2.0"
xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Feed <b>one</b></title>
<link>http://f/</link><description>About</description><generator>gen</generator><ttl>60</ttl>
<pubDate>Tue, 03 Jul 2012 10:00:00 GMT</pubDate>
<lastBuildDate>Mon, 02 Jul 2012 10:00:00 GMT</lastBuildDate><category>news</category>
<item><title>One</title><link>http://f/1</link><description>&lt;p&gt;first&lt;/p&gt;</description>
<author>a@f</author><category>x</category><comments>http://f/1#c</comments>
<pubDate>Mon, 02 Jul 2012 09:00:00 GMT</pubDate><guid>g1</guid>
<content:encoded><![CDATA[<p>See <a href="http://e/x">the x</a> and <a href="/rel">rel</a></p>]]></content:encoded>
</item><item><title>Two</title></item></channel></rss>"""

ATOM = b"""<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">
<title type="html">Market &lt;b&gt;Talk&lt;/b&gt;</title><updated>2006-10-24T13:10:36.039Z</updated>
<generator>Blogger</generator>
<link rel="alternate" type="text/html" href="http://a/"/><link rel="self" href="http://a/feed"/>
<author><name>Chris</name><uri>http://www.blogger.com/profile/1</uri></author><category term="t"/>
<entry><title>E1</title><summary>s</summary><published>2006-05-19T22:13:00Z</published>
<updated>2006-05-20T00:00:00Z</updated>
<link rel="alternate" type="text/html" href="http://a/e1" title="E1"/>
<link rel="replies" type="application/atom+xml" href="http://a/e1/c" title="Post Comments"/>
<link rel="replies" type="text/html" href="http://a/e1/c.html" title="19 Comments"/>
<link rel="self" type="application/atom+xml" href="http://a/e1/self"/>
<author><name>Bob</name></author>
<content type="html">&lt;a href="http://www.chrisperruna.com"&gt;www.chrisperruna.com&lt;/a&gt;</content>
</entry></feed>"""


def ms(text):
    return int(datetime.fromisoformat(text).timestamp() * 1000)


def test_rss_feed_fields():
    data = page_metadata("http://f/rss", RSS, HEAD % b"application/rss+xml")
    assert data["parsed_as"] == "feed"
    c = data["content"]
    # "title": "The title attribute of the feed." (HTML-stripped by the crawler)
    assert (
        c["type"] == "rss-feed" and c["title"] == "Feed one" and c["link"] == {"href": "http://f/"}
    )
    assert (c["description"], c["generator"], c["ttl"]) == ("About", "gen", 60)
    # "updated": "Either LastBuildDate or PubDate, depending on which one is greater." -- here
    # the pubDate; a number of milliseconds, as the crawler's JSON holds dates
    assert c["updated"] == ms("2012-07-03T10:00:00+00:00") and c["categories"] == ["news"]
    assert list(c) == ["type", "title", "link", "description", "updated", "categories",
                       "generator", "ttl", "items"]  # fmt: skip
    one, two = c["items"]
    # "content": "A JSON object or array of objects that contain any links embedded in the
    # content body of the Feed Item."
    assert one == {
        "title": "One", "description": "first", "link": {"href": "http://f/1"},
        "author": "a@f", "categories": ["x"], "comments": "http://f/1#c",
        "published": ms("2012-07-02T09:00:00+00:00"), "guid": "g1",
        "content": {"type": "html-doc", "links": [
            {"type": "a", "text": "the x", "href": "http://e/x"},
            {"type": "a", "text": "rel", "href": "http://f/rel"},
        ]},
    }  # fmt: skip
    assert list(one) == ["title", "description", "link", "author", "categories", "comments",
                         "published", "guid", "content"]  # fmt: skip
    assert two == {"title": "Two", "description": ""}
    text = page_text(RSS, "utf-8", True)
    assert text == "Feed one About news One first x See the x and rel Two"


def test_rss_updated_is_the_greater_date():
    # "updated": "Either LastBuildDate or PubDate, depending on which one is greater."
    later_build = RSS.replace(b"Mon, 02 Jul 2012 10:00:00", b"Wed, 04 Jul 2012 10:00:00")
    c = page_metadata("http://f/rss", later_build, HEAD % b"application/rss+xml")["content"]
    assert c["updated"] == ms("2012-07-04T10:00:00+00:00")


def test_atom_feed_fields():
    data = page_metadata("http://a/feed", ATOM, HEAD % b"application/atom+xml")
    c = data["content"]
    # "title": "The HTML stripped title attribute of the feed."; the crawler's sample:
    # "authors": [ { "name": "Chris Perruna", "url": "http://www.blogger.com/profile/..." } ],
    # "generator": "Blogger", "updated": 1161695436039, "categories": [], "published": ...
    assert c["type"] == "atom-feed" and c["title"] == "Market Talk"
    assert c["link"] == {"type": "text/html", "href": "http://a/", "rel": "alternate"}
    assert c["authors"] == [{"name": "Chris", "url": "http://www.blogger.com/profile/1"}]
    assert c["generator"] == "Blogger" and c["categories"] == []  # a term, no label
    # the entry's dates, where the crawler wrote them (the feed object; none in the items)
    assert c["updated"] == ms("2006-05-20T00:00:00+00:00")
    assert c["published"] == ms("2006-05-19T22:13:00+00:00")
    assert list(c) == ["type", "title", "link", "authors", "generator", "updated", "categories",
                       "published", "items"]  # fmt: skip
    (entry,) = c["items"]
    assert entry == {
        "title": "E1", "description": "s",
        "link": {"type": "text/html", "href": "http://a/e1", "rel": "alternate", "title": "E1"},
        "replies": [
            {"type": "application/atom+xml", "href": "http://a/e1/c", "rel": "replies",
             "title": "Post Comments"},
            {"type": "text/html", "href": "http://a/e1/c.html", "rel": "replies",
             "title": "19 Comments"},
        ],
        "self": {"type": "application/atom+xml", "href": "http://a/e1/self", "rel": "self"},
        "authors": [{"name": "Bob"}],
        "content": {"type": "html-doc", "links": [
            {"type": "a", "text": "www.chrisperruna.com", "href": "http://www.chrisperruna.com"},
        ]},
    }  # fmt: skip


@pytest.mark.parametrize(
    "body",
    [b"", b"<<<>>>", b"\x00\xff" * 100, b"<rss><channel><item><title>cut", b"<feed><entry>",
     b"<html><body><a href=x>unclosed"],
)  # fmt: skip
def test_malformed_pages_and_feeds_give_json(body):
    for ctype in (b"text/html", b"application/rss+xml"):
        data = page_metadata("http://m/", body, HEAD % ctype)
        assert data["disposition"] == "SUCCESS"
        # an HTML page always gets its content (what could be read); a feed that is no RSS or
        # Atom document gets none, as the crawler's failed feed parse; no content: no parse
        if body and ctype == b"text/html":
            assert data["parsed_as"] == "html" and data["content"]["type"] == "html-doc"
        assert ("content" in data) == ("parsed_as" in data)
        if not body:  # the crawler looked at no empty content
            assert "mime_type" not in data and "md5" not in data
        json.dumps(data)


def test_failures_and_gzip_payloads():
    data = page_metadata("http://x/", b"", None, fetched=datetime(2012, 7, 1, tzinfo=UTC))
    assert data["disposition"] == "FAILURE" and data["attempt_time"] == 1341100800000
    assert set(data) == {"attempt_time", "disposition", "failure_reason", "failure_detail"}
    packed = gzip.compress(b"<html><title>z</title></html>")
    gz_head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n"
    data = page_metadata("http://x/", packed, gz_head)
    assert data["content_is_gzip"] is True and data["gunzip_content_len"] == 29
    # ParserMapper: contentBytes = unzipResult.data.get(); MD5Hash.digest(contentBytes, ...)
    assert data["content"]["title"] == "z"
    assert data["md5"] == hashlib.md5(b"<html><title>z</title></html>").hexdigest()
    # "content_is_gzip": "Optional attribute that specifies that source content was gzip'd."
    # -- said by the Content-Encoding header; bytes that do not inflate: gunzip_failed
    data = page_metadata("http://x/", b"<html>not gzip</html>", gz_head)
    assert data["content_is_gzip"] is True and data["gunzip_failed"] is True
    assert "gunzip_content_len" not in data


def test_no_external_entities(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET")
    feed = (
        f'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file://{secret}">]>'
        "<rss><channel><title>&x;</title></channel></rss>"
    ).encode()
    data = page_metadata("http://e/", feed, HEAD % b"application/rss+xml")
    assert "SECRET" not in json.dumps(data)
    assert "SECRET" not in page_text(feed, "utf-8", True)


def test_signed64():
    assert signed64(2**64 - 1) == -1 and signed64(2**63) == -(2**63) and signed64(5) == 5


@pytest.mark.parametrize(
    ("mime", "kind"),
    [("text/html", "html"), ("text/xhtml+xml", "html"), ("application/xhtml+xml", "html"),
     ("application/atom+xml", "feed"), ("application/rss+xml", "feed"), ("text/xml", "xml"),
     ("application/atomserv+xml", "xml"), ("text/plain", "text"), ("application/pdf", "text"),
     ("application/json", "text"), ("text/css", None), ("application/javascript", None),
     ("image/png", None), ("audio/mpeg", None), ("application/octet-stream", None),
     ("application/acad", None), ("application/zip", None), ("video/mp4", None)],
)  # fmt: skip
def test_mime_disposition_as_the_crawler_decided(mime, kind):
    # the cases of the crawler's own MimeTypeFilter test records (commoncrawl-crawler
    # src/org/commoncrawl/util/MimeTypeFilter.java: "text/xhtml+xml" ACCEPT_HTML,
    # "application/atomserv+xml" ACCEPT_XML, "application/acad" REJECT...)
    from crawlmill.formats.cc2012.mime import disposition, normalized_mime

    assert disposition(mime) == kind
    assert normalized_mime(None) == "text/html"  # the crawler's default for no Content-Type


def test_outlinks_of_a_feed_include_its_items_content_links():
    from crawlmill.formats.cc2012.segment import link_pairs

    data = page_metadata("http://f/rss", RSS, HEAD % b"application/rss+xml")
    assert link_pairs(data) == [
        ("http://f/1", "One"), ("http://e/x", "the x"), ("http://f/rel", "rel"),
    ]  # fmt: skip
    atom = page_metadata("http://a/feed", ATOM, HEAD % b"application/atom+xml")
    assert link_pairs(atom) == [
        ("http://a/e1", "E1"), ("http://www.chrisperruna.com", "www.chrisperruna.com"),
    ]  # fmt: skip


def test_http_headers_without_the_ones_the_crawler_left_out():
    # the page's sample: "content_is_gzip": true with "http_headers": { "response": "HTTP/1.1 200
    # OK", "date": ..., "vary": "Accept-Encoding", "content-type": ... } -- no content-encoding
    # (the crawler's dontKeepHeaders: hop-by-hop headers, set-cookie, content-encoding)
    head = (
        b"HTTP/1.1 200 OK\r\nDate: Fri, 03 Feb 2012 19:24:05 GMT\r\nConnection: keep-alive\r\n"
        b"Keep-Alive: timeout=5\r\nSet-Cookie: a=b\r\nContent-Encoding: gzip\r\n"
        b"Transfer-Encoding: chunked\r\nVary: Accept-Encoding\r\nContent-Type: text/html\r\n\r\n"
    )
    packed = gzip.compress(b"<html><title>t</title></html>")
    body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(packed), packed)
    data = page_metadata("http://x/", body, head)
    assert data["http_headers"] == {
        "response": "HTTP/1.1 200 OK", "date": "Fri, 03 Feb 2012 19:24:05 GMT",
        "vary": "Accept-Encoding", "content-type": "text/html",
    }  # fmt: skip
    assert data["content_is_gzip"] is True and data["content"]["title"] == "t"


def test_feed_extension_elements_are_not_the_feeds_own():
    rss = RSS.replace(
        b"<link>http://f/</link>",
        b'<atom:link xmlns:atom="http://www.w3.org/2005/Atom" href="http://f/rss" rel="self"/>'
        b"<link>http://f/</link>",
    )
    c = page_metadata("http://f/rss", rss, HEAD % b"application/rss+xml")["content"]
    assert c["link"] == {"href": "http://f/"}
    atom = ATOM.replace(
        b"<entry>",
        b'<entry><media:title xmlns:media="http://search.yahoo.com/mrss/">M</media:title>',
    )
    c = page_metadata("http://a/feed", atom, HEAD % b"application/atom+xml")["content"]
    assert c["items"][0]["title"] == "E1"
