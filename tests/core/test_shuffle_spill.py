"""The local shuffle's external sort (algorithms/sorted_runs/spill.py, merge.py, runfile.py): bounded
buffering counted honestly, sorted runs per partition, streaming merges in (key, input, seq)
order = Hadoop's raw Text order, range partitions, atomic run files, and clear errors on
truncated or damaged run files."""

from __future__ import annotations

import os
import random
import struct
import tracemalloc
from pathlib import Path

import pytest
from crawlmill.algorithms.sorted_runs import merge as merge_mod
from crawlmill.algorithms.sorted_runs import runfile
from crawlmill.algorithms.sorted_runs.merge import (
    KeySampler,
    boundaries,
    index_samples,
    key_range,
    merge,
    partition_runs,
    read_samples,
)
from crawlmill.algorithms.sorted_runs.runfile import RunFileError, RunReader, RunWriter
from crawlmill.algorithms.sorted_runs.spill import ENTRY_OVERHEAD, Spiller


def _entries(n: int, seed: int = 1, inputs: int = 3):
    rnd = random.Random(seed)
    seq = [0] * inputs
    for _ in range(n):
        i = rnd.randrange(inputs)
        key = bytes(rnd.randrange(97, 101) for _ in range(rnd.randrange(0, 4)))
        yield key, i, seq[i], rnd.randbytes(rnd.randrange(0, 300))
        seq[i] += 1


def test_spill_sort_merge_round_trip_many_spills(tmp_path) -> None:
    entries = list(_entries(3000))
    spiller = Spiller(str(tmp_path), 3, 20_000, "task0")
    for key, i, seq, blob in entries:
        spiller.add(len(key) % 3, key, i, seq, blob)
    runs = spiller.close()
    assert spiller.spills > 20 and len(runs) > 40
    assert spiller.peak <= 20_000
    for p in range(3):
        got = list(merge(partition_runs(str(tmp_path), p)))
        want = sorted((e for e in entries if len(e[0]) % 3 == p), key=lambda e: e[:3])
        assert got == want
        assert all(
            os.path.basename(r).startswith("task0-") for r in partition_runs(str(tmp_path), p)
        )


def test_ties_keep_input_then_seq_order(tmp_path) -> None:
    spiller = Spiller(str(tmp_path), 1, 10**6, "t")
    for i, seq in [(2, 0), (0, 1), (1, 0), (0, 0), (2, 1)]:
        spiller.add(0, b"same", i, seq, f"{i}/{seq}".encode())
    spiller.close()
    got = [blob for _, _, _, blob in merge(partition_runs(str(tmp_path), 0))]
    assert got == [b"0/0", b"0/1", b"1/0", b"2/0", b"2/1"]


def test_keys_in_hadoop_text_raw_order(tmp_path) -> None:
    """Hadoop's Text raw comparator: unsigned lexicographic order of the UTF-8 bytes, a prefix
    first. Not Java's String order (UTF-16: U+10000 < U+FFFF) and not signed bytes (é < z)."""
    texts = ["", "a", "a\x00", "ab", "b", "z", "\x7f", "é", "éa", "中", "\uffff", "\U00010000"]
    expected = [t.encode("utf-8") for t in texts]
    assert sorted(expected) == expected  # the order the list above is written in
    shuffled = expected[:]
    random.Random(3).shuffle(shuffled)
    spiller = Spiller(str(tmp_path), 1, 600, "t")  # a spill every couple of entries
    for n, key in enumerate(shuffled):
        spiller.add(0, key, 0, n, b"")
    spiller.close()
    assert spiller.spills > 3
    assert [k for k, *_ in merge(partition_runs(str(tmp_path), 0))] == expected
    java_utf16 = sorted(texts, key=lambda t: t.encode("utf-16-be"))
    assert java_utf16 != texts  # the two orders differ on these keys: the test can tell


def test_memory_accounting_is_honest(tmp_path) -> None:
    """What the spiller counts covers what the buffered entries really take (tracemalloc),
    for small entries where per-object overhead dominates."""
    memory = 2_000_000
    spiller = Spiller(str(tmp_path), 4, memory, "t")
    rnd = random.Random(5)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for n in range(50_000):
            key = b"key-%d" % rnd.randrange(10**9)
            spiller.add(n % 4, key, 1000 + n % 7, 10**6 + n, rnd.randbytes(rnd.randrange(0, 40)))
            if spiller.spills:
                break
            real = tracemalloc.get_traced_memory()[0] - base
            assert real <= spiller.buffered + 64 * 1024, (n, real, spiller.buffered)
    finally:
        tracemalloc.stop()
    assert spiller.spills == 1  # it reached the bound and spilled


def test_entry_larger_than_memory_spills_alone(tmp_path) -> None:
    spiller = Spiller(str(tmp_path), 1, 1000, "t")
    spiller.add(0, b"b", 0, 0, b"x" * 10)
    spiller.add(0, b"a", 0, 1, b"y" * 5000)
    spiller.add(0, b"c", 0, 2, b"z")
    runs = spiller.close()
    assert len(runs) == 3
    assert [k for k, *_ in merge(runs)] == [b"a", b"b", b"c"]


def test_multi_level_merge_with_small_fan_in(tmp_path) -> None:
    entries = list(_entries(500, seed=9))
    spiller = Spiller(str(tmp_path / "s"), 1, 3000, "t")
    for e in entries:
        spiller.add(0, *e)
    runs = spiller.close()
    assert len(runs) > 9
    scratch = tmp_path / "scratch"
    got = list(merge(runs, scratch=str(scratch), fan_in=3))
    assert got == sorted(entries, key=lambda e: e[:3])
    assert not list(scratch.iterdir())  # intermediate runs are removed
    with pytest.raises(ValueError, match="scratch"):
        list(merge(runs, fan_in=3))


def test_range_partitions_cover_every_entry_once(tmp_path) -> None:
    entries = [(b"k%04d" % (i % 997), 0, i, b"v" * (i % 50)) for i in range(5000)]
    spiller = Spiller(str(tmp_path), 1, 50_000, "t")
    for e in entries:
        spiller.add(0, *e)
    runs = spiller.close()
    bounds = boundaries(index_samples(runs), 4)
    assert len(bounds) == 3 and bounds == sorted(bounds)
    parts = [list(merge(runs, *key_range(bounds, p))) for p in range(4)]
    assert sum(parts, []) == sorted(entries, key=lambda e: e[:3])
    sizes = [sum(len(b) + len(k) for k, _, _, b in part) for part in parts]
    assert min(sizes) > 0.15 * sum(sizes)  # roughly balanced by bytes
    for a, b in zip(parts, parts[1:], strict=False):  # equal keys never straddle partitions
        assert a[-1][0] < b[0][0]


def test_range_read_skips_with_the_index(tmp_path) -> None:
    path = str(tmp_path / "r.run")
    w = RunWriter(path)
    for i in range(10_000):
        w.add(b"%06d" % i, 0, i, b"")
    w.close()
    reader = RunReader(path)
    assert len(reader.keys) > 100
    got = list(reader.read(b"009990", b"009995"))
    assert [k for k, *_ in got] == [b"%06d" % i for i in range(9990, 9995)]
    # the read starts at most one index step before lo
    start = reader.offsets[max(0, __import__("bisect").bisect_left(reader.keys, b"009990") - 1)]
    assert start > reader.index_offset * 0.9


def test_boundaries_of_one_key_and_of_nothing(tmp_path) -> None:
    assert boundaries([], 3) == [b"", b""]
    assert boundaries([], 1) == []
    path = str(tmp_path / "r.run")
    w = RunWriter(path)
    for i in range(200):
        w.add(b"same", 0, i, b"x")
    w.close()
    bounds = boundaries(index_samples([path]), 3)
    parts = [list(merge([path], *key_range(bounds, p))) for p in range(3)]
    assert sorted(len(p) for p in parts) == [0, 0, 200]


def test_thinning_keeps_weight(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(merge_mod, "MAX_SAMPLES", 10)
    path = str(tmp_path / "r.run")
    w = RunWriter(path)
    for i in range(5000):
        w.add(b"%05d" % i, 0, i, b"")
    w.close()
    bounds = boundaries(index_samples([path] * 3), 2)
    assert b"02000" <= bounds[0] <= b"03000"


# -- atomicity and damage --------------------------------------------------------------------


def test_run_file_visible_only_when_complete(tmp_path) -> None:
    path = str(tmp_path / "p00000" / "t-00000.run")
    os.makedirs(os.path.dirname(path))
    w = RunWriter(path)
    w.add(b"a", 0, 0, b"x")
    assert not os.path.exists(path)
    assert partition_runs(str(tmp_path), 0) == []  # the temp file is not a run
    w.close()
    assert partition_runs(str(tmp_path), 0) == [path]
    w2 = RunWriter(path + "2.run")
    w2.add(b"a", 0, 0, b"x")
    w2.abort()
    assert sorted(os.listdir(tmp_path / "p00000")) == ["t-00000.run"]


def _run(tmp_path, n: int = 50) -> str:
    path = str(tmp_path / "r.run")
    w = RunWriter(path)
    for i in range(n):
        w.add(b"k%03d" % i, 1, i, b"blob%d" % i)
    w.close()
    return path


def test_every_truncation_is_an_error_naming_file_and_offset(tmp_path) -> None:
    path = _run(tmp_path)
    data = Path(path).read_bytes()
    cut = str(tmp_path / "cut.run")
    for n in range(len(data)):
        with open(cut, "wb") as f:
            f.write(data[:n])
        with pytest.raises(RunFileError, match=r"cut\.run: at byte \d+: "):
            list(RunReader(cut))


def test_every_byte_flip_is_detected(tmp_path) -> None:
    path = _run(tmp_path, 8)
    data = Path(path).read_bytes()
    good = list(RunReader(path))
    bad = str(tmp_path / "bad.run")
    for i in range(len(data)):
        flipped = bytearray(data)
        flipped[i] ^= 0x01
        with open(bad, "wb") as f:
            f.write(flipped)
        try:
            got = list(RunReader(bad))
        except RunFileError:
            continue
        raise AssertionError(f"flip at {i} not detected (got {len(got)} of {len(good)} entries)")


def test_damaged_entry_names_its_offset(tmp_path) -> None:
    path = _run(tmp_path, 10)
    data = bytearray(Path(path).read_bytes())
    reader = RunReader(path)
    entry_at = reader.offsets[0] + struct.calcsize(">IQIQ")  # inside the first entry's key
    data[entry_at] ^= 0xFF
    Path(path).write_bytes(data)
    with pytest.raises(RunFileError, match=f"at byte {reader.offsets[0]}: damaged entry"):
        list(RunReader(path))


def test_huge_declared_length_does_not_allocate(tmp_path) -> None:
    path = _run(tmp_path, 3)
    data = bytearray(Path(path).read_bytes())
    first = len(runfile.MAGIC)
    data[first + 4 : first + 12] = struct.pack(">Q", 2**60)  # blob_len of the first entry
    Path(path).write_bytes(data)
    with pytest.raises(RunFileError, match="declared"):
        list(RunReader(path))


def test_writer_refuses_unsorted_entries_and_bad_values(tmp_path) -> None:
    w = RunWriter(str(tmp_path / "r.run"))
    w.add(b"b", 0, 0, b"")
    with pytest.raises(ValueError, match="order"):
        w.add(b"a", 0, 0, b"")
    w.abort()
    s = Spiller(str(tmp_path), 2, 1000, "t")
    with pytest.raises(ValueError, match="partition 2"):
        s.add(2, b"k", 0, 0, b"")
    with pytest.raises(TypeError):
        s.add(0, "k", 0, 0, b"")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="run name"):
        Spiller(str(tmp_path), 1, 1000, "../x")


def test_abort_removes_runs(tmp_path) -> None:
    s = Spiller(str(tmp_path), 2, 500, "t")
    for e in _entries(50):
        s.add(0, *e)
    assert s.runs
    s.abort()
    assert partition_runs(str(tmp_path), 0) == []


def test_entry_overhead_is_not_below_a_measurement() -> None:
    """The constant is at least what one small entry's Python objects take."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        keep = [(b"k%07d" % i, 1000 + i, 10**9 + i, b"") for i in range(10_000)]
        per_entry = (tracemalloc.get_traced_memory()[0] - base) / len(keep)
    finally:
        tracemalloc.stop()
    assert per_entry <= ENTRY_OVERHEAD + len(b"k0000000")


def test_key_sampler_is_independent_of_spills(tmp_path) -> None:
    """Range boundaries come from the record stream, not from how the bound cut the runs."""
    entries = [(b"k%05d" % ((i * 7919) % 10_000), 0, i, b"v" * (i % 90)) for i in range(6000)]
    sampler = KeySampler()
    for key, _i, _seq, blob in entries:
        sampler.add(key, len(key) + len(blob))
    path = sampler.write(str(tmp_path / "samples.run"))
    samples = list(read_samples(path))
    assert sum(w for _, w in samples) == sum(len(k) + len(b) for k, _, _, b in entries)
    bounds = boundaries(samples, 3)
    assert bounds == boundaries(reversed(samples), 3) and len(bounds) == 2
    for memory in (30_000, 300_000):
        s = Spiller(str(tmp_path / str(memory)), 1, memory, "t")
        for e in entries:
            s.add(0, *e)
        runs = s.close()
        parts = [list(merge(runs, *key_range(bounds, p))) for p in range(3)]
        assert sum(parts, []) == sorted(entries, key=lambda e: e[:3])
        assert min(len(p) for p in parts) > 1000


def test_key_sampler_memory_is_bounded(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(merge_mod, "MAX_TASK_SAMPLES", 16)
    sampler = KeySampler()
    total = 0
    for i in range(20_000):
        sampler.add(b"%06d" % ((i * 7919) % 20_000), 10)
        total += 10
        assert len(sampler.samples) < 16
    samples = list(read_samples(sampler.write(str(tmp_path / "s.run"))))
    assert sum(w for _, w in samples) == total and len(samples) <= 16
    bounds = boundaries(samples, 2)
    assert b"005000" < bounds[0] < b"015000"
