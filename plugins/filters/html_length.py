"""``html-length``: keep pages whose HTML is longer than a number of characters.

The Chuweb21 paper keeps a page when "the character length of HTML content" is larger than
1,000. What is counted here, exactly: the **characters** (Unicode code points) of the
record's **payload** (the bytes after the HTTP head: no status line, no headers; for a record
without HTTP head its whole block), as stored (not de-chunked, not decompressed), decoded by
the charset :func:`crawlmill.formats.http.html_charset.detect_charset` finds: the HTTP
``Content-Type`` charset, else a ``<meta>`` charset in the first 4 KiB, else ``chardet`` on
the first 64 KiB, else ISO-8859-1; an invalid byte sequence counts as one U+FFFD character
per byte Python's ``replace`` handler substitutes. A page is kept when that count is
``> min_chars`` (``strict: false``: ``>=``) and, with ``max_chars``, ``<= max_chars``.

The charset label is the record's ``charset`` (the HTTP ``Content-Type`` parameter, or the
WARC ``Content-Type`` one of a record without HTTP head). No codec decodes to more characters
than bytes (``replace`` puts one U+FFFD for one or more bytes), so a payload with fewer bytes
than the smallest count kept is dropped without decoding. Drop reasons: ``too-short`` and
``too-long``.

With ``body: decoded`` the characters counted are those of the body as a browser reads it,
from the text extraction component (:func:`crawlmill.algorithms.text_extraction.decoded_page`):
``Transfer-Encoding: chunked`` undone, ``Content-Encoding`` (gzip, deflate...) undone, then
decoded by the charset found the same way (the HTTP head's charset, a ``<meta>`` tag,
``chardet``, ISO-8859-1). A chunked or compressed page counts differently from the default
``stored`` (a gzipped page's stored bytes are not its HTML), so ``stored`` stays the default.
"""

from __future__ import annotations

from typing import Literal

from crawlmill.core import Drop, Filter, PluginOptions, Record, hookimpl
from pydantic import Field, model_validator

__all__ = ["HtmlLengthFilter", "html_chars", "payload_codec"]


def payload_codec(record: Record) -> str:
    """The codec ``record``'s payload is decoded with: the record's charset, a ``<meta>``
    charset, ``chardet``, ISO-8859-1 (:func:`crawlmill.formats.http.html_charset.detect_charset`),
    except that an ASCII payload that names no charset is ASCII without asking ``chardet``
    (which says so too)."""
    from crawlmill.formats.http.html_charset import codec_name, detect_charset, meta_charset

    payload = record.payload
    codec = codec_name(record.charset) or meta_charset(payload)
    if codec is not None:
        return codec
    if payload.isascii():
        return "ascii"
    return detect_charset(None, payload)[0]


def html_chars(record: Record) -> int:
    """The number of characters of ``record``'s payload, decoded as the module docstring
    says."""
    payload = record.payload
    if not payload:
        return 0
    codec = payload_codec(record)
    try:
        return len(payload.decode(codec, "replace"))
    except (LookupError, ValueError, UnicodeError):  # a codec that cannot decode at all
        return len(payload.decode("iso-8859-1"))


class HtmlLengthFilter(Filter):
    """Keep pages whose HTML (payload without HTTP head, decoded) has more than N characters."""

    name = "html-length"

    class Options(PluginOptions):
        min_chars: int = Field(
            1000,
            ge=0,
            description="pages of at most this many characters are dropped (too-short); "
            "the Chuweb21 paper's 1,000",
        )
        strict: bool = Field(
            True,
            description="true: keep only more than min_chars characters (the paper's 'larger "
            "than'); false: at least min_chars",
        )
        max_chars: int | None = Field(
            None, ge=0, description="pages longer than this are dropped (too-long); none: no bound"
        )
        body: Literal["stored", "decoded"] = Field(
            "stored",
            description="stored: the payload as stored (the default); decoded: de-chunked "
            "and decompressed first, by the text extraction component (docs/outputs.md)",
        )

        @model_validator(mode="after")
        def _ordered(self) -> HtmlLengthFilter.Options:
            if self.max_chars is not None and self.max_chars < self.min_chars:
                raise ValueError(
                    f"max_chars ({self.max_chars}) is below min_chars ({self.min_chars})"
                )
            return self

    def apply(self, record: Record) -> Record | Drop:
        """Drop by the character count: too-short or too-long."""
        low = self.options.min_chars + (1 if self.options.strict else 0)  # smallest kept
        high = self.options.max_chars
        if self.options.body == "decoded":
            from crawlmill.algorithms.text_extraction import decoded_page

            n = len(decoded_page(record)[0]) if record.payload else 0
        else:
            # no codec gives more characters than bytes: a payload below the bound in bytes
            # is too short in characters without decoding it
            if len(record.payload) < low:
                return Drop("too-short")
            n = html_chars(record)
        if n < low:
            return Drop("too-short")
        if high is not None and n > high:
            return Drop("too-long")
        return record


@hookimpl
def crawlmill_register_filters(register):
    """Register ``html-length``."""
    register(HtmlLengthFilter)
