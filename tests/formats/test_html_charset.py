"""Charset detection in the order header, meta tag, detector, on real EUC-JP pages of a
ClueWeb09 sample and on the same pages transcoded to Shift_JIS and ISO-2022-JP."""

from __future__ import annotations

import re

import pytest
from crawlmill import open_reader
from crawlmill.formats.http.html_charset import (
    FROM_DETECTOR,
    FROM_HEADER,
    FROM_META,
    META_SCAN,
    NONE,
    charset_of_content_type,
    codec_name,
    detect_charset,
    meta_charset,
)

from tests.conftest import SAMPLES

JA = SAMPLES / "chatnoir-eu-chatnoir-resiliparse/tests/data/clueweb-quirk.warc.gz"


def japanese_pages() -> list[bytes]:
    """The EUC-JP pages of the ClueWeb09 ja sample (their headers say euc-jp)."""
    with open_reader(str(JA)) as records:
        pages = [r.payload for r in records if r.kind == "response" and r.charset == "euc-jp"]
    assert len(pages) >= 20
    return pages


@pytest.mark.parametrize(
    ("label", "name"),
    [
        ("EUC-JP", "euc_jp"),
        ("x-euc-jp", "euc_jp"),
        ("Shift_JIS", "cp932"),
        ("x-sjis", "cp932"),
        ("Windows-31J", "cp932"),
        ("iso-2022-jp", "iso2022_jp"),
        ("UTF-8", "utf-8"),
        ("no-such-charset", None),
        (None, None),
    ],
)
def test_codec_names(label, name):
    assert codec_name(label) == name


def test_charset_of_content_type():
    assert charset_of_content_type('text/html; charset="Shift_JIS"') == "cp932"
    assert charset_of_content_type(b"text/html;CHARSET=euc-jp") == "euc_jp"
    assert charset_of_content_type("text/html") is None


def test_meta_charset_both_forms_and_the_scan_bound():
    assert meta_charset(b'<head><meta charset="euc-jp">') == "euc_jp"
    http_equiv = b'<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=x-sjis">'
    assert meta_charset(http_equiv) == "cp932"
    assert meta_charset(b" " * META_SCAN + b'<meta charset="euc-jp">') is None


def test_the_header_wins_then_meta_then_the_detector():
    for page in japanese_pages():
        bare = re.sub(rb"(?i)<meta[^>]*>", b"", page)
        labelled = b'<meta http-equiv="content-type" content="text/html; charset=EUC-JP">' + bare
        assert detect_charset("EUC-JP", labelled) == ("euc_jp", FROM_HEADER)
        assert detect_charset("Shift_JIS", labelled) == ("cp932", FROM_HEADER)  # header first
        assert detect_charset(None, labelled) == ("euc_jp", FROM_META)
        assert detect_charset("bogus", labelled) == ("euc_jp", FROM_META)  # unknown: skipped
        assert detect_charset(None, bare)[1] == FROM_DETECTOR


def test_the_detector_on_pages_without_labels():
    """Pages whose meta tags are removed: chardet names the right Japanese charset."""
    right = 0
    pages = japanese_pages()
    for page in pages:
        bare = re.sub(rb"(?i)<meta[^>]*>", b"", page)
        assert meta_charset(bare) is None
        text = bare.decode("euc_jp", "replace")
        for charset in ("euc_jp", "cp932", "iso2022_jp"):
            data = text.encode(charset, "replace")
            name, source = detect_charset(None, data)
            assert source == FROM_DETECTOR
            right += data.decode(name, "replace") == data.decode(charset, "replace")
    assert right >= 0.9 * 3 * len(pages)


def test_nothing_found_is_latin_1():
    assert detect_charset(None, b"") == ("iso8859-1", NONE)
