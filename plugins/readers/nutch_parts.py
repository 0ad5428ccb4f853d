"""What the Nutch readers share: the ``part-*`` files of a Nutch output directory (MapFile
folders or plain SequenceFiles; ``.crc`` side files, ``_SUCCESS``, ``_logs`` and ``index``
files are not data), the decoded entries of one part with their damage reported, whether a
part's keys are sorted (read from the record framing, no value inflated), and a CrawlDatum
as plain data.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from crawlmill.core import Damage, ReadContext, storage
from crawlmill.formats.hadoop import plain_json
from crawlmill.formats.hadoop.codecs import DEFAULT_CODEC, CodecError, codec_for
from crawlmill.formats.hadoop.nutch import decode_nutch, to_plain
from crawlmill.formats.hadoop.nutch_crawldatum import CrawlDatum
from crawlmill.formats.hadoop.sequencefile import (
    RELEASE_STEP,
    SYNC_ESCAPE,
    Entry,
    Header,
    HeaderError,
    iter_entries,
    read_header,
    release_pages,
)
from crawlmill.formats.hadoop.vint import VIntError, decode_vint
from crawlmill.formats.hadoop.writables import canonical_name, content_of, decode_modified_utf8

from ..writables.lookup import find_writable
from ..writables.nutch import resolve_registered

__all__ = [
    "PART",
    "as_json",
    "NutchEntry",
    "datum_plain",
    "iter_part",
    "keys_sorted",
    "millis",
    "part_files",
    "part_indexes",
]

#: an output part of a Hadoop job: ``part-00000``, ``part-r-00000``, ``part-m-00000``.
PART = re.compile(r"part-(?:[rm]-)?[0-9]{5,}\Z")


def part_files(folder: str) -> dict[str, str]:
    """Part name -> its data file (``<part>/data`` of a MapFile folder, or the part itself
    when it is a SequenceFile), in name order; side files are skipped."""
    out: dict[str, str] = {}
    for name, is_folder in storage.entries(folder):
        if not PART.match(name):
            continue
        path = os.path.join(folder, name)
        if is_folder:
            data = os.path.join(path, "data")
            if storage.isfile(data):
                out[name] = data
        else:
            out[name] = path
    return out


def part_indexes(units: list[Any]) -> list[str]:
    """The ``index`` beside every MapFile ``data`` part of ``units`` (what a reader of the
    parts' data accounts for as a side file: ``Reader.side_files``)."""
    found = []
    for unit in units:
        for data in unit.parts.values():
            if os.path.basename(data) == "data":
                index = os.path.join(os.path.dirname(data), "index")
                if storage.isfile(index):
                    found.append(index)
    return found


@dataclass
class NutchEntry:
    """One decoded entry: ``key`` (the key's bytes without their length prefix, the sort
    order of Nutch's MapFiles), ``url``, the decoded ``value``, the raw ``entry``, the
    ``path`` of its file, its ``value_class`` and whether the file is ``legacy`` (SEQ3 or
    older: Nutch 0.8's layouts), which decode the value again."""

    key: bytes
    url: str
    value: Any
    entry: Entry
    path: str = ""
    value_class: str = ""
    legacy: bool = False


def _url(key_class: str, content: bytes) -> str:
    if canonical_name(key_class) == "org.apache.hadoop.io.UTF8":
        try:
            return decode_modified_utf8(content)
        except ValueError:
            pass
    return content.decode("utf-8", "surrogateescape")


def _buffer(path: str, data: Any) -> Any:
    """``data`` (a buffer of ``path`` the caller holds) as a context, else ``path`` mapped."""
    return contextlib.nullcontext(data) if data is not None else storage.mapped(path)


def iter_part(ctx: ReadContext, path: str, data: Any = None) -> Iterator[NutchEntry]:
    """The entries of the SequenceFile ``path`` decoded by their value class; framing damage
    and values that are not one value of their class are reported as damage (with file and
    offset, the bytes quarantined) and skipped. ``data``: the file's buffer when the caller
    holds it (:func:`crawlmill.core.storage.mapped`), else the file is mapped here."""
    with _buffer(path, data) as data:
        if len(data) == 0:
            ctx.report_damage(Damage(path, 0, "empty file: no SequenceFile header", 0, b"",
                                     "truncated-record"))  # fmt: skip
            return
        try:
            header = read_header(data, ctx.limits.max_header_bytes)
        except HeaderError as exc:
            ctx.report_damage(Damage(path, 0, f"not a SequenceFile: {exc}", len(data),
                                     data[: ctx.limits.max_record_bytes], "not-a-record"))  # fmt: skip
            return
        legacy = header.version < 4
        items = iter_entries(data, header, max_record_bytes=ctx.limits.max_record_bytes,
                             max_decompressed_bytes=ctx.limits.max_decompressed_bytes,
                             check=_checker(header, legacy))  # fmt: skip
        for item in items:
            if not isinstance(item, Entry):
                ctx.report_damage(Damage(path, item.offset, item.reason, item.length,
                                         item.data, item.code))  # fmt: skip
                continue
            key = content_of(header.key_class, item.key)
            try:
                value = decode_nutch(header.value_class, item.value, resolve_registered,
                                     legacy=legacy)  # fmt: skip
            except ValueError as exc:
                reason = f"value is not one {header.value_class}: {exc}"
                # the record's bytes in the file (a BLOCK entry: its block's), as read
                raw = bytes(
                    data[item.offset : item.offset + min(item.length, ctx.limits.max_record_bytes)]
                )
                ctx.report_damage(Damage(path, item.offset, reason, item.length, raw,
                                         "value-not-its-class"))  # fmt: skip
                continue
            yield NutchEntry(key, _url(header.key_class, key), value, item, path,
                             header.value_class, legacy)  # fmt: skip


def _checker(header: Header, legacy: bool) -> Any:
    """Whether a record's key and value each decode as exactly one value of their classes: a
    record followed by bytes that start no record is then kept and the damage blamed on what
    follows (without it the framer counts the record's length as disproved and loses it)."""
    key_w = find_writable(header.key_class) or find_writable(canonical_name(header.key_class))
    if key_w is None:
        return None
    key_reader = key_w()

    def check(key: bytes, value: bytes) -> bool:
        try:
            key_reader.read(key)
            decode_nutch(header.value_class, value, resolve_registered, legacy=legacy)
        except Exception:  # noqa: BLE001 - any failure: not one value of its class
            return False
        return True

    return check


def keys_sorted(path: str, data: Any = None) -> bool | None:
    """Whether the keys of the SequenceFile ``path`` never decrease (Hadoop's raw order of
    Text/UTF8 keys: their bytes), read from the record lengths and keys alone (BLOCK files:
    the key buffers, no value inflated); ``None`` when the framing cannot be walked
    (damage). ``data`` as for :func:`iter_part`."""
    with _buffer(path, data) as data:
        if len(data) == 0:
            return None
        try:
            header = read_header(data)
        except HeaderError:
            return None
        return _walk_sorted(data, header)


def _block_keys_sorted(data: Any, header: Header) -> bool | None:
    """The BLOCK walk: per block only the two key buffers are inflated."""
    codec = codec_for(header.codec or DEFAULT_CODEC)
    if codec is None:
        return None
    pos, size, last, released = header.length, len(data), None, 0
    try:
        while pos < size:
            if pos - released >= RELEASE_STEP:  # pages walked past: out of resident memory
                released = release_pages(data, released, pos)
            if bytes(data[pos : pos + 4]) != SYNC_ESCAPE:
                return None
            count, pos = decode_vint(data, pos + 20)
            bufs = []
            for _ in range(4):
                n, pos = decode_vint(data, pos)
                if n < 0 or pos + n > size:
                    return None
                bufs.append(bytes(data[pos : pos + n]) if len(bufs) < 2 else b"")
                pos += n
            lengths = codec.decompress(bufs[0], 1 << 30)
            keys = codec.decompress(bufs[1], 1 << 30)
            at = kpos = 0
            for _ in range(count):
                klen, at = decode_vint(lengths, at)
                key = content_of(header.key_class, keys[kpos : kpos + klen])
                kpos += klen
                if last is not None and key < last:
                    return False
                last = key
    except (VIntError, CodecError):
        return None
    return True


def _walk_sorted(data: Any, header: Header) -> bool | None:
    if header.compression == "block":
        return _block_keys_sorted(data, header)
    pos, size, last, released = header.length, len(data), None, 0
    while pos < size:
        if pos - released >= RELEASE_STEP:  # pages walked past: out of resident memory
            released = release_pages(data, released, pos)
        if pos + 4 > size:
            return None
        if data[pos : pos + 4] == SYNC_ESCAPE:
            pos += 20
            continue
        rec = int.from_bytes(data[pos : pos + 4], "big", signed=True)
        klen = int.from_bytes(data[pos + 4 : pos + 8], "big", signed=True)
        if not 0 <= klen <= rec or pos + 8 + rec > size:
            return None
        key = content_of(header.key_class, bytes(data[pos + 8 : pos + 8 + klen]))
        if last is not None and key < last:
            return False
        last, pos = key, pos + 8 + rec
    return True


def millis(ms: int | None) -> datetime | None:
    """A Java time in ms as a UTC datetime (``None`` for none or 0 or out of range)."""
    if not ms:
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def datum_plain(d: CrawlDatum) -> dict[str, Any]:
    """A CrawlDatum as plain data, with its status name and the dates as ISO text beside the
    stored fields (which write it back)."""
    out = to_plain(d)
    out["status_name"] = d.status_name
    out["fetch_interval_seconds"] = d.fetch_interval_seconds
    when = millis(d.fetch_time)
    out["fetch_date"] = when.isoformat() if when else None
    if d.signature is not None:
        out["signature_hex"] = d.signature.hex()
    return out


def as_json(fields: dict[str, Any]) -> bytes:
    """Plain data as UTF-8 JSON without loss (:func:`crawlmill.formats.hadoop.plain_json.dumps`:
    bytes as ``{"$b64": ...}``, never decoded as text; ``plain_json.loads`` restores them)."""
    return plain_json.dumps(fields)
