"""Seeded damage patterns for SequenceFiles. Each takes a parsed intact file
(:class:`~.seq_oracle.SeqFile`) and a ``random.Random`` and returns a
:class:`~.damage.Damaged` whose ``touched`` entries are the ones the reader may lose.

The rule of what must survive (the format's granularity; README.md states it too):

* damage inside the header (the sync hash, the classes, the codec): no entry is promised;
* otherwise every entry whose element ends at or before the first damaged byte is delivered
  (a NONE/RECORD record; for BLOCK files the whole compressed block with the sync marker
  before it; of classes the reader has no Writable for, the record just before the damage
  may be lost with it: its length cannot be told right from wrong), and every entry from the **first intact sync marker at or after the last
  damaged byte** on (for BLOCK files: the first block whose sync marker is intact). Entries
  between the damage and that sync marker may be lost by design: a reader cannot know where
  a record starts until it sees a sync marker;
* a truncation removes every entry whose element does not end before the cut.

The window a damage report must start in runs from the element before the damaged one to
that sync marker (the end of the file when there is none)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from .damage import Damaged
from .seq_oracle import ESCAPE, SYNC_SIZE, SeqFile, parse_seqfile

__all__ = ["SEQ_PATTERNS", "SeqPattern", "seq_patterns_for"]

#: codecs whose buffers carry a checksum (a flipped bit inside is always detected).
_CHECKED = ("DefaultCodec", "DeflateCodec", "GzipCodec", "BZip2Codec")


class _Ctx:
    def __init__(self, f: SeqFile, rng: random.Random) -> None:
        self.f = f
        self.rng = rng
        self.block = f.compression == "block"
        self.body = [e for e in f.elements if e.kind != "header"]

    @property
    def checked(self) -> bool:
        return self.f.codec is not None and self.f.codec.rsplit(".", 1)[-1] in _CHECKED

    def element_at(self, pos: int) -> int:
        return next(i for i, e in enumerate(self.f.elements) if e.start <= pos < e.end)

    def block_detects(self, lo: int, hi: int) -> bool:
        """Whether changed bytes ``[lo, hi)`` of a BLOCK file are always detected: they touch
        a sync marker or a length field, or the codec checksums its buffers (Snappy and LZ4
        in Hadoop's framing do not: changed data inside a buffer may inflate)."""
        if not self.block:
            return False
        if self.checked:
            return True
        for e in self.body:
            spans = [(e.start, e.start + SYNC_SIZE), *e.fields] if e.kind == "block" else []
            if any(a < hi and lo < b for a, b in spans):
                return True
        return False

    def boundaries(self) -> list[int]:
        """Offsets between two body elements, and the header's end."""
        return sorted({e.start for e in self.body} | {self.f.header_end})

    def make(
        self,
        pattern: str,
        what: str,
        lo: int,
        hi: int,
        new: bytes,
        *,
        truncate: bool = False,
        expect_report: bool = True,
        clean: bool = False,
    ) -> Damaged:
        """Original ``[lo, hi)`` replaced by ``new`` (``truncate``: the file ends at ``lo``)."""
        f = self.f
        size = len(f.data)
        data = f.data[:lo] if truncate else f.data[:lo] + new + f.data[hi:]
        new_size = len(data)

        def mapped(x: int) -> int:
            return x if x <= lo else x - (hi - lo) + len(new)

        els = f.elements
        removed: set[int] = set()
        required: set[int] = set()
        if truncate:
            for e in f.entries:
                if els[e.element].end <= lo:
                    required.add(e.index)
                elif els[e.element].start >= lo:
                    removed.add(e.index)
            resync = None
        else:
            # the first intact sync marker at or after the damage (a BLOCK block starts with one)
            resync = next(
                (e.start for e in self.body if e.kind in ("sync", "block") and e.start >= hi), None
            )
            if clean:  # a valid file: every entry is delivered
                required = {e.index for e in f.entries}
            elif lo >= f.header_end:
                for e in f.entries:
                    el = els[e.element]
                    if el.end <= lo or (resync is not None and el.start >= resync):
                        required.add(e.index)
                before = [e.index for e in f.entries if els[e.element].end <= lo]
                if f.unchecked and before and not self.block:
                    required.discard(before[-1])
        touched = {e.index for e in f.entries} - required - removed
        # where a report must start: the element before the damaged one .. the resync point
        at = self.element_at(min(lo, size - 1))
        lo_w = els[at - 1].start if at > 0 else 0
        hi_w = new_size if truncate or resync is None else min(new_size, mapped(resync))
        labels = f"{len(touched)} entries at risk, {len(removed)} removed"
        return Damaged(
            pattern,
            data,
            f"{what}; {labels}{'' if expect_report else '; no report required'}",
            frozenset(touched),
            frozenset(removed),
            expect_report and not clean,
            (lo_w, max(lo_w, hi_w)),
            clean,
        )

    def pick(self, kinds: tuple[str, ...]) -> int:
        """Index (in ``f.elements``) of a random body element of one of ``kinds``."""
        cands = [i for i, e in enumerate(self.f.elements) if e.kind in kinds]
        return self.rng.choice(cands)

    def flip(self, pattern: str, what: str, pos: int, bit: int | None = None, **kw) -> Damaged:
        bit = self.rng.randrange(8) if bit is None else bit
        new = bytes([self.f.data[pos] ^ (1 << bit)])
        return self.make(
            pattern, f"{what}: bit {bit} of byte {pos} flipped", pos, pos + 1, new, **kw
        )


# -- the patterns ---------------------------------------------------------------------------


def truncate_any(c: _Ctx) -> Damaged:
    f = c.f
    pos = c.rng.randrange(f.header_end, len(f.data))
    ends = {e.end for e in f.elements}
    clean = pos in ends
    # a BLOCK file cut right after a block's sync marker: no rule says whether that is damage
    after_sync = c.block and any(e.kind == "block" and pos == e.start + SYNC_SIZE for e in c.body)
    return c.make(
        "truncate-any",
        f"file truncated at byte {pos}",
        pos,
        len(f.data),
        b"",
        truncate=True,
        clean=clean,
        expect_report=not (clean or after_sync),
    )


def truncate_boundary(c: _Ctx) -> Damaged:
    ends = sorted({e.end for e in c.f.elements if e.end < len(c.f.data)})
    pos = c.rng.choice(ends)
    return c.make(
        "truncate-boundary",
        f"file truncated at {pos}, exactly after a header, record, sync marker or block",
        pos,
        len(c.f.data),
        b"",
        truncate=True,
        clean=True,
    )


def truncate_header(c: _Ctx) -> Damaged:
    pos = c.rng.randrange(1, c.f.header_end)
    return c.make(
        "truncate-header", f"file truncated at {pos}, inside the header", pos, len(c.f.data), b"",
        truncate=True,
    )  # fmt: skip


def bitflip_magic(c: _Ctx) -> Damaged:
    d = c.flip("bitflip-magic", "the magic or version byte", c.rng.randrange(4))
    # another version reads the header differently: the damage may show anywhere after it
    return replace(d, window=(0, len(d.data)))


def bitflip_header(c: _Ctx) -> Damaged:
    pos = c.rng.randrange(4, c.f.header_end)
    return c.flip("bitflip-header", "inside the header", pos, expect_report=False)


def _changes_no_entry(c: _Ctx, pos: int, bit: int) -> bool:
    """Whether the file with bit ``bit`` of byte ``pos`` flipped parses (by the oracle) to the
    same entries: a bit a checksummed codec does not cover and inflating ignores (a gzip
    member's MTIME, XFL or OS byte, RFC 1952; a padding bit after a deflate stream's last
    block), so nothing can be reported and nothing is lost."""
    data = bytearray(c.f.data)
    data[pos] ^= 1 << bit
    try:
        damaged = parse_seqfile(bytes(data))
    except Exception:  # noqa: BLE001 - any failure of the oracle: the flip shows
        return False
    return [(e.key, e.value) for e in damaged.entries] == [
        (e.key, e.value) for e in c.f.entries
    ]


def bitflip_any(c: _Ctx) -> Damaged:
    pos = c.rng.randrange(c.f.header_end, len(c.f.data))
    bit = c.rng.randrange(8)
    el = c.f.elements[c.element_at(pos)]
    in_sync = el.kind == "sync" or (el.kind == "block" and pos < el.start + SYNC_SIZE)
    in_fields = any(a <= pos < b for a, b in el.fields)
    if c.block:
        report = in_sync or in_fields or c.checked
    else:
        # a RECORD value of a checksummed codec, or a sync marker; lengths may still parse
        report = in_sync or (c.f.compression == "record" and c.checked and not in_fields)
        if el.kind == "record" and c.f.compression == "record":
            key_len = int.from_bytes(c.f.data[el.start + 4 : el.start + 8], "big")
            report = report and pos >= el.start + 8 + key_len
    if report and not in_sync and not in_fields:
        report = not _changes_no_entry(c, pos, bit)
    return c.flip("bitflip-any", f"inside a {el.kind}", pos, expect_report=report, bit=bit)


def bitflip_sync(c: _Ctx) -> Damaged:
    i = c.pick(("sync", "block"))
    el = c.f.elements[i]
    pos = c.rng.randrange(el.start, el.start + SYNC_SIZE)
    return c.flip("bitflip-sync", f"inside the sync marker at {el.start}", pos)


def bitflip_length(c: _Ctx) -> Damaged:
    i = c.pick(("record", "block"))
    el = c.f.elements[i]
    a, b = c.rng.choice(el.fields)
    pos = c.rng.randrange(a, b)
    what = "a block count or buffer length" if c.block else "a record's record or key length"
    # a NONE/RECORD length may change to one the next bytes do not disprove (Hadoop trusts it)
    return c.flip("bitflip-length", f"{what} of the {el.kind} at {el.start}", pos,
                  expect_report=c.block)  # fmt: skip


def _inside(c: _Ctx, min_len: int = 2) -> tuple[int, int]:
    """A random position strictly inside a random body element, and that element."""
    i = c.pick(("record", "block", "sync"))
    el = c.f.elements[i]
    if el.end - el.start < min_len:
        return el.start, i
    return c.rng.randrange(el.start + 1, el.end), i


def insert_garbage(c: _Ctx) -> Damaged:
    junk = c.rng.randbytes(c.rng.randrange(8, 200))
    if c.rng.random() < 0.5:
        pos = c.rng.choice(c.boundaries())
        where = "between two elements"
    else:
        pos, _ = _inside(c)
        where = "inside an element"
    return c.make(
        "insert-garbage", f"{len(junk)} bytes of garbage inserted at {pos}, {where}", pos, pos, junk
    )


def insert_zeros(c: _Ctx) -> Damaged:
    n = c.rng.choice([1, 7, 8, 512])
    pos = c.rng.choice(c.boundaries()) if c.rng.random() < 0.5 else _inside(c)[0]
    # zeros read as empty NONE/RECORD records (record length 0, key length 0) until they end
    return c.make("insert-zeros", f"{n} zero bytes inserted at {pos}", pos, pos, b"\0" * n,
                  expect_report=c.block)  # fmt: skip


def delete_bytes(c: _Ctx) -> Damaged:
    pos, i = _inside(c)
    el = c.f.elements[i]
    n = max(1, min(c.rng.randrange(1, 65), el.end - pos))
    return c.make(
        "delete-bytes",
        f"{n} bytes deleted at {pos}, inside the {el.kind} at {el.start}",
        pos,
        pos + n,
        b"",
        expect_report=c.block,
    )


def zero_run(c: _Ctx) -> Damaged:
    body = c.body
    k = c.rng.randrange(0, max(1, len(body) - 2))
    span = c.rng.randrange(1, 4)
    first, last = body[k], body[min(k + span - 1, len(body) - 1)]
    lo = c.rng.randrange(first.start, first.end)
    hi = max(
        lo + 1, c.rng.randrange(last.start, last.end) if last.end > last.start + 1 else last.end
    )
    return c.make("zero-run", f"bytes [{lo},{hi}) zeroed", lo, hi, b"\0" * (hi - lo),
                  expect_report=c.block_detects(lo, hi))  # fmt: skip


def insert_sync(c: _Ctx) -> Damaged:
    """An extra sync marker between two NONE/RECORD records: a valid file."""
    pos = c.rng.choice(c.boundaries())
    marker = ESCAPE + (c.f.sync or b"")
    return c.make(
        "insert-sync", f"an extra sync marker inserted at {pos}", pos, pos, marker, clean=True
    )


def insert_restart(c: _Ctx) -> Damaged:
    """The first bytes of a record (a writer that died inside it and was restarted)."""
    j = c.pick(("record",))
    el = c.f.elements[j]
    cut = c.rng.randrange(el.start + 9, max(el.start + 10, el.end - 1))
    pos = c.rng.choice(c.boundaries())
    partial = c.f.data[el.start : cut]
    return c.make(
        "insert-restart",
        f"the first {len(partial)} bytes of the record at {el.start} inserted at {pos}",
        pos,
        pos,
        partial,
        expect_report=False,  # the cut record's declared length may end on a record
    )


def garbage_prefix(c: _Ctx) -> Damaged:
    junk = c.rng.randbytes(c.rng.randrange(1, 300))
    return c.make("garbage-prefix", f"{len(junk)} bytes of garbage before the magic", 0, 0, junk)


@dataclass(frozen=True)
class SeqPattern:
    """A damage pattern and the compressions it applies to."""

    name: str
    compressions: frozenset[str]
    make: Callable[[_Ctx], Damaged]
    #: needs a sync marker in the body.
    needs_sync: bool = False

    def apply(self, f: SeqFile, rng: random.Random) -> Damaged:
        """Damage ``f`` with ``rng``."""
        return self.make(_Ctx(f, rng))


_ALL = frozenset({"none", "record", "block"})
_RECORDS = frozenset({"none", "record"})

SEQ_PATTERNS: list[SeqPattern] = [
    SeqPattern("truncate-any", _ALL, truncate_any),
    SeqPattern("truncate-boundary", _ALL, truncate_boundary),
    SeqPattern("truncate-header", _ALL, truncate_header),
    SeqPattern("bitflip-magic", _ALL, bitflip_magic),
    SeqPattern("bitflip-header", _ALL, bitflip_header),
    SeqPattern("bitflip-any", _ALL, bitflip_any),
    SeqPattern("bitflip-sync", _ALL, bitflip_sync, needs_sync=True),
    SeqPattern("bitflip-length", _ALL, bitflip_length),
    SeqPattern("insert-garbage", _ALL, insert_garbage),
    SeqPattern("insert-zeros", _ALL, insert_zeros),
    SeqPattern("delete-bytes", _ALL, delete_bytes),
    SeqPattern("zero-run", _ALL, zero_run),
    SeqPattern("insert-sync", _RECORDS, insert_sync),
    SeqPattern("insert-restart", _RECORDS, insert_restart),
    SeqPattern("garbage-prefix", _ALL, garbage_prefix),
]


def seq_patterns_for(f: SeqFile) -> list[SeqPattern]:
    """The patterns that apply to ``f``."""
    has_sync = any(e.kind in ("sync", "block") for e in f.elements)
    return [
        p
        for p in SEQ_PATTERNS
        if f.compression in p.compressions
        and (has_sync or not p.needs_sync)
        and not (p.name == "insert-sync" and f.sync is None)
    ]
