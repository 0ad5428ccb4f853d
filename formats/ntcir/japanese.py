"""Text to EUC-JP, as the NTCIR euc and cooked trees hold it.

Microsoft's Shift_JIS (``cp932``, what pages labelled Shift_JIS mostly are) decodes six JIS
X 0208 characters to other code points than JIS does (``0x8160`` to U+FF5E FULLWIDTH TILDE
where JIS has U+301C WAVE DASH, and so on); EUC-JP (``euc_jp``) knows only the JIS ones.
:data:`MS_TO_JIS` maps them back before encoding, so a Shift_JIS page converts to the EUC-JP
bytes of the same JIS characters (as a byte-level converter such as nkf gives). A character
EUC-JP lacks (cp932's NEC and IBM extensions, emoji, Latin letters with diacritical marks:
JIS X 0212, EUC-JP's three-byte part, is not used) is never written as ``?``: it becomes
what ``fallback`` gives for it (by default an HTML numeric character reference ``&#233;``,
which keeps it in an HTML page) and is counted.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

__all__ = ["MS_TO_JIS", "char_reference", "to_euc_jp"]

#: cp932's code points of six JIS X 0208 characters -> JIS's.
MS_TO_JIS = str.maketrans(
    {
        "\uff5e": "\u301c",  # WAVE DASH
        "\u2225": "\u2016",  # DOUBLE VERTICAL LINE
        "\uff0d": "\u2212",  # MINUS SIGN
        "\uffe0": "\u00a2",  # CENT SIGN
        "\uffe1": "\u00a3",  # POUND SIGN
        "\uffe2": "\u00ac",  # NOT SIGN
    }
)

_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def char_reference(ch: str) -> str:
    """``ch`` as an HTML numeric character reference (``&#233;``)."""
    return f"&#{ord(ch)};"


@functools.lru_cache(maxsize=65536)
def _held(ch: str) -> bool:
    """Whether EUC-JP holds ``ch`` in its JIS X 0201 or JIS X 0208 part (two bytes at most:
    the three-byte JIS X 0212 part, which Python's codec writes and many readers lack, is
    not counted as held)."""
    try:
        return len(ch.encode("euc_jp")) <= 2
    except UnicodeEncodeError:
        return False


def to_euc_jp(text: str, fallback: Callable[[str], str] = char_reference) -> tuple[bytes, int]:
    """``text`` in EUC-JP (JIS X 0208 and JIS X 0201 kana), and how many characters it
    lacks (each written as ``fallback(ch)``, which must give text EUC-JP holds)."""
    text = text.translate(MS_TO_JIS)
    try:
        data = text.encode("euc_jp")
        if b"\x8f" not in data:
            return data, 0
    except UnicodeEncodeError:
        pass
    missing = 0

    def swap(m: re.Match[str]) -> str:
        nonlocal missing
        ch = m.group(0)
        if _held(ch):
            return ch
        missing += 1
        return fallback(ch)

    return _NON_ASCII.sub(swap, text).encode("euc_jp"), missing
