"""Synthetic intact inputs, deterministic per seed: WARC 1.0 (CRLF), ARC v1 and ClueWeb09-style
WARC/0.18 (LF only, ``Content-Length`` counting the trailing ``\\n\\n``), as a list of raw
record bytes (each with its separator) that :func:`pack` puts into a container.

Blocks are made to trip naive framers: a block ending in ``\\n``, one holding a
``WARC/1.0`` line, one of random binary bytes, sizes from a few bytes to 40 KB."""

from __future__ import annotations

import hashlib
import random
import uuid

from .containers import encode

__all__ = ["arc_records", "clueweb09_records", "pack", "warc_records"]

_WORDS = [
    "archive",
    "crawl",
    "record",
    "page",
    "link",
    "text",
    "index",
    "data",
    "web",
    "html",
    "server",
    "gzip",
    "member",
    "offset",
    "length",
    "header",
    "block",
    "payload",
    "digest",
    "date",
    "uri",
    "capture",
    "collection",
    "segment",
    "document",
    "anchor",
    "title",
    "body",
]


def _text(rng: random.Random, size: int) -> bytes:
    words: list[str] = []
    n = 0
    while n < size:
        w = rng.choice(_WORDS)
        words.append(w)
        n += len(w) + 1
    return " ".join(words).encode()[:size]


def _page(rng: random.Random, size: int) -> bytes:
    body = b"<html><body><p>" + _text(rng, max(1, size - 40)) + b"</p></body></html>"
    if rng.random() < 0.3:
        body += b"\n"
    return body


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _sha1(data: bytes) -> str:
    import base64

    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def _warc(headers: list[tuple[str, str]], block: bytes, version: str = "1.0") -> bytes:
    lines = [f"WARC/{version}"] + [f"{k}: {v}" for k, v in headers]
    lines.append(f"Content-Length: {len(block)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + block + b"\r\n\r\n"


def _http_response(rng: random.Random, body: bytes, ctype: str = "text/html") -> bytes:
    head = (
        f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
        f"Server: synth/{rng.randint(1, 9)}\r\n\r\n"
    )
    return head.encode() + body


def warc_records(seed: int, n: int = 12) -> list[bytes]:
    """``n`` WARC/1.0 records: a warcinfo, then responses, requests, metadata, a resource of
    binary bytes, a revisit and a response whose payload holds a ``WARC/1.0`` line."""
    rng = random.Random(seed)
    info_id = f"<urn:uuid:{_uuid(rng)}>"
    info = b"software: crawlmill-faults\r\nformat: WARC File Format 1.0\r\n"
    out = [
        _warc(
            [
                ("WARC-Type", "warcinfo"),
                ("WARC-Date", "2026-01-01T00:00:00Z"),
                ("WARC-Record-ID", info_id),
                ("WARC-Filename", "synthetic.warc"),
                ("Content-Type", "application/warc-fields"),
            ],
            info,
        )
    ]
    for i in range(1, n):
        url = f"http://example{i % 5}.org/{rng.choice(_WORDS)}/{i}"
        date = f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z"
        rid = f"<urn:uuid:{_uuid(rng)}>"
        kind = i % 6
        if kind == 2:
            block = f"GET /{i} HTTP/1.1\r\nHost: example{i % 5}.org\r\n\r\n".encode()
            wtype, ctype = "request", "application/http;msgtype=request"
        elif kind == 3:
            block = b"via: http://example.org/\r\nhopsFromSeed: L\r\n"
            wtype, ctype = "metadata", "application/warc-fields"
        elif kind == 4:
            block = rng.randbytes(rng.choice([7, 900, 3000]))
            wtype, ctype = "resource", "application/octet-stream"
        elif kind == 5 and i > 6:
            block = b"HTTP/1.1 304 Not Modified\r\nServer: synth\r\n\r\n"
            wtype, ctype = "revisit", "application/http;msgtype=response"
        else:
            size = rng.choice([60, 700, 2500, 9000, 40000 if i == 7 else 1200])
            body = _page(rng, size)
            if i == 5:  # a payload that holds a version line: resync must not trust it
                body = b"see below\r\n\r\nWARC/1.0\r\nWARC-Type: response\r\n\r\n" + body
            block = _http_response(rng, body)
            wtype, ctype = "response", "application/http;msgtype=response"
        headers = [
            ("WARC-Type", wtype),
            ("WARC-Record-ID", rid),
            ("WARC-Date", date),
            ("WARC-Target-URI", url),
            ("WARC-Warcinfo-ID", info_id),
        ]
        if wtype == "revisit":
            headers.append(
                ("WARC-Profile", "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest")
            )
        headers.append(("WARC-Block-Digest", _sha1(block)))
        headers.append(("Content-Type", ctype))
        out.append(_warc(headers, block))
    return out


def arc_records(seed: int, n: int = 12, name: str = "synthetic.arc") -> list[bytes]:
    """``n`` ARC v1 records: the filedesc record, then HTTP responses (one with an empty
    body, one whose body ends in ``\\n``), each followed by the ``\\n`` separator."""
    rng = random.Random(seed)
    desc = b"1 0 crawlmill-faults\nURL IP-address Archive-date Content-type Archive-length\n"
    out = [
        f"filedesc://{name} 0.0.0.0 20260101000000 text/plain {len(desc)}\n".encode() + desc + b"\n"
    ]
    for i in range(1, n):
        url = f"http://example{i % 5}.org/{rng.choice(_WORDS)}/{i}"
        ip = f"10.0.{i % 7}.{rng.randint(1, 250)}"
        date = f"202601010000{i % 60:02d}"
        size = rng.choice([0 if i == 3 else 50, 600, 2500, 9000, 30000 if i == 8 else 1500])
        body = _page(rng, size) if size else b""
        content = _http_response(rng, body)
        out.append(f"{url} {ip} {date} text/html {len(content)}\n".encode() + content + b"\n")
    return out


def clueweb09_records(seed: int, n: int = 12, prefix: str = "clueweb09-en0000-00") -> list[bytes]:
    """``n`` ClueWeb09-style records: WARC/0.18, LF-only headers, invalid day-of-year dates,
    a bare-UUID warcinfo id, ``Content-Length`` covering the block and the ``\\n\\n`` after it,
    the next record right after. The block without the ``\\n\\n`` is what a reader delivers."""
    rng = random.Random(seed)
    info_id = _uuid(rng)
    recs = []
    info = b"software: Nutch 1.0-dev (modified for clueweb09)\nisPartOf: clueweb09-en\nformat: WARC file version 0.18"
    recs.append(
        [
            ("WARC-Type", "warcinfo"),
            ("WARC-Date", "2009-03-65T08:43:19-0800"),
            ("WARC-Record-ID", info_id),
            ("Content-Type", "application/warc-fields"),
        ],
    )
    blocks = [info]
    for i in range(1, n):
        body = _page(rng, rng.choice([80, 900, 3000, 12000]))
        block = (
            f"HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Length: {len(body)}\n\n".encode()
            + body
        )
        blocks.append(block)
        recs.append(
            [
                ("WARC-Type", "response"),
                ("WARC-Target-URI", f"http://www.example{i % 4}.com/{rng.choice(_WORDS)}/{i}.html"),
                ("WARC-Warcinfo-ID", info_id),
                ("WARC-Date", f"2009-03-{60 + i % 9}T1{i % 10}:35:34-0700"),
                ("WARC-Record-ID", f"<urn:uuid:{_uuid(rng)}>"),
                ("WARC-TREC-ID", f"{prefix}-{i - 1:05d}"),
                ("Content-Type", "application/http;msgtype=response"),
            ]
        )
    out = []
    for headers, block in zip(recs, blocks, strict=True):
        lines = ["WARC/0.18"] + [f"{k}: {v}" for k, v in headers]
        lines.append(f"Content-Length: {len(block) + 2}")
        out.append(("\n".join(lines) + "\n\n").encode() + block + b"\n\n")
    return out


def pack(records: list[bytes], layout: str) -> bytes:
    """The file bytes of ``records`` in ``layout``: ``plain``, ``gzip`` (a member per record),
    ``gzip-whole`` (one member), ``zstd`` (a frame per record), ``bzip2`` (a stream per
    record)."""
    if layout == "plain":
        return b"".join(records)
    if layout == "gzip-whole":
        return encode("gzip", b"".join(records))
    return b"".join(encode(layout, r) for r in records)
