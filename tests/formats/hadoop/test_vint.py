"""Hadoop VInt/VLong (WritableUtils): the spec's examples, every length edge, cut input."""

from __future__ import annotations

import pytest
from crawlmill.formats.hadoop.vint import (
    VIntError,
    decode_vint,
    decode_vlong,
    encode_vlong,
    vint_size,
)

EXAMPLES = {
    0: "00", 127: "7f", 128: "8f80", 255: "8fff", 256: "8e0100", 300: "8e012c", -1: "ff",
    -112: "90", -113: "8770", -129: "8780", 2**31 - 1: "8c7fffffff", -(2**31): "847fffffff",
}  # fmt: skip


@pytest.mark.parametrize(("value", "hexed"), EXAMPLES.items())
def test_spec_examples(value, hexed):
    assert encode_vlong(value).hex() == hexed
    assert decode_vint(bytes.fromhex(hexed)) == (value, len(hexed) // 2)


EDGES = [v for k in range(1, 63) for v in (2**k - 1, 2**k, -(2**k), -(2**k) - 1)] + [
    2**63 - 1, -(2**63), -112, -113, 127, 128,
]  # fmt: skip


@pytest.mark.parametrize("value", EDGES)
def test_round_trip_and_size_at_every_byte_length_edge(value):
    data = encode_vlong(value)
    assert vint_size(data[0]) == len(data)
    assert decode_vlong(b"x" + data + b"tail", 1) == (value, 1 + len(data))
    if not -(2**31) <= value < 2**31:
        with pytest.raises(VIntError, match="out of the range of a Java int"):
            decode_vint(data)


def test_cut_and_out_of_range():
    with pytest.raises(VIntError, match="needs 3 bytes"):
        decode_vlong(encode_vlong(300)[:2])
    with pytest.raises(VIntError, match="found the end"):
        decode_vlong(b"")
    with pytest.raises(VIntError, match="range of a Java long"):
        encode_vlong(2**63)
