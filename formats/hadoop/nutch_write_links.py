"""The outlinks of an HTML page as Nutch's ``parse-html`` finds them, for the Nutch writers'
records that bring none (a WARC's responses).

A subset of ``DOMContentUtils.getOutlinks``: ``a`` and ``area`` ``href``, ``frame`` and
``iframe`` ``src``, resolved against the page URL or its ``<base href>``; the anchor is the
element's text, whitespace collapsed. Only ``http``/``https`` targets, fragments cut, each
(target, anchor) once, in page order; the first ``limit`` bytes of the page and at most
``max_links`` links (``db.max.outlinks.per.page`` is 100 in Nutch: Nutch's cap applies when
Nutch updates its database, the parse data keeps them all)."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any
from urllib.parse import urldefrag, urljoin

__all__ = ["html_outlinks", "outlinks_of"]

_ATTR = {"a": "href", "area": "href", "frame": "src", "iframe": "src"}


class _Links(HTMLParser):
    def __init__(self, url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = url
        self.links: list[list[str]] = []
        self._open: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "base" and values.get("href"):
            self.base = urljoin(self.base, values["href"].strip())
            return
        attr = _ATTR.get(tag)
        if attr and values.get(attr):
            link = [values[attr].strip(), ""]
            self.links.append(link)
            self._open = link if tag == "a" else None

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open[1] += data


def html_outlinks(url: str, payload: bytes, charset: str | None = None, *,
                  limit: int = 1 << 20, max_links: int = 10_000) -> list[tuple[str, str]]:  # fmt: skip
    """``[(target URL, anchor)]`` of the HTML ``payload`` of ``url`` (module docstring)."""
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
    out: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for href, anchor in parser.links:
        try:
            target = urldefrag(urljoin(parser.base, href))[0]
        except ValueError:
            continue
        if not target.lower().startswith(("http://", "https://")):
            continue
        item = (target, " ".join(anchor.split()))
        if item not in seen:
            seen.add(item)
            out.append(item)
            if len(out) >= max_links:
                break
    return out


def outlinks_of(record: Any, extract: bool) -> list[tuple[str, str]]:
    """A record's outlinks as ``(target, anchor)``: its own; with ``extract``, for an HTML
    record nothing parsed (no outlinks, no ``text``, not from a Nutch segment, whose
    parse data is the truth even when absent), those of its payload (:func:`html_outlinks`)."""
    outlinks, content_type = record.outlinks, record.content_type
    parsed = bool(outlinks) or record.text is not None or "nutch" in record.extras
    if parsed or not extract or "html" not in (content_type or "").lower():
        return [(o.url, o.anchor or "") for o in outlinks if o.url]
    return html_outlinks(record.url, record.payload, record.charset)
