"""Synthetic inputs for the benchmarks (and the tests that count what the benchmarks time):
web pages of HTML-ish text with a Zipf word distribution, so that pages compress about as well
as real ones (roughly 3:1 with gzip level 6); many tiny WARC inputs (:func:`make_tiny_inputs`)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import os
import random
import shutil
import struct
import uuid
import zlib
from pathlib import Path

_LETTERS = "etaoinshrdlucmfwypvbgkjqxz"
#: English letter frequencies (per cent), in the order of _LETTERS.
_WEIGHTS = [
    12,
    9,
    8,
    8,
    7,
    7,
    6,
    6,
    6,
    4,
    4,
    3,
    3,
    2,
    2,
    2,
    2,
    2,
    1.5,
    1.5,
    1,
    1,
    0.5,
    0.3,
    0.3,
    0.2,
]
_BOILERPLATE = (
    '<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">'
    '<link rel="stylesheet" href="/static/css/main.css"><script src="/static/js/app.js" defer></script>'
    '<nav class="top"><ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li>'
    '<li><a href="/contact">Contact</a></li></ul></nav>'
)


class PageMaker:
    """Deterministic page generator: the same seed gives the same pages."""

    def __init__(self, rng: random.Random, vocabulary: int = 5000) -> None:
        self.rng = rng
        self.words = [
            "".join(rng.choices(_LETTERS, _WEIGHTS, k=rng.randint(2, 10)))
            for _ in range(vocabulary)
        ]
        total, self.cum = 0.0, []
        for rank in range(1, vocabulary + 1):  # Zipf: the word of rank r has weight 1/r
            total += 1.0 / rank
            self.cum.append(total)

    def text(self, k: int) -> str:
        """``k`` words drawn from the Zipf distribution, space separated."""
        return " ".join(self.rng.choices(self.words, cum_weights=self.cum, k=k))

    def page(self, size: int, host: str = "https://example{n}.org") -> bytes:
        """An HTML page of about ``size`` bytes with paragraphs and links to ``host``."""
        rng = self.rng
        parts = ["<!DOCTYPE html>\n<html><head><title>", self.text(6)]
        parts.append("</title>" + _BOILERPLATE + "</head><body>\n")
        n = 0
        while n < size:
            body = self.text(rng.randint(20, 120))
            href = f"{host.format(n=rng.randint(1, 500))}/{rng.choice(self.words)}/{rng.randint(1, 99999)}"
            chunk = f'<div class="c{rng.randint(1, 40)}"><p>{body}</p><a href="{href}">{rng.choice(self.words)}</a></div>\n'
            parts.append(chunk)
            n += len(chunk)
        parts.append("</body></html>\n")
        return "".join(parts).encode()


def tiny_warc() -> bytes:
    """One gzip member holding one WARC response record (220 bytes)."""
    body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>hi</html>"
    head = (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/\r\n"
        b"WARC-Date: 2020-01-01T00:00:00Z\r\n"
        b"WARC-Record-ID: <urn:uuid:12345678-1234-1234-1234-123456789012>\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    return gzip.compress(head + body + b"\r\n\r\n", mtime=0)


def tiny_input_name(i: int, per_folder: int = 1000) -> str:
    """The relative path :func:`make_tiny_inputs` gives its ``i``-th input."""
    return f"seg{i // per_folder:05d}/f{i:06d}.warc.gz"


def make_tiny_inputs(folder: Path, n: int, per_folder: int = 1000) -> None:
    """``n`` tiny WARC inputs (:func:`tiny_warc`) below ``folder``, ``per_folder`` to a folder
    (``seg00000/f000000.warc.gz`` ...), hard links of one file where the file system allows
    them (copies elsewhere); kept when ``folder`` already holds ``n`` files."""
    if folder.is_dir() and sum(len(f) for _, _, f in os.walk(folder)) == n:
        return
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    one = folder / "one.tmp"
    one.write_bytes(tiny_warc())
    for i in range(n):
        target = folder / tiny_input_name(i, per_folder)
        if i % per_folder == 0:
            target.parent.mkdir()
        try:
            os.link(one, target)
        except OSError:
            shutil.copyfile(one, target)
    one.unlink()


# -- large .warc.gz collections, fast ------------------------------------------------------------


def _deflate(data: bytes, final: bool) -> bytes:
    """``data`` as raw deflate blocks of their own: byte-aligned and not final (a sync flush),
    or ending the stream (``final``), so that such pieces concatenate into one valid stream."""
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush(zlib.Z_FINISH if final else zlib.Z_SYNC_FLUSH)


def _sha1(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


_GZIP_HEAD = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # no name, mtime 0, OS unknown
_TAIL = b"\r\n\r\n"
_TAIL_DEFLATED = _deflate(_TAIL, final=True)


class _Block:
    """A response's block (HTTP head and page) deflated once, reused by many records."""

    def __init__(self, http: bytes) -> None:
        self.length = len(http)
        self.deflated = _deflate(http, final=False)
        self.crc = zlib.crc32(http)
        self.raw = http
        self.block_digest = _sha1(http)
        self.payload_digest = _sha1(http[http.index(b"\r\n\r\n") + 4 :])


def _member(head: bytes, block: _Block | bytes) -> bytes:
    """One gzip member holding one WARC record: ``head`` (the WARC header lines), the block
    (deflated once when it is a :class:`_Block`), the record's closing CRLF CRLF."""
    if isinstance(block, bytes):
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        body = c.compress(head + block + _TAIL) + c.flush()
        crc, size = zlib.crc32(head + block + _TAIL), len(head) + len(block) + 4
    else:
        body = _deflate(head, final=False) + block.deflated + _TAIL_DEFLATED
        crc = zlib.crc32(_TAIL, zlib.crc32(block.raw, zlib.crc32(head)))
        size = len(head) + block.length + 4
    return _GZIP_HEAD + body + struct.pack("<II", crc, size & 0xFFFFFFFF)


def _head(wtype: str, uri: str, date: str, rid: int, ctype: str, length: int, extra: str) -> bytes:
    return (
        f"WARC/1.0\r\nWARC-Type: {wtype}\r\nWARC-Date: {date}\r\n"
        f"WARC-Record-ID: <urn:uuid:{uuid.UUID(int=rid)}>\r\nWARC-Target-URI: {uri}\r\n{extra}"
        f"Content-Type: {ctype}\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


class WarcCollection:
    """Writes a collection of per-record gzip ``.warc.gz`` files of a given compressed size,
    fast enough for gigabytes: each file is a warcinfo record, then request, response and
    metadata records per capture (as a crawler writes them), every record one gzip member
    (level 6) with its block and payload digests. Pages come from a pool of ``pool`` distinct
    :class:`PageMaker` pages (sizes log-normal, median ~40 KB) each deflated once, so a
    response's member is its own deflated WARC head followed by the page's deflated block (a
    valid deflate stream: each piece is byte-aligned and not final); pages repeat under other
    URLs, so the collection suits URL deduplication, not near-duplicate detection. A fraction
    ``dup`` of the captures revisits an earlier capture's URL (any file before) at a later date,
    for ``url-dedup``. The same ``seed`` gives the same bytes."""

    def __init__(self, seed: int = 22, pool: int = 600, dup: float = 0.1) -> None:
        self.rng = random.Random(seed)
        pages = PageMaker(random.Random(seed + 1))
        self.words = pages.words
        self.blocks: list[_Block] = []
        for _ in range(pool):
            body = pages.page(int(min(1_000_000, self.rng.lognormvariate(10.6, 0.9))))
            http = (
                f"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                f"Content-Length: {len(body)}\r\nServer: nginx\r\n"
                f"Date: Mon, 01 Jan 2024 00:00:00 GMT\r\nCache-Control: max-age=600\r\n\r\n"
            ).encode()
            self.blocks.append(_Block(http + body))
        self.dup = dup
        self.urls: list[str] = []
        self.captures = 0

    def _rid(self) -> int:
        return self.rng.getrandbits(128)

    def write(self, path: Path, size: int) -> dict[str, int]:
        """Write ``path`` of at least ``size`` compressed bytes; its ``records``, ``captures``,
        ``revisits`` (captures of a URL seen before) and ``bytes``."""
        rng = self.rng
        tmp = path.with_name(path.name + ".tmp")
        records = captures = revisits = written = 0
        with open(tmp, "wb") as out:

            def put(member: bytes) -> None:
                nonlocal records, written
                out.write(member)
                records += 1
                written += len(member)

            info = b"software: crawlmill benchmarks\r\nformat: WARC File Format 1.0\r\n"
            put(
                _member(
                    _head(
                        "warcinfo",
                        "",
                        "2024-01-01T00:00:00Z",
                        self._rid(),
                        "application/warc-fields",
                        len(info),
                        "",
                    ),
                    info,
                )
            )
            while written < size:
                self.captures += 1
                captures += 1
                if self.urls and rng.random() < self.dup:
                    uri = rng.choice(self.urls)
                    revisits += 1
                else:
                    host = f"www.site{rng.randint(1, 3000)}.com"
                    uri = f"https://{host}/{rng.choice(self.words)}/{self.captures}.html"
                    self.urls.append(uri)
                host = uri.split("/")[2]
                day = min(28, 1 + self.captures * 28 // 2_000_000)  # later captures, later dates
                date = (
                    f"2024-01-{day:02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
                    f"{rng.randint(0, 59):02d}Z"
                )
                req = (
                    f"GET /{uri.split('/', 3)[3]} HTTP/1.1\r\nHost: {host}\r\n"
                    f"User-Agent: bench/1.0\r\nAccept: text/html\r\n\r\n"
                ).encode()
                put(
                    _member(
                        _head(
                            "request",
                            uri,
                            date,
                            self._rid(),
                            "application/http; msgtype=request",
                            len(req),
                            "",
                        ),
                        req,
                    )
                )
                block = rng.choice(self.blocks)
                extra = (
                    f"WARC-IP-Address: 10.0.{rng.randint(0, 255)}.{rng.randint(1, 254)}\r\n"
                    f"WARC-Block-Digest: {block.block_digest}\r\n"
                    f"WARC-Payload-Digest: {block.payload_digest}\r\n"
                )
                put(
                    _member(
                        _head(
                            "response",
                            uri,
                            date,
                            self._rid(),
                            "application/http; msgtype=response",
                            block.length,
                            extra,
                        ),
                        block,
                    )
                )
                meta = (
                    f"fetchTimeMs: {rng.randint(10, 3000)}\r\ncharset-detected: UTF-8\r\n".encode()
                )
                put(
                    _member(
                        _head(
                            "metadata",
                            uri,
                            date,
                            self._rid(),
                            "application/warc-fields",
                            len(meta),
                            "",
                        ),
                        meta,
                    )
                )
        os.replace(tmp, path)
        return {"records": records, "captures": captures, "revisits": revisits, "bytes": written}
