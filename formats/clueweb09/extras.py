"""The extras of a ClueWeb09 record: ClueWeb09 files are WARC 0.18, so their records carry
``extras["warc"]`` (:class:`~crawlmill.formats.warc.extras.WarcExtras`, with
``cl_includes_separator`` for the collection's ``Content-Length`` convention) and no
``extras["clueweb09"]``. The document id (``WARC-TREC-ID``) is the neutral ``Record.doc_id``;
what the collection's lists say about a file (md5, record count) is checked by the reader
(``Check``), not kept on records. The codec is :mod:`crawlmill.formats.clueweb09.collection`.
"""

from __future__ import annotations

from ..warc.extras import WarcExtras

__all__ = ["ClueWeb09Extras"]

#: ``Record.extras["warc"]`` of a ClueWeb09 record.
ClueWeb09Extras = WarcExtras
