"""What the dedup filters keyed by one column share (``url-dedup``, ``exact-dedup``): the
reduce is per key (``reduce_by = "key"``), its table names the rows after the first of each
key, and the final pass drops those records, checking that each is the record the collect
pass saw (a record is never dropped for another one's key)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from crawlmill.core import (
    Drop,
    Filter,
    FilterContext,
    KeyedDrops,
    Record,
    ReduceContext,
    rows_after_the_first_per_key,
)

__all__ = ["KeyedDedupFilter"]


class KeyedDedupFilter(Filter):
    """Base of a dedup filter keyed by its ``key`` column: a subclass defines ``_key(record)``
    (the key it collects, ``None`` when the record does not take part), ``collect`` and
    ``reduce`` (ranking each key's rows, then :meth:`duplicates`)."""

    #: the reduce is per key: rows too many for the driver are reduced in partitions.
    reduce_by: ClassVar[str] = "key"
    #: what the error of a mismatched record calls it.
    noun: ClassVar[str] = "record"

    def _key(self, record: Record) -> Any:
        raise NotImplementedError

    @classmethod
    def duplicates(cls, ranked: Any, ctx: ReduceContext, counted: str) -> Any:
        """The reduce's table: ``(input, seq, key)`` of every row of ``ranked`` (sorted by
        key, then by the rule, the row to keep first) but the first of its key; counts the
        rows as ``counted`` and the drops as ``duplicates``."""
        dropped = rows_after_the_first_per_key(ranked)
        ctx.count(counted, ranked.num_rows)
        ctx.count("duplicates", dropped.num_rows)
        return dropped

    def open(self, ctx: FilterContext) -> None:
        """Load this input's duplicates (sorted by seq) from the reduce's table."""
        super().open(ctx)
        # more than one table when the reduce ran in partitions; none in the collect pass
        self._dups = KeyedDrops(ctx.table_parts(), ctx.input.index)

    def apply(self, record: Record) -> Record | Drop:
        """Drop the record when the reduce named it a duplicate."""
        return self.drop_named(record, lambda: self._key(record))

    def drop_named(self, record: Record, key_of: Callable[[], Any]) -> Record | Drop:
        """``Drop("duplicate")`` when the reduce named the record in hand, else ``record``;
        ``key_of()`` (asked only then) must give the key collected for it."""
        key = self._dups.take(self.ctx.seq)
        if key is None:
            return record
        if key_of() != key:  # never drop another record than the one collected
            raise RuntimeError(
                f"{self.name}: record {self.ctx.seq} of {self.ctx.input.path} is not the "
                f"{self.noun} the collect pass saw (the input changed or its reader is not "
                "deterministic)"
            )
        return Drop("duplicate")
