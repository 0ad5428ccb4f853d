"""What the 2012 Common Crawl parser did with a page of a given MIME type.

The data-set page (../shared/specs/source-docs/commoncrawl-2012-dataset.txt): "Currently, we
are only producing Text Only files from HTML and RSS/Atom content" and "Currently we emit
metadata for only HTML and Feed (Atom and RSS) content"; ``text_simhash`` exists "if document
was a valid text type". Which type is which is the crawler's ``MimeTypeFilter``
(commoncrawl/commoncrawl-crawler ``src/org/commoncrawl/util/MimeTypeFilter.java``,
``checkMimeTypeDisposition``; its parser, ``ParserMapper.populateContentMetadata``, parses
:data:`HTML` as HTML, :data:`FEED` and :data:`XML` as a feed, and writes charset and simhash
for every text type). :func:`disposition` is that decision, rule for rule; the crawler
defaulted a missing ``Content-Type`` to ``text/html`` (:func:`normalized_mime`).
"""

from __future__ import annotations

import re

__all__ = ["FEED", "HTML", "TEXT", "XML", "disposition", "is_text_type", "normalized_mime"]

HTML = "html"
FEED = "feed"
XML = "xml"
TEXT = "text"

_TRUNCATE = re.compile(r"^([^a-zA-Z0-9]*)([a-zA-Z0-9\-/.+]*).*", re.S)
_TYPE_SUBTYPE = re.compile(r"(.+)/(.+)", re.S)
_PARTS = re.compile(r"[\-.+]*(x-|vnd\.)*([^+]*)\+*([a-z]*)(\+.*)*", re.S)
_TEXT_SUBTYPES = re.compile(
    r"(txt|text|plain|html|atom|xml|xhtml|pdf|postscript|rss|vcard|rtf|csv|json|perl|ruby|java"
    r"|asp|php|doc|py|c|cc|c\+\+|cxx|m|h)"
)
_BINARY = ("binary", "octet", "file", "image", "audio", "video", "true-type", "x-epoc",
           "chemical", "plugin")  # fmt: skip
_TEXT_PRIMARY = ("text", "plain", "message", "multipart")
_BAD_TEXT_SUBTYPES = ("javascript", "css")
_BAD_EXTENSIONS = frozenset((
    "gif", "jpg", "jpeg", "bmp", "png", "tif", "tiff", "ico", "eps", "ps", "wmf", "fpx", "cur",
    "ani", "img", "lwf", "pcd", "psp", "psd", "tga", "xbm", "xpm", "arj", "arc", "7z", "cab",
    "lzw", "lha", "lzh", "zip", "gz", "tar", "tgz", "sit", "rpm", "deb", "pkg", "mid", "midi",
    "rmi", "mpeg", "mpg", "mpe", "mp3", "mp2", "aac", "mov", "fla", "flv", "ra", "ram", "rm",
    "rmv", "wma", "wmv", "wav", "wave", "ogg", "avi", "au", "snd", "exe", "com", "lnk", "t3x",
    "iso", "bin", "dwf", "asf", "css", "js",
))  # fmt: skip
_TEXT_APP_TYPES = frozenset((
    "wap.xhtml+xml", "acrobat", "acroread", "dot", "texinfo", "tex", "text-java",
    "oasis.opendocument.text", "sun.xml.writer", "groove-vcard", "ms-works", "pdf", "word-doc",
    "httpd-php", "httpd-php-source", "httpd.php", "mscardfile", "server-parsed-html",
    "xml-dtd",
))  # fmt: skip


def normalized_mime(content_type: str | None) -> str:
    """``mime_type`` as the crawler wrote it: the ``Content-Type`` without its parameters,
    lower case; ``text/html`` when the response has none."""
    mime = (content_type or "").split(";")[0].strip().lower()
    return mime or "text/html"


def _kind_of_parts(m: re.Match[str] | None, text_too: bool) -> str | None:
    if m is None:
        return None
    for part in (m.group(2), m.group(3)):
        if part in ("html", "xhtml"):
            return HTML
        if part in ("atom", "rss", "rdf"):
            return FEED
        if part == "xml":
            return XML
        if not text_too and part and part.startswith(_BAD_TEXT_SUBTYPES):
            return "reject"
    if text_too:
        for part in (m.group(2), m.group(3)):
            if part and _TEXT_SUBTYPES.fullmatch(part):
                return TEXT
    return None


def disposition(mime: str | None) -> str | None:
    """:data:`HTML`, :data:`FEED`, :data:`XML` or :data:`TEXT` for a MIME type the crawler
    read as text, ``None`` for one it did not (images, audio, binaries, scripts, styles...)."""
    if mime is None:
        return None
    m = _TRUNCATE.match(mime)
    truncated = (m.group(2) if m else "").lower()
    if not truncated:
        return None  # the crawler's "no-type": accepted as other, not text
    ts = _TYPE_SUBTYPE.fullmatch(truncated)
    primary, secondary = (ts.group(1), ts.group(2)) if ts else (truncated, None)
    if primary.startswith(_BINARY):
        return None
    if primary.startswith(_TEXT_PRIMARY):
        if secondary is not None:
            found = _kind_of_parts(_PARTS.fullmatch(secondary), text_too=False)
            if found == "reject":
                return None
            if found is not None:
                return found
        return TEXT
    if secondary in _BAD_EXTENSIONS or primary in _BAD_EXTENSIONS:
        return None
    found = _kind_of_parts(_PARTS.fullmatch(secondary or primary), text_too=True)
    if found is not None:
        return found
    if secondary is not None:
        for prefix in ("vnd.", "x-"):
            if secondary.startswith(prefix):
                secondary = secondary[len(prefix) :]
                break
        if secondary in _TEXT_APP_TYPES:
            return TEXT
    return None


def is_text_type(mime: str | None) -> bool:
    """The crawler's ``isTextType``: any of the four dispositions."""
    return disposition(mime) is not None
