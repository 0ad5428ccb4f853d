"""Seeded damage patterns. Each takes an intact input (:class:`~.oracle.Intact`) and a
``random.Random`` and returns a :class:`Damaged`: the damaged bytes and a precise account of
which original records the damage touched, which it removed, whether it must be reported and
where (a window of offsets in the damaged file).

Rules that decide "touched" (documented in README.md):

* plain file: a record is touched when the damaged range overlaps its bytes (separator
  included); an insertion exactly between two records touches neither;
* compressed unit (gzip member, zstd frame, bzip2 stream): damage at byte ``x`` of a unit touches every
  record of that unit that ends after what the unit's bytes before ``x`` inflate to (a
  decoder cannot go past damage inside one deflate stream), at least the unit's last record;
  other units are untouched;
* damage made inside a record and then compressed anew (wrong lengths, cut headers, huge
  header lines) touches that record only;
* a truncation removes every record that starts after the cut.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from .containers import encode, inflated_prefix
from .oracle import Intact

__all__ = ["BOMB_BYTES", "HEADER_BOMB_BYTES", "PATTERNS", "Damaged", "Pattern", "patterns_for"]

#: what a bomb member inflates to (far above the lowered bounds of bomb runs).
BOMB_BYTES = 256 << 20
#: size of the huge header line (far above max_header_bytes = 1 MiB, below the stream bound).
HEADER_BOMB_BYTES = 64 << 20


@dataclass(frozen=True)
class Damaged:
    """A damaged input and what the damage did to the original records."""

    pattern: str
    data: bytes
    description: str
    touched: frozenset[int]
    removed: frozenset[int]
    #: a damage report is required (the damage is detectable from the bytes).
    expect_report: bool
    #: [lo, hi] offsets in the damaged file where at least one reported damage must start.
    window: tuple[int, int]
    #: the result is a valid file: no damage may be reported.
    clean: bool = False
    #: run with lowered bounds (bombs), through a config file.
    bounded: bool = False


@dataclass(frozen=True)
class _Edit:
    """Original ``[lo, hi)`` replaced by ``new_len`` bytes."""

    lo: int
    hi: int
    new_len: int

    def map(self, x: int) -> int:
        return (
            x
            if x <= self.lo
            else max(self.lo + self.new_len, x - (self.hi - self.lo) + self.new_len)
        )


class _Ctx:
    """Helpers over one intact input."""

    def __init__(self, intact: Intact, rng: random.Random) -> None:
        self.i = intact
        self.rng = rng
        self.plain = intact.container == "plain"

    # -- geometry -------------------------------------------------------------------------
    def elements(self) -> list[tuple[int, int]]:
        """Neighbour elements in file coordinates: records (plain) or units."""
        if self.plain:
            return [(r.dstart, r.dend) for r in self.i.records]
        return [(u.start, u.end) for u in self.i.units]

    def record_span(self, idx: int) -> tuple[int, int]:
        r = self.i.records[idx]
        if self.plain:
            return r.dstart, r.dend
        u = self.i.units[r.unit]
        return u.start, u.end

    def boundaries(self) -> list[int]:
        """File offsets between two elements (start of element 1..n-1)."""
        return [s for s, _ in self.elements()[1:]]

    def touched_by_file_range(self, lo: int, hi: int, insert: bool) -> set[int]:
        i = self.i
        if self.plain:
            if insert:
                return {r.index for r in i.records if r.dstart < lo < r.dend}
            return {r.index for r in i.records if r.dstart < hi and lo < r.dend}
        touched: set[int] = set()
        for ui, u in enumerate(i.units):
            hit = (u.start < lo < u.end) if insert else (u.start < hi and lo < u.end)
            if not hit:
                continue
            first = max(lo, u.start)
            p = inflated_prefix(i.container, i.data[u.start : u.end], first - u.start)
            recs = i.unit_records(ui)
            t = {r.index for r in recs if r.dend > u.dstart + p}
            if not t and recs:
                t = {recs[-1].index}
            touched |= t
        return touched

    def window(self, edit: _Edit, touched: set[int], new_size: int) -> tuple[int, int]:
        spans = [self.record_span(t) for t in touched]
        lo = min([edit.lo] + [s for s, _ in spans])
        hi = max([edit.hi] + [e for _, e in spans])
        els = self.elements()
        lo_w = max([s for s, e in els if e <= lo], default=0)
        hi_w = min([e for s, e in els if s >= hi], default=len(self.i.data))
        return edit.map(lo_w), min(new_size, edit.map(hi_w))

    def make(
        self,
        pattern: str,
        what: str,
        data: bytes,
        edit: _Edit,
        touched: set[int],
        removed: set[int] = frozenset(),
        expect_report: bool = True,
        clean: bool = False,
        bounded: bool = False,
    ) -> Damaged:
        labels = ", ".join(f"#{t} {self.i.records[t].label}" for t in sorted(touched)) or "none"
        desc = (
            f"{what}; touched records: {labels}; removed: {len(removed)}"
            f"{'' if expect_report else '; not detectable, no report required'}"
        )
        return Damaged(
            pattern,
            data,
            desc,
            frozenset(touched),
            frozenset(removed),
            expect_report and not clean,
            self.window(edit, touched, len(data)),
            clean,
            bounded,
        )

    # -- file-level operations -------------------------------------------------------------
    def f_replace(self, pattern: str, what: str, pos: int, new: bytes, **kw) -> Damaged:
        d = self.i.data
        data = d[:pos] + new + d[pos + len(new) :]
        touched = self.touched_by_file_range(pos, pos + len(new), insert=False)
        return self.make(pattern, what, data, _Edit(pos, pos + len(new), len(new)), touched, **kw)

    def f_insert(self, pattern: str, what: str, pos: int, new: bytes, **kw) -> Damaged:
        d = self.i.data
        touched = self.touched_by_file_range(pos, pos, insert=True)
        return self.make(
            pattern, what, d[:pos] + new + d[pos:], _Edit(pos, pos, len(new)), touched, **kw
        )

    def f_delete(self, pattern: str, what: str, pos: int, n: int, **kw) -> Damaged:
        d = self.i.data
        touched = self.touched_by_file_range(pos, pos + n, insert=False)
        return self.make(
            pattern, what, d[:pos] + d[pos + n :], _Edit(pos, pos + n, 0), touched, **kw
        )

    def f_truncate(self, pattern: str, what: str, pos: int, **kw) -> Damaged:
        i = self.i
        if self.plain:
            removed = {r.index for r in i.records if r.dstart >= pos}
        else:
            removed = {r.index for r in i.records if i.units[r.unit].start >= pos}
        touched = self.touched_by_file_range(pos, pos + 1, insert=False) - removed
        return self.make(
            pattern, what, i.data[:pos], _Edit(pos, len(i.data), 0), touched, removed, **kw
        )

    # -- content-level operations (edit the inflated bytes of one unit, compress anew) ---------
    def c_edit(
        self, pattern: str, what: str, dlo: int, dhi: int, new: bytes, truncate: bool = False, **kw
    ) -> Damaged:
        """Replace inflated ``[dlo, dhi)`` by ``new`` inside its unit (``truncate``: the
        unit and the file end after ``new``)."""
        i = self.i
        ui = next(
            k for k, u in enumerate(i.units) if u.dstart <= dlo < u.dend or (dlo == u.dend == dhi)
        )
        u = i.units[ui]
        raw = i.dec[u.dstart : dlo] + new + (b"" if truncate else i.dec[dhi : u.dend])
        unit_bytes = encode(i.container, raw)
        tail = b"" if truncate else i.data[u.end :]
        data = i.data[: u.start] + unit_bytes + tail
        if truncate:
            removed = {r.index for r in i.records if r.dstart >= dlo}
            touched = {r.index for r in i.records if r.dstart < dlo < r.dend}
        elif dlo == dhi:
            removed = set()
            touched = {r.index for r in i.records if r.dstart < dlo < r.dend}
        else:
            removed = set()
            touched = {r.index for r in i.records if r.dstart < dhi and dlo < r.dend}
        if self.plain:
            edit = _Edit(dlo, len(i.data) if truncate else dhi, len(new))
        else:
            edit = _Edit(u.start, len(i.data) if truncate else u.end, len(unit_bytes))
        return self.make(pattern, what, data, edit, touched, removed, **kw)

    def c_insert_between(self, pattern: str, what: str, k: int, raw: bytes, **kw) -> Damaged:
        """Insert ``raw`` just before record ``k``: as raw bytes (plain), as a unit of its own
        (a member per record), or inside the one stream (whole-file)."""
        i = self.i
        r = i.records[k]
        if self.plain:
            return self.f_insert(pattern, what, r.dstart, raw, **kw)
        if i.per_record:
            return self.f_insert(
                pattern,
                what + f" (as its own {i.container} unit)",
                i.units[r.unit].start,
                encode(i.container, raw),
                **kw,
            )
        return self.c_edit(pattern, what, r.dstart, r.dstart, raw, **kw)

    # -- choices ---------------------------------------------------------------------------
    def pick(self, min_index: int = 1, cond: Callable | None = None) -> int:
        recs = [
            r.index for r in self.i.records if r.index >= min_index and (cond is None or cond(r))
        ]
        if not recs:
            recs = [r.index for r in self.i.records if cond is None or cond(r)] or [0]
        return self.rng.choice(recs)


def _garbage(rng: random.Random, n: int, printable: bool = False) -> bytes:
    if printable:
        return bytes(rng.randrange(0x21, 0x7F) for _ in range(n))
    return rng.randbytes(n)


@lru_cache(maxsize=4)
def _bomb(container: str, variant: str, fmt: str) -> bytes:
    """One compressed unit inflating to :data:`BOMB_BYTES` (zeros, or one record with a
    block that large), made in 1 MiB steps."""
    head = b""
    if variant == "record":
        n = BOMB_BYTES - 200
        if fmt == "arc":
            head = f"http://bomb.example/ 10.0.0.1 20260101000000 text/plain {n}\n".encode()
        else:
            head = (
                "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-00000000b0b0>\r\n"
                f"WARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Target-URI: http://bomb.example/\r\nContent-Length: {n}\r\n\r\n"
            ).encode()
    chunk = (b"A" if variant == "record" else b"\0") * (1 << 20)
    total = BOMB_BYTES - len(head)
    if container == "gzip":
        co = zlib.compressobj(9, zlib.DEFLATED, 31)
        parts = [co.compress(head)]
        left = total
        while left > 0:
            parts.append(co.compress(chunk[: min(left, len(chunk))]))
            left -= len(chunk)
        parts.append(co.flush())
        return b"".join(parts)
    import zstandard

    cobj = zstandard.ZstdCompressor(level=3, write_checksum=True).compressobj(size=BOMB_BYTES)
    parts = [cobj.compress(head)]
    left = total
    while left > 0:
        parts.append(cobj.compress(chunk[: min(left, len(chunk))]))
        left -= len(chunk)
    parts.append(cobj.flush())
    return b"".join(parts)


# -- the patterns ---------------------------------------------------------------------------


def truncate_any(c: _Ctx) -> Damaged:
    pos = c.rng.randrange(1, len(c.i.data))
    return c.f_truncate("truncate-any", f"file truncated at byte {pos}", pos)


def truncate_header(c: _Ctx) -> Damaged:
    k = c.pick(cond=lambda r: r.head_end - r.dstart > 4)
    r = c.i.records[k]
    cut = c.rng.randrange(r.dstart + 1, r.head_end - 1)
    if c.plain:
        return c.f_truncate(
            "truncate-header", f"file truncated at {cut}, inside the header of record {k}", cut
        )
    return c.c_edit(
        "truncate-header",
        f"stream ends at inflated offset {cut}, inside the header of record {k} (container intact)",
        cut,
        cut,
        b"",
        truncate=True,
    )


def truncate_block(c: _Ctx) -> Damaged:
    k = c.pick(cond=lambda r: r.block_end - r.block_start >= 2)
    r = c.i.records[k]
    cut = c.rng.randrange(r.block_start + 1, r.block_end)
    if c.plain:
        return c.f_truncate(
            "truncate-block", f"file truncated at {cut}, inside the block of record {k}", cut
        )
    return c.c_edit(
        "truncate-block",
        f"stream ends at inflated offset {cut}, inside the block of record {k} (container intact)",
        cut,
        cut,
        b"",
        truncate=True,
    )


def truncate_member(c: _Ctx) -> Damaged:
    units = c.i.units
    ui = c.rng.randrange(1, len(units)) if len(units) > 1 else 0
    u = units[ui]
    pos = c.rng.randrange(u.start + 1, u.end - 1)
    return c.f_truncate(
        "truncate-member",
        f"file truncated at {pos}, inside {c.i.container} unit {ui} [{u.start},{u.end})",
        pos,
    )


def truncate_boundary(c: _Ctx) -> Damaged:
    bounds = c.boundaries()
    pos = c.rng.choice(bounds)
    return c.f_truncate(
        "truncate-boundary",
        f"file truncated at {pos}, exactly between two records",
        pos,
        expect_report=False,
        clean=True,
    )


def bitflip_magic(c: _Ctx) -> Damaged:
    pos = c.rng.choice([0, 1]) if not c.plain else c.rng.randrange(0, 4)
    bit = c.rng.randrange(8)
    new = bytes([c.i.data[pos] ^ (1 << bit)])
    # a plain ARC file starts with a URL: a flipped bit there is still a valid header line
    visible = not (c.plain and c.i.fmt == "arc")
    return c.f_replace(
        "bitflip-magic",
        f"bit {bit} of byte {pos} flipped (the file's first bytes)",
        pos,
        new,
        expect_report=visible,
    )


def bitflip_header(c: _Ctx) -> Damaged:
    k = c.pick()
    r = c.i.records[k]
    spots = list(range(*r.length_field))
    if c.i.fmt != "arc":
        spots += list(range(r.dstart, r.dstart + 4))  # "WARC"
    pos = c.rng.choice(spots)
    bit = c.rng.randrange(7)
    new = bytes([c.i.dec[pos] ^ (1 << bit)])
    what = f"bit {bit} flipped at inflated offset {pos}, in the version line or declared length of record {k}"
    # a digit flipped into another digit whose length still holds is not detectable (the
    # length patterns' rule, _declared_still_holds): ClueWeb09's 16552 counting the "\n\n"
    # separator flipped to 16550, which ends the block right before it
    lo, hi = r.length_field
    digits = c.i.dec[lo:pos] + new + c.i.dec[pos + 1 : hi]
    seen = not (lo <= pos < hi and digits.isdigit() and _declared_still_holds(c.i, r, int(digits)))
    if c.plain:
        return c.f_replace("bitflip-header", what, pos, new, expect_report=seen)
    return c.c_edit("bitflip-header", what, pos, pos + 1, new, expect_report=seen)


def bitflip_any(c: _Ctx) -> Damaged:
    d = c.i.data
    while True:
        pos = c.rng.randrange(0, len(d))
        u = next(u for u in c.i.units if u.start <= pos < u.end)
        if c.i.container == "gzip" and 4 <= pos - u.start <= 9:
            continue  # MTIME, XFL, OS: no check covers them
        break
    bit = c.rng.randrange(8)
    return c.f_replace(
        "bitflip-any", f"bit {bit} of byte {pos} flipped", pos, bytes([d[pos] ^ (1 << bit)])
    )


def bitflip_payload(c: _Ctx) -> Damaged:
    k = c.pick(cond=lambda r: r.block_end - r.block_start >= 1)
    r = c.i.records[k]
    pos = c.rng.randrange(r.block_start, r.block_end)
    bit = c.rng.randrange(8)
    return c.f_replace(
        "bitflip-payload",
        f"bit {bit} of byte {pos} flipped, inside the block of record {k}",
        pos,
        bytes([c.i.data[pos] ^ (1 << bit)]),
        expect_report=False,
    )


def insert_garbage_between(c: _Ctx) -> Damaged:
    k = c.pick()
    junk = _garbage(c.rng, c.rng.randrange(20, 200))
    return c.c_insert_between(
        "insert-garbage-between",
        f"{len(junk)} bytes of garbage inserted before record {k}",
        k,
        junk,
    )


def insert_garbage_inside(c: _Ctx) -> Damaged:
    if c.plain:
        k = c.pick(cond=lambda r: r.block_end - r.block_start >= 2)
        r = c.i.records[k]
        pos = c.rng.randrange(r.block_start + 1, r.block_end)
        junk = _garbage(c.rng, c.rng.randrange(8, 64), printable=True)
        return c.f_insert(
            "insert-garbage-inside",
            f"{len(junk)} bytes of garbage inserted at {pos}, inside the block of record {k}",
            pos,
            junk,
        )
    ui = c.rng.randrange(len(c.i.units))
    u = c.i.units[ui]
    pos = c.rng.randrange(u.start + 10, u.end - 1)
    junk = _garbage(c.rng, c.rng.randrange(8, 64))
    return c.f_insert(
        "insert-garbage-inside",
        f"{len(junk)} bytes of garbage inserted at {pos}, inside unit {ui}",
        pos,
        junk,
    )


def insert_zeros(c: _Ctx) -> Damaged:
    k = c.pick()
    n = c.rng.choice([1, 7, 512, 4096])
    return c.c_insert_between(
        "insert-zeros", f"{n} zero bytes inserted before record {k}", k, b"\0" * n
    )


def insert_restart(c: _Ctx) -> Damaged:
    k = c.pick()
    j = c.pick(min_index=0, cond=lambda r: r.head_end - r.dstart > 24)
    rj = c.i.records[j]
    cut = c.rng.randrange(rj.dstart + 12, rj.head_end - 4)
    partial = c.i.dec[rj.dstart : cut]
    return c.c_insert_between(
        "insert-restart",
        f"the first {len(partial)} bytes of record {j}'s header (a writer that died inside a header and was restarted) inserted before record {k}",
        k,
        partial,
    )


def delete_bytes(c: _Ctx) -> Damaged:
    if c.plain:
        k = c.pick(cond=lambda r: r.block_end - r.block_start >= 1)
        r = c.i.records[k]
        pos = c.rng.randrange(r.block_start, r.block_end)
        n = c.rng.randrange(8, 65)
        return c.f_delete(
            "delete-bytes", f"{n} bytes deleted at {pos}, from the block of record {k}", pos, n
        )
    ui = c.rng.randrange(len(c.i.units))
    u = c.i.units[ui]
    pos = c.rng.randrange(u.start + 1, u.end - 1)
    n = min(c.rng.randrange(1, 65), u.end - pos - 1)
    return c.f_delete(
        "delete-bytes", f"{n} bytes deleted at {pos}, inside unit {ui}", pos, max(1, n)
    )


def _gzip_unit(c: _Ctx) -> int:
    return c.rng.randrange(len(c.i.units))


def gzip_flg_reserved(c: _Ctx) -> Damaged:
    ui = _gzip_unit(c)
    u = c.i.units[ui]
    bit = c.rng.choice([0x20, 0x40, 0x80])
    return c.f_replace(
        "gzip-flg-reserved",
        f"reserved FLG bit {bit:#x} set in gzip member {ui} at {u.start + 3}",
        u.start + 3,
        bytes([c.i.data[u.start + 3] | bit]),
    )


def gzip_bad_cm(c: _Ctx) -> Damaged:
    ui = _gzip_unit(c)
    u = c.i.units[ui]
    cm = c.rng.choice([0, 7, 9, 15])
    return c.f_replace(
        "gzip-bad-cm", f"CM={cm} in gzip member {ui} at {u.start + 2}", u.start + 2, bytes([cm])
    )


def bad_crc(c: _Ctx) -> Damaged:
    ui = _gzip_unit(c)
    u = c.i.units[ui]
    pos = u.end - 8 + c.rng.randrange(4)
    return c.f_replace(
        "bad-crc",
        f"CRC32 of gzip member {ui} changed at {pos}",
        pos,
        bytes([c.i.data[pos] ^ (1 + c.rng.randrange(255))]),
    )


def _length(c: _Ctx, pattern: str, change: Callable[[int], int]) -> Damaged:
    k = c.pick(min_index=0, cond=lambda r: int(c.i.dec[slice(*r.length_field)]) > 12)
    r = c.i.records[k]
    old = int(c.i.dec[slice(*r.length_field)])
    new = change(old)
    what = f"declared length of record {k} changed from {old} to {new}"
    return c.c_edit(
        pattern,
        what,
        r.length_field[0],
        r.length_field[1],
        str(new).encode(),
        expect_report=not _declared_still_holds(c.i, r, new),
    )


def _declared_still_holds(i, r, new: int) -> bool:
    """Whether the changed length still ends where the length rule accepts it (issue 25, what
    warcio and warctools read): nothing but line-end bytes between the new declared end and
    the next record's header, or its unit's (member's, file's) end. Such a change is not
    detectable from the bytes: no report is required (the record is read at the new length)."""
    end = r.block_start + new
    nxt = [q.dstart for q in i.records if q.unit == r.unit and q.dstart >= r.dend]
    boundary = min(nxt) if nxt else i.units[r.unit].dend
    return r.block_start <= end <= boundary and not i.dec[end:boundary].strip(b"\r\n")


def length_plus(c: _Ctx) -> Damaged:
    d = c.rng.randrange(1, 10)
    return _length(c, "length-plus", lambda n: n + d)


def length_minus(c: _Ctx) -> Damaged:
    d = c.rng.randrange(1, 10)
    return _length(c, "length-minus", lambda n: n - d)


def length_absurd(c: _Ctx) -> Damaged:
    return _length(c, "length-absurd", lambda n: 10**15)


def bomb_member(c: _Ctx) -> Damaged:
    k = c.pick()
    variant = c.rng.choice(["zeros", "record"])
    unit = _bomb(c.i.container, variant, c.i.fmt)
    pos = c.i.units[c.i.records[k].unit].start
    return c.f_insert(
        "bomb-member",
        f"a {len(unit)}-byte {c.i.container} unit inflating to {BOMB_BYTES} bytes ({variant}) inserted before record {k}",
        pos,
        unit,
        bounded=True,
    )


def bomb_header(c: _Ctx) -> Damaged:
    k = c.pick()
    r = c.i.records[k]
    if c.i.fmt == "arc":  # the ARC header line itself: a URL of 24 MiB
        pos = r.dstart + c.i.dec.index(b" ", r.dstart) - r.dstart
        new = b"/" + b"a" * HEADER_BOMB_BYTES
    else:
        pos = c.i.dec.index(b"\n", r.dstart) + 1
        eol = b"\r\n" if c.i.dec[pos - 2 : pos] == b"\r\n" else b"\n"
        new = b"X-Filler: " + b"a" * HEADER_BOMB_BYTES + eol
    return c.c_edit(
        "bomb-header",
        f"a header line of {len(new)} bytes inserted into record {k}",
        pos,
        pos,
        new,
        bounded=True,
    )


def garbage_prefix(c: _Ctx) -> Damaged:
    junk = _garbage(c.rng, c.rng.randrange(1, 300))
    return c.f_insert(
        "garbage-prefix", f"{len(junk)} bytes of garbage before the first record", 0, junk
    )


def zeros_prefix(c: _Ctx) -> Damaged:
    n = c.rng.choice([1, 512, 4096])
    return c.f_insert("zeros-prefix", f"{n} zero bytes before the first record", 0, b"\0" * n)


def zero_run(c: _Ctx) -> Damaged:
    els = c.elements()
    k = c.rng.randrange(0, max(1, len(els) - 3))
    span = c.rng.randrange(2, 5)
    lo = c.rng.randrange(els[k][0] + 1, els[k][1])
    last = els[min(k + span - 1, len(els) - 1)]
    hi = c.rng.randrange(last[0], last[1]) if last[1] > last[0] + 1 else last[1]
    hi = max(hi, lo + 1)
    return c.f_replace(
        "zero-run", f"bytes [{lo},{hi}) zeroed across {span} records", lo, b"\0" * (hi - lo)
    )


@dataclass(frozen=True)
class Pattern:
    """A damage pattern, the layouts it applies to and its generator."""

    name: str
    layouts: frozenset[str]
    make: Callable[[_Ctx], Damaged]
    #: a real sample is only damaged this way when true (bombs: the container, not the data).
    samples: bool = True

    def apply(self, intact: Intact, rng: random.Random) -> Damaged:
        """Damage ``intact`` with ``rng``."""
        return self.make(_Ctx(intact, rng))


_ALL = frozenset({"plain", "gzip", "gzip-whole", "zstd", "bzip2"})
_COMPRESSED = frozenset({"gzip", "gzip-whole", "zstd", "bzip2"})
_GZIP = frozenset({"gzip", "gzip-whole"})
#: bombs are built for gzip and zstd only (a bzip2 one takes long to make).
_BOMBS = frozenset({"plain", "gzip", "gzip-whole", "zstd"})

PATTERNS: list[Pattern] = [
    Pattern("truncate-any", _ALL, truncate_any),
    Pattern("truncate-header", _ALL, truncate_header),
    Pattern("truncate-block", _ALL, truncate_block),
    Pattern("truncate-member", _COMPRESSED, truncate_member),
    Pattern("truncate-boundary", frozenset({"plain", "gzip", "zstd", "bzip2"}), truncate_boundary),
    Pattern("bitflip-magic", _ALL, bitflip_magic),
    Pattern("bitflip-header", _ALL, bitflip_header),
    Pattern("bitflip-any", _COMPRESSED, bitflip_any),
    Pattern("bitflip-payload", frozenset({"plain"}), bitflip_payload),
    Pattern("insert-garbage-between", _ALL, insert_garbage_between),
    Pattern("insert-garbage-inside", _ALL, insert_garbage_inside),
    Pattern("insert-zeros", _ALL, insert_zeros),
    Pattern("insert-restart", _ALL, insert_restart),
    Pattern("delete-bytes", _ALL, delete_bytes),
    Pattern("gzip-flg-reserved", _GZIP, gzip_flg_reserved),
    Pattern("gzip-bad-cm", _GZIP, gzip_bad_cm),
    Pattern("bad-crc", _GZIP, bad_crc),
    Pattern("length-plus", _ALL, length_plus),
    Pattern("length-minus", _ALL, length_minus),
    Pattern("length-absurd", _ALL, length_absurd),
    Pattern("bomb-member", frozenset({"gzip", "zstd"}), bomb_member, samples=False),
    Pattern("bomb-header", _BOMBS, bomb_header, samples=False),
    Pattern("garbage-prefix", _ALL, garbage_prefix),
    Pattern("zeros-prefix", _ALL, zeros_prefix),
    Pattern("zero-run", frozenset({"plain", "gzip", "zstd", "bzip2"}), zero_run),
]


def patterns_for(layout: str, sample: bool) -> list[Pattern]:
    """The patterns that apply to an input of ``layout``."""
    return [p for p in PATTERNS if layout in p.layouts and (p.samples or not sample)]
