"""An RSS or Atom feed as the 2012 Common Crawl parser read it: its ``rss-feed`` or
``atom-feed`` object and its text.

Facts from the data-set page (../shared/specs/source-docs/commoncrawl-2012-dataset.txt) and
the crawler's ``ParserMapper.rssFeedToJson``/``atomFeedToJson`` (commoncrawl/commoncrawl-crawler,
the version of the public 2012 segments), which read the feed with ROME:

* dates are numbers, milliseconds since the epoch, as the crawler's JSON has them
  (``"updated": 1161695436039``); a date that does not parse is left out;
* RSS: ``title`` and ``description`` always (HTML tags stripped, trimmed), ``link``
  ``{"href"}``, ``updated`` "Either LastBuildDate or PubDate, depending on which one is
  greater", ``categories`` (when the feed has any), ``generator``, ``ttl`` (a number),
  ``items``: ``title``, ``description``, ``link``, ``author``, ``categories``, ``comments``,
  ``published``, ``guid`` and ``content``: the ``html-doc`` object of the item's
  ``content:encoded`` HTML ("any links embedded in the content body of the Feed Item");
* Atom: ``title`` ("The HTML stripped title"), ``link`` (the ``rel=alternate`` links: an object,
  an array when several; ``{type, href, rel, title}``), ``authors`` (``{name, url}``),
  ``generator``, ``updated``, ``categories`` (their labels), ``items``: ``title``,
  ``description`` (the summary), ``link``/``self``/``replies`` (by ``rel``), ``authors``,
  ``categories`` and ``content`` (the ``html-doc`` object of each ``html``/``xhtml`` content).
  The crawler wrote each entry's ``published`` and ``updated`` into the *feed* object (each
  entry overwriting the last), which is why its Atom sample has ``"published"`` at the feed level
  and none in its items: kept as it wrote them;
* the text: the titles, descriptions, categories and item contents' text, in that order,
  joined by a space (the crawler's ``contentOut``).

lxml parses with no network access and no entity expansion.
"""

from __future__ import annotations

import email.utils
import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin

from .html import element_text, html_object, html_tree

__all__ = ["feed_content"]

_TAGS = re.compile(r"<[^>]*>")
_CONTENT_NS = "http://purl.org/rss/1.0/modules/content/"
#: the Atom entry links the crawler kept, by rel, and their JSON names.
_ENTRY_LINKS = {"alternate": "link", "self": "self", "replies": "replies"}


def _local(tag: Any) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _ns(tag: Any) -> str:
    return tag[1:].split("}", 1)[0] if isinstance(tag, str) and tag.startswith("{") else ""


def _children(el: Any, name: str) -> list[Any]:
    """The children called ``name`` in the element's own namespace (an RSS 2.0 channel's
    ``<atom:link>``, an Atom entry's ``<media:content>`` are extensions the crawler's feed
    parser did not read as the feed's own)."""
    ns = _ns(el.tag)
    return [c for c in el if _local(c.tag) == name and _ns(c.tag) == ns]


def _raw(el: Any, name: str) -> str | None:
    found = _children(el, name)
    return "".join(found[0].itertext()) if found else None


def _put_text(target: dict[str, Any], key: str, el: Any, name: str) -> None:
    """Set ``target[key]`` to the trimmed text of ``el``'s child ``name`` when it has any."""
    value = (_raw(el, name) or "").strip()
    if value:
        target[key] = value


def _stripped(value: str | None) -> str:
    """The crawler's ``cleanupDescription``: HTML tags removed, trimmed (``""`` for none)."""
    return _TAGS.sub("", value or "").strip()


def _ms(value: str | None) -> int | None:
    """A feed date (RFC 822 as RSS has it, or W3C/ISO 8601 as Atom has it) in ms."""
    text = (value or "").strip()
    if not text:
        return None
    when: datetime | None
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        when = None
    if when is None:
        try:
            when = datetime.fromisoformat(text.replace("z", "Z"))
        except ValueError:
            return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp() * 1000)


def _url(value: str | None, base: str | None) -> str | None:
    text = (value or "").strip()
    if not text:
        return None
    return urljoin(base, text) if base else text


class _Text:
    """The crawler's ``contentOut``: trimmed non-empty pieces joined by a space."""

    def __init__(self) -> None:
        self.pieces: list[str] = []

    def add(self, value: str | None) -> str:
        trimmed = (value or "").strip()
        if trimmed:
            self.pieces.append(trimmed)
        return trimmed

    def text(self) -> str:
        return " ".join(self.pieces)


def _html_snippet(html: str, base: str | None, text: _Text) -> dict[str, Any] | None:
    tree = html_tree(html)
    if tree is None:
        return None
    content = html_object(tree, base)
    body = tree.find(".//body")
    text.add(element_text(body if body is not None else tree))
    return content


def _categories(obj: dict[str, Any], values: list[str], present: bool, text: _Text) -> None:
    if present:  # the crawler wrote the array when the feed (item) had category elements
        kept = [v for v in values if v]
        for v in kept:
            text.add(v)
        obj["categories"] = kept


def _rss(root: Any, base: str | None) -> tuple[dict[str, Any], str]:
    text = _Text()
    channel = next((el for el in root.iter() if _local(el.tag) == "channel"), root)
    feed: dict[str, Any] = {"type": "rss-feed"}
    feed["title"] = text.add(_stripped(_raw(channel, "title")))
    link = _url(_raw(channel, "link"), base)
    if link:
        feed["link"] = {"href": link}
    feed["description"] = text.add(_stripped(_raw(channel, "description")))
    dates = [_ms(_raw(channel, "lastBuildDate")), _ms(_raw(channel, "pubDate"))]
    known = [d for d in dates if d is not None]
    if known:
        feed["updated"] = max(known)
    cats = _children(channel, "category")
    _categories(feed, ["".join(c.itertext()) for c in cats], bool(cats), text)
    _put_text(feed, "generator", channel, "generator")
    ttl = (_raw(channel, "ttl") or "").strip()
    if ttl.isdigit():
        feed["ttl"] = int(ttl)
    items = []
    for el in (e for e in root.iter() if _local(e.tag) == "item"):
        item: dict[str, Any] = {}
        item["title"] = text.add(_stripped(_raw(el, "title")))
        item["description"] = text.add(_stripped(_raw(el, "description")))
        link = _url(_raw(el, "link"), base)
        if link:
            item["link"] = {"href": link}
        _put_text(item, "author", el, "author")
        cats = _children(el, "category")
        _categories(item, ["".join(c.itertext()) for c in cats], bool(cats), text)
        _put_text(item, "comments", el, "comments")
        published = _ms(_raw(el, "pubDate"))
        if published is not None:
            item["published"] = published
        _put_text(item, "guid", el, "guid")
        encoded = [c for c in el if c.tag == f"{{{_CONTENT_NS}}}encoded"]
        if encoded and "".join(encoded[0].itertext()).strip():
            content = _html_snippet("".join(encoded[0].itertext()), base, text)
            if content is not None:
                item["content"] = content
        items.append(item)
    feed["items"] = items
    return feed, text.text()


def _atom_link(el: Any, base: str | None) -> dict[str, str] | None:
    href = _url(el.get("href"), base)
    if not href:
        return None
    link: dict[str, str] = {}
    if el.get("type"):
        link["type"] = el.get("type")
    link["href"] = href
    link["rel"] = el.get("rel") or "alternate"  # Atom: a link without rel is "alternate"
    if el.get("title"):
        link["title"] = el.get("title")
    return link


def _add_links(obj: dict[str, Any], el: Any, names: dict[str, str], base: str | None) -> None:
    """The crawler's ``safeAppendLinksFromFeed``: alternate links first, then the others; one
    link an object, several an array."""
    links = [x for x in (_atom_link(c, base) for c in _children(el, "link")) if x is not None]
    ordered = [x for x in links if x["rel"] == "alternate"]
    ordered += [x for x in links if x["rel"] != "alternate"]
    for link in ordered:
        name = names.get(link["rel"])
        if name is None:
            continue
        if name not in obj:
            obj[name] = link
        elif isinstance(obj[name], list):
            obj[name].append(link)
        else:
            obj[name] = [obj[name], link]


def _authors(obj: dict[str, Any], el: Any, base: str | None) -> None:
    found = _children(el, "author")
    if not found:
        return
    authors = []
    for person in found:
        name = _raw(person, "name")
        if name is None:
            continue
        author = {"name": name.strip()} if name.strip() else {}
        url = _url(_raw(person, "uri") or _raw(person, "url"), base)
        if url:
            author["url"] = url
        authors.append(author)
    obj["authors"] = authors


def _atom_content(el: Any) -> str | None:
    """The HTML of an Atom ``content`` of type ``html`` or ``xhtml`` (``None`` otherwise: the
    crawler parsed only types containing "html"; a missing type is ``text``)."""
    from lxml import etree

    kind = el.get("type") or "text"
    if "html" not in kind:
        return None
    if kind == "xhtml" or len(el):
        inner = (el.text or "") + "".join(
            etree.tostring(c, encoding="unicode", with_tail=True) for c in el
        )
        return inner
    return "".join(el.itertext())


def _atom(root: Any, base: str | None) -> tuple[dict[str, Any], str]:
    text = _Text()
    feed: dict[str, Any] = {"type": "atom-feed"}
    feed["title"] = text.add(_stripped(_raw(root, "title")))
    _add_links(feed, root, {"alternate": "link"}, base)
    _authors(feed, root, base)
    _put_text(feed, "generator", root, "generator")
    updated = _ms(_raw(root, "updated"))
    if updated is not None:
        feed["updated"] = updated
    cats = _children(root, "category")
    _categories(feed, [c.get("label") or "" for c in cats], bool(cats), text)
    items = []
    for el in _children(root, "entry"):
        item: dict[str, Any] = {}
        item["title"] = text.add(_stripped(_raw(el, "title")))
        item["description"] = text.add(_stripped(_raw(el, "summary")))
        # as the crawler wrote them: into the feed object (module docstring)
        for name in ("published", "updated"):
            when = _ms(_raw(el, name))
            if when is not None:
                feed[name] = when
        _add_links(item, el, _ENTRY_LINKS, base)
        _authors(item, el, base)
        cats = _children(el, "category")
        _categories(item, [c.get("label") or "" for c in cats], bool(cats), text)
        for content_el in _children(el, "content"):
            html = _atom_content(content_el)
            if not html or not html.strip():
                continue
            content = _html_snippet(html, base, text)
            if content is None:
                continue
            if "content" not in item:
                item["content"] = content
            elif isinstance(item["content"], list):
                item["content"].append(content)
            else:
                item["content"] = [item["content"], content]
        items.append(item)
    feed["items"] = items
    return feed, text.text()


def feed_content(body: bytes, url: str | None = None) -> tuple[dict[str, Any], str] | None:
    """``(the feed's content object, its text)``, or ``None`` when ``body`` is no RSS
    (``rss``, ``rdf:RDF``) or Atom (``feed``) document (the crawler's feed parse failed)."""
    from lxml import etree

    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, recover=True, huge_tree=False
    )
    try:
        root = etree.fromstring(body, parser=parser)
    except (etree.XMLSyntaxError, ValueError):
        return None
    if root is None:
        return None
    kind = _local(root.tag)
    if kind == "feed":
        return _atom(root, url)
    if kind in ("rss", "RDF"):
        return _rss(root, url)
    return None
