"""The ``arc`` reader: Internet Archive ARC files (v1, v1.1, v2) as crawlmill records.

Reads uncompressed ``.arc``, per-record gzip ``.arc.gz``, whole-file gzip and bzip2
(``.arc.bz2``, one stream or one per record, as ``.warc.bz2``). The byte-level
work (header lines, framing, resync) is :mod:`crawlmill.formats.arc.header`; this module maps what it
finds onto :class:`~crawlmill.core.record.Record` (see the ARC mapping in the record docs):

* the ``filedesc://`` record becomes a ``metadata`` record of type ``application/arc`` whose
  payload is the whole ARC header record (header line, ``\\n``, filedesc block), mapped at
  parse time as jwarc and warcio map ARC (IIPC ARC->WARC guidelines Rec. 12-14, as warctools'
  arc2warc); ``extras["neutral"]["describes_file"] = "filedesc"`` says it describes the file
  as a whole (a WARC writer writes it concurrent to its warcinfo and numbers no document
  with it);
* records whose block starts with an HTTP status line become ``response`` records with
  ``http_head``/``payload`` split at the first blank line;
* ``dns:`` records and other blocks without an HTTP head become ``resource`` records
  (``dns:`` as ``text/dns``).

``extras["arc"]`` keeps the raw header line, the ARC version, every header field, and for the
filedesc the origin of the version block, so writers can rebuild the ARC or document it in WARC.

Damage (see :mod:`crawlmill.formats.arc.length` for the length rule): a record whose length the
bytes disprove is delivered repaired *and* reported as damage with its original bytes; a record
cut by the end of the file is delivered with ``extras["arc"]["truncated"]`` and the neutral
``extras["neutral"]["truncated"]`` (``WARC-Truncated: length`` in WARC) and reported as damage; a record in a corrupt gzip member is damage only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

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
from crawlmill.core.options import LightOptions, option
from crawlmill.core.record import OffsetSpace
from crawlmill.formats.arc.framing import (
    DETECT_WINDOW,
    GZIP_MAGIC,
    ArcLimitError,
    ArcRecordBytes,
    Quirk,
    file_span,
    find_arc_start,
    iter_arc,
)
from crawlmill.formats.arc.header import RESPLIT_NOTE, parse_arc_date, plausible_header
from crawlmill.formats.codecs.compression import HeldMembers, compression_of
from crawlmill.formats.codecs.stream import Damage as DamagedRange
from crawlmill.formats.http.head import content_type as http_content_type
from crawlmill.formats.http.head import split_response
from crawlmill.formats.notes import Note

__all__ = ["ArcReader", "record_from_arc"]

_NO_IP = {"", "-", "0.0.0.0"}
_NO_MIME = {"", "-"}

#: media type of a WARC ``metadata`` record holding a whole ARC header record.
FILEDESC_MEDIA_TYPE = "application/arc"


def _arc_after_damage(path: str) -> bool:
    """Whether the file's first bytes are damage followed by ARC data (a gzip member or a
    header line further in): looks at the raw first :data:`DETECT_WINDOW` bytes."""
    try:
        raw = storage.read_start(path, DETECT_WINDOW)
    except OSError:
        return False
    found = find_arc_start(raw)
    return found is not None and found[1] > 0


def _is_gzip(fh: BinaryIO) -> bool:
    """Whether the ARC file ``fh`` is gzip, as :func:`~crawlmill.formats.arc.framing.iter_arc`
    detects it (past damage at the start); leaves ``fh`` at 0."""
    head = fh.read(DETECT_WINDOW)
    fh.seek(0)
    if head.startswith(GZIP_MAGIC[:2]):
        return True
    if plausible_header(head.split(b"\n", 1)[0]) is not None:
        return False
    found = find_arc_start(head)
    return found is not None and found[0]


def _extras(arc: dict, neutral: dict) -> dict:
    """A record's extras: the ARC fields, and the neutral mapping when there is one."""
    return {"arc": arc, "neutral": neutral} if neutral else {"arc": arc}


def record_from_arc(
    item: ArcRecordBytes, path: str, gzip: bool = False, held: HeldMembers | None = None
) -> tuple[Record, list[Note]]:
    """Map one ARC record to a :class:`Record`; also return the notes about repaired quirks.
    ``gzip``: the file is gzip, so a known offset is a member's (``Provenance.space``); a
    record sharing its member with others has no offset (``None``). ``held`` lends the
    compressed bytes of its member (``Provenance.held``)."""
    header = item.header
    notes = list(item.notes)
    if RESPLIT_NOTE in header.problems:
        notes.append(RESPLIT_NOTE)
    fields = {
        name: value.decode("utf-8", "surrogateescape") for name, value in header.fields.items()
    }
    is_filedesc = header.is_filedesc
    extras: dict = {"header_line": header.raw, "version": header.version, "fields": fields}
    if item.trailer != b"\n":
        extras["trailer"] = item.trailer
    neutral: dict = {}
    if item.truncated:
        extras["truncated"] = True
        if not is_filedesc:  # a cut filedesc is still written whole as metadata
            neutral["truncated"] = True
    date_raw = fields["Archive-date"]
    date, date_note = parse_arc_date(header.date)
    if date_note and date_raw != "-":
        notes.append(date_note)
    ip = fields["IP-address"]
    mime = fields["Content-type"]
    arc_mime = None if mime in _NO_MIME else mime
    url = fields["URL"]
    space = None if item.offset is None else (OffsetSpace.MEMBER if gzip else OffsetSpace.FILE)
    source = Provenance(
        path, item.offset, item.length, "arc", space, held if space is OffsetSpace.MEMBER else None
    )
    if ip in _NO_IP:
        ip = None
    # (positional Records: the per-record path; fields in Record's order)
    if is_filedesc:
        extras["filedesc"] = True
        if item.filedesc is not None:
            extras["origin"] = item.filedesc.origin
            extras["version_minor"] = item.filedesc.minor
        else:
            notes.append(Note("filedesc-without-version", "filedesc record has no version block"))
        neutral["describes_file"] = "filedesc"
        record = Record(
            RecordKind.METADATA, url, None, date, date_raw, None, header.raw + b"\n" + item.block,
            FILEDESC_MEDIA_TYPE, None, ip, None, [], {"arc": extras, "neutral": neutral}, source,
        )  # fmt: skip
        return record, notes
    if url[:4].lower() == "dns:":
        record = Record(
            RecordKind.RESOURCE, url, None, date, date_raw, None, item.block, "text/dns", None,
            ip, None, [], _extras(extras, neutral), source,
        )  # fmt: skip
        return record, notes
    http_head, payload = split_response(item.block)
    if http_head is None:
        record = Record(
            RecordKind.RESOURCE, url, None, date, date_raw, None, payload, arc_mime, None, ip,
            None, [], _extras(extras, neutral), source,
        )  # fmt: skip
        return record, notes
    if not http_head.endswith(b"\n\n") and not http_head.endswith(b"\n\r\n"):
        notes.append(
            Note("http-head", "HTTP head has no blank line after it; the whole block is the head")
        )
    media, charset = http_content_type(http_head)
    record = Record(
        RecordKind.RESPONSE, url, None, date, date_raw, http_head, payload, media or arc_mime,
        charset, ip, None, [], _extras(extras, neutral), source,
    )  # fmt: skip
    return record, notes


class ArcReader(Reader):
    """Internet Archive ARC files (v1, v1.1, v2), uncompressed or gzip, with resync on damage."""

    name = "arc"
    file_suffixes = (".arc",)

    @dataclass(frozen=True, kw_only=True)
    class Options(LightOptions):
        """Options of the ARC reader."""

        strict: bool = option(
            False,
            description="do not yield records with repaired quirks (odd dates, missing "
            "fields; records whose length was repaired are always reported as damage) but "
            "report them as damage",
        )

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """Sure when the decompressed file starts with ``filedesc://``; likely when it starts
        with a plausible ARC header line, or when the first 64 KiB of the file hold one (or a
        gzip member starting with one) after damaged first bytes; possible from an
        ``.arc``/``.arc.gz`` name (ARC files are plain or gzip; a name alone never claims
        an ``.arc.lz4``)."""
        if head[:11].lower() == b"filedesc://":
            return 0.95
        line = head.split(b"\n", 1)[0]
        named = named_with(path, cls.file_suffixes, (".gz", ".bz2"))  # plain, gzip or bzip2
        if b"\n" in head and plausible_header(line) is not None:
            return 0.7 if named else 0.5
        if not head.startswith(b"WARC/") and _arc_after_damage(path):
            return 0.6 if named else 0.45
        return 0.2 if named else 0.0

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """Yield every record of the ARC file; report damage and repaired quirks with
        offsets."""
        path = ctx.path
        limits = ctx.limits
        strict = bool(getattr(self.options, "strict", False))
        with ctx.open_file() as fh:
            gzip = _is_gzip(fh)
            compressed = gzip or compression_of(fh.read(16)) == "bzip2"  # member offsets
            fh.seek(0)
            # lends the compressed members being parsed: a writer copies from them
            held = HeldMembers() if gzip else None
            items = iter_arc(
                fh,
                gzip=gzip,
                max_record_bytes=limits.max_record_bytes,
                max_header_bytes=limits.max_header_bytes,
                max_decompressed_bytes=limits.max_decompressed_bytes,
                held=held,
            )
            try:
                for item in items:
                    if isinstance(item, DamagedRange):
                        offset, length = file_span(item)
                        more = item.part > 0  # a later part of the damage before it
                        ctx.report_damage(
                            Damage(path, offset, item.reason, length, item.data, item.code, more)
                        )
                        item = None  # its bytes (up to a record) go before the next part
                        continue
                    if isinstance(item, Quirk):
                        ctx.report_warning(item.code, item.text, item.offset)
                        continue
                    if item.damaged and strict:
                        continue  # repaired: the damage entry that follows holds its bytes
                    record, notes = record_from_arc(item, path, compressed, held)
                    where = item.offset if item.offset is not None else item.stream_offset
                    if notes and strict:  # the damage has the code of the first quirk
                        raw = item.header.raw + b"\n" + item.block
                        reason = f"record {record.url!r} (strict): " + "; ".join(
                            note.text for note in notes
                        )
                        code = notes[0].code
                        data = raw[: limits.max_record_bytes]
                        ctx.report_damage(Damage(path, where, reason, item.length, data, code))
                        continue
                    for note in notes:  # counted per code: the notes hold numbers
                        ctx.report_warning(note.code, note.text, where)
                    yield record
            except ArcLimitError as exc:
                reason = f"{exc}; stopped reading this file"
                ctx.report_damage(Damage(path, 0, reason, code=exc.code))
            finally:
                items.close()  # stops the inflate thread before the file closes


@hookimpl
def crawlmill_register_readers(register) -> None:
    """Register the ``arc`` reader."""
    register(ArcReader)
