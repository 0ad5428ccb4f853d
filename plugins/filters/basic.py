"""Built-in filters on record metadata: ``kind``, ``url-match``, ``http-status`` and ``size``.

Each drops with a short reason that becomes a counter in the run's accounting line
(``dropped 3 (size:too-small 2, kind:wrong-kind 1)``). List options accept a YAML list or a
comma-separated string, so ``--filter kind keep=response,resource`` works on the command line.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from crawlmill.core import Drop, Filter, PluginOptions, Record, RecordKind, comma_list, hookimpl
from pydantic import Field, field_validator, model_validator

__all__ = ["HttpStatusFilter", "KindFilter", "SizeFilter", "UrlMatchFilter"]


class KindFilter(Filter):
    """Keep records of the listed kinds (response, request, metadata, resource, ...)."""

    name = "kind"

    class Options(PluginOptions):
        keep: list[RecordKind] | None = Field(
            default=None,
            description="record kinds to keep; all others are dropped (reason wrong-kind)",
        )
        drop: list[RecordKind] = Field(
            default_factory=list,
            description="record kinds to drop (reason wrong-kind); applied after keep",
        )

        @field_validator("keep", "drop", mode="before")
        @classmethod
        def _commas(cls, value: Any) -> Any:
            return comma_list(value)

        @model_validator(mode="after")
        def _something_to_do(self) -> KindFilter.Options:
            if self.keep is None and not self.drop:
                raise ValueError("give keep (kinds to keep) or drop (kinds to drop)")
            return self

    def apply(self, record: Record) -> Record | Drop:
        """Drop a record whose kind is not kept or is dropped."""
        kind = RecordKind(record.kind)
        if (
            self.options.keep is not None and kind not in self.options.keep
        ) or kind in self.options.drop:
            return Drop("wrong-kind")
        return record


class UrlMatchFilter(Filter):
    """Keep records whose URL matches an include pattern and no exclude pattern (regex search)."""

    name = "url-match"

    class Options(PluginOptions):
        include: list[str] = Field(
            default_factory=list,
            description="regular expressions (re.search); when given, a URL must match one (else not-included)",
        )
        exclude: list[str] = Field(
            default_factory=list,
            description="regular expressions (re.search); a URL matching one is dropped (excluded)",
        )
        ignore_case: bool = Field(default=False, description="match case-insensitively")
        keep_missing: bool = Field(
            default=False, description="keep records without a URL (else dropped as no-url)"
        )

        @field_validator("include", "exclude", mode="before")
        @classmethod
        def _one_pattern(cls, value: Any) -> Any:
            return [value] if isinstance(value, str) else value

        @field_validator("include", "exclude")
        @classmethod
        def _compiles(cls, patterns: list[str]) -> list[str]:
            for pattern in patterns:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
            return patterns

    def __init__(self, options: PluginOptions | None = None) -> None:
        super().__init__(options)
        flags = re.IGNORECASE if self.options.ignore_case else 0
        self._include = [re.compile(p, flags) for p in self.options.include]
        self._exclude = [re.compile(p, flags) for p in self.options.exclude]

    def apply(self, record: Record) -> Record | Drop:
        """Drop by URL: no-url, not-included or excluded."""
        url = record.url
        if url is None:
            return record if self.options.keep_missing else Drop("no-url")
        if self._include and not any(p.search(url) for p in self._include):
            return Drop("not-included")
        if any(p.search(url) for p in self._exclude):
            return Drop("excluded")
        return record


_RANGE = re.compile(r"^\s*(\d{3})\s*(?:-\s*(\d{3})\s*)?$")


class HttpStatusFilter(Filter):
    """Keep HTTP responses whose status code is in the given codes or ranges (200-299)."""

    name = "http-status"

    class Options(PluginOptions):
        keep: list[str] = Field(
            default_factory=lambda: ["200-299"],
            description='status codes or inclusive ranges to keep, e.g. ["200-299", "304"] (else wrong-status)',
        )
        non_http: Literal["keep", "drop"] = Field(
            default="keep",
            description="what to do with records that have no HTTP status (drop: no-http-status)",
        )

        @field_validator("keep", mode="before")
        @classmethod
        def _to_texts(cls, value: Any) -> Any:
            value = comma_list(value) if isinstance(value, str) else value
            if isinstance(value, int) and not isinstance(value, bool):
                value = [value]
            if isinstance(value, list):
                return [
                    str(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value
                ]
            return value

        @field_validator("keep")
        @classmethod
        def _ranges(cls, items: list[str]) -> list[str]:
            for item in items:
                match = _RANGE.match(item)
                if match is None:
                    raise ValueError(f"{item!r} is not a status code (404) or range (200-299)")
                low, high = int(match.group(1)), int(match.group(2) or match.group(1))
                if low > high:
                    raise ValueError(f"range {item!r} is empty (low > high)")
            return items

    def __init__(self, options: PluginOptions | None = None) -> None:
        super().__init__(options)
        self._ranges: list[tuple[int, int]] = []
        for item in self.options.keep:
            match = _RANGE.match(item)
            assert match is not None  # checked by the Options model
            self._ranges.append((int(match.group(1)), int(match.group(2) or match.group(1))))

    def apply(self, record: Record) -> Record | Drop:
        """Drop by status: wrong-status, or no-http-status when ``non_http`` is drop."""
        status = record.http_status
        if status is None:
            return record if self.options.non_http == "keep" else Drop("no-http-status")
        if any(low <= status <= high for low, high in self._ranges):
            return record
        return Drop("wrong-status")


class SizeFilter(Filter):
    """Keep records whose payload size (bytes after the HTTP head) is within bounds."""

    name = "size"

    class Options(PluginOptions):
        min_bytes: int = Field(
            default=0, ge=0, description="smallest payload kept, in bytes (else too-small)"
        )
        max_bytes: int | None = Field(
            default=None,
            ge=0,
            description="largest payload kept, in bytes (else too-large); none: no bound",
        )

        @model_validator(mode="after")
        def _ordered(self) -> SizeFilter.Options:
            if self.max_bytes is not None and self.max_bytes < self.min_bytes:
                raise ValueError(
                    f"max_bytes ({self.max_bytes}) is below min_bytes ({self.min_bytes})"
                )
            return self

    def apply(self, record: Record) -> Record | Drop:
        """Drop by payload length: too-small or too-large."""
        size = len(record.payload)
        if size < self.options.min_bytes:
            return Drop("too-small")
        if self.options.max_bytes is not None and size > self.options.max_bytes:
            return Drop("too-large")
        return record


@hookimpl
def crawlmill_register_filters(register):
    """Register the basic filters."""
    for cls in (KindFilter, UrlMatchFilter, HttpStatusFilter, SizeFilter):
        register(cls)
