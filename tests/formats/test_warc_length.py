"""The declared-length rule (formats/warc/length.py) at every boundary, alone and in the framer."""

from __future__ import annotations

import io

import pytest
from crawlmill.formats.codecs.compression import iter_pieces
from crawlmill.formats.warc.framer import DamagedRange, FramedRecord, WarcFramer
from crawlmill.formats.warc.length import After, digest_disproves, judge_length

from tests.helpers import gz

CRLF, LF = b"\r\n", b"\n"


def judge(run, after, *, version="1.0", le=CRLF, tail=b"abcd", seen=False, head_only=False):
    return judge_length(
        version=version,
        line_ending=le,
        block_tail=tail,
        run=run,
        after=after,
        convention_seen=seen,
        head_only=head_only,
    )


@pytest.mark.parametrize("le", [CRLF, LF])
@pytest.mark.parametrize("after", list(After))
def test_proper_separator_always_holds(le, after):
    v = judge(le + le, after, le=le)
    assert v.ok and v.block_trim == 0 and v.issue is None


@pytest.mark.parametrize("after", [After.VERSION, After.END])
@pytest.mark.parametrize("run", [CRLF, LF, b"\n\n", b"\r\n\r\n\r\n", b"\r\r\n"])
def test_odd_separator_before_a_boundary_holds_with_a_warning(run, after):
    v = judge(run, after)
    assert v.ok and v.block_trim == 0 and v.issue.startswith("separator: unexpected")


@pytest.mark.parametrize("run", [b"", CRLF, b"\r\n\r", b"\n\r\n"])
def test_nothing_valid_after_the_block_is_inconsistent(run):
    assert not judge(run, After.OTHER).ok


@pytest.mark.parametrize("le", [CRLF, LF])
def test_proper_separator_then_damage_keeps_the_record(le):
    # garbage that starts with CR/LF right after a proper separator is damage of its own
    v = judge(le + le + b"\r\n", After.OTHER, le=le)
    assert v.ok and v.separator == 2 * len(le) and v.issue is None


@pytest.mark.parametrize("after", [After.VERSION, After.END])
def test_missing_separator_before_a_boundary_keeps_the_declared_block(after):
    # WARC 1.0 warcinfo whose block ends in \r\n\r\n\r\n\r\n at the member end (warc2zim):
    # the declared length wins, nothing is cut
    v = judge(b"", after, tail=b"\r\n\r\n\r\n\r\n")
    assert v.ok and v.block_trim == 0 and v.issue == "separator: record separator missing"


@pytest.mark.parametrize("version", ["1.0", "1.1"])
def test_clueweb_convention_never_applies_to_warc_1x(version):
    v = judge(b"", After.VERSION, version=version, tail=b"x\r\n\r\n")
    assert v.ok and not v.cl_includes_separator


@pytest.mark.parametrize("version", ["0.17", "0.18"])
@pytest.mark.parametrize("le", [CRLF, LF])
def test_clueweb_convention_where_the_bytes_prove_it(version, le):
    v = judge(b"", After.VERSION, version=version, le=le, tail=b"</html>" + le + le)
    assert v.ok and v.cl_includes_separator and v.block_trim == 2 * len(le)
    assert v.issue.startswith("cl-includes-separator")


def test_clueweb_convention_needs_the_blank_line_and_the_next_record():
    assert not judge(b"", After.VERSION, version="0.18", tail=b"html>\n").cl_includes_separator
    # at the end of the file (or member) with CRLF headers only once the file showed it
    assert not judge(
        b"", After.END, version="0.18", le=CRLF, tail=b"x\r\n\r\n"
    ).cl_includes_separator
    assert judge(
        b"", After.END, version="0.18", le=CRLF, tail=b"x\r\n\r\n", seen=True
    ).cl_includes_separator
    # with ClueWeb09's LF-only headers the end of the file or of the record's own gzip member
    # is the boundary (a 0.18 file compressed per record, as our writer does: issue 19; a
    # ClueWeb09 file cut right after a record: the soak's clueweb09/plain/truncate-boundary/
    # s8014, whose warcinfo alone must read as in the whole file)
    assert judge(b"", After.END, version="0.18", le=LF, tail=b"x\n\n").cl_includes_separator
    assert not judge(b"", After.END, version="1.0", le=LF, tail=b"x\n\n").cl_includes_separator
    # a head-only HTTP block owns its blank line
    assert not judge(
        b"", After.VERSION, version="0.18", tail=b"\r\n\r\n", head_only=True
    ).cl_includes_separator


# -- in the framer: too long / too short by k, member end, EOF, next version line ------------


def rec(body: bytes, *, cl: int | None = None, version=b"1.0", le=CRLF) -> bytes:
    lines = [
        b"WARC/" + version,
        b"WARC-Type: resource",
        b"Content-Length: %d" % (len(body) if cl is None else cl),
    ]
    return le.join(lines) + le + le + body


def frame(data: bytes, kind=None) -> list:
    return list(WarcFramer(iter_pieces(io.BytesIO(data), kind)))


def test_block_ending_in_blank_lines_at_a_member_end_is_kept_whole():
    info = rec(b"software: x\r\n\r\n\r\n\r\n")  # no separator after the block, in its own member
    nxt = rec(b"hello") + b"\r\n\r\n"
    items = frame(gz(info) + gz(nxt), "gzip")
    assert [type(i) for i in items] == [FramedRecord, FramedRecord]
    assert items[0].block == b"software: x\r\n\r\n\r\n\r\n" and items[0].separator == b""
    assert not items[0].cl_includes_separator


@pytest.mark.parametrize("after", ["version", "eof"])
def test_block_ending_in_blank_lines_before_a_boundary_is_kept_whole(after):
    info = rec(b"a: b\r\n\r\n")
    data = info + (rec(b"x") + b"\r\n\r\n" if after == "version" else b"")
    got = frame(data)
    assert got[0].block == b"a: b\r\n\r\n" and got[0].separator == b""


@pytest.mark.parametrize("k", [-5, -2, -1, 5, 9, 40])
@pytest.mark.parametrize("compressed", [False, True])
@pytest.mark.parametrize("le", [CRLF, LF])
def test_declared_length_off_by_k_is_damage_and_neighbours_survive(k, compressed, le):
    a = rec(b"first", le=le) + le + le
    bad = rec(b"0123456789abcdef", cl=16 + k, le=le) + le + le
    c = rec(b"third", le=le) + le + le
    data = gz(a) + gz(bad) + gz(c) if compressed else a + bad + c
    items = frame(data, "gzip" if compressed else None)
    good = [i.block for i in items if isinstance(i, FramedRecord)]
    damage = [i for i in items if isinstance(i, DamagedRange)]
    assert good == [b"first", b"third"]
    assert len(damage) == 1 and "Content-Length" in damage[0].reason


@pytest.mark.parametrize("le", [CRLF, LF])
@pytest.mark.parametrize("sep", ["proper", "none"])
def test_last_record_before_eof_keeps_its_declared_block(le, sep):
    data = rec(b"a", le=le) + le + le + rec(b"last" + le + le, le=le)
    if sep == "proper":
        data += le + le
    got = frame(data)
    assert [type(i) for i in got] == [FramedRecord, FramedRecord]
    assert got[1].block == b"last" + le + le and got[0].raw + got[1].raw == data


def test_length_landing_on_an_inner_separator_keeps_the_declared_block():
    # the declared bytes are followed by a proper separator: the declared length wins and the
    # rest up to the next record is damage of its own
    bad = rec(b"head\r\n\r\ntail", cl=4) + b"\r\n\r\n"
    items = frame(bad + rec(b"next") + b"\r\n\r\n")
    assert isinstance(items[0], FramedRecord) and items[0].block == b"head"
    assert isinstance(items[1], DamagedRange) and items[1].data == b"tail\r\n\r\n"
    assert isinstance(items[2], FramedRecord) and items[2].block == b"next"


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_length_reaching_into_the_separator_keeps_the_declared_bytes(k):
    # too long by k <= len(separator): the declared bytes are followed by the rest of the
    # separator and the next version line, so nothing proves the length wrong: the declared
    # block is delivered as is (as warcio and FastWARC do), the odd separator is a warning
    bad = rec(b"0123456789abcdef", cl=16 + k) + b"\r\n\r\n"
    data = bad + rec(b"next") + b"\r\n\r\n"
    first, second = frame(data)
    assert first.block == (b"0123456789abcdef\r\n\r\n")[: 16 + k]
    assert first.raw + second.raw == data and first.issues[-1].startswith("separator")


def test_clueweb_record_followed_by_damage_is_whole_once_the_file_showed_the_convention():
    v = judge(b"", After.OTHER, version="0.18", le=LF, tail=b"x\n\n", seen=True)
    assert v.ok and v.cl_includes_separator and v.separator == 0
    # ClueWeb09's LF-only 0.18 headers show it for the first record too; CRLF 0.18 does not
    assert judge(b"", After.OTHER, version="0.18", le=LF, tail=b"x\n\n").cl_includes_separator
    assert not judge(b"", After.OTHER, version="0.18", tail=b"x\r\n\r\n").ok
    assert not judge(b"", After.OTHER, version="1.0", le=LF, tail=b"x\n\n", seen=True).ok


# -- the record's WARC-Block-Digest proves a length wrong (issue 6 item 5) -------------------


def sha1_b32(data: bytes) -> bytes:
    import base64
    import hashlib

    return b"sha1:" + base64.b32encode(hashlib.sha1(data).digest())


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_digest_proves_a_length_reaching_into_the_separator(k):
    block = b"0123456789abcdef"
    declared = block + b"\r\n\r\n"[:k]
    run = b"\r\n\r\n"[k:]
    assert digest_disproves(digest=sha1_b32(block), block=declared, run=run, line_ending=CRLF) == 16
    # the digest of the declared bytes, none, or an unknown algorithm prove nothing
    assert (
        digest_disproves(digest=sha1_b32(declared), block=declared, run=run, line_ending=CRLF)
        is None
    )
    assert digest_disproves(digest=None, block=declared, run=run, line_ending=CRLF) is None
    assert digest_disproves(digest=b"crc9:xyz", block=declared, run=run, line_ending=CRLF) is None


@pytest.mark.parametrize("extra", [b"\r\n", b"\r\n\r\n", b"\n"])
def test_digest_proves_a_length_stopping_short_of_blank_lines(extra):
    block = b"GET / HTTP/1.1\r\nHost: x\r\n" + b"\r\n"
    short = block[: len(block) - len(extra)]
    run = extra + b"\r\n\r\n"
    assert digest_disproves(digest=sha1_b32(block), block=short, run=run, line_ending=CRLF) == len(
        block
    )


def test_a_head_only_block_keeps_its_blank_line_whatever_was_digested():
    # webrecorder digests a revisit's head without its final CRLF (warcio.js example-bad-length)
    head = b"HTTP/1.1 200 OK\r\nA: b\r\n\r\n"
    digest = sha1_b32(head[:-2])
    args = dict(digest=digest, block=head, run=b"\r\n", line_ending=CRLF)
    assert digest_disproves(**args) == len(head) - 2
    assert digest_disproves(**args, head_only=True) is None


def test_odd_run_breaks_a_convention_the_file_showed():
    # ClueWeb09 record whose length is 3 short: its declared bytes still end in the blank
    # line, then "\n\n\n" and the next version line
    assert not judge(b"\n\n\n", After.VERSION, version="0.18", le=LF, tail=b"x\n\n", seen=True).ok
    assert judge(b"\n\n\n", After.VERSION, version="0.18", le=LF, tail=b"x\n\n").ok
    assert judge(b"\n\n\n", After.VERSION, version="1.0", le=LF, tail=b"x\n\n", seen=True).ok


@pytest.mark.parametrize("k", [-4, -2, 2, 4])
@pytest.mark.parametrize("compressed", [False, True])
def test_framer_repairs_a_length_the_digest_disproves(k, compressed):
    block = b"HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody\r\n\r\n"
    head = (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Block-Digest: " + sha1_b32(block) + b"\r\n"
        b"Content-Length: %d\r\n\r\n" % (len(block) + k)
    )
    bad = head + block + b"\r\n\r\n"
    a, c = rec(b"first") + b"\r\n\r\n", rec(b"third") + b"\r\n\r\n"
    data = gz(a) + gz(bad) + gz(c) if compressed else a + bad + c
    items = frame(data, "gzip" if compressed else None)
    damage = [i for i in items if isinstance(i, DamagedRange)]
    assert len(damage) == 1 and "WARC-Block-Digest" in damage[0].reason
    got = [i for i in items if isinstance(i, FramedRecord)]
    assert [r.block for r in got] == [b"first", block, b"third"]
    assert got[1].separator == b"\r\n\r\n"
    if not compressed:
        assert damage[0].offset == len(a) and damage[0].data == bad


@pytest.mark.parametrize("kind", [None, "gzip"])
def test_clueweb09_file_cut_after_its_first_record_reads_it_as_the_whole_file_does(kind):
    """A ClueWeb09 WARC/0.18 file (LF-only, Content-Length counting the closing blank line)
    cut right after its warcinfo: the record is framed as in the whole file (soak case
    clueweb09/plain/truncate-boundary/s8014), not with the blank line in its block."""
    info = rec(
        b"software: Nutch 1.0-dev\nformat: WARC file version 0.18\n\n", version=b"0.18", le=LF
    )
    page = rec(b"HTTP/1.1 200 OK\n\n<html></html>\n\n", version=b"0.18", le=LF)

    def pack(*recs):
        return b"".join(gz(r) for r in recs) if kind else b"".join(recs)

    (alone,) = frame(pack(info), kind)
    whole = frame(pack(info, page), kind)
    assert [type(i) for i in whole] == [FramedRecord, FramedRecord]
    assert alone.cl_includes_separator and whole[0].cl_includes_separator
    assert (alone.block, alone.separator) == (whole[0].block, whole[0].separator)
    assert alone.block.endswith(b"version 0.18") and alone.separator == b"\n\n"
