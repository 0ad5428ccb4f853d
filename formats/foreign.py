"""Magic numbers of formats crawlmill has no reader for.

A file no reader claims is then named for what it is ("Hadoop SequenceFile: no reader
installed for it yet") instead of "no reader recognises this file", and planning treats it as
an input that was not converted rather than as a side file (``core/inputs.py``). The table is
consulted only when no installed reader claims a file, so a plugin that reads one of these
formats takes precedence over it.
"""

from __future__ import annotations

__all__ = ["FOREIGN_MAGICS", "foreign_format"]

#: (offset, magic, name): the first match names the file.
FOREIGN_MAGICS: tuple[tuple[int, bytes, str], ...] = (
    # SEQ + a version byte (0..6 in every Hadoop release); Nutch segments and MapFile data
    (0, b"SEQ", "Hadoop SequenceFile"),
    (0, b"Obj\x01", "Avro object container file"),
    (0, b"PAR1", "Apache Parquet file"),
    (0, b"ORC", "Apache ORC file"),
    (0, b"BZh", "bzip2-compressed file"),
    (0, b"\xfd7zXZ\x00", "xz-compressed file"),
    (0, b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (0, b"PK\x03\x04", "ZIP archive"),
    (0, b"Rar!\x1a\x07", "RAR archive"),
    (257, b"ustar", "tar archive"),
)


def _matches(data: bytes, offset: int, magic: bytes, name: str) -> bool:
    if data[offset : offset + len(magic)] != magic:
        return False
    if name == "Hadoop SequenceFile":  # text that merely starts with "SEQ" is not one
        return len(data) == 3 or data[3] < 0x20
    if name == "bzip2-compressed file":  # BZh + block size digit 1..9
        return len(data) > 3 and 0x31 <= data[3] <= 0x39
    return True


def foreign_format(*heads: bytes) -> str | None:
    """The name of the foreign format whose magic starts one of ``heads`` (the file's raw
    first bytes, its decompressed first bytes), or ``None``."""
    for data in heads:
        for offset, magic, name in FOREIGN_MAGICS:
            if _matches(data, offset, magic, name):
                return name
    return None
