"""The Chuweb21 cleaning filters one record at a time: ``mime``, ``html-length``, ``tld`` and
``language``, at every boundary (issue 11), and their options through the registry."""

from __future__ import annotations

import subprocess
import sys

import pytest
from crawlmill.core import Drop, Record, RecordKind
from crawlmill.core.registry import Registry
from crawlmill.plugins.filters.html_length import HtmlLengthFilter, html_chars
from crawlmill.plugins.filters.language import LanguageFilter
from crawlmill.plugins.filters.mime import MimeFilter
from crawlmill.plugins.filters.tld import TldFilter, host_of
from pydantic import ValidationError

from tests.conftest import need

MODULES = [
    "crawlmill.plugins.filters.mime",
    "crawlmill.plugins.filters.html_length",
    "crawlmill.plugins.filters.tld",
    "crawlmill.plugins.filters.language",
    "crawlmill.plugins.filters.exact_dedup",
]


def make(cls, **options):
    return cls(cls.Options(**options))


def verdict(flt, record):
    result = flt.apply(record)
    if isinstance(result, Drop):
        return result.reason
    assert result is record  # kept unchanged
    return "kept"


def page(payload: bytes = b"<p>x</p>", ctype: str | None = "text/html", url: str = "http://a.com/"):
    """A response record with an HTTP head naming ``ctype``."""
    head = b"HTTP/1.1 200 OK\r\n"
    if ctype is not None:
        head += b"Content-Type: " + ctype.encode("latin-1") + b"\r\n"
    head += b"\r\n"
    from crawlmill.formats.http.head import content_type

    media, charset = content_type(head)
    return Record(
        kind=RecordKind.RESPONSE, url=url, http_head=head, payload=payload,
        content_type=media, charset=charset,
    )  # fmt: skip


def test_registered_and_every_option_described():
    reg = Registry.load(MODULES, entry_points=False)
    names = {"mime", "html-length", "tld", "language", "exact-dedup"}
    assert names <= set(reg.components["filter"])
    for name in names:
        cls = reg.filter(name)
        assert cls.__doc__
        for option, field in cls.Options.model_fields.items():
            assert field.description, f"{name}.{option} has no description"


# -- mime --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ctype", "expected"),
    [
        ("text/html", "kept"),
        ("Text/HTML; charset=UTF-8", "kept"),
        ("  application/XHTML+xml ;q=1", "kept"),
        ('text/html;charset="iso-8859-1"', "kept"),
        ("text/plain", "wrong-mime"),
        ("text/htmlx", "wrong-mime"),
        ("application/pdf; name=text/html", "wrong-mime"),
        (None, "no-mime"),  # no Content-Type: the WARC-declared application/http is not HTML
    ],
)
def test_mime_default_allows_html_whatever_the_case_and_parameters(ctype, expected):
    record = page(ctype=ctype)
    if expected == "no-mime":  # a record with a head but no type and no container type
        assert verdict(make(MimeFilter), record) == "no-mime"
        assert verdict(make(MimeFilter, missing="keep"), record) == "kept"
        return
    assert verdict(make(MimeFilter), record) == expected


def _warc_record(block_type: bytes, http_ctype: bytes | None) -> Record:
    """A record as the WARC reader makes it, with the WARC Content-Type ``block_type``."""
    head = None
    if http_ctype is not None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: " + http_ctype + b"\r\n\r\n"
    headers = [(b"WARC-Type", b"resource"), (b"Content-Type", block_type)]
    kind = RecordKind.RESPONSE if head else RecordKind.RESOURCE
    return Record(
        kind=kind, http_head=head, payload=b"<html/>", extras={"warc": {"headers": headers}}
    )


def test_mime_type_from_http_declared_or_both():
    resource = _warc_record(b"TEXT/HTML; charset=utf-8", None)  # a WARC resource record
    assert verdict(make(MimeFilter), resource) == "kept"  # http-or-declared: the WARC type
    assert verdict(make(MimeFilter, type_from="http"), resource) == "no-mime"
    assert verdict(make(MimeFilter, type_from="declared"), resource) == "kept"
    response = _warc_record(b"application/http; msgtype=response", b"image/png")
    assert verdict(make(MimeFilter), response) == "wrong-mime"  # the HTTP type decides
    assert verdict(make(MimeFilter, type_from="declared"), response) == "wrong-mime"
    ok = make(MimeFilter, allow=["application/http"], type_from="declared")
    assert verdict(ok, response) == "kept"
    # a head without Content-Type: the WARC application/http names the message, not the page
    untyped = _warc_record(b"application/http; msgtype=response", None).evolve(
        kind=RecordKind.RESPONSE, http_head=b"HTTP/1.1 200 OK\r\n\r\n"
    )
    assert verdict(make(MimeFilter), untyped) == "no-mime"
    assert verdict(make(MimeFilter, type_from="declared"), untyped) == "wrong-mime"
    arc = Record(
        kind=RecordKind.RESOURCE, payload=b"x", content_type="text/html",
        extras={"arc": {"fields": {"Content-type": "no-type"}}},
    )  # fmt: skip
    assert verdict(make(MimeFilter), arc) == "no-mime"  # the ARC header says none


def test_mime_wildcards_deny_and_allow_all():
    flt = make(MimeFilter, allow="text/*", deny=["TEXT/CSS"])
    assert verdict(flt, page(ctype="text/plain")) == "kept"
    assert verdict(flt, page(ctype="text/css; charset=utf-8")) == "wrong-mime"
    assert verdict(flt, page(ctype="image/png")) == "wrong-mime"
    everything = make(MimeFilter, allow=None, deny="image/*")
    assert verdict(everything, page(ctype="application/pdf")) == "kept"
    assert verdict(everything, page(ctype="image/gif")) == "wrong-mime"


@pytest.mark.parametrize("bad", ["html", "/html", "text/", ""])
def test_mime_refuses_what_is_not_a_media_type(bad):
    with pytest.raises(ValidationError, match="not a media type"):
        MimeFilter.Options(allow=[bad])


# -- html-length ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "ctype", "chars"),
    [
        ("a" * 1000, "text/html", 1000),
        ("é" * 1001, "text/html; charset=utf-8", 1001),  # 2002 bytes, 1001 characters
        ("€" * 1000, "text/html; charset=UTF-8", 1000),  # 3000 bytes
        ("é" * 1000, "text/html; charset=iso-8859-1", 1000),  # 1000 bytes
    ],
)
def test_html_chars_counts_decoded_characters_not_bytes(payload, ctype, chars):
    codec = "latin-1" if "8859" in ctype else "utf-8"
    record = page(payload.encode(codec), ctype)
    assert html_chars(record) == chars


def test_html_chars_charset_from_meta_then_detector_and_invalid_bytes():
    meta = b'<meta charset="utf-8">' + "é".encode() * 10
    assert html_chars(page(meta, "text/html")) == 22 + 10  # the meta tag names UTF-8
    # no charset anywhere: chardet or ISO-8859-1; either way each byte is one character here
    assert html_chars(page(b"<p>" + b"a" * 20, "text/html")) == 23
    # invalid UTF-8 bytes: one U+FFFD per byte Python replaces
    assert html_chars(page(b"ab\xff\xfecd", "text/html; charset=utf-8")) == 6
    assert html_chars(page(b"", "text/html")) == 0


def test_an_ascii_page_without_charset_is_counted_without_chardet(monkeypatch):
    import chardet

    def refuse(data):
        raise AssertionError("chardet asked")

    monkeypatch.setattr(chardet, "detect", refuse)
    assert html_chars(page(b"<p>" + b"a" * 2000 + b"</p>", "text/html")) == 2007
    with pytest.raises(AssertionError, match="chardet asked"):  # non-ASCII: it is asked
        html_chars(page("<p>ä</p>".encode(), "text/html"))


@pytest.mark.parametrize(
    ("n", "expected"),
    [(999, "too-short"), (1000, "too-short"), (1001, "kept")],
)
def test_html_length_is_strictly_more_than_1000_characters_multibyte(n, expected):
    flt = make(HtmlLengthFilter)
    two_byte = page(("ü" * n).encode(), "text/html; charset=utf-8")  # 2n bytes
    assert verdict(flt, two_byte) == expected
    ascii_ = page(b"a" * n, "text/html; charset=utf-8")
    assert verdict(flt, ascii_) == expected
    # the HTTP head's bytes are not counted: 1000 characters after a long head stay short
    assert verdict(flt, page(b"a" * 1000, "text/html; charset=utf-8; " + "x" * 500)) == (
        "too-short"
    )


def test_html_length_not_strict_and_max():
    flt = make(HtmlLengthFilter, min_chars=3, strict=False, max_chars=5)
    assert verdict(flt, page("€€".encode())) == "too-short"  # 6 bytes, 2 characters
    assert verdict(flt, page("€€€".encode(), "text/html; charset=utf-8")) == "kept"
    assert verdict(flt, page(b"abcde")) == "kept"
    assert verdict(flt, page(b"abcdef")) == "too-long"
    with pytest.raises(ValidationError, match="below min_chars"):
        HtmlLengthFilter.Options(min_chars=10, max_chars=5)


# -- tld -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://Example.COM/a", "example.com"),
        ("http://example.com./a", "example.com"),
        ("http://example.com..:8080/", "example.com"),
        ("https://user:pw@www.example.org:443/x?y", "www.example.org"),
        ("http://[2001:db8::1]:80/", "2001:db8::1"),
        ("http://пример.рф/", "xn--e1afmkfd.xn--p1ai"),
        ("http://XN--E1AFMKFD.XN--P1AI/", "xn--e1afmkfd.xn--p1ai"),
        ("http://bücher.de/", "xn--bcher-kva.de"),
        ("dns:www.example.net", "www.example.net"),
        ("http:///nohost", None),
        ("", None),
        (None, None),
    ],
)
def test_host_of(url, host):
    assert host_of(url) == host


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://example.com/", "kept"),
        ("http://example.com.:8080/", "kept"),
        ("http://sub.example.org/", "kept"),
        ("https://x.net:443", "kept"),
        ("http://example.de/", "wrong-tld"),
        ("http://example.co.uk/", "wrong-tld"),
        ("http://example.community/", "wrong-tld"),  # a label, not a string suffix
        ("http://com.example.ru/", "wrong-tld"),
        ("http://пример.рф/", "wrong-tld"),
        ("http://93.184.216.34/", "ip-host"),
        ("http://[::1]:8080/", "ip-host"),
        ("http://127.1/", "ip-host"),
        ("http://0x7f000001/", "ip-host"),
        ("mailto:a@b", "no-host"),
    ],
)
def test_tld_default_keeps_the_papers_generic_domains(url, expected):
    record = Record(kind=RecordKind.RESPONSE, url=url)
    assert verdict(make(TldFilter), record) == expected


def test_tld_modes_idn_suffixes_country_and_keep_options():
    rf = make(TldFilter, suffixes=["рф", ".co.uk"])
    assert verdict(rf, Record(kind=RecordKind.RESPONSE, url="http://XN--E1AFMKFD.xn--p1ai/")) == (
        "kept"
    )
    assert verdict(rf, Record(kind=RecordKind.RESPONSE, url="http://a.co.uk./")) == "kept"
    assert verdict(rf, Record(kind=RecordKind.RESPONSE, url="http://a.uk/")) == "wrong-tld"
    regional = make(TldFilter, mode="drop", suffixes="@country")
    for url, expected in [
        ("http://a.de/", "wrong-tld"),
        ("http://a.jp.:80/", "wrong-tld"),
        ("http://a.com/", "kept"),
        ("http://a.info/", "kept"),
        ("http://a.xn--p1ai/", "kept"),  # an IDN ccTLD is not two ASCII letters
    ]:
        assert verdict(regional, Record(kind=RecordKind.RESPONSE, url=url)) == expected
    lax = make(TldFilter, ip="keep", missing="keep")
    assert verdict(lax, Record(kind=RecordKind.RESPONSE, url="http://10.0.0.1/")) == "kept"
    assert verdict(lax, Record(kind=RecordKind.WARCINFO)) == "kept"
    for bad in ["a..b", "http://x.com", "a/b", ""]:
        with pytest.raises(ValidationError, match="not a domain suffix"):
            TldFilter.Options(suffixes=[bad])


# -- language ------------------------------------------------------------------------------------

ENGLISH = (
    "<html><head><style>p {color: red}</style><script>var x = 'bonjour le monde';</script>"
    "</head><body><p>The quick brown fox jumps over the lazy dog. This page is written in "
    "plain English so that the detector is sure about its language.</p></body></html>"
)
FRENCH = (
    "<html><body><p>Le renard brun rapide saute par-dessus le chien paresseux. Cette page "
    "est écrite en français pour que le détecteur soit sûr de sa langue.</p></body></html>"
)


def test_language_keeps_english_drops_french_and_empty():
    need("langdetect")
    flt = make(LanguageFilter)
    assert verdict(flt, page(ENGLISH.encode())) == "kept"
    assert verdict(flt, page(FRENCH.encode(), "text/html; charset=utf-8")) == "wrong-language"
    assert verdict(flt, page(b"<html><body><p>12 345 !!!</p></body></html>")) == "no-text"
    assert verdict(flt, page(b"")) == "no-text"
    fr = make(LanguageFilter, languages="fr,de")
    assert verdict(fr, page(FRENCH.encode(), "text/html; charset=utf-8")) == "kept"


def test_language_ignores_script_and_style():
    need("langdetect")
    # French in script and style only: the body is English, so it is kept
    html = (
        "<html><head><script>" + "le chien et le chat sont dans la maison " * 50 + "</script>"
        "<style>/* " + "une phrase en français " * 50 + "*/</style></head><body><p>"
        "This paragraph is the only text of the page and it is written in English, a "
        "language the detector knows well.</p></body></html>"
    )
    assert verdict(make(LanguageFilter), page(html.encode())) == "kept"


def test_language_short_and_mixed_texts_repeat_their_decision():
    need("langdetect")
    from crawlmill.plugins.filters.language import page_text

    texts = [
        "<body>Hi</body>",
        "<body>ok</body>",
        "<body>Hello world. Bonjour tout le monde. Hallo Welt, wie geht es dir heute?</body>",
        "<body>The cat. Le chat. Die Katze. El gato. Il gatto.</body>",
    ]
    flt = make(LanguageFilter)
    first = [flt.probabilities(page(t.encode())) for t in texts]
    again = [make(LanguageFilter).probabilities(page(t.encode())) for t in reversed(texts)]
    assert first == list(reversed(again))  # same text, same probabilities, in any order
    assert page_text(page(texts[0].encode())) == "Hi"
    # another seed may decide differently on a mixed text, but each seed repeats
    other = make(LanguageFilter, seed=7)
    assert [other.probabilities(page(t.encode())) for t in texts] == [
        make(LanguageFilter, seed=7).probabilities(page(t.encode())) for t in texts
    ]


def test_language_decisions_repeat_across_processes():
    need("langdetect")
    code = (
        "from crawlmill.core import Record, RecordKind\n"
        "from crawlmill.plugins.filters.language import LanguageFilter\n"
        "f = LanguageFilter(LanguageFilter.Options())\n"
        "for t in ['Hello world. Bonjour le monde. Hallo Welt.', 'The cat. Le chat.', "
        "'Ciao mondo, hello there my friend']:\n"
        "    r = Record(kind=RecordKind.RESPONSE, payload=('<body>' + t + '</body>').encode())\n"
        "    print(sorted(f.probabilities(r).items()))\n"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True,
            env={**__import__("os").environ, "PYTHONHASHSEED": str(seed)},
        ).stdout
        for seed in (1, 2, 3)
    }  # fmt: skip
    assert len(runs) == 1 and runs.pop().count("\n") == 3


def test_language_lingua_detector():
    need("lingua")
    flt = make(LanguageFilter, detector="lingua", threshold=0.3)
    assert verdict(flt, page(ENGLISH.encode())) == "kept"
    assert verdict(flt, page(FRENCH.encode(), "text/html; charset=utf-8")) == "wrong-language"
    assert verdict(flt, page(b"<body>1 2 3</body>")) == "no-text"


def test_language_options_checked():
    need("langdetect")
    with pytest.raises(ValidationError, match="knows no language xx"):
        LanguageFilter.Options(languages=["en", "xx"])
    with pytest.raises(ValidationError):
        LanguageFilter.Options(threshold=1.5)


def test_language_without_the_package_is_a_config_error_naming_the_extra(tmp_path):
    """A Python where ``langdetect`` cannot be imported: ``crawlmill validate`` refuses the
    pipeline (exit 2) and says which extra installs it."""
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import importlib.abc, sys\n"
        "class Hide(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('langdetect', 'lingua'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Hide())\n"
    )
    sample = tmp_path / "in.warc"
    sample.write_bytes(
        b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://a.com/\r\n"
        b"WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
        b"Content-Type: text/html\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n"
    )
    import os

    env = {**os.environ, "PYTHONPATH": str(blocker)}
    done = subprocess.run(
        [sys.executable, "-m", "crawlmill.core.commands.cli", "convert", str(sample), "-o",
         str(tmp_path / "out"), "--to", "warc", "--filter", "language"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "pip install '.[language]'" in done.stderr and "langdetect" in done.stderr
    assert not (tmp_path / "out").exists()
