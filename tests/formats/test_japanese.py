"""EUC-JP conversion: Microsoft's Shift_JIS code points map to JIS's (byte-for-byte what a
JIS row/cell conversion of the Shift_JIS bytes gives), missing characters counted."""

from __future__ import annotations

from crawlmill.formats.ntcir.japanese import to_euc_jp


def sjis_to_euc(data: bytes) -> bytes:
    """Byte-level Shift_JIS -> EUC-JP for ASCII and JIS X 0208 (the independent oracle)."""
    out = bytearray()
    i = 0
    while i < len(data):
        b = data[i]
        if b < 0x80:
            out.append(b)
            i += 1
            continue
        c = data[i + 1]
        row = (b - 0x70 if b < 0xA0 else b - 0xB0) * 2 - (1 if c < 0x9F else 0)
        cell = c - (0x1F if c < 0x7F else 0x20 if c < 0x9F else 0x7E)
        out += bytes([row | 0x80, cell | 0x80])
        i += 2
    return bytes(out)


def test_microsoft_code_points_convert_like_bytes():
    sjis = "波\uff5e線\u2225\uff0d\uffe0\uffe1\uffe2 かな漢字 ASCII".encode("cp932")
    euc, missing = to_euc_jp(sjis.decode("cp932"))
    assert missing == 0 and euc == sjis_to_euc(sjis)


def test_missing_characters_are_counted():
    euc, missing = to_euc_jp("a①b😀c")  # NEC row 13 and an emoji: not in JIS X 0208
    assert missing == 2 and euc == b"a&#9312;b&#128512;c"  # kept as references, never "?"
    assert to_euc_jp("a①é", lambda ch: "_") == (b"a__", 2)  # JIS X 0212's é: not held
    assert to_euc_jp("ｶﾅ漢字") == ("ｶﾅ漢字".encode("euc_jp"), 0)  # JIS X 0201 and 0208
