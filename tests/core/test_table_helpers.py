"""core/reduce_tables.py helpers the keyed dedup filters share: the rows after the first of each key,
and one input's rows gathered from a split reduce's tables."""

import pyarrow as pa
from crawlmill.core.reduce_tables import KeyedDrops, input_rows_by_seq, rows_after_the_first_per_key


def _ranked(keys, inputs, seqs):
    return pa.table({"key": keys, "input": inputs, "seq": seqs})


def test_rows_after_the_first_per_key_at_the_boundaries():
    empty = _ranked(pa.array([], pa.binary()), pa.array([], pa.int32()), pa.array([], pa.int64()))
    assert rows_after_the_first_per_key(empty).num_rows == 0
    assert rows_after_the_first_per_key(_ranked([b"a"], [0], [0])).num_rows == 0
    # sorted by key then rank; the duplicates come back sorted by input and seq
    got = rows_after_the_first_per_key(
        _ranked([b"a", b"a", b"a", b"b", b"c", b"c"], [1, 0, 1, 0, 1, 0], [5, 9, 2, 0, 0, 3])
    )
    assert got.column_names == ["input", "seq", "key"]
    assert got.to_pylist() == [
        {"input": 0, "seq": 3, "key": b"c"},
        {"input": 0, "seq": 9, "key": b"a"},
        {"input": 1, "seq": 2, "key": b"a"},
    ]


def test_rows_after_the_first_per_key_across_chunks():
    """A key whose rows straddle two chunks is still one key."""
    keys = pa.chunked_array([pa.array([b"a", b"b"]), pa.array([b"b", b"c"])])
    ranked = pa.table({"key": keys, "input": [0, 0, 0, 0], "seq": [0, 1, 2, 3]})
    assert rows_after_the_first_per_key(ranked)["seq"].to_pylist() == [2]


def test_input_rows_by_seq_gathers_the_parts():
    part0 = pa.table({"input": [0, 1, 1], "seq": [4, 7, 1], "key": [b"x", b"y", b"z"]})
    part1 = pa.table({"input": [1, 2], "seq": [3, 0], "key": [b"w", b"v"]})
    assert input_rows_by_seq([part0, part1], 1)["seq"].to_pylist() == [1, 3, 7]
    assert input_rows_by_seq([part0, part1], 0)["seq"].to_pylist() == [4]
    assert input_rows_by_seq([part0, part1], 5) is None
    assert input_rows_by_seq([], 0) is None


def test_keyed_drops_answers_in_record_order():
    part = pa.table({"input": [0, 1, 1], "seq": [2, 1, 4], "key": [b"a", b"b", b"c"]})
    drops = KeyedDrops([part], 1)
    assert [drops.take(seq) for seq in range(6)] == [None, b"b", None, None, b"c", None]
    collect_pass = KeyedDrops([], 1)
    assert [collect_pass.take(seq) for seq in range(3)] == [None, None, None]
