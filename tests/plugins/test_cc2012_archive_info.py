"""The ``cc2012`` writer's ``archiveInfo`` (where the capture is in the ARC file the writer
writes: offset and length of its gzip member, read there by warcio) and its file-describing
records (a WARC made from a segment, its crawlmill warcinfo first, converts without a filter,
every record accounted for), through the CLI; ``with_archive_info`` at the byte level."""

from __future__ import annotations

import gzip
import io
import json

import pytest
from crawlmill.formats.cc2012.segment import (
    ARC_NAME,
    ARCHIVE_INFO_KEYS,
    archive_info,
    iter_pairs,
    with_archive_info,
)
from crawlmill.formats.hadoop.sequencefile import read_header

from tests.conftest import SAMPLES, need
from tests.plugins.test_cc2012 import PARSEME, REAL, convert, make_segment


def _metadata(folder, n=0):
    data = (folder / f"metadata-{n:05d}").read_bytes()
    return [(k, v) for k, v, _ in iter_pairs(data, read_header(data))]


def _arc(folder):
    (arc,) = sorted(folder.glob("*.arc.gz"))
    return arc


def _check_archive_info(folder, segment_id=None):
    """Every capture's archiveInfo names its gzip member in the ARC file: warcio reads the
    record of that URL from exactly those bytes, and the member boundaries warcio finds
    reading the whole file are the same."""
    warcio = need("warcio.archiveiterator")
    arc = _arc(folder)
    date, partition = (int(x) for x in ARC_NAME.match(arc.name).groups())
    raw = arc.read_bytes()
    with open(arc, "rb") as fh:
        it = warcio.ArchiveIterator(fh, arc2warc=True)
        spans = {}
        for rec in it:
            url = rec.rec_headers.get_header("WARC-Target-URI")
            rec.content_stream().read()
            it.read_to_end()
            spans[url] = (it.get_record_offset(), it.get_record_length())
    found = 0
    for key, js in _metadata(folder):
        data = json.loads(js)
        if data.get("disposition") == "FAILURE":
            assert "archiveInfo" not in data
            continue
        info = data["archiveInfo"]
        assert list(data)[-1] == "archiveInfo" and tuple(info) == ARCHIVE_INFO_KEYS
        assert all(type(v) is int for v in info.values())
        assert (info["arcFileDate"], info["arcFileParition"]) == (date, partition)
        assert info["arcSourceSegmentId"] == (segment_id if segment_id is not None else date)
        start, size = info["arcFileOffset"], info["compressedSize"]
        member = raw[start : start + size]
        assert member[:2] == b"\x1f\x8b" and gzip.decompress(member)  # one whole gzip member
        (rec,) = list(warcio.ArchiveIterator(io.BytesIO(member), arc2warc=True))
        assert rec.rec_headers.get_header("WARC-Target-URI") == key.decode()
        assert spans[key.decode()] == (start, size)
        found += 1
    return found


def test_a_warc_to_cc2012_names_where_each_capture_is_in_its_arc(tmp_path, capsys):
    out = tmp_path / "c"
    code, report = convert(PARSEME, out, "cc2012", "--filter", "kind", "keep=response")
    assert code == 0, capsys.readouterr().err
    assert _check_archive_info(out) == report["written"] - report["added"] == 14


def test_segment_id_names_the_segment(tmp_path, capsys):
    out = tmp_path / "c"
    code, _ = convert(PARSEME, out, "cc2012", "--filter", "kind", "keep=response",
                      "--option", "segment_id=1346876860493")  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert _check_archive_info(out, 1346876860493) > 3


def test_a_warc_made_from_a_segment_converts_back_without_a_filter(tmp_path, capsys):
    made = make_segment(tmp_path / "seg", [(REAL, 1478)])
    code, _ = convert(tmp_path / "seg", tmp_path / "w", "warc")
    assert code == 0
    code, report = convert(tmp_path / "w", tmp_path / "c", "cc2012")
    assert code == 0, capsys.readouterr().err
    # warcinfo, ARC filedesc, failure, capture, its JSON: all written, none quarantined
    assert (report["read"], report["written"], report["quarantined"], report["added"]) == (5, 5, 0, 0)
    assert report["warnings"] == {}
    assert _check_archive_info(tmp_path / "c") == 1
    # the ARC's filedesc: the segment's own (its origin and version block) with the warcinfo
    # appended, the length following
    first = gzip.GzipFile(fileobj=io.BytesIO(_arc(tmp_path / "c").read_bytes())).readline()
    original = gzip.GzipFile(filename=str(REAL)).read()
    line, _, rest = original.partition(b"\n")
    body = gzip.decompress(_arc(tmp_path / "c").read_bytes())
    head, _, after = body.partition(b"\n")
    length = int(head.rsplit(b" ", 1)[1])
    block = after[:length]
    assert first == head + b"\n" and head.rsplit(b" ", 1)[0] == line.rsplit(b" ", 1)[0]
    assert block.startswith(rest[: int(line.rsplit(b" ", 1)[1])])
    assert b"software: crawlmill/" in block[len(rest[: int(line.rsplit(b" ", 1)[1])]) :]
    # the JSON the segment stored, the archiveInfo appended
    assert [k for k, _ in _metadata(tmp_path / "c")] == [u for u, _, _ in made[1478]]


def test_a_segment_copied_twice_keeps_its_archive_info_bytes(tmp_path, capsys):
    make_segment(tmp_path / "seg", [(REAL, 1478)])
    assert convert(tmp_path / "seg", tmp_path / "c1", "cc2012")[0] == 0
    code, report = convert(tmp_path / "c1", tmp_path / "c2", "cc2012")
    assert code == 0, capsys.readouterr().err
    # the first copy's JSON already names where the capture is: bytes kept, ARC the same
    assert _metadata(tmp_path / "c2") == _metadata(tmp_path / "c1")
    assert _arc(tmp_path / "c2").read_bytes() == _arc(tmp_path / "c1").read_bytes()
    assert "archiveInfo set in the input's JSON" not in json.dumps(report["counts"])
    assert _check_archive_info(tmp_path / "c2") == 1


def test_the_stale_archive_info_of_stored_json_is_replaced_where_it_stands():
    # the synthetic 2012 metadata names offsets of an ARC that is not there
    stale = _metadata(SAMPLES / "cc2012-synthetic" / "text-gzip")[0][1]
    info = archive_info(7, 8, 9, 10, 11)
    assert json.loads(with_archive_info(stale, info))["archiveInfo"] == info
    assert with_archive_info(stale, info).replace(b'"arcSourceSegmentId":7,"arcFileDate":8,"arcFileParition":9,"arcFileOffset":10,"compressedSize":11', b"") == stale.replace(  # fmt: skip
        b'"arcSourceSegmentId":1341690154994,"arcFileDate":1341690166822,"arcFileParition":0,"arcFileOffset":0,"compressedSize":1234', b""  # fmt: skip
    )


@pytest.mark.parametrize(
    ("stored", "expect"),
    [
        (b'{"a":1}', b'{"a":1,"archiveInfo":{I}}'),
        (b"{}", b'{"archiveInfo":{I}}'),
        (b'{"a":"\\u003c",\n "b":[1]}\n', b'{"a":"\\u003c",\n "b":[1],"archiveInfo":{I}}\n'),
        (b'{"archiveInfo":{"arcFileOffset":3},"z":"}"}', b'{"archiveInfo":{I},"z":"}"}'),
        (b'{"t":"\\"archiveInfo\\":{}","archiveInfo": {"x": 1}}', b'{"t":"\\"archiveInfo\\":{}","archiveInfo":{I}}'),
    ],
)  # fmt: skip
def test_with_archive_info_keeps_every_other_byte(stored, expect):
    info = archive_info(1, 2, 3, 4, 5)
    text = json.dumps(info, separators=(",", ":")).encode()[1:-1]
    want = expect.replace(b"{I}", b"{" + text + b"}")
    assert with_archive_info(stored, info) == want
    assert with_archive_info(want, info) == want  # already so: the same bytes
    with pytest.raises(ValueError):
        with_archive_info(b"[1]", info)


def test_a_warcs_warcinfo_is_kept_in_the_filedesc_not_quarantined(tmp_path, capsys):
    out = tmp_path / "c"
    code, report = convert(PARSEME, out, "cc2012", "--filter", "kind", "keep=response,warcinfo")
    assert code == 0, capsys.readouterr().err
    assert (report["written"], report["quarantined"], report["added"]) == (15, 0, 0)
    body = gzip.decompress(_arc(out).read_bytes())
    assert body.startswith(b"filedesc://") and b"WARC/1.0" not in body.split(b"\n\n", 1)[0]
    assert _check_archive_info(out) == 14
