"""A header line cut short with a whole one glued after it, told from a quirky header line.

A writer that dies inside a header line and is restarted appends the next record right after
the cut: ``http://a.example/pa`` + ``http://b.example/1 10.0.0.1 20260101000001 text/html
124``. The two make one line, whose right-most fields are the whole header's: split from the
right it parses, with a URL that is the cut bytes and the real URL run together. Real header
lines contain other URLs too (``http://web.archive.org/web/2001/http://example.com/``, a
redirector's ``?u=http://...``, a Common Crawl 2012 URL with spaces), so a URL inside a line
is a restart only where no real URL puts one. :func:`restart_at` finds, from the left, the
first well-known scheme inside the line from which the rest of the line is a complete,
strictly plausible header line (a 12-14 digit date, a numeric length) and calls it a restart
when the cut bytes before it (``cut``) show one:

* glued to the cut (no space before it), when the line's URL field holds a space (the cut
  fell after the URL), or the scheme is glued to a word byte (``.../pa`` + ``http:``; not to a
  percent escape, ``%3Dhttp:``, nor to a delimiter: ``/``, ``=``, ``?``, where a URL embeds
  another);
* the cut is a URL's origin alone (``http://a.example/`` or ``http://a.example:``): no path
  holds the embedded URL, and a port is digits;
* the cut and the embedded URL have the same origin (scheme and host): the writer wrote the
  same site again (``http://a.example/x/`` + ``http://a.example/x/1 ...``);
* after a space, the cut reads as a header line cut after its IP-address field
  (``URL IP-address [Archive-date [...]]``), which no URL with spaces looks like; or the cut
  is one whole URL with a path and no query or fragment (a header line cut after its URL's
  space): a URL with spaces (Common Crawl 2012) has them in its query or in a path, not a
  second URL after a complete one.

A URL that embeds one of its own site's URLs after a delimiter (a crawler trap such as
``http://a.example/http://a.example/x``) is read as a restart: reported as damage (exit 3)
rather than a restart being read as one record with a wrong URL and exit 0. What the rule
cannot tell: a cut after a path segment and ``/`` of another site's URL
(``http://a.example/seg/`` + ``http://b.example/1 ...``) has the bytes of a URL that embeds
another (``http://web.archive.org/web/2001/http://example.com/``) and is read as one.
Nothing here reads the stream; :mod:`crawlmill.formats.arc.framing` resyncs at the offset.
"""

from __future__ import annotations

import re

from .header import plausible_header

__all__ = ["CANDIDATE", "WORD_BYTES", "restart_at"]

# a header may start at a line start, or (for common schemes) glued to the bytes before it
CANDIDATE = re.compile(
    rb"(?<=\n)[A-Za-z][A-Za-z0-9+.\-]{0,31}:|(?:https?|ftp|dns|filedesc|rtsp|mms|gopher):"
)

#: bytes that end a word inside a URL: an embedded URL right after one of them is glued on
#: (after a delimiter such as ``/``, ``=`` or ``?`` it may be part of the URL, as in
#: ``http://web.archive.org/web/2001/http://example.com/``).
WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

# a URL's origin alone, perhaps with the ``/`` or ``:`` after it: ``http://a.example/``
_ORIGIN_ONLY = re.compile(rb"[A-Za-z][A-Za-z0-9+.\-]*://[^/?#\s]*[/:]?")
# scheme and host of a URL (``dns:host`` has no ``//``)
_ORIGIN = re.compile(rb"([A-Za-z][A-Za-z0-9+.\-]*):(?://)?(?:[^@/?#\s]*@)?([^/?#:\s]*)")
# an absolute URL with no query or fragment (where a URL with spaces holds them)
_WHOLE_URL = re.compile(rb"[A-Za-z][A-Za-z0-9+.\-]*://[^/?#\s]+/[^?#\s]*")
_IP = rb"(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7})"
# the end of a header line cut after its IP-address field (or a later one): "... IP " or
# "... - DATE ..." (a dashed IP-address needs the date after it)
_CUT_AFTER_IP = re.compile(rb" (?:" + _IP + rb" (?:\d{12,14} (?:\S+ )*)?|- \d{12,14} (?:\S+ )*)\Z")


def _origin(url: bytes) -> tuple[bytes, bytes] | None:
    m = _ORIGIN.match(url)
    return (m.group(1).lower(), m.group(2).lower()) if m else None


def _cut_shows_restart(cut: bytes, url: bytes, url_has_space: bool) -> bool:
    """Whether the bytes ``cut`` before an embedded header line whose URL is ``url`` are a
    header line cut short (module docstring)."""
    before = cut[-1]
    if before == 0x20:  # after a space: a cut header line, or a URL with spaces
        if _CUT_AFTER_IP.search(cut):
            return True
        cut = cut.rstrip(b" ")
        if b" " in cut:
            return False
        if _WHOLE_URL.fullmatch(cut):
            return True  # a whole URL, a space, a whole header line: the cut followed a URL
    elif url_has_space or (before in WORD_BYTES and cut[-3:-2] != b"%"):
        return True  # glued after a URL with a space, or to a word byte
    if _ORIGIN_ONLY.fullmatch(cut):
        return True
    here = _origin(cut)
    return here is not None and here[1] != b"" and here == _origin(url)


def restart_at(line: bytes, version: str | None, url_has_space: bool = True) -> int | None:
    """Where, inside the header ``line``, a restarted header line starts (the bytes before it
    are a header line cut short), else ``None``; ``url_has_space``: the line's URL field, as
    split from the right, holds a space. See the module docstring for the rule."""
    for found in CANDIDATE.finditer(line, 1):
        at = found.start()
        if line[at - 1 : at] == b"\n":
            continue
        header = plausible_header(line[at:], version, strict=True)
        if header is not None and _cut_shows_restart(line[:at], header.url, url_has_space):
            return at
    return None
