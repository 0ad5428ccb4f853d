"""Deferred records and the threaded WarcFileWriter give the bytes of the plain path
(formats.warcwriter, formats.digest)."""

from __future__ import annotations

import base64
import hashlib
import io
import random
import threading
import uuid
import zlib
from datetime import datetime

import pytest
from crawlmill.formats.warc.digest import DeferredSha1, sha1_base32
from crawlmill.formats.warc.writer import (
    PendingRecord,
    WarcFileWriter,
    format_warc_date,
    serialize_record,
    urn_uuid,
    uuid5_urn,
)


def _random_records(seed: int, count: int) -> list[PendingRecord | bytes]:
    """A mix of pending records (deferred digests, block in parts) and plain bytes."""
    rng = random.Random(seed)
    out: list[PendingRecord | bytes] = []
    for i in range(count):
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" if rng.random() < 0.8 else b""
        payload = rng.randbytes(rng.choice([0, 10, 3000, 40000]))
        if rng.random() < 0.5:
            payload += b"abc " * rng.randint(0, 20000)  # compressible
        version = rng.choice(["1.1", "1.0", "0.18"])
        tail = b"\n\n" if version == "0.18" else b""
        headers = [
            (b"WARC-Type", b"response"),
            (b"WARC-Target-URI", f"http://example.com/{i}".encode()),
            (b"WARC-Block-Digest", DeferredSha1(head, payload, tail)),
            (b"WARC-Payload-Digest", DeferredSha1(payload, tail)),
            (b"Content-Type", b"application/http;msgtype=response"),
        ]
        if rng.random() < 0.2:
            out.append(serialize_record(version, headers, head + payload))
        else:
            out.append(PendingRecord(version, headers, (head, payload)))
    return out


def _write_all(records, compression: str, background: bool) -> tuple[bytes, list, WarcFileWriter]:
    out = io.BytesIO()
    # zlib: ISA-L does not promise the same bytes twice, and the bytes are compared here
    writer = WarcFileWriter(out, compression, background=background, threads=3, backend="zlib")
    landed: list[tuple[int, int, int]] = []
    callback_threads: set[int] = set()

    def on_written(i: int, offset: int, length: int) -> None:
        callback_threads.add(threading.get_ident())
        landed.append((i, offset, length))

    for i, record in enumerate(records):
        writer.submit(record, lambda off, n, i=i: on_written(i, off, n))
    writer.flush()
    assert writer.position == len(out.getvalue())
    writer.close()
    assert callback_threads <= {threading.get_ident()}
    return out.getvalue(), landed, writer


@pytest.mark.parametrize("compression", ["gzip", "zstd", "none"])
def test_background_writer_gives_the_bytes_and_offsets_of_the_plain_writer(compression):
    if compression == "zstd":
        pytest.importorskip("zstandard")
    plain, plain_landed, plain_writer = _write_all(_random_records(7, 300), compression, False)
    threaded, landed, writer = _write_all(_random_records(7, 300), compression, True)
    assert threaded == plain
    assert landed == plain_landed == sorted(landed)  # callbacks in record order
    assert writer.records == plain_writer.records == 300
    assert writer.raw_bytes == plain_writer.raw_bytes
    if compression == "gzip":  # every record is its own member at its reported offset
        for _, offset, length in landed[:20]:
            assert zlib.decompress(threaded[offset : offset + length], 31).startswith(b"WARC/")


def test_write_raw_after_submitted_records_keeps_their_order():
    out = io.BytesIO()
    writer = WarcFileWriter(out, "none", background=True)
    first = serialize_record("1.1", [(b"WARC-Type", b"resource")], b"first")
    second = serialize_record("1.1", [(b"WARC-Type", b"resource")], b"second")
    writer.submit(first)
    assert writer.write_raw(second) == (len(first), len(second))
    writer.close()
    assert out.getvalue() == first + second


class _FailingStream(io.BytesIO):
    def __init__(self, fail_after: int) -> None:
        super().__init__()
        self.fail_after = fail_after

    def write(self, data) -> int:
        if self.tell() + len(data) > self.fail_after:
            raise OSError(28, "No space left on device")
        return super().write(data)


def test_a_write_error_in_background_mode_surfaces_and_stops_the_threads():
    writer = WarcFileWriter(_FailingStream(50_000), "none", background=True)
    with pytest.raises(OSError, match="No space left"):
        for record in _random_records(3, 200):
            writer.submit(record)
        writer.flush()
    with pytest.raises(OSError, match="No space left"):
        writer.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("crawlmill-warc-writer")]


def test_pending_record_serialises_like_the_joined_block_with_resolved_values():
    head, payload = b"HTTP/1.1 200 OK\r\n\r\n", b"<html>" * 1000
    for version in ("1.1", "1.0", "0.18"):
        tail = b"\n\n" if version == "0.18" else b""
        deferred = [
            (b"WARC-Type", b"response"),
            (b"X-Broken", b"a\r\nb"),  # cleaned in both paths
            (b"Content-Length", b"1"),  # dropped and recomputed in both paths
            (b"WARC-Block-Digest", DeferredSha1(head, payload, tail)),
        ]
        resolved = [
            (name, value if isinstance(value, bytes) else value.resolve())
            for name, value in deferred
        ]
        pending = PendingRecord(version, deferred, (head, payload))
        assert pending.size == len(head) + len(payload)
        assert pending.serialize() == serialize_record(version, resolved, head + payload)


def test_deferred_sha1_is_the_digest_of_the_concatenation():
    parts = (b"HTTP/1.1 200 OK\r\n\r\n", b"", random.Random(2).randbytes(100_000), b"\n\n")
    digest = DeferredSha1(*parts)
    expected = b"sha1:" + base64.b32encode(hashlib.sha1(b"".join(parts)).digest())
    assert digest.resolve() == expected
    assert digest.resolve() == expected  # kept once computed
    assert DeferredSha1().resolve() == sha1_base32(b"").encode()


def test_uuid5_urn_equals_the_standard_library():
    rng = random.Random(4)
    namespace = uuid.uuid5(uuid.NAMESPACE_URL, "https://crawlmill.invalid/test")
    alphabet = "abc/:?\0 \u00e9\u4e2d\U0001f600"
    for _ in range(2000):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert uuid5_urn(namespace, name) == urn_uuid(uuid.uuid5(namespace, name))


def test_uuid5_urn_follows_a_change_of_namespace():
    """The namespace's bytes are cached for the last namespace seen, never reused for another."""
    first, second = uuid.uuid4(), uuid.uuid4()
    for namespace in (first, second, first, uuid.UUID(str(second))):
        assert uuid5_urn(namespace, "x") == urn_uuid(uuid.uuid5(namespace, "x"))


def test_format_warc_date_equals_strftime_for_every_year():
    rng = random.Random(5)
    for _ in range(3000):
        date = datetime(
            rng.choice([1, 99, 999, 1000, rng.randint(1, 9999)]),
            rng.randint(1, 12),
            rng.randint(1, 28),
            rng.randint(0, 23),
            rng.randint(0, 59),
            rng.randint(0, 59),
        )
        expected = (date.strftime("%Y-%m-%dT%H:%M:%S") + "Z").encode()
        assert format_warc_date(date, "1.1") == expected
