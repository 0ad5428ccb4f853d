"""An HTML page parsed as Nutch's ``parse-html`` plugin parses it (``HtmlParser``,
``DOMContentUtils``, ``HTMLMetaProcessor`` of Nutch 1.x), for the segment writer's
``parse_text`` and ``parse_data`` of a page nothing parsed before.

* text (``DOMContentUtils.getText``): every text node of the document in order (the
  ``<title>``'s too), skipping ``script``, ``style`` and comments; each node's whitespace
  runs collapsed to one space and trimmed; a space between texts; a line break (trailing
  spaces removed, never two) before a block element of ``parser.html.line.separators`` and
  before the node that follows one, and for each whitespace-only text node;
* title (``getTitle``): the text of the first ``<title>`` before ``<body>``, trimmed;
* meta (``HTMLMetaProcessor``): every ``<meta name=... content=...>`` outside ``<body>``,
  its name lower-cased, as parse metadata (``Metadata.add``: repeated names keep every
  value), after ``OriginalCharEncoding`` and ``CharEncodingForConversion``; ``robots``
  ``none``/``noindex`` leave text and title empty, ``none``/``nofollow`` the outlinks,
  ``noarchive`` (or ``http-equiv`` ``pragma: no-cache``) sets ``caching.forbidden`` =
  ``content``; ``http-equiv`` ``refresh`` makes the status ``success`` / ``SUCCESS_REDIRECT``
  (100) with the arguments (target URL, seconds);
* the charset: the HTTP header's, else a ``<meta>`` one, else ``windows-1252`` (Nutch's
  ``parser.character.encoding.default``).

The tree is lxml's HTML parser (libxml2), where Nutch uses NekoHTML: both build the same tree
of a well-formed page; they may repair broken markup differently. Outlinks are
:func:`~crawlmill.formats.hadoop.nutch_write_links.html_outlinks`'s (the same elements).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field
from urllib.parse import urljoin

from ..http.html_charset import codec_name, meta_charset

__all__ = ["LINE_SEPARATORS", "HtmlParse", "parse_html"]

#: ``parser.html.line.separators`` of nutch-default.xml.
_SEPARATORS = (
    "article,aside,blockquote,canvas,dd,div,dl,dt,fieldset,figcaption,figure,footer,form,h1,h2,"
    "h3,h4,h5,h6,header,hr,li,main,nav,noscript,ol,output,p,pre,section,table,tfoot,ul,video"
)
LINE_SEPARATORS = frozenset(_SEPARATORS.split(","))
_JAVA_NAMES = {"utf-8": "UTF-8", "cp1252": "windows-1252", "iso8859-1": "ISO-8859-1",
               "latin-1": "ISO-8859-1", "ascii": "US-ASCII"}  # fmt: skip


@dataclass
class HtmlParse:
    """What ``parse-html`` makes of a page: text, title, parse metadata (``(name,
    [values])`` in first-seen order), the robots directives, and a meta refresh."""

    text: str = ""
    title: str = ""
    meta: list[tuple[str, list[str]]] = field(default_factory=list)
    noindex: bool = False
    nofollow: bool = False
    nocache: bool = False
    refresh: tuple[str, int] | None = None
    charset: str = "windows-1252"


class _Text:
    """``DOMContentUtils``' buffer: ``appendSpace`` / ``appendParagraphSeparator``."""

    def __init__(self) -> None:
        self.buf: list[str] = []

    def _last(self) -> str:
        return self.buf[-1][-1] if self.buf else ""

    def space(self) -> None:
        if self.buf and self._last() not in (" ", "\n"):
            self.buf.append(" ")

    def paragraph(self) -> None:
        if not self.buf or self._last() == "\n":
            return
        while self.buf and self._last() == " ":
            self.buf[-1] = self.buf[-1][:-1]
            if not self.buf[-1]:
                self.buf.pop()
        if self.buf and self._last() != "\n":
            self.buf.append("\n")

    def add(self, text: str) -> None:
        # whitespace runs to one space, trimmed (``\s`` and ``str.split`` agree: Unicode
        # whitespace, as ``str.isspace``)
        text = " ".join(text.split())
        if text:
            self.space()
            self.buf.append(text)
        else:
            self.paragraph()

    def value(self) -> str:
        return "".join(self.buf)


def _name(el) -> str:  # type: ignore[no-untyped-def]
    return el.tag.lower() if isinstance(el.tag, str) else ""


def _walk_text(el, out: _Text, prev_block: bool) -> None:  # type: ignore[no-untyped-def]
    """``getTextHelper`` over ``el`` (an element): the node, its text child, its children
    (each followed by its tail, a text node whose previous sibling is that child)."""
    is_element = isinstance(el.tag, str)
    name = _name(el)
    if prev_block or name in LINE_SEPARATORS:
        out.paragraph()
    if not is_element or name in ("script", "style"):
        return  # a comment or processing instruction, or skipped children
    prev_is_block = False
    if el.text is not None:
        out.add(el.text)
        prev_is_block = False  # the text node is the previous sibling of the first child
    for child in el:
        _walk_text(child, out, prev_is_block)
        if child.tail is not None:
            if _name(child) in LINE_SEPARATORS:
                out.paragraph()
            out.add(child.tail)
            prev_is_block = False
        else:
            prev_is_block = _name(child) in LINE_SEPARATORS


def _java_charset(name: str) -> str:
    return _JAVA_NAMES.get(name, name.upper())


def parse_html(url: str, page: bytes, header_charset: str | None = None) -> HtmlParse:
    """``page`` (decoded: no transfer or content coding) parsed as ``parse-html`` parses it
    (module docstring)."""
    import lxml.html
    from lxml import etree

    found = codec_name(header_charset) or meta_charset(page) or "cp1252"
    result = HtmlParse(charset=_java_charset(codecs.lookup(found).name))
    text = page.decode(found, "replace")
    parser = lxml.html.HTMLParser(no_network=True, remove_comments=False, recover=True)
    try:
        root = lxml.html.document_fromstring(text, parser=parser)
    except (etree.ParserError, ValueError):
        root = None
    general: dict[str, list[str]] = {}
    if root is not None:
        for el in root.iter():
            name = _name(el)
            if name == "body":
                break
            if name != "meta":
                continue
            attrs = {k.lower(): v for k, v in el.attrib.items()}
            content = attrs.get("content")
            if content is None:
                continue
            if "name" in attrs:
                key = attrs["name"].lower()
                general.setdefault(key, []).append(content)
                if key == "robots":
                    d = content.lower()
                    result.noindex |= "none" in d or "noindex" in d
                    result.nofollow |= "none" in d or "nofollow" in d
                    result.nocache |= "noarchive" in d
            equiv = attrs.get("http-equiv", "").lower()
            if equiv == "pragma" and "no-cache" in content.lower():
                result.nocache = True
            elif equiv == "refresh":
                result.refresh = _refresh(url, content) or result.refresh
    result.meta = [("OriginalCharEncoding", [result.charset]),
                   ("CharEncodingForConversion", [result.charset]), *general.items()]  # fmt: skip
    if result.nocache:
        result.meta.append(("caching.forbidden", ["content"]))
    if root is not None and not result.noindex:
        out = _Text()
        _walk_text(root, out, False)
        result.text = out.value()
        title = next((e for e in root.iter() if _name(e) in ("title", "body")), None)
        if title is not None and _name(title) == "title":
            t = _Text()
            _walk_text(title, t, False)
            result.title = t.value().strip()
    return result


def _refresh(url: str, content: str) -> tuple[str, int] | None:
    """``(target, seconds)`` of a ``refresh`` meta content (``HTMLMetaProcessor``)."""
    idx = content.find(";")
    try:
        seconds = int(content if idx == -1 else content[:idx])
    except ValueError:
        return None
    if idx == -1:
        return url, seconds
    at = content.lower().find("url=")
    start = idx + 1 if at == -1 else at + 4
    return urljoin(url, content[start:]), seconds
