"""An example third-party crawlmill plugin: a ``lines`` reader, ``host`` and ``host-quota``
filters and ``jsonl`` and ``urllist`` writers, registered through the ``crawlmill``
entry-point group (see pyproject.toml).

* ``lines`` reads text files of ``URL<TAB>DATE<TAB>TEXT`` lines (suffix ``.lines``), one
  resource record per line; a line without a tab is reported as damage and skipped.
* ``host`` keeps records whose URL host is one of ``hosts`` (and their subdomains).
* ``jsonl`` writes one JSON object per record -- url, date_raw, kind and the SHA-1 of the
  payload -- to ``<input relpath>.jsonl`` below the output folder.
* ``host-quota`` keeps at most ``max`` records per URL host across *all* inputs (the first
  ones in input order, then record order): a whole-collection step, declared with
  ``collect_schema``, ``collect`` and ``reduce`` (docs/plugin_hooks.md, "Whole-collection
  steps").
* ``urllist`` writes the records' URLs, one per line, hash-partitioned into ``partitions``
  files ``part-NNNNN.urls``, each sorted by URL bytes over all inputs: a writer that declares
  a sorted shuffle (``shuffle``, ``partition_of``, ``sort_key``).
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections import Counter
from collections.abc import Iterator
from urllib.parse import urlsplit

import pyarrow as pa
import pyarrow.compute as pc
from crawlmill.core import (
    Damage,
    Drop,
    Filter,
    FilterContext,
    PluginOptions,
    Provenance,
    ReadContext,
    Reader,
    Record,
    RecordKind,
    ReduceContext,
    ShuffleSpec,
    WriteContext,
    Writer,
    hookimpl,
)
from pydantic import Field


class LinesReader(Reader):
    """Read ``URL<TAB>DATE<TAB>TEXT`` lines, one resource record per line."""

    name = "lines"
    file_suffixes = (".lines",)

    class Options(PluginOptions):
        separator: str = Field(default="\t", min_length=1, description="field separator")

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """Sure of ``.lines`` files whose first line has the separator."""
        if not path.endswith(".lines"):
            return 0.0
        return 0.9 if b"\t" in head.split(b"\n", 1)[0] else 0.3

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """One record per non-empty line; damage for lines without a date field."""
        sep = self.options.separator.encode()
        offset = 0
        with open(ctx.path, "rb") as fh:
            for line in fh:
                start, offset = offset, offset + len(line)
                body = line.rstrip(b"\r\n")
                if not body:
                    continue
                parts = body.split(sep, 2)
                if len(parts) < 2 or not parts[0]:
                    ctx.report_damage(
                        Damage(
                            ctx.path,
                            start,
                            "expected URL, DATE, TEXT",
                            len(line),
                            line,
                            "no-date-field",
                        )
                    )
                    continue
                yield Record(
                    kind=RecordKind.RESOURCE,
                    url=parts[0].decode("utf-8", "surrogateescape"),
                    date_raw=parts[1].decode("utf-8", "surrogateescape"),
                    payload=parts[2] if len(parts) > 2 else b"",
                    content_type="text/plain",
                    source=Provenance(ctx.path, start, len(line), "lines"),
                )


class HostFilter(Filter):
    """Keep records whose URL host is one of the given hosts (or a subdomain of one)."""

    name = "host"

    class Options(PluginOptions):
        hosts: list[str] = Field(min_length=1, description="host names to keep, e.g. [example.org]")
        subdomains: bool = Field(default=True, description="also keep subdomains of those hosts")

    def apply(self, record: Record) -> Record | Drop:
        """Drop with reason other-host when the URL's host is not listed."""
        host = (urlsplit(record.url or "").hostname or "").lower()
        for wanted in self.options.hosts:
            wanted = wanted.lower()
            if host == wanted or (self.options.subdomains and host.endswith("." + wanted)):
                return record
        return Drop("other-host")


class JsonlWriter(Writer):
    """Write one JSON line per record: url, date_raw, kind and the SHA-1 of the payload."""

    name = "jsonl"

    class Options(PluginOptions):
        suffix: str = Field(default=".jsonl", description="appended to the input's relative path")

    def open(self, ctx: WriteContext) -> None:
        """Create ``<relpath><suffix>`` for this task."""
        self.out = ctx.create(ctx.input.relpath + self.options.suffix)

    def write(self, record: Record) -> None:
        """Append the record's line."""
        line = {
            "url": record.url,
            "date_raw": record.date_raw,
            "kind": str(record.kind),
            "sha1": hashlib.sha1(record.payload).hexdigest(),
        }
        self.out.write(json.dumps(line, sort_keys=True).encode() + b"\n")

    def close(self) -> None:
        """Close the file; the engine commits it."""
        self.out.close()


def _host(record: Record) -> str:
    return (urlsplit(record.url or "").hostname or "").lower()


class HostQuotaFilter(Filter):
    """Keep at most ``max`` records per URL host across all inputs (the first ones)."""

    name = "host-quota"

    class Options(PluginOptions):
        max: int = Field(default=1, ge=1, description="records kept per host, over all inputs")

    # the collect step: one row per record with a URL (the engine adds `input` and `seq`)
    collect_schema = pa.schema([("host", pa.string())])

    def collect(self, record: Record) -> list[tuple[str]] | None:
        """The record's host; records without a URL take no part (and are kept)."""
        return [(_host(record),)] if record.url else None

    @classmethod
    def reduce(cls, rows: pa.Table, options: Options, ctx: ReduceContext) -> pa.Table:
        """All rows (input order, then record order) to the ``(input, seq)`` of the records
        over their host's quota."""
        seen: Counter[str] = Counter()
        over: list[tuple[int, int]] = []
        columns = (rows[c].to_pylist() for c in ("host", "input", "seq"))
        for host, index, seq in zip(*columns, strict=True):
            seen[host] += 1
            if seen[host] > options.max:
                over.append((index, seq))
        ctx.count("over-quota", len(over))
        return pa.table(
            {
                "input": pa.array([i for i, _ in over], pa.int32()),
                "seq": pa.array([s for _, s in over], pa.int64()),
            }
        )

    def open(self, ctx: FilterContext) -> None:
        """This input's records over quota, from the reduce's table (``None`` while this
        filter's own collect pass runs)."""
        super().open(ctx)
        table = ctx.table()
        if table is None:
            self.over: set[int] = set()
            return
        mine = table.filter(pc.equal(table["input"], ctx.input.index))
        self.over = set(mine["seq"].to_pylist())

    def apply(self, record: Record) -> Record | Drop:
        """Drop with reason over-quota the records the reduce named (by ``ctx.seq``)."""
        return Drop("over-quota") if self.ctx.seq in self.over else record


def _url_bytes(record: Record) -> bytes:
    return (record.url or "").encode("utf-8", "surrogateescape")


class UrlListWriter(Writer):
    """Write URLs sorted by their bytes, hash-partitioned into part-NNNNN.urls files."""

    name = "urllist"

    class Options(PluginOptions):
        partitions: int = Field(default=1, ge=1, le=10_000, description="number of part files")

    # the shuffle: what the engine asks of the writer before any record reaches it
    def shuffle(self) -> ShuffleSpec:
        """Every run of this writer is a hash-partitioned sorted shuffle."""
        return ShuffleSpec(self.options.partitions, "hash")

    def partition_of(self, record: Record, partitions: int) -> int:
        """CRC-32 of the URL bytes (the same in every process), modulo ``partitions``."""
        return zlib.crc32(_url_bytes(record)) % partitions

    def sort_key(self, record: Record) -> bytes:
        """The URL bytes: compared unsigned, as Hadoop compares Text keys."""
        return _url_bytes(record)

    def open(self, ctx: WriteContext) -> None:
        """One file per partition: the engine names the task's input ``part-NNNNN``."""
        self.ctx = ctx
        self.out = ctx.create(ctx.input.stem + ".urls")

    def write(self, record: Record) -> None:
        """Append the URL; a record without one (or with a line break in it) is refused."""
        url = _url_bytes(record)
        if not url or b"\n" in url or b"\r" in url:
            self.ctx.quarantine(record, "no URL that fits on a line")
            return
        self.out.write(url + b"\n")

    def close(self) -> None:
        """Close the file; the engine commits it."""
        self.out.close()


@hookimpl
def crawlmill_register_readers(register):
    """Register the ``lines`` reader."""
    register(LinesReader)


@hookimpl
def crawlmill_register_filters(register):
    """Register the ``host`` and ``host-quota`` filters."""
    register(HostFilter)
    register(HostQuotaFilter)


@hookimpl
def crawlmill_register_writers(register):
    """Register the ``jsonl`` and ``urllist`` writers."""
    register(JsonlWriter)
    register(UrlListWriter)


@hookimpl
def crawlmill_detect_format(path, head):
    """Claim ``.lines`` files for the ``lines`` reader."""
    return [("lines", LinesReader.sniff(path, head))]
