"""``cooked-text``: the NTCIR WEB cooked rules as a text extractor any pipeline can use.

Sets ``record.text`` to the cooked text of the page (:func:`crawlmill.formats.ntcir.cooked.
cook`: comments, declarations, script and style removed; meta keywords/description and img alt
on lines of their own behind markers; every other tag removed; references replaced as the
NW100G-01 README says). The page is decoded with the charset of the HTTP header, else of a
``<meta>`` tag, else the one ``chardet`` detects (:func:`crawlmill.formats.http.html_charset.
detect_charset`); bytes that do not decode become U+FFFD. Records of other kinds than
``kinds``, and records of a content type not in ``content_types`` (when that list is not
empty), pass unchanged; nothing is dropped. Counts ``cooked`` and ``charset:<source>``
(header, meta, detector, none) per step.
"""

from __future__ import annotations

from typing import Any

from crawlmill.core import Drop, Filter, PluginOptions, Record, comma_list, hookimpl
from crawlmill.formats.http.html_charset import (
    FROM_DETECTOR,
    FROM_HEADER,
    FROM_META,
    charset_of_content_type,
    detect_charset,
)
from crawlmill.formats.ntcir.cooked import CookOptions, cook
from pydantic import Field, field_validator

from .kinds import Kinds, kinds_field

__all__ = ["CookedTextFilter"]

_SOURCES = {FROM_HEADER: "header", FROM_META: "meta", FROM_DETECTOR: "detector"}


class CookedTextFilter(Filter):
    """Set ``text`` to the NTCIR cooked text of each page (never drops a record)."""

    name = "cooked-text"

    class Options(PluginOptions):
        meta_marker: str = Field(
            "<META>",
            description="string before the content of a meta keywords/description tag, on a "
            "line of its own (the README's own string is lost; this is a reconstruction)",
        )
        alt_marker: str = Field(
            "<ALT>", description="string before the alt text of an img tag, on a line of its own"
        )
        kinds: Kinds = kinds_field("record kinds whose payload is cooked; others pass unchanged")
        content_types: list[str] = Field(
            default_factory=lambda: ["text/html", "application/xhtml+xml", "text/plain"],
            description="content types that are cooked (empty: every record of the kinds); "
            "others pass unchanged",
        )

        @field_validator("content_types", mode="before")
        @classmethod
        def _lists(cls, value: Any) -> Any:
            return comma_list(value)

    def apply(self, record: Record) -> Record | Drop:
        """The record with ``text`` set to its cooked page."""
        opts = self.options
        if record.kind not in opts.kinds:
            return record
        ctype = (record.content_type or "").split(";")[0].strip().lower()
        if opts.content_types and ctype not in opts.content_types:
            return record
        header = record.charset or charset_of_content_type(record.content_type)
        charset, source = detect_charset(header, record.payload)
        self.ctx.count(f"charset:{_SOURCES.get(source, 'none')}")
        self.ctx.count("cooked")
        page = record.payload.decode(charset, "replace")
        return record.evolve(text=cook(page, CookOptions(opts.meta_marker, opts.alt_marker)))


@hookimpl
def crawlmill_register_filters(register):
    """Register ``cooked-text``."""
    register(CookedTextFilter)
