"""The Common Crawl 2012 metadata JSON and textData text of a record, for the ``cc-metadata``
and ``cc2012`` writers.

* a record that carries the JSON (a ``metadata`` record whose payload is a JSON object with a
  ``disposition``, as the ``cc-metadata`` and ``cc2012`` readers make them and a WARC
  ``metadata`` record of ``application/json`` keeps them): that JSON as it is, and its
  ``text``;
* a ``response`` capture: the JSON :func:`crawlmill.formats.cc2012.metadata.page_metadata`
  makes of its URL, IP, date, HTTP head and payload (``text_simhash``: crawlmill's 64-bit
  simhash of the page text; ``download_truncated`` when :func:`capture_truncated`), and the
  text
  :func:`~crawlmill.formats.cc2012.metadata.page_text` extracts from the decoded body
  (:func:`~crawlmill.formats.cc2012.metadata.decoded_body`).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any
from urllib.parse import urljoin

from crawlmill.algorithms.simhash import simhash
from crawlmill.core import Record, RecordKind
from crawlmill.core.extras import CcMetadataExtras
from crawlmill.formats.cc2012.metadata import decoded_body, page_metadata, page_text
from crawlmill.formats.http.html_charset import detect_charset

__all__ = [
    "Redirects",
    "capture_truncated",
    "carried_json",
    "compact",
    "page_json",
    "page_text_of",
]

#: the 2012 ARC files' mark of a capture cut while downloaded (the crawler's ``ArcFileWriter``
#: wrote ``TruncatedInDownload`` for its ``TruncatedDuringDownload`` flag).
_CC_TRUNCATED = "x-commoncrawl-ContentTruncated"


def compact(data: dict[str, Any]) -> bytes:
    """JSON as the 2012 files hold it: no spaces, UTF-8 (not ``\\u`` escapes)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def carried_json(record: Record) -> tuple[dict[str, Any], bytes] | None:
    """``(JSON, its bytes)`` of a metadata record carrying 2012 metadata, else ``None``."""
    if record.kind != RecordKind.METADATA or record.url is None:
        return None
    kept: CcMetadataExtras | None = record.extras.get("cc_metadata")
    if not isinstance(kept, dict) and record.content_type != "application/json":
        return None
    try:
        data = json.loads(record.payload)
    except ValueError:
        return None
    if not isinstance(data, dict) or "disposition" not in data:
        return None
    return data, bytes(record.payload)


def capture_truncated(record: Record) -> bool:
    """Whether the capture's content was cut: a ``WARC-Truncated`` header (any reason), a
    record its reader found cut by the end of its file (``extras["neutral"]["truncated"]``,
    ``extras["warc"]["truncated"]``, ``extras["arc"]["truncated"]``), or a 2012 ARC record's
    ``x-commoncrawl-ContentTruncated: TruncatedInDownload``."""
    extras = record.extras
    for name in ("neutral", "warc", "arc"):
        kept = extras.get(name)
        if isinstance(kept, dict) and kept.get("truncated"):
            return True
    warc = extras.get("warc")
    if isinstance(warc, dict):
        for key, _ in warc.get("headers") or ():
            if bytes(key).strip().lower() == b"warc-truncated":
                return True
    mark = record.http_header(_CC_TRUNCATED)
    return mark is not None and b"truncatedindownload" in mark.lower()


def page_json(record: Record, variant: str = "text-gzip") -> dict[str, Any]:
    """The generated JSON of a ``response`` capture; ``meta_tags`` as the crawler wrote them
    in the ``variant``'s period (``textbytes-snappy``, before July 2012: ``{name, value}``)."""
    assert record.url is not None
    return page_metadata(
        record.url,
        record.payload,
        record.http_head,
        ip=record.ip,
        fetched=record.date,
        simhash=simhash,  # crawlmill's 64-bit simhash of the page text (issue 11)
        meta_form="name-value" if variant == "textbytes-snappy" else "attributes",
        truncated=capture_truncated(record),
    )


def page_text_of(record: Record, data: dict[str, Any]) -> str:
    """The textData text of a ``response`` capture whose generated JSON is ``data``: from the
    page as decoded (de-chunked, content codings undone), never the compressed bytes; empty
    for a page parsed neither as HTML nor as a feed ("we are only producing Text Only files
    from HTML and RSS/Atom content")."""
    if data.get("parsed_as") not in ("html", "feed"):
        return ""
    body = decoded_body(record.payload, record.http_head)
    charset, _ = detect_charset(record.charset, body)
    return page_text(body, charset, data.get("parsed_as") == "feed")


class Redirects:
    """``redirect_from`` of the captures reached by a redirect, as the crawler wrote it.

    "redirect_from": "A JSON object representing the source of the final URL and document (if
    it originated via a redirect)": the crawler's ``ParserMapper.buildRedirectObject`` wrote
    ``{"source_url", "http_result", "server_ip", "http_headers"}`` of the first response of
    the chain into the final page's JSON, right after ``disposition``. A 3xx capture with a
    ``Location`` is remembered by the URL it names (resolved against its own; a chain keeps its
    first response); the capture of that URL, when one comes, gets the object. The last
    ``limit`` redirects are remembered (the captures of a chain are near each other in a
    crawl); the 3xx captures keep their own JSON."""

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self.by_target: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def apply(self, record: Record, data: dict[str, Any]) -> dict[str, Any]:
        """``data`` (the generated JSON of ``record``) with its ``redirect_from`` when a
        redirect named the record's URL; remembers the record when it redirects."""
        source = self.by_target.pop(record.url or "", None)
        code = data.get("http_result")
        raw = record.http_header("Location")
        location = raw.decode("latin-1").strip() if raw else None
        if isinstance(code, int) and 300 <= code < 400 and location and record.url:
            origin = source
            if origin is None:
                origin = {"source_url": record.url, "http_result": code}
                if data.get("server_ip"):
                    origin["server_ip"] = data["server_ip"]
                origin["http_headers"] = data.get("http_headers", {})
            self.by_target[urljoin(record.url, location)] = origin
            while len(self.by_target) > self.limit:
                self.by_target.popitem(last=False)
        if source is None:
            return data
        out: dict[str, Any] = {}
        for key, value in data.items():
            out[key] = value
            if key == "disposition":
                out["redirect_from"] = source
        return out
