"""Arrow IPC files of the passes: writing rows batch by batch, reading a table memory-mapped,
and the ``ctx.table()`` loader a component gets in the final pass.

pyarrow is imported on first use, so a run without passes never loads it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Any

__all__ = [
    "RowsWriter",
    "load_table",
    "table_files",
    "table_loader",
    "write_table",
]

#: rows buffered before a record batch is written.
BATCH_ROWS = 8192


def load_table(path: str) -> Any:
    """The ``pyarrow.Table`` of the Arrow IPC file ``path``, memory-mapped (zero copy)."""
    import pyarrow as pa

    with pa.memory_map(path, "r") as source:
        return pa.ipc.open_file(source).read_all()


class _TableLoader:
    """A ``ctx.table`` loader: the pass's table read on the first call only. ``path`` is
    the pass's ``table.arrow``; when the pass's ``done.json`` beside it lists the partition
    tables of a split reduce (``"tables"``), those are read instead, concatenated."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._parts: list[Any] | None = None

    def parts(self) -> list[Any]:
        """The tables the reduce calls returned, in partition order (``[]``: no table)."""
        if self.path is None:
            return []
        if self._parts is None:
            self._parts = [load_table(p) for p in table_files(self.path)]
        return self._parts

    def __call__(self) -> Any:
        if self.path is None:
            return None
        parts = self.parts()
        if len(parts) == 1:
            return parts[0]
        import pyarrow as pa

        return pa.concat_tables(parts)


def table_files(path: str) -> list[str]:
    """The files holding the table of a pass whose ``table.arrow`` is ``path``: the partition
    tables its ``done.json`` lists, else ``path`` itself."""
    import json

    folder = os.path.dirname(path)
    try:
        with open(os.path.join(folder, "done.json"), encoding="utf-8") as fh:
            marker = json.load(fh)
    except (OSError, ValueError):
        return [path]
    names = marker.get("tables") if isinstance(marker, dict) else None
    if not isinstance(names, list) or not names:
        return [path]
    return [os.path.join(folder, os.path.basename(str(entry[0]))) for entry in names]


def table_loader(path: str | None) -> Callable[[], Any]:
    """A ``ctx.table`` loader for the pass table at ``path`` (``None``: no table, returns
    ``None``); see :class:`_TableLoader`."""
    return _TableLoader(path)


def _tmp(path: str) -> str:
    return f"{path}.tmp-{os.getpid()}"


def write_table(path: str, table: Any) -> int:
    """Write ``table`` to ``path`` as an Arrow IPC file atomically (temp name, fsync,
    rename); returns its size in bytes."""
    import pyarrow as pa

    tmp = _tmp(path)
    with open(tmp, "wb") as fh:
        with pa.ipc.new_file(fh, table.schema) as writer:
            writer.write_table(table)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return os.path.getsize(path)


class RowsWriter:
    """Rows of one collect task into an Arrow IPC file: the component's ``collect_schema``
    columns plus ``input`` (int32) and ``seq`` (int64), buffered :data:`BATCH_ROWS` at a time,
    so memory stays bounded by a batch; :meth:`close` renames the file into place."""

    def __init__(self, path: str, schema: Any, input_index: int) -> None:
        import pyarrow as pa

        self.path = path
        self.user_schema = schema
        self.schema = pa.schema(
            [*schema, pa.field("input", pa.int32(), False), pa.field("seq", pa.int64(), False)]
        )
        self.input_index = input_index
        self.rows = 0
        self._width = len(schema)
        self._rows: list[Any] = []
        self._seqs: list[int] = []
        self._fh = open(_tmp(path), "wb")  # noqa: SIM115 - closed in close()/abandon()
        self._writer = pa.ipc.new_file(self._fh, self.schema)

    def add(self, row: tuple, seq: int) -> None:
        """One row (values in ``collect_schema`` order) of the record numbered ``seq``."""
        if len(row) != self._width:
            raise ValueError(
                f"collect returned a row of {len(row)} value(s); its collect_schema has "
                f"{self._width} column(s): {', '.join(self.user_schema.names)}"
            )
        self._rows.append(row)  # columns are built per batch (one transpose, not per value)
        self._seqs.append(seq)
        if len(self._seqs) >= BATCH_ROWS:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if not self._seqs:
            return
        columns = zip(*self._rows, strict=True) if self._width else ()
        arrays = [
            pa.array(values, type=field.type)
            for values, field in zip(columns, self.user_schema, strict=True)
        ]
        arrays.append(pa.array([self.input_index] * len(self._seqs), type=pa.int32()))
        arrays.append(pa.array(self._seqs, type=pa.int64()))
        self._writer.write_batch(pa.record_batch(arrays, schema=self.schema))
        self.rows += len(self._seqs)
        self._rows = []
        self._seqs = []

    def close(self) -> int:
        """Write what is buffered, close, fsync and rename into place; returns the size."""
        self._flush()
        self._writer.close()
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()
        os.replace(_tmp(self.path), self.path)
        return os.path.getsize(self.path)

    def abandon(self) -> None:
        """Close and delete the temp file (the task failed)."""
        with contextlib.suppress(Exception):
            self._writer.close()
        with contextlib.suppress(Exception):
            self._fh.close()
        with contextlib.suppress(OSError):
            os.remove(_tmp(self.path))
