"""The Writable byte codecs, checked on the files Hadoop 3.5.0 wrote (types/*.seq) and on
values built at their edges."""

from __future__ import annotations

import hashlib

import pytest
from crawlmill.formats.hadoop.sequencefile import Entry, iter_entries, read_header
from crawlmill.formats.hadoop.writables import (
    ArrayWritable,
    MapValue,
    MapWritable,
    WritableError,
    builtin,
    canonical_name,
    content_of,
    decode,
    decode_modified_utf8,
    encode_modified_utf8,
    from_content,
)

H = "org.apache.hadoop.io."

#: types/<Class>.seq: IntWritable keys 0.. and these values (SOURCES.md).
TYPES = {
    "IntWritable": [0, -1, 2**31 - 1, -(2**31)],
    "LongWritable": [0, -1, 2**63 - 1, -(2**63), 1234567890123],
    "VIntWritable": [0, 127, 128, -112, -113, -129, 255, 256, 2**31 - 1, -(2**31)],
    "VLongWritable": [0, 2**63 - 1, -(2**63), -1, 2**40],
    "BytesWritable": [b"", b"\x00\x01\x02\xff", bytes(300)],
    "NullWritable": [None, None],
    "MD5Hash": [hashlib.md5(b"hello").digest(), hashlib.md5(b"").digest()],
    "BooleanWritable": [True, False],
    "FloatWritable": [1.5, -0.0],
    "DoubleWritable": [3.141592653589793],
}


def _pairs(path):
    data = path.read_bytes()
    header = read_header(data)
    items = list(iter_entries(data))
    assert all(isinstance(e, Entry) for e in items)
    return header, items


@pytest.mark.parametrize("cls", TYPES)
def test_every_basic_writable_hadoop_wrote(samples, cls):
    header, items = _pairs(samples / "hadoop-oracle-generated" / "types" / f"{cls}.seq")
    assert (header.key_class, header.value_class) == (H + "IntWritable", H + cls)
    keys = builtin(header.key_class)
    values = builtin(header.value_class)
    got = [(decode(keys, e.key), decode(values, e.value)) for e in items]
    assert got == list(enumerate(TYPES[cls]))
    # each value writes back to the bytes Hadoop wrote
    assert [values.write(v) for _, v in got] == [e.value for e in items]


def test_map_writable_with_a_class_outside_the_predefined_table(samples):
    header, items = _pairs(samples / "hadoop-oracle-generated" / "types" / "MapWritable.seq")
    codec = builtin(header.value_class)
    first, second = (decode(codec, e.value) for e in items)
    assert decode(builtin(H + "Text"), items[0].key) == b"k1"
    assert first.classes == [(1, H + "UTF8")]
    assert first.as_dict() == {
        b"utf8": "deprecated-utf8", b"_pst_": b"success(1), lastModified=0",
        b"bytes": b"\x01\x02\x03", b"int": 42, b"long": 42, b"float": 0.5,
    }  # fmt: skip
    assert {(k, vc) for _, k, vc, _ in first.entries} >= {
        (b"utf8", H + "UTF8"),
        (b"long", H + "LongWritable"),
    }
    assert second == MapValue([], [])
    assert [codec.write(first), codec.write(second)] == [e.value for e in items]


def test_map_writable_from_a_plain_dict_and_unknown_classes():
    codec = MapWritable()
    data = codec.write({"a": 1, "b": b"x", "c": None})
    assert decode(codec, data).as_dict() == {b"a": 1, b"b": b"x", b"c": None}
    # an entry of a class with no codec cannot be skipped: the value fails as a whole
    odd = MapValue([(H + "Text", b"k", "com.example.Odd", b"")], [(1, "com.example.Odd")])
    with pytest.raises(WritableError, match="no codec for class com.example.Odd"):
        codec.write(odd)
    raw = bytes.fromhex("01 01 0010") + b"com.example.Odd1" + bytes.fromhex("00000001 8c 01 6b 01")
    with pytest.raises(WritableError, match="no codec"):
        decode(codec, raw)


def test_array_writable_and_its_unknown_element_class():
    arr = ArrayWritable(builtin(H + "Text"))
    data = arr.write([b"a", b"", b"bc"])
    assert data == bytes.fromhex("00000003 01 61 00 02 6263")
    assert decode(arr, data) == [b"a", b"", b"bc"]
    with pytest.raises(WritableError, match="element class is not known"):
        decode(builtin(H + "ArrayWritable"), data)


@pytest.mark.parametrize("text", ["", "a\x00b", "é中", "😀", "\ud800 lone surrogate", "x" * 1000])
def test_modified_utf8(text):
    data = encode_modified_utf8(text)
    assert b"\x00" not in data  # U+0000 is C0 80
    if text == "😀":
        assert data == bytes.fromhex("eda0bdedb880")  # two 3-byte surrogates, not 4 bytes
    assert decode_modified_utf8(data) == text
    utf8 = builtin("UTF8")  # the old alias
    assert decode(utf8, utf8.write(text)) == text


def test_text_keeps_invalid_utf8_and_text_bytes_is_text():
    raw = b"\x03\xff\xfe\x80"
    assert decode(builtin(H + "Text"), raw) == b"\xff\xfe\x80"
    assert decode(builtin("org.commoncrawl.util.TextBytes"), raw) == b"\xff\xfe\x80"


@pytest.mark.parametrize(
    ("cls", "raw", "why"),
    [
        (H + "Text", b"\x05abc", "needs 5 bytes"),
        (H + "BytesWritable", b"\xff\xff\xff\xffab", "negative length"),
        (H + "IntWritable", b"\x00\x01", "needs 4 bytes"),
        (H + "IntWritable", b"\x00\x00\x00\x01\x02", "should read 5"),
        (H + "MD5Hash", bytes(15), "needs 16 bytes"),
    ],
)
def test_bad_bytes_are_errors(cls, raw, why):
    with pytest.raises(WritableError, match=why):
        decode(builtin(cls), raw)


def test_aliases_and_content():
    assert canonical_name("long") == H + "LongWritable"
    assert canonical_name("null") == H + "NullWritable"
    assert builtin("MD5Hash") is not None
    for cls, raw, content in [
        (H + "Text", b"\x02hi", b"hi"),
        (H + "BytesWritable", b"\x00\x00\x00\x02hi", b"hi"),
        (H + "UTF8", b"\x00\x02hi", b"hi"),
        (H + "IntWritable", b"\x00\x00\x00\x02", b"\x00\x00\x00\x02"),
        (H + "Text", b"\x05hi", b"\x05hi"),  # a prefix that disagrees: kept whole
    ]:
        assert content_of(cls, raw) == content
        if content is not raw and raw != b"\x05hi":
            assert from_content(cls, content) == raw
