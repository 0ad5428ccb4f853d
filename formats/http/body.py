"""An HTTP entity body as the user agent sees it: de-chunked (``Transfer-Encoding: chunked``,
RFC 9112 7.1) and decoded (``Content-Encoding``, RFC 9110 8.4: ``gzip``/``x-gzip``,
``deflate`` (zlib, or raw deflate as some servers send), ``br`` when the ``brotli`` module
is installed, ``zstd``), never more than ``cap`` bytes out.

For reading a page's content (links, text), not for storing it: best effort, no exception.
A chunked body cut short gives the chunks up to the cut; a coding that fails part way gives
what it decoded; a body that is not in the declared coding at all (a crawler that stored it
decoded and kept the header) is returned as it is; an unknown coding stops the decoding
there.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

__all__ = ["dechunk", "decode_body", "decode_content", "header_tokens"]

_HEX = frozenset(b"0123456789abcdefABCDEF")


def dechunk(data: bytes, cap: int) -> bytes | None:
    """The data of the chunked body ``data`` (at most ``cap`` bytes; trailers dropped), or
    ``None`` when it does not start with a chunk-size line."""
    out = bytearray()
    pos, first = 0, True
    while len(out) < cap:
        end = data.find(b"\n", pos)
        if end < 0:
            break
        size_field = data[pos:end].split(b";", 1)[0].strip()
        if not size_field or not set(size_field) <= _HEX or len(size_field) > 16:
            if first:
                return None
            break
        first = False
        size = int(size_field, 16)
        if size == 0:
            break
        start = end + 1
        out += data[start : min(start + size, start + cap - len(out))]
        pos = start + size
        if data[pos : pos + 2] == b"\r\n":
            pos += 2
        elif data[pos : pos + 1] == b"\n":
            pos += 1
    return None if first else bytes(out[:cap])


def _zlib(data: bytes, wbits: int, cap: int) -> bytes | None:
    d = zlib.decompressobj(wbits)
    try:
        out = d.decompress(data, cap)
    except zlib.error:
        return None
    return out or None


def _brotli(data: bytes, cap: int) -> bytes | None:
    try:
        import brotli
    except ImportError:
        return None
    try:
        d = brotli.Decompressor()
        out = bytearray()
        step = 64 * 1024
        for i in range(0, len(data), step):  # bounded: stop once cap bytes came out
            out += d.process(data[i : i + step])
            if len(out) >= cap:
                break
        return bytes(out[:cap]) or None
    except Exception:  # brotli.error: not brotli data
        return None


def _zstd(data: bytes, cap: int) -> bytes | None:
    try:
        import zstandard
    except ImportError:
        return None
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(data)
        return reader.read(cap) or None
    except zstandard.ZstdError:
        return None


def decode_content(data: bytes, codings: Iterable[str], cap: int) -> bytes:
    """``data`` with the content codings ``codings`` (in the order the sender applied them)
    undone, last first, each within ``cap`` bytes; see the module docstring for failures."""
    for coding in reversed([c.strip().lower() for c in codings if c.strip()]):
        if coding == "identity":
            continue
        if coding in ("gzip", "x-gzip"):
            out = _zlib(data, 16 + zlib.MAX_WBITS, cap)
        elif coding == "deflate":
            out = _zlib(data, zlib.MAX_WBITS, cap) or _zlib(data, -zlib.MAX_WBITS, cap)
        elif coding == "br":
            out = _brotli(data, cap)
        elif coding == "zstd":
            out = _zstd(data, cap)
        else:
            out = None
        if out is None:
            break
        data = out
    return data[:cap]


def header_tokens(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> list[str]:
    """The comma-separated values of every header ``name`` (case-insensitive), in order."""
    low = name.lower()
    return [
        token.strip()
        for key, value in headers
        if key.strip().lower() == low
        for token in value.decode("latin-1").split(",")
        if token.strip()
    ]


def decode_body(body: bytes, headers: Iterable[tuple[bytes, bytes]], cap: int) -> bytes:
    """The entity body ``body`` of a message with ``headers`` (``(name, value)`` byte pairs)
    de-chunked when ``Transfer-Encoding`` says ``chunked`` (and the bytes are chunked), its
    other transfer codings and its ``Content-Encoding`` undone, at most ``cap`` bytes."""
    headers = list(headers)
    transfer = [t.lower() for t in header_tokens(headers, b"transfer-encoding")]
    if "chunked" in transfer:
        plain = dechunk(body, len(body))  # never longer than the chunked bytes
        if plain is not None:
            body = plain
    # undone last first: the transfer codings (applied after the content codings), then these
    codings = header_tokens(headers, b"content-encoding") + [t for t in transfer if t != "chunked"]
    return decode_content(body, codings, cap)
