"""The text features on the text extraction component: ``simhash-dedup`` ``hash: text``, the
``language`` filter and ``html-length`` read the component's text with their new options, and
keep their old results by default."""

from __future__ import annotations

import gzip

import pytest
from crawlmill.algorithms.simhash_text import body_text
from crawlmill.algorithms.text_extraction import record_text
from crawlmill.core import Drop, FilterContext, InputFile, Record, RecordKind
from crawlmill.plugins.filters.html_length import HtmlLengthFilter
from crawlmill.plugins.filters.language import LanguageFilter
from crawlmill.plugins.filters.simhash_dedup import SimhashDedupFilter

from tests.conftest import need

HTML = (
    "<html><head><title>Caf\u00e9</title><script>var hidden = 1;</script></head><body>"
    "<p>The caf\u00e9 on the corner serves fresh bread and strong coffee every morning, "
    "and the terrace opens when the sun shines over the old harbour.</p></body></html>"
)


def page(body: bytes, *headers: bytes) -> Record:
    head = b"HTTP/1.1 200 OK\r\n" + b"".join(h + b"\r\n" for h in headers) + b"\r\n"
    return Record(
        kind=RecordKind.RESPONSE,
        url="http://example.com/",
        http_head=head,
        payload=body,
        content_type="text/html",
        charset="iso-8859-1",
    )


LATIN1 = HTML.encode("iso-8859-1")
PLAIN = page(LATIN1, b"Content-Type: text/html; charset=iso-8859-1")
GZIPPED = page(
    gzip.compress(LATIN1, mtime=0),
    b"Content-Type: text/html; charset=iso-8859-1",
    b"Content-Encoding: gzip",
)
IMAGE = Record(kind=RecordKind.RESPONSE, url="http://example.com/i", payload=b"\x89PNG\r\n",
               http_head=b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n",
               content_type="image/png")  # fmt: skip


def opened(component, counts: dict):
    def count(label: str, n: int) -> None:
        counts[label] = counts.get(label, 0) + n

    ctx = FilterContext(InputFile(path="x.warc", relpath="x.warc", index=0), counter=count)
    component.open(ctx)
    return component


def simhash_filter(**options) -> SimhashDedupFilter:
    return SimhashDedupFilter(SimhashDedupFilter.Options(**options))


def test_simhash_text_default_is_the_old_body_rule():
    simhash_pkg = need("simhash")
    got = simhash_filter(hash="text").signature(PLAIN)
    old = body_text(PLAIN.payload, None)  # what hash=text hashed before: UTF-8, body nodes
    assert got[0] == simhash_pkg.Simhash(old).value
    assert got[2] == len(old)


def test_simhash_text_by_the_component_hashes_the_decoded_main_text():
    simhash_pkg = need("simhash")
    counts: dict = {}
    dedup = opened(simhash_filter(hash="text", extractor="lxml"), counts)
    text = record_text(GZIPPED, "lxml").text
    assert "caf\u00e9 on the corner" in text  # decompressed, decoded as ISO-8859-1
    assert dedup.signature(GZIPPED)[0] == simhash_pkg.Simhash(text).value
    # the same page stored plainly has the same code: the component decodes the body first
    assert dedup.signature(PLAIN)[0] == dedup.signature(GZIPPED)[0]
    # the default rule hashes the gzip bytes: another code
    assert simhash_filter(hash="text").signature(GZIPPED)[0] != dedup.signature(GZIPPED)[0]
    # not an HTML page: an empty text's code, counted
    assert dedup.signature(IMAGE)[0] == simhash_pkg.Simhash("").value
    assert counts == {"no-text": 1}


def test_simhash_extractor_needs_hash_text():
    with pytest.raises(ValueError, match="needs hash: text"):
        simhash_filter(extractor="resiliparse")


def test_language_by_the_component_reads_a_compressed_page():
    need("langdetect")
    counts: dict = {}
    lang = opened(LanguageFilter(LanguageFilter.Options(extractor="lxml", threshold=0.9)), counts)
    assert lang.apply(GZIPPED) is GZIPPED
    assert lang.apply(IMAGE) == Drop("no-text")
    assert counts == {"lang:en": 1, "lang:none": 1}
    # the default (the paper's rule on the stored bytes) finds no English in gzip bytes
    default = opened(LanguageFilter(LanguageFilter.Options(threshold=0.9)), {})
    assert default.apply(GZIPPED) != GZIPPED
    assert default.apply(PLAIN) is PLAIN


def test_html_length_counts_the_decoded_body_by_option():
    # a chunked and gzipped page: the stored bytes are neither its size nor its HTML
    data = gzip.compress(LATIN1, mtime=0)
    chunked = b"%x\r\n" % len(data) + data + b"\r\n0\r\n\r\n"
    record = page(
        chunked,
        b"Content-Type: text/html; charset=iso-8859-1",
        b"Transfer-Encoding: chunked",
        b"Content-Encoding: gzip",
    )
    bound = len(HTML) - 1  # kept when more than len(HTML) - 1 characters
    decoded = HtmlLengthFilter(HtmlLengthFilter.Options(min_chars=bound, body="decoded"))
    assert decoded.apply(record) is record
    high = HtmlLengthFilter(HtmlLengthFilter.Options(min_chars=0, max_chars=bound, body="decoded"))
    assert high.apply(record) == Drop("too-long")  # exactly len(HTML) characters
    stored = HtmlLengthFilter(HtmlLengthFilter.Options(min_chars=bound))
    assert stored.apply(record) == Drop("too-short")  # the compressed bytes are fewer
