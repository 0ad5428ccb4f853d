"""CDXJ lines and SURT keys, checked against pywb's reference implementations."""

from __future__ import annotations

import json

import pytest
from crawlmill.formats.warc.cdxj import cdxj_line, cdxj_mime, indexes, surt, timestamp14

URLS = [
    "http://www.Example.com:80/A/b/?B=2&a=1#frag",
    "https://example.com",
    "https://example.com:443/p/",
    "http://example.com/a/./b/../c",
    "http://user:pw@Ex.com:8080/x?",
    "http://www2.foo.org/",
    "http://example.com/%7Efoo/%41",
    "http://example.com/a b",
    "http://example.com//a//b",
    "http://example.com/?b&a=1",
    "http://127.0.0.1/x",
    "http://example.com/caf%C3%A9?x=%E2%82%AC",
    "http://example.com/café",
    "dns:WWW.Example.com",
    "mailto:A@B.com",
    "filedesc://IAH-2008.arc",
    "example.com/no-scheme",
    "",
]


@pytest.mark.parametrize("url", URLS)
def test_surt_matches_the_reference_surt_package(need, url):
    reference = need("surt")
    assert surt(url) == reference.surt(url)


def test_surt_examples():
    assert surt("http://www.Example.com:80/A/b/?B=2&a=1#x") == "com,example)/a/b?a=1&b=2"
    assert surt("http://example.com:8080/") == "com,example:8080)/"


def test_timestamp14():
    assert timestamp14("2008-04-30T20:48:25Z") == "20080430204825"
    assert timestamp14("2008-04-30T20:48:25.123456Z") == "20080430204825"
    assert timestamp14("2008-04-30") == "20080430000000"


def test_mime_and_record_selection():
    assert cdxj_mime("revisit", "application/http", "text/html") == "warc/revisit"
    assert cdxj_mime("response", "application/http", "text/html; charset=utf-8") == "text/html"
    assert cdxj_mime("resource", "text/dns", None) == "text/dns"
    assert cdxj_mime("response", "application/http", None) is None
    assert indexes("response", "application/http")
    assert not indexes("warcinfo", "application/warc-fields")
    assert not indexes("request", "application/http")
    assert not indexes("metadata", "application/warc-fields")
    assert indexes("metadata", "application/json")


def test_line_shape_and_field_order():
    line = cdxj_line(
        url="http://example.com/",
        warc_date="2020-01-02T03:04:05Z",
        mime="text/html",
        status=200,
        digest="sha1:AAAA",
        length=10,
        offset=20,
        filename="x.warc.gz",
    )
    key, ts, body = line.rstrip("\n").split(" ", 2)
    assert (key, ts) == ("com,example)/", "20200102030405")
    fields = json.loads(body)
    assert list(fields) == ["url", "mime", "status", "digest", "length", "offset", "filename"]
    assert fields["status"] == "200" and fields["length"] == "10" and fields["offset"] == "20"
    short = cdxj_line(
        url="u:x",
        warc_date="2020",
        mime=None,
        status=None,
        digest=None,
        length=1,
        offset=0,
        filename="f",
    )
    assert list(json.loads(short.split(" ", 2)[2])) == ["url", "length", "offset", "filename"]


def test_index_url_reads_uris_like_pywb():
    from crawlmill.formats.warc.cdxj import index_url

    assert index_url("<http://example.com/a>") == "http://example.com/a"
    assert index_url("http://example.com/a b") == "http://example.com/a%20b"
    line = cdxj_line(
        url="<http://Example.com/a b>",
        warc_date="2020",
        mime=None,
        status=None,
        digest=None,
        length=1,
        offset=0,
        filename="f",
    )
    assert line.startswith("com,example)/a%20b 20200000000000 ")
    assert json.loads(line.split(" ", 2)[2])["url"] == "http://Example.com/a%20b"
