"""The shuffle's record codec (core/run/shuffle/serial.py): round trips of every reader's records on
the real samples and of constructed edge cases, with types kept exactly; bounded, clear errors
on corrupt blobs; no pickle."""

from __future__ import annotations

import contextlib
import enum
import struct
from datetime import UTC, datetime, timedelta, timezone

import pytest
from crawlmill.core import open_reader
from crawlmill.core.record import OffsetSpace, Outlink, Provenance, Record, RecordKind
from crawlmill.core.run.shuffle import serial
from crawlmill.core.run.shuffle.serial import SerialError, decode, encode

from tests.conftest import SAMPLES


class Color(enum.Enum):
    """An enum a plugin might keep in extras."""

    RED = 1
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1


def same(a, b, where="record") -> None:
    """``a == b`` with the same types all the way down (``True`` is not ``1``, a tuple is not a
    list, a StrEnum member is not its text)."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, Record):
        for name in serial.FIELDS:
            same(getattr(a, name), getattr(b, name), f"{where}.{name}")
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys or their order differ"
        for key in a:
            same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{where}: lengths differ"
        for n, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{n}]")
    elif isinstance(a, Provenance):
        for name in ("path", "offset", "length", "format", "space"):
            same(getattr(a, name), getattr(b, name), f"{where}.{name}")
    elif isinstance(a, datetime):
        assert a == b and a.utcoffset() == b.utcoffset() and a.fold == b.fold, where
    else:
        assert a == b, where


def _samples(patterns: tuple[str, ...]) -> list:
    return sorted(p for pattern in patterns for p in SAMPLES.rglob(pattern) if p.is_file())


WARC_ARC = _samples(("*.warc", "*.warc.gz", "*.arc", "*.arc.gz", "*.ARC"))


def _round_trip_file(path, reader=None) -> int:
    n = 0
    with open_reader(path, reader) as records:
        for record in records:
            blob = encode(record)
            back = decode(blob)
            assert back == record, f"{path}: record {n}"
            same(back, record, f"{path.name}#{n}")
            assert encode(back) == blob  # stable bytes
            n += 1
    return n


@pytest.mark.slow
def test_round_trip_every_warc_and_arc_sample() -> None:
    assert len(WARC_ARC) > 50, "the samples folder is missing"
    total = 0
    for path in WARC_ARC:
        try:
            total += _round_trip_file(path)
        except AssertionError:
            raise
        except Exception:  # files no reader claims (not archives) are not this test's subject
            continue
    assert total > 1000


@pytest.mark.parametrize(
    "rel",
    [
        "sqs-freequery/test/dumps/ClueWeb09_English_Sample",
        "sqs-freequery/test/dumps/ClueWeb09_Chinese_Sample",
        "castorini-anserini/sample_docs/cw09/collection1/segment1.warc.gz",
    ],
)
def test_round_trip_clueweb09(rel: str) -> None:
    assert _round_trip_file(SAMPLES / rel, "warc") > 0


def _full() -> Record:
    return Record(
        kind=RecordKind.RESPONSE,
        url="http://example.com/caf\udce9?q=1",  # a raw 0xE9 byte as a surrogate escape
        doc_id="clueweb09-en0000-00-00000",
        date=datetime(2009, 3, 1, 8, 43, 19, 123456, tzinfo=timezone(timedelta(hours=-8))),
        date_raw="2009-03-65T08:43:19-0800",
        http_head=b"HTTP/1.1 200 OK\r\n\r\n",
        payload=bytes(range(256)) * 3,
        content_type="text/html",
        charset="utf-8",
        ip="192.0.2.1",
        text="t\u00e9xt \U0001f600 \ud800",  # a lone high surrogate too
        outlinks=[Outlink("http://a/", "A"), Outlink("http://b/")],
        extras={
            "warc": {
                "headers": [(b"WARC-Type", b"response"), (b"X", b"")],
                "version": "1.0",
                "member": True,
            },
            "neutral": {"truncated": True, "describes_file": "filedesc"},
            "x": {
                "huge": 2**200,
                "neg": -(2**150) - 1,
                "zero": 0,
                "edges": [127, 128, -128, -129, 255, 256, -1],
                "float": -1.5e-300,
                "inf": float("inf"),
                "bool": False,
                "none": None,
                "tuple": (1, (2, [3, {"k": b""}])),
                "empty": [[], (), {}, "", b""],
                "enum": [Color.RED, Color.BLUE, Level.LOW, RecordKind.METADATA],
                "naive": datetime(2020, 1, 2, 3, 4, 5),
                "utc": datetime(1999, 12, 31, 23, 59, 59, tzinfo=UTC),
                "fold": datetime(2021, 11, 7, 1, 30, fold=1, tzinfo=timezone(timedelta(hours=5))),
                1: "int key",
                (1, "a"): "tuple key",
                b"k": "bytes key",
            },
        },
        source=Provenance("/data/x.warc.gz", 12, 345, "warc", OffsetSpace.MEMBER),
        modified=True,
        changed=frozenset({"url", "payload"}),
    )


def test_round_trip_constructed_edge_cases() -> None:
    for record in (
        _full(),
        Record(kind=RecordKind.WARCINFO),  # every default: empty payload, no source
        Record(kind=RecordKind.CONTINUATION, payload=b"", source=Provenance("p")),
        _full().evolve(extras={"deep": [[[[["x"]]]]]}),
    ):
        back = decode(encode(record))
        assert back == record
        same(back, record)


def test_types_are_kept_not_only_equality() -> None:
    back = decode(encode(Record(kind=RecordKind.RESOURCE, extras={"v": [True, 1, (1,), [1]]})))
    values = back.extras["v"]
    assert [type(v) for v in values] == [bool, int, tuple, list]
    assert type(back.kind) is RecordKind and type(back.extras) is dict


def test_encoding_is_compact() -> None:
    record = Record(kind=RecordKind.RESPONSE, url="http://a/", payload=b"x" * 1000)
    assert len(encode(record)) <= 1000 + len("http://a/") + len("response") + 30


def test_unencodable_value_names_its_place() -> None:
    record = Record(kind=RecordKind.RESPONSE, extras={"x": {"y": [object()]}})
    with pytest.raises(SerialError, match=r"record\.extras\['x'\]\['y'\]\[0\].*object"):
        encode(record)
    with pytest.raises(SerialError, match="set"):
        encode(Record(kind=RecordKind.RESPONSE, extras={"s": {1, 2}}))

    class Local(enum.Enum):
        A = 1

    with pytest.raises(SerialError, match="cannot be found"):
        encode(Record(kind=RecordKind.RESPONSE, extras={"e": Local.A}))


def test_too_deep_nesting_is_refused_both_ways() -> None:
    value: list = []
    for _ in range(serial.MAX_DEPTH + 2):
        value = [value]
    with pytest.raises(SerialError, match="nested deeper"):
        encode(Record(kind=RecordKind.RESPONSE, extras={"d": value}))
    # a blob crafted with deep nesting is refused by the decoder too (no RecursionError)
    head = serial.MAGIC + bytes([serial.VERSION]) + b"s\x08response"
    blob = head + b"l\x01" * 10_000 + b"N"
    with pytest.raises(SerialError, match="nested deeper"):
        decode(blob)


def test_not_pickle() -> None:
    blob = encode(_full())
    assert not blob.startswith(b"\x80")  # no pickle protocol header
    assert blob.startswith(serial.MAGIC + bytes([serial.VERSION]))
    assert b"builtins" not in blob and b"pickle" not in blob


# -- corrupt blobs ---------------------------------------------------------------------------


def test_every_truncation_is_a_clear_error() -> None:
    blob = encode(_full())
    for cut in range(len(blob)):
        with pytest.raises(SerialError, match="corrupt|not a crawlmill|version"):
            decode(blob[:cut])


def test_every_single_byte_flip_is_an_error_or_a_record() -> None:
    """No flipped byte crashes the decoder with anything but SerialError."""
    blob = bytearray(encode(_full()))
    for i in range(len(blob)):
        for delta in (1, 0x80):
            bad = bytearray(blob)
            bad[i] = (bad[i] + delta) & 0xFF
            with contextlib.suppress(SerialError):
                assert isinstance(decode(bytes(bad)), Record)


def test_huge_declared_lengths_do_not_allocate() -> None:
    head = serial.MAGIC + bytes([serial.VERSION]) + b"s\x08response"
    varint_huge = b"\xff\xff\xff\xff\xff\xff\xff\x7f"  # 2**56 - 1
    for body, reason in (
        (b"b" + varint_huge, "declared"),  # url as bytes of 2**56 bytes
        (b"l" + varint_huge, "item"),  # a list of 2**56 items
        (b"d" + varint_huge, "item"),
        (b"i" + varint_huge, "declared"),  # an int of 2**56 bytes
        (b"s\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "longer than"),
    ):
        with pytest.raises(SerialError, match=reason):
            decode(head + body)


def test_wrong_magic_version_and_trailing_bytes() -> None:
    blob = encode(Record(kind=RecordKind.RESPONSE))
    with pytest.raises(SerialError, match="bad magic"):
        decode(b"XYZ" + blob[3:])
    with pytest.raises(SerialError, match="version 9"):
        decode(blob[:3] + b"\x09" + blob[4:])
    with pytest.raises(SerialError, match="after the record"):
        decode(blob + b"N")
    with pytest.raises(SerialError, match="unknown tag"):
        decode(blob[:4] + b"?" + blob[5:])


def test_wrong_field_types_and_unknown_enum() -> None:
    head = serial.MAGIC + bytes([serial.VERSION])
    with pytest.raises(SerialError, match="field kind"):
        decode(head + b"N" * len(serial.FIELDS))
    with pytest.raises(SerialError, match="unknown record kind"):
        rest = encode(Record(kind=RecordKind.RESPONSE))[4 + 10 :]
        decode(head + b"s\x08responsX" + rest)
    blob = encode(Record(kind=RecordKind.RESPONSE, extras={"e": Color.RED}))
    name = f"{__name__}:Color".encode()
    bad = blob.replace(name, name[:-1] + b"Q")
    with pytest.raises(SerialError, match="not defined in this process"):
        decode(bad)
    bad_value = blob.replace(b"i\x01\x01", b"i\x01\x07")
    with pytest.raises(SerialError, match="not a member"):
        decode(bad_value)


def test_invalid_datetime_is_an_error() -> None:
    blob = encode(Record(kind=RecordKind.RESPONSE, date=datetime(2020, 1, 2, tzinfo=UTC)))
    packed = struct.pack(">HBBBBBIB", 2020, 1, 2, 0, 0, 0, 0, 0)
    bad = blob.replace(packed, struct.pack(">HBBBBBIB", 2020, 13, 2, 0, 0, 0, 0, 0))
    with pytest.raises(SerialError, match="invalid datetime"):
        decode(bad)
