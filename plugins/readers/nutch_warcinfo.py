"""The ``warcinfo`` records the Nutch writers kept in a part's SequenceFile metadata
(``crawlmill.warcinfo.NNNNN.header`` / ``.block``,
:func:`~crawlmill.formats.hadoop.nutch_write.warcinfo_metadata`), given back as records by
the Nutch readers: the block as the payload and the WARC header as ``extras["warc"]`` (as the
WARC reader has it), so a WARC writer copies each warcinfo byte for byte."""

from __future__ import annotations

from datetime import datetime

from crawlmill.core import Record, RecordKind, storage
from crawlmill.core.record import OffsetSpace, Provenance
from crawlmill.formats.hadoop.nutch_write import warcinfos_of_metadata
from crawlmill.formats.hadoop.sequencefile import HeaderError, read_header

#: bytes of a remote part fetched for its header (the most :func:`read_header` reads).
HEADER_BYTES = 1 << 20

__all__ = ["warcinfo_records"]


def _headers(raw: bytes) -> tuple[str, bytes, list[tuple[bytes, bytes]]]:
    ending = b"\r\n" if b"\r\n" in raw else b"\n"
    lines = raw.split(ending)
    version = lines[0].partition(b"/")[2].decode("ascii", "replace").strip()
    pairs = []
    for line in lines[1:]:
        if b":" in line:
            name, _, value = line.partition(b":")
            pairs.append((name.strip(), value.strip()))
    return version, ending, pairs


def warcinfo_records(path: str, reader: str) -> list[Record]:
    """The warcinfo records kept in the header of the SequenceFile ``path`` (none when it
    keeps none or is no SequenceFile: its entries report that)."""
    with storage.mapped_start(path, HEADER_BYTES) as data:
        if len(data) == 0:
            return []
        try:
            header = read_header(data)
        except HeaderError:
            return []
    out = []
    for raw, block in warcinfos_of_metadata(header.metadata):
        version, ending, pairs = _headers(raw)
        values = {k.lower(): v for k, v in pairs}
        date_raw = values.get(b"warc-date", b"").decode("utf-8", "surrogateescape") or None
        try:
            date = datetime.fromisoformat(date_raw.replace("Z", "+00:00")) if date_raw else None
        except ValueError:
            date = None
        ctype = values.get(b"content-type")
        warc = {"version": version, "headers": pairs, "raw_header": raw,
                "separator": ending + ending, "cl_includes_separator": False,
                "line_ending": ending, "member": False}  # fmt: skip
        out.append(Record(
            kind=RecordKind.WARCINFO, url=None, date=date, date_raw=date_raw, payload=block,
            content_type=ctype.decode("utf-8", "surrogateescape") if ctype else None,
            extras={"warc": warc}, source=Provenance(path, 0, None, reader, OffsetSpace.FILE),
        ))  # fmt: skip
    return out
