"""A second witness of an ARC record's length: the ``Content-Length`` of the HTTP head in its block.

An ARC record has no digest to check its ``Archive-length`` against. The length rule
(:mod:`crawlmill.formats.arc.length`) accepts a declared end followed by any run of line-end
bytes, none included, before the next header line; so a length one byte too long (a flipped
bit) that swallows the separator, or one byte too short that leaves the block's final
``\\n`` out, reads as a sound record with another block. Where the run after the declared
bytes is not the one separator, the block's HTTP head may tell: :func:`http_block_length` is
the length its head and ``Content-Length`` add up to. The parser trusts it over the declared
length only when it leaves exactly one separator before the next record (and the declared one
does not), which real files with a separator-less writer never show (their HTTP lengths agree
with the declared ones). Nothing here reads the stream.
"""

from __future__ import annotations

import re

__all__ = ["HEAD_BYTES", "http_block_length"]

#: bytes of a block looked at for its HTTP head.
HEAD_BYTES = 1 << 16

_STATUS = re.compile(rb"HTTP/\d(?:\.\d)? \d{3}")
_CONTENT_LENGTH = re.compile(rb"(?im)^content-length[ \t]*:[ \t]*(\d{1,15})[ \t]*\r?$")
_TRANSFER_ENCODING = re.compile(rb"(?im)^transfer-encoding[ \t]*:")


def http_block_length(block_start: bytes) -> int | None:
    """The block length an HTTP response's head declares: the head (through its blank line)
    plus its ``Content-Length``. ``block_start``: the block's first bytes (up to
    :data:`HEAD_BYTES`). ``None`` when they are not an HTTP response head that ends there
    with one ``Content-Length`` value and no ``Transfer-Encoding``."""
    if not _STATUS.match(block_start):
        return None
    crlf, lf = block_start.find(b"\r\n\r\n"), block_start.find(b"\n\n")
    if crlf >= 0 and (lf < 0 or crlf < lf):
        head_end = crlf + 4
    elif lf >= 0:
        head_end = lf + 2
    else:
        return None
    head = block_start[:head_end]
    if _TRANSFER_ENCODING.search(head):
        return None
    values = {int(m.group(1)) for m in _CONTENT_LENGTH.finditer(head)}
    if len(values) != 1:
        return None
    return head_end + values.pop()
