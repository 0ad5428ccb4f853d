"""The text of a captured page: its body decoded, its charset found, its main text extracted.

One component every text output uses (issue 23, item 1). :func:`record_text` takes a
:class:`~crawlmill.core.Record`:

1. the entity body as the user agent sees it: ``Transfer-Encoding: chunked`` undone and the
   ``Content-Encoding`` codings undone (:func:`crawlmill.formats.http.body.decode_body`);
2. the charset found as :func:`crawlmill.formats.http.html_charset.detect_charset` finds it (the
   record's declared charset or the ``Content-Type`` header's, then a ``<meta>`` tag, then
   ``chardet``; ISO-8859-1 when none names a codec); invalid bytes become U+FFFD;
3. the main text extracted by one of :data:`EXTRACTORS`:

   * ``resiliparse`` (the default: fastest and closest to the others on the sample pages, see
     ``benchmarks/bench_text.py`` and ``docs/outputs.md``): Resiliparse's
     ``extract_plain_text(main_content=True)``;
   * ``trafilatura``: ``trafilatura.extract`` (slower, precision-oriented);
   * ``lxml``: every text node under ``<body>`` but ``<script>``/``<style>``/comments, one
     line per block (a fast baseline with no boilerplate removal).

   The title (``<title>``) and the meta description (``<meta name="description">``) are kept
   apart, found by the same lxml parse whatever the extractor, so they never depend on it.

Parsing never loads anything from the network: lxml's parser
(:func:`crawlmill.algorithms.html_tree.parse_html`) runs with ``no_network=True`` and no DTD or
entity resolution; Resiliparse (lexbor) and trafilatura parse the given string.

The text features (``simhash-dedup``'s ``hash: text``, the ``language`` filter) take their
text from :func:`feature_text`: by default the Chuweb21 paper's rule they always used
(:data:`BODY`: the stored payload decoded by the charset the feature names, the text nodes of
``<body>`` without script and style, :func:`crawlmill.algorithms.simhash_text.body_text`), with
option ``extractor`` one of :data:`EXTRACTORS` through :func:`record_text` (body decoded,
charset found, main text). ``html-length`` counts the characters of :func:`decoded_page` with
its option ``body: decoded``.

It lives in ``algorithms/``: it takes a Record but imports nothing of core at run time
(``Record`` is an annotation; kinds compare by value), and it is no plugin (core imports
no plugin); writers and filters import it. Resiliparse
and trafilatura come with the ``text`` extra (``pip install crawlmill[text]``); the ``lxml``
extractor needs nothing beyond crawlmill's dependencies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from crawlmill.algorithms.html_tree import parse_html
from crawlmill.formats.http.body import decode_body
from crawlmill.formats.http.html_charset import charset_of_content_type, detect_charset

if TYPE_CHECKING:  # annotations only: nothing of core is imported at run time
    from crawlmill.core.record import Record

__all__ = [
    "BODY",
    "DEFAULT_EXTRACTOR",
    "EXTRACTORS",
    "FEATURE_EXTRACTORS",
    "Extractor",
    "FeatureExtractor",
    "PageText",
    "decoded_page",
    "extract_html",
    "feature_text",
    "is_html",
    "record_text",
]

Extractor = Literal["resiliparse", "trafilatura", "lxml"]
#: the extractors :func:`extract_html` knows, the default first.
EXTRACTORS: tuple[str, ...] = ("resiliparse", "trafilatura", "lxml")
DEFAULT_EXTRACTOR: Extractor = "resiliparse"
#: the text features' default: the Chuweb21 paper's body text of the stored payload.
BODY = "body"
FeatureExtractor = Literal["body", "resiliparse", "trafilatura", "lxml"]
#: what a text feature's ``extractor`` option may name, its default first.
FEATURE_EXTRACTORS: tuple[str, ...] = (BODY, *EXTRACTORS)
#: at most this many decoded body bytes are read (a page past it is cut there).
BODY_CAP = 16 * 1024 * 1024

_HTML_TYPES = ("text/html", "application/xhtml+xml")
_HTML_SNIFF = re.compile(
    rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.I | re.S
)
_BLANKS = re.compile(r"[ \t\r\f\v\u00a0]+")
_LINES = re.compile(r"\s*\n\s*")
#: what ``_BLANKS`` matches but a lone space (replacing it by a space changes nothing).
_BLANK_RUNS = re.compile(r" [ \t\r\f\v\u00a0]+|[\t\r\f\v\u00a0][ \t\r\f\v\u00a0]*")
_BLOCKS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "dd",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "td",
        "th",
        "tr",
        "ul",
    ]
)


@dataclass(frozen=True, slots=True)
class PageText:
    """The extracted text of a page, its title and meta description, and how it was read."""

    text: str
    title: str | None
    description: str | None
    #: the Python codec the body was decoded with.
    charset: str
    #: where the charset came from (``formats.http.html_charset``: 0 header, 1 meta, 3 detector,
    #: 10 none found).
    charset_source: int
    extractor: str


def _tidy(text: str) -> str:
    """Runs of blanks become one space, blank lines go, lines are stripped (the same as
    ``_LINES.sub("\\n", _BLANKS.sub(" ", text)).strip()``, in half the time: a single space
    is not replaced, and the lines are stripped by ``str.strip``)."""
    lines = (line.strip() for line in _BLANK_RUNS.sub(" ", text).split("\n"))
    return "\n".join([line for line in lines if line])


def is_html(record: Record) -> bool:
    """Whether ``record`` holds an HTML page: its media type says so, or (no media type, or a
    generic one) its body starts like HTML."""
    media = (record.content_type or "").split(";")[0].strip().lower()
    if media in _HTML_TYPES:
        return True
    if media and media not in ("application/octet-stream", "text/plain", "unknown/unknown"):
        return False
    return bool(_HTML_SNIFF.match(record.payload[:1024]))


def decoded_page(record: Record) -> tuple[str, str, int]:
    """``(text, codec, charset source)`` of the record's body: de-chunked, content codings
    undone, decoded with the charset found (invalid bytes become U+FFFD)."""
    body = decode_body(record.payload, record.http_headers, BODY_CAP)
    declared = record.charset or charset_of_content_type(record.http_header("Content-Type"))
    codec, source = detect_charset(declared, body)
    try:
        return body.decode(codec, "replace"), codec, source
    except (LookupError, UnicodeError, ValueError):  # a codec that cannot decode at all
        return body.decode("utf-8", "replace"), "utf-8", source


def _head_fields(root) -> tuple[str | None, str | None]:
    """``(title, meta description)`` of an lxml tree, tidied; ``None`` when absent."""
    if root is None:
        return None, None
    title = ""
    for element in root.iter("title"):  # the first in document order, as //title[1]
        title = _tidy(element.text_content())
        break
    description = ""
    for meta in root.iter("meta"):  # //meta[@name], without compiling an XPath per page
        name = meta.get("name")
        if name is not None and name.strip().lower() == "description":
            description = _tidy(meta.get("content") or "")
            break
    return title or None, description or None


def _lxml_text(root) -> str:
    """Text nodes under ``<body>`` (the whole tree without one), a line break at each block."""
    if root is None:
        return ""
    from lxml import etree

    etree.strip_elements(root, "script", "style", "noscript", "template", with_tail=False)
    bodies = root.xpath("//body")
    top = bodies[0] if bodies else root
    for element in top.iter():
        if isinstance(element.tag, str) and element.tag.lower() in _BLOCKS:
            element.tail = "\n" + (element.tail or "")
    return _tidy("".join(top.itertext()))


def _resiliparse_text(html: str) -> str:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    tree = HTMLTree.parse(html)
    return _tidy(extract_plain_text(tree, main_content=True, alt_texts=False, noscript=False))


def _trafilatura_text(html: str) -> str:
    import trafilatura

    return _tidy(trafilatura.extract(html, include_comments=False, include_tables=True) or "")


def extract_html(
    html: str, extractor: str = DEFAULT_EXTRACTOR, head: bool = True
) -> tuple[str, str | None, str | None]:
    """``(main text, title, meta description)`` of the decoded page ``html`` by
    ``extractor`` (one of :data:`EXTRACTORS`; :class:`ValueError` for another). With
    ``head=False`` the title and description are not looked for (both ``None``): no lxml
    parse for an extractor other than ``lxml``, a third of Resiliparse's time saved."""
    if extractor not in EXTRACTORS:
        raise ValueError(f"unknown text extractor {extractor!r}; known: {', '.join(EXTRACTORS)}")
    root = parse_html(html) if head or extractor == "lxml" else None
    title, description = _head_fields(root) if head else (None, None)
    if extractor == "lxml":
        text = _lxml_text(root)
    elif not html.strip():
        text = ""
    elif extractor == "resiliparse":
        text = _resiliparse_text(html)
    else:
        text = _trafilatura_text(html)
    return text, title, description


def record_text(
    record: Record, extractor: str = DEFAULT_EXTRACTOR, head: bool = True
) -> PageText | None:
    """The :class:`PageText` of an HTML ``response`` or ``resource`` record (its body
    decoded, see the module docstring); ``None`` for any other record (a request, warcinfo,
    metadata, a non-HTML body: the caller counts it under its own reason). ``head=False``:
    its ``title`` and ``description`` are not looked for (``None``; :func:`extract_html`)."""
    if record.kind not in ("response", "resource") or not is_html(record):
        return None
    html, codec, source = decoded_page(record)
    text, title, description = extract_html(html, extractor, head)
    return PageText(text, title, description, codec, source, extractor)


def feature_text(record: Record, extractor: str, charset: str | None = None) -> str | None:
    """The text a text feature reads from ``record``. :data:`BODY`: the text nodes of the
    stored payload's ``<body>`` without script and style, the payload decoded with
    ``charset`` (UTF-8 when ``None`` or unknown), as the features always did
    (:func:`crawlmill.algorithms.simhash_text.body_text`; ``''`` for an empty payload, any
    record). Another extractor: the :func:`record_text` of an HTML page, ``None`` for a record
    that is not one."""
    if extractor == BODY:
        from crawlmill.algorithms.simhash_text import body_text

        return body_text(record.payload, charset) if record.payload else ""
    page = record_text(record, extractor)
    return None if page is None else page.text
