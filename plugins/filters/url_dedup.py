"""``url-dedup``: keep one capture per URL (or per URL + payload digest) across all inputs.

A whole-collection filter (:mod:`crawlmill.core.run.passes`): its collect pass records, for every
capture that takes part, a row ``(key, date, size)``; its reduce picks one capture per key by
the ``rule`` and returns the others, which the final pass drops with reason ``duplicate``
(counted as ``url-dedup:duplicate``, so read = written + dropped + quarantined holds).

What takes part: records of the kinds in ``kinds`` (default ``response`` and ``resource``,
the captures of a document) that have a URL. Every other record (requests, metadata,
warcinfo, revisits by default, records without a URL) is kept untouched and is not counted
as a capture: a revisit only points at another capture, and dropping a request or metadata
record would orphan nothing that dedup is meant to remove. Add ``revisit`` (or others) to
``kinds`` to let them take part.

Keys (``key``): ``url`` is the record's URL bytes exactly as read (no canonicalisation:
``http://a/`` and ``http://a`` differ); ``url+digest`` adds the SHA-1 of the payload as
stored (``record.payload``), so captures of one URL with different content are all kept.

Rules (``rule``), each ending in one tie-break, the pipeline order (input order, then record
order within the input), so the result does not depend on the worker count:

* ``first``: the first capture in pipeline order;
* ``latest``: the capture with the newest date; captures without a date lose to every dated
  one;
* ``earliest``: the capture with the oldest date; captures without a date lose to every
  dated one;
* ``largest``: the capture with the longest payload.
"""

from __future__ import annotations

import hashlib
from typing import Any, ClassVar, Literal

from crawlmill.core import (
    LazySchema,
    PluginOptions,
    Record,
    ReduceContext,
    hookimpl,
)
from crawlmill.core.reduce_tables import epoch_micros
from pydantic import Field

from .keyed_dedup import KeyedDedupFilter
from .kinds import Kinds, kinds_field

__all__ = ["UrlDedupFilter"]


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema([("key", pa.binary()), ("date", pa.int64()), ("size", pa.int64())])


class UrlDedupFilter(KeyedDedupFilter):
    """Keep one capture per URL (or URL + payload digest) across all inputs, by a rule."""

    reduce_summary = ("capture(s) seen", "duplicate(s) to drop")

    name = "url-dedup"

    class Options(PluginOptions):
        key: Literal["url", "url+digest"] = Field(
            "url",
            description="what makes two captures duplicates: the same URL, or the same URL "
            "and the same payload SHA-1",
        )
        rule: Literal["first", "latest", "earliest", "largest"] = Field(
            "first",
            description="which capture of a key is kept: first (pipeline order), latest or "
            "earliest (capture date; undated ones lose), largest (payload length); ties go "
            "to the first in pipeline order (input order, then record order)",
        )
        kinds: Kinds = kinds_field(
            "record kinds that take part; records of other kinds (and records without a URL) "
            "are always kept"
        )

    collect_schema: ClassVar[Any] = LazySchema(_schema)
    noun: ClassVar[str] = "capture"

    def _key(self, record: Record) -> bytes | None:
        """The dedup key of ``record``, or ``None`` when it does not take part."""
        if record.kind not in self.options.kinds or record.url is None:
            return None
        url = record.url.encode("utf-8", "surrogateescape")
        if self.options.key == "url":
            return url
        return url + b"\0" + hashlib.sha1(record.payload).digest()

    def collect(self, record: Record) -> list[tuple] | None:
        """One row ``(key, date in microseconds since the epoch or None, payload length)``
        for a record that takes part."""
        key = self._key(record)
        if key is None:
            return None
        return [(key, epoch_micros(record.date), len(record.payload))]

    @classmethod
    def reduce(cls, rows: Any, options: Any, ctx: ReduceContext) -> Any:
        """The duplicates: ``(input, seq, key)`` of every capture but the one the rule keeps
        per key, sorted by input and seq. Rows of different keys never meet, so this also
        holds for a part of the rows with every row of its keys (``reduce_by``)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        order = [("key", "ascending")]
        order += {
            "first": [],
            "latest": [("date", "descending")],
            "earliest": [("date", "ascending")],
            "largest": [("size", "descending")],
        }[options.rule]
        order += [("input", "ascending"), ("seq", "ascending")]
        # an undated capture loses to every dated one: the date that sorts last for the rule
        last = -(2**63) if options.rule == "latest" else 2**63 - 1
        dates = pc.fill_null(rows["date"], pa.scalar(last, pa.int64()))
        ranked = pa.table(
            {
                "key": rows["key"],
                "date": dates,
                "size": rows["size"],
                "input": rows["input"],
                "seq": rows["seq"],
            }
        ).sort_by(order)
        return cls.duplicates(ranked, ctx, "captures")


@hookimpl
def crawlmill_register_filters(register):
    """Register ``url-dedup``."""
    register(UrlDedupFilter)
