"""Problem codes are given at the place of the fault, so rewording a message changes no
counter (issue 21 item 3: "Rewording a message can change a counter" was the finding).

Each test converts damaged input twice, the second time with every reason text of the codec
replaced by a misleading sentence (one the old regex tables would have read as another code:
``"file ends after"`` was ``truncated-record`` for the SequenceFile reader), and compares the
run reports' counters.
"""

from __future__ import annotations

import io
import json
import struct
from collections import Counter
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.formats.codecs import stream as formats_stream
from crawlmill.formats.hadoop import sequencefile as seq
from crawlmill.formats.hadoop.vint import encode_vlong
from crawlmill.formats.ntcir import lists as ntcir_lists

from tests.plugins.ntcir_tree import build_tree

TEXT = "org.apache.hadoop.io.Text"
#: a reason that says nothing true, in the words the old tables matched on.
MISLEADING = "sync stream impossible or too large: the file ends after it"


def _text(value: bytes) -> bytes:
    return encode_vlong(len(value)) + value


def _damaged_sequencefile() -> bytes:
    """A SequenceFile of 30 Text entries with sync markers every ~100 bytes, then three kinds
    of damage: a sync marker whose hash is wrong, a record length beyond every limit and a
    file cut inside its last record."""
    out = io.BytesIO()
    writer = seq.SequenceFileWriter(out, TEXT, TEXT, sync_interval=100)
    for i in range(30):
        writer.append(_text(f"http://example.com/{i}".encode()), _text(b"v" * 40))
    writer.close()
    data = bytearray(out.getvalue())
    marker = seq.SYNC_ESCAPE + writer.header.sync
    first = data.index(marker, writer.header.length)
    second = data.index(marker, first + 1)
    third = data.index(marker, second + 1)
    data[second + 4] ^= 0xFF  # the hash of the second marker: not this file's
    rec = third + seq.SYNC_SIZE  # the record after the third marker: an impossible size
    struct.pack_into(">i", data, rec, 0x7FFFFF00)
    return bytes(data[:-5])


def _convert(src: Path, out: Path) -> tuple[int, dict]:
    code = main(["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"])
    return code, json.loads((out / ".crawlmill" / "report.json").read_text())


def _counters(report: dict) -> tuple[Counter, dict]:
    return Counter(d["code"] for d in report["damages"]), report["warnings"]


def test_rewording_the_sequencefile_framer_changes_no_counter(tmp_path, monkeypatch, capsys):
    src = tmp_path / "in"
    src.mkdir()
    (src / "damaged.seq").write_bytes(_damaged_sequencefile())
    (src / "cut.seq").write_bytes(b"SEQ\x06\x19org.apache.hadoop")  # header cut short
    code, report = _convert(src, tmp_path / "plain")
    damages, warnings = _counters(report)
    assert code == 3
    assert damages == {"bad-sync-marker": 1, "record-too-large": 1, "truncated-record": 2}

    def reworded(offset, length, reason, data, *args, **kwargs):
        return formats_stream.Damage(offset, length, MISLEADING, data, *args, **kwargs)

    class RewordedHeaderError(seq.HeaderError):
        def __init__(self, reason: str, code: str = "not-a-record") -> None:
            super().__init__("a header no tool could read", code)

    monkeypatch.setattr(seq, "Damage", reworded)
    monkeypatch.setattr(seq, "HeaderError", RewordedHeaderError)
    code2, report2 = _convert(src, tmp_path / "reworded")
    assert {d["reason"] for d in report2["damages"]} >= {MISLEADING}  # the texts did change
    assert code2 == code and _counters(report2) == (damages, warnings)


def test_header_codes_come_from_the_header_error():
    """A cut header is ``truncated-record``, bytes that are no header ``not-a-record``: the
    exception's code, not a word of its message."""
    with pytest.raises(seq.HeaderError) as cut:
        seq.read_header(b"SEQ\x06\x19org.apache")
    with pytest.raises(seq.HeaderError) as other:
        seq.read_header(b"SEQ\x09")
    assert (cut.value.code, other.value.code) == ("truncated-record", "not-a-record")
    assert "cut short" in str(cut.value)


def test_rewording_an_ntcir_list_problem_changes_no_counter(tmp_path, monkeypatch, capsys):
    reports = []
    made = ntcir_lists.ListProblem
    for name in ("plain", "reworded"):
        if name == "reworded":

            def reworded(path, line, offset, reason, *args):
                return made(path, line, offset, MISLEADING, *args)

            monkeypatch.setattr(ntcir_lists, "ListProblem", reworded)
        root = tmp_path / name / "nw"  # another tree: the reader caches lists by file
        build_tree(root, sites=1, per=3)
        duplist = root / "duplist"
        duplist.write_bytes(b"not a line\n\n" + duplist.read_bytes())
        reports.append(_convert(root, tmp_path / name / "out"))
    (code, plain), (code2, reworded_report) = reports
    assert plain["warnings"].get("bad-list-line", 0) >= 2
    assert MISLEADING in reworded_report["warning_examples"]["bad-list-line"]
    assert code2 == code and _counters(reworded_report) == _counters(plain)


def _entries_of(data: bytes) -> list:
    return list(seq.iter_entries(data))


def test_a_value_its_codec_cannot_inflate_is_corrupt_member_whatever_the_codec_says():
    """docs/problems.md: ``corrupt-member`` is "a RECORD value or BLOCK buffer its codec cannot
    inflate". The Snappy codec's own framing errors ("snappy group of -1 bytes ...") matched
    no pattern of the old table and were counted as ``not-a-record``."""
    from crawlmill.formats.hadoop.codecs import codec_for

    snappy = codec_for("org.apache.hadoop.io.compress.SnappyCodec")
    out = io.BytesIO()
    writer = seq.SequenceFileWriter(
        out, TEXT, TEXT, compression="record", codec=snappy, sync_interval=None
    )
    writer.append(_text(b"http://a.example/"), _text(b"payload"))
    writer.close()
    data = bytearray(out.getvalue())
    key = _text(b"http://a.example/")
    value_at = data.index(key) + len(key)
    struct.pack_into(">i", data, value_at, -1)  # the group's length: negative
    (damage,) = _entries_of(bytes(data))
    assert "snappy group of -1 bytes" in damage.reason and damage.code == "corrupt-member"


def test_block_lengths_running_past_the_next_sync_marker_are_bad_length():
    """docs/problems.md: ``bad-length`` covers "a length that runs past one of the file's sync
    markers"; the old table read "block lengths run past the next sync marker" as
    ``bad-sync-marker`` (its pattern said "runs past")."""
    out = io.BytesIO()
    writer = seq.SequenceFileWriter(out, TEXT, TEXT, compression="block", block_size=10)
    for i in range(3):
        writer.append(_text(f"http://example.com/{i}".encode()), _text(b"v" * 20))
    writer.close()
    data = bytearray(out.getvalue())
    marker = seq.SYNC_ESCAPE + writer.header.sync
    first = data.index(marker, writer.header.length)
    second = data.index(marker, first + 1)
    # the first block's VInts: a record count, then a key-lengths buffer length that is no
    # Java int (a 9-byte VLong of 2^63 - 1): its lengths cannot be read before the next marker
    cut = first + seq.SYNC_SIZE + 1
    data[cut : cut + 9] = b"\x88\x7f" + b"\xff" * 7
    assert cut + 9 < second
    items = _entries_of(bytes(data))
    damage = next(i for i in items if not isinstance(i, seq.Entry))
    assert damage.reason == "block lengths run past the next sync marker"
    assert damage.code == "bad-length"
