"""What the text writers (``pyserini``, ``ir-datasets``, ``trec``, ``wet``, ``parquet``) share.

* :class:`TextWriterOptions`: the ``extractor`` option (every text writer);
  :class:`TextDocOptions` adds ``doc_id``, the id rule of the writers that name documents
  (``pyserini``, ``ir-datasets``, ``trec``, ``parquet``; :mod:`.doc_ids`).
* :class:`TextWriter`: a :class:`~crawlmill.core.FileWriter` of HTML pages' texts: the text of
  a record by the extractor option, a record that is no HTML page sent to the quarantine
  (``no-text``), ``close``.
* :class:`TextSinkWriter`: a text writer whose files are plain or, with its ``compress``
  option, one gzip stream each (``pyserini``, ``ir-datasets``, ``trec``).
"""

from __future__ import annotations

import gzip
from typing import Any

from crawlmill.algorithms.text_extraction import (
    DEFAULT_EXTRACTOR,
    Extractor,
    PageText,
    record_text,
)
from crawlmill.core import FileWriter, FileWriterOptions, Record
from pydantic import Field

from .doc_ids import doc_id_field

__all__ = ["TextDocOptions", "TextSinkWriter", "TextWriter", "TextWriterOptions"]


class TextWriterOptions(FileWriterOptions):
    """Options of every text writer (``layout`` comes from FileWriterOptions)."""

    extractor: Extractor = Field(
        DEFAULT_EXTRACTOR,
        description="main-text extractor: resiliparse (default), trafilatura, or lxml "
        "(all body text, no boilerplate removal); see docs/outputs.md",
    )


class TextDocOptions(TextWriterOptions):
    """Options of a text writer that names its documents: ``extractor`` and ``doc_id``."""

    doc_id: str = doc_id_field()


class TextWriter(FileWriter):
    """Base of the writers of page texts: HTML ``response`` and ``resource`` records."""

    kinds = ("response", "resource")

    def no_text(self, record: Record) -> None:
        """Send ``record``, which holds no HTML page, to the quarantine (``no-text``)."""
        self.ctx.quarantine(record, f"no-text: not an HTML page ({self.name} holds page texts)")

    def page(self, record: Record, head: bool = True) -> PageText | None:
        """The text of ``record`` by the ``extractor`` option; ``None`` (the record sent to
        the quarantine) when it is no HTML page. ``head=False``: a writer that writes no
        title or description does not have them looked for (``None``; no lxml parse)."""
        page = record_text(record, self.options.extractor, head)
        if page is None:
            self.no_text(record)
        return page

    def close(self) -> None:
        """Close the open file."""
        self.ensure_output()
        if self.file is not None:
            self.close_file()


class TextSinkWriter(TextWriter):
    """A text writer whose files are written as they are or, with the ``compress`` option,
    through one gzip stream each (``mtime`` 0: the same bytes on every run)."""

    def start_file(self, file: Any, first: Any) -> None:
        """Open the gzip stream (``compress``) or write to the file itself."""
        if self.options.compress:
            file.sink = gzip.GzipFile(fileobj=file.stream, mode="wb", mtime=0)
        else:
            file.sink = file.stream

    def finish_file(self, file: Any) -> dict[str, Any]:
        """Close the gzip stream and the file; the file's entry in ``ctx.notes``."""
        if file.sink is not file.stream:
            file.sink.close()
        file.stream.close()
        return {"path": file.path, "records": file.records}
