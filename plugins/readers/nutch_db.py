"""``nutch-crawldb`` and ``nutch-linkdb``: a Nutch CrawlDB and LinkDB, one Record per URL
(and ``nutch-hostdb``, ``nutch-webgraph``: a host db and a web graph, one per entry, below).

A database folder (``crawldb/``, ``linkdb/``) holds ``current/`` (and, after an update,
``old/``, the version before) of ``part-NNNNN`` / ``part-r-NNNNN`` MapFiles of ``Text`` (or
Nutch 0.8's ``UTF8``) URL keys: CrawlDatum values in a CrawlDB, Inlinks in a LinkDB. The
folder, its ``current/`` or ``old/``, or one part folder is the input; each part is a unit
(a folder holding both reads ``current/``; ``old/`` only when it is alone or named).

A record holds no capture, so it is a ``metadata`` record (as ``cc-metadata`` makes Common
Crawl's metadata; the WARC writer writes it as a ``metadata`` record): ``url`` the key,
``payload`` the value's fields as JSON (``application/json``), the same fields in
``extras["nutch"]`` (``crawl_datum`` with its status name, or ``inlinks``), which write the
value back. ``date`` is ``None``: a CrawlDatum's fetch time is the *next* fetch, not a
capture (the WARC writer stands the conversion time in, with its warning).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, ClassVar

from crawlmill.core import (
    Damage,
    InputFile,
    Provenance,
    ReadContext,
    Reader,
    Record,
    RecordKind,
    hookimpl,
    storage,
)
from crawlmill.core.record import OffsetSpace
from crawlmill.formats.hadoop.nutch import CRAWL_DATUM, INLINKS, to_plain
from crawlmill.formats.hadoop.nutch_crawldatum import CrawlDatum
from crawlmill.formats.hadoop.nutch_graph import HOST_DATUM, LINK_DATUM, NODE
from crawlmill.formats.hadoop.nutch_parse import Inlinks
from crawlmill.formats.hadoop.nutch_tools import LOOP_SET
from crawlmill.formats.hadoop.sequencefile import HeaderError, read_header

from .nutch_parts import (
    PART,
    NutchEntry,
    as_json,
    datum_plain,
    iter_part,
    part_files,
    part_indexes,
)
from .nutch_warcinfo import warcinfo_records

__all__ = [
    "NutchCrawlDbReader",
    "NutchHostDbReader",
    "NutchLinkDbReader",
    "NutchWebGraphReader",
    "db_parts",
]


#: first bytes of a part's data read for its classes.
_HEADER_BYTES = 4096


def _value_class(data: str) -> str | None:
    try:
        return read_header(storage.read_start(data, _HEADER_BYTES)).value_class
    except (OSError, HeaderError):
        return None


def db_parts(path: str, value_class: str, broken: bool = False) -> list[tuple[str, str]]:
    """``(relpath, data file)`` of every part of the database at ``path`` whose values are
    ``value_class``: ``path`` is the database folder, its ``current/``/``old/``, or one
    part folder. ``broken`` (a reader listing the folder it was given or chose): also the
    parts whose header does not read, and, when no part holds ``value_class``, those naming
    another class (the reader forced on the folder): a damaged or empty ``data`` in a part's
    place is read and its damage reported (:func:`part_class_damage`), never left out
    unsaid."""
    path = os.path.abspath(path)
    if os.path.isdir(path) and PART.match(os.path.basename(path)):
        folder = os.path.dirname(path)
        found = {os.path.basename(path): os.path.join(path, "data")}
    else:
        folder = path
        for sub in ("current", "old"):
            if part_files(os.path.join(path, sub)):
                folder = os.path.join(path, sub)
                break
        found = part_files(folder)
    db_dir = os.path.dirname(folder) if os.path.basename(folder) in ("current", "old") else folder
    base = os.path.dirname(db_dir)
    classes = {name: _value_class(data) for name, data in found.items() if os.path.isfile(data)}
    forced = broken and value_class not in classes.values()
    out = []
    for name, data in found.items():
        if name in classes and (
            classes[name] == value_class or (broken and classes[name] is None) or forced
        ):
            out.append((os.path.relpath(os.path.join(folder, name), base), data))
    return out


def part_class_damage(path: str, expected: str, reader: str) -> Damage | None:
    """The damage of a part whose header reads but names a value class other than
    ``expected`` (the whole file: ``unknown-class``), else ``None``."""
    found = _value_class(path)
    if found is None or found == expected:
        return None
    size = storage.size(path)
    head = storage.read_start(path, min(size, 1 << 20))
    return Damage(path, 0, f"the part's values are {found}, not the {expected} of a {reader} "
                  "part: the whole file is damage", size, head, "unknown-class")  # fmt: skip


class _DbReader(Reader):
    value_class: ClassVar[str] = ""
    db: ClassVar[str] = ""
    file_suffixes = ()
    #: a part's header (its value class) tells the databases apart
    discovery_reads = ((r"data", _HEADER_BYTES), (PART.pattern, _HEADER_BYTES))
    #: the keys are URLs (``url``); else (host names) they are the records' ``doc_id``.
    keys_are_urls: ClassVar[bool] = True

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """Sure for a database folder, its ``current``/``old``, or a part, of this value
        class; 0 for a file."""
        return 0.9 if os.path.isdir(path) and db_parts(path, cls.value_class) else 0.0

    @classmethod
    def discover(cls, path: str, options: Any) -> list[InputFile] | None:
        """One unit per part (its part: ``data``), a part whose header does not read too."""
        found = db_parts(path, cls.value_class, broken=True)  # sniff needs a readable part
        if not found:
            return None
        return [InputFile(os.path.dirname(data) if os.path.basename(data) == "data" else data, rel, meta={"db": cls.db, "part": rel},
                          parts={"data": data}) for rel, data in found]  # fmt: skip

    @classmethod
    def side_files(cls, path: str, units: list[InputFile]) -> list[str]:
        """The ``index`` of every part MapFile (the records come from ``data``)."""
        return part_indexes(units)

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """One metadata record per entry of the part."""
        data = ctx.input.parts.get("data") or os.path.join(ctx.path, "data")
        if not storage.isfile(data) and storage.isfile(ctx.path):
            data = ctx.path
        part = (ctx.input.meta or {}).get("part") or os.path.basename(os.path.dirname(data))
        yield from warcinfo_records(data, self.name)  # the warcinfos crawlmill's writer kept
        db = (ctx.input.meta or {}).get("db", self.db)
        expected = (
            WEBGRAPH.get(db.split("/")[-1], self.value_class) if "/" in db else self.value_class
        )
        damage = part_class_damage(data, expected, self.name) if expected else None
        if damage is not None:
            ctx.report_damage(damage)
            return
        for item in iter_part(ctx, data):
            fields = self.fields(item)
            nutch = {"db": db, "part": part, **fields}
            payload = as_json(fields)
            entry = item.entry
            url, doc_id = (item.url, None) if self.keys_are_urls else (None, item.url)
            yield Record(
                kind=RecordKind.METADATA, url=url, doc_id=doc_id, payload=payload,
                content_type="application/json", charset="utf-8", extras={"nutch": nutch},
                source=Provenance(data, entry.offset, entry.length if entry.block is None else None,
                                  self.name, OffsetSpace.FILE),
            )  # fmt: skip

    def fields(self, item: NutchEntry) -> dict[str, Any]:
        """The value's fields as plain data."""
        raise NotImplementedError


class NutchCrawlDbReader(_DbReader):
    """Nutch CrawlDB: one metadata record per URL (status, fetch time, score, signature...)."""

    name = "nutch-crawldb"
    value_class = CRAWL_DATUM
    db = "crawldb"

    def fields(self, item: NutchEntry) -> dict[str, Any]:
        """``{"crawl_datum": ...}`` with the status name and dates."""
        value = item.value
        assert isinstance(value, CrawlDatum)
        return {"crawl_datum": datum_plain(value)}


class NutchLinkDbReader(_DbReader):
    """Nutch LinkDB: one metadata record per URL with the links to it (source URL, anchor)."""

    name = "nutch-linkdb"
    value_class = INLINKS
    db = "linkdb"

    def fields(self, item: NutchEntry) -> dict[str, Any]:
        """``{"inlinks": ...}`` (the value with its layout)."""
        value = item.value
        assert isinstance(value, Inlinks)
        return {"inlinks": to_plain(value)}


class NutchHostDbReader(_DbReader):
    """Nutch host db (``hostdb/current``): one metadata record per host (``doc_id`` the host
    name; no URL), its ``HostDatum`` (score, last check, homepage, fetch counts, metadata)."""

    name = "nutch-hostdb"
    value_class = HOST_DATUM
    db = "hostdb"
    keys_are_urls = False

    def fields(self, item: NutchEntry) -> dict[str, Any]:
        """``{"host_datum": ...}``."""
        return {"host_datum": to_plain(item.value)}


#: the web graph's folders and the value class of each (ScoringWebGraph's ``WebGraph``).
WEBGRAPH = {"outlinks": LINK_DATUM, "inlinks": LINK_DATUM, "nodes": NODE, "loops": LOOP_SET}


class NutchWebGraphReader(_DbReader):
    """Nutch web graph (``webgraph/{outlinks,inlinks,nodes,loops}/current``): one metadata
    record per entry (``extras["nutch"]["db"]`` ``webgraph/outlinks``...): a ``LinkDatum``
    (outlinks, inlinks: several entries per URL), a ``Node``, or a ``LoopSet``."""

    name = "nutch-webgraph"
    db = "webgraph"

    @classmethod
    def _parts(cls, path: str, broken: bool = False) -> list[tuple[str, str, str]]:
        path = os.path.abspath(path)
        found = []
        for sub, value_class in WEBGRAPH.items():
            if os.path.basename(path) == sub:  # one of the graph's folders
                return [(sub, rel, data) for rel, data in db_parts(path, value_class, broken)]
            folder = os.path.join(path, sub)
            if os.path.isdir(folder):
                found += [(sub, rel, data) for rel, data in db_parts(folder, value_class, broken)]
        return found

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """Sure for a web graph folder or one of its folders; 0 for a file."""
        return 0.9 if os.path.isdir(path) and cls._parts(path) else 0.0

    @classmethod
    def discover(cls, path: str, options: Any) -> list[InputFile] | None:
        """One unit per part of each graph folder (a part whose header does not read too)."""
        found = cls._parts(path, broken=True)  # sniff needs a readable part
        if not found:
            return None
        return [InputFile(os.path.dirname(data), rel, meta={"db": f"webgraph/{sub}", "part": rel},
                          parts={"data": data}) for sub, rel, data in found]  # fmt: skip

    def fields(self, item: NutchEntry) -> dict[str, Any]:
        """``{"link_datum" | "node" | "loop_set": ...}``."""
        key = {LINK_DATUM: "link_datum", NODE: "node", LOOP_SET: "loop_set"}[item.value_class]
        return {key: to_plain(item.value)}


@hookimpl
def crawlmill_register_readers(register):
    """Register ``nutch-crawldb``, ``nutch-linkdb``, ``nutch-hostdb``, ``nutch-webgraph``."""
    register(NutchCrawlDbReader)
    register(NutchLinkDbReader)
    register(NutchHostDbReader)
    register(NutchWebGraphReader)
