"""Recovering what a decompressor produced before it raised.

zlib, isal, zstd and LZ4 stream decoders raise on corrupt input (a bad CRC32 or content
checksum, an invalid deflate code, a corrupt block) and the Python bindings then drop the
output of that whole call, although every byte before the damage decoded correctly: with a
64 KiB feed that is megabytes of intact records (whole-file gzip, ClueWeb09). :func:`salvage`
replays the member with a fresh decoder, the bytes that decoded fine in large steps (their
output was already handed out, it is only counted), then the failing feed one byte at a time,
so that at most the output of the one byte that raised is lost.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Salvaged", "salvage"]

#: ``decode(decoder, compressed)``: the output of feeding ``compressed`` in bounded pieces.
Decode = Callable[[Any, bytes], Iterator[bytes]]


@dataclass(slots=True)
class Salvaged:
    """The outcome of :func:`salvage`: ``pieces`` (output beyond what was already handed
    out, at most ``cap`` bytes), ``consumed`` (bytes of the failing feed decoded before the
    error) and the decoder's ``error`` message (``None`` if the replay did not fail)."""

    pieces: list[bytes] = field(default_factory=list)
    consumed: int = 0
    error: str | None = None


def salvage(
    before: Iterable[bytes],
    failing: bytes,
    decoder: Any,
    decode: Decode,
    errors: tuple[type[BaseException], ...],
    skip: int,
    cap: int,
) -> Salvaged:
    """Feed ``before`` (the member's compressed bytes that decoded fine) and then ``failing``
    byte by byte to the fresh ``decoder``; return the output past the first ``skip`` bytes (the
    ones handed out already), at most ``cap`` bytes of it."""
    result = Salvaged()
    seen = 0
    kept = 0

    def take(out: bytes) -> bool:
        nonlocal seen, kept
        start = max(0, skip - seen)
        seen += len(out)
        if start < len(out) and kept < cap:
            part = out[start : start + cap - kept]
            result.pieces.append(part)
            kept += len(part)
        return kept < cap

    try:
        for chunk in before:
            for out in decode(decoder, chunk):
                take(out)
    except errors as exc:  # the replay fails earlier than the original: nothing to add
        result.error = str(exc)
        return result
    view = memoryview(failing)
    for i in range(len(view)):
        try:
            for out in decode(decoder, view[i : i + 1]):
                if not take(out):
                    result.consumed = i + 1
                    return result
        except errors as exc:
            result.consumed = i
            result.error = str(exc)
            return result
        if getattr(decoder, "eof", False):
            result.consumed = i + 1
            return result
    result.consumed = len(view)
    return result


def join_pieces(pieces: list[bytes], size: int) -> Iterator[bytes]:
    """``pieces`` regrouped into pieces of about ``size`` bytes (byte-wise replays make many
    tiny ones)."""
    group: list[bytes] = []
    n = 0
    for piece in pieces:
        group.append(piece)
        n += len(piece)
        if n >= size:
            yield b"".join(group)
            group, n = [], 0
    if group:
        yield b"".join(group)
