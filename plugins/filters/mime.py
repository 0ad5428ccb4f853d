"""``mime``: keep records whose media type is in an allow list and not in a deny list.

The Chuweb21 collection (Chu et al., SIGIR-AP 2023) holds HTML pages only; the default allow
list is ``text/html`` and ``application/xhtml+xml``. Which type is read (``type_from``):

* ``http``: the ``Content-Type`` of the record's HTTP head (the server's word on the payload);
* ``declared``: the type the container declares: the WARC ``Content-Type`` header, the ARC
  header line's content-type field, for other formats the record's ``content_type`` when it
  has no HTTP head;
* ``http-or-declared`` (default): the HTTP type, else the declared one (a WARC ``resource``
  record, an ARC record without HTTP head), except the WARC ``application/http`` of a record
  whose HTTP head names no type: that names the HTTP message, not the payload (``no-mime``).

Types compare without parameters and case: ``Text/HTML; charset=UTF-8`` is ``text/html``. A
list entry ``type/*`` matches every subtype. Drop reasons: ``wrong-mime`` (not allowed or
denied) and ``no-mime`` (no type found; ``missing: keep`` keeps those).
"""

from __future__ import annotations

from typing import Any, Literal

from crawlmill.core import Drop, Filter, PluginOptions, Record, comma_list, hookimpl
from crawlmill.formats.http.head import content_type, media_type
from pydantic import Field, field_validator

__all__ = ["MimeFilter", "declared_type", "http_type", "normalise_type"]


def normalise_type(value: str | bytes | None) -> str | None:
    """The media type of a ``Content-Type`` value without parameters, lower-cased and
    stripped; ``None`` for an empty one."""
    if value is None:
        return None
    raw = value.encode("latin-1", "replace") if isinstance(value, str) else value
    return media_type(raw)[0]


def http_type(record: Record) -> str | None:
    """The media type of the record's HTTP ``Content-Type`` header, or ``None``."""
    if "content_type" in record.changed and record.http_head:
        return normalise_type(record.content_type)  # a filter changed it: the writer's truth
    if not record.http_head:
        return None
    return content_type(record.http_head)[0]


def declared_type(record: Record) -> str | None:
    """The media type the record's container declares (WARC ``Content-Type``, ARC header
    content-type), else ``content_type`` of a record without HTTP head, or ``None``."""
    warc = record.extras.get("warc")
    if isinstance(warc, dict):
        for name, value in warc.get("headers") or ():
            if name.lower() == b"content-type":
                return normalise_type(value)
        return None
    arc = record.extras.get("arc")
    if isinstance(arc, dict) and isinstance(arc.get("fields"), dict):
        value = arc["fields"].get("Content-type")
        if value and value.lower() not in ("-", "no-type", "unk"):
            return normalise_type(value)
        return None
    if record.http_head is None:
        return normalise_type(record.content_type)
    return None


class MimeFilter(Filter):
    """Keep records whose MIME type (HTTP or declared) is allowed and not denied."""

    name = "mime"

    class Options(PluginOptions):
        allow: list[str] | None = Field(
            default_factory=lambda: ["text/html", "application/xhtml+xml"],
            description="media types kept (type/* for every subtype); null: every type not "
            "denied; parameters and case are ignored (else wrong-mime)",
        )
        deny: list[str] = Field(
            default_factory=list,
            description="media types dropped (wrong-mime), also when allowed",
        )
        type_from: Literal["http", "declared", "http-or-declared"] = Field(
            "http-or-declared",
            description="which type is read: the HTTP Content-Type, the WARC/ARC declared "
            "type, or the HTTP one else the declared one",
        )
        missing: Literal["keep", "drop"] = Field(
            "drop", description="records without a type: keep, or drop (no-mime)"
        )

        @field_validator("allow", "deny", mode="before")
        @classmethod
        def _commas(cls, value: Any) -> Any:
            return comma_list(value)

        @field_validator("allow", "deny")
        @classmethod
        def _types(cls, items: list[str] | None) -> list[str] | None:
            if items is None:
                return None
            out = []
            for item in items:
                norm = normalise_type(item)
                if not norm or "/" not in norm or norm.startswith("/") or norm.endswith("/"):
                    raise ValueError(f"{item!r} is not a media type (text/html, text/*)")
                out.append(norm)
            return out

    def __init__(self, options: PluginOptions | None = None) -> None:
        super().__init__(options)
        allow = self.options.allow
        self._allow = None if allow is None else _Matcher(allow)
        self._deny = _Matcher(self.options.deny)

    def media(self, record: Record) -> str | None:
        """The media type this filter reads of ``record`` (by ``type_from``)."""
        source = self.options.type_from
        found = None if source == "declared" else http_type(record)
        if found is None and source != "http":
            found = declared_type(record)
            if source != "declared" and found == "application/http":
                return None  # the type of the HTTP message, not of its payload
        return found

    def apply(self, record: Record) -> Record | Drop:
        """Drop by media type: wrong-mime, or no-mime when ``missing`` is drop."""
        media = self.media(record)
        if media is None:
            return record if self.options.missing == "keep" else Drop("no-mime")
        if (self._allow is not None and not self._allow(media)) or self._deny(media):
            return Drop("wrong-mime")
        return record


class _Matcher:
    """Membership in a list of media types, ``type/*`` matching every subtype."""

    def __init__(self, items: list[str]) -> None:
        self.exact = frozenset(i for i in items if not i.endswith("/*"))
        self.major = frozenset(i[:-2] for i in items if i.endswith("/*"))

    def __call__(self, media: str) -> bool:
        return media in self.exact or media.partition("/")[0] in self.major


@hookimpl
def crawlmill_register_filters(register):
    """Register ``mime``."""
    register(MimeFilter)
