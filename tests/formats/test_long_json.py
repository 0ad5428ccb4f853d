"""``formats/cc2012/long_json.py``: ``json.loads`` with long strings decoded straight from the bytes.

The oracle is the standard library's ``json.loads``: the same value, or the same exception
(type and message), for documents built here around RFC 8259's string rules ("All Unicode
characters may be placed within the quotation marks, except for the characters that MUST be
escaped: quotation mark, reverse solidus, and the control characters (U+0000 through
U+001F)", section 7)."""

from __future__ import annotations

import json
import random
import tracemalloc

import pytest
from crawlmill.formats.cc2012.long_json import LONG_STRING, loads


def _same(doc: bytes, long: int = 8) -> None:
    try:
        want = json.loads(doc)
    except ValueError as exc:
        with pytest.raises(type(exc)) as got:
            loads(doc, long)
        assert str(got.value) == str(exc)
        return
    got = loads(doc, long)
    assert got == want and type(got) is type(want)
    assert json.dumps(got) == json.dumps(want)  # key order too


@pytest.mark.parametrize(
    "doc",
    [
        b'{"disposition": "SUCCESS", "content": {"title": "a long title here"}}',
        b'["short", "a long string one", {"k": ["another long one", 1, null]}]',
        b'"a bare long string"',
        '{"t": "a long t\u00eftle \u65e5\u672c\u8a9e \U0001f600 text"}'.encode(),
        b'{"t": "a long \xed\xa0\x80 encoded surrogate"}',  # json.loads: surrogatepass
        b'{"t": "a long string with \\"escapes\\" \\u00e9 \\n"}',  # left to json.loads
        b'{"a long key string": 1, "b": "a long value string"}',  # a long key
        b'{"a": "a long value, dropped", "a": 2}',  # a repeated key drops it
        b'{"a": 1, "a": "a long value, kept"}',
        b'  {"t" : "a long title"  , "n": [1.5e3, true, false]}  ',
        b'{"t": "a long \x01 control character"}',  # MUST be escaped: an error
        b'{"t": "a long \xff invalid UTF-8"}',  # an error
        b'{"t": "a long unterminated string}',
        b'{"t": "a long string"} trailing',
        b'{"t": "a long string", }',
        b'\xef\xbb\xbf{"t": "a long string after a BOM"}',
        '{"t": "a long UTF-16 string"}'.encode("utf-16"),
    ],
)
def test_the_same_as_json_loads(doc):
    _same(doc)


def test_random_documents_are_read_as_json_loads_reads_them():
    """Seeded random documents: nested objects and arrays, strings short and long, with and
    without escapes, sometimes damaged by a byte cut or replaced."""
    rnd = random.Random(25)
    alphabet = ["a", "b", " ", "\u00e9", "\u65e5", "\U0001f600", '"', "\\", "\n", "/"]

    def value(depth: int):
        kind = rnd.randrange(6 if depth < 3 else 3)
        if kind == 0:
            return "".join(
                rnd.choice(alphabet[: rnd.choice((4, 6, 10))]) for _ in range(rnd.randrange(30))
            )
        if kind == 1:
            return rnd.choice([0, -1.5, True, None, 10**20])
        if kind == 2:
            return "x" * rnd.randrange(40)
        if kind == 3:
            return [value(depth + 1) for _ in range(rnd.randrange(4))]
        return {f"k{rnd.randrange(5)}": value(depth + 1) for _ in range(rnd.randrange(4))}

    for _ in range(400):
        doc = json.dumps(value(0), ensure_ascii=rnd.random() < 0.3).encode()
        if rnd.random() < 0.3 and doc:
            i = rnd.randrange(len(doc))
            doc = doc[:i] + bytes([rnd.choice(b'"\\\x01}x\xff')]) + doc[i + 1 :]
        _same(doc, long=rnd.choice((1, 4, 12)))


def test_a_long_title_is_held_once_beside_the_bytes():
    """The point of it: a 4 MiB title costs one copy (the string) beside the document's
    bytes, where ``json.loads`` holds the decoded document too (traced allocations)."""
    n = 4 << 20
    doc = b'{"disposition": "SUCCESS", "content": {"title": "' + b"t" * n + b'"}}'

    def peak(fn) -> int:
        tracemalloc.start()
        try:
            got = fn(doc)
            return tracemalloc.get_traced_memory()[1], got
        finally:
            tracemalloc.stop()

    lean, got = peak(loads)
    plain, want = peak(json.loads)
    assert got == want and len(got["content"]["title"]) == n
    assert lean < n * 1.1 < 2 * n < plain, (lean, plain)
    assert n >= LONG_STRING
