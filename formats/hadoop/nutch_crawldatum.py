"""Nutch's ``CrawlDatum`` (versions 1 to 7) and Nutch's own ``org.apache.nutch.crawl.MapWritable``
of Nutch 0.8-1.10 (spec sections 5.2, 6.4).

CrawlDatum: ``byte version, byte status, long fetchTime, byte retries``, the fetch interval
(``float`` days up to version 5, ``int`` seconds from 6), ``float score``, from version 3
``long modifiedTime`` and a signature (signed byte length), from version 4 ``boolean
hasMetadata`` and the metadata: Hadoop's ``MapWritable`` in version 7, Nutch's own map in 4
to 6. Status bytes of versions before 5 use the old numbering (:func:`status_name` maps
them).

Nutch's MapWritable: ``int size``; when positive ``byte idCount``, that many ``(byte id,
class name)`` (``UTF8`` names in Nutch 0.8, ``Text`` from 0.9), then ``size`` times ``(byte
key id, byte value id, key, value)``. Its static id -125 is ``UTF8`` in 0.8 and ``Text``
after; the two flavours are told apart by exact consumption (the 0.8 one first for a
version 4 datum, which only Nutch 0.8 wrote).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .nutch_io import Cursor, Out
from .writables import Codec, MapValue, MapWritable, WritableError

__all__ = [
    "CRAWL_DATUM",
    "NUTCH_MAP",
    "CrawlDatum",
    "NutchMapValue",
    "read_crawl_datum",
    "read_nutch_map",
    "status_name",
    "write_crawl_datum",
    "write_nutch_map",
]

CRAWL_DATUM = "org.apache.nutch.crawl.CrawlDatum"
NUTCH_MAP = "org.apache.nutch.crawl.MapWritable"
CUR_VERSION = 7

HIO = "org.apache.hadoop.io."
_STATIC = {
    -127: HIO + "NullWritable",
    -126: HIO + "LongWritable",
    -125: HIO + "Text",  # UTF8 in the 0.8 flavour
    -124: HIO + "MD5Hash",
    -123: "org.apache.nutch.fetcher.FetcherOutput",
    -122: "org.apache.nutch.protocol.Content",
    -121: "org.apache.nutch.parse.ParseText",
    -120: "org.apache.nutch.parse.ParseData",
    -119: NUTCH_MAP,
    -118: HIO + "BytesWritable",
    -117: HIO + "FloatWritable",
    -116: HIO + "IntWritable",
    -115: HIO + "ObjectWritable",
    -114: "org.apache.nutch.protocol.ProtocolStatus",
}

#: status byte (version 5 on) -> name, as ``CrawlDatum.getStatusName``.
STATUS_NAMES = {
    0x01: "db_unfetched", 0x02: "db_fetched", 0x03: "db_gone", 0x04: "db_redir_temp",
    0x05: "db_redir_perm", 0x06: "db_notmodified", 0x07: "db_duplicate", 0x08: "db_orphan",
    0x09: "db_parse_failed", 0x21: "fetch_success", 0x22: "fetch_retry",
    0x23: "fetch_redir_temp", 0x24: "fetch_redir_perm", 0x25: "fetch_gone",
    0x26: "fetch_notmodified", 0x41: "signature", 0x42: "injected", 0x43: "linked",
    0x44: "parse_meta", 0x45: "parse_failed",
}  # fmt: skip
#: old status byte (versions before 5, Nutch 0.8) -> the current one.
OLD_STATUS = {0: 0x41, 1: 0x01, 2: 0x02, 3: 0x03, 4: 0x43, 5: 0x21, 6: 0x22, 7: 0x25}


def status_name(version: int, status: int) -> str:
    """The name of a stored status byte (old numbering before version 5)."""
    if version < 5:
        status = OLD_STATUS.get(status, 0x01)
    return STATUS_NAMES.get(status, f"status_{status}")


@dataclass
class NutchMapValue(MapValue):
    """A Nutch ``org.apache.nutch.crawl.MapWritable``: ``classes`` its dynamic id table,
    ``entries`` ``(key class, key, value class, value)`` in file order; ``legacy`` the Nutch
    0.8 flavour (``UTF8`` class names, id -125 = ``UTF8``)."""

    legacy: bool = False


def _table(legacy: bool) -> dict[int, str]:
    table = dict(_STATIC)
    if legacy:
        table[-125] = HIO + "UTF8"
        del table[-114]  # ProtocolStatus joined the static table in 0.9
    return table


Resolve = Callable[[str], Codec | None]


def _codec(resolve: Resolve, name: str, cur: Cursor) -> Codec:
    codec = resolve(name)
    if codec is None:
        raise cur.fail("map entry", f"no codec for class {name} (entries have no length)")
    return codec


def read_nutch_map(cur: Cursor, resolve: Resolve, legacy: bool) -> NutchMapValue:
    """Nutch's MapWritable at the cursor, in the given flavour."""
    size = cur.int("MapWritable size")
    if size < 0 or size * 2 > len(cur.buf) - cur.pos:
        raise cur.fail("MapWritable size", f"{size} entries with {len(cur.buf) - cur.pos} left")
    value = NutchMapValue(legacy=legacy)
    if size == 0:
        return value
    table = _table(legacy)
    id_count = cur.byte("MapWritable id count")
    for _ in range(max(id_count, 0)):
        cid = cur.byte("MapWritable class id")
        name = cur.utf8("MapWritable class name") if legacy else cur.text("MapWritable class name")
        value.classes.append((cid, name))
        table[cid] = name
    for i in range(size):
        kid, vid = cur.byte(f"MapWritable key id {i}"), cur.byte(f"MapWritable value id {i}")
        parts: list[Any] = []
        for what, cid in (("key", kid), ("value", vid)):
            name = table.get(cid)
            if name is None:
                raise cur.fail(f"MapWritable {what} id {i}", f"unknown class id {cid}")
            item, cur.pos = _codec(resolve, name, cur).read(cur.buf, cur.pos)
            parts += [name, item]
        value.entries.append(tuple(parts))  # type: ignore[arg-type]
    return value


def write_nutch_map(out: Out, value: NutchMapValue, resolve: Resolve) -> None:
    """The bytes of ``value`` in its flavour."""
    out.int(len(value.entries))
    if not value.entries:
        return
    table = _table(value.legacy)
    ids = {name: cid for cid, name in table.items()}
    classes = list(value.classes)
    ids.update({name: cid for cid, name in classes})
    for kc, _, vc, _ in value.entries:
        for name in (kc, vc):
            if name not in ids:  # a new dynamic id, as Nutch's addToMap numbers them
                ids[name] = -128 + len(_STATIC) + len(classes) + 1
                classes.append((ids[name], name))
    out.byte(len(classes))
    for cid, name in classes:
        out.byte(cid)
        out.utf8(name) if value.legacy else out.text(name)
    for kc, k, vc, v in value.entries:
        out.byte(ids[kc]).byte(ids[vc])
        out.raw(_codec(resolve, kc, Cursor(b"", 0, NUTCH_MAP)).write(k))
        out.raw(_codec(resolve, vc, Cursor(b"", 0, NUTCH_MAP)).write(v))


@dataclass
class CrawlDatum:
    """``org.apache.nutch.crawl.CrawlDatum``: ``status`` as stored (see :attr:`status_name`),
    ``fetch_time``/``modified_time`` in ms, ``fetch_interval`` (``float`` days up to version
    5, ``int`` seconds from 6), ``signature`` (``None``: none), ``metadata`` (``None``: the
    ``hasMetadata`` flag was false; a :class:`MapValue` in version 7, a
    :class:`NutchMapValue` in 4-6)."""

    version: int = CUR_VERSION
    status: int = 0x01
    fetch_time: int = 0
    retries: int = 0
    fetch_interval: int | float = 0
    score: float = 1.0
    modified_time: int = 0
    signature: bytes | None = None
    metadata: MapValue | None = None

    @property
    def status_name(self) -> str:
        """The status's name (``fetch_success``, ``db_unfetched`` ...)."""
        return status_name(self.version, self.status)

    @property
    def fetch_interval_seconds(self) -> int:
        """The fetch interval in seconds (versions up to 5 store days)."""
        if self.version <= 5:
            return round(self.fetch_interval * 86400)
        return int(self.fetch_interval)


def read_crawl_datum(cur: Cursor, resolve: Resolve, legacy: bool | None = None) -> CrawlDatum:
    """A CrawlDatum at the cursor; ``legacy`` forces the flavour of a version 4-6 Nutch map
    (``None``: the 0.8 one for version 4, else 0.9's, the other tried when it does not fit)."""
    d = CrawlDatum()
    d.version = cur.byte("CrawlDatum version")
    if not 1 <= d.version <= CUR_VERSION:
        raise cur.fail("CrawlDatum version", f"{d.version} is not 1 to {CUR_VERSION}")
    d.status = cur.byte("CrawlDatum status")
    d.fetch_time = cur.long("CrawlDatum fetchTime")
    d.retries = cur.byte("CrawlDatum retries")
    if d.version > 5:
        d.fetch_interval = cur.int("CrawlDatum fetchInterval")
    else:
        d.fetch_interval = cur.float("CrawlDatum fetchInterval")
    d.score = cur.float("CrawlDatum score")
    if d.version > 2:
        d.modified_time = cur.long("CrawlDatum modifiedTime")
        n = cur.byte("CrawlDatum signature length")
        # Nutch writes the length with writeByte: 128-255 read back negative (a Nutch bug);
        # the bytes are there, so they are read as what was written
        n = n + 256 if n < 0 else n
        d.signature = cur.take(n, "CrawlDatum signature") if n else None
    if d.version > 3 and cur.boolean("CrawlDatum hasMetadata"):
        if d.version >= 7:
            d.metadata, cur.pos = MapWritable(resolve).read(cur.buf, cur.pos)
        else:
            flavours = [legacy] if legacy is not None else [d.version == 4, d.version != 4]
            start, last = cur.pos, None
            for flavour in flavours:
                cur.pos = start
                try:
                    d.metadata = read_nutch_map(cur, resolve, flavour)
                    break
                except WritableError as exc:
                    last = exc
            else:
                assert last is not None
                raise last
    return d


def write_crawl_datum(out: Out, d: CrawlDatum, resolve: Resolve) -> None:
    """The bytes of ``d`` in its version's layout."""
    if not 1 <= d.version <= CUR_VERSION:
        raise WritableError(f"CrawlDatum version {d.version} is not 1 to {CUR_VERSION}")
    out.byte(d.version).byte(d.status).long(d.fetch_time).byte(d.retries)
    if d.version > 5:
        out.int(int(d.fetch_interval))
    else:
        out.float(float(d.fetch_interval))
    out.float(d.score)
    if d.version > 2:
        out.long(d.modified_time)
        sig = d.signature or b""
        if len(sig) > 255:
            raise WritableError(f"CrawlDatum signature of {len(sig)} bytes, more than 255")
        out.raw(bytes([len(sig)]) + sig)
    if d.version > 3:
        out.boolean(d.metadata is not None)
        if d.metadata is not None:
            if d.version >= 7:
                out.raw(MapWritable(resolve).write(d.metadata))
            else:
                meta = d.metadata
                if not isinstance(meta, NutchMapValue):
                    meta = NutchMapValue(list(meta.entries), list(meta.classes), d.version == 4)
                write_nutch_map(out, meta, resolve)
