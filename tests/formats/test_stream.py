"""MemberStream: one buffered, member-aware stream over any codec's pieces."""

from __future__ import annotations

import io
import random
import re

import pytest
from crawlmill.formats.codecs.compression import iter_pieces
from crawlmill.formats.codecs.stream import Damage, MemberStream, StreamLimitError

from tests.helpers import gz

LINES = [b"http://example.com/%d\n" % i for i in range(50)]


def stream_of(blob: bytes, kind: str | None, **kw) -> MemberStream:
    return MemberStream(iter_pieces(io.BytesIO(blob), kind, piece_size=64), **kw)


@pytest.mark.parametrize("kind", [None, "gzip"])
def test_a_line_format_reads_through_the_stream_with_offsets_in_both_spaces(kind):
    members = [gz(line) for line in LINES] if kind else LINES
    s = stream_of(b"".join(members), kind)
    got = []
    while line := s.readline():
        got.append(line)
    assert got == LINES
    assert s.tell() == sum(map(len, LINES))
    s = stream_of(b"".join(members), kind)
    for i in range(3):
        assert s.tell() == sum(map(len, LINES[:i]))
        assert s.member_offset() == (sum(map(len, members[:i])) if kind else None)
        s.readline()


def test_read_find_and_the_iterator():
    blob = b"".join(gz(line) for line in LINES)
    s = stream_of(blob, "gzip")
    assert s.read(7) == b"http://"
    at = s.find(b"/7\n", 1 << 20)
    assert at == sum(map(len, LINES[:7])) + len(b"http://example.com")
    assert s.find(re.compile(rb"/4\d\n"), 1 << 20) == sum(map(len, LINES[:40])) + 18
    assert s.find(b"nowhere", 100) == -1  # not within the limit
    assert s.find(b"nowhere", 1 << 20) == -1  # not before the end
    rest = s.read()
    assert rest == b"".join(LINES)[7:]
    assert list(stream_of(blob, "gzip")) == LINES


def test_readline_limit_cuts_a_long_line():
    s = stream_of(gz(b"x" * 1000 + b"\nshort\n"), "gzip")
    assert s.readline(100) == b"x" * 100
    assert s.readline() == b"x" * 900 + b"\n"
    assert s.readline() == b"short\n"
    assert s.readline() == b""


def test_whole_members_have_their_exact_compressed_span():
    members = [gz(line) for line in LINES[:3]]
    s = stream_of(b"".join(members), "gzip")
    assert s.need(len(b"".join(LINES[:3])))
    a, b = len(LINES[0]), len(LINES[0]) + len(LINES[1])
    assert s.at_member_end(a) and not s.at_member_end(a + 1)
    assert s.exact(0, b) == (0, len(members[0]) + len(members[1]))
    assert s.exact(1, b) is None  # not a member start
    assert s.exact(a, b) == (len(members[0]), len(members[1]))  # forgets members before a


def test_held_damage_stops_the_stream_until_taken_and_resync_finds_the_next_member():
    members = [gz(line) for line in LINES[:3]]
    junk = b"\x00garbage\x00"
    s = stream_of(members[0] + junk + members[1], "gzip")
    assert s.readline() == LINES[0]
    assert s.readline() == b""  # damage: nothing more until it is taken
    assert s.broken is not None
    damage = s.take_broken()
    assert isinstance(damage, Damage) and damage.compressed
    assert (damage.member_offset, damage.member_length, damage.data) == (
        len(members[0]),
        len(junk),
        junk,
    )
    assert damage.offset == len(LINES[0])  # where it sits in the decompressed stream
    assert s.readline() == LINES[1]


def test_damage_of_a_decompressed_range_names_its_members():
    members = [gz(line) for line in LINES[:3]]
    s = stream_of(b"".join(members), "gzip")
    s.need(len(b"".join(LINES[:3])))
    d = s.damage(len(LINES[0]), len(LINES[0]) + 5, "bad", 1 << 20, "not-a-record")
    assert (d.offset, d.length, d.data) == (len(LINES[0]), 5, LINES[1][:5])
    assert (d.member_offset, d.member_length) == (len(members[0]), len(members[1]))
    assert "decompressed stream offset" in d.reason and not d.compressed
    assert d.code == "not-a-record"


def test_collected_damage_goes_on_and_lists_the_problem_by_position():
    members = [gz(line) for line in LINES[:2]]
    junk = b"\x00garbage\x00"
    s = stream_of(members[0] + junk + members[1], "gzip", hold_damage=False, compressed=True)
    assert s.ensure(len(LINES[0]) + len(LINES[1]))
    assert s.get(0, s.end) == LINES[0] + LINES[1]
    (problem,) = s.take_problems(s.end)
    assert (problem.offset, problem.length) == (len(members[0]), len(junk))
    assert s.members.at(len(LINES[0])).cstart == len(members[0]) + len(junk)
    assert s.line_end(0, 1000) == len(LINES[0]) - 1


def test_a_cut_member_is_closed_with_its_error_in_a_collecting_stream():
    member = gz(random.Random(1).randbytes(20000))
    s = stream_of(member[: len(member) // 2], "gzip", hold_damage=False, compressed=True)
    while s.more():
        pass
    (m,) = s.members.spans
    assert m.error is not None and "truncated" in m.error


def test_the_limit_bounds_the_decompressed_bytes():
    s = stream_of(gz(b"a" * 10000), "gzip", limit=1000)
    with pytest.raises(StreamLimitError, match="exceeds the limit of 1000 bytes"):
        s.read()


def test_the_framers_read_through_the_one_stream_class():
    """One member-aware buffer in formats/: the WARC framer and the ARC parser use it."""
    import ast
    from pathlib import Path

    from crawlmill.formats.arc import framing as arc_framing
    from crawlmill.formats.warc.framer import WarcFramer

    assert isinstance(WarcFramer(iter(())).s, MemberStream)
    parser = arc_framing._Parser(MemberStream(iter(()), hold_damage=False), 100, 100)
    assert isinstance(parser.s, MemberStream)
    root = Path(arc_framing.__file__).parent.parent  # formats/
    buffers = []  # classes that pull pieces into a buffer of their own
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                names = {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
                if "more" in names:
                    buffers.append(f"{path.name}:{node.name}")
    assert buffers == ["stream.py:MemberStream"]


@pytest.mark.parametrize(
    "module",
    [
        "codecs.stream",
        "warc.framer",
        "arc.framing",
        "codecs.table",
        "codecs.compression",
        "codecs.frames",
        "codecs.zstd_frames",
    ],
)
def test_no_class_of_the_stream_layer_is_over_250_lines(module):
    import ast
    import importlib
    from pathlib import Path

    path = Path(importlib.import_module(f"crawlmill.formats.{module}").__file__)
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef):
            assert node.end_lineno - node.lineno < 250, (module, node.name)
