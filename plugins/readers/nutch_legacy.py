"""``nutch-legacy``: a pre-Hadoop Nutch (0.4-0.7) segment read as one collection unit.

A segment folder holds one ArrayFile (``data`` + ``index``) per subdirectory
(:mod:`crawlmill.formats.hadoop.nutch_legacy`; docs/formats/nutch-legacy.md):

* Nutch 0.5-0.7: ``fetchlist/`` (FetchListEntry), ``fetcher/`` (FetcherOutput; ``fetcher_output/``
  when fetched with ``-noParsing``), ``content/`` (Content), ``parse_text/`` (ParseText),
  ``parse_data/`` (ParseData);
* Nutch 0.4: ``fetchlist/``, ``fetcher/``, ``fetcher_content/`` (FetcherContent),
  ``fetcher_text/`` (FetcherText).

Class names are the ``WritableName`` aliases or full names of either package tree
(``net.nutch.*``, ``org.apache.nutch.*``). :meth:`NutchLegacyReader.discover` makes one unit per
segment (a folder of segments gives one per segment), its parts the ``data``/``index`` files
present. The Fetcher appended the n-th entry of ``fetcher/``, ``content/``, ``parse_text/`` and
``parse_data/`` under one lock, so those files are joined by their record number (the
``LongWritable`` key); ``fetchlist/`` is in fetchlist order, not fetch order (threads), and
joins only when there is no ``fetcher/`` to take the FetchListEntry from (and only when its URL
is the content's).

One Record per record number of a fetch file (``fetcher/``, ``content/``; for a segment with
neither, ``fetchlist/``):

* ``url`` the page URL (FetchListEntry, else Content); ``date`` the fetch date;
* ``http_head``: Nutch kept the response headers (Content metadata) but not the status line.
  The 0.4-0.7 HTTP plugins stored a Content only for a 200 response, so for an ``http(s)`` URL
  with headers and a success status (or none known) the head is rebuilt as ``HTTP/1.0 200
  OK`` plus the headers in file order, with ``Content-Length``/``Transfer-Encoding``/
  ``Content-Encoding`` that do not describe the stored (decoded) bytes renamed
  ``X-Crawler-<name>`` and a true ``Content-Length`` added (as Nutch's own WARC exporter
  does); kind ``response``. Otherwise kind ``resource`` and no head;
* ``payload`` the page bytes; ``content_type``/``charset`` from Content's content type;
  ``text`` from ParseText (0.4: FetcherText); ``outlinks`` from ParseData (0.4: FetcherOutput);
* ``extras["nutch-legacy"]``: the record number, the segment, the page (FetchListEntry and
  Page fields), the protocol status, the Content fields and headers as stored, the parse
  status, title and metadata, and what was rebuilt.

Damage in any file (a cut file, a wrong record length, a bad sync marker) is reported with the
file and offset and reading resumes at the next sync marker (SEQ2, every 10 records; a SEQ1
file of 0.4 has none, so the rest of it is damage); a value its class does not read exactly is
damage too; the other files' entries of that number are still delivered. A header naming a
class this reader does not know makes that file one damage (``unknown-class``) with the name
in the reason. A missing subdirectory or ``index`` is a failed collection check, and the
records are delivered with what is there.
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections.abc import Iterator
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from crawlmill.core import (
    Check,
    Damage,
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
from crawlmill.core.extras import NutchLegacyExtras
from crawlmill.core.record import OffsetSpace
from crawlmill.formats.hadoop import nutch_legacy as nl
from crawlmill.formats.hadoop.sequencefile import Entry, HeaderError, iter_entries, read_header
from crawlmill.formats.http.html_charset import charset_of_content_type

__all__ = ["NutchLegacyReader", "SUBDIRS", "is_segment", "rebuild_head"]

FORMAT = "nutch-legacy"

#: subdirectory -> the class kind its ArrayFile holds.
SUBDIRS: dict[str, str] = {
    "fetchlist": "FetchListEntry",
    "fetcher": "FetcherOutput",
    "fetcher_output": "FetcherOutput",
    "content": "Content",
    "fetcher_content": "FetcherContent",
    "parse_text": "ParseText",
    "fetcher_text": "FetcherText",
    "parse_data": "ParseData",
}
#: the subdirectories a complete segment of each layout has.
LAYOUTS: dict[str, tuple[str, ...]] = {
    "0.4": ("fetchlist", "fetcher", "fetcher_content", "fetcher_text"),
    "no-parsing": ("fetchlist", "fetcher_output", "content"),
    "0.5-0.7": ("fetchlist", "fetcher", "content", "parse_text", "parse_data"),
}
_FETCHER = ("fetcher", "fetcher_output")
_CONTENT = ("content", "fetcher_content")
_HTTP_REASONS = {200: "OK"}


def _seq_start(path: str) -> bool:
    try:
        head = storage.read_start(path, 4)
    except OSError:
        return False
    return len(head) == 4 and head[:3] == b"SEQ" and head[3] in (1, 2)


def is_segment(path: str) -> bool:
    """Whether ``path`` is a Nutch 0.4-0.7 segment: a folder with one of the segment's
    subdirectories holding a ``data`` file of SequenceFile version 1 or 2."""
    if not os.path.isdir(path):
        return False
    return any(_seq_start(os.path.join(path, sub, "data")) for sub in SUBDIRS)


def _segments_in(path: str) -> list[str]:
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return []
    return [os.path.join(path, n) for n in names if is_segment(os.path.join(path, n))]


def _layout(present: set[str]) -> str:
    if present & {"fetcher_content", "fetcher_text"}:
        return "0.4"
    if "fetcher_output" in present:
        return "no-parsing"
    return "0.5-0.7"


class NutchLegacyReader(Reader):
    """Nutch 0.4-0.7 segments (pre-Hadoop ArrayFiles: fetchlist, fetcher, content, parse)."""

    name = FORMAT
    file_suffixes = ()
    #: a segment's ``<sub>/data`` starts a SequenceFile of version 1 or 2 (:func:`is_segment`)
    discovery_reads = ((r"data", 4),)

    class Options(PluginOptions):
        """Options of the ``nutch-legacy`` reader (none)."""

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """Sure for a segment folder (or a folder of segments); 0 for a file."""
        if is_segment(path):
            return 0.9
        if os.path.isdir(path) and _segments_in(path):
            return 0.85
        return 0.0

    @classmethod
    def discover(cls, path: str, options: PluginOptions) -> list[InputFile] | None:
        """One unit per segment (``path`` itself, or each segment in the folder ``path``),
        its parts the ``<sub>/data`` and ``<sub>/index`` files present; ``None`` when
        ``path`` holds no segment."""
        root = os.path.abspath(path)
        if is_segment(root):
            segments, base = [root], os.path.dirname(root)
        else:
            segments, base = _segments_in(root), root
        if not segments:
            return None
        units = []
        for seg in segments:
            parts = {}
            for sub in SUBDIRS:
                for name in ("data", "index"):
                    file = os.path.join(seg, sub, name)
                    if os.path.isfile(file):
                        parts[f"{sub}/{name}"] = file
            units.append(InputFile(seg, os.path.relpath(seg, base), parts=parts,
                                   meta={"segment": os.path.basename(seg)}))  # fmt: skip
        return units

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """The segment's fetched entries, one Record per record number (module docstring)."""
        parts = ctx.input.parts
        seg = ctx.path
        present = {name.split("/")[0] for name in parts if name.endswith("/data")}
        layout = _layout(present)
        for sub in LAYOUTS[layout]:
            where = os.path.join(seg, sub)
            if sub not in present:
                ctx.report_check(Check(where, "present", False,
                                       f"the {layout} segment has no {sub}/data; "
                                       "its records are read without it"))  # fmt: skip
            elif f"{sub}/index" not in parts:
                ctx.report_check(Check(os.path.join(where, "index"), "present", False,
                                       f"{sub}/ has no index (an ArrayFile is data + index)"))  # fmt: skip
        fetcher = next((s for s in _FETCHER if s in present), None)
        joined = [s for s in SUBDIRS if s in present and s != "fetchlist"]
        if "fetchlist" in present and fetcher is None:
            joined.insert(0, "fetchlist")
        streams = {s: _SubFile(ctx, s, parts[f"{s}/data"]) for s in joined}
        if "fetchlist" in present and "fetchlist" not in streams:
            fetchlist = _SubFile(ctx, "fetchlist", parts["fetchlist/data"])
            try:  # read for its damage; the fetcher has its entries
                ctx.count("fetchlist entries", sum(1 for _ in fetchlist))
            finally:
                fetchlist.close()
        meta = {"segment": (ctx.input.meta or {}).get("segment") or os.path.basename(seg),
                "layout": layout}  # fmt: skip
        try:
            for number, group in _join(streams):
                record = self._record(ctx, meta, number, group)
                if record is not None:
                    yield record
        finally:
            for stream in streams.values():
                stream.close()

    def _record(self, ctx: ReadContext, meta: dict[str, Any], number: int,
                group: dict[str, tuple[Any, Entry, str]]) -> Record | None:  # fmt: skip
        fo = _value(group, _FETCHER)
        content = _value(group, _CONTENT)
        fl = group.get("fetchlist", (None,))[0]
        driver = next((s for s in (*_FETCHER, *_CONTENT, "fetchlist") if s in group), None)
        if driver is None:
            names = ", ".join(f"{s}/data at {e.offset}" for s, (_, e, _p) in group.items())
            ctx.report_check(Check(ctx.path, "fetched entry", False,
                                   f"record {number} ({names}) has no fetch entry to join"))  # fmt: skip
            return None
        url = None
        if fo is not None:
            url = fo.entry.page.url
        elif isinstance(content, nl.Content):
            url = content.url
        if fl is not None and url is not None and fl.page.url != url:
            ctx.report_warning("fetchlist-mismatch",
                               f"fetchlist record {number} is {fl.page.url!r}, the content's "
                               f"{url!r}: not joined", group["fetchlist"][1].offset)  # fmt: skip
            fl = None
        entry_of = fo.entry if fo is not None else fl
        if url is None and entry_of is not None:
            url = entry_of.page.url
        extras: NutchLegacyExtras = {**meta, "record": number,  # type: ignore[typeddict-item]
                                  "files": {s: e.offset for s, (_, e, _p) in group.items()}}  # fmt: skip
        if entry_of is not None:
            extras["fetch_list_entry"] = _plain(entry_of)
        code = None
        if fo is not None:
            code = fo.protocol_code
            extras["fetcher_output"] = {
                "version": fo.version, "md5": fo.md5.hex(), "status": fo.status,
                "protocol_status": _plain(fo.protocol_status), "fetch_date": fo.fetch_date,
                "protocol_code": code, "protocol_name": nl.PROTOCOL_CODES.get(code or -1),
            }  # fmt: skip
            if fo.title is not None:
                extras["fetcher_output"]["title"] = fo.title
        payload, ctype, headers = b"", None, []
        if isinstance(content, nl.Content):
            payload = content.content or b""
            ctype = content.content_type or None
            headers = content.metadata
            extras["content"] = {"version": content.version, "url": content.url,
                                 "base": content.base, "content_type": content.content_type,
                                 "metadata": [list(p) for p in content.metadata],
                                 "null": content.content is None}  # fmt: skip
        elif isinstance(content, nl.FetcherContent):
            payload = content.content or b""
            extras["content"] = {"version": content.version, "null": content.content is None}
        text = None
        parse_text = _value(group, ("parse_text", "fetcher_text"))
        if parse_text is not None:
            text = parse_text.text
        outlinks: list[Outlink] = []
        parse = _value(group, ("parse_data",))
        if parse is not None:
            outlinks = [Outlink(o.to_url, o.anchor) for o in parse.outlinks]
            extras["parse_data"] = {"version": parse.version, "title": parse.title,
                                    "status": _plain(parse.status),
                                    "metadata": [list(p) for p in parse.metadata]}  # fmt: skip
        elif fo is not None and fo.outlinks:
            outlinks = [Outlink(o.to_url, o.anchor) for o in fo.outlinks]
        head = None
        succeeded = code is None or code == 1 or (fo is not None and fo.status == 4)
        if headers and succeeded and url and url.lower().startswith(("http://", "https://")):
            head, renamed = rebuild_head(headers, payload)
            extras["head_rebuilt"] = {"status_line": "HTTP/1.0 200 OK", "renamed": renamed}
        date = None
        if fo is not None and fo.fetch_date > 0:
            try:
                date = datetime.fromtimestamp(fo.fetch_date / 1000, UTC)
            except (OverflowError, OSError, ValueError):
                date = None
        _, entry, path = group[driver]
        media = ctype.split(";")[0].strip() or None if ctype else None
        return Record(
            kind=RecordKind.RESPONSE if head is not None else RecordKind.RESOURCE,
            url=url,
            date=date,
            http_head=head,
            payload=payload,
            content_type=media,
            charset=charset_of_content_type(ctype) if ctype else None,
            text=text,
            outlinks=outlinks,
            extras={FORMAT: extras},
            source=Provenance(path, entry.offset, entry.length, FORMAT, OffsetSpace.FILE),
        )


def rebuild_head(headers: list[tuple[str, str]], payload: bytes) -> tuple[bytes, list[str]]:
    """An HTTP head ``HTTP/1.0 200 OK`` + ``headers`` (the protocol's Content metadata, in
    order) for the stored, decoded ``payload``, and the header names renamed
    ``X-Crawler-<name>``: a ``Transfer-Encoding`` (the body was de-chunked), a
    ``Content-Encoding`` the bytes do not carry (gzip without the gzip magic), a
    ``Content-Length`` other than the payload's (a true one is added)."""
    lines = [b"HTTP/1.0 200 OK"]
    renamed: list[str] = []
    has_length = False
    for name, value in headers:
        low = name.strip().lower()
        value = value.replace("\r", " ").replace("\n", " ")
        wrong = (
            low == "transfer-encoding"
            or low == "content-encoding"
            and value.strip().lower() in ("gzip", "x-gzip")
            and payload[:2] != b"\x1f\x8b"
            or low == "content-length"
            and value.strip() != str(len(payload))
        )
        if wrong:
            renamed.append(name)
            name = "X-Crawler-" + name
        elif low == "content-length":
            has_length = True
        lines.append(f"{name}: {value}".encode("utf-8", "surrogateescape"))
    framing = ("content-length", "transfer-encoding")
    if not has_length and any(n.strip().lower() in framing for n in renamed):
        lines.append(b"Content-Length: %d" % len(payload))
    return b"\r\n".join(lines) + b"\r\n\r\n", renamed


def _value(group: dict[str, tuple[Any, Entry, str]], subs: tuple[str, ...]) -> Any:
    for sub in subs:
        if sub in group:
            return group[sub][0]
    return None


def _plain(value: Any) -> Any:
    if value is None:
        return None
    data = asdict(value)
    return _bytes_hex(data)


def _bytes_hex(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _bytes_hex(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_bytes_hex(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    return value


def _join(streams: dict[str, _SubFile]) -> Iterator[tuple[int, dict[str, tuple[Any, Entry, str]]]]:
    """Merge the streams by record number (each ascends): ``(number, {sub: item})``."""
    heads: dict[str, tuple[int, Any, Entry, str]] = {}
    for sub, stream in streams.items():
        item = next(stream, None)
        if item is not None:
            heads[sub] = item
    while heads:
        number = min(item[0] for item in heads.values())
        group = {}
        for sub in [s for s, item in heads.items() if item[0] == number]:
            _, value, entry, path = heads[sub]
            group[sub] = (value, entry, path)
            item = next(streams[sub], None)
            if item is None:
                del heads[sub]
            else:
                heads[sub] = item
        yield number, group


class _SubFile:
    """The entries of one ArrayFile ``data`` file: ``(number, value, entry, path)`` in
    ascending record number; damage reported to ``ctx`` on the way."""

    def __init__(self, ctx: ReadContext, sub: str, path: str) -> None:
        self.ctx, self.sub, self.path = ctx, sub, path
        self._buffers = contextlib.ExitStack()  # the file's buffer, closed by close()
        self._items = self._iter()

    def __iter__(self) -> _SubFile:
        return self

    def __next__(self) -> tuple[int, Any, Entry, str]:
        return next(self._items)

    def close(self) -> None:
        """Release the file."""
        self._items.close()
        self._buffers.close()

    def _damage(self, offset: int, reason: str, length: int | None, data: bytes, code: str) -> None:
        self.ctx.report_damage(
            Damage(self.path, offset, f"{self.sub}/data: {reason}", length, data, code)
        )

    def _iter(self) -> Iterator[tuple[int, Any, Entry, str]]:
        limits = self.ctx.limits
        data = self._buffers.enter_context(storage.mapped(self.path))
        size = len(data)
        if size == 0:
            self._damage(0, "empty file: no SequenceFile header", 0, b"", "truncated-record")
            return
        chunk = limits.max_record_bytes
        try:
            header = read_header(data, limits.max_header_bytes)
        except HeaderError as exc:
            self._damage(0, f"not a SequenceFile: {exc}", size, bytes(data[:chunk]), exc.code)
            return
        expected = SUBDIRS[self.sub]
        problem = None
        if nl.class_kind(header.value_class) is None:
            known = ", ".join(sorted(k for k in nl.CLASSES if "." not in k))
            problem = (f"value class {header.value_class!r} is no Nutch 0.4-0.7 class this "
                       f"reader knows ({known}, or their net.nutch./org.apache.nutch. names)")  # fmt: skip
        elif nl.class_kind(header.value_class) != expected:
            problem = f"value class {header.value_class!r}: {self.sub}/ holds {expected}"
        elif nl.class_kind(header.key_class) != "long":
            problem = f"key class {header.key_class!r} is not long (LongWritable)"
        if problem is not None:
            self._damage(0, problem, size, bytes(data[:chunk]), "unknown-class")
            return
        limit = min(limits.max_record_bytes, limits.max_decompressed_bytes)

        def check(key: bytes, value: bytes) -> bool:
            try:
                nl.decode_value(expected, value, limit)
            except nl.LegacyError:
                return False
            return len(key) == 8

        last = -1
        for item in iter_entries(data, header, max_record_bytes=limits.max_record_bytes,
                                 max_decompressed_bytes=limits.max_decompressed_bytes,
                                 check=check):  # fmt: skip
            if not isinstance(item, Entry):
                self._damage(item.offset, item.reason, item.length, item.data, item.code)
                continue
            raw = bytes(data[item.offset : item.offset + min(item.length, chunk)])
            if len(item.key) != 8:
                self._damage(item.offset, f"key of {len(item.key)} bytes is no LongWritable",
                             item.length, raw, "not-a-record")  # fmt: skip
                continue
            number = struct.unpack(">q", item.key)[0]
            if number <= last:
                self._damage(item.offset, f"record number {number} after {last}: an "
                             "ArrayFile's numbers ascend", item.length, raw, "not-a-record")  # fmt: skip
                continue
            try:
                value = nl.decode_value(expected, item.value, limit)
            except nl.LegacyError as exc:
                self._damage(item.offset, f"record {number} is no {expected}: {exc}",
                             item.length, raw, "not-a-record")  # fmt: skip
                continue
            last = number
            yield number, value, item, self.path


@hookimpl
def crawlmill_register_readers(register) -> None:
    """Register ``nutch-legacy``."""
    register(NutchLegacyReader)
