"""What a simhash is computed over: bytes to text, and the body text of an HTML page.

The simhash tokeniser (:mod:`crawlmill.algorithms.simhash`) keeps only word characters and joins
them, so the separator between text nodes does not change a code: the body text here is the
concatenation of the text nodes under ``<body>`` (the whole document when it has none), with
``<script>``, ``<style>`` and comments removed, as the Chuweb21 paper describes for its
language filter. Parsing uses lxml's HTML parser with ``no_network=True`` and no entity
resolution (:func:`crawlmill.algorithms.html_tree.parse_html`), so nothing outside the bytes
is ever loaded.

This module imports nothing else of crawlmill but that parser.
"""

from __future__ import annotations

import codecs
import contextlib

from crawlmill.algorithms.html_tree import parse_html

__all__ = ["body_text", "decode"]


def decode(data: bytes, charset: str | None = None) -> str:
    """``data`` as text: with ``charset`` when Python knows that codec, else UTF-8; invalid
    bytes become U+FFFD (not a word character, so simhash ignores them)."""
    encoding = "utf-8"
    if charset:
        with contextlib.suppress(LookupError):
            encoding = codecs.lookup(charset).name
    try:
        return data.decode(encoding, "replace")
    except (UnicodeError, LookupError, ValueError):  # a codec that cannot decode at all
        return data.decode("utf-8", "replace")


def body_text(data: bytes, charset: str | None = None) -> str:
    """The text of the ``<body>`` of HTML ``data`` without script, style and comments
    (text nodes joined with a space); ``''`` for a document lxml finds empty."""
    from lxml import etree

    root = parse_html(decode(data, charset))
    if root is None:
        return ""
    etree.strip_elements(root, "script", "style", with_tail=False)
    bodies = root.xpath("//body")
    top = bodies[0] if bodies else root
    return " ".join(top.itertext())
