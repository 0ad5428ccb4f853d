"""A third-party plugin with whole-collection steps (loaded by module name ``cm_passes``):
the example of ``docs/plugin_hooks.md`` ("Whole-collection steps") and the subject of the
pass tests.

* ``host-min`` (filter): keeps records whose URL host has at least ``min`` records with a URL
  across all inputs (reason ``rare-host``); collect: one ``host`` row per record with a URL;
  reduce: the hosts with enough records. It needs no ``seq``: its table is a set of hosts.
* ``seq-lines`` (writer): writes ``<relpath>.seq`` with one line per record,
  ``<seq> <url> <n>/<total>``, where ``n`` is the record's rank among the run's records of
  its URL (``ctx.seq`` matched against the reduce's table) and ``total`` their count.

``host-min`` declares ``reduce_by = "host"`` (its reduce needs every row of a host, no other),
so rows larger than ``run.reduce_memory`` are reduced in partitions.

Test hooks (environment, read only here): ``CM_PASSES_BLOCK=collect:<input index>`` makes
the collect of that input, ``CM_PASSES_BLOCK=reduce`` makes ``host-min``'s reduce (and
``reduce:<partition>`` the reduce of that partition of a split reduce), create the file
``CM_PASSES_FLAG`` and then sleep until killed; ``CM_PASSES_FAIL`` (same values) makes it
raise ``RuntimeError`` there instead.
"""

from __future__ import annotations

import os
import time
from typing import Any, ClassVar
from urllib.parse import urlsplit

import pyarrow as pa
import pyarrow.compute as pc
from crawlmill.core import Drop, Filter, PluginOptions, Record, Writer, hookimpl
from pydantic import Field


def _block(where: str) -> None:
    if os.environ.get("CM_PASSES_FAIL") == where:
        raise RuntimeError(f"test failure at {where}")
    if os.environ.get("CM_PASSES_BLOCK") == where:
        with open(os.environ["CM_PASSES_FLAG"], "w") as fh:
            fh.write(where)
        while True:
            time.sleep(1)


def _host(record: Record) -> str | None:
    if record.url is None:
        return None
    return (urlsplit(record.url).hostname or "").lower()


class HostMinFilter(Filter):
    """Keep records whose host has at least ``min`` records across all inputs."""

    name = "host-min"

    class Options(PluginOptions):
        min: int = Field(2, ge=1, description="records a host needs across all inputs")

    collect_schema: ClassVar[pa.Schema] = pa.schema([("host", pa.string())])
    reduce_by: ClassVar[str] = "host"

    def collect(self, record: Record) -> list[tuple] | None:
        """One ``(host,)`` row per record with a URL."""
        if self.ctx.seq >= 1:
            _block(f"collect:{self.ctx.input.index}")
        host = _host(record)
        return None if host is None else [(host,)]

    @classmethod
    def reduce(cls, rows: pa.Table, options: Options, ctx: Any) -> pa.Table:
        """The hosts with at least ``min`` rows."""
        _block("reduce")
        if ctx.partitions > 1:
            _block(f"reduce:{ctx.partition}")
        counts = rows.group_by("host").aggregate([("host", "count")])
        kept = counts.filter(pc.greater_equal(counts["host_count"], options.min))
        ctx.count("hosts", counts.num_rows)
        return kept.select(["host"]).sort_by("host")

    def open(self, ctx: Any) -> None:
        """The hosts to keep (none while the collect pass runs)."""
        super().open(ctx)
        table = ctx.table()
        self.hosts = set(table["host"].to_pylist()) if table is not None else set()

    def apply(self, record: Record) -> Record | Drop:
        """Drop a record of a rare host."""
        host = _host(record)
        if host is not None and host not in self.hosts:
            return Drop("rare-host")
        return record


class SeqLinesWriter(Writer):
    """One line per record: its seq, URL, and rank among the run's records of its URL."""

    name = "seq-lines"
    collect_schema: ClassVar[pa.Schema] = pa.schema([("url", pa.string())])

    def collect(self, record: Record) -> list[tuple]:
        """One ``(url,)`` row per record."""
        return [(record.url or "",)]

    @classmethod
    def reduce(cls, rows: pa.Table, options: PluginOptions, ctx: Any) -> pa.Table:
        """Per row: its rank among the rows of its URL (pipeline order) and their count."""
        urls = rows["url"].to_pylist()
        seen: dict[str, int] = {}
        ranks = []
        for url in urls:
            seen[url] = seen.get(url, 0) + 1
            ranks.append(seen[url])
        totals = [seen[u] for u in urls]
        return pa.table(
            {
                "input": rows["input"],
                "seq": rows["seq"],
                "rank": pa.array(ranks, pa.int64()),
                "total": pa.array(totals, pa.int64()),
            }
        )

    def open(self, ctx: Any) -> None:
        """This input's ranks, by seq."""
        self.ctx = ctx
        table = ctx.table()
        mine = table.filter(pc.equal(table["input"], ctx.input.index))
        self.ranks = dict(
            zip(
                mine["seq"].to_pylist(),
                zip(mine["rank"].to_pylist(), mine["total"].to_pylist(), strict=True),
                strict=True,
            )
        )
        self.fh = ctx.create(f"{ctx.input.relpath}.seq")

    def write(self, record: Record) -> None:
        """``<seq> <url> <rank>/<total>``."""
        rank, total = self.ranks[self.ctx.seq]
        self.fh.write(f"{self.ctx.seq} {record.url} {rank}/{total}\n".encode())

    def close(self) -> None:
        """Close the file."""
        self.fh.close()


@hookimpl
def crawlmill_register_filters(register):
    register(HostMinFilter)


@hookimpl
def crawlmill_register_writers(register):
    register(SeqLinesWriter)
