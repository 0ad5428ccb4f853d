"""formats/foreign.py: naming files in formats crawlmill has no reader for."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest
from crawlmill.formats.foreign import foreign_format


def _tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        info = tarfile.TarInfo("a.warc")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"abc"))
    return buf.getvalue()


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        # a fixed time: the bytes are in the test's id, which every xdist worker must collect alike
        z.writestr(zipfile.ZipInfo("a.warc", date_time=(2020, 1, 1, 0, 0, 0)), b"abc")
    return buf.getvalue()


@pytest.mark.parametrize(
    ("head", "name"),
    [
        (b"SEQ\x06\x19org.apache.hadoop.io.Text", "Hadoop SequenceFile"),
        (b"SEQ\x04", "Hadoop SequenceFile"),
        (b"SEQ", "Hadoop SequenceFile"),
        (b"Obj\x01\x04\x14avro.codec", "Avro object container file"),
        (b"PAR1\x15\x04", "Apache Parquet file"),
        (b"BZh91AY&SY", "bzip2-compressed file"),
        (b"\xfd7zXZ\x00\x00", "xz-compressed file"),
        (_zip(), "ZIP archive"),
        (_tar(), "tar archive"),
    ],
)
def test_known_magics_are_named(head, name):
    assert foreign_format(head) == name


@pytest.mark.parametrize(
    "head",
    [b"", b"SEQUENCE of notes", b"BZh is not a block size", b"WARC/1.0\r\n", b"\x1f\x8b\x08"],
)
def test_other_bytes_are_not_named(head):
    assert foreign_format(head) is None


def test_the_decompressed_head_is_looked_at_too():
    assert foreign_format(b"\x1f\x8b\x08\x00", b"SEQ\x06") == "Hadoop SequenceFile"
