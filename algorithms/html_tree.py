"""The lxml tree of a decoded HTML page, as crawlmill's text code parses it.

One :class:`lxml.html.HTMLParser` per process (lxml parsers are reusable, not thread-safe):
``no_network=True``, comments and processing instructions removed, ``recover`` on, no huge
trees. No DTD or entity is resolved, so nothing outside the given text is ever loaded. The
simhash text (:mod:`crawlmill.algorithms.simhash_text`) and the text component
(:mod:`crawlmill.algorithms.text_extraction`) both parse with it.

This module imports nothing else of crawlmill.
"""

from __future__ import annotations

from typing import Any

__all__ = ["parse_html"]

_PARSER = None


def _parser() -> Any:
    global _PARSER
    if _PARSER is None:
        from lxml import html

        _PARSER = html.HTMLParser(
            encoding="utf-8",
            no_network=True,
            remove_comments=True,
            remove_pis=True,
            recover=True,
            huge_tree=False,
        )
    return _PARSER


def parse_html(text: str) -> Any:
    """The root element of the page ``text`` (an ``lxml.html.HtmlElement``); ``None`` for a
    blank page or one lxml finds empty."""
    from lxml import etree, html

    if not text.strip():
        return None
    try:
        return html.document_fromstring(text.encode("utf-8", "surrogatepass"), parser=_parser())
    except (etree.ParserError, ValueError):
        return None
