"""Byte-level ARC tests: header lines, dates, filedesc, HTTP split (crawlmill.formats.arc.header) and
framing, damage and resync (crawlmill.formats.arc.framing)."""

from __future__ import annotations

import gzip
import io
import zlib
from datetime import UTC, datetime
from typing import NamedTuple

import pytest
from crawlmill.formats.arc.framing import ArcRecordBytes, Quirk, file_span, iter_arc
from crawlmill.formats.arc.header import (
    V1_SPEC_LINE,
    V2_SPEC_LINE,
    ArcHeaderError,
    build_filedesc,
    build_header_line,
    parse_arc_date,
    parse_filedesc,
    parse_header_line,
)
from crawlmill.formats.codecs.stream import Damage

HTTP = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"


def _record(
    url: bytes, body: bytes, *, length: int | None = None, date: bytes = b"20120708221327"
) -> bytes:
    n = len(body) if length is None else length
    return build_header_line(url, b"1.2.3.4", date, b"text/html", n) + b"\n" + body + b"\n"


def _arc(records: list[bytes]) -> bytes:
    return build_filedesc(b"test.arc", b"20120708221327") + b"".join(records)


class Located(NamedTuple):
    """A damaged range where the reader reports it: file offset and length (``file_span``)."""

    offset: int
    length: int | None
    reason: str
    data: bytes


def _in_file(d: Damage) -> Located:
    return Located(*file_span(d), d.reason, d.data)


def _walk(data: bytes, **kw):
    items = list(iter_arc(io.BytesIO(data), **kw))
    recs = [i for i in items if isinstance(i, ArcRecordBytes)]
    damage = [_in_file(i) for i in items if isinstance(i, Damage)]
    warnings = [i for i in items if isinstance(i, Quirk)]
    return recs, damage, warnings


def _bodies(n: int) -> list[bytes]:
    return [HTTP + (b"<html>page %d</html>\n" % i) * (i + 1) for i in range(n)]


# -- header lines ------------------------------------------------------------------------


def test_v1_header_split_from_the_right_keeps_spaces_in_url() -> None:
    h = parse_header_line(b"http://a.example/x y z 1.2.3.4 20120524221646 text/html 13033")
    assert h.version == "1"
    assert h.url == b"http://a.example/x y z"
    assert (h.ip, h.date, h.mime, h.length) == (b"1.2.3.4", b"20120524221646", b"text/html", 13033)


def test_v2_header_is_recognised_and_named() -> None:
    line = b"http://a.example/ 1.2.3.4 19981117152003 text/html 200 ab12 - 1234 IA-004168.arc 99"
    h = parse_header_line(line)
    assert h.version == "2"
    assert h.fields["Result-code"] == b"200"
    assert h.fields["Offset"] == b"1234"
    assert h.fields["Filename"] == b"IA-004168.arc"
    assert h.length == 99
    # the same line read as v1 puts the extra fields into the URL
    assert parse_header_line(line, "1").url.endswith(b"text/html 200 ab12")


def test_dashed_and_missing_fields_are_reported_not_fatal() -> None:
    h = parse_header_line(b"filedesc:// - - - 76")
    assert h.is_filedesc and h.length == 76
    assert any("IP-address" in p for p in h.problems)
    m = parse_header_line(b"http://a/ 1.2.3.4 20010101000000 123")
    assert m.mime == b"" and m.length == 123 and "Content-type field missing" in m.problems
    bad = parse_header_line(b"http://a/ 1.2.3.4 20010101000000 text/html abc")
    assert bad.length is None


@pytest.mark.parametrize(
    "line", [b"", b"hello world", b"no-scheme 1.2.3.4 20010101000000 text/html 5"]
)
def test_non_header_lines_raise(line: bytes) -> None:
    with pytest.raises(ArcHeaderError):
        parse_header_line(line)


def test_dates_short_long_and_invalid() -> None:
    assert parse_arc_date(b"20120524221646") == (
        datetime(2012, 5, 24, 22, 16, 46, tzinfo=UTC),
        None,
    )
    d, note = parse_arc_date(b"201404010000000000")
    assert d == datetime(2014, 4, 1, tzinfo=UTC) and "18 digits" in note
    d, note = parse_arc_date(b"20090101")
    assert d == datetime(2009, 1, 1, tzinfo=UTC) and "padded" in note
    assert parse_arc_date(b"blue_monday")[0] is None
    assert parse_arc_date(b"20121332000000")[0] is None


def test_filedesc_version_block() -> None:
    body = b"1 1 InternetArchive\n" + V1_SPEC_LINE + b"\n<arcmetadata/>\n"
    fd = parse_filedesc(body)
    assert (fd.major, fd.minor, fd.origin) == ("1", "1", "InternetArchive")
    assert fd.spec[0] == "URL" and fd.spec[-1] == "Archive-length"
    assert fd.rest == b"<arcmetadata/>\n"
    assert parse_filedesc(b"<xml/>") is None


def test_built_filedesc_declares_its_own_length() -> None:
    data = build_filedesc(b"x.arc.gz", b"20200101000000", extra=b"<meta/>\n")
    line, _, rest = data.partition(b"\n")
    header = parse_header_line(line)
    assert header.url == b"filedesc://x.arc.gz" and header.ip == b"0.0.0.0"
    assert len(rest) == header.length + 1 and rest.endswith(b"\n")
    assert rest.startswith(b"1 0 crawlmill\n" + V1_SPEC_LINE + b"\n<meta/>")


def test_build_header_line_rejects_breaking_fields() -> None:
    with pytest.raises(ValueError):
        build_header_line(b"http://a/\n", b"1.2.3.4", b"20010101000000", b"text/html", 1)
    with pytest.raises(ValueError):
        build_header_line(b"http://a/", b"1.2.3.4", b"20010101000000", b"text html", 1)


# -- framing ---------------------------------------------------------------------------------


def test_plain_file_offsets_and_blocks() -> None:
    bodies = _bodies(3)
    records = [_record(b"http://a.example/%d" % i, b) for i, b in enumerate(bodies)]
    data = _arc(records)
    recs, damage, warnings = _walk(data)
    assert not damage and not warnings
    assert [r.block for r in recs[1:]] == bodies
    assert recs[0].filedesc is not None and recs[0].filedesc.origin == "crawlmill"
    expected = len(build_filedesc(b"test.arc", b"20120708221327"))
    for rec, raw in zip(recs[1:], records, strict=True):
        assert rec.offset == expected and rec.length == len(raw)
        assert data[rec.offset : rec.offset + rec.length] == raw
        expected += len(raw)


def test_gzip_per_record_offsets_are_member_offsets() -> None:
    bodies = _bodies(4)
    members = [gzip.compress(build_filedesc(b"t.arc.gz", b"20120708221327"), mtime=0)]
    members += [
        gzip.compress(_record(b"http://a/%d" % i, b), mtime=0) for i, b in enumerate(bodies)
    ]
    data = b"".join(members)
    recs, damage, warnings = _walk(data)
    assert not damage and not warnings
    pos = 0
    for rec, member in zip(recs, members, strict=True):
        assert (rec.offset, rec.length) == (pos, len(member))
        pos += len(member)
    assert [r.block for r in recs[1:]] == bodies


def test_whole_file_gzip_is_read_by_declared_lengths() -> None:
    bodies = _bodies(3)
    plain = _arc([_record(b"http://a/%d" % i, b) for i, b in enumerate(bodies)])
    recs, damage, _ = _walk(gzip.compress(plain))
    assert not damage
    assert [r.block for r in recs[1:]] == bodies


def test_member_boundary_wins_over_short_declared_length_as_damage() -> None:
    """Common Crawl 2012: the header declares two bytes too few; nothing may be lost, and the
    repair is damage with the member's original bytes."""
    body = HTTP + b"<html>" + b"x" * 500 + b"</html>\n"
    members = [gzip.compress(build_filedesc(b"t.arc.gz", b"20120708221327"), mtime=0)]
    members.append(gzip.compress(_record(b"http://a/", body, length=len(body) - 2), mtime=0))
    members.append(gzip.compress(_record(b"http://b/", body), mtime=0))
    recs, damage, _ = _walk(b"".join(members))
    assert [r.block for r in recs[1:]] == [body, body]
    assert recs[1].damaged and not recs[2].damaged
    assert len(damage) == 1 and "+2" in damage[0].reason
    assert (damage[0].offset, damage[0].length) == (len(members[0]), len(members[1]))
    assert damage[0].data == members[1]
    assert recs[1].offset == len(members[0])


def test_plain_short_declared_length_wins_and_the_rest_is_garbage_damage() -> None:
    """Two bytes more than declared before the next header: nothing proves the length wrong
    (the bytes may have been inserted), so the declared bytes are the record and the rest is
    damage; no byte is lost."""
    bodies = _bodies(3)
    records = [_record(b"http://a/%d" % i, b) for i, b in enumerate(bodies)]
    records[1] = _record(b"http://a/1", bodies[1], length=len(bodies[1]) - 2)
    data = _arc(records)
    recs, damage, _ = _walk(data)
    assert [r.block for r in recs[1:]] == [bodies[0], bodies[1][:-2], bodies[2]]
    assert len(damage) == 1 and damage[0].data == bodies[1][-2:] + b"\n"
    assert damage[0].offset == data.index(records[2]) - 3 and damage[0].length == 3


def test_plain_length_far_too_long_is_truncation_damage_then_resync() -> None:
    bodies = _bodies(3)
    records = [_record(b"http://a/%d" % i, b) for i, b in enumerate(bodies)]
    records[1] = _record(b"http://a/1", bodies[1], length=len(bodies[1]) + 5000)
    data = _arc(records)
    recs, damage, _ = _walk(data)
    # the next header inside the declared block proves the length wrong: cut there
    assert [r.block for r in recs[1:]] == bodies
    assert recs[2].damaged
    assert len(damage) == 1
    start = data.index(b"http://a/1 ")
    assert damage[0].offset == start
    assert damage[0].data == records[1]  # the original bytes are kept whole
    assert "next record header" in damage[0].reason


def test_garbage_between_plain_records_is_damage_with_offset() -> None:
    bodies = _bodies(2)
    r0, r1 = (_record(b"http://a/%d" % i, b) for i, b in enumerate(bodies))
    garbage = b"\x00\x01 this is not an ARC record\nnor this\n"
    data = _arc([r0]) + garbage + r1
    recs, damage, _ = _walk(data)
    assert [r.block for r in recs[1:]] == bodies
    assert len(damage) == 1
    assert damage[0].offset == data.index(garbage) and damage[0].data == garbage


def test_truncated_gzip_member_is_damage_and_next_member_read() -> None:
    bodies = _bodies(3)
    members = [gzip.compress(build_filedesc(b"t.arc.gz", b"20120708221327"), mtime=0)]
    members += [
        gzip.compress(_record(b"http://a/%d" % i, b), mtime=0) for i, b in enumerate(bodies)
    ]
    cut = members[2][: len(members[2]) // 2]
    data = members[0] + members[1] + cut + members[3]
    recs, damage, _ = _walk(data)
    assert [r.block for r in recs[1:]] == [bodies[0], bodies[2]]
    assert len(damage) == 1
    assert damage[0].offset == len(members[0]) + len(members[1])
    assert recs[2].offset == len(members[0]) + len(members[1]) + len(cut)


def test_truncated_last_gzip_member_is_damage() -> None:
    bodies = _bodies(2)
    members = [gzip.compress(build_filedesc(b"t.arc.gz", b"20120708221327"), mtime=0)]
    members += [
        gzip.compress(_record(b"http://a/%d" % i, b), mtime=0) for i, b in enumerate(bodies)
    ]
    data = b"".join(members)[:-40]
    recs, damage, _ = _walk(data)
    # the truncation policy: the partial record is delivered, marked, and reported as damage
    assert recs[1].block == bodies[0] and not recs[1].truncated
    assert recs[2].truncated and bodies[1].startswith(recs[2].block) and recs[2].block
    start = len(members[0]) + len(members[1])
    assert len(damage) == 1 and (damage[0].offset, damage[0].length) == (start, len(data) - start)
    assert damage[0].data == data[start:] and "truncated" in damage[0].reason


def test_member_missing_only_its_trailer_keeps_the_record_and_reports_the_member() -> None:
    body = HTTP + b"complete"
    members = [gzip.compress(build_filedesc(b"t.arc.gz", b"20120708221327"), mtime=0)]
    members.append(gzip.compress(_record(b"http://a/", body), mtime=0))
    data = b"".join(members)[:-4]
    recs, damage, _ = _walk(data)
    assert recs[1].block == body and not recs[1].truncated
    assert len(damage) == 1 and damage[0].offset == len(members[0])
    assert damage[0].length == len(data) - len(members[0]) and "truncated" in damage[0].reason


def test_garbage_between_gzip_members_is_damage_with_raw_bytes() -> None:
    bodies = _bodies(2)
    members = [gzip.compress(build_filedesc(b"t.arc.gz", b"20120708221327"), mtime=0)]
    members += [
        gzip.compress(_record(b"http://a/%d" % i, b), mtime=0) for i, b in enumerate(bodies)
    ]
    garbage = b"JUNKJUNKJUNK"
    data = members[0] + members[1] + garbage + members[2]
    recs, damage, _ = _walk(data)
    assert [r.block for r in recs[1:]] == bodies
    assert len(damage) == 1
    assert damage[0].offset == len(members[0]) + len(members[1])
    assert damage[0].data == garbage and damage[0].length == len(garbage)


def test_corrupt_member_in_the_middle_resyncs() -> None:
    bodies = _bodies(3)
    members = [gzip.compress(build_filedesc(b"t.arc.gz", b"20120708221327"), mtime=0)]
    members += [
        zlib.compress(b"", 1) and gzip.compress(_record(b"http://a/%d" % i, b), mtime=0)
        for i, b in enumerate(bodies)
    ]
    bad = bytearray(members[2])
    for i in range(12, len(bad) - 8):
        bad[i] ^= 0x5A
    data = members[0] + members[1] + bytes(bad) + members[3]
    recs, damage, _ = _walk(data)
    assert [r.block for r in recs[1:]] == [bodies[0], bodies[2]]
    assert damage and damage[0].offset == len(members[0]) + len(members[1])


@pytest.mark.parametrize("compressed", [False, True])
def test_record_larger_than_limit_is_skipped_as_damage(compressed: bool) -> None:
    bodies = [HTTP + b"a" * 100, HTTP + b"b" * 5000, HTTP + b"c" * 100]
    raws = [build_filedesc(b"t.arc", b"20120708221327")]
    raws += [_record(b"http://a/%d" % i, b) for i, b in enumerate(bodies)]
    data = b"".join(gzip.compress(r, mtime=0) for r in raws) if compressed else b"".join(raws)
    recs, damage, _ = _walk(data, max_record_bytes=1000)
    assert [r.block for r in recs[1:]] == [bodies[0], bodies[2]]
    assert len(damage) == 1 and "limit" in damage[0].reason


def test_v2_file_is_read_with_ten_fields() -> None:
    body = b"2 0 Alexa Internet\n" + V2_SPEC_LINE + b"\n"
    fd = b"filedesc://IA-1.arc 0.0.0.0 19981117152003 text/plain 200 - - 0 IA-1.arc %d\n" % len(
        body
    )
    page = HTTP + b"hello"
    rec = b"http://a.example/x y 1.2.3.4 19981117152003 text/html 200 - - 300 IA-1.arc %d\n" % len(
        page
    )
    recs, damage, warnings = _walk(fd + body + b"\n" + rec + page + b"\n")
    assert not damage and not warnings
    assert recs[0].header.version == "2" and recs[0].filedesc.major == "2"
    assert recs[1].header.url == b"http://a.example/x y"
    assert recs[1].header.fields["Offset"] == b"300" and recs[1].block == page


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("compressed", [False, True])
def test_random_damage_loses_no_undamaged_record(seed: int, compressed: bool) -> None:
    """One record is damaged at random (cut, garbage inserted, bytes flipped, length wrong);
    every other record must come out whole and the damage must be reported or repaired."""
    import random

    rng = random.Random(seed)
    bodies = [
        HTTP + bytes(rng.choice(b"abcdefgh \n<>") for _ in range(rng.randint(10, 3000)))
        for _ in range(12)
    ]
    raws = [build_filedesc(b"t.arc", b"20120708221327")]
    raws += [_record(b"http://a.example/%d" % i, b) for i, b in enumerate(bodies)]
    victim = rng.randrange(1, len(raws))
    how = rng.choice(["cut", "garbage", "flip", "length"])
    chunks = [gzip.compress(r, mtime=0) for r in raws] if compressed else list(raws)
    target = bytearray(chunks[victim])
    if how == "cut":
        target = target[: rng.randrange(1, len(target) - 1)]
    elif how == "garbage":
        chunks.insert(victim, bytes(rng.randrange(256) for _ in range(rng.randint(1, 300))))
    elif how == "flip":
        for _ in range(8):
            i = rng.randrange(len(target) // 4, len(target))
            target[i] ^= 0xFF
    else:
        raw = _record(
            b"http://a.example/%d" % (victim - 1),
            bodies[victim - 1],
            length=len(bodies[victim - 1]) + rng.choice([-300, -3, 5, 400]),
        )
        target = bytearray(gzip.compress(raw, mtime=0) if compressed else raw)
    if how != "garbage":
        chunks[victim] = bytes(target)
    recs, damage, warnings = _walk(b"".join(chunks))
    got = {r.header.url: r.block for r in recs}
    for i, body in enumerate(bodies):
        if i + 1 == victim and how != "garbage":
            continue
        assert got.get(b"http://a.example/%d" % i) == body, (how, victim, i)
    if how != "flip" or compressed:  # flipped payload bytes of a plain ARC cannot be seen
        assert damage or warnings or any(r.notes for r in recs), (how, victim)


# -- damaged first bytes (detection and the reader's start) ------------------------------


def _damaged_starts() -> dict[str, tuple[bytes, bool, int]]:
    """Damaged file starts -> (bytes, gzip?, where ARC data starts)."""
    plain = _arc([_record(b"http://a/%d" % i, b) for i, b in enumerate(_bodies(2))])
    members = [gzip.compress(plain[: plain.index(b"http://a/0")], mtime=0)]
    members.append(gzip.compress(plain[plain.index(b"http://a/0") :], mtime=0))
    flipped = bytearray(b"".join(members))
    flipped[0] ^= 0x01
    cut = plain[20:]
    return {
        "flipped-gzip-magic": (bytes(flipped), True, len(members[0])),
        "zeros": (bytes(500) + plain, False, 500),
        "garbage-line": (b"garbage\x00\xff here\n" + plain, False, 15),
        "cut-filedesc": (
            cut,
            False,
            cut.index(b"\n") + 1 + cut[cut.index(b"\n") + 1 :].index(b"\nhttp") + 1,
        ),
    }


@pytest.mark.parametrize("case", ["flipped-gzip-magic", "zeros", "garbage-line", "cut-filedesc"])
def test_find_arc_start_looks_past_damaged_first_bytes(case: str) -> None:
    from crawlmill.formats.arc.framing import find_arc_start

    data, is_gzip, start = _damaged_starts()[case]
    assert find_arc_start(data) == (is_gzip, start)
    recs, damage, _ = _walk(data)
    assert [r.block for r in recs if r.header.url.startswith(b"http")] == _bodies(2)
    assert damage and damage[0].offset == 0


@pytest.mark.parametrize("case", ["flipped-gzip-magic", "zeros", "garbage-line"])
def test_sniff_claims_an_arc_with_damaged_first_bytes(tmp_path, case: str) -> None:
    from crawlmill.formats.codecs.compression import read_head
    from crawlmill.plugins.readers.arc import ArcReader

    data, _, _ = _damaged_starts()[case]
    path = tmp_path / "capture.bin"  # the name says nothing
    path.write_bytes(data)
    assert ArcReader.sniff(str(path), read_head(str(path))) >= 0.4
    other = tmp_path / "other.bin"
    other.write_bytes(b"\x00" * 500 + b"just text\nno header here\n")
    assert ArcReader.sniff(str(other), read_head(str(other))) == 0.0


def test_find_arc_start_gives_none_for_non_arc_data() -> None:
    from crawlmill.formats.arc.framing import find_arc_start

    assert find_arc_start(b"This file is not an arc file.\n") is None
    assert find_arc_start(b"WARC/1.0\r\nWARC-Type: warcinfo\r\n") is None


# -- one vocabulary for problems ------------------------------------------------------------


def test_damage_is_the_streams_damage_in_both_offset_spaces() -> None:
    """The ARC framer hands out ``stream.Damage`` as the WARC framer does: the decompressed
    range, the member span it covers and whether ``data`` is the member's compressed bytes;
    ``file_span`` is where the reader reports it."""
    from crawlmill.formats.arc import framing as arc_framing

    assert not hasattr(arc_framing, "ArcProblem")
    body = HTTP + b"<html>" + b"x" * 500 + b"</html>\n"
    fd = build_filedesc(b"t.arc.gz", b"20120708221327")
    bad = _record(b"http://a/", body, length=len(body) - 2)
    members = [gzip.compress(fd, mtime=0), gzip.compress(bad, mtime=0)]
    items = list(iter_arc(io.BytesIO(b"".join(members))))
    (d,) = [i for i in items if isinstance(i, Damage)]
    assert (d.offset, d.length) == (len(fd), len(bad))  # the member's decompressed bytes
    assert (d.member_offset, d.member_length) == (len(members[0]), len(members[1]))
    assert d.compressed and d.data == members[1]
    assert file_span(d) == (len(members[0]), len(members[1]))
    # a plain file: stream offsets are file offsets, no member
    items = list(iter_arc(io.BytesIO(fd + b"junk line\n" + _record(b"http://b/", body))))
    (d,) = [i for i in items if isinstance(i, Damage)]
    assert d.member_offset is None and not d.compressed
    assert file_span(d) == (d.offset, d.length) == (len(fd), len(b"junk line\n"))


def test_quirk_between_records_has_its_file_offset_and_a_stable_code() -> None:
    """Newlines before a record are repaired, not damage: a :class:`Quirk` at the file offset
    (for gzip, of the member holding them), with the code the reader reports."""
    rec = _record(b"http://a/", HTTP + b"hi")
    fd = build_filedesc(b"t.arc", b"20120708221327")
    recs, damage, quirks = _walk(b"\n\n" + fd + rec)
    assert not damage and len(recs) == 2
    assert quirks == [Quirk(0, "stray newline bytes before a record", "stray-newlines")]
    first = gzip.compress(fd, mtime=0)
    recs, damage, quirks = _walk(first + gzip.compress(b"\n\n" + rec, mtime=0))
    assert not damage and len(recs) == 2
    assert quirks == [Quirk(len(first), "stray newline bytes before a record", "stray-newlines")]
