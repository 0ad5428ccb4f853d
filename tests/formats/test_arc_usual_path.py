"""The ARC parser's shortcut for the usual record (declared bytes, ``\\n``, member end).

The shortcut must find exactly what the general length rule finds (records, problems, the
separator convention learnt on the way), and a header line is parsed once per record."""

from __future__ import annotations

import io
import zlib

import pytest
from crawlmill.formats.arc import framing as arc_framing
from crawlmill.formats.arc import header as arc_module
from crawlmill.formats.arc import lines as arc_lines
from crawlmill.formats.arc.framing import ArcRecordBytes, iter_arc

from tests.conftest import ARC_SAMPLES, REAL_WORLD_ARC_SAMPLES, SAMPLES


def _member(data: bytes) -> bytes:
    comp = zlib.compressobj(6, zlib.DEFLATED, 31)
    return comp.compress(data) + comp.flush()


_VERSION_BLOCK = b"1 1 InternetArchive\nURL IP-address Archive-date Content-type Archive-length\n"


def _arc(separators: list[bytes], *, gzip: bool = True, cut_last: int = 0) -> bytes:
    """A filedesc and one record per separator (the bytes after each declared block)."""
    parts = [
        b"filedesc://t.arc 0.0.0.0 20080430204825 text/plain %d\n" % len(_VERSION_BLOCK)
        + _VERSION_BLOCK
        + b"\n"
    ]
    for i, sep in enumerate(separators):
        block = b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nbody %d\n" % i
        line = b"http://example.com/%d 1.2.3.4 2008043020482%d text/plain %d\n" % (
            i,
            i % 10,
            len(block),
        )
        parts.append(line + block + sep)
    if cut_last:
        parts[-1] = parts[-1][:-cut_last]
    if not gzip:
        return b"".join(parts)
    return b"".join(_member(p) for p in parts)


_CONSTRUCTED = {
    "lf": _arc([b"\n"] * 4),
    "crlf": _arc([b"\r\n"] * 4),
    "none": _arc([b""] * 4),
    "two-lf": _arc([b"\n\n"] * 3),
    "lf-then-crlf": _arc([b"\n", b"\n", b"\r\n", b"\n"]),
    "crlf-then-lf": _arc([b"\r\n", b"\r\n", b"\n", b"\n"]),
    "none-then-lf": _arc([b"", b"\n", b"\n"]),
    "lf-then-two": _arc([b"\n", b"\n", b"\n\n", b"\n"]),
    "last-cut": _arc([b"\n"] * 3, cut_last=8),
    "plain": _arc([b"\n", b"\r\n", b"\n"], gzip=False),
}


def _walk(data: bytes, usual: bool, monkeypatch: pytest.MonkeyPatch) -> list:
    with monkeypatch.context() as m:
        if not usual:
            m.setattr(arc_framing, "usual", lambda *args: False)
        return list(iter_arc(io.BytesIO(data)))


@pytest.mark.parametrize("name", sorted(_CONSTRUCTED))
def test_usual_path_finds_what_the_length_rule_finds(name, monkeypatch):
    data = _CONSTRUCTED[name]
    assert _walk(data, True, monkeypatch) == _walk(data, False, monkeypatch)


@pytest.mark.parametrize("rel", ARC_SAMPLES + REAL_WORLD_ARC_SAMPLES)
def test_usual_path_finds_what_the_length_rule_finds_in_real_files(rel, monkeypatch):
    data = (SAMPLES / rel).read_bytes()
    assert _walk(data, True, monkeypatch) == _walk(data, False, monkeypatch)


def test_the_usual_path_is_taken_and_each_header_line_is_parsed_once(monkeypatch):
    """Per-record gzip: one parse of each header line (the member path once parsed it, then
    the record path parsed it again), and the usual records skip the fact gathering."""
    data = _CONSTRUCTED["lf"]
    parses = []
    real = arc_module.parse_header_line

    def counting(line, version=None):
        parses.append(line)
        return real(line, version)

    facts = []
    real_facts = arc_framing.gather_facts

    def counting_facts(lines, *args):
        facts.append(args[0])
        return real_facts(lines, *args)

    monkeypatch.setattr(arc_module, "parse_header_line", counting)
    monkeypatch.setattr(arc_framing, "parse_header_line", counting)
    monkeypatch.setattr(arc_lines, "parse_header_line", counting)
    monkeypatch.setattr(arc_framing, "gather_facts", counting_facts)
    items = list(iter_arc(io.BytesIO(data)))
    records = [i for i in items if isinstance(i, ArcRecordBytes)]
    assert len(records) == len(items) == 5
    assert len(parses) == 5, parses
    assert facts == []
