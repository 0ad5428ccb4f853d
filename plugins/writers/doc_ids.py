"""The document ids the text writers (``pyserini``, ``ir-datasets``, ``trec``, ``parquet``) write.

One rule for every text output and for ``simhash-dedup``'s cluster table
(:func:`crawlmill.algorithms.document_ids.document_id`), so a document has the same id
in each: ``auto`` (the record's ``doc_id``: ClueWeb09's ``WARC-TREC-ID``, the NTCIR doc id;
else the UUID of its ``WARC-Record-ID``), ``doc-id``/``trec`` (the record's ``doc_id``
only), ``record-id``, ``url``, or the name of a WARC header. A document the rule gives no id
is named ``<input relpath>#<seq>`` (as in the cluster table) and counted as ``ids by
position``; an id met twice in one task is reported (warning ``duplicate-doc-id``).
"""

from __future__ import annotations

from typing import Any

from crawlmill.algorithms.document_ids import document_id
from crawlmill.core import Record
from pydantic import Field

__all__ = ["DOC_ID_HELP", "DocIds", "doc_id_field"]

DOC_ID_HELP = (
    "the id rule: auto (WARC-TREC-ID / NTCIR doc id, else the WARC-Record-ID's UUID), doc-id "
    "or trec (the record's doc id only), record-id, url, or a WARC header's name; a document "
    "without one is <file>#<seq>"
)


def doc_id_field() -> Any:
    """The ``doc_id`` option of a text writer (default ``auto``)."""
    return Field("auto", description=DOC_ID_HELP)


class DocIds:
    """Names the documents of one task by a ``doc_id`` rule, counting and reporting as the
    module docstring says."""

    def __init__(self, rule: str, ctx: Any) -> None:
        self.rule = "trec" if rule == "doc-id" else rule
        self.ctx = ctx
        self.seen: set[str] = set()

    def __call__(self, record: Record) -> str:
        """The id of ``record`` (the record being written: ``ctx.seq`` is its place), noted
        as written."""
        return self.note(self.name(record))

    def name(self, record: Record) -> str:
        """The id of ``record`` by the rule, or its place (``ids by position``)."""
        found = document_id(record, self.rule)
        if not found:
            self.ctx.count("ids by position")
            found = f"{self.ctx.input.relpath}#{self.ctx.seq}"
        return found

    def note(self, doc_id: str) -> str:
        """Note ``doc_id`` as written (warning ``duplicate-doc-id`` the second time)."""
        if doc_id in self.seen:
            self.ctx.report_warning("duplicate-doc-id", f"doc id {doc_id!r} written twice")
        self.seen.add(doc_id)
        return doc_id
