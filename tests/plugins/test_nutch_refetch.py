"""A URL a Nutch segment part fetched twice (a 301 redirect, then the 200 page: two crawl_fetch
datums, one Content) gives the page once, under its own fetch's status, and the redirect as a
metadata record of its datum; never two responses with the same body (the first under an
invented ``HTTP/1.1 301``)."""

from __future__ import annotations

from crawlmill.formats.hadoop.nutch_content import Content
from crawlmill.formats.hadoop.nutch_crawldatum import CrawlDatum
from crawlmill.formats.hadoop.sequencefile import Entry
from crawlmill.plugins.readers.nutch_parts import NutchEntry
from crawlmill.plugins.readers.nutch_segment import NutchSegmentReader

URL = "http://example.com/"


class _Ctx:
    path = "seg"
    warnings: list

    def __init__(self):
        self.warnings = []

    def report_warning(self, code, message, offset=None):
        self.warnings.append(code)


def _entry(sub, value, offset):
    raw = Entry(URL.encode(), b"", offset, 10)
    return NutchEntry(URL.encode(), URL, value, raw, f"seg/{sub}/part-00000/data")


def test_the_page_goes_with_its_own_fetch_once():
    redirect = CrawlDatum(status=0x24, fetch_time=1_600_000_000_000)  # fetch_redir_perm
    success = CrawlDatum(status=0x21, fetch_time=1_600_000_001_000)  # fetch_success
    page = Content(url=URL, base=URL, content=b"<html>the page</html>", content_type="text/html")
    group = {
        "content": [_entry("content", page, 100)],
        "crawl_fetch": [_entry("crawl_fetch", redirect, 200), _entry("crawl_fetch", success, 300)],
    }
    ctx = _Ctx()
    records = list(NutchSegmentReader()._pages(ctx, "seg", "00000", URL.encode(), group))
    kinds = [r.kind.value for r in records]
    assert sorted(kinds) == ["metadata", "response"]
    (response,) = [r for r in records if r.kind.value == "response"]
    assert response.payload == b"<html>the page</html>"
    assert response.http_head.startswith(b"HTTP/1.1 200")
    assert [r.payload for r in records].count(page.content) == 1
