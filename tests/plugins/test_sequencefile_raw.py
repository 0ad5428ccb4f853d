"""SequenceFile -> SequenceFile copies an unchanged NONE/RECORD entry raw: its record frame
from the reader's map of the input (``Provenance.held``), its value neither decoded nor
encoded again, with the same bytes as before (issue 20 item 1)."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop import sequencefile as seqfmt
from crawlmill.formats.hadoop.codecs import codec_named
from crawlmill.formats.hadoop.vint import encode_vlong

H = "org.apache.hadoop.io."
PAGE = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>page %d</html>"


def _seq(path: Path, compression: str, value_class: str = H + "BytesWritable") -> bytes:
    buf = io.BytesIO()
    codec = codec_named("default") if compression != "none" else None
    w = seqfmt.SequenceFileWriter(buf, H + "Text", value_class, compression=compression,
                                  codec=codec, sync_interval=300)  # fmt: skip
    for i in range(40):
        url = f"http://example.org/{i}".encode()
        body = PAGE % i
        value = (
            struct.pack(">i", len(body)) if "Bytes" in value_class else encode_vlong(len(body))
        ) + body
        w.append(encode_vlong(len(url)) + url, value)
    w.close()
    path.write_bytes(buf.getvalue())
    return buf.getvalue()


def _convert(src: Path, out: Path) -> bytes:
    code = main(["convert", str(src), "--to", "sequencefile", "-o", str(out), "--workers", "1",
                 "--progress", "never"])  # fmt: skip
    assert code == 0
    (made,) = [p for p in out.rglob("*.seq") if ".crawlmill" not in p.parts]
    return made.read_bytes()


@pytest.mark.parametrize("compression", ["none", "record"])
def test_unchanged_entries_are_copied_raw_to_the_same_bytes(tmp_path, monkeypatch, compression):
    data = _seq(tmp_path / "in.seq", compression)
    frames = []
    real = seqfmt.SequenceFileWriter.append_raw
    monkeypatch.setattr(seqfmt.SequenceFileWriter, "append_raw",
                        lambda self, frame: frames.append(frame) or real(self, frame))  # fmt: skip

    def no_encode(*args, **kwargs):
        raise AssertionError("an unchanged entry was encoded again")

    monkeypatch.setattr(seqfmt.SequenceFileWriter, "append", no_encode)
    assert _convert(tmp_path / "in.seq", tmp_path / "out") == data  # the same file, byte for byte
    assert len(frames) == 40
    assert all(f in data for f in frames)


def test_a_longer_vint_prefix_is_written_as_before(tmp_path):
    """A ``Text`` value whose length prefix is not the shortest VInt is not copied raw: the
    writer writes the shortest one, as it did before raw copies."""
    body = b"not the shortest prefix"
    longer = bytes([0x8F, len(body)])  # -113: one more byte follows (Hadoop's VLong layout)
    buf = io.BytesIO()
    w = seqfmt.SequenceFileWriter(buf, H + "Text", H + "Text")
    w.append(encode_vlong(3) + b"key", longer + body)
    w.close()
    (tmp_path / "in.seq").write_bytes(buf.getvalue())
    out = _convert(tmp_path / "in.seq", tmp_path / "out")
    (entry,) = [e for e in seqfmt.iter_entries(out) if isinstance(e, seqfmt.Entry)]
    assert entry.value == encode_vlong(len(body)) + body


def test_a_changed_record_is_encoded(tmp_path, monkeypatch):
    """A filter's change goes through the encoder, not the raw frame."""
    from tests.helpers import put_fake_plugins_on_path

    put_fake_plugins_on_path(monkeypatch)
    _seq(tmp_path / "in.seq", "none")
    frames = []
    real = seqfmt.SequenceFileWriter.append_raw
    monkeypatch.setattr(seqfmt.SequenceFileWriter, "append_raw",
                        lambda self, frame: frames.append(frame) or real(self, frame))  # fmt: skip
    out = tmp_path / "out"
    code = main(["convert", str(tmp_path / "in.seq"), "--to", "sequencefile", "-o", str(out),
                 "--workers", "1", "--progress", "never", "--plugin", "cm_fake",
                 "--filter", "fake-threshold", "threshold=64"])  # fmt: skip
    assert code == 0
    assert frames == []
    (made,) = [p for p in out.rglob("*.seq") if ".crawlmill" not in p.parts]
    assert b"<HTML>PAGE 7</HTML>" in made.read_bytes()
