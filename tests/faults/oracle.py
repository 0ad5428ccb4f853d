"""The oracle side: an intact input's records with their byte spans (listed by warcio, or by
the generator for ClueWeb09-style files warcio cannot read), and the records of a run's
output WARC files (read by warcio), each reduced to a matching key and a byte-exact form."""

from __future__ import annotations

import hashlib
import io
import os
import re
from dataclasses import dataclass, field

from .containers import Unit, container_of, split_units

__all__ = ["Intact", "OrigRecord", "OutRecord", "load_intact", "read_output"]

_CL = re.compile(rb"(?im)^content-length:[ \t]*(\d+)[ \t]*\r?$")


@dataclass(frozen=True)
class OrigRecord:
    """One record of the intact input. Offsets are in the inflated stream (``Intact.dec``);
    ``[dstart, dend)`` includes the separator after the record."""

    index: int
    dstart: int
    dend: int
    unit: int
    key: tuple
    label: str
    head_end: int
    block_start: int
    block_end: int
    length_field: tuple[int, int]


@dataclass
class Intact:
    """An intact input file: bytes, container, units, inflated bytes and records."""

    name: str
    fmt: str
    data: bytes
    container: str
    units: list[Unit]
    dec: bytes
    records: list[OrigRecord]
    #: header names that legitimately differ between two conversions of the same record
    #: (ids crawlmill derives from input offsets for ARC records).
    volatile: frozenset[str] = field(default_factory=frozenset)

    def unit_records(self, u: int) -> list[OrigRecord]:
        """Records held by unit ``u``."""
        return [r for r in self.records if r.unit == u]

    @property
    def per_record(self) -> bool:
        """True when every unit holds at most one record (plain files count as one unit)."""
        return self.container != "plain" and all(
            len(self.unit_records(i)) <= 1 for i in range(len(self.units))
        )


def norm_id(value: str) -> str:
    """A record id without ``<urn:uuid:...>`` wrapping, lower case."""
    v = value.strip().strip("<>").lower()
    return v[len("urn:uuid:") :] if v.startswith("urn:uuid:") else v


def sha(data: bytes) -> str:
    """Short content hash used in keys."""
    return hashlib.sha1(data).hexdigest()


def _anatomy(fmt: str, dec: bytes, start: int, end: int) -> tuple[int, int, int, tuple[int, int]]:
    """(head_end, block_start, block_end, length digits span) of the record at ``start``."""
    if fmt == "arc":
        le = dec.index(b"\n", start, end)
        fields = dec[start:le].rstrip(b"\r").split(b" ")
        length = int(fields[-1])
        digits_end = start + len(dec[start:le].rstrip(b"\r"))
        return le + 1, le + 1, le + 1 + length, (digits_end - len(fields[-1]), digits_end)
    crlf = dec.find(b"\r\n\r\n", start, end)
    lf = dec.find(b"\n\n", start, end)
    cands = [(crlf, crlf + 4), (lf, lf + 2)]
    head_end = min(h for i, h in cands if i >= 0)
    m = _CL.search(dec, start, head_end)
    if m is None:
        raise ValueError(f"no Content-Length in record at {start}")
    cl = int(m.group(1))
    block_end = head_end + cl - (2 if fmt == "clueweb09" else 0)
    return head_end, head_end, block_end, (m.start(1), m.end(1))


def _warcio_offsets(fmt: str, dec: bytes) -> list[tuple[int, dict[str, str]]]:
    from warcio.archiveiterator import ArchiveIterator

    it = ArchiveIterator(io.BytesIO(dec), no_record_parse=True, arc2warc=False)
    found = []
    for rec in it:
        rec.raw_stream.read()
        found.append((it.get_record_offset(), dict(rec.rec_headers.headers)))
    return found


def _generator_offsets(dec: bytes, lengths: list[int]) -> list[tuple[int, dict[str, str]]]:
    found, pos = [], 0
    for n in lengths:
        head = dec[pos : dec.index(b"\n\n", pos)].decode("utf-8", "replace")
        found.append(
            (pos, dict(line.split(": ", 1) for line in head.splitlines()[1:] if ": " in line))
        )
        pos += n
    return found


def load_intact(
    path: str | os.PathLike, fmt: str, record_lengths: list[int] | None = None
) -> Intact:
    """List the records of an intact file. ``fmt``: ``warc``, ``arc`` or ``clueweb09``;
    ``record_lengths`` (inflated bytes per record, from the generator) replaces warcio for
    ClueWeb09-style files. Raises ``ValueError`` when oracle and framing disagree."""
    with open(path, "rb") as fh:
        data = fh.read()
    container = container_of(data)
    units, dec = split_units(data, container)
    offsets = (
        _generator_offsets(dec, record_lengths)
        if record_lengths is not None
        else _warcio_offsets(fmt, dec)
    )
    records = []
    for i, (start, headers) in enumerate(offsets):
        end = offsets[i + 1][0] if i + 1 < len(offsets) else len(dec)
        head_end, bstart, bend, lf = _anatomy(fmt, dec, start, end)
        block = dec[bstart:bend]
        if fmt == "arc":
            uri = headers.get("uri", "")
            key: tuple = ("arc", uri, sha(block))
            label = uri
        else:
            rid = headers.get("WARC-Record-ID", "")
            key = ("warc", norm_id(rid), sha(block))
            label = f"{headers.get('WARC-Type', '?')} {headers.get('WARC-Target-URI', rid)}"
        unit = next(j for j, u in enumerate(units) if u.dstart <= start < u.dend)
        if end > units[unit].dend:
            raise ValueError(f"record {i} of {path} spans two compressed units")
        records.append(OrigRecord(i, start, end, unit, key, label, head_end, bstart, bend, lf))
    if not records:
        raise ValueError(f"the oracle found no record in {path}")
    volatile = (
        frozenset({"WARC-Record-ID", "WARC-Concurrent-To", "WARC-Warcinfo-ID"})
        if fmt == "arc"
        else frozenset()
    )
    return Intact(os.path.basename(path), fmt, data, container, units, dec, records, volatile)


@dataclass(frozen=True)
class OutRecord:
    """One record of an output WARC file as warcio reads it."""

    file: str
    protocol: str
    headers: tuple[tuple[str, str], ...]
    block_sha: str
    block_len: int
    keys: tuple[tuple, ...]
    writer_info: bool
    truncated: bool

    def exact(self, volatile: frozenset[str]) -> tuple:
        """The record's byte-exact form (header lines minus ``volatile`` names, block hash)."""
        heads = tuple((k, v) for k, v in self.headers if k not in volatile)
        return (self.protocol, heads, self.block_sha, self.block_len)


def _out_keys(headers: dict[str, str], block: bytes) -> tuple[tuple, ...]:
    keys = [("warc", norm_id(headers.get("WARC-Record-ID", "")), sha(block))]
    uri = headers.get("WARC-Target-URI", "")
    keys.append(("arc", uri, sha(block)))
    if uri.startswith("filedesc:") and b"\n" in block:
        keys.append(("arc", uri, sha(block.split(b"\n", 1)[1])))
    return tuple(keys)


def read_output(out_dir: str) -> tuple[list[OutRecord], list[str]]:
    """Every record of the WARC files under ``out_dir`` (bookkeeping excluded), and one
    message per file warcio could not read to its end."""
    from warcio.archiveiterator import ArchiveIterator

    records: list[OutRecord] = []
    unreadable: list[str] = []
    for root, dirs, files in os.walk(out_dir):
        dirs[:] = sorted(d for d in dirs if d != ".crawlmill")
        for name in sorted(files):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, out_dir)
            try:
                with open(path, "rb") as fh:
                    for rec in ArchiveIterator(fh, no_record_parse=True):
                        block = rec.raw_stream.read()
                        pairs = tuple((k, v) for k, v in rec.rec_headers.headers)
                        hd = dict(pairs)
                        info = hd.get("WARC-Type") == "warcinfo" and b"conversion-date:" in block
                        records.append(
                            OutRecord(
                                rel,
                                rec.rec_headers.protocol,
                                pairs,
                                sha(block),
                                len(block),
                                _out_keys(hd, block),
                                info,
                                "WARC-Truncated" in hd,
                            )
                        )
            except Exception as exc:  # noqa: BLE001 - any failure is the finding
                unreadable.append(f"{rel}: {type(exc).__name__}: {exc}")
    return records, unreadable
