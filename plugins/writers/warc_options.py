"""The ``warc`` writer's options (:class:`WarcWriterOptions`), a light dataclass
(:class:`~crawlmill.core.file_writer.LightFileWriterOptions`): a convert that gives none builds
the defaults without importing pydantic; given options are validated by pydantic, with the
messages of the pydantic model they were before."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from crawlmill.core.file_writer import LightFileWriterOptions
from crawlmill.core.options import FieldCheck, option
from crawlmill.formats.warc.writer import DEFAULT_LEVELS, LEVEL_RANGES, isal_available

from .warc_sorted import SortedOptions

__all__ = ["WarcWriterOptions"]


def _level_in_range(value: int | None, info: Any) -> int | None:
    compression = info.data.get("compression", "gzip")
    if value is None:
        return value
    if compression == "none":
        raise ValueError("compression none takes no level")
    low, high = LEVEL_RANGES[compression]
    if not low <= value <= high:
        raise ValueError(f"{compression} level must be between {low} and {high}")
    return value


def _backend_installed(value: str, info: Any = None) -> str:
    if value == "isal" and not isal_available():
        raise ValueError("isal is not installed (pip install isal), use auto or zlib")
    return value


_Backend = Annotated[Literal["auto", "isal", "zlib"], FieldCheck(_backend_installed)]


@dataclass(frozen=True, kw_only=True)
class WarcWriterOptions(LightFileWriterOptions):
    """Options of the ``warc`` writer."""

    writes: ClassVar[str] = "warc"
    #: the layout's options beside ``layout`` (``max_records: 1000``, ``language: German``):
    #: the form before ``layout: {name: ..., ...}``, accepted with a deprecation warning.
    flat_layout_options: ClassVar[bool] = True

    version: Literal["auto", "1.1", "1.0", "0.18"] = option(
        "auto",
        description="WARC version to write; 0.18 follows the ClueWeb09 convention (LF, Content-Length counts the trailing blank lines). auto: records read from WARC 1.0/1.1/0.17 keep their version (so copies stay byte-identical) and all others are written as 1.1.",
    )
    compression: Literal["gzip", "zstd", "none"] = option(
        "gzip",
        description="Per-record compression: one gzip member or zstd frame per record, or none.",
    )
    level: Annotated[int | None, FieldCheck(_level_in_range)] = option(
        None,
        description="Compression level: gzip 1-9 (default 6; with ISA-L, 1-3/4-6/7-9 use its levels 1/2/3), zstd 1-22 (default 3).",
    )
    gzip_backend: _Backend = option(
        "auto",
        description="gzip implementation. auto: ISA-L when installed (about 9x faster than zlib at the default level; its compressed bytes may differ between runs, the records never do). zlib: the same compressed bytes on every run, for byte-identical reruns.",
    )
    reuse_members: bool = option(
        True,
        description="gzip: copy the input's gzip member of an unmodified WARC record that was alone in its member and holds exactly the bytes written, so a copy keeps its compressed bytes too (and skips deflate); a member RFC 1952 rejects (reserved flag bits, bad CRC32...) is compressed anew.",
    )
    layout: str = option(
        "plain",
        description="Output layout: plain, clueweb09, chuweb21 (any registered layout; see `crawlmill plugins`). A name, or a mapping {name: clueweb09, language: English} with the layout's options (name_pattern, max_records, max_bytes of plain; language, segment_dirs, files_per_dir, trec_ids of clueweb09...).",
    )
    text: Literal["drop", "conversion"] = option(
        "drop",
        description="Extracted text of a record (a crawler's parse text, a segment's text data, cooked text): drop (warning text-not-written), or conversion: also write it, after its record, as a WARC conversion record of the same URL (text/plain, UTF-8, as WET files hold text); counted as added by the writer.",
    )
    cdxj: bool = option(
        False,
        description="Write a sorted CDXJ index <file>.cdxj beside each WARC (as pywb's cdxj-indexer does).",
    )
    warcinfo: Literal["auto", "always", "never"] = option(
        "auto",
        description="Add a crawlmill warcinfo record at the start of each file: auto = only when converting from a non-WARC format.",
    )
    digests: Literal["keep", "recompute", "none"] = option(
        "keep",
        description="keep: copy digests of unchanged WARC records untouched (never add any), recompute them for changed records, sha1 for built records; recompute: check and fix every digest; none: write no new digests.",
    )
    sorted: SortedOptions | None = option(
        None,
        description="Write the collection ordered by SURT key (then capture time), from all inputs, in N partition files: {key: surt, partitions: N, partitioning: hash|range}. Unset: one output per input, in input order.",
    )

    def check(self) -> None:
        if self.sorted is not None and self.layout != "plain":
            raise ValueError(
                f"sorted writes part-NNNNN files in the plain layout, not the {self.layout} layout"
            )

    @property
    def effective_level(self) -> int:
        """The level in use (the compression's default when none was given)."""
        return DEFAULT_LEVELS[self.compression] if self.level is None else self.level
