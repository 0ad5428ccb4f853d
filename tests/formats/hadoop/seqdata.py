"""What ../shared/samples/hadoop-oracle-generated/SOURCES.md and pyspark-generated/SOURCES.md
say was written: the test data of the SequenceFile tests."""

from __future__ import annotations

TEXT_CODECS = ["DefaultCodec", "GzipCodec", "BZip2Codec", "SnappyCodec", "Lz4Codec"]
#: SeqOracle's file metadata (Text -> Text, sorted by key as Hadoop's TreeMap writes them).
ORACLE_METADATA = [(b"a-key", "é中".encode()), (b"creator", b"SeqOracle/hadoop-3.5.0")]


def oracle_key(n: int) -> bytes:
    """Key N of the generated Text/Text files."""
    return b"http://example.com/%04d" % n


def oracle_value(n: int) -> bytes:
    """Value N: ``"value N é中😀 "`` repeated (N % 7) + 1 times."""
    return (f"value {n} é中😀 " * ((n % 7) + 1)).encode()


def text(data: bytes) -> bytes:
    """``data`` serialized as a Hadoop Text (VInt length; every length here is < 32768)."""
    from crawlmill.formats.hadoop.vint import encode_vlong

    return encode_vlong(len(data)) + data
