"""The outlinks of an HTML page as Nutch's ``parse-html`` finds them, for the Nutch writers'
records that bring none (a WARC's responses).

The elements and attributes of ``DOMContentUtils``' link parameters: ``a`` and ``area``
``href``, ``form`` ``action``, ``frame``, ``iframe``, ``script`` and ``img`` ``src``,
``link`` ``href``; as there, an element with ``rel="nofollow"`` or ``method="post"`` gives no
link, and a page whose ``<meta name="robots">`` (outside ``<body>``) says ``nofollow`` or
``none`` gives none (``HTMLMetaProcessor``). Targets resolve against the page URL or its
``<base href>``. The anchor is the text of an ``a`` or ``form`` (whitespace collapsed), or,
when it has none, the ``alt`` of the images inside it; the other elements have none. Only ``http``/``https`` targets, fragments cut, each
(target, anchor) once, in page order. Nutch's pruning of empty links (``shouldThrowAwayLink``:
an ``a`` without content) is not copied.

The page is read as a browser gets it (:func:`~crawlmill.formats.http.body.decode_body`:
de-chunked, ``Content-Encoding`` undone, the record's HTTP headers say how): the first
``limit`` bytes after decoding (decompression never makes more) and at most ``max_links``
links (``db.max.outlinks.per.page`` is 100 in Nutch: Nutch's cap applies when Nutch
updates its database, the parse data keeps them all)."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any
from urllib.parse import urldefrag, urljoin

from ..http.body import decode_body

__all__ = ["LINK_ATTRIBUTES", "html_outlinks", "needs_parse", "outlinks_of", "page_of"]

#: element -> the attribute holding its link (Nutch's ``DOMContentUtils`` link parameters).
LINK_ATTRIBUTES = {
    "a": "href",
    "area": "href",
    "form": "action",
    "frame": "src",
    "iframe": "src",
    "script": "src",
    "link": "href",
    "img": "src",
}
#: elements whose text is the anchor.
_ANCHORED = ("a", "form")


class _Links(HTMLParser):
    def __init__(self, url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = url
        #: ``[target, text, alt texts]`` per link, in page order.
        self.links: list[list[str]] = []
        self._open: list[str] | None = None
        #: ``<meta name="robots">`` outside ``<body>`` says ``nofollow`` or ``none``.
        self.nofollow = False
        self._body = False

    def updatepos(self, i: int, j: int) -> int:
        """Skip the line and column bookkeeping of ``getpos`` (never asked here): the parse
        is the same, a tenth faster."""
        return j

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: (v or "") for k, v in attrs}
        if tag == "body":
            self._body = True
        elif tag == "meta" and not self._body and values.get("name", "").lower() == "robots":
            directives = values.get("content", "").lower()
            self.nofollow |= "nofollow" in directives or "none" in directives
        if tag == "base" and values.get("href"):
            self.base = urljoin(self.base, values["href"].strip())
            return
        if tag == "img" and self._open is not None and values.get("alt", "").strip():
            self._open[2] += " " + values["alt"]
        attr = LINK_ATTRIBUTES.get(tag)
        if not attr or not values.get(attr):
            return
        if (values.get("rel", "").strip().lower() == "nofollow"
                or values.get("method", "").strip().lower() == "post"):  # fmt: skip
            return
        link = [values[attr].strip(), "", ""]
        self.links.append(link)
        if tag in _ANCHORED:
            self._open = link

    def handle_endtag(self, tag: str) -> None:
        if tag in _ANCHORED:
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open[1] += data


_LIMIT = 1 << 20


def html_outlinks(url: str, payload: bytes, charset: str | None = None, *,
                  limit: int = _LIMIT, max_links: int = 10_000) -> list[tuple[str, str]]:  # fmt: skip
    """``[(target URL, anchor)]`` of the HTML ``payload`` (decoded: no transfer or content
    coding) of ``url`` (module docstring)."""
    try:
        text = payload[:limit].decode(charset or "utf-8", "replace")
    except LookupError:
        text = payload[:limit].decode("utf-8", "replace")
    parser = _Links(url)
    try:
        parser.feed(text)
        parser.close()
    except (ValueError, AssertionError):  # a malformed tag: keep what was found
        pass
    if parser.nofollow:  # HTMLMetaProcessor: parse-html gives no outlinks
        return []
    out: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    resolved: dict[str, str | None] = {}  # href -> target (a page repeats its links)
    for href, words, alt in parser.links:
        anchor = words if words.strip() else alt
        target = resolved.get(href, "")
        if target == "":
            try:
                target = urldefrag(urljoin(parser.base, href))[0]
            except ValueError:
                target = None
            if target is not None and not target.lower().startswith(("http://", "https://")):
                target = None
            resolved[href] = target
        if target is None:
            continue
        item = (target, " ".join(anchor.split()))
        if item not in seen:
            seen.add(item)
            out.append(item)
            if len(out) >= max_links:
                break
    return out


def needs_parse(record: Any) -> bool:
    """Whether ``record`` is an HTML page nothing parsed: no outlinks, no ``text``, not from
    a Nutch segment (whose parse data is the truth even when absent)."""
    parsed = bool(record.outlinks) or record.text is not None or "nutch" in record.extras
    return not parsed and "html" in (record.content_type or "").lower()


def page_of(record: Any) -> bytes:
    """The page of ``record`` as a browser gets it: de-chunked, content coding undone, at
    most 1 MiB."""
    return decode_body(record.payload, record.http_headers, _LIMIT)


def outlinks_of(record: Any, extract: bool) -> list[tuple[str, str]]:
    """A record's outlinks as ``(target, anchor)``: its own; with ``extract``, for an HTML
    record nothing parsed (no outlinks, no ``text``, not from a Nutch segment, whose
    parse data is the truth even when absent), those of its payload (:func:`html_outlinks`)."""
    if not extract or not needs_parse(record):
        return [(o.url, o.anchor or "") for o in record.outlinks if o.url]
    return html_outlinks(record.url, page_of(record), record.charset)
