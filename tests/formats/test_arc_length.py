"""The ARC length rule (formats/arc/length.py) at every boundary, on records built here.

A declared length wins whenever the bytes it delimits are followed by a separator (LF or
CRLF, then blank lines) and the next header line, the member end or the file end, or by those
directly. Otherwise the length is provably inconsistent: the repair (cut, extend, truncated) is
delivered and reported as damage with the original bytes, or the bytes after the declared
block are garbage damage. warcio agrees with the declared lengths of every accepted case
(checked where it can read the file).
"""

from __future__ import annotations

import gzip
import io
import random
from typing import NamedTuple

import pytest
from crawlmill.formats.arc.framing import ArcRecordBytes, file_span, iter_arc
from crawlmill.formats.arc.header import build_filedesc, build_header_line
from crawlmill.formats.arc.length import Action, Facts, decide
from crawlmill.formats.codecs.stream import Damage

HTTP = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
FD = build_filedesc(b"t.arc", b"20120708221327")


def head(url: bytes, length: int, eol: bytes = b"\n") -> bytes:
    return build_header_line(url, b"1.2.3.4", b"20120708221327", b"text/html", length) + eol


class Located(NamedTuple):
    """A damaged range where the reader reports it: file offset and length (``file_span``)."""

    offset: int
    length: int | None
    reason: str
    data: bytes


def walk(data: bytes, **kw):
    items = list(iter_arc(io.BytesIO(data), **kw))
    recs = [i for i in items if isinstance(i, ArcRecordBytes)]
    damage = [Located(*file_span(i), i.reason, i.data) for i in items if isinstance(i, Damage)]
    return recs, damage


BODIES = [HTTP + b"<html>one</html>\n", HTTP + b"<p>two</p>", HTTP + b"three\n\n"]


# -- the pure decision -----------------------------------------------------------------------


def test_decide_confirmed_declared_end_wins() -> None:
    v = decide(Facts(10, 50, confirmed=51, data_end=51))
    assert (v.action, v.body_end, v.next) == (Action.DECLARED, 50, 51) and not v.repaired


def test_decide_header_inside_cuts_before_its_separator() -> None:
    v = decide(Facts(10, 50, header_inside=40, sep_before_header=1, data_end=60))
    assert (v.action, v.body_end, v.next) == (Action.CUT, 39, 40) and v.repaired


def test_decide_eof_before_declared_end_is_truncation() -> None:
    v = decide(Facts(10, 50, data_end=30, data_end_is="eof"))
    assert (v.action, v.body_end, v.next) == (Action.TRUNCATED, 30, 30)


def test_decide_member_end_before_declared_end_cuts() -> None:
    v = decide(Facts(10, 50, data_end=30, data_end_is="member", sep_before_data_end=2))
    assert (v.action, v.body_end, v.next) == (Action.CUT, 28, 30)


def test_decide_one_record_member_longer_than_declared_extends() -> None:
    f = Facts(10, 50, data_end=53, data_end_is="member", one_record_member=True)
    v = decide(Facts(**{**_asdict(f), "sep_before_data_end": 1}))
    assert (v.action, v.body_end, v.next) == (Action.EXTEND, 52, 53)


def test_decide_separator_then_junk_in_a_member_keeps_declared() -> None:
    f = Facts(10, 50, data_end=60, data_end_is="member", one_record_member=True, sep_at_end=1)
    v = decide(f)
    assert (v.action, v.body_end, v.next, v.garbage_from) == (Action.GARBAGE_AFTER, 50, 60, 51)


def test_decide_unconfirmed_end_in_plain_data_keeps_declared_and_garbage_follows() -> None:
    v = decide(Facts(10, 50, data_end=70, data_end_is="header", sep_at_end=1))
    assert (v.action, v.body_end, v.next, v.garbage_from) == (Action.GARBAGE_AFTER, 50, 70, 51)


def test_decide_damaged_member_before_the_end_is_proved_is_damage() -> None:
    v = decide(Facts(10, 50, confirmed=None, damaged_at=45, data_end=45, data_end_is="damaged"))
    assert (v.action, v.next) == (Action.DAMAGED, 45)
    # a record confirmed before the damage starts is delivered
    v = decide(Facts(10, 50, confirmed=51, damaged_at=80, data_end=51))
    assert v.action == Action.DECLARED


def _asdict(f: Facts) -> dict:
    return {name: getattr(f, name) for name in Facts.__slots__}


# -- uncompressed files -------------------------------------------------------------------------


@pytest.mark.parametrize("sep", [b"\n", b"", b"\r\n", b"\n\n\n"])
def test_declared_length_wins_with_any_valid_separator(sep: bytes) -> None:
    """LF, none (next header right after), CRLF, blank lines: no byte moves, no damage."""
    eol = b"\r\n" if sep == b"\r\n" else b"\n"
    data = FD + b"".join(
        head(b"http://a/%d" % i, len(b), eol) + b + sep for i, b in enumerate(BODIES)
    )
    recs, damage = walk(data)
    assert not damage
    assert [r.block for r in recs[1:]] == BODIES
    assert [r.trailer for r in recs[1:]] == [sep] * 3


def test_no_separator_keeps_the_last_newline_of_every_block() -> None:
    """IAH blackbook-truncated: blocks ending in "\\n" directly followed by the next header."""
    bodies = [HTTP + b"line\n" * (i + 1) for i in range(4)]
    data = FD[:-1] + b"".join(head(b"http://a/%d" % i, len(b)) + b for i, b in enumerate(bodies))
    recs, damage = walk(data)
    assert not damage and [r.block for r in recs[1:]] == bodies
    assert recs[0].block == FD[FD.index(b"\n") + 1 : -1]


def test_a_header_after_a_separator_may_have_an_odd_date() -> None:
    """Where a header is expected (after a confirmed separator) a line that parses as one is
    a record, even with the date "null" (aut's badexample.arc.gz)."""
    odd = b"http://b/ 1.2.3.4 null text/html 3\nabc\n"
    data = FD + head(b"http://a/", len(BODIES[0])) + BODIES[0] + b"\n" + odd
    recs, damage = walk(data)
    assert not damage and [r.header.url for r in recs[1:]] == [b"http://a/", b"http://b/"]
    assert recs[2].block == b"abc"


def test_next_header_glued_to_a_block_without_newline() -> None:
    data = FD + head(b"http://a/", 10) + b"<p>ten</p>" + head(b"http://b/", 3) + b"abc\n"
    recs, damage = walk(data)
    assert not damage and [r.block for r in recs[1:]] == [b"<p>ten</p>", b"abc"]


@pytest.mark.parametrize("tail", [b"", b"\n", b"\r\n", b"\n\n"])
def test_end_of_file_confirms_the_last_record(tail: bytes) -> None:
    data = FD + head(b"http://a/", len(BODIES[0])) + BODIES[0] + tail
    recs, damage = walk(data)
    assert not damage and recs[1].block == BODIES[0] and recs[1].trailer == tail


@pytest.mark.parametrize("sep", [b"\n", b""])
def test_trailing_filler_after_the_last_record_is_garbage_never_part_of_it(sep: bytes) -> None:
    filler = b"XXXXXXXXXXXXXXXX\nXXXXXXX\n"
    rec = head(b"http://a/", len(BODIES[0])) + BODIES[0] + sep
    data = FD + rec + filler
    recs, damage = walk(data)
    assert recs[1].block == BODIES[0] and not recs[1].damaged
    assert len(damage) == 1 and damage[0].data == filler
    assert (damage[0].offset, damage[0].length) == (len(FD + rec), len(filler))


def test_length_one_too_long_over_the_separator_is_a_record_without_separator() -> None:
    """Declared length + 1 ends exactly where the next header starts: before any record of
    the file showed a separator this is indistinguishable from a writer that leaves the
    separator out (the rule lets the declared length win)."""
    bad = head(b"http://a/1", len(BODIES[1]) + 1) + BODIES[1] + b"\n"
    data = FD + bad + head(b"http://a/2", len(BODIES[2])) + BODIES[2] + b"\n"
    recs, damage = walk(data)
    assert not damage and recs[1].block == BODIES[1] + b"\n" and recs[1].trailer == b""


@pytest.mark.parametrize("at", ["next-header", "eof", "member-end", "whole-file-gzip"])
@pytest.mark.parametrize("sep", [b"\n", b"\r\n"])
@pytest.mark.parametrize("extra", [-1, 1, 2])
def test_declared_length_then_line_ends_then_a_header_or_the_end_is_right(
    need, at: str, sep: bytes, extra: int
) -> None:
    """The rule warcio and warctools follow (issue 25): a declared length followed by nothing
    but line-end bytes, then a valid next header (or the member or file end), is right,
    whatever the earlier records had after their blocks: a block that ends in a line end
    with no separator after it (the last record ending exactly at EOF with ``\\n``), or one
    followed by more line ends than the others (``\\r\\n`` then ``\\r\\n\\n``), is
    read whole at its declared length, no byte changed, no damage."""
    eol = b"\r\n" if sep == b"\r\n" else b"\n"
    body = HTTP + b"%%EOF" + eol  # a block that ends in a line end
    rec0 = head(b"http://a/0", len(BODIES[0]), eol) + BODIES[0] + sep
    # -1: the separator left out (the block's own line end ends it); else more line ends
    tail = b"" if extra < 0 else sep + eol * extra
    bad = head(b"http://a/1", len(body), eol) + body + tail
    rest = head(b"http://a/2", len(BODIES[2]), eol) + BODIES[2] + sep if at != "eof" else b""
    parts = [p for p in [FD, rec0, bad, rest] if p]
    data = b"".join(gz(p) for p in parts) if at == "member-end" else b"".join(parts)
    data = gz(data) if at == "whole-file-gzip" else data
    recs, damage = walk(data)
    assert not damage
    assert [r.block for r in recs[1:]] == [BODIES[0], body, BODIES[2]][: len(parts) - 1]
    if at == "eof" or (at == "next-header" and extra > 0):  # warcio reads the same blocks
        # (warcio wants some line end before a next header: not the "-1" case)
        warcio = need("warcio.archiveiterator")
        got = [r.raw_stream.read() for r in warcio.ArchiveIterator(io.BytesIO(data))]
        want = [b[len(HTTP) :] for b in [BODIES[0], body, BODIES[2]][: len(parts) - 1]]
        assert got[1:] == want  # the payloads after the HTTP head


def test_decide_a_confirmed_end_is_the_declared_one() -> None:
    for run_end in (50, 51, 53):
        v = decide(Facts(10, 50, confirmed=run_end, data_end=run_end, sep_at_end=run_end > 50))
        assert (v.action, v.body_end, v.next) == (Action.DECLARED, 50, run_end)
        assert not v.repaired


@pytest.mark.parametrize("gzipped", [False, True])
def test_no_separator_convention_keeps_declared_lengths_ending_in_newline(gzipped: bool) -> None:
    """A file whose records are not all followed by a separator sets no convention: a block
    ending in a newline right before the next header (or member end) keeps its length."""
    bodies = [HTTP + b"<p>no newline</p>", HTTP + b"line\n", HTTP + b"x\n"]
    recs_raw = [head(b"http://a/%d" % i, len(b)) + b for i, b in enumerate(bodies)]
    data = b"".join(gz(r) for r in [FD, *recs_raw]) if gzipped else FD + b"".join(recs_raw)
    recs, damage = walk(data)
    assert not damage and [r.block for r in recs[1:]] == bodies


def test_a_mixed_separator_gives_the_convention_up() -> None:
    """One record followed by a separator, the next by none (its block has no final newline):
    the file has no convention, a later block ending in a newline keeps its declared length."""
    bodies = [HTTP + b"a\n", HTTP + b"<p>b</p>", HTTP + b"c\n", HTTP + b"d"]
    data = FD + head(b"http://a/0", len(bodies[0])) + bodies[0] + b"\n"
    data += b"".join(head(b"http://a/%d" % i, len(b)) + b for i, b in enumerate(bodies) if i)
    recs, damage = walk(data)
    assert not damage and [r.block for r in recs[1:]] == bodies


def test_decide_invalid_length_takes_the_data_up_to_the_next_record() -> None:
    v = decide(Facts(10, None, data_end=80, data_end_is="header", sep_before_data_end=1))
    assert (v.action, v.body_end, v.next) == (Action.UNDECLARED, 79, 80) and v.repaired


@pytest.mark.parametrize("field", [b"12$", b"-1", b"abc", b"4 7"])
def test_invalid_length_field_is_damage_and_the_next_record_is_whole(field: bytes) -> None:
    """A length that is not a number (a flipped bit in a digit) leaves no length to trust:
    the block up to the next header is delivered and reported with the original bytes."""
    rec0 = head(b"http://a/0", len(BODIES[0])) + BODIES[0] + b"\n"
    bad_head = b"http://a/1 1.2.3.4 20120708221327 text/html " + field + b"\n"
    bad = bad_head + BODIES[1] + b"\n"
    rest = head(b"http://a/2", len(BODIES[2])) + BODIES[2] + b"\n"
    recs, damage = walk(FD + rec0 + bad + rest)
    assert recs[1].block == BODIES[0] and recs[-1].block == BODIES[2]
    assert recs[-1].header.url == b"http://a/2" and not recs[-1].damaged
    assert len(damage) == 1 and len(FD + rec0) <= damage[0].offset < len(FD + rec0 + bad)
    if field != b"4 7":  # a space shifts the fields: a wrong length, found by the rule
        assert damage[0].offset == len(FD + rec0)
        assert recs[2].damaged and recs[2].block == BODIES[1]
        assert damage[0].data == bad and "invalid Archive-length" in damage[0].reason


@pytest.mark.parametrize(
    "prefix",
    [
        b"http://a/rest",
        b"http://a/restart/page.h",
        b"http://a/9 1.2.3.",
        b"http://a/9 1.2.3.4 2012",
    ],
)
def test_a_header_cut_short_and_glued_to_the_next_is_damage_and_a_resync_point(
    prefix: bytes,
) -> None:
    """A writer that died inside a header line and restarted appending: the cut header is
    garbage, the record after it is whole (issue 6 item 9 for ARC)."""
    rec0 = head(b"http://a/0", len(BODIES[0])) + BODIES[0] + b"\n"
    rec1 = head(b"http://b/1", len(BODIES[1])) + BODIES[1] + b"\n"
    recs, damage = walk(FD + rec0 + prefix + rec1)
    assert [r.header.url for r in recs[1:]] == [b"http://a/0", b"http://b/1"]
    assert [r.block for r in recs[1:]] == BODIES[:2]
    assert len(damage) == 1 and damage[0].data == prefix
    assert damage[0].offset == len(FD + rec0)


@pytest.mark.parametrize(
    "url",
    [
        b"http://web.archive.org/web/2001/http://example.com/",
        b"http://x.example/go?u=http://example.com/",
        b"http://x.example/go?u%3Dhttp://example.com/",
    ],
)
def test_a_url_that_embeds_another_after_a_delimiter_stays_one_record(url: bytes) -> None:
    data = FD + head(url, len(BODIES[0])) + BODIES[0] + b"\n"
    recs, damage = walk(data)
    assert not damage and recs[1].header.url == url and recs[1].block == BODIES[0]


@pytest.mark.parametrize("k", [2, 7, 300])
def test_length_too_long_by_k_is_cut_at_the_next_header_as_damage(k: int) -> None:
    bad = head(b"http://a/1", len(BODIES[1]) + k) + BODIES[1] + b"\n"
    after = head(b"http://a/2", len(BODIES[2])) + BODIES[2] + b"\n"
    data = FD + bad + after
    recs, damage = walk(data)
    assert [r.block for r in recs[1:]] == [BODIES[1], BODIES[2]]
    assert recs[1].damaged and not recs[2].damaged
    assert len(damage) == 1 and damage[0].data == bad
    assert (damage[0].offset, damage[0].length) == (len(FD), len(bad))


@pytest.mark.parametrize("k", [1, 3, 40])
def test_length_too_short_by_k_keeps_declared_bytes_and_reports_the_rest(k: int) -> None:
    body = HTTP + b"x" * 60 + b"END"
    bad = head(b"http://a/1", len(body) - k) + body + b"\n"
    after = head(b"http://a/2", len(BODIES[2])) + BODIES[2] + b"\n"
    data = FD + bad + after
    recs, damage = walk(data)
    assert [r.block for r in recs[1:]] == [body[:-k], BODIES[2]]
    assert len(damage) == 1 and damage[0].data == body[-k:] + b"\n"
    assert damage[0].offset == len(FD) + len(bad) - k - 1


def test_truncated_last_record_is_kept_marked_and_reported() -> None:
    rec = head(b"http://a/", 500) + BODIES[0]
    data = FD + rec
    recs, damage = walk(data)
    assert recs[1].truncated and recs[1].block == BODIES[0] and recs[1].damaged
    assert len(damage) == 1 and damage[0].data == rec
    assert (damage[0].offset, damage[0].length) == (len(FD), len(rec))


def test_absurd_length_resyncs_on_the_next_header() -> None:
    """10^15 bytes cannot fit in the file: the next header line is where the record ends."""
    rec0 = head(b"http://a/0", len(BODIES[0])) + BODIES[0] + b"\n"
    bad = head(b"http://a/1", 10**15) + BODIES[1] + b"\n"
    rec2 = head(b"http://a/2", len(BODIES[2])) + BODIES[2] + b"\n"
    data = FD + rec0 + bad + rec2
    recs, damage = walk(data, max_record_bytes=1 << 20)
    assert [r.header.url for r in recs[1:]] == [b"http://a/0", b"http://a/1", b"http://a/2"]
    assert recs[1].block == BODIES[0] and recs[3].block == BODIES[2]
    assert len(damage) == 1 and damage[0].offset == data.index(bad)
    assert damage[0].offset + damage[0].length <= len(data)


# -- gzip ------------------------------------------------------------------------------------


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


@pytest.mark.parametrize("sep", [b"", b"\n", b"\r\n"])
def test_member_end_confirms_the_declared_end(sep: bytes) -> None:
    members = [gz(FD)] + [
        gz(head(b"http://a/%d" % i, len(b)) + b + sep) for i, b in enumerate(BODIES)
    ]
    recs, damage = walk(b"".join(members))
    assert not damage and [r.block for r in recs[1:]] == BODIES


@pytest.mark.parametrize("k", [2, 5])
def test_length_too_long_for_its_member_is_cut_at_the_member_end(k: int) -> None:
    members = [gz(FD), gz(head(b"http://a/", len(BODIES[0]) + k) + BODIES[0] + b"\n"), gz(FD)]
    recs, damage = walk(b"".join(members))
    assert recs[1].block == BODIES[0] and recs[1].damaged
    assert len(damage) == 1 and damage[0].data == members[1]
    assert (damage[0].offset, damage[0].length) == (len(members[0]), len(members[1]))


def test_absurd_length_in_a_member_is_cut_at_the_member_end() -> None:
    members = [gz(FD), gz(head(b"http://a/", 10**15) + BODIES[0] + b"\n")]
    members.append(gz(head(b"http://b/", len(BODIES[1])) + BODIES[1] + b"\n"))
    recs, damage = walk(b"".join(members), max_record_bytes=1 << 20)
    assert [r.block for r in recs[1:]] == [BODIES[0], BODIES[1]]
    assert len(damage) == 1 and damage[0].offset == len(members[0])


def test_whole_file_gzip_follows_the_plain_rule() -> None:
    plain = FD + b"".join(head(b"http://a/%d" % i, len(b)) + b for i, b in enumerate(BODIES))
    recs, damage = walk(gz(plain))
    assert not damage and [r.block for r in recs[1:]] == BODIES


def test_corrupt_member_is_never_delivered_as_a_record() -> None:
    """A member whose inflate fails after the declared bytes came out: damage, not a record;
    its neighbours are whole. The damage is the member's compressed span and bytes."""
    import random

    rng = random.Random(5)
    big = HTTP + bytes(rng.randrange(256) for _ in range(200_000))
    members = [gz(FD)] + [
        gz(head(b"http://a/%d" % i, len(b)) + b + b"\n") for i, b in enumerate(BODIES)
    ]
    victim = gz(head(b"http://big/", len(big)) + big + b"\n")
    bad = bytearray(victim)
    bad[len(bad) - 2000 : len(bad) - 1000] = bytes(1000)  # zeros near its end
    data = b"".join(members[:2]) + bytes(bad) + b"".join(members[2:])
    recs, damage = walk(data)
    assert [r.header.url for r in recs[1:]] == [b"http://a/0", b"http://a/1", b"http://a/2"]
    assert [r.block for r in recs[1:]] == BODIES
    start = len(members[0]) + len(members[1])
    assert len(damage) == 1 and damage[0].offset == start
    assert damage[0].length == len(bad) and damage[0].data == bytes(bad)


@pytest.mark.parametrize("whole_file_gzip", [False, True])
def test_over_limit_length_with_a_complete_record_inside_resyncs(whole_file_gzip: bool) -> None:
    """A length beyond the record limit that the file could hold (or whose end a whole-file
    gzip cannot show yet): a complete record starting inside it disproves it."""
    rec0 = head(b"http://a/0", len(BODIES[0])) + BODIES[0] + b"\n"
    bad = head(b"http://a/1", 5 << 20) + BODIES[1] + b"\n"
    rest = b"".join(head(b"http://a/%d" % i, len(BODIES[2])) + BODIES[2] + b"\n" for i in (2, 3))
    # the file is large enough; the filler does not compress like a bomb (over 100:1)
    plain = FD + rec0 + bad + rest + random.Random(6).randbytes(6 << 20)
    data = gz(plain) if whole_file_gzip else plain
    recs, damage = walk(data, max_record_bytes=1 << 20)
    assert [r.header.url for r in recs[1:]] == [b"http://a/0", b"http://a/2", b"http://a/3"]
    assert damage[0].offset == (0 if whole_file_gzip else len(FD + rec0))
    if not whole_file_gzip:
        assert damage[0].data == bad


@pytest.mark.parametrize("cut", [b"http://x/restart", b"http://x/r 1.2.3", b"\x00\x01junk"])
def test_a_member_starting_with_a_cut_header_keeps_the_record_glued_after_it(cut: bytes) -> None:
    """A gzip member whose first bytes are not a header (a cut header line, junk) but that
    holds a header after them: those bytes are damage, the record after them is read."""
    recs_raw = [head(b"http://a/%d" % i, len(b)) + b + b"\n" for i, b in enumerate(BODIES)]
    members = [gz(FD), gz(recs_raw[0]), gz(cut + recs_raw[1]), gz(recs_raw[2])]
    recs, damage = walk(b"".join(members))
    assert [r.header.url for r in recs[1:]] == [b"http://a/0", b"http://a/1", b"http://a/2"]
    assert [r.block for r in recs[1:]] == BODIES
    assert len(damage) == 1 and damage[0].data == cut
    assert damage[0].offset == len(members[0] + members[1])
