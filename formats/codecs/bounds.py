"""Decompression bounds: how much one member (gzip member, zstd or LZ4 frame) may inflate to.

A record-per-member file (WARC, ARC) never needs a member larger than one record, so after the
first member the codecs bound every member by :func:`member_bound` and hand out nothing of a
member beyond it (one :class:`~crawlmill.formats.codecs.pieces.Broken` with its compressed bytes). The
first member is a stream (a whole-file gzip), bounded only by the caller's stream limit.
"""

from __future__ import annotations

__all__ = ["MAX_DICT_SIZE", "MEMBER_BOUND_NAME", "MEMBER_SLACK", "frame_bound", "member_bound"]

#: how a damage reason names the member bound of :func:`iter_pieces` (see :func:`member_bound`).
MEMBER_BOUND_NAME = "the member bound of a record-per-member file (one record: max_record_bytes + max_header_bytes + 1 MiB)"
#: largest dictionary accepted from a ``.warc.zst`` dictionary frame (decompressed).
MAX_DICT_SIZE = 64 << 20

#: room beyond one record's header and block that a member of a record-per-member file may
#: hold (separators, a few small records sharing a member).
MEMBER_SLACK = 1 << 20


def member_bound(max_record_bytes: int, max_header_bytes: int) -> int:
    """The ``max_member_bytes`` of :func:`iter_pieces` for a record-per-member file (WARC,
    ARC, one gzip member or zstd/LZ4 frame per record): one record's header and block plus
    :data:`MEMBER_SLACK`. A member beyond it cannot hold a record a reader would accept."""
    return max_record_bytes + max_header_bytes + MEMBER_SLACK


def frame_bound(member_limit: int | None, ended: bool) -> tuple[int, str] | None:
    """The bound of the next frame: ``member_limit`` once a frame has ended, else none."""
    if member_limit is None or not ended:
        return None
    return member_limit, MEMBER_BOUND_NAME
