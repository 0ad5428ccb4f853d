"""Hadoop's zero-compressed integers (``org.apache.hadoop.io.WritableUtils``).

Not LEB128 nor zig-zag: one byte for -112..127 (signed), else a length byte (-113..-120 for
positive, -121..-128 for negative values) and 1 to 8 big-endian bytes, the one's complement
for negative values (spec section 1.2).
"""

from __future__ import annotations

__all__ = [
    "INT_MAX",
    "INT_MIN",
    "VIntError",
    "decode_vint",
    "decode_vlong",
    "encode_vlong",
    "vint_size",
]

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


class VIntError(ValueError):
    """Bytes that are no VInt/VLong: cut short, or a value out of range."""


def encode_vlong(value: int) -> bytes:
    """``WritableUtils.writeVLong(value)`` (also ``writeVInt``)."""
    if not LONG_MIN <= value <= LONG_MAX:
        raise VIntError(f"{value} is out of the range of a Java long")
    if -112 <= value <= 127:
        return (value & 0xFF).to_bytes(1, "big")
    base = -112
    if value < 0:
        value, base = ~value, -120
    n = (value.bit_length() + 7) // 8
    return ((base - n) & 0xFF).to_bytes(1, "big") + value.to_bytes(n, "big")


def vint_size(first: int) -> int:
    """Total size in bytes of the VInt/VLong whose first byte (unsigned) is ``first``."""
    b = first - 256 if first > 127 else first
    if b >= -112:
        return 1
    return -119 - b if b < -120 else -111 - b


def decode_vlong(buf: bytes | bytearray | memoryview, pos: int = 0) -> tuple[int, int]:
    """``(value, end)`` of the VLong at ``buf[pos:]``; :class:`VIntError` when cut short."""
    if pos >= len(buf):
        raise VIntError(f"VLong expected at {pos}, found the end of the data")
    first = buf[pos]
    b = first - 256 if first > 127 else first
    if b >= -112:
        return b, pos + 1
    size = -119 - b if b < -120 else -111 - b
    end = pos + size
    if end > len(buf):
        raise VIntError(f"VLong at {pos} needs {size} bytes, {len(buf) - pos} left")
    value = int.from_bytes(buf[pos + 1 : end], "big")
    return (~value if b < -120 else value), end


def decode_vint(buf: bytes | bytearray | memoryview, pos: int = 0) -> tuple[int, int]:
    """``(value, end)`` of the VInt at ``buf[pos:]``: a VLong that must fit a Java int."""
    value, end = decode_vlong(buf, pos)
    if not INT_MIN <= value <= INT_MAX:
        raise VIntError(f"VInt at {pos} is {value}, out of the range of a Java int")
    return value, end
