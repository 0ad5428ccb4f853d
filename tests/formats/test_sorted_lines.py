"""Binary search for lines by first field, against a linear scan, at every boundary: keys at
the start and end, absent keys before, between and after, runs of equal keys, CRLF lines, a
file without a final newline."""

from __future__ import annotations

import io
import random

import pytest
from crawlmill.formats.sorted_lines import find_lines, first_fields_sorted


def linear(lines: list[bytes], key: bytes) -> list[bytes]:
    return [line for line in lines if line.split(b"\t", 1)[0] == key]


@pytest.mark.parametrize("seed", range(30))
def test_against_a_linear_scan(seed):
    rng = random.Random(seed)
    keys = sorted(f"NW{rng.randrange(50):09d}".encode() for _ in range(rng.randrange(1, 60)))
    lines = [
        k + b"\thttp://x/" + str(i).encode() * rng.randrange(1, 30) for i, k in enumerate(keys)
    ]
    newline = b"\r\n" if seed % 3 == 0 else b"\n"
    data = newline.join(lines) + (newline if seed % 2 else b"")
    fh = io.BytesIO(data)
    assert first_fields_sorted(io.BytesIO(data))
    for n in range(-1, 52):
        key = f"NW{n:09d}".encode()
        assert find_lines(fh, len(data), key) == linear(lines, key), (seed, key)


def test_empty_file_and_unsorted_file():
    assert find_lines(io.BytesIO(b""), 0, b"a") == []
    assert not first_fields_sorted(io.BytesIO(b"b\t1\na\t2\n"))
    assert first_fields_sorted(io.BytesIO(b""))
