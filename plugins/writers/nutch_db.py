"""The ``nutch-crawldb`` and ``nutch-linkdb`` writers: a Nutch 1.x CrawlDB (URL ->
CrawlDatum) and LinkDB (URL -> Inlinks) from any reader's captures.

Both need the whole run's pages and outlinks, so they are whole-collection steps: the collect
pass keeps one row per capture (URL, fetch status, capture time, MD5 of the payload, HTTP
status, content type, outlinks: its own, or an HTML page's as ``parse-html`` finds them);
the reduce (once, in the driver) builds the database by the
rules of :mod:`crawlmill.formats.hadoop.nutch_write_db` and writes it as
``current/part-r-NNNNN/{data,index}`` MapFiles (keys Text URLs in Hadoop's raw order, placed
by Hadoop's ``HashPartitioner`` as Nutch's CrawlDb and LinkDb jobs place them). The final pass
writes nothing more; records that are no capture (``response``, ``resource`` with a URL) are
quarantined (``not-a-capture``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from crawlmill.core import LazySchema, PluginOptions, Record, Writer, hookimpl
from crawlmill.formats.hadoop.codecs import DEFAULT_CODEC, codec_for
from crawlmill.formats.hadoop.mapfile import MapFileWriter, hash_partition, sort_key
from crawlmill.formats.hadoop.nutch import CRAWL_DATUM, INLINKS, encode_nutch
from crawlmill.formats.hadoop.nutch_write import fetch_status, md5_signature
from crawlmill.formats.hadoop.nutch_write_db import Page, crawldb, linkdb
from crawlmill.formats.hadoop.nutch_write_links import outlinks_of
from pydantic import Field

from .sequencefile import _key_of

__all__ = ["NutchCrawlDbWriter", "NutchLinkDbWriter"]

TEXT = "org.apache.hadoop.io.Text"


def _schema() -> Any:
    import pyarrow as pa

    link = pa.struct([("url", pa.string()), ("anchor", pa.string())])
    return pa.schema([
        ("url", pa.string()), ("fetch_status", pa.int32()), ("fetch_time", pa.int64()),
        ("signature", pa.binary()), ("code", pa.int32()), ("content_type", pa.string()),
        ("outlinks", pa.list_(link)),
    ])  # fmt: skip


def _pages(rows: Any) -> list[Page]:
    cols = [rows[n].to_pylist() for n in ("url", "fetch_status", "fetch_time", "signature",
                                           "code", "content_type", "outlinks")]  # fmt: skip
    return [
        Page(u, fs, ft, sig, code, ct or "", [(o["url"], o["anchor"]) for o in links or []])
        for u, fs, ft, sig, code, ct, links in zip(*cols, strict=True)
    ]


class _NutchDbWriter(Writer):
    """A Nutch database of MapFiles written by the reduce."""

    value_class: ClassVar[str] = ""

    class Options(PluginOptions):
        """Options of the database writers."""

        partitions: int = Field(1, ge=1, le=100_000, description="parts of current/ (reduce tasks)")
        compression: Literal["none", "record", "block"] = Field(
            "none", description="compression of the MapFile data (DefaultCodec)"
        )  # fmt: skip
        extract_links: bool = Field(
            True, description="outlinks of HTML pages that bring none, as parse-html finds them"
        )  # fmt: skip

    collect_schema: ClassVar[Any] = LazySchema(_schema)

    def collect(self, record: Record) -> list[tuple] | None:
        """One row per capture (module docstring)."""
        if record.kind not in ("response", "resource") or not record.url:
            return None
        millis = int(record.date.timestamp() * 1000) if record.date else 0
        status = record.http_status
        found = outlinks_of(record, self.options.extract_links)  # fmt: skip
        links = [{"url": u, "anchor": a} for u, a in found]
        return [(record.url, fetch_status(status), millis, md5_signature(record.payload),
                 status, record.content_type or "", links)]  # fmt: skip

    @classmethod
    def database(cls, pages: list[Page], options: Any) -> dict[str, Any]:
        """URL -> value of the database."""
        raise NotImplementedError

    @classmethod
    def reduce(cls, rows: Any, options: Any, ctx: Any) -> Any:
        """Build the database and write its parts (``ctx.output``); return no rows."""
        db = cls.database(_pages(rows), options)
        n = options.partitions
        parts: list[list[tuple[bytes, bytes]]] = [[] for _ in range(n)]
        for url, value in db.items():
            key = _key_of(TEXT, url)
            parts[hash_partition(TEXT, key, n)].append((key, encode_nutch(cls.value_class, value)))
        codec = codec_for(DEFAULT_CODEC) if options.compression != "none" else None
        for i, entries in enumerate(parts):
            entries.sort(key=lambda e: sort_key(TEXT, e[0]))
            folder = f"current/part-r-{i:05d}"
            with open(ctx.output(folder + "/data"), "wb") as data, \
                    open(ctx.output(folder + "/index"), "wb") as index:  # fmt: skip
                writer = MapFileWriter(data, index, TEXT, cls.value_class,
                                       compression=options.compression, codec=codec)  # fmt: skip
                for key, value in entries:
                    writer.append(key, value)
                writer.close()
        ctx.count("entries", len(db))
        return rows.slice(0, 0)

    def open(self, ctx: Any) -> None:
        """The final pass: the database is already written."""
        self.ctx = ctx

    def write(self, record: Record) -> None:
        """Nothing to write (the reduce wrote the database); a record that is no capture is
        quarantined."""
        if record.kind not in ("response", "resource") or not record.url:
            self.ctx.quarantine(record, "not-a-capture: a Nutch database holds fetched pages only")

    def close(self) -> None:
        """Nothing to close."""


class NutchCrawlDbWriter(_NutchDbWriter):
    """A Nutch CrawlDB: fetched pages and their unfetched outlink targets."""

    name = "nutch-crawldb"
    value_class = CRAWL_DATUM

    @classmethod
    def database(cls, pages: list[Page], options: Any) -> dict[str, Any]:
        """URL -> CrawlDatum (``nutch_write_db.crawldb``)."""
        return crawldb(pages)


class NutchLinkDbWriter(_NutchDbWriter):
    """A Nutch LinkDB: the inverted outlinks of every page."""

    name = "nutch-linkdb"
    value_class = INLINKS

    class Options(_NutchDbWriter.Options):
        """Options of the LinkDB writer."""

        ignore_internal: bool = Field(
            False, description="drop links within a host (Nutch's linkdb.ignore.internal.links)"
        )  # fmt: skip

    @classmethod
    def database(cls, pages: list[Page], options: Any) -> dict[str, Any]:
        """URL -> Inlinks (``nutch_write_db.linkdb``)."""
        return linkdb(pages, options.ignore_internal)


@hookimpl
def crawlmill_register_writers(register) -> None:
    """Register the ``nutch-crawldb`` and ``nutch-linkdb`` writers."""
    register(NutchCrawlDbWriter)
    register(NutchLinkDbWriter)
