"""The ``Record.extras["nutch"]`` schema: what the ``nutch-segment``, ``nutch-crawldb`` and
``nutch-linkdb`` readers keep of a URL beyond the neutral fields. Values are plain data: each
Nutch object as :func:`crawlmill.formats.hadoop.nutch.to_plain` gives it (a dict of its fields,
its type under ``"@"``), which :func:`~crawlmill.formats.hadoop.nutch.from_plain` and
:func:`~crawlmill.formats.hadoop.nutch.encode_nutch` write back to the same bytes."""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["NutchExtras"]


class NutchExtras(TypedDict, total=False):
    """One URL of a segment, CrawlDB or LinkDB.

    Segment: ``segment`` (its folder name), ``part`` (the part number, ``00000``),
    ``crawl_generate``/``crawl_fetch``/``crawl_parse`` (every CrawlDatum of the URL in that
    subdirectory, each with ``status_name``, ``fetch_interval_seconds``, ``fetch_date`` and
    ``signature_hex`` added beside its stored fields), ``content`` (``url``, ``base``,
    ``content_type``, ``version``: -1 for 1.x, 0-2 for a compressed 0.8/0.9 value,
    ``metadata``: the Content metadata, every name and value as stored), ``parse_data`` (the
    whole ParseData: status, title, outlinks with anchors and metadata, content and parse
    metadata, version and outlink layout), ``parse_text_version``, ``head`` (how the HTTP
    head was made: ``from`` ``_response.headers_`` or ``metadata``, ``status_from`` for a
    rebuilt status line, ``renamed``: the headers renamed ``X-Crawler-*``), ``linked``
    (an outlink datum of crawl_parse, delivered with the ``linked`` option).

    Database: ``db`` (``crawldb``/``linkdb``), ``part`` (the part's relative path),
    ``crawl_datum`` (CrawlDB) or ``inlinks`` (LinkDB: the Inlinks with their layout).
    """

    segment: str
    part: str
    crawl_generate: list[dict[str, Any]]
    crawl_fetch: list[dict[str, Any]]
    crawl_parse: list[dict[str, Any]]
    content: dict[str, Any]
    parse_data: dict[str, Any]
    parse_text_version: int
    head: dict[str, Any]
    linked: bool
    db: str
    crawl_datum: dict[str, Any]
    inlinks: dict[str, Any]
