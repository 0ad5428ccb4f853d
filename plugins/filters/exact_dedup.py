"""``exact-dedup``: keep one record per payload digest across all inputs (exact duplicates).

A whole-collection filter (:mod:`crawlmill.core.run.passes`), per key (``reduce_by``, so a
collection whose rows exceed ``run.reduce_memory`` is reduced in partitions by the workers):
its collect pass records ``(key, date, doc_id)`` for every record that takes part; its reduce
keeps one record per key by ``rule`` and the final pass drops the others with reason
``duplicate`` (counted as ``exact-dedup:duplicate``, so read = written + dropped +
quarantined holds).

**The key** (``digest``): ``payload`` is the SHA-1 of the payload bytes as stored (the bytes
after the HTTP head, not de-chunked, not decompressed): what ``WARC-Payload-Digest`` holds
as warcio, Heritrix and crawlmill's WARC writer compute it. ``declared`` takes the record's
``WARC-Payload-Digest`` when it is present and verified (recomputed over the payload with its
own algorithm, base32 or base16), so a collection digested in SHA-256 is keyed by its
SHA-256; a record without one, or whose declared digest does not match its payload, is keyed
by the computed SHA-1 and counted (``digest-missing``, ``digest-mismatch``). Keys carry their
algorithm: two records are duplicates when the same algorithm gives the same digest.

What takes part: records of ``kinds`` (default ``response`` and ``resource``) with at least
``min_bytes`` payload bytes (default 1: the empty bodies of redirects and errors are not
duplicates of each other's content). Every other record is kept and not counted.

Rules (``rule``), each ending in the pipeline order (input order, then record order within
the input) as tie-break, so the result does not depend on the worker count: ``first`` (first
seen), ``earliest`` / ``latest`` (capture date; undated records lose), ``smallest-id`` (doc
id as text; records without one lose).
"""

from __future__ import annotations

import hashlib
from typing import Any, ClassVar, Literal

from crawlmill.core import (
    Drop,
    LazySchema,
    PluginOptions,
    Record,
    ReduceContext,
    hookimpl,
)
from crawlmill.core.reduce_tables import epoch_micros
from pydantic import Field

from .keyed_dedup import KeyedDedupFilter
from .kinds import Kinds, kinds_field

__all__ = ["ExactDedupFilter", "payload_key"]


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema([("key", pa.binary()), ("date", pa.int64()), ("doc_id", pa.string())])


def declared_payload_digest(record: Record) -> bytes | None:
    """The record's ``WARC-Payload-Digest`` value as stored, or ``None``."""
    warc = record.extras.get("warc")
    if not isinstance(warc, dict):
        return None
    for name, value in warc.get("headers") or ():
        if name.lower() == b"warc-payload-digest":
            return value
    return None


def payload_key(record: Record, digest: str = "payload") -> tuple[bytes, str | None]:
    """``(key, problem)``: the dedup key of ``record``'s payload (``algorithm:raw digest``) and
    ``None``, or ``"digest-missing"`` / ``"digest-mismatch"`` when ``digest`` is ``declared``
    and the SHA-1 stood in."""
    problem = None
    if digest == "declared" and "payload" not in record.changed:
        from crawlmill.formats.warc.digest import parse_digest

        stored = declared_payload_digest(record)
        parsed = None if stored is None else parse_digest(stored)
        if parsed is None:
            problem = "digest-missing"
        elif hashlib.new(parsed.algorithm, record.payload).digest() == parsed.raw:
            return parsed.algorithm.encode("ascii") + b":" + parsed.raw, None
        else:
            problem = "digest-mismatch"
    return b"sha1:" + hashlib.sha1(record.payload).digest(), problem


class ExactDedupFilter(KeyedDedupFilter):
    """Keep one record per payload digest (SHA-1, or the verified declared digest) across
    all inputs."""

    reduce_summary = ("record(s) seen", "duplicate(s) to drop")

    name = "exact-dedup"

    class Options(PluginOptions):
        digest: Literal["payload", "declared"] = Field(
            "payload",
            description="payload: SHA-1 of the payload bytes (as WARC-Payload-Digest); "
            "declared: the record's WARC-Payload-Digest when it verifies, else the SHA-1",
        )
        rule: Literal["first", "earliest", "latest", "smallest-id"] = Field(
            "first",
            description="which record of a digest is kept: first (pipeline order), earliest "
            "or latest (capture date; undated ones lose), smallest-id (doc id); ties go to "
            "the first in pipeline order",
        )
        kinds: Kinds = kinds_field("record kinds that take part; records of other kinds are kept")
        min_bytes: int = Field(
            1,
            ge=0,
            description="records with a shorter payload do not take part (are kept); 1: "
            "empty payloads are not duplicates",
        )

    collect_schema: ClassVar[Any] = LazySchema(_schema)

    def _key(self, record: Record, count: bool = False) -> bytes | None:
        """The dedup key of ``record``, or ``None`` when it does not take part; with
        ``count``, a declared digest that is missing or wrong is counted."""
        if record.kind not in self.options.kinds or len(record.payload) < self.options.min_bytes:
            return None
        key, problem = payload_key(record, self.options.digest)
        if count and problem is not None:
            self.ctx.count(problem)
        return key

    def collect(self, record: Record) -> list[tuple] | None:
        """One row ``(key, date in microseconds since the epoch or None, doc id)`` for a
        record that takes part."""
        key = self._key(record)
        if key is None:
            return None
        return [(key, epoch_micros(record.date), record.doc_id)]

    @classmethod
    def reduce(cls, rows: Any, options: Any, ctx: ReduceContext) -> Any:
        """The duplicates: ``(input, seq, key)`` of every record but the one the rule keeps
        per key, sorted by input and seq (also for a part of the rows holding every row of
        its keys, ``reduce_by``)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        order = [("key", "ascending")]
        columns: dict[str, Any] = {"key": rows["key"]}
        if options.rule in ("earliest", "latest"):
            last = -(2**63) if options.rule == "latest" else 2**63 - 1  # undated: lose
            columns["rank"] = pc.fill_null(rows["date"], pa.scalar(last, pa.int64()))
            order.append(("rank", "descending" if options.rule == "latest" else "ascending"))
        elif options.rule == "smallest-id":
            columns["missing"] = pc.is_null(rows["doc_id"])
            columns["rank"] = rows["doc_id"]
            order += [("missing", "ascending"), ("rank", "ascending")]
        columns["input"] = rows["input"]
        columns["seq"] = rows["seq"]
        order += [("input", "ascending"), ("seq", "ascending")]
        ranked = pa.table(columns).sort_by(order)
        return cls.duplicates(ranked, ctx, "records")

    def apply(self, record: Record) -> Record | Drop:
        """Drop the record when the reduce named it a duplicate; with ``digest: declared``
        every record's declared digest is checked (and its problems counted) here too."""
        if self.options.digest != "declared":
            return super().apply(record)
        found = self._key(record, count=True)  # the final pass counts digest problems
        return self.drop_named(record, lambda: found)


@hookimpl
def crawlmill_register_filters(register):
    """Register ``exact-dedup``."""
    register(ExactDedupFilter)
