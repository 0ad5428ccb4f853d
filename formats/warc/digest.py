"""WARC digests: ``algo:value`` strings (``sha1:`` base32 by default), parsed and recomputed.

WARC 1.1 (section 5.8/5.9) writes a digest as ``<algorithm>:<value>``; in practice the value is
base32 (Heritrix, warcio, wget) or base16 (some tools, ``sha256`` users). :func:`parse_digest`
splits such a string, :func:`compute_digest` produces one in a chosen algorithm and encoding, and
:func:`digest_matches` recomputes a stored digest in *its own* algorithm and encoding, so a
record can be checked (or re-digested after a change) without changing the user's choice.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import NamedTuple

__all__ = [
    "ALGORITHMS",
    "DeferredSha1",
    "Digest",
    "compute_digest",
    "digest_matches",
    "parse_digest",
    "recompute_like",
    "sha1_base32",
]

#: WARC algorithm label -> hashlib name.
ALGORITHMS: dict[str, str] = {
    "sha1": "sha1",
    "sha-1": "sha1",
    "md5": "md5",
    "sha256": "sha256",
    "sha-256": "sha256",
    "sha512": "sha512",
    "sha-512": "sha512",
}

_HEX = frozenset("0123456789abcdefABCDEF")
_DIGEST_SIZES = {"sha1": 20, "md5": 16, "sha256": 32, "sha512": 64}


class Digest(NamedTuple):
    """A parsed ``algo:value`` digest: label as written, hashlib name, encoding, raw bytes."""

    label: str
    algorithm: str
    encoding: str  # "base32" | "base16"
    raw: bytes


def sha1_base32(data: bytes) -> str:
    """The WARC digest string ``sha1:<BASE32>`` of ``data``."""
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


class DeferredSha1:
    """The WARC digest ``sha1:<BASE32>`` (as bytes) of the concatenation of ``parts``,
    computed on the first :meth:`resolve` (on whichever thread serialises the record), then
    kept; the parts are released once hashed. Hashing the parts one by one gives the digest
    of their concatenation without building it."""

    __slots__ = ("_parts", "_value")

    def __init__(self, *parts: bytes) -> None:
        self._parts: tuple[bytes, ...] = parts
        self._value: bytes | None = None

    def resolve(self) -> bytes:
        """The digest string, e.g. ``b"sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"``."""
        if self._value is None:
            h = hashlib.sha1()
            for part in self._parts:
                if part:
                    h.update(part)
            self._value = b"sha1:" + base64.b32encode(h.digest())
            self._parts = ()
        return self._value


def compute_digest(
    data: bytes, algorithm: str = "sha1", encoding: str = "base32", label: str | None = None
) -> str:
    """``label:value`` of ``data`` with hashlib ``algorithm`` in ``base32`` or ``base16``.

    ``label`` defaults to the algorithm name; base16 is written in lower case.
    """
    raw = hashlib.new(algorithm, data).digest()
    return f"{label or algorithm}:{_encode(raw, encoding)}"


def parse_digest(text: str | bytes) -> Digest | None:
    """Parse ``algo:value`` (base32 or base16 value), or ``None`` when it is not one we know.

    The encoding is recognised from the value's length for the algorithm's digest size.
    """
    if isinstance(text, bytes):
        text = text.decode("ascii", "replace")
    label, sep, value = text.strip().partition(":")
    algorithm = ALGORITHMS.get(label.lower())
    if not sep or algorithm is None:
        return None
    size = _DIGEST_SIZES[algorithm]
    value = value.strip()
    try:
        if len(value) == size * 2 and all(ch in _HEX for ch in value):
            return Digest(label, algorithm, "base16", bytes.fromhex(value))
        padded = value.upper() + "=" * (-len(value) % 8)
        raw = base64.b32decode(padded)
    except (ValueError, binascii.Error):
        return None
    if len(raw) != size:
        return None
    return Digest(label, algorithm, "base32", raw)


def digest_matches(stored: str | bytes, data: bytes) -> bool | None:
    """Whether ``stored`` is the digest of ``data`` (``None`` when ``stored`` is unparsable)."""
    parsed = parse_digest(stored)
    if parsed is None:
        return None
    return hashlib.new(parsed.algorithm, data).digest() == parsed.raw


def recompute_like(stored: str | bytes, data: bytes) -> str:
    """A digest of ``data`` written like ``stored`` (same label, algorithm, encoding); sha1
    base32 when ``stored`` cannot be parsed."""
    parsed = parse_digest(stored)
    if parsed is None:
        return sha1_base32(data)
    return compute_digest(data, parsed.algorithm, parsed.encoding, parsed.label)


def _encode(raw: bytes, encoding: str) -> str:
    if encoding == "base32":
        return base64.b32encode(raw).decode("ascii")
    if encoding == "base16":
        return raw.hex()
    raise ValueError(f"unknown digest encoding {encoding!r} (use base32 or base16)")
