"""The ``plain`` output layout: one file per input (or a numbered series with rollover).

Names come from ``name_pattern`` with the placeholders ``{dir}`` (the input's folder relative to
the input root, with a trailing ``/``, or empty), ``{stem}`` (the input's file name without its
compression and format suffixes, ``x.arc.gz`` -> ``x``, kept longer where two inputs of the run
would share it, ``x.arc.gz`` beside ``x.warc.gz`` -> ``x.arc`` and ``x.warc``: see
:mod:`crawlmill.core.naming`), ``{seq}`` (0-based number of the file
within the input; format it, e.g. ``{seq:05d}``), ``{index}`` (the input's position in the
run) and ``{ext}`` (the writer's suffix: ``.warc.gz``, ``.warc.zst``, ``.warc``, ``.arc.gz``,
``.arc``). Every file writer can use it (``warc``, ``arc``).

Default pattern: ``{dir}{stem}{ext}`` (``crawl/x.arc.gz`` -> ``crawl/x.warc.gz``, one WARC per
ARC as the IIPC guidelines recommend), or ``{dir}{stem}-{seq:05d}{ext}`` when ``max_records``
or ``max_bytes`` asks for rollover.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from crawlmill.core.layouts import Layout, register_layout
from crawlmill.core.markers import hookimpl
from crawlmill.core.naming import stem_of, strip_suffixes
from crawlmill.core.options import FieldCheck, Ge, LightOptions, option

__all__ = ["DEFAULT_PATTERN", "ROLLOVER_PATTERN", "PlainLayout", "PlainOptions", "split_name"]

DEFAULT_PATTERN = "{dir}{stem}{ext}"
ROLLOVER_PATTERN = "{dir}{stem}-{seq:05d}{ext}"


def split_name(relpath: str) -> tuple[str, str]:
    """``(dir, stem)`` of an input relpath: ``a/b/x.arc.gz`` -> ``("a/b/", "x")`` (only
    compression and format suffixes are stripped: :func:`crawlmill.core.naming.strip_suffixes`)."""
    return _split(strip_suffixes(relpath))


def _split(stem: str) -> tuple[str, str]:
    folder, name = posixpath.split(stem)
    return (folder + "/" if folder else ""), name


def pattern_for(options: Any) -> str:
    """The name pattern the options (the layout's :class:`PlainOptions`, or a writer's options
    with the same fields) ask for (explicit, or the default for rollover or not)."""
    if options.name_pattern:
        return options.name_pattern
    if options.max_records or options.max_bytes:
        return ROLLOVER_PATTERN
    return DEFAULT_PATTERN


def _pattern_placeholders(value: str | None, info: Any = None) -> str | None:
    return check_pattern(value)


@dataclass(frozen=True, kw_only=True)
class PlainOptions(LightOptions):
    """Options of the ``plain`` layout."""

    name_pattern: Annotated[str | None, FieldCheck(_pattern_placeholders)] = option(
        None,
        description="File names; placeholders {dir} {stem} {seq} {index} {ext}. Default: one file per input named after it ({dir}{stem}{ext}), or {dir}{stem}-{seq:05d}{ext} with rollover.",
    )
    max_records: Annotated[int | None, Ge(1)] = option(
        None, description="Start a new file after this many records."
    )
    max_bytes: Annotated[int | None, Ge(1)] = option(
        None, description="Start a new file once a file reaches this many (compressed) bytes."
    )

    def check(self) -> None:
        check_rollover(self.name_pattern, self.max_records, self.max_bytes)


def check_pattern(value: str | None) -> str | None:
    """``value`` when its placeholders are the plain layout's, else ``ValueError``."""
    if value is not None:
        try:
            value.format(dir="", stem="x", seq=0, index=0, ext=".warc.gz")
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(
                f"bad placeholder ({exc}); use {{dir}} {{stem}} {{seq}} {{index}} {{ext}}"
            ) from exc
    return value


def check_rollover(pattern: str | None, max_records: int | None, max_bytes: int | None) -> None:
    """``ValueError`` when rollover is asked for with a pattern without ``{seq}``."""
    if (max_records or max_bytes) and pattern is not None and "{seq" not in pattern:
        raise ValueError(
            "name_pattern: rollover (max_records/max_bytes) needs {seq} in the pattern"
        )


@register_layout
class PlainLayout(Layout):
    """One file per input, or a numbered series rolled over by records or bytes.

    Files named by ``name_pattern``, rolled over after ``max_records`` records or
    ``max_bytes`` written bytes; for every file writer."""

    name: ClassVar[str] = "plain"
    Options = PlainOptions
    rolls_by_size = False  # bytes only with max_bytes

    @classmethod
    def position_free(cls, options: Any) -> bool:
        """True unless the name pattern holds ``{index}`` (the input's position)."""
        settings = getattr(options, "layout_settings", None) or cls.Options()
        return "{index" not in pattern_for(settings)

    def next_path(self) -> str:
        """The next file name from the pattern; ``seq`` counts files of this input."""
        folder, stem = _split(stem_of(self.ctx.input))
        path = pattern_for(self.settings).format(
            dir=folder,
            stem=stem,
            seq=self.files_started,
            index=self.ctx.input.index,
            ext=self.extension,
        )
        self.files_started += 1
        return path

    def should_roll(self, records_in_file: int, bytes_in_file: int) -> bool:
        """True once the file holds ``max_records`` records or ``max_bytes`` bytes."""
        max_records = self.settings.max_records  # type: ignore[attr-defined]
        max_bytes = self.settings.max_bytes  # type: ignore[attr-defined]
        return bool(
            (max_records is not None and records_in_file >= max_records)
            or (max_bytes is not None and bytes_in_file >= max_bytes)
        )


@hookimpl
def crawlmill_register_layouts(register: Any) -> None:
    """Register the ``plain`` layout."""
    register(PlainLayout)
