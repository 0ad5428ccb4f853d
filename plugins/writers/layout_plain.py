"""The ``plain`` output layout: one WARC per input (or a numbered series with rollover).

Names come from ``name_pattern`` with the placeholders ``{dir}`` (the input's folder relative to
the input root, with a trailing ``/``, or empty), ``{stem}`` (the input's file name without its
compression and format suffixes: ``x.arc.gz`` -> ``x``), ``{seq}`` (0-based number of the file
within the input; format it, e.g. ``{seq:05d}``), ``{index}`` (the input's position in the
run) and ``{ext}`` (``.warc.gz``, ``.warc.zst`` or ``.warc``).

Default pattern: ``{dir}{stem}{ext}`` (``crawl/x.arc.gz`` -> ``crawl/x.warc.gz``, one WARC per
ARC as the IIPC guidelines recommend), or ``{dir}{stem}-{seq:05d}{ext}`` when ``max_records``
or ``max_bytes`` asks for rollover.
"""

from __future__ import annotations

import posixpath
from typing import Any, ClassVar

from .layouts import Layout, register_layout

__all__ = ["DEFAULT_PATTERN", "ROLLOVER_PATTERN", "PlainLayout", "split_name"]

DEFAULT_PATTERN = "{dir}{stem}{ext}"
ROLLOVER_PATTERN = "{dir}{stem}-{seq:05d}{ext}"

_COMPRESSION_SUFFIXES = (".gz", ".zst", ".zstd", ".bz2", ".xz", ".lz4")
_FORMAT_SUFFIXES = (".warc", ".arc", ".wet", ".wat", ".dat", ".seq", ".txt", ".json", ".jsonl")


def split_name(relpath: str) -> tuple[str, str]:
    """``(dir, stem)`` of an input relpath: ``a/b/x.arc.gz`` -> ``("a/b/", "x")``."""
    relpath = relpath.replace("\\", "/")
    folder, name = posixpath.split(relpath)
    lower = name.lower()
    for suffix in _COMPRESSION_SUFFIXES:
        if lower.endswith(suffix) and len(name) > len(suffix):
            name, lower = name[: -len(suffix)], lower[: -len(suffix)]
            break
    stripped = True
    while stripped:  # x.warc.wet.gz -> x
        stripped = False
        for suffix in _FORMAT_SUFFIXES:
            if lower.endswith(suffix) and len(name) > len(suffix):
                name, lower = name[: -len(suffix)], lower[: -len(suffix)]
                stripped = True
                break
    return (folder + "/" if folder else ""), name


def pattern_for(options: Any) -> str:
    """The name pattern the options ask for (explicit, or the default for rollover or not)."""
    if options.name_pattern:
        return options.name_pattern
    if options.max_records or options.max_bytes:
        return ROLLOVER_PATTERN
    return DEFAULT_PATTERN


@register_layout
class PlainLayout(Layout):
    """Files named by ``name_pattern``, rolled over after ``max_records`` records or
    ``max_bytes`` written bytes."""

    name: ClassVar[str] = "plain"

    def next_path(self) -> str:
        """The next file name from the pattern; ``seq`` counts files of this input."""
        folder, stem = split_name(self.ctx.input.relpath)
        path = pattern_for(self.options).format(
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
        max_records = self.options.max_records
        max_bytes = self.options.max_bytes
        return bool(
            (max_records is not None and records_in_file >= max_records)
            or (max_bytes is not None and bytes_in_file >= max_bytes)
        )
