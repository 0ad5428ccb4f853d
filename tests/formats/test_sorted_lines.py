"""Binary search for lines by first field, against a linear scan, at every boundary: keys at
the start and end, absent keys before, between and after, runs of equal keys, CRLF lines, a
file without a final newline."""

from __future__ import annotations

import io
import random

import pytest
from crawlmill.algorithms.sorted_lines import find_lines, first_fields_sorted


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


def test_sort_lines_spills_sorted_runs_and_merges_them(tmp_path):
    import random

    from crawlmill.algorithms.sorted_lines import sort_lines

    lines = [f"NW{n:09d}\tpath{n}".encode() for n in range(1000)] * 2
    random.Random(5).shuffle(lines)
    spilled = sort_lines(iter(lines), str(tmp_path), chunk=64)  # 32 runs on disk
    assert list(spilled) == sorted(lines)
    assert list(tmp_path.iterdir()) == []  # the runs are removed
    assert list(sort_lines([b"b", b"a"], str(tmp_path))) == [b"a", b"b"]  # in memory


def test_unmatched_gives_the_keys_one_side_lacks():
    from crawlmill.algorithms.sorted_lines import unmatched

    left = [(b"a", 1), (b"b", 2), (b"b", 3), (b"d", 4), (b"f", 5)]
    right = [(b"b", "x"), (b"c", "y"), (b"c", "z"), (b"f", "w"), (b"g", "v")]
    assert list(unmatched(left, right)) == [
        (1, None), (None, "y"), (None, "z"), (4, None), (None, "v")
    ]  # fmt: skip
    assert list(unmatched([], right[:1])) == [(None, "x")]
    assert list(unmatched(left[:1], [])) == [(1, None)]
