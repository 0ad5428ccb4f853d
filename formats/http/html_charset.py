"""Which charset a page is in: the HTTP header, then a ``<meta>`` tag, then a detector.

The order the NTCIR euc tree (issue 10) and Common Crawl 2012's ``charset_detector`` codes
use: :data:`FROM_HEADER` (0: the ``Content-Type`` header's ``charset``), :data:`FROM_META`
(1: ``<meta charset=...>`` or ``<meta http-equiv="Content-Type" content="...; charset=...">``
in the first :data:`META_SCAN` bytes), :data:`FROM_DETECTOR` (3: ``chardet`` on the first
:data:`DETECT_SCAN` bytes) and :data:`NONE` (10: nothing found, ISO-8859-1 assumed). A name
Python does not know is skipped, so the next source decides. Names come back as Python codec
names (``codecs.lookup(...).name``), with the Japanese web aliases mapped (``x-sjis``,
``windows-31j`` -> ``cp932``; ``x-euc-jp`` -> ``euc_jp``).
"""

from __future__ import annotations

import codecs
import re

__all__ = [
    "DETECT_SCAN",
    "FROM_DETECTOR",
    "FROM_HEADER",
    "FROM_META",
    "META_SCAN",
    "NONE",
    "charset_of_content_type",
    "codec_name",
    "detect_charset",
    "meta_charset",
]

FROM_HEADER = 0
FROM_META = 1
FROM_DETECTOR = 3
NONE = 10
#: bytes of the page searched for a ``<meta>`` charset.
META_SCAN = 4096
#: bytes of the page the detector reads.
DETECT_SCAN = 65536

_ALIASES = {
    "x-sjis": "cp932",
    "shift-jis": "cp932",
    "shift_jis": "cp932",
    "sjis": "cp932",
    "windows-31j": "cp932",
    "x-euc-jp": "euc_jp",
    "x-euc": "euc_jp",
    "euc": "euc_jp",
}
_CHARSET = re.compile(rb"""charset\s*=\s*["']?\s*([A-Za-z0-9_.:+-]+)""", re.I)
_META = re.compile(rb"<meta\b[^>]*>", re.I)


def codec_name(name: str | bytes | None) -> str | None:
    """The Python codec name of a charset label, or ``None`` when Python has no such codec."""
    if name is None:
        return None
    label = (name.decode("ascii", "replace") if isinstance(name, bytes) else name).strip()
    label = _ALIASES.get(label.lower(), label)
    try:
        return codecs.lookup(label).name
    except (LookupError, ValueError):
        return None


def charset_of_content_type(value: str | bytes | None) -> str | None:
    """The codec of the ``charset`` parameter of a ``Content-Type`` value, if Python has it."""
    if not value:
        return None
    raw = value.encode("latin-1", "replace") if isinstance(value, str) else value
    m = _CHARSET.search(raw)
    return codec_name(m.group(1)) if m else None


def meta_charset(page: bytes) -> str | None:
    """The codec a ``<meta>`` tag in the page's first :data:`META_SCAN` bytes names."""
    for m in _META.finditer(page[:META_SCAN]):
        found = charset_of_content_type(m.group(0))
        if found is not None:
            return found
    return None


def detect_charset(header_charset: str | None, page: bytes) -> tuple[str, int]:
    """``(codec name, source)`` of ``page``: ``header_charset`` (a label from the HTTP
    header), then a meta tag, then ``chardet``; ISO-8859-1 with :data:`NONE` when none
    names a codec Python has."""
    found = codec_name(header_charset)
    if found is not None:
        return found, FROM_HEADER
    found = meta_charset(page)
    if found is not None:
        return found, FROM_META
    if page:
        import chardet

        guess = chardet.detect(page[:DETECT_SCAN]).get("encoding")
        found = codec_name(guess)
        if found is not None:
            return found, FROM_DETECTOR
    return codecs.lookup("iso-8859-1").name, NONE
