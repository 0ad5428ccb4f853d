"""``ctx.open()`` (``core/input_stream.py``) under damage: the how-to's reader
(docs/adding-a-reader.md, "1. The class": one URL per line of a ``.urls.gz``, read through
``ctx.open()``) on gzip inputs damaged here, each read through the same
:class:`~crawlmill.core.reading.RecordIterator` a run's task uses.

The oracle is independent of crawlmill: the members are built with ``zlib``/``gzip``
(RFC 1952), and what a member cut by the end of the file inflates to is what ``zlib``'s
streaming decompressor gives for its bytes. Each case checks the damage report (file, the
compressed offset and length of the damaged member, code, the reason naming the decompressed
offset), the records around it (every line of the sound members, byte for byte, at its
stream offset) and the accounting (every inflated line of a sound member is a record, none
of a corrupt one is, none joined across the damage).

* truncated: the last member cut by the end of the file: its inflated bytes are read (RFC
  1952 2.3.1: the trailer's CRC-32 and ISIZE are missing, so nothing vouches for them; the
  module keeps them, as "what was compressed"), its last line partial;
* corrupt: a member in the middle whose CRC-32 is wrong ("CRC32 ... of the uncompressed
  data", RFC 1952 2.3.1): its lines are dropped with it, the next member is read;
* bomb: a member inflating to 2 GiB of zeros with ``max_decompressed_bytes`` = 8 MiB: cut
  at the bound and reported, the next member read, traced memory within a few pieces.
"""

from __future__ import annotations

import gzip
import re
import tracemalloc
import zlib
from pathlib import Path

import pytest
from crawlmill.core import input_stream
from crawlmill.core.plugin import InputFile, Limits
from crawlmill.core.reading import RecordIterator
from crawlmill.core.record import OffsetSpace

from .big_inputs import gzip_bomb

MiB = 1 << 20
DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture(scope="module")
def reader_class():
    """The how-to's reader class, from the page's first Python block."""
    page = (DOCS / "adding-a-reader.md").read_text(encoding="utf-8")
    code = re.findall(r"```python\n(.*?)```", page, re.S)[0]
    scope: dict = {}
    exec(compile(code, "adding-a-reader.md", "exec"), scope)
    return scope["UrlListReader"]


def _lines(tag: str, n: int) -> list[bytes]:
    return [f"https://{tag}.example/page/{i}\n".encode() for i in range(n)]


def _read(cls, path: Path, limits: Limits | None = None):
    damages: list = []
    it = RecordIterator(
        cls(cls.Options()),
        cls.name,
        InputFile(str(path), path.name),
        limits=limits or Limits(),
        on_damage=damages.append,
        collect=False,
    )
    with it:
        records = [(r.payload, r.source.offset, r.source.length, r.source.space) for r in it]
    return records, damages


def _expected(parts: list[bytes | None]) -> list[tuple]:
    """The records the reader must deliver from the stream ``parts`` (``None``: a member
    whose bytes are dropped), at their stream offsets."""
    out, at = [], 0
    for part in parts:
        if part is None:
            continue
        for line in part.splitlines(keepends=True):
            out.append((line, at, len(line), OffsetSpace.STREAM))
            at += len(line)
    return out


def test_a_member_cut_by_the_end_of_the_file(reader_class, tmp_path):
    a, b = b"".join(_lines("a", 40)), b"".join(_lines("b", 400))
    first, last = gzip.compress(a), gzip.compress(b)
    cut = last[: len(last) // 2]
    (path := tmp_path / "seeds.urls.gz").write_bytes(first + cut)
    inflated = zlib.decompressobj(31).decompress(cut)  # what the cut member holds
    assert 0 < len(inflated) < len(b) and not inflated.endswith(b"\n")
    records, damages = _read(reader_class, path)
    assert records == _expected([a, inflated])  # the partial last line too
    [d] = damages
    assert (d.path, d.offset, d.length, d.code) == (
        str(path),
        len(first),
        len(cut),
        "truncated-member",
    )
    assert f"decompressed stream offset {len(a) + len(inflated)}" in d.reason
    assert "file ends" in d.reason and d.data == cut


def _corrupt(tmp_path: Path) -> tuple[Path, list[bytes], list[bytes]]:
    parts = [b"".join(_lines(t, 50)) for t in "abc"]
    bad = bytearray(gzip.compress(parts[1]))
    bad[-8] ^= 0x01  # its CRC-32
    members = [gzip.compress(parts[0]), bytes(bad), gzip.compress(parts[2])]
    (path := tmp_path / "seeds.urls.gz").write_bytes(b"".join(members))
    return path, parts, members


def test_a_corrupt_member_in_the_middle(reader_class, tmp_path):
    path, (a, _, c), members = _corrupt(tmp_path)
    records, damages = _read(reader_class, path)
    [d] = damages
    assert (d.offset, d.length, d.code) == (len(members[0]), len(members[1]), "corrupt-member")
    assert d.path == str(path) and d.data == members[1]
    assert re.search(r"decompressed stream offset \d+", d.reason)
    # every line of the sound members, whole and in order; no line joined across the damage
    assert [r[0] for r in records if b"//b." not in r[0]] == _lines("a", 50) + _lines("c", 50)
    assert all(r[0].endswith(b"\n") and r[0].count(b"\n") == 1 for r in records)
    assert records[:50] == _expected([a])


def test_the_lines_of_a_corrupt_member_are_dropped_with_it(reader_class, tmp_path):
    path, (a, _, c), _ = _corrupt(tmp_path)
    records, _ = _read(reader_class, path)
    assert records == _expected([a, None, c])


def test_a_bomb_is_cut_at_max_decompressed_bytes(reader_class, tmp_path):
    """A member of 2 GiB of zeros (``big_inputs.gzip_bomb``), ``max_decompressed_bytes`` =
    8 MiB: cut there and reported, none of its bytes read, the next member read, traced
    memory a few pieces."""
    a, c = b"".join(_lines("a", 30)), b"".join(_lines("c", 30))
    bomb = gzip_bomb(b"", 2 << 30)
    members = [gzip.compress(a), bomb, gzip.compress(c)]
    (path := tmp_path / "seeds.urls.gz").write_bytes(b"".join(members))
    limits = Limits(max_decompressed_bytes=8 * MiB, max_record_bytes=MiB)
    tracemalloc.start()
    try:
        records, damages = _read(reader_class, path, limits)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    [d] = damages
    assert (d.offset, d.length, d.code) == (len(members[0]), len(bomb), "decompression-limit")
    assert d.path == str(path) and "max_decompressed_bytes=8388608" in d.reason
    # what the bomb inflated to before the bound (within HOLD_BYTES) is dropped with it
    assert records == _expected([a, c])
    assert peak < 4 * 8 * MiB, peak  # a few pieces of the bound, not the 2 GiB


def test_a_member_beyond_hold_bytes_is_streamed(reader_class, tmp_path, monkeypatch):
    """A member inflating beyond ``HOLD_BYTES`` is streamed (the module docstring): its
    bytes read before the fault stay records, a prefix of its lines at their offsets."""
    monkeypatch.setattr(input_stream, "HOLD_BYTES", 0)
    path, (a, b, c), _ = _corrupt(tmp_path)
    records, [d] = _read(reader_class, path)
    read_b = [r for r in records if b"//b." in r[0]]
    assert read_b and d.code == "corrupt-member"
    kept = b"".join(r[0] for r in read_b)
    assert b.startswith(kept) and kept.endswith(b"\n")
    assert records == _expected([a, kept, c])
