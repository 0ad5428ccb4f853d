"""The WARC framer's decisions on a record whose declared length does not hold.

Each function looks at bytes the framer found and returns a decision that carries its problem
code (``docs/problems.md``): a :class:`Repair` delivers the record as its bytes show it *and*
reports its original bytes as damage (a repair changes what a writer writes); a
:class:`Refusal` reports the bytes as damage only. Whether a declared length holds is
:func:`crawlmill.formats.warc.length.judge_length`; nothing here reads a stream.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Refusal",
    "Repair",
    "block_to_next_record",
    "cr_counted_length",
    "digest_proven_length",
    "no_boundary",
    "partial_record",
    "truncated",
]


@dataclass(frozen=True, slots=True)
class Repair:
    """Deliver the record with block ``data[start:end]`` and ``separator``, and report its
    original bytes as damage with ``code`` and ``reason``; ``truncated``: the file ended inside
    the block (the record is partial)."""

    code: str
    reason: str
    block: tuple[bytes, int, int]
    separator: bytes
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class Refusal:
    """Report the record's bytes as damage with ``code`` and ``reason``; deliver nothing."""

    code: str
    reason: str


def cr_counted_length(body: bytes, cl: int, line_ending: bytes) -> Repair | None:
    """An LF-only record whose ``Content-Length`` ``cl`` still counts the CR bytes stripped
    from its line endings: ``body`` (block and trailing newlines) split where ``cl`` minus one
    CR per LF ends; ``None`` when the length does not count them so."""
    if line_ending != b"\n":
        return None
    core = body.rstrip(b"\n")
    tail = len(body) - len(core)
    extra = cl - len(core) - core.count(b"\n")
    if extra < 0 or extra % 2 or extra // 2 > tail or not tail:
        return None
    k = extra // 2
    block, sep = body[: len(core) + k], body[len(core) + k :]
    reason = (
        "cr-counted-length: Content-Length counts CR bytes stripped from LF-only line endings; "
        "the record is delivered with the length it really has"
    )
    return Repair("cr-counted-length", reason, (block, 0, len(block)), sep)


def digest_proven_length(
    cl: int, proven: int, data: bytes, block_start: int, separator_end: int
) -> Repair:
    """``WARC-Block-Digest`` matches a block of ``proven`` bytes (not ``cl``) followed by a
    proper separator: the record is delivered with that block."""
    reason = (
        f"Content-Length {cl} is wrong: WARC-Block-Digest matches a block of {proven}"
        " bytes followed by a proper separator; the record is delivered with that block"
    )
    block_end = block_start + proven
    return Repair(
        "bad-length", reason, (data, block_start, block_end), data[block_end:separator_end]
    )


def block_to_next_record(what: str, body: bytes, line_ending: bytes) -> Repair:
    """No usable ``Content-Length`` (``what``: missing, not a number): the block is ``body``
    up to the next record, less the separator before it."""
    expected = line_ending * 2
    if body.endswith(expected):
        core, sep = body[: -len(expected)], expected
    else:
        core = body.rstrip(b"\r\n")
        sep = body[len(core) :]
    reason = (
        f"no-content-length: Content-Length {what}; the record is delivered with its block "
        "taken up to the next record"
    )
    return Repair("no-content-length", reason, (core, 0, len(core)), sep)


def truncated(cl: int, have: int, why: str) -> Refusal:
    """The data ends (``why``: the file, a damaged member) ``have`` bytes into a block of
    ``cl``."""
    reason = f"record truncated: Content-Length {cl} but only {have} bytes before {why}"
    return Refusal("truncated-record", reason)


def partial_record(cut: Refusal, data: bytes, block_start: int, end: int) -> Repair:
    """The file ends inside the block (``cut``): the part that is there is delivered, marked
    truncated (a writer adds ``WARC-Truncated``), and reported as damage too."""
    reason = cut.reason + "; delivered as a partial record (WARC-Truncated)"
    return Repair(cut.code, reason, (data, block_start, end), b"", truncated=True)


def no_boundary(cl: int, after: bytes) -> Refusal:
    """Neither a separator, the next record, the member end nor the file end follows the
    declared block (``after``: the bytes there)."""
    reason = (
        f"Content-Length {cl} is wrong: no record boundary after the block (bytes {after!r} follow)"
    )
    return Refusal("bad-length", reason)
