"""The built-in filters: kind, url-match, http-status and size."""

from __future__ import annotations

import pytest
from crawlmill.core import Drop, Record, RecordKind
from crawlmill.core.registry import Registry
from crawlmill.plugins.filters.basic import HttpStatusFilter, KindFilter, SizeFilter, UrlMatchFilter
from pydantic import ValidationError


def make(cls, **options):
    return cls(cls.Options(**options))


def response(
    status: int | None = 200, url: str | None = "http://example.org/a.html", payload=b"x" * 10
):
    head = (
        f"HTTP/1.1 {status} Whatever\r\nContent-Type: text/html\r\n\r\n".encode()
        if status
        else None
    )
    kind = RecordKind.RESPONSE if status else RecordKind.RESOURCE
    return Record(kind=kind, url=url, http_head=head, payload=payload)


def verdict(flt, record):
    result = flt.apply(record)
    if isinstance(result, Drop):
        return result.reason
    assert result is record  # kept unchanged
    return "kept"


def test_registered_through_the_hook():
    reg = Registry.load(["crawlmill.plugins.filters.basic"], entry_points=False)
    assert {"kind", "url-match", "http-status", "size"} <= set(reg.components["filter"])
    assert reg.filter("size") is SizeFilter


def test_every_option_is_described():
    for cls in (KindFilter, UrlMatchFilter, HttpStatusFilter, SizeFilter):
        assert cls.__doc__
        for name, field in cls.Options.model_fields.items():
            assert field.description, f"{cls.name}.{name} has no description"


# -- kind --------------------------------------------------------------------------------------


def test_kind_keep_and_drop():
    flt = make(KindFilter, keep=["response", "resource"])
    assert verdict(flt, Record(kind=RecordKind.RESPONSE)) == "kept"
    assert verdict(flt, Record(kind=RecordKind.RESOURCE)) == "kept"
    assert verdict(flt, Record(kind=RecordKind.WARCINFO)) == "wrong-kind"
    flt = make(KindFilter, drop="request, metadata")
    assert verdict(flt, Record(kind=RecordKind.REQUEST)) == "wrong-kind"
    assert verdict(flt, Record(kind=RecordKind.METADATA)) == "wrong-kind"
    assert verdict(flt, Record(kind=RecordKind.REVISIT)) == "kept"


def test_kind_options_are_checked():
    with pytest.raises(ValidationError, match="keep"):
        KindFilter.Options(keep=["responses"])
    with pytest.raises(ValidationError, match="give keep"):
        KindFilter.Options()


# -- url-match ---------------------------------------------------------------------------------


def test_url_match_include_exclude():
    flt = make(UrlMatchFilter, include=[r"\.html$", r"^https?://docs\."], exclude=["/private/"])
    assert verdict(flt, response(url="http://example.org/a.html")) == "kept"
    assert verdict(flt, response(url="https://docs.example.org/img.png")) == "kept"
    assert verdict(flt, response(url="http://example.org/a.png")) == "not-included"
    assert verdict(flt, response(url="http://example.org/private/a.html")) == "excluded"
    assert verdict(flt, response(url=None)) == "no-url"
    assert (
        verdict(make(UrlMatchFilter, exclude=".png", keep_missing=True), response(url=None))
        == "kept"
    )


def test_url_match_case_and_raw_bytes():
    flt = make(UrlMatchFilter, include="EXAMPLE", ignore_case=True)
    assert verdict(flt, response(url="http://example.org/")) == "kept"
    assert (
        verdict(make(UrlMatchFilter, include="EXAMPLE"), response(url="http://example.org/"))
        == "not-included"
    )
    raw = b"http://example.org/\xe9t\xe9".decode("utf-8", "surrogateescape")
    assert verdict(make(UrlMatchFilter, include="example"), response(url=raw)) == "kept"


def test_url_match_bad_regex_is_an_option_error():
    with pytest.raises(ValidationError, match="invalid regular expression"):
        UrlMatchFilter.Options(include=["("])


# -- http-status -------------------------------------------------------------------------------


def test_http_status_ranges():
    flt = make(HttpStatusFilter, keep=["200-299", 304])
    assert verdict(flt, response(200)) == "kept"
    assert verdict(flt, response(299)) == "kept"
    assert verdict(flt, response(304)) == "kept"
    assert verdict(flt, response(301)) == "wrong-status"
    assert verdict(flt, response(404)) == "wrong-status"
    assert verdict(flt, response(None)) == "kept"  # no HTTP status: kept by default
    assert verdict(make(HttpStatusFilter, non_http="drop"), response(None)) == "no-http-status"
    assert verdict(make(HttpStatusFilter), response(500)) == "wrong-status"  # default 200-299
    assert verdict(make(HttpStatusFilter, keep="404,500-599"), response(503)) == "kept"


@pytest.mark.parametrize("keep", [["2xx"], ["300-200"], ["20"], [True]])
def test_http_status_bad_ranges(keep):
    with pytest.raises(ValidationError):
        HttpStatusFilter.Options(keep=keep)


# -- size --------------------------------------------------------------------------------------


def test_size_bounds_are_inclusive():
    flt = make(SizeFilter, min_bytes=5, max_bytes=10)
    assert verdict(flt, response(payload=b"x" * 4)) == "too-small"
    assert verdict(flt, response(payload=b"x" * 5)) == "kept"
    assert verdict(flt, response(payload=b"x" * 10)) == "kept"
    assert verdict(flt, response(payload=b"x" * 11)) == "too-large"
    # the HTTP head does not count
    assert verdict(make(SizeFilter, max_bytes=0), response(payload=b"")) == "kept"


def test_size_options_are_checked():
    with pytest.raises(ValidationError, match="below min_bytes"):
        SizeFilter.Options(min_bytes=10, max_bytes=5)
    with pytest.raises(ValidationError):
        SizeFilter.Options(min_bytes=-1)
