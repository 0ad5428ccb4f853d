"""``nutch-segment``: a Nutch 1.x (and 0.8/0.9) segment directory read as one collection unit,
one Record per URL (docs/formats/nutch.md maps every field).

A segment ``<timestamp>/`` holds ``content``, ``crawl_fetch``, ``parse_data``, ``parse_text``
(MapFiles, sorted by URL), ``crawl_generate`` and ``crawl_parse`` (SequenceFiles, not sorted
by URL), each as ``part-NNNNN`` / ``part-r-NNNNN``; a URL is in the same part number in every
subdirectory. Parts are read part number by part number: the MapFiles are merge-joined by key
as they stream (memory: one entry per subdirectory); ``crawl_generate`` and the page datums of
``crawl_parse`` (signature, parse meta; not the outlink datums), which are not sorted, are
sorted per part within ``spill_memory`` (sorted runs in a temporary folder past it, merged
into the join: :mod:`.nutch_spill`), so memory stays flat whatever a part's size; URLs only
they hold (generated, not fetched) come after the part's other URLs, in key order. A MapFile
part whose keys are not sorted (checked before the join from the record framing and keys
alone) is reported (``nutch-part-unsorted``) and sorted the same way; a URL a part holds twice gives a record per entry (``nutch-duplicate-url``). A ``segments/`` folder is one unit per segment.

Per URL:

* with content: ``response`` with ``http_head`` (``_response.headers_`` when Nutch kept it,
  else rebuilt from the header values in the Content metadata under a status line from the
  protocol status; headers wrong for the decoded body renamed ``X-Crawler-*``, see
  :mod:`crawlmill.formats.hadoop.nutch_http`), ``payload`` the content bytes (``resource``
  without a head), ``date`` the crawl_fetch fetch time (``date_raw`` the original, invalid date
  crawlmill's writer kept in ``_crawlmill.original_date_``), ``ip`` ``_ip_``, ``text`` the
  parse text, ``outlinks`` the parse_data outlinks, ``extras["neutral"]["truncated"]`` when
  ``http.content.truncated`` says so;
* without content (a failed fetch, a URL generated but not fetched): ``metadata`` whose
  payload is the URL's datums as JSON;
* ``extras["nutch"]``: the segment and part, every datum of the URL (crawl_generate,
  crawl_fetch, crawl_parse) with its status name, the Content fields and metadata, the
  ParseData and ParseText fields, and how the head was made.

Outlink datums of ``crawl_parse`` (status ``linked``, keyed by the link target) are counted
(``linked datums``), or delivered as ``metadata`` records with ``linked: true``.
"""

from __future__ import annotations

import contextlib
import heapq
import os
from collections.abc import Iterator
from typing import Any

from crawlmill.core import (
    InputFile,
    Outlink,
    PluginOptions,
    Provenance,
    ReadContext,
    Reader,
    Record,
    RecordKind,
    hookimpl,
    storage,
)
from crawlmill.core.record import OffsetSpace
from crawlmill.formats.hadoop.nutch import to_plain
from crawlmill.formats.hadoop.nutch_content import Content
from crawlmill.formats.hadoop.nutch_crawldatum import OLD_STATUS, CrawlDatum
from crawlmill.formats.hadoop.nutch_http import fix_head, head_from_metadata, status_of_protocol
from crawlmill.formats.hadoop.nutch_io import ProtocolStatus
from crawlmill.formats.hadoop.nutch_parse import ParseData, ParseText
from crawlmill.formats.hadoop.nutch_write import AS_SENT, ORIGINAL_DATE
from crawlmill.formats.http.head import content_type as http_content_type
from crawlmill.formats.http.html_charset import charset_of_content_type
from pydantic import Field

from .nutch_parts import (
    NutchEntry,
    as_json,
    datum_plain,
    iter_part,
    keys_sorted,
    millis,
    part_files,
    part_indexes,
)
from .nutch_spill import SortedEntries, pack, unpack
from .nutch_warcinfo import warcinfo_records

__all__ = ["NutchSegmentReader", "SUBDIRS", "is_segment"]

#: the subdirectories of a 1.x segment; the first four are MapFiles (sorted by URL).
SUBDIRS = ("content", "crawl_fetch", "parse_data", "parse_text", "crawl_generate", "crawl_parse")
SORTED = SUBDIRS[:4]
LINKED = 0x43
OLD_LINKED = 4


def is_segment(path: str) -> bool:
    """Whether ``path`` is a segment folder: at least one subdirectory of :data:`SUBDIRS`
    holding a ``part-*``."""
    return os.path.isdir(path) and any(part_files(os.path.join(path, sub)) for sub in SUBDIRS)


def _segments(path: str) -> list[str]:
    if is_segment(path):
        return [path]
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return []
    return [os.path.join(path, n) for n in names if is_segment(os.path.join(path, n))]


class NutchSegmentReader(Reader):
    """Nutch 1.x / 0.8-0.9 segments: content, fetch, parse joined per URL."""

    name = "nutch-segment"
    file_suffixes = ()

    class Options(PluginOptions):
        linked: bool = Field(
            False,
            description="also deliver crawl_parse's outlink datums (status linked, keyed by "
            "the link target) as metadata records; by default they are counted",
        )
        spill_memory: int = Field(
            8 * 1024 * 1024, ge=1024,
            description="bytes of crawl_generate and crawl_parse entries (and of a MapFile "
            "part whose keys are not sorted) held per part for the join; past it they are "
            "sorted to temporary run files and merged, so memory stays flat",
        )  # fmt: skip
        spill_dir: str | None = Field(
            None, description="folder for those temporary files (default: the system's "
            "temporary folder, $TMPDIR); they are removed after each part",
        )  # fmt: skip

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """Sure for a segment folder or a folder of segments; 0 for a file."""
        return 0.9 if os.path.isdir(path) and _segments(path) else 0.0

    @classmethod
    def discover(cls, path: str, options: PluginOptions) -> list[InputFile] | None:
        """One unit per segment (its parts: ``<subdir>/<part>`` -> data file)."""
        segments = _segments(path)
        if not segments:
            return None
        root = os.path.abspath(path)
        base = os.path.dirname(root) if is_segment(path) else root
        units = []
        for seg in segments:
            seg = os.path.abspath(seg)
            parts = {
                f"{sub}/{name}": data
                for sub in SUBDIRS
                for name, data in part_files(os.path.join(seg, sub)).items()
            }
            rel = os.path.relpath(seg, base)
            units.append(InputFile(seg, rel, meta={"segment": os.path.basename(seg)}, parts=parts))
        return units

    @classmethod
    def side_files(cls, path: str, units: list[InputFile]) -> list[str]:
        """The ``index`` of every MapFile part (the join reads the ``data`` in key order)."""
        return part_indexes(units)

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """Every URL of the segment, part by part (see the module docstring)."""
        parts = ctx.input.parts or {
            f"{sub}/{name}": data
            for sub in SUBDIRS
            for name, data in part_files(os.path.join(ctx.path, sub)).items()
        }
        by_part: dict[str, dict[str, str]] = {}
        for name, data in parts.items():
            sub, part = name.split("/", 1)
            by_part.setdefault(_number(part), {})[sub] = data
        segment = (ctx.input.meta or {}).get("segment") or os.path.basename(ctx.path.rstrip("/"))
        for number in sorted(by_part):
            yield from self._part(ctx, segment, number, by_part[number])

    def _part(self, ctx: ReadContext, segment: str, number: str,
              files: dict[str, str]) -> Iterator[Record]:  # fmt: skip
        o = self.options
        first = next((files[sub] for sub in SUBDIRS if sub in files), None)
        if first is not None:  # the warcinfos crawlmill's writer kept (part 0)
            yield from warcinfo_records(first, self.name)
        with contextlib.ExitStack() as buffers, \
                SortedEntries(o.spill_memory, o.spill_dir) as held, \
                SortedEntries(o.spill_memory, o.spill_dir) as rest:  # fmt: skip
            streams: list[Iterator[tuple[bytes, str, NutchEntry, bool]]] = []
            classes: dict[int, tuple[str, str, bool]] = {}
            for i, sub in enumerate(SUBDIRS):
                if sub not in files:
                    continue
                path = files[sub]
                # a remote part is fetched once for the order check and the join (a local
                # one is mapped by each, as it costs nothing)
                remote = storage.is_remote(path)
                data = buffers.enter_context(storage.mapped(path)) if remote else None
                if sub in SORTED and keys_sorted(path, data) is not False:
                    streams.append(_keyed(ctx, sub, iter_part(ctx, path, data)))
                    continue
                if sub in SORTED:
                    ctx.report_warning(
                        "nutch-part-unsorted",
                        f"{path}: keys are not sorted (not a MapFile as Nutch writes it); "
                        "its entries are sorted (spilled to disk past spill_memory) for the join",
                    )
                for item in iter_part(ctx, path, data):
                    if sub == "crawl_parse" and _linked(item.value):
                        if o.linked:
                            yield self._linked(ctx, segment, number, item, path)
                        else:
                            ctx.count("linked datums", 1)
                        continue
                    classes.setdefault(i, (path, item.value_class, item.legacy))
                    held.add(item.key, i, pack(item))
            streams.append(_unpacked(held.sorted(), classes, streamed=False))
            for key, streamed, group in _grouped(heapq.merge(*streams, key=lambda t: t[0])):
                if streamed:
                    yield from self._pages(ctx, segment, number, key, group)
                    continue
                for sub, items in group.items():  # only in the unsorted subdirectories:
                    for item in items:  # generated, not fetched; these URLs come last
                        rest.add(key, SUBDIRS.index(sub), pack(item))
            for key, _, group in _grouped(_unpacked(rest.sorted(), classes, streamed=False)):
                yield from self._pages(ctx, segment, number, key, group)

    def _pages(self, ctx: ReadContext, segment: str, number: str, key: bytes,
               group: dict[str, list[NutchEntry]]) -> Iterator[Record]:  # fmt: skip
        """The record of one URL (``group``: its entries per subdirectory); a URL a MapFile
        part holds more than once (not what Nutch writes) gives one record per
        content/parse entry, with a warning, so none is lost. A single content (and parse)
        with several crawl_fetch datums goes with the ``fetch_success`` datum (else the last);
        each other datum is a ``metadata`` record."""
        extra = max(len(group.get(sub, ())) for sub in SORTED)
        if extra > 1:
            first = next(iter(group.values()))[0]
            ctx.report_warning(
                "nutch-duplicate-url",
                f"{first.url}: {extra} entries in one part of {', '.join(sorted(group))}: "
                "one record each",
                first.entry.offset,
            )
        fetches = group.get("crawl_fetch", [])
        home = _home_fetch(fetches)
        for i in range(max(extra, 1)):
            one = dict(group)
            for sub in SORTED:
                items = group.get(sub, ())
                if len(items) > 1:
                    one[sub] = items[i : i + 1]
                    if not one[sub]:
                        del one[sub]
                elif items and sub != "crawl_fetch" and len(fetches) > 1 and i != home:
                    # one page, several fetches (a redirect, then the page): the page goes
                    # with its own fetch only; the others are metadata records of their
                    # datums, not copies of the page under another status line
                    del one[sub]
            yield self._page(ctx, segment, number, one)

    def _page(self, ctx: ReadContext, segment: str, number: str,
              group: dict[str, list[NutchEntry]]) -> Record:  # fmt: skip
        first = next(iter(group.values()))[0]
        url = first.url
        nutch: dict[str, Any] = {"segment": segment, "part": number}
        for sub in ("crawl_generate", "crawl_fetch", "crawl_parse"):
            if sub in group:
                nutch[sub] = [datum_plain(e.value) for e in group[sub]]
        fetch = _first(group, "crawl_fetch")
        content = _first(group, "content")
        parse_data = _first(group, "parse_data")
        parse_text = _first(group, "parse_text")
        date = millis(fetch.fetch_time) if isinstance(fetch, CrawlDatum) else None
        outlinks: list[Outlink] = []
        if isinstance(parse_data, ParseData):
            nutch["parse_data"] = to_plain(parse_data)
            outlinks = [Outlink(o.to_url, o.anchor) for o in parse_data.outlinks]
        text = None
        if isinstance(parse_text, ParseText):
            text = parse_text.text
            nutch["parse_text_version"] = parse_text.version
        source_entry = group.get("content", group.get("crawl_fetch", [first]))[0]
        source = Provenance(source_entry.path, source_entry.entry.offset,
                            source_entry.entry.length if source_entry.entry.block is None else None,
                            "nutch-segment", OffsetSpace.FILE)  # fmt: skip
        if not isinstance(content, Content):
            payload = as_json(nutch)
            return Record(kind=RecordKind.METADATA, url=url, date=date, payload=payload,
                          content_type="application/json", charset="utf-8", text=text,
                          outlinks=outlinks, extras={"nutch": nutch}, source=source)  # fmt: skip
        meta = content.metadata
        nutch["content"] = {
            "url": content.url,
            "base": content.base,
            "content_type": content.content_type,
            "version": content.version,
            "metadata": to_plain(meta),
        }
        if date is None:
            for name in ("nutch.fetch.time", "_ftk_"):
                value = meta.get(name)
                if value and value.strip().isdigit():
                    date = millis(int(value))
                    break
        head, how = self._head(content, fetch)
        nutch["head"] = how
        extras: dict[str, Any] = {"nutch": nutch}
        if (meta.get("http.content.truncated") or "").strip().lower() == "true":
            extras["neutral"] = {"truncated": True}
        charset = None
        media = content.content_type or None
        if head is not None:
            head_media, charset = http_content_type(head)
            media = media or head_media
        elif content.content_type:
            charset = charset_of_content_type(content.content_type)
        return Record(
            kind=RecordKind.RESPONSE if head is not None else RecordKind.RESOURCE,
            url=url, date=date, date_raw=meta.get(ORIGINAL_DATE) or None,
            http_head=head, payload=content.content,
            content_type=media.split(";")[0].strip() if media else None, charset=charset,
            ip=meta.get("_ip_"), text=text, outlinks=outlinks, extras=extras, source=source,
        )  # fmt: skip

    @staticmethod
    def _head(content: Content, fetch: Any) -> tuple[bytes | None, dict[str, Any]]:
        stored = content.metadata.get("_response.headers_")
        if stored and stored.startswith("HTTP/") and content.metadata.get(AS_SENT) == "as-sent":
            # crawlmill's writer kept the body as sent: the verbatim head is true for it
            return stored.encode("utf-8", "surrogateescape"), {"from": AS_SENT, "renamed": []}
        if stored and stored.startswith("HTTP/"):
            head, renamed = fix_head(stored.encode("utf-8", "surrogateescape"), content.content)
            return head, {"from": "_response.headers_", "renamed": renamed}
        code = pst = status = None
        if isinstance(fetch, CrawlDatum):
            status = fetch.status if fetch.version >= 5 else OLD_STATUS.get(fetch.status)
            if fetch.metadata is not None:
                for _, k, _, v in fetch.metadata.entries:
                    name = k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k)
                    if name == "nutch.protocol.code":
                        code = v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
                    elif name == "_pst_" and isinstance(v, ProtocolStatus):
                        pst = v.code
        found = status_of_protocol(code, pst, status)
        if found is None:
            return None, {"from": None, "reason": "no HTTP status known for this fetch"}
        head, renamed = fix_head(head_from_metadata(found[0], content.metadata.entries),
                                 content.content)  # fmt: skip
        return head, {"from": "metadata", "status_from": found[1], "renamed": renamed}

    def _linked(self, ctx: ReadContext, segment: str, number: str, item: NutchEntry,
                path: str) -> Record:  # fmt: skip
        nutch = {"segment": segment, "part": number, "linked": True,
                 "crawl_parse": [datum_plain(item.value)]}  # fmt: skip
        payload = as_json(nutch)
        return Record(kind=RecordKind.METADATA, url=item.url, payload=payload,
                      content_type="application/json", charset="utf-8", extras={"nutch": nutch},
                      source=Provenance(path, item.entry.offset, item.entry.length,
                                        "nutch-segment", OffsetSpace.FILE))  # fmt: skip


def _keyed(ctx: ReadContext, sub: str,
           items: Iterator[NutchEntry]) -> Iterator[tuple[bytes, str, NutchEntry, bool]]:  # fmt: skip
    """The entries of a sorted part with their keys; a key smaller than the one before
    (a BLOCK part whose order was not checked first) is reported, as the join misses it."""
    last = None
    for item in items:
        if last is not None and item.key < last:
            ctx.report_warning(
                "nutch-part-unsorted",
                f"{item.path}: key at byte {item.entry.offset} is smaller than the one before: "
                "the URL may be split over two records",
                item.entry.offset,
            )
        last = item.key
        yield item.key, sub, item, True


def _unpacked(entries: Iterator[tuple[bytes, int, int, bytes]],
              classes: dict[int, tuple[str, str, bool]], streamed: bool,
              ) -> Iterator[tuple[bytes, str, NutchEntry, bool]]:  # fmt: skip
    """Sorted spilled entries as the join's items (``classes``: per subdirectory number its
    file, value class and layout, to decode the values again)."""
    for key, i, _, blob in entries:
        path, value_class, legacy = classes[i]
        yield key, SUBDIRS[i], unpack(key, blob, path, value_class, legacy), streamed


def _grouped(items: Iterator[tuple[bytes, str, NutchEntry, bool]],
             ) -> Iterator[tuple[bytes, bool, dict[str, list[NutchEntry]]]]:  # fmt: skip
    """Consecutive items of one key as ``(key, any item from a sorted stream, entries per
    subdirectory in arrival order)``."""
    group: dict[str, list[NutchEntry]] = {}
    current: bytes | None = None
    streamed = False
    for key, sub, item, from_stream in items:
        if current is not None and key != current:
            yield current, streamed, group
            group, streamed = {}, False
        current = key
        streamed = streamed or from_stream
        group.setdefault(sub, []).append(item)
    if current is not None:
        yield current, streamed, group


def _linked(value: Any) -> bool:
    if not isinstance(value, CrawlDatum):
        return False
    return value.status == (LINKED if value.version >= 5 else OLD_LINKED)


def _home_fetch(fetches: list[NutchEntry]) -> int:
    """Which of a URL's crawl_fetch datums its single content belongs to: the first
    ``fetch_success`` one, else the last (a redirect is fetched before the page)."""
    for j, item in enumerate(fetches):
        if isinstance(item.value, CrawlDatum) and item.value.status_name == "fetch_success":
            return j
    return len(fetches) - 1


def _first(group: dict[str, list[NutchEntry]], sub: str) -> Any:
    items = group.get(sub)
    return items[0].value if items else None


def _number(part: str) -> str:
    return part.rsplit("-", 1)[-1]


@hookimpl
def crawlmill_register_readers(register):
    """Register ``nutch-segment``."""
    register(NutchSegmentReader)
