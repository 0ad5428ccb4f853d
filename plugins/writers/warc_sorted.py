"""The WARC writer's ``sorted`` option: a collection ordered by SURT key, in N partitions.

``sorted: {key: surt, partitions: N, partitioning: hash|range}`` makes the engine shuffle the
records (:mod:`crawlmill.core.run.shuffle`) so each of the N writer tasks receives its partition's
records in key order from all inputs:

* **sort key** (:func:`sort_key`): ``<SURT url key> <14-digit timestamp>`` as UTF-8 bytes, the
  start of the CDXJ line a record gets (:mod:`crawlmill.formats.warc.cdxj`: the one SURT
  canonicalisation, shared with the CDXJ side writer), so a sorted WARC lists its records in
  the order of its CDXJ index. Keys compare as unsigned bytes; records with equal keys keep
  input order (input index, then position in the input). The timestamp is the capture date
  in UTC (``date``), else the digits of ``date_raw``; none: the key ends with the space.
* **hash partitioning** (:func:`partition_of`): CRC-32 (zlib, the same in every process and
  on every machine; Python's ``hash()`` is salted per process) of the SURT url key, modulo N:
  every capture of a URL is in one partition.
* **range partitioning**: partition i holds the i-th key range; the ranges' N-1 boundaries
  come from key samples the map tasks took (:func:`crawlmill.algorithms.sorted_runs.merge.boundaries`),
  so partition files concatenated in order are one sorted collection.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import UTC
from typing import Annotated, Literal

from crawlmill.core import Record, ShuffleSpec
from crawlmill.core.options import Ge, Le, LightOptions, option
from crawlmill.formats.warc.cdxj import index_url, surt, timestamp14

__all__ = ["SortedOptions", "partition_of", "shuffle_spec", "sort_key", "url_key"]


@dataclass(frozen=True, kw_only=True)
class SortedOptions(LightOptions):
    """``sorted``: order the written collection by key, in ``partitions`` files."""

    key: Literal["surt"] = option(
        "surt",
        description="Sort key: surt = SURT url key, then the capture timestamp (CDXJ order).",
    )
    partitions: Annotated[int, Ge(1), Le(100_000)] = option(
        1, description="Number of output partitions."
    )
    partitioning: Literal["hash", "range"] = option(
        "hash",
        description="hash: a URL's captures in one partition (CRC-32 of its SURT key); range: partition i holds the i-th key range, so the partitions in order are one sorted collection.",
    )


def url_key(record: Record) -> bytes:
    """The SURT url key of the record's URL as bytes (raw URL bytes survive)."""
    return surt(index_url(record.url) if record.url else record.url).encode(
        "utf-8", "surrogateescape"
    )


def _timestamp(record: Record) -> bytes:
    if record.date is not None:
        when = record.date.astimezone(UTC) if record.date.tzinfo else record.date
        return when.strftime("%Y%m%d%H%M%S").encode("ascii")
    if record.date_raw:
        return timestamp14(record.date_raw).encode("ascii")
    return b""


def sort_key(record: Record) -> bytes:
    """``<SURT url key> <timestamp14>``: the record's place in a SURT-sorted collection."""
    return url_key(record) + b" " + _timestamp(record)


def partition_of(record: Record, partitions: int) -> int:
    """The hash partition of the record: CRC-32 of its SURT url key, modulo ``partitions``."""
    return zlib.crc32(url_key(record)) % partitions


def shuffle_spec(options: SortedOptions | None) -> ShuffleSpec | None:
    """The shuffle the option asks for (``None``: no ``sorted`` option)."""
    if options is None:
        return None
    return ShuffleSpec(options.partitions, options.partitioning)
