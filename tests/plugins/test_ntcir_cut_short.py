"""A raw NTCIR page shorter than the ``Content-Length`` its ``NW:HTTPH`` declares is warned
``possibly-cut-short`` (counted, not damage, the page delivered as stored).

README.data section 8: "The page data remain as they were without any processing" and "The
file name of each page data was created combining the number of crawling sequence in four
columns zero padding and a extention ".data"": one page per ``.data`` file, so each page is
the last (and only) page of its file, and nothing but "NW:HTTPH HTTP header returned from the
server when the page was fetched" records its length. A ``.data`` cut short (a copy stopped
mid-file) is shorter than that header's ``Content-Length``; the euc tree's pages were
converted ("two-byte characters of JIS code set ... converted to Japanese EUC code", section
9), so their length is not the head's and they are not checked.
"""

from __future__ import annotations

import json

from crawlmill import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.http.head import declared_length
from crawlmill.formats.ntcir.meta import HTTPH, parse_meta, write_meta
from crawlmill.plugins.readers.ntcir import CUT_SHORT, NtcirReader

from tests.plugins.ntcir_tree import build_tree

BODY = b"<html><body>" + b"x" * 200 + b"</body></html>\n"


def _head(status: bytes, *lines: bytes) -> bytes:
    return b"\r\n".join([b"HTTP/1.1 " + status, b"Date: Tue, 01 Oct 2002 00:00:00 GMT", *lines])


def test_declared_length_follows_rfc_9112():
    """RFC 9112 6.3: "If a message is received with both a Transfer-Encoding and a
    Content-Length header field, the Transfer-Encoding overrides the Content-Length"; RFC
    9110 8.6: a list of identical values may be taken as one; 204 and 304 responses, and 1xx,
    have no content."""
    assert declared_length(_head(b"200 OK", b"Content-Length: 215")) == 215
    assert declared_length(_head(b"200 OK", b"content-length:  7 ", b"Content-Length: 7")) == 7
    assert declared_length(_head(b"200 OK", b"Content-Length: 7, 7")) == 7
    assert declared_length(_head(b"200 OK", b"Content-Length: 7", b"Content-Length: 8")) is None
    assert (
        declared_length(_head(b"200 OK", b"Content-Length: 7", b"Transfer-Encoding: chunked"))
        is None
    )
    assert declared_length(_head(b"200 OK", b"Content-Length: -1")) is None
    assert declared_length(_head(b"200 OK")) is None
    for status in (b"304 Not Modified", b"204 No Content", b"100 Continue"):
        assert declared_length(_head(status, b"Content-Length: 99")) is None
    assert declared_length(_head(b"301 Moved", b"Content-Length: 99")) == 99


def _set_page(root, page: int, head: bytes, body: bytes, trees=("raw", "euc")) -> None:
    """Give page ``page`` of site 000001 ``head`` (its ``NW:HTTPH``) and ``body``."""
    for tree in trees:
        folder = root / tree / "00" / "0000" / "000001"
        meta = folder / f"{page:04d}.meta"
        fields = [(n, head if n == HTTPH else v) for n, v in parse_meta(meta.read_bytes()).fields]
        meta.write_bytes(write_meta(fields))
        (folder / f"{page:04d}.data").write_bytes(body)


def _tree(tmp_path):
    """One site of four pages: 1 whole; 2 cut inside (its ``.data`` stopped 100 bytes before
    the end its head declares); 3 a 304 (no content) that declares the length of the page it
    stands for; 4 chunked with a ``Content-Length`` too. Pages 2-4 are the last (and only)
    page of their ``.data`` file, as every NTCIR page is."""
    root = tmp_path / "nw"
    build_tree(root, sites=1, per=4)
    whole = _head(b"200 OK", b"Content-Type: text/html", b"Content-Length: %d" % len(BODY))
    _set_page(root, 1, whole + b"\r\n\r\n", BODY)
    cut = BODY[: len(BODY) - 100]
    _set_page(root, 2, whole + b"\r\n\r\n", cut)
    not_modified = _head(b"304 Not Modified", b"Content-Length: %d" % len(BODY))
    _set_page(root, 3, not_modified + b"\r\n\r\n", b"")
    chunked = _head(b"200 OK", b"Transfer-Encoding: chunked", b"Content-Length: 9999")
    _set_page(root, 4, chunked + b"\r\n\r\n", b"5\r\nhello\r\n0\r\n\r\n")
    return root


def _read(root, payload: str = "raw"):
    options = NtcirReader.Options(payload=payload)
    units = [u for u in NtcirReader.discover(str(root), options) if u.relpath != "lists"]
    with open_reader(units[0], "ntcir", payload=payload) as found:
        records = list(found)
    return records, found


def test_a_page_cut_short_is_warned_and_delivered_as_stored(tmp_path):
    root = _tree(tmp_path)
    records, found = _read(root)
    assert [len(r.payload) for r in records] == [len(BODY), len(BODY) - 100, 0, 15]
    assert records[1].payload == BODY[:-100]  # nothing dropped, nothing changed
    assert not found.damages
    warned = [w for w in found.warnings if w.code == CUT_SHORT]
    assert len(warned) == 1  # the whole page, the 304 and the chunked page are not
    (warning,) = warned
    data = root / "raw" / "00" / "0000" / "000001" / "0002.data"
    assert warning.message == (
        f"{data}: {len(BODY) - 100} bytes, but the HTTP head in 0002.meta declares "
        f"Content-Length: {len(BODY)} (100 bytes missing): possibly cut short"
    )
    assert warning.offset == len(BODY) - 100


def test_the_euc_tree_is_not_checked(tmp_path):
    """The euc tree holds converted pages: its length is not the one the head declares."""
    root = _tree(tmp_path)
    records, found = _read(root, "euc")
    assert len(records[1].payload) == len(BODY) - 100
    assert not [w for w in found.warnings if w.code == CUT_SHORT]


def test_a_cut_page_converts_with_exit_0_and_counts_the_warning(tmp_path, capsys):
    """A warning, not damage: the run converts every page (exit 0) and counts the code."""
    root = _tree(tmp_path)
    out = tmp_path / "out"
    code = main(["convert", str(root), "--to", "warc", "-o", str(out), "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"{CUT_SHORT} 1" in err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["warnings"][CUT_SHORT] == 1
    assert report["read"] == 4 and report["quarantined"] == 0  # (+ the writer's warcinfo)
    assert report["damages"] == []
