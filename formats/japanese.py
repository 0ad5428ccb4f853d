"""Japanese text to EUC-JP, as the NTCIR euc tree holds it.

Microsoft's Shift_JIS (``cp932``, what pages labelled Shift_JIS mostly are) decodes six JIS
X 0208 characters to other code points than JIS does (``0x8160`` to U+FF5E FULLWIDTH TILDE
where JIS has U+301C WAVE DASH, and so on); EUC-JP (``euc_jp``) knows only the JIS ones.
:data:`MS_TO_JIS` maps them back before encoding, so a Shift_JIS page converts to the EUC-JP
bytes of the same JIS characters (as a byte-level converter such as nkf gives). Characters
EUC-JP lacks (cp932's NEC and IBM extensions, emoji) become ``?`` and are counted.
"""

from __future__ import annotations

__all__ = ["MS_TO_JIS", "to_euc_jp"]

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


def to_euc_jp(text: str) -> tuple[bytes, int]:
    """``text`` in EUC-JP, and how many characters EUC-JP lacks (each written as ``?``)."""
    text = text.translate(MS_TO_JIS)
    try:
        return text.encode("euc_jp"), 0
    except UnicodeEncodeError:
        missing = sum(1 for ch in text if not _encodable(ch))
        return text.encode("euc_jp", "replace"), missing


def _encodable(ch: str) -> bool:
    try:
        ch.encode("euc_jp")
    except UnicodeEncodeError:
        return False
    return True
