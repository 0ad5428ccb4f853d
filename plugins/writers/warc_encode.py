"""Neutral :class:`~crawlmill.core.record.Record` -> WARC record: the WARC writer's encoder.

Maps each record onto header pairs and a block and lets :mod:`crawlmill.formats.warc.builder`
apply the record-level rules: a verbatim copy, a rebuilt WARC-read record, or a built record
(the rules and where each neutral field goes are in :mod:`crawlmill.plugins.writers.warc`).
It knows WARC and the neutral Record only: what a reader mapped for writers of other formats is
in ``extras["neutral"]`` (``truncated``, ``describes_file``; documented in
:mod:`crawlmill.core.record`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from datetime import datetime
from typing import Any

from crawlmill.core import Record, RecordKind
from crawlmill.formats.http.head import content_type_value, with_content_type
from crawlmill.formats.warc.builder import (
    Headers,
    can_copy_verbatim,
    content_length_tail,
    fix_digests,
    framing_facts,
    get_header,
    new_digest_headers,
    reframe_headers,
    remove_header,
    set_header,
    verbatim_parts,
)
from crawlmill.formats.warc.source_key import source_key_fields
from crawlmill.formats.warc.writer import Framing, PendingRecord, format_warc_date, framing_for

from .cdxj_index import record_facts
from .warc_ids import RecordIds
from .warc_originals import keep_originals

__all__ = ["WarcEncoder", "verbatim_copy", "verbatim_copy_pure"]

#: the compiled verbatim_copy (formats/warc/_warcfast.c), unless ``CRAWLMILL_PURE=1``
_KERNEL_COPY = None
if os.environ.get("CRAWLMILL_PURE", "") in ("", "0"):
    with contextlib.suppress(ImportError):  # (an install without a compiler)
        from crawlmill.formats.warc._warcfast import verbatim_copy as _KERNEL_COPY

_KINDS = frozenset(kind.value for kind in RecordKind)
#: record fields whose change makes the ``digests`` policy treat a record as changed: its
#: block, and its identity (type, URL, date), which makes it a new record that gets the digests
#: new records get. A changed doc id, IP or WARC Content-Type leaves the block and its digest
#: headers as they were.
_DIGEST_FIELDS = frozenset({"http_head", "payload", "kind", "url", "date", "date_raw"})


def _as_bytes(value: Any) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    return str(value).encode("utf-8", "surrogateescape")


def _byte_pairs(pairs: Any) -> Headers:
    """Header pairs as bytes (the WARC reader's are bytes already: kept, not copied)."""
    return [
        (k, v)
        if type(k) is bytes and type(v) is bytes
        else (_as_bytes(k) or b"", _as_bytes(v) or b"")
        for k, v in pairs
    ]


def _copyable(raw_header: bytes, headers: Any, facts: tuple) -> bool:
    """:func:`can_copy_verbatim` of a record: ``facts`` are its block length, the framing,
    and its version, line ending, ``Content-Length`` convention and separator."""
    length, framing, version, line_ending, cl_sep, separator = facts
    return can_copy_verbatim(
        raw_header,
        headers,
        length,
        framing,
        version=version,
        line_ending=line_ending,
        cl_includes_separator=cl_sep,
        separator=separator,
    )


def _block_parts(record: Record) -> tuple[bytes, bytes]:
    """The record's block as immutable parts ``(HTTP head, payload)``: they are digested and
    written later, on a writer thread, and joined only once, into the record."""
    return bytes(record.http_head or b""), bytes(record.payload)


def _digests_changed(record: Record) -> bool:
    """Whether the ``digests`` policy handles the record as changed: a field of
    ``_DIGEST_FIELDS`` changed, or it is modified without :meth:`Record.evolve` saying what
    (a record its reader repaired)."""
    return record.modified and (not record.changed or bool(record.changed & _DIGEST_FIELDS))


#: input versions ``auto`` keeps (0.17: the fields of 1.0, read by warcio and FastWARC as it
#: is; 0.18 is the ClueWeb09 convention, written as 1.1).
_KEPT_VERSIONS = ("1.0", "1.1", "0.17")


def _neutral(record: Record) -> dict[str, Any]:
    """What the reader mapped at parse time beyond the neutral fields (``extras["neutral"]``)."""
    neutral = record.extras.get("neutral")
    return neutral if isinstance(neutral, dict) else {}


def _real_ip(ip: str | None) -> bytes | None:
    """The ``WARC-IP-Address`` value of a record's IP, or ``None`` for none or a placeholder."""
    if not ip or ip in ("0.0.0.0", "-"):
        return None
    return ip.encode("ascii", "replace")


def _neutral_fields(record: Record, options: Any, warn: Callable[[str, str], None]) -> Record:
    """The record with its neutral fields placed where WARC holds them (``options``: the
    writer's): a changed ``content_type``/``charset`` of a record with an HTTP head goes into
    that head's ``Content-Type``; fields a WARC record cannot hold are refused with a warning."""
    keep = getattr(options, "text", "drop") == "conversion"
    if (
        record.text is not None
        and ("text" in record.changed or record.kind != RecordKind.CONVERSION)
        and not (keep and record.kind != RecordKind.CONVERSION)
    ):
        warn(
            "text-not-written",
            "extracted text not written: WARC holds it only as a conversion record; to "
            "keep it as one after each record: --option text=conversion",
        )
    if record.outlinks:
        warn("outlinks-not-written", "outlinks not written: a WARC record has no place for them")
    if (
        record.http_head is not None
        and record.content_type
        and record.changed & {"content_type", "charset"}
    ):
        head = with_content_type(record.http_head, record.content_type, record.charset)
        if head != record.http_head:
            record = record.evolve(http_head=head)
    return record


def plain_copy(
    record: Record, framings: dict[str, tuple]
) -> tuple[bytes, bytes, bytes, bytes] | None:
    """A verbatim copy's parts when no rule but the copy's own checks applies (an unchanged
    record read from WARC, without doc id, text or outlinks, in a version ``framings`` maps to
    the framing_facts it is checked against; no digests to recompute, no CDXJ: the caller's
    to know): what :meth:`WarcEncoder._verbatim` makes of it, with one check of its parts
    (:func:`verbatim_parts`); ``None`` lets the general path decide."""
    if record.modified or record.changed or record.doc_id is not None:
        return None
    if record.text is not None or record.outlinks:
        return None  # (_neutral_fields may warn)
    warc = record.extras.get("warc")
    if type(warc) is not dict:
        return None
    framing = framings.get(warc.get("version"))
    if framing is None:
        return None
    return verbatim_parts(warc, record.http_head, record.payload, framing)


def verbatim_copy_pure(
    record: Record, framings: dict[str, tuple], reuse: bool
) -> tuple[tuple[bytes, bytes, bytes, bytes], int, Any] | None:
    """The WARC writer's checks of a plain verbatim copy at once: ``(parts, size, source)``
    with :func:`plain_copy`'s parts, their total length and, when ``reuse``, the record's
    ``source`` if its input member may be copied (the record alone in its member(s) of a WARC
    input, a span of at most ``2 * size + 1024`` bytes: no larger member can hold it), else
    ``None``; ``None`` where :func:`plain_copy` gives ``None``. The compiled kernel's
    reference (formats/warc/_warcfast.c's verbatim_copy)."""
    parts = plain_copy(record, framings)
    if parts is None:
        return None
    size = sum(map(len, parts))
    src = record.source
    if (
        not reuse
        or record.extras["warc"].get("member") is not True
        or src is None
        or src.format != "warc"
        or src.offset is None
        or not src.length
        or src.length > 2 * size + 1024
    ):
        src = None
    return parts, size, src


def verbatim_copy(
    record: Record, framings: dict[str, tuple], reuse: bool
) -> tuple[tuple[bytes, bytes, bytes, bytes], int, Any] | None:
    """:func:`verbatim_copy_pure`'s answer, from the compiled kernel where it is built (the
    pure function where the kernel leaves a value to it, or ``CRAWLMILL_PURE=1``)."""
    if _KERNEL_COPY is not None:
        got = _KERNEL_COPY(record, framings, reuse)
        if got is not NotImplemented:
            return got
    return verbatim_copy_pure(record, framings, reuse)


class WarcEncoder:
    """Encode a task's records as WARC in ``framing`` (the target version), per the writer's
    ``options`` (``digests``, ``cdxj``); ``warn(code, message)`` reports a warning with its stable code."""

    def __init__(
        self,
        options: Any,
        framing: Framing,
        *,
        version_explicit: bool,
        when: datetime,
        ids: RecordIds,
        warn: Callable[[str, str], None],
    ) -> None:
        self.options = options
        self.framing = framing
        self.version_explicit = version_explicit
        self.when = when
        self.ids = ids
        self.warn = warn
        #: the record id of the open file's warcinfo (crawlmill's), if it has one.
        self.warcinfo_id: bytes | None = None
        #: a verbatim copy needs no look at its header pairs beyond can_copy_verbatim's (no
        #: digests to recompute, no CDXJ facts): the reader's parts are checked and kept at once
        self.plain_copies = options.digests != "recompute" and not options.cdxj
        #: input version -> framing_facts of the framing a verbatim copy of it is checked
        #: against (:meth:`encode`: the versions ``auto`` keeps, or the explicit target), for
        #: the copies taken before any other rule is looked at (:func:`plain_copy`)
        self.copy_framings: dict[str, tuple] = (
            {framing.version: framing_facts(framing)}
            if version_explicit
            else {v: framing_facts(framing_for(v)) for v in _KEPT_VERSIONS}
        )

    def encode(
        self, record: Record, doc_id: str | None, ordinal: int
    ) -> tuple[tuple[bytes, ...] | PendingRecord, dict[str, Any]]:
        """A verbatim copy's parts (its WARC bytes are their concatenation) or a pending
        record, and the record's CDXJ facts."""
        if self.plain_copies and doc_id is None:
            parts = plain_copy(record, self.copy_framings)
            if parts is not None:
                return parts, {}
        record = _neutral_fields(record, self.options, self.warn)
        warc = record.extras.get("warc")
        if doc_id is None:
            doc_id = record.doc_id  # also a doc id a filter set (not a content change)
        if isinstance(warc, dict) and warc.get("headers") is not None:
            framing = self.framing
            version = str(warc.get("version"))
            if not self.version_explicit and version in _KEPT_VERSIONS:
                framing = framing_for(version)  # WARC 1.x and 0.17 input keeps its version
            elif version == "0.17":
                self.warn(
                    "version-converted",
                    f"WARC/0.17 record written as WARC/{framing.version} (its fields are 1.0's)",
                )
            if not record.modified and warc.get("raw_header"):
                verbatim = self._verbatim(record, warc, doc_id, framing)
                if verbatim is not None:
                    return verbatim
            return self._rebuild(record, warc, doc_id, framing, ordinal)
        return self._build(record, doc_id, ordinal)

    def date_of(self, record: Record) -> bytes:
        """``WARC-Date`` of a record: its date, its raw date string, or the conversion time."""
        return warc_date_of(record, self.framing.version, self.when, self.warn)

    def _facts(self, record: Record, headers: list) -> dict[str, Any]:
        return record_facts(record, headers) if self.options.cdxj else {}

    def _notes(self, notes: list[tuple[str, str]]) -> None:
        for code, note in notes:
            self.warn(code, note)

    def _verbatim(
        self, record: Record, warc: dict[str, Any], doc_id: str | None, framing: Framing
    ) -> tuple[tuple[bytes, ...], dict[str, Any]] | None:
        """The input bytes unchanged, as the parts ``(WARC header, HTTP head, payload,
        separator)`` whose concatenation they are, or ``None`` when they cannot be kept as
        they are."""
        raw_header = _as_bytes(warc["raw_header"]) or b""
        given = warc["headers"]
        head = record.http_head or b""
        payload = record.payload
        facts = (
            len(head) + len(payload),
            framing,
            str(warc.get("version")),
            _as_bytes(warc.get("line_ending")),
            bool(warc.get("cl_includes_separator", False)),
            _as_bytes(warc.get("separator")),
        )
        # the reader's header pairs are bytes: checked as they are, and made bytes only when
        # that check fails (a pair of another type never passes it)
        headers = given
        if not _copyable(raw_header, headers, facts):
            headers = _byte_pairs(given)
            if headers == given or not _copyable(raw_header, headers, facts):
                return None
        if headers is given and (
            doc_id is not None or self.options.digests == "recompute" or self.options.cdxj
        ):
            headers = _byte_pairs(given)  # what the checks below and the index read
        if (
            doc_id is not None
            and (get_header(headers, b"WARC-TREC-ID") or b"").decode("utf-8", "replace") != doc_id
        ):
            return None
        if self.options.digests == "recompute":
            fixed, _ = self._fixed_digests(record, headers, framing)
            if fixed != headers:
                return None
        # joined once, by the file writer, only when the input's member is not copied
        parts = (raw_header, bytes(head), bytes(payload), framing.separator)
        return parts, self._facts(record, headers)

    def _fixed_digests(
        self, record: Record, headers: Headers, framing: Framing
    ) -> tuple[Headers, list[str]]:
        """Digest headers per the ``digests`` option (module docstring of the writer)."""
        mode = self.options.digests
        if mode != "recompute" and not _digests_changed(record):
            return headers, []
        tail = content_length_tail(framing)
        return fix_digests(
            headers,
            record.block + tail,
            record.payload + tail,
            mode=mode,
            revisit=record.kind == RecordKind.REVISIT,
            http_payload=record.http_head is not None,
        )

    def _rebuild(
        self,
        record: Record,
        warc: dict[str, Any],
        doc_id: str | None,
        framing: Framing,
        ordinal: int = 0,
    ) -> tuple[PendingRecord, dict[str, Any]]:
        """Original headers in order, re-framed for the target version, with changed fields
        updated and digests handled per the ``digests`` option."""
        pairs = ((_as_bytes(k) or b"", _as_bytes(v) or b"") for k, v in warc["headers"])
        headers, notes = reframe_headers(pairs, framing.version)
        self._notes(notes)
        if record.modified:
            self._update_changed_fields(record, headers)
        if warc.get("truncated") and get_header(headers, b"WARC-Truncated") is None:
            # the file ended inside the block (extras["warc"]["truncated"])
            set_header(headers, b"WARC-Truncated", b"length")
        if doc_id is not None:
            set_header(headers, b"WARC-TREC-ID", doc_id.encode("utf-8", "surrogateescape"))
        elif "doc_id" in record.changed:
            remove_header(headers, b"WARC-TREC-ID")
        if get_header(headers, b"WARC-Date") is None:
            self.warn(
                "date-missing", "record without a capture date: WARC-Date is the conversion time"
            )
            set_header(headers, b"WARC-Date", format_warc_date(self.when, framing.version))
        if not (get_header(headers, b"WARC-Record-ID") or b"").strip():  # mandatory (5.2)
            self.warn("record-id-missing", "record without a WARC-Record-ID: one was made")
            set_header(headers, b"WARC-Record-ID", self.ids.of(record, ordinal))
        keep_originals(record, headers, framing.version, self.when, self.warn)
        headers, notes = self._fixed_digests(record, headers, framing)
        self._notes(notes)
        pending = PendingRecord(framing.version, headers, _block_parts(record))
        return pending, self._facts(record, headers)

    def _update_changed_fields(self, record: Record, headers: Headers) -> None:
        """Write the type, URL, IP, content type (of a record without HTTP head) and date of
        a changed record where they differ from the original header values (an unchanged
        value keeps its original spelling); the doc id is written by :meth:`_rebuild`."""
        ip, old_ip = _real_ip(record.ip), get_header(headers, b"WARC-IP-Address")
        if ip is not None and (old_ip is None or old_ip.strip() != ip):
            set_header(headers, b"WARC-IP-Address", ip)
        elif ip is None and old_ip is not None and "ip" in record.changed:
            remove_header(headers, b"WARC-IP-Address")
        if (
            record.http_head is None
            and record.content_type
            and record.changed & {"content_type", "charset"}
        ):
            old_ct = get_header(headers, b"Content-Type")
            value = content_type_value(old_ct, record.content_type, record.charset)
            set_header(headers, b"Content-Type", value)
        wtype = get_header(headers, b"WARC-Type")
        old_type = wtype.decode("ascii", "replace").strip().lower() if wtype is not None else None
        unknown_kept = old_type not in _KINDS and record.kind == RecordKind.RESOURCE
        if old_type != record.kind.value and not unknown_kept:
            set_header(headers, b"WARC-Type", record.kind.value.encode("ascii"))
        url = record.url_bytes
        old_url = get_header(headers, b"WARC-Target-URI")
        if url is not None and (old_url is None or old_url.strip().strip(b"<>") != url):
            set_header(headers, b"WARC-Target-URI", url)
        old_date = get_header(headers, b"WARC-Date")
        old_text = old_date.decode("utf-8", "surrogateescape") if old_date is not None else None
        if record.date_raw is not None and record.date_raw == old_text:
            return
        if record.date is not None or record.date_raw:
            set_header(headers, b"WARC-Date", self.date_of(record))

    def _build(
        self, record: Record, doc_id: str | None, ordinal: int
    ) -> tuple[PendingRecord, dict[str, Any]]:
        """Headers for a record that did not come from WARC. A record that describes its
        source file (``extras["neutral"]["describes_file"]``: the name the source gives it)
        is written concurrent to the file's warcinfo, that name entering its record id."""
        neutral = _neutral(record)
        describes = str(neutral.get("describes_file") or "")
        kind = record.kind
        headers: list[tuple[bytes, Any]] = [
            (b"WARC-Type", kind.value.encode("ascii")),
            (b"WARC-Record-ID", self.ids.of(record, ordinal, describes)),
        ]
        append = headers.append
        if self.warcinfo_id is not None and kind != RecordKind.WARCINFO:
            append((b"WARC-Warcinfo-ID", self.warcinfo_id))
            if describes:
                append((b"WARC-Concurrent-To", self.warcinfo_id))
        url = _target_uri(record, "source_key" in neutral, self.warn)
        if url is not None:
            append((b"WARC-Target-URI", url))
        append((b"WARC-Date", self.date_of(record)))
        ip = _real_ip(record.ip)
        if ip is not None:
            append((b"WARC-IP-Address", ip))
        if neutral.get("truncated"):
            # the source record ended before its declared length (a cut file): say so
            headers.append((b"WARC-Truncated", b"length"))
        if doc_id is not None:
            headers.append((b"WARC-TREC-ID", doc_id.encode("utf-8", "surrogateescape")))
        source_key = neutral.get("source_key")
        if isinstance(source_key, dict):  # a source entry's key, URL or not: kept
            headers.extend(source_key_fields(source_key))
        keep_originals(record, headers, self.framing.version, self.when, self.warn)
        parts = _block_parts(record)
        if self.options.digests != "none":
            http_payload = record.http_head is not None and record.kind != RecordKind.REVISIT
            tail = content_length_tail(self.framing)
            headers.extend(new_digest_headers(*parts, tail, http_payload=http_payload))
        content_type = _content_type(record)
        if content_type is not None:
            headers.append((b"Content-Type", content_type))
        pending = PendingRecord(self.framing.version, headers, parts)
        return pending, self._facts(record, headers)


def _target_uri(record: Record, key_kept: bool, warn: Callable[[str, str], None]) -> bytes | None:
    """The ``WARC-Target-URI`` of a record built anew: its URL, a CR/LF inside it written as
    ``%0D``/``%0A`` (a field is one line; RFC 3986 2.1), each change and a missing URL
    reported."""
    url = record.url_bytes
    if url is not None and (b"\r" in url or b"\n" in url):
        url = url.replace(b"\r", b"%0D").replace(b"\n", b"%0A")
        warn(
            "url-line-break-encoded",
            "CR/LF inside a URL written as %0D/%0A in WARC-Target-URI (a field is one line)",
        )
    if url is None and record.kind not in (RecordKind.WARCINFO, RecordKind.METADATA):
        kept = " (its source key kept in WARC-Source-Key)" if key_kept else ""
        warn("url-missing", "record without a URL written without WARC-Target-URI" + kept)
    return url


def _content_type(record: Record) -> bytes | None:
    """The ``Content-Type`` of a record built anew: ``application/http`` for an HTTP message,
    a filter's charset set into the source's type, else the type as the source declared it
    (a detected charset is not added)."""
    if record.http_head is not None:
        msgtype = b"request" if record.kind == RecordKind.REQUEST else b"response"
        return b"application/http;msgtype=" + msgtype
    if record.content_type and "charset" in record.changed:
        return content_type_value(None, record.content_type, record.charset)
    if record.content_type:
        return record.content_type.encode("utf-8", "replace")
    return None


def warc_date_of(
    record: Record, version: str, when: datetime, warn: Callable[[str, str], None]
) -> bytes:
    """``WARC-Date`` of a record in ``version``: its date, its raw date string (0.18 keeps an
    unparsable one, said; in 1.x ``keep_originals`` replaces it), or the conversion time
    ``when`` (the field is mandatory; said)."""
    if record.date is not None:
        keep_fraction = bool(record.date.microsecond) and "." in (record.date_raw or ".")
        return format_warc_date(record.date, version, keep_fraction)
    if record.date_raw:
        if version == "0.18":
            warn("date-kept-raw", "unparsable capture date kept as the raw string in WARC-Date")
        return record.date_raw.encode("utf-8", "surrogateescape")
    warn("date-missing", "record without a capture date: WARC-Date is the conversion time")
    return format_warc_date(when, version)
