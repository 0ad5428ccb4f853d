"""The ``warc`` reader: WARC 0.17 to 1.1, plain, gzip (per record or whole file), zstd, LZ4 or bzip2.

Framing and decompression live in :mod:`crawlmill.formats.warc.framer` and
:mod:`crawlmill.formats.codecs.compression`; this module maps framed records onto
:class:`~crawlmill.core.record.Record` (see that module's docstring for the fields) and turns
framing problems into ``ctx.report_damage`` and repaired quirks into ``ctx.report_warning``
(or into damage with ``strict: true``).

``extras["warc"]`` of every record holds what a writer needs to reproduce the input exactly:
``version``, ``headers`` (``(name, value)`` byte pairs in file order), ``raw_header`` (version
line through the blank line), ``separator`` (bytes between block and next record),
``cl_includes_separator`` (ClueWeb09 convention: ``payload`` then excludes the trailing blank
lines, which are the ``separator``), ``line_ending``, and ``member``: true when ``source``
gives the compressed offset/length of the gzip member(s) (or zstd frames) holding exactly this
record, false when it gives the record's offset/length in the decompressed stream (plain
files, whole-file gzip, records sharing a member). For an unmodified record,
``raw_header + (http_head or b"") + payload + separator`` are the record's decompressed bytes.
``truncated`` (true) marks a record cut by the end of the file: it is delivered partial, with
``modified`` set (its ``Content-Length`` and digests no longer apply; the WARC writer adds
``WARC-Truncated: length``), and its bytes are also reported as damage.

Damage is reported in the file's own offset space: file offsets and bytes for plain files; for
compressed files the compressed offset and length of the member(s) holding it, with their
compressed bytes read back from the file (bounded by ``max_record_bytes``). The container is
chosen by :func:`~crawlmill.formats.warc.framer.locate_start`, not by the first bytes alone.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from crawlmill.core import (
    Damage,
    Provenance,
    ReadContext,
    Reader,
    Record,
    RecordKind,
    hookimpl,
    storage,
)
from crawlmill.core.naming import named_with
from crawlmill.core.options import Ge, Le, LightOptions, option
from crawlmill.core.record import OffsetSpace
from crawlmill.formats.codecs.compression import (
    HeldMembers,
    MemberSource,
    compression_of,
    iter_pieces,
    member_bound,
    prefetch,
)
from crawlmill.formats.codecs.table import CODECS
from crawlmill.formats.http.head import head_and_content_type, media_type
from crawlmill.formats.notes import Note
from crawlmill.formats.warc.fields import (
    ID_FIELD_NAMES,
    ID_FIELDS,
    derive_warc_date,
    parse_warc_date,
)
from crawlmill.formats.warc.framer import (
    KNOWN_VERSIONS,
    SCAN_START_BYTES,
    DamagedRange,
    FramedRecord,
    WarcFramer,
    later_warc_member,
    locate_start,
)
from crawlmill.formats.warc.source_key import source_key_from_fields

__all__ = ["WarcReader", "parse_warc_date", "warc_to_record"]

#: compressed inputs larger than this are inflated in a background thread.
PREFETCH_MIN_BYTES = 1 << 20
#: a damaged range inside a member larger than the range has that member's compressed bytes
#: quarantined only up to this size (a whole-file gzip is not copied for each damage).
SHARED_MEMBER_COPY = 1 << 20

#: the offset space of a record not alone in a member, by whether the file is compressed.
_SPACE = {False: OffsetSpace.FILE, True: OffsetSpace.STREAM}
_KINDS = {kind.value: kind for kind in RecordKind}
_KIND_OF = {kind.value.encode(): kind for kind in RecordKind}
#: a version line in any mix of case: the framer reads "wARC/1.0" (a flipped case bit) as a
#: record with a damaged version line, so detection claims it too (as framer.locate_start does)
_SNIFF = re.compile(rb"(?:\r?\n)*([Ww][Aa][Rr][Cc])/(\d+\.\d+)\r{0,2}\n")
_REQUEST_LINE = re.compile(rb"[A-Z]+ \S+ HTTP/\d")


class WarcReader(Reader):
    """Read WARC files (0.17-1.1; plain, gzip per record or whole-file, zstd, LZ4) byte-exactly."""

    name = "warc"
    file_suffixes = (".warc", ".wet", ".wat")  # Common Crawl's .warc.wet/.warc.wat are WARC

    @dataclass(frozen=True, kw_only=True)
    class Options(LightOptions):
        """Options of the WARC reader."""

        strict: bool = option(
            False,
            description="treat every repaired deviation (LF endings, Content-Length counting "
            "the separator, invalid dates, bracketed URIs...) as damage instead of a warning",
        )
        inflate_threads: Annotated[int, Ge(0), Le(64)] = option(
            2,
            description="worker threads that inflate the gzip members of files over 1 MiB "
            "ahead of the parser, at most one less than the CPUs available (the parser "
            "needs one and inflates queued members itself while it would wait); 0: no "
            "thread, the parser inflates runs of members as it needs them (the least CPU "
            "time, the most wall time)",
        )
        parse_http: bool = option(
            True,
            description="split application/http blocks into http_head and payload "
            "(false: payload is the whole block)",
        )

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """0.95 for a known WARC version line at the start of the decompressed bytes, less for
        odd ones; 0.6 for one whose magic mixes cases (a damaged byte); past damage in the
        first bytes, 0.6 when the file's first good member or
        first version line is a WARC record; 0.3 for an empty head (nothing decompressed), or
        one that is only the first bytes of a version line or of a codec's magic (a file cut
        there), of a file named like a WARC (:func:`~crawlmill.core.naming.named_with`); else 0."""
        m = _SNIFF.match(head)
        if m is None:
            named = (not head or _cut_start(head)) and named_with(path, cls.file_suffixes)
            return max(0.3 if named else 0.0, _damaged_start_score(path))
        if m.group(1) not in (b"WARC", b"warc"):
            return 0.6  # a flipped case bit ("wARC"): damage the framer reports, then reads on
        version = m.group(2).decode("ascii")
        score = 0.95 if version in KNOWN_VERSIONS else 0.7
        if m.group(1) == b"warc" or m.start(1) > 0:
            score -= 0.15
        return score

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """Yield every good record of the file; report damage and quirks on the way."""
        path = ctx.path
        limits = ctx.limits
        strict = self.options.strict
        parse_http = self.options.parse_http
        with ctx.open_file() as fh:
            # not from the first 4 bytes alone: damage there must not make the whole file
            # one damaged blob (the pieces then report the damaged start and resync)
            kind, _ = locate_start(fh.read(SCAN_START_BYTES))
            fh.seek(0)
            big = fh.seek(0, os.SEEK_END) > PREFETCH_MIN_BYTES
            fh.seek(0)
            threads = (
                _inflate_workers(self.options.inflate_threads) if big and kind == "gzip" else 0
            )
            # lends the compressed bytes of the members being handed out: a writer copies an
            # unchanged record's member from them (Provenance.held), not from the file
            held = HeldMembers() if kind is not None else None
            pieces = iter_pieces(
                fh,
                kind,
                max_decompressed_bytes=limits.max_decompressed_bytes,
                threads=threads,
                batch=True,
                max_member_bytes=member_bound(limits.max_record_bytes, limits.max_header_bytes),
                held=held,
            )
            if kind not in (None, "gzip") and big:
                pieces = prefetch(pieces)  # inflate in a thread while records are parsed
            framer = WarcFramer(
                pieces,
                max_record_bytes=limits.max_record_bytes,
                max_header_bytes=limits.max_header_bytes,
            )
            # a damaged member's compressed bytes are kept up to the member bound (one record)
            spans = _CompressedSpans(
                path, member_bound(limits.max_record_bytes, limits.max_header_bytes)
            )
            try:
                for item in framer:
                    if isinstance(item, DamagedRange):
                        ctx.report_damage(spans.damage(item))
                        item = None  # its bytes (up to a record) go before the next part
                        continue
                    record, warnings = warc_to_record(
                        item, path, parse_http, kind is not None, held
                    )
                    if warnings:
                        offset = record.source.offset if record.source else item.offset
                        if strict:  # the damage has the code of the first quirk
                            reason = "strict mode: " + "; ".join(warnings)
                            code = warnings[0].code
                            ctx.report_damage(
                                Damage(path, offset, reason, item.length, item.raw, code)
                            )
                            continue
                        for warning in warnings:
                            ctx.report_warning(warning.code, warning.text, offset)
                    item = None  # it holds the decompressed buffer: let it go with the stream's
                    yield record
            finally:
                pieces.close()  # stops the inflate thread before the file closes
                spans.close()


class _CompressedSpans:
    """Turns a framer's damaged range into a :class:`Damage` in the file's own offset space:
    file offsets and bytes for plain files; for compressed ones the compressed span of the
    member(s) holding the range and its compressed bytes (read back from the file, bounded),
    never compressed offsets paired with inflated bytes."""

    def __init__(self, path: str, max_bytes: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.source = MemberSource(storage.open_range)
        self.size = storage.size(path)
        self.kept: set[tuple[int, int]] = set()

    def damage(self, item: DamagedRange) -> Damage:
        """The :class:`Damage` to report for ``item``."""
        path = self.path
        code = item.code
        more = item.part > 0  # a later part of the damage before it: the same record
        if item.member_offset is None:  # plain file: stream offsets are file offsets
            return Damage(path, item.offset, item.reason, item.length, item.data, code, more)
        offset, length = item.member_offset, item.member_length
        if item.compressed:  # a member that did not inflate: its compressed span
            length = item.length
        if length is not None:
            length = min(length, self.size - offset)
        if length is None:
            reason = (
                f"{item.reason}; inside a compressed member whose end is not known yet "
                "(its compressed bytes are not separable)"
            )
            return Damage(path, offset, reason, None, b"", code, more)
        if (offset, length) in self.kept:
            reason = (
                f"{item.reason}; its compressed bytes are in the quarantine with the damage "
                f"reported first for offset {offset}"
            )
            return Damage(path, offset, reason, length, b"", code, more)
        if not item.compressed and length > max(item.length, SHARED_MEMBER_COPY):
            # a large member (whole-file gzip) that mostly holds good records: its compressed
            # bytes would not be this damage's
            reason = (
                f"{item.reason}; inside a compressed member of {length} bytes that also "
                "holds good records (its compressed bytes are not quarantined)"
            )
            return Damage(path, offset, reason, length, b"", code, more)
        self.kept.add((offset, length))
        data = self.source.read(path, offset, min(length, self.max_bytes)) or b""
        reason = item.reason
        if len(data) < length:
            reason = f"{reason}; the quarantine keeps its first {len(data)} bytes"
        return Damage(path, offset, reason, length, data, code, more)

    def close(self) -> None:
        """Close the file handle used to read compressed bytes back."""
        self.source.close()


def _inflate_workers(wanted: int) -> int:
    """``wanted`` inflate threads, capped at one less than the CPUs this process may use (more
    would only take CPU time from the parsing thread, which holds the GIL) but at least one."""
    if wanted <= 0:
        return 0
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(wanted, cpus - 1))


_DATES: dict[bytes, tuple[str, datetime | None]] = {}


def _warc_date(raw: bytes) -> tuple[str, datetime | None]:
    """``(date_raw, date)`` of a raw WARC-Date value, cached (the records of one capture, and
    of one second, share their date)."""
    hit = _DATES.get(raw)
    if hit is None:
        if len(_DATES) >= 4096:
            _DATES.clear()
        text = raw.decode("utf-8", "surrogateescape")
        hit = _DATES[raw] = (text, parse_warc_date(text))
    return hit


def _is_http_block(kind: RecordKind, warc_media: str | None, data: bytes, start: int) -> bool:
    if warc_media == "application/http":
        return True
    if kind in (RecordKind.RESPONSE, RecordKind.REVISIT):
        return warc_media is None and data.startswith(b"HTTP/", start)
    if kind is RecordKind.REQUEST:
        return warc_media is None and _REQUEST_LINE.match(data, start) is not None
    return False


def warc_to_record(
    item: FramedRecord,
    path: str,
    parse_http: bool = True,
    compressed: bool | None = None,
    held: HeldMembers | None = None,
) -> tuple[Record, list[Note]]:
    """Map a framed WARC record onto a :class:`Record`; also return the repaired quirks.
    ``compressed`` says whether the file is compressed (``None``: unknown), which names the
    offset space of a record that is not alone in its member (``Provenance.space``);
    ``held`` lends the compressed bytes of a record alone in its member(s)
    (``Provenance.held``)."""
    # (the reader's per-record path: locals, positional constructors, cached date and media)
    header = item.header
    fields = header.fields
    get = fields.get
    warnings = item.issues  # a fresh list per framed record
    version = header.version
    extras: dict = {
        "version": version,
        "headers": header.headers,
        "raw_header": item.raw_header,
        "separator": item.separator,
        "cl_includes_separator": item.cl_includes_separator,
        "line_ending": header.line_ending,
    }
    if version not in KNOWN_VERSIONS:
        warnings.append(Note("version", f"unknown WARC version {version}"))

    raw_type = get(b"warc-type") or b""
    kind = _KIND_OF.get(raw_type)
    if kind is None:
        wtype = raw_type.decode("latin-1").strip().lower()
        kind = _KINDS.get(wtype)
        if kind is None:
            kind = RecordKind.RESOURCE
            warnings.append(Note("unknown-type", f"WARC-Type {wtype[:40]!r} read as resource"))
            extras["type"] = wtype

    url = None
    uri = get(b"warc-target-uri")
    if uri is not None:
        if uri[:1] == b"<" and uri[-1:] == b">":
            extras["target_uri_raw"] = uri
            uri = uri[1:-1]
            warnings.append(Note("bracketed-uri", "<> around WARC-Target-URI removed (wget 1.14)"))
        url = uri.decode("utf-8", "surrogateescape")

    date_raw = date = None
    raw_date = get(b"warc-date")
    if raw_date is not None:
        date_raw, date = _DATES.get(raw_date) or _warc_date(raw_date)
        if date is None:
            date = derive_warc_date(date_raw)
            if date is None:
                warnings.append(Note("invalid-date", "WARC-Date is not a valid date (kept raw)"))
            else:
                warnings.append(
                    Note(
                        "date-derived",
                        "invalid WARC-Date kept raw, read as the date it means"
                        " (ClueWeb09's day of the year)",
                    )
                )
    original = get(b"crawlmill-original-date")
    if original is not None:  # what our writer replaced to write a valid WARC-Date
        date_raw = original.decode("utf-8", "surrogateescape").strip()
    original = get(b"crawlmill-original-target-uri")
    if original is not None:  # the URI before our writer percent-escaped it
        url = original.strip().decode("utf-8", "surrogateescape")

    for name in ID_FIELDS:
        value = get(name)
        if value and value[0] != 60:  # not "<"
            warnings.append(Note("bare-record-id", f"{ID_FIELD_NAMES[name]} without <>"))
            break

    ct = get(b"content-type")
    warc_media, warc_charset = (None, None) if ct is None else media_type(ct)

    data, bs, be = item.data, item.block_start, item.block_end
    http_head = None
    content_type, charset = warc_media, warc_charset
    if (
        parse_http
        and be > bs
        and (warc_media == "application/http" or _is_http_block(kind, warc_media, data, bs))
    ):
        cut, (content_type, charset) = head_and_content_type(data, bs, be)
        if cut < 0:
            http_head, payload = data[bs:be], b""
            warnings.append(Note("http-head", "HTTP head without a terminating blank line"))
        else:
            http_head, payload = data[bs:cut], data[cut:be]
    else:
        payload = data[bs:be] if bs or be != len(data) else data

    text = None
    if kind is RecordKind.CONVERSION and warc_media == "text/plain":
        text = payload.decode("utf-8", "replace")

    ip = get(b"warc-ip-address")
    trec = get(b"warc-trec-id")
    truncated = item.truncated
    if truncated:
        # the file ended inside the block: the writer marks it WARC-Truncated and, as for any
        # changed record, recomputes Content-Length and digests (same key as extras["arc"])
        extras["truncated"] = True
    if item.member_offset is not None:
        source = Provenance(
            path, item.member_offset, item.member_length, "warc", OffsetSpace.MEMBER, held
        )
        extras["member"] = True
        if item.exact and held is not None:  # the member inflates to exactly these parts
            held.note_exact(
                item.member_offset, (item.raw_header, http_head, payload, item.separator)
            )
    else:
        space = None if compressed is None else _SPACE[compressed]
        source = Provenance(path, item.offset, item.length, "warc", space)
        extras["member"] = False
    all_extras: dict = {"warc": extras}
    if get(b"warc-source-key") is not None:
        source_key = source_key_from_fields(get)
        if source_key is not None:
            all_extras["neutral"] = {"source_key": source_key}
    record = Record(
        kind,
        url,
        trec.decode("utf-8", "surrogateescape") if trec else None,
        date,
        date_raw,
        http_head,
        payload,
        content_type,
        charset,
        ip.decode("latin-1") if ip else None,
        text,
        [],
        all_extras,
        source,
        truncated,
    )
    return record, warnings


@hookimpl
def crawlmill_register_readers(register) -> None:
    """Register the WARC reader."""
    register(WarcReader)


#: the version lines a WARC file starts with.
_VERSION_LINES = tuple(b"WARC/%s\r\n" % v.encode() for v in sorted(KNOWN_VERSIONS))


def _cut_start(head: bytes) -> bool:
    """Whether ``head`` (the whole of a file too short to hold a record) is only the first
    bytes of a version line or of a codec's magic: a file cut there (the read reports it)."""
    upper = head.upper()
    starts = (*_VERSION_LINES, *(m for codec in CODECS.values() for m in codec.magics))
    return any(len(head) < len(s) and (s.startswith(head) or s.startswith(upper)) for s in starts)


def _damaged_start_score(path: str) -> float:
    """0.6 when a bounded scan of the file's first bytes finds a WARC record start past
    damage, or a WARC inside a gzip header with a damaged magic (see
    :func:`~crawlmill.formats.warc.framer.locate_start`), or when a gzip file's first member is no
    record but a later one is (:func:`~crawlmill.formats.warc.framer.later_warc_member`: a bomb or
    compressed garbage first), else 0."""
    try:
        raw = storage.read_start(path, SCAN_START_BYTES)
    except OSError:
        return 0.0
    kind, at = locate_start(raw)
    # past damage, or a container the first bytes do not show (a damaged gzip magic)
    if at > 0 or kind != compression_of(raw[:16]):
        return 0.6
    if kind == "gzip":  # a sound first member that is no record (a bomb): a later one is
        try:
            with storage.open_range(path) as fh:
                return 0.6 if later_warc_member(fh) is not None else 0.0
        except OSError:
            return 0.0
    return 0.0
