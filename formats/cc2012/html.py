"""An HTML page as the 2012 Common Crawl parser read it: its ``html-doc`` object (title, meta
tags, links) and its text.

Facts from the data-set page (../shared/specs/source-docs/commoncrawl-2012-dataset.txt) and
the crawler's parser (commoncrawl/commoncrawl-crawler ``ParseWorker`` and
``ParserMapper.parseResultToJsonObject``, the version of the public 2012 segments):

* ``meta_tags``: every attribute of each ``<meta>`` as a key/value pair ("If the "meta" tag
  uses a "property" attribute instead of a "name" attribute, "property" is used as the key"),
  or, for the ``textbytes-snappy`` period (May-June 2012), ``{"name": ..., "value": ...}`` as
  the crawler wrote them before 2012-07-06 and the page's sample shows them
  (:data:`META_FORMS`);
* ``links``: ``a``, ``area``, ``frame``, ``iframe``, ``script``, ``img`` and ``link`` tags with
  a URL (none for an empty one, ``#...`` or ``javascript:``), keys in the crawler's order:
  ``type`` (the tag, replaced by the tag's own ``type`` attribute: ``<link type=...>``,
  ``<script type=...>``), every other attribute in document order, ``text`` (on every link
  type: the text pieces inside the tag, trimmed, joined by a space; ``""`` when none) and
  ``href`` (resolved against ``<base href>``, else the page URL);
* ``title``, ``meta_tags`` and ``links`` only when there is one;
* the text (:func:`element_text`): a line break at each block-level element, a space after
  each closing tag, so words of two elements are never glued.

lxml parses with no network access.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin

__all__ = [
    "LINK_TAGS",
    "META_FORMS",
    "clean",
    "element_text",
    "html_object",
    "html_text",
    "html_tree",
]

#: the link tags and the attribute holding their URL (``ParseWorker.linkTypeToSrcMap``).
LINK_TAGS = {"a": "href", "area": "href", "link": "href", "frame": "src", "iframe": "src",
             "script": "src", "img": "src"}  # fmt: skip
#: the crawler's block-level tags (``ParseWorker.blockLevelHTMLTags``).
_BLOCKS = frozenset((
    "address", "blockquote", "div", "dl", "fieldset", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "hr", "noscript", "ol", "p", "pre", "table", "ul", "dd", "dt", "li", "tbody", "td", "tfoot",
    "th", "thead", "tr", "button", "del", "ins", "map", "object", "script",
))  # fmt: skip
_WS = re.compile(r"\s+")
#: the two forms of ``meta_tags``: every attribute (the crawler from 2012-07-06, commit
#: c86b748: the public segments) or ``{"name", "value"}`` (before: the data-set page's sample).
META_FORMS = ("attributes", "name-value")
_META_NAMES = ("name", "property", "http-equiv")


def clean(value: str | None) -> str:
    """Whitespace runs collapsed to one space, trimmed."""
    return _WS.sub(" ", value or "").strip()


def html_tree(text: str) -> Any:
    """The lxml tree of a decoded page, or ``None`` when nothing parses."""
    import lxml.html

    # the text is decoded already: a meta charset in it must not re-decode its UTF-8 bytes
    parser = lxml.html.HTMLParser(
        encoding="utf-8", no_network=True, remove_blank_text=False, recover=True
    )
    try:
        return lxml.html.document_fromstring(text.encode("utf-8"), parser=parser)
    except Exception:  # noqa: BLE001 - an empty or unparseable page: no tree
        return None


def _link_text(el: Any) -> str:
    pieces = (piece.strip() for piece in el.itertext())
    return " ".join(piece for piece in pieces if piece)


def _base_url(tree: Any, url: str | None) -> str | None:
    base = next((b.get("href").strip() for b in tree.iter("base") if b.get("href")), None)
    if base and url:
        return urljoin(url, base)
    return base or url


def _name_value(el: Any) -> dict[str, str] | None:
    """A ``<meta>`` as the crawler wrote it before 2012-07-06: ``name`` the value of its last
    ``name``, ``property`` or ``http-equiv`` attribute, ``value`` its ``content``; ``None`` for
    a tag with neither (that crawler failed on the page)."""
    name = value = None
    for key, attr in el.attrib.items():
        if key == "content":
            value = attr
        elif key in _META_NAMES:
            name = attr
    if name is None and value is None:
        return None
    return {"name": name or "", "value": value or ""}


def html_object(tree: Any, url: str | None, meta_form: str = "attributes") -> dict[str, Any]:
    """The ``html-doc`` object of a parsed page (or of a feed item's HTML), see the module
    docstring; ``meta_form`` one of :data:`META_FORMS`."""
    content: dict[str, Any] = {"type": "html-doc"}
    title = tree.find(".//title")
    if title is not None and clean(title.text_content()):
        content["title"] = clean(title.text_content())
    if meta_form == "name-value":
        metas = [m for m in map(_name_value, tree.iter("meta")) if m is not None]
    else:
        metas = [dict(el.attrib) for el in tree.iter("meta")]
    if metas:
        content["meta_tags"] = metas
    base = _base_url(tree, url)
    links = []
    for el in tree.iter(*LINK_TAGS):
        tag = el.tag
        ref = (el.get(LINK_TAGS[tag]) or "").strip()
        if not ref or ref.startswith("#") or ref.lower().startswith("javascript:"):
            continue  # the crawler's parser built no link of these
        link: dict[str, Any] = {"type": tag}
        for key, value in el.attrib.items():
            if key != LINK_TAGS[tag]:
                link[key] = value  # a "type" attribute takes the place of the tag
        link["text"] = _link_text(el)
        link["href"] = urljoin(base, ref) if base else ref
        links.append(link)
    if links:
        content["links"] = links
    return content


def element_text(root: Any) -> str:
    """The text of an element as the crawler's parser accumulated it (``ParseWorker``): a line
    break at the start and end of each block-level element, a space after every closing tag
    (``<td>a</td><td>b</td>`` and ``<b>x</b>y`` are two words each, never glued), no text
    directly inside ``noscript``; then runs of spaces collapsed, each line trimmed, blank
    lines dropped."""
    from lxml import etree

    out: list[str] = []

    def add(text: str | None) -> None:
        if text:
            out.append(text)

    def ends(chars: str) -> bool:
        return bool(out) and out[-1][-1] in chars

    for event, el in etree.iterwalk(root, events=("start", "end")):
        tag = el.tag if isinstance(el.tag, str) else None
        if event == "start":
            if tag in _BLOCKS and out and not ends("\n"):
                out.append("\n")
            if tag is not None and tag != "noscript":
                add(el.text)
            continue
        if tag is not None:
            if tag in _BLOCKS and out and not ends("\n"):
                out.append("\n")
            if out and not out[-1][-1].isspace():
                out.append(" ")
        if el is not root:
            parent = el.getparent()
            if parent is None or parent.tag != "noscript":
                add(el.tail)
    lines = (clean(line) for line in "".join(out).split("\n"))
    return "\n".join(line for line in lines if line)


def html_text(tree: Any) -> str:
    """The textData text of a page: "the page title, the page meta description content, and
    all text content from the HTML body", one line each (the body's lines broken at
    block-level elements); scripts and styles left out."""
    for bad in tree.xpath("//script|//style"):
        bad.drop_tree()
    parts = []
    title = tree.find(".//title")
    if title is not None:
        parts.append(clean(title.text_content()))
    for meta in tree.iter("meta"):
        if (meta.get("name") or "").lower() == "description":
            parts.append(clean(meta.get("content")))
    body = tree.find(".//body")
    if body is not None:
        parts.append(element_text(body))
    return "\n".join(p for p in parts if p)
