"""Fake plugins whose steps count their own things with ``ctx.count`` (loaded as
``cm_counting``; the reader and writer extend ``cm_fake``'s).

* ``counting-lines`` (reader): the fake line format, counting ``records`` per record it yields;
* ``count-urls`` (filter): keeps every record, counting ``urls``, ``with-query`` (a ``?`` in
  the URL) and ``payload-bytes`` (``n`` = the payload's length);
* ``counting-jsonl`` (writer): ``fake-jsonl``, counting ``lines`` per line it writes; its
  ``finalize`` reads the typed ``CompletedInput`` / ``OutputFile`` attributes into
  ``manifest.txt`` (``index input path size md5 records``).
"""

from __future__ import annotations

from cm_fake import JsonlWriter, LinesReader
from crawlmill.core import Filter, hookimpl


class CountingLinesReader(LinesReader):
    """Reads the fake line format and counts the records it yields."""

    name = "counting-lines"

    def read(self, ctx):
        for record in super().read(ctx):
            ctx.count("records")
            yield record


class CountUrls(Filter):
    """Keeps every record; counts URLs, URLs with a query and payload bytes."""

    name = "count-urls"

    def apply(self, record):
        self.ctx.count("urls")
        if "?" in (record.url or ""):
            self.ctx.count("with-query")
        self.ctx.count("payload-bytes", len(record.payload))
        return record


class CountingJsonlWriter(JsonlWriter):
    """``fake-jsonl`` counting the record lines it writes."""

    name = "counting-jsonl"

    def write(self, record):
        before = self.count
        super().write(record)
        if self.count > before:
            self.ctx.count("lines")

    @classmethod
    def finalize(cls, root, options, tasks, create):
        with create("manifest.txt") as fh:
            for task in tasks:
                for out in task.outputs:
                    fh.write(
                        f"{task.index} {task.input} {out.path} {out.size} {out.md5} "
                        f"{task.notes['records']}\n".encode()
                    )


@hookimpl
def crawlmill_register_readers(register):
    register(CountingLinesReader)


@hookimpl
def crawlmill_register_filters(register):
    register(CountUrls)


@hookimpl
def crawlmill_register_writers(register):
    register(CountingJsonlWriter)
