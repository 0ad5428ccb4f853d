"""The tables of a collect/reduce pass as a component reads them (the contract of
``Writer.collect``/``reduce`` and ``ctx.table()``/``ctx.table_parts()``): a datetime as an
int64 row column, the rows of one input, and the records a keyed dedup drops.

A reduce's table has the component's ``collect_schema`` columns plus ``input`` (int32) and
``seq`` (int64), sorted by ``input`` (docs/plugin_hooks.md, "Whole-collection passes").
pyarrow and numpy are imported on first use.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

__all__ = [
    "KeyedDrops",
    "epoch_micros",
    "input_rows_by_seq",
    "rows_after_the_first_per_key",
    "rows_of_input",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def epoch_micros(when: datetime | None) -> int | None:
    """``when`` as microseconds since the epoch (a naive datetime is UTC), for an int64 row
    column; ``None`` stays ``None``."""
    if when is None:
        return None
    delta = (when if when.tzinfo else when.replace(tzinfo=UTC)) - _EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def rows_of_input(table: Any, index: int) -> Any:
    """The rows of input ``index`` of a reduce's table sorted by its ``input`` column: found
    by binary search on each memory-mapped chunk, so a final-pass task reads only its own
    rows."""
    import numpy as np

    lo = hi = None
    offset = 0
    for chunk in table["input"].chunks:
        values = chunk.to_numpy(zero_copy_only=True)
        a = int(np.searchsorted(values, index, "left"))
        b = int(np.searchsorted(values, index, "right"))
        if a < b:
            lo = offset + a if lo is None else lo
            hi = offset + b
        offset += len(values)
    if lo is None or hi is None:
        return table.slice(0, 0)
    return table.slice(lo, hi - lo)


def input_rows_by_seq(parts: list[Any], index: int) -> Any | None:
    """The rows of input ``index`` in a reduce's tables (``ctx.table_parts()``, each sorted by
    ``input``), concatenated and sorted by ``seq``; ``None`` when no table holds any."""
    slices = [piece for piece in (rows_of_input(table, index) for table in parts) if piece.num_rows]
    if not slices:
        return None
    if len(slices) == 1:
        return slices[0]
    import pyarrow as pa

    return pa.concat_tables(slices).sort_by([("seq", "ascending")])


def rows_after_the_first_per_key(ranked: Any) -> Any:
    """``(input, seq, key)`` of every row of ``ranked`` (sorted by ``key``, then by the rule
    that puts the row to keep first) but the first of its key, sorted by input and seq: the
    duplicates a keyed dedup drops."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = ranked.num_rows
    keys = ranked["key"]
    if n > 1:
        same = pc.equal(keys.slice(1), keys.slice(0, n - 1))
        duplicate = pa.concat_arrays([pa.array([False]), *pa.chunked_array(same).chunks])
    else:
        duplicate = pa.array([False] * n, pa.bool_())
    dropped = ranked.filter(duplicate).select(["input", "seq", "key"])
    return dropped.sort_by([("input", "ascending"), ("seq", "ascending")])


class KeyedDrops:
    """The records of one input a keyed dedup drops, from its reduce's tables: ``take(seq)``
    answers, in record order, the key collected for record ``seq`` when it is to be dropped
    (``None`` to keep it). Empty in the collect pass (no tables yet)."""

    def __init__(self, parts: list[Any], index: int) -> None:
        mine = input_rows_by_seq(parts, index) if parts else None
        self._seqs: list[int] = [] if mine is None else mine["seq"].to_pylist()
        self._keys: list[Any] = [] if mine is None else mine["key"].to_pylist()
        self._next = 0

    def take(self, seq: int) -> Any | None:
        """The key of record ``seq`` if the reduce named it a duplicate, else ``None``; calls
        come in increasing ``seq``."""
        if self._next >= len(self._seqs) or seq != self._seqs[self._next]:
            return None
        self._next += 1
        return self._keys[self._next - 1]
