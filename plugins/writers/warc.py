"""The ``warc`` writer: WARC 1.1 / 1.0 / 0.18, gzip or zstd per record, in a chosen layout.

How a record becomes WARC bytes (first rule that applies):

The target version is the ``version`` option; with ``auto`` (the default), records read from
WARC 1.0 or 1.1 keep their own version (so ``convert x.warc.gz --to warc`` changes nothing) and
every other record is written as 1.1.

1. **Verbatim copy.** A record read from WARC (``extras["warc"]`` with ``raw_header``) that
   is unmodified, has the target version and framing, a ``Content-Length`` that matches its
   block, and needs no new header (doc id, digest) is written as ``raw_header + block +
   separator``: byte for byte what the input held. Digests are neither added nor changed
   (warcio #161/#162). In gzip output, when the record was alone in its input gzip member
   and that member inflates to exactly these bytes and passes the RFC 1952 check
   (:mod:`crawlmill.formats.gzip_member`: no reserved flag bits, right CRC32 and ISIZE...),
   the member itself is copied (``reuse_members``), so a WARC -> WARC copy keeps its
   compressed bytes too; a member the standard rejects is never copied.
2. **Rebuilt WARC record.** Otherwise a WARC-read record keeps its original headers in
   order; only the version line, ``Content-Length`` (recomputed, always last), line endings
   and what the target version requires change (bare UUID record ids get ``<urn:uuid:...>``
   in 1.x; header values with line breaks are joined with spaces). Fields the record changed
   (type, URL, date, doc id, IP, and the content type of a record without HTTP head) replace
   their header values. Invalid dates are kept as written and counted as warnings; a record
   without ``WARC-Date`` gets the conversion time. Digests follow the ``digests`` option
   (below).
3. **Built record** (from every other format): ``WARC-Type``, a deterministic
   ``WARC-Record-ID`` (uuid5 of the source identity), ``WARC-Warcinfo-ID`` of the file's
   warcinfo, ``WARC-Target-URI``, ``WARC-Date`` (the capture date, the raw date string
   when it cannot be parsed, or the conversion time when there is none), ``WARC-IP-Address`` only when the source recorded one,
   ``WARC-Truncated: length`` when the reader says the source record was cut
   (``extras["neutral"]["truncated"]``), ``WARC-TREC-ID`` when there is a doc id, digests, ``Content-Type``
   (``application/http;msgtype=...`` with an HTTP head, else the record's own type: no HTTP
   headers are invented) and ``Content-Length``.

Where each neutral field of a :class:`~crawlmill.core.record.Record` goes (a changed field is
always written; nothing is lost silently): ``kind`` -> ``WARC-Type``, ``url`` ->
``WARC-Target-URI``, ``date`` -> ``WARC-Date``, ``ip`` -> ``WARC-IP-Address``, ``doc_id`` ->
``WARC-TREC-ID``, ``http_head + payload`` -> the block. ``content_type`` and ``charset`` name the
*payload's* media type: for a record with an HTTP head (response, request, revisit) the WARC
``Content-Type`` names the HTTP message (``application/http;msgtype=...``), so a changed
``content_type`` is written into the head's ``Content-Type`` line (the block changes and its
digests are recomputed); for a record without one (resource, metadata, conversion...) it is the
WARC ``Content-Type``. ``text`` (other than a conversion record's own payload) and ``outlinks``
have no place in a WARC record of this writer: they are refused with a warning (``extracted text
not written: ...``, ``outlinks not written: ...``). A record without any date is written with
the conversion time as ``WARC-Date`` (mandatory in every WARC version) and the warning ``record
without a capture date: WARC-Date is the conversion time``.

Input from another format follows the IIPC implementation guidelines (Rec. 12-14): a
crawlmill ``warcinfo`` first (software, source file and format, conversion date from
``SOURCE_DATE_EPOCH`` or now). This writer encodes neutral records only and knows no source
format: its reader maps a format's own file description at parse time. A ``warcinfo`` record
whose reader set ``extras["neutral"]["as_metadata"]`` (``content_type``, ``block_prefix``,
``role``) is written as a ``metadata`` record concurrent to the file's warcinfo, dated like
the record, whose block is ``block_prefix`` + payload and whose ``Content-Type`` is the given
one (see ``docs/architecture.md`` for where each format is mapped).

Digests (``digests`` option); new ones are SHA-1 base32, recomputed ones keep the algorithm and
encoding (base32/base16) they had, and one that still matches keeps its exact spelling:

* ``keep`` (default): unmodified WARC records keep their digest headers untouched and get none
  added (warcio #161/#162); a changed WARC record's digests are checked and recomputed where
  they no longer match, and it gets a block digest (plus a payload digest with an HTTP
  payload) if it had none; built records get a block digest and, when they have an HTTP
  payload, a payload digest (WARC 1.1 section 5.9).
* ``recompute``: as for changed records, for every record: wrong digests are replaced and
  missing ones added.
* ``none``: nothing is computed for new records; a changed record's digests that no longer
  match are removed.

In 0.18 output, where ``Content-Length`` counts the trailing ``\n\n``, new digests cover that
``\n\n`` too, so a reader of the convention (FastWARC quirks mode, ir_datasets) that digests the
``Content-Length`` bytes verifies them.
A revisit's payload digest names the original capture's payload and is never recomputed; a
digest in an algorithm crawlmill does not know is kept unchecked (and counted). Payload digests
cover the payload as stored (not de-chunked), as ``warcio check`` and Heritrix do.

Threading: records are digested (built records), serialised and compressed in batches on two
pool threads while the caller reads the next records, then written on the caller's thread in
the order :meth:`WarcWriter.write` received them
(:class:`~crawlmill.formats.warcwriter.WarcFileWriter` with ``background``). Each record's
bytes depend on that record alone, so the file is byte-identical to a one-thread run (with
``gzip_backend: zlib``; ISA-L, the default when installed, may deflate a record differently
from one run to the next, though the record is the same); CDXJ
lines and warnings are made on the caller's thread. An error surfaces on a later ``write`` or
on ``close``.

Per-file facts go to ``ctx.notes["files"]`` (``path``, ``records`` (all records written),
``documents`` (input records that are not warcinfo), ``warcinfo``
(whether crawlmill added one), ``bytes``, ``copied_members``, ``cdxj``) and
repaired quirks are reported through ``ctx.report_warning`` (and counted in
``ctx.notes["warnings"]``).
"""

from __future__ import annotations

import os
import posixpath
import uuid
from datetime import UTC, datetime
from functools import partial
from typing import Any, BinaryIO, Literal

from crawlmill.core import (
    ConfigError,
    InputFile,
    Record,
    RecordKind,
    WriteContext,
    Writer,
    hookimpl,
)
from crawlmill.core.plugin import Layout, PluginOptions
from crawlmill.formats import cdxj as cdxj_format
from crawlmill.formats.compression import MemberSource
from crawlmill.formats.digest import DeferredSha1, digest_matches, recompute_like, sha1_base32
from crawlmill.formats.http import content_type_value, with_content_type
from crawlmill.formats.warc_fields import BARE_UUID, ID_FIELDS, valid_warc_date
from crawlmill.formats.warcwriter import (
    DEFAULT_LEVELS,
    LEVEL_RANGES,
    Framing,
    PendingRecord,
    ReusedMember,
    WarcFileWriter,
    clean_header_value,
    extension_for,
    format_warc_date,
    framing_for,
    isal_available,
    serialize_record,
    uuid5_urn,
    warc_fields,
)
from pydantic import (
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .layouts import find_layout

__all__ = ["WarcWriter", "WarcWriterOptions"]

#: namespace of crawlmill's deterministic record ids (uuid5).
RECORD_ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://crawlmill.invalid/warc-record-id")

_CONFORMS_TO = {
    "1.1": (
        "WARC File Format 1.1",
        "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
    ),
    "1.0": (
        "WARC File Format 1.0",
        "http://bibnum.bnf.fr/WARC/WARC_ISO_28500_version1_latestdraft.pdf",
    ),
    "0.18": ("WARC File Format 0.18", "http://www.archive.org/documents/WarcFileFormat-0.18.html"),
}
_KINDS = frozenset(kind.value for kind in RecordKind)
#: record fields whose change makes the ``digests`` policy treat a record as changed: its
#: block, and its identity (type, URL, date), which makes it a new record that gets the digests
#: new records get. A changed doc id, IP or WARC Content-Type leaves the block and its digest
#: headers as they were.
_DIGEST_FIELDS = frozenset({"http_head", "payload", "kind", "url", "date", "date_raw"})


def _tail(framing: Framing) -> bytes:
    """What a version's ``Content-Length`` counts after the block (``\n\n`` in 0.18), which
    readers of that convention therefore digest with it."""
    return framing.separator if framing.cl_includes_separator else b""


def _block_parts(record: Record) -> tuple[bytes, bytes]:
    """The record's block as immutable parts ``(HTTP head, payload)``: they are digested and
    written later, on a writer thread, and joined only once, into the record (``bytes(x)`` of
    a ``bytes`` object is that object: no copy)."""
    return bytes(record.http_head or b""), bytes(record.payload)


def _digests_changed(record: Record) -> bool:
    """Whether the ``digests`` policy handles the record as changed: a field of
    ``_DIGEST_FIELDS`` changed, or it is modified without :meth:`Record.evolve` saying what
    (a record its reader repaired)."""
    return record.modified and (not record.changed or bool(record.changed & _DIGEST_FIELDS))


def _neutral(record: Record) -> dict[str, Any]:
    """What the reader mapped at parse time beyond the neutral fields (``extras["neutral"]``:
    ``truncated``, ``as_metadata``; documented in :mod:`crawlmill.core.record`)."""
    neutral = record.extras.get("neutral")
    return neutral if isinstance(neutral, dict) else {}


def _real_ip(ip: str | None) -> bytes | None:
    """The ``WARC-IP-Address`` value of a record's IP, or ``None`` for none or a placeholder."""
    if not ip or ip in ("0.0.0.0", "-"):
        return None
    return ip.encode("ascii", "replace")


class WarcWriterOptions(PluginOptions):
    """Options of the ``warc`` writer."""

    version: Literal["auto", "1.1", "1.0", "0.18"] = Field(
        "auto",
        description="WARC version to write; 0.18 follows the ClueWeb09 convention (LF, Content-Length counts the trailing blank lines). auto: records read from WARC 1.0/1.1 keep their version (so copies stay byte-identical) and all others are written as 1.1.",
    )
    compression: Literal["gzip", "zstd", "none"] = Field(
        "gzip",
        description="Per-record compression: one gzip member or zstd frame per record, or none.",
    )
    level: int | None = Field(
        None,
        description="Compression level: gzip 1-9 (default 6; with ISA-L, 1-3/4-6/7-9 use its levels 1/2/3), zstd 1-22 (default 3).",
    )
    gzip_backend: Literal["auto", "isal", "zlib"] = Field(
        "auto",
        description="gzip implementation. auto: ISA-L when installed (about 9x faster than zlib at the default level; its compressed bytes may differ between runs, the records never do). zlib: the same compressed bytes on every run, for byte-identical reruns.",
    )
    reuse_members: bool = Field(
        True,
        description="gzip: copy the input's gzip member of an unmodified WARC record that was alone in its member and holds exactly the bytes written, so a copy keeps its compressed bytes too (and skips deflate); a member RFC 1952 rejects (reserved flag bits, bad CRC32...) is compressed anew.",
    )
    layout: str = Field(
        "plain",
        description="Output layout: plain, clueweb09, chuweb21 (any registered layout; see `crawlmill plugins`). A name, or a mapping {name: clueweb09, language: English} with the layout's options.",
    )
    layout_options: dict[str, Any] = Field(
        default_factory=dict,
        description="The layout's own options that are not writer options (set by the mapping form of layout).",
    )
    name_pattern: str | None = Field(
        None,
        description="Plain layout file names; placeholders {dir} {stem} {seq} {index} {ext}. Default: one file per input named after it ({dir}{stem}{ext}), or {dir}{stem}-{seq:05d}{ext} with rollover.",
    )
    max_records: int | None = Field(
        None, ge=1, description="Start a new file after this many records."
    )
    max_bytes: int | None = Field(
        None, ge=1, description="Start a new file once a file reaches this many (compressed) bytes."
    )
    language: str = Field(
        "English", description="ClueWeb09 layout: collection language (ClueWeb09_<Language>_<N>)."
    )
    segment_dirs: int | None = Field(
        None,
        ge=1,
        description="ClueWeb09 layout: directories per segment (None: the layout's default).",
    )
    files_per_dir: int = Field(100, ge=1, description="ClueWeb09 layout: files per directory.")
    trec_ids: Literal["keep", "assign"] = Field(
        "keep",
        description="ClueWeb09 layout: keep: an input named like a ClueWeb09 file (<dir>/<NN>.warc.gz) keeps its place and its records' WARC-TREC-IDs (the qrels keys) when they name that file; ids that do not fit are replaced and the run report says so. assign: number every file's records anew.",
    )
    cdxj: bool = Field(
        False,
        description="Write a sorted CDXJ index <file>.cdxj beside each WARC (as pywb's cdxj-indexer does).",
    )
    warcinfo: Literal["auto", "always", "never"] = Field(
        "auto",
        description="Add a crawlmill warcinfo record at the start of each file: auto = only when converting from a non-WARC format.",
    )
    digests: Literal["keep", "recompute", "none"] = Field(
        "keep",
        description="keep: copy digests of unchanged WARC records untouched (never add any), recompute them for changed records, sha1 for built records; recompute: check and fix every digest; none: write no new digests.",
    )

    _layout_cls: Any = PrivateAttr(None)
    _layout_settings: Any = PrivateAttr(None)

    @model_validator(mode="before")
    @classmethod
    def _layout_mapping(cls, data: Any, info: ValidationInfo) -> Any:
        """``layout: {name: ..., <option>: ...}``: the layout's options, checked by its
        ``Options`` model; those the writer also has become the writer's (so the flat form
        ``layout: clueweb09, language: ...`` means the same), the others ``layout_options``."""
        if not isinstance(data, dict) or not isinstance(data.get("layout"), dict):
            return data
        data = dict(data)
        given = dict(data["layout"])
        name = given.pop("name", None)
        if not isinstance(name, str) or not name:
            raise ValueError("layout: a mapping needs name: the layout's name")
        layout = find_layout(name, (info.context or {}).get("registry"))
        if layout is None:
            data["layout"] = name  # the layout field says it is unknown
            return data
        try:
            checked = layout.Options.model_validate(given)
        except ValidationError as exc:
            raise ValueError(
                f"layout {name!r}: "
                + "; ".join(
                    f"{'.'.join(str(p) for p in e['loc'])}: "
                    + ("unknown option" if e["type"] == "extra_forbidden" else e["msg"])
                    for e in exc.errors()
                )
            ) from None
        own = dict(data.get("layout_options") or {})
        for key in given:
            value = getattr(checked, key)
            if key in cls.model_fields and key not in ("layout", "layout_options"):
                if key in data and data[key] != value:
                    raise ValueError(f"layout {name!r}: {key} given twice, in layout and beside it")
                data[key] = value
            else:
                own[key] = given[key]
        data["layout"], data["layout_options"] = name, own
        return data

    @field_validator("layout")
    @classmethod
    def _known_layout(cls, value: str, info: ValidationInfo) -> str:
        if find_layout(value, (info.context or {}).get("registry")) is None:
            raise ValueError(f"unknown layout {value!r}; see `crawlmill plugins` for the layouts")
        return value

    @model_validator(mode="after")
    def _layout_settings_of(self, info: ValidationInfo) -> WarcWriterOptions:
        """Resolve the layout and validate its own options: ``layout_options`` plus the
        writer options its ``Options`` model shares with the writer's."""
        layout = find_layout(self.layout, (info.context or {}).get("registry"))
        assert layout is not None  # checked by _known_layout
        shared = {
            key: getattr(self, key)
            for key in layout.Options.model_fields
            if key in type(self).model_fields and key not in self.layout_options
        }
        try:
            settings = layout.Options.model_validate({**shared, **self.layout_options})
        except ValidationError as exc:
            raise ValueError(f"layout {self.layout!r}: {exc.errors()[0]['msg']}") from None
        self._layout_cls, self._layout_settings = layout, settings
        return self

    @property
    def layout_class(self) -> type[Layout]:
        """The layout class the ``layout`` option names (looked up again for options built
        without validation, ``model_construct``); :class:`ConfigError` when none has it."""
        layout = self._layout_cls or find_layout(self.layout)
        if layout is None:
            raise ConfigError([("writer.layout", f"unknown layout {self.layout!r}")])
        return layout

    @property
    def layout_settings(self) -> PluginOptions:
        """The layout's own validated ``Options``."""
        return self._layout_settings

    @field_validator("level")
    @classmethod
    def _level_in_range(cls, value: int | None, info: ValidationInfo) -> int | None:
        compression = info.data.get("compression", "gzip")
        if value is None:
            return value
        if compression == "none":
            raise ValueError("compression none takes no level")
        low, high = LEVEL_RANGES[compression]
        if not low <= value <= high:
            raise ValueError(f"{compression} level must be between {low} and {high}")
        return value

    @field_validator("gzip_backend")
    @classmethod
    def _backend_installed(cls, value: str) -> str:
        if value == "isal" and not isal_available():
            raise ValueError("isal is not installed (pip install isal), use auto or zlib")
        return value

    @field_validator("name_pattern")
    @classmethod
    def _pattern_placeholders(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                value.format(dir="", stem="x", seq=0, index=0, ext=".warc.gz")
            except (KeyError, IndexError, ValueError) as exc:
                raise ValueError(
                    f"bad placeholder ({exc}); use {{dir}} {{stem}} {{seq}} {{index}} {{ext}}"
                ) from exc
        return value

    @model_validator(mode="after")
    def _rollover_needs_seq(self) -> WarcWriterOptions:
        rolls = self.max_records or self.max_bytes
        if rolls and self.name_pattern is not None and "{seq" not in self.name_pattern:
            raise ValueError(
                "name_pattern: rollover (max_records/max_bytes) needs {seq} in the pattern"
            )
        return self

    @property
    def effective_level(self) -> int:
        """The level in use (the compression's default when none was given)."""
        return DEFAULT_LEVELS[self.compression] if self.level is None else self.level


def _conversion_date() -> datetime:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        return datetime.fromtimestamp(int(epoch), UTC)
    return datetime.now(UTC).replace(microsecond=0)


def _software() -> str:
    from crawlmill.core import __version__

    return f"crawlmill/{__version__}"


def _as_bytes(value: Any) -> bytes | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8", "surrogateescape")


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    want = name.lower()
    for key, value in headers:
        if key.lower() == want:
            return value
    return None


class _File:
    """One open output file and what the writer tracks for it."""

    def __init__(self, path: str, stream: BinaryIO, writer: WarcFileWriter) -> None:
        self.path = path
        self.stream = stream
        self.writer = writer
        self.records = 0  # input records written (what rollover counts)
        self.documents = 0  # records that are not warcinfo
        self.warcinfo_id: bytes | None = None
        self.cdxj_lines: list[str] = []


class WarcWriter(Writer):
    """Write WARC 1.1/1.0/0.18, gzip or zstd per record; exact copies, other formats per IIPC.

    Unchanged WARC records are copied byte for byte; other records get deterministic headers
    and SHA-1 digests (see the module docstring for every rule)."""

    name = "warc"
    Options = WarcWriterOptions

    @classmethod
    def planned_outputs(cls, options: Any, inputs: list[InputFile]) -> list[list[str]] | None:
        """The first file of each input as its layout names it (and its ``.cdxj`` index)."""
        layout = options.layout_class
        planned = layout.planned_paths(options, inputs, extension_for(options.compression))
        if planned is None or not options.cdxj:
            return planned
        return [paths + [p + ".cdxj" for p in paths] for paths in planned]

    # -- task lifecycle --------------------------------------------------------------------

    def open(self, ctx: WriteContext) -> None:
        """Start a task; the first file is created with the first record."""
        opts: WarcWriterOptions = self.options  # type: ignore[assignment]
        self.ctx = ctx
        self.framing = framing_for("1.1" if opts.version == "auto" else opts.version)
        #: whether the user chose the version; if not, WARC 1.0/1.1 records keep theirs.
        self.version_explicit = opts.version != "auto"
        self.layout = opts.layout_class(opts, ctx, extension_for(opts.compression))
        self.file: _File | None = None
        self.add_warcinfo: bool | None = {"always": True, "never": False}.get(opts.warcinfo)
        self.ordinal = 0
        self.conversion_date = _conversion_date()
        ctx.notes.setdefault("files", [])
        ctx.notes.setdefault("warnings", {})
        self._source_format: str | None = None
        self._inner_paths: dict[str, str] = {}
        #: input files open for copying gzip members.
        self._sources = MemberSource()
        self.reuse_members = opts.reuse_members and opts.compression == "gzip"

    def write(self, record: Record) -> None:
        """Encode one record into the current file (starting or rolling files as needed)."""
        if self.add_warcinfo is None:
            self.add_warcinfo = "warc" not in record.extras
        if self.file is not None and self._should_roll(self.file):
            self._finish_file()
        if self.file is None:
            self._source_format = self._source_format or self._format_of(record)
            self._start_file()
        assert self.file is not None
        pending, facts = self._encode(record)
        if isinstance(pending, bytes) and self.reuse_members:
            member = self._input_member(record, len(pending))
            if member is not None:
                pending = ReusedMember(member, pending)
        on_written = partial(self._index, self.file, facts) if self.options.cdxj else None
        self.file.writer.submit(pending, on_written)
        self.file.records += 1
        if record.kind != RecordKind.WARCINFO:
            self.file.documents += 1
        self.ordinal += 1

    def close(self) -> None:
        """Finish the open file (and its CDXJ index)."""
        try:
            if getattr(self, "file", None) is not None:
                self._finish_file()
        finally:
            if getattr(self, "_sources", None) is not None:
                self._sources.close()

    def _input_member(self, record: Record, size: int) -> bytes | None:
        """The input gzip member of an unmodified WARC record that was alone in it, or
        ``None``; whether it holds exactly the bytes to write is checked on the writer's
        threads (:class:`~crawlmill.formats.warcwriter.ReusedMember`)."""
        src = record.source
        warc = record.extras.get("warc")
        if (
            record.modified
            or not isinstance(warc, dict)
            or warc.get("member") is not True
            or src is None
            or src.format != "warc"
            or src.offset is None
            or not src.length
            or src.length > 2 * size + 1024  # more than a member of this record can be
        ):
            return None
        return self._sources.read(src.path, src.offset, src.length)

    @classmethod
    def finalize(
        cls, root: str, options: PluginOptions, tasks: list[dict[str, Any]], create: Any
    ) -> None:
        """Delegate collection-wide side files to the layout's ``finalize``."""
        options.layout_class.finalize(root, options, tasks, create)  # type: ignore[attr-defined]

    # -- files -----------------------------------------------------------------------------

    def _should_roll(self, file: _File) -> bool:
        """Ask the layout whether ``file`` is full. Submitted records are written in batches,
        so the file's byte size is exact only after a flush: flush first when the layout may
        look at it (``max_bytes``, or a layout from outside this package)."""
        layout_module = type(self.layout).__module__
        if self.options.max_bytes is not None or not layout_module.startswith(__package__ + "."):
            file.writer.flush()
        return self.layout.should_roll(file.records, file.writer.position)

    def _start_file(self) -> None:
        path = self.layout.next_path()
        stream = self.ctx.create(path)
        writer = WarcFileWriter(
            stream,
            self.options.compression,
            self.options.effective_level,
            background=True,
            backend=self.options.gzip_backend,
        )
        self.file = _File(path, stream, writer)
        if self.add_warcinfo:
            data, facts = self._warcinfo_record(path)
            on_written = partial(self._index, self.file, facts) if self.options.cdxj else None
            writer.submit(data, on_written)
            self.ctx.added_records += 1  # no input held it: counted so `written` is exact

    def _finish_file(self) -> None:
        f = self.file
        assert f is not None
        try:
            f.writer.close()  # every submitted record is in the file (or its error raised)
        finally:
            f.stream.close()
        entry: dict[str, Any] = {
            "path": f.path,
            "records": f.writer.records,
            "documents": f.documents,
            "warcinfo": f.warcinfo_id is not None,
            "bytes": f.writer.position,
            "copied_members": f.writer.reused,
        }
        if self.options.cdxj:
            index = self.ctx.create(f.path + ".cdxj")
            index.write("".join(sorted(f.cdxj_lines)).encode("utf-8", "surrogateescape"))
            index.close()
            entry["cdxj"] = f.path + ".cdxj"
        self.ctx.notes["files"].append(entry)
        self.file = None

    def _warn(self, code: str, message: str) -> None:
        warnings = self.ctx.notes["warnings"]
        warnings[code] = warnings.get(code, 0) + 1
        self.ctx.report_warning(code, message)

    # -- record ids and dates --------------------------------------------------------------

    def _record_id(self, record: Record, role: str = "") -> bytes:
        src = record.source
        inner = ""
        if src is not None and src.path and src.path != self.ctx.input.path:
            inner = self._inner_paths.get(src.path)
            if inner is None:
                inner = self._inner_path(src.path)
                self._inner_paths[src.path] = inner
        offset = src.offset if src is not None and src.offset is not None else f"#{self.ordinal}"
        identity = "\0".join(
            [
                self.ctx.input.relpath,
                inner,
                str(offset),
                record.url or "",
                record.date_raw or "",
                role,
            ]
        )
        return uuid5_urn(RECORD_ID_NAMESPACE, identity)

    def _inner_path(self, path: str) -> str:
        """``path`` relative to the task's input (a file inside a collection directory),
        empty when it is the input itself."""
        full, root = os.path.abspath(path), os.path.abspath(self.ctx.input.path)
        if full == root:
            return ""
        if full.startswith(root + os.sep):
            return os.path.relpath(full, root).replace(os.sep, "/")
        return os.path.basename(full)  # not below the input: its name, never the cwd

    def _date_of(self, record: Record) -> bytes | None:
        if record.date is not None:
            keep_fraction = bool(record.date.microsecond) and "." in (record.date_raw or ".")
            return format_warc_date(record.date, self.framing.version, keep_fraction)
        if record.date_raw:
            self._warn(
                "date-kept-raw", "unparsable capture date kept as the raw string in WARC-Date"
            )
            return record.date_raw.encode("utf-8", "surrogateescape")
        # WARC-Date is mandatory: the conversion time stands in, and the report says so
        self._warn(
            "date-missing", "record without a capture date: WARC-Date is the conversion time"
        )
        return format_warc_date(self.conversion_date, self.framing.version)

    @staticmethod
    def _format_of(record: Record) -> str | None:
        if record.source is not None and record.source.format:
            return record.source.format
        # the record's format is the key of its format-specific extras
        return next((key for key in record.extras if key != "neutral"), None)

    # -- encoding --------------------------------------------------------------------------

    def _neutral_fields(self, record: Record) -> Record:
        """The record with its neutral fields placed where WARC holds them: a changed
        ``content_type``/``charset`` of a record with an HTTP head goes into that head's
        ``Content-Type`` (the WARC ``Content-Type`` of such a record names the HTTP message);
        fields a WARC record cannot hold are refused with a warning."""
        if record.text is not None and (
            "text" in record.changed or record.kind != RecordKind.CONVERSION
        ):
            self._warn(
                "text-not-written",
                "extracted text not written: WARC holds it only as a conversion record",
            )
        if record.outlinks:
            self._warn(
                "outlinks-not-written", "outlinks not written: a WARC record has no place for them"
            )
        if (
            record.http_head is not None
            and record.content_type
            and record.changed & {"content_type", "charset"}
        ):
            head = with_content_type(record.http_head, record.content_type, record.charset)
            if head != record.http_head:
                record = record.evolve(http_head=head)
        return record

    def _encode(self, record: Record) -> tuple[bytes | PendingRecord, dict[str, Any]]:
        record = self._neutral_fields(record)
        warc = record.extras.get("warc")
        doc_id = self.layout.doc_id(record, self.file.documents if self.file else 0)
        if doc_id is None:
            doc_id = record.doc_id  # also a doc id a filter set (not a content change)
        if isinstance(warc, dict) and warc.get("headers") is not None:
            framing = self.framing
            if not self.version_explicit and str(warc.get("version")) in ("1.0", "1.1"):
                framing = framing_for(str(warc["version"]))  # WARC 1.x input keeps its version
            if not record.modified and warc.get("raw_header"):
                verbatim = self._verbatim(record, warc, doc_id, framing)
                if verbatim is not None:
                    return verbatim
            return self._rebuild(record, warc, doc_id, framing)
        mapped = _neutral(record).get("as_metadata")
        if record.kind == RecordKind.WARCINFO and isinstance(mapped, dict):
            return self._info_metadata_record(record, mapped)
        return self._build(record, doc_id)

    def _facts(self, record: Record, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
        """What the CDXJ index needs to know of a written record (nothing without CDXJ)."""
        if not self.options.cdxj:
            return {}
        ctype = _header(headers, b"Content-Type")
        http_ctype = record.http_header("Content-Type") if record.http_head else None
        return {
            "type": (_header(headers, b"WARC-Type") or b"").decode("ascii", "replace"),
            "url": (_header(headers, b"WARC-Target-URI") or b"").decode("utf-8", "surrogateescape"),
            "date": (_header(headers, b"WARC-Date") or b"").decode("utf-8", "surrogateescape"),
            "content_type": ctype.decode("utf-8", "replace") if ctype is not None else None,
            "http_content_type": http_ctype.decode("latin-1") if http_ctype is not None else None,
            "status": record.http_status,
            "payload_digest": _header(headers, b"WARC-Payload-Digest"),
            "payload": record.payload,
        }

    def _verbatim(
        self, record: Record, warc: dict[str, Any], doc_id: str | None, framing: Framing
    ) -> tuple[bytes, dict[str, Any]] | None:
        """The input bytes unchanged, or ``None`` when they cannot be kept as they are."""
        raw_header = _as_bytes(warc["raw_header"]) or b""
        headers = [(_as_bytes(k) or b"", _as_bytes(v) or b"") for k, v in warc["headers"]]
        if str(warc.get("version")) != framing.version or not raw_header.startswith(
            framing.version_line
        ):
            return None
        line_ending = _as_bytes(warc.get("line_ending"))
        if line_ending is not None and line_ending != framing.line_ending:
            return None
        if bool(warc.get("cl_includes_separator", False)) != framing.cl_includes_separator:
            return None
        separator = _as_bytes(warc.get("separator"))
        if (
            not framing.cl_includes_separator
            and separator is not None
            and separator != framing.separator
        ):
            return None
        eol = framing.line_ending
        if raw_header.find(eol + eol) != len(raw_header) - 2 * len(eol):
            return None  # blank line inside the header, or no proper end: rebuild it
        if eol == b"\r\n" and raw_header.count(b"\n") != raw_header.count(b"\r\n"):
            return None  # mixed line endings
        block = record.block
        expected = len(block) + (len(framing.separator) if framing.cl_includes_separator else 0)
        declared = _header(headers, b"Content-Length")
        if declared is None or declared.strip() != str(expected).encode("ascii"):
            return None
        if _header(headers, b"WARC-Date") is None:
            return None  # rebuilt with the conversion time (WARC-Date is mandatory)
        if (
            doc_id is not None
            and (_header(headers, b"WARC-TREC-ID") or b"").decode("utf-8", "replace") != doc_id
        ):
            return None
        if self.options.digests == "recompute" and self._digests_need_fixing(
            record, headers, framing
        ):
            return None
        return raw_header + block + framing.separator, self._facts(record, headers)

    def _digests_need_fixing(
        self, record: Record, headers: list[tuple[bytes, bytes]], framing: Framing
    ) -> bool:
        """Whether ``digests: recompute`` must change this record's digest headers."""
        return self._fix_digests(record, headers, _tail(framing), count=False) != headers

    def _rebuild(
        self, record: Record, warc: dict[str, Any], doc_id: str | None, framing: Framing
    ) -> tuple[PendingRecord, dict[str, Any]]:
        """Original headers in order, re-framed for the target version, with changed fields
        updated and digests handled per the ``digests`` option."""
        version = framing.version
        headers: list[tuple[bytes, bytes]] = []
        for key, value in warc["headers"]:
            name, val = _as_bytes(key) or b"", _as_bytes(value) or b""
            lower = name.lower()
            if lower == b"content-length":
                continue
            if version != "0.18" and lower in ID_FIELDS and BARE_UUID.match(val.strip()):
                bare = val.strip()
                val = bare if bare.startswith(b"urn:") else b"urn:uuid:" + bare
                val = b"<" + val + b">"
                self._warn("record-id-wrapped", "bare record id wrapped as <urn:uuid:...>")
            if lower == b"warc-date" and not valid_warc_date(val.strip()):
                self._warn("invalid-date-kept", "invalid WARC-Date kept as written")
            val, cleaned = clean_header_value(val)
            if cleaned:
                self._warn(
                    "line-break-in-header",
                    "line break inside a WARC header value replaced by a space",
                )
            headers.append((name, val))
        if record.modified:
            self._update_changed_fields(record, headers)
        if warc.get("truncated") and _header(headers, b"WARC-Truncated") is None:
            # the file ended inside the block (extras["warc"]["truncated"])
            self._set(headers, b"WARC-Truncated", b"length")
        if doc_id is not None:
            self._set(headers, b"WARC-TREC-ID", doc_id.encode("utf-8", "surrogateescape"))
        elif "doc_id" in record.changed:
            self._remove(headers, b"WARC-TREC-ID")
        if _header(headers, b"WARC-Date") is None:
            self._warn(
                "date-missing", "record without a capture date: WARC-Date is the conversion time"
            )
            self._set(headers, b"WARC-Date", format_warc_date(self.conversion_date, version))
        headers = self._fix_digests(record, headers, _tail(framing))
        pending = PendingRecord(version, headers, _block_parts(record))
        return pending, self._facts(record, headers)

    def _update_changed_fields(self, record: Record, headers: list[tuple[bytes, bytes]]) -> None:
        """Write the type, URL, IP, content type (of a record without HTTP head) and date of
        a changed record where they differ from the original header values (an unchanged
        value keeps its original spelling); the doc id is written by :meth:`_rebuild`."""
        ip, old_ip = _real_ip(record.ip), _header(headers, b"WARC-IP-Address")
        if ip is not None and (old_ip is None or old_ip.strip() != ip):
            self._set(headers, b"WARC-IP-Address", ip)
        elif ip is None and old_ip is not None and "ip" in record.changed:
            self._remove(headers, b"WARC-IP-Address")
        if (
            record.http_head is None
            and record.content_type
            and record.changed & {"content_type", "charset"}
        ):
            old_ct = _header(headers, b"Content-Type")
            value = content_type_value(old_ct, record.content_type, record.charset)
            self._set(headers, b"Content-Type", value)
        wtype = _header(headers, b"WARC-Type")
        old_type = wtype.decode("ascii", "replace").strip().lower() if wtype is not None else None
        unknown_kept = old_type not in _KINDS and record.kind == RecordKind.RESOURCE
        if old_type != record.kind.value and not unknown_kept:
            self._set(headers, b"WARC-Type", record.kind.value.encode("ascii"))
        url = record.url_bytes
        old_url = _header(headers, b"WARC-Target-URI")
        if url is not None and (old_url is None or old_url.strip().strip(b"<>") != url):
            self._set(headers, b"WARC-Target-URI", url)
        old_date = _header(headers, b"WARC-Date")
        old_text = old_date.decode("utf-8", "surrogateescape") if old_date is not None else None
        if record.date_raw is not None and record.date_raw == old_text:
            return
        if record.date is not None or record.date_raw:
            new_date = self._date_of(record)
            if new_date is not None:
                self._set(headers, b"WARC-Date", new_date)

    def _fix_digests(
        self,
        record: Record,
        headers: list[tuple[bytes, bytes]],
        tail: bytes = b"",
        count: bool = True,
    ) -> list[tuple[bytes, bytes]]:
        """Digest headers per the ``digests`` option (see the module docstring). A digest that
        still matches keeps its spelling; one in an unknown algorithm is kept unchecked."""
        mode = self.options.digests
        if mode != "recompute" and not _digests_changed(record):
            return headers
        warn = self._warn if count else (lambda code, message: None)
        block = record.block + tail
        payload = record.payload + tail
        out: list[tuple[bytes, bytes]] = []
        seen_block = seen_payload = False
        for key, value in headers:
            lower = key.lower()
            if lower == b"warc-block-digest":
                seen_block, data = True, block
            elif lower == b"warc-payload-digest" and record.kind != RecordKind.REVISIT:
                # a revisit's payload digest names the original capture's payload: kept
                seen_payload, data = True, payload
            else:
                out.append((key, value))
                continue
            ok = digest_matches(value, data)
            if ok is None:
                warn("unknown-digest-algorithm", "digest in an unknown algorithm kept unchecked")
            elif not ok and mode == "none":
                warn("stale-digest-removed", "stale digest of a changed record removed")
                continue
            elif not ok:
                warn("digest-recomputed", "digest recomputed")
                value = recompute_like(value, data).encode("ascii")
            out.append((key, value))
        extra: list[tuple[bytes, bytes]] = []
        if mode != "none":
            if not seen_block:
                extra.append((b"WARC-Block-Digest", sha1_base32(block).encode("ascii")))
            if (
                not seen_payload
                and record.http_head is not None
                and record.kind != RecordKind.REVISIT
            ):
                extra.append((b"WARC-Payload-Digest", sha1_base32(payload).encode("ascii")))
        if extra:
            # before Content-Type when present, to read like a usual header block
            pos = next(
                (i for i, (k, _) in enumerate(out) if k.lower() == b"content-type"), len(out)
            )
            out[pos:pos] = extra
        return out

    @staticmethod
    def _remove(headers: list[tuple[bytes, bytes]], name: bytes) -> None:
        want = name.lower()
        headers[:] = [(k, v) for k, v in headers if k.lower() != want]

    @staticmethod
    def _set(headers: list[tuple[bytes, bytes]], name: bytes, value: bytes) -> None:
        want = name.lower()
        for i, (key, _) in enumerate(headers):
            if key.lower() == want:
                headers[i] = (key, value)
                return
        pos = next(
            (i for i, (k, _) in enumerate(headers) if k.lower() == b"content-type"), len(headers)
        )
        headers.insert(pos, (name, value))

    def _digest_headers(
        self, record: Record, parts: tuple[bytes, bytes]
    ) -> list[tuple[bytes, DeferredSha1]]:
        """SHA-1 block digest, and payload digest when there is an HTTP payload, of the block
        ``parts`` (head, payload); computed when the record is serialised (on a writer
        thread), without concatenating them."""
        if self.options.digests == "none":
            return []
        head, payload = parts
        tail = _tail(self.framing)
        out = [(b"WARC-Block-Digest", DeferredSha1(head, payload, tail))]
        if record.http_head is not None and record.kind != RecordKind.REVISIT:
            out.append((b"WARC-Payload-Digest", DeferredSha1(payload, tail)))
        return out

    def _build(self, record: Record, doc_id: str | None) -> tuple[PendingRecord, dict[str, Any]]:
        """Headers for a record that did not come from WARC."""
        headers: list[tuple[bytes, bytes | DeferredSha1]] = [
            (b"WARC-Type", record.kind.value.encode("ascii")),
            (b"WARC-Record-ID", self._record_id(record)),
        ]
        if (
            self.file is not None
            and self.file.warcinfo_id is not None
            and record.kind != RecordKind.WARCINFO
        ):
            headers.append((b"WARC-Warcinfo-ID", self.file.warcinfo_id))
        if record.url_bytes is not None:
            headers.append((b"WARC-Target-URI", record.url_bytes))
        elif record.kind not in (RecordKind.WARCINFO, RecordKind.METADATA):
            self._warn("url-missing", "record without a URL written without WARC-Target-URI")
        date = self._date_of(record)
        if date is not None:
            headers.append((b"WARC-Date", date))
        ip = _real_ip(record.ip)
        if ip is not None:
            headers.append((b"WARC-IP-Address", ip))
        if _neutral(record).get("truncated"):
            # the source record ended before its declared length (a cut file): say so
            headers.append((b"WARC-Truncated", b"length"))
        doc_id = doc_id if doc_id is not None else record.doc_id
        if doc_id is not None:
            headers.append((b"WARC-TREC-ID", doc_id.encode("utf-8", "surrogateescape")))
        parts = _block_parts(record)
        headers.extend(self._digest_headers(record, parts))
        if record.http_head is not None:
            msgtype = b"request" if record.kind == RecordKind.REQUEST else b"response"
            headers.append((b"Content-Type", b"application/http;msgtype=" + msgtype))
        elif record.content_type and "charset" in record.changed:  # a filter's charset
            value = content_type_value(None, record.content_type, record.charset)
            headers.append((b"Content-Type", value))
        elif record.content_type:  # as the source declared it (a detected charset is not added)
            headers.append((b"Content-Type", record.content_type.encode("utf-8", "replace")))
        pending = PendingRecord(self.framing.version, headers, parts)
        return pending, self._facts(record, headers)

    def _info_metadata_record(
        self, record: Record, mapped: dict[str, Any]
    ) -> tuple[bytes, dict[str, Any]]:
        """A source's file description (a ``warcinfo`` record its reader mapped with
        ``extras["neutral"]["as_metadata"]``) as a ``metadata`` record concurrent to the
        file's warcinfo: block ``block_prefix`` + payload, the given ``content_type``."""
        block = (_as_bytes(mapped.get("block_prefix")) or b"") + record.payload
        role = str(mapped.get("role") or "metadata")
        content_type = str(mapped.get("content_type") or "application/octet-stream")
        headers: list[tuple[bytes, bytes]] = [
            (b"WARC-Type", b"metadata"),
            (b"WARC-Record-ID", self._record_id(record, role)),
        ]
        if self.file is not None and self.file.warcinfo_id is not None:
            headers.append((b"WARC-Warcinfo-ID", self.file.warcinfo_id))
            headers.append((b"WARC-Concurrent-To", self.file.warcinfo_id))
        if record.url_bytes is not None:
            headers.append((b"WARC-Target-URI", record.url_bytes))
        date = self._date_of(record)
        if date is not None:
            headers.append((b"WARC-Date", date))
        if record.ip and record.ip not in ("0.0.0.0", "-"):
            headers.append((b"WARC-IP-Address", record.ip.encode("ascii", "replace")))
        if self.options.digests != "none":
            headers.append(
                (b"WARC-Block-Digest", sha1_base32(block + _tail(self.framing)).encode("ascii"))
            )
        headers.append((b"Content-Type", content_type.encode("utf-8", "replace")))
        facts = self._facts(record, headers)
        facts["payload"] = block
        return serialize_record(self.framing.version, headers, block), facts

    def _warcinfo_record(self, path: str) -> tuple[bytes, dict[str, Any]]:
        """crawlmill's warcinfo: what wrote the file, from what, when."""
        version = self.framing.version
        fmt, conforms = _CONFORMS_TO[version]
        source_name = posixpath.basename(self.ctx.input.relpath.replace("\\", "/"))
        source_format = (self._source_format or "unknown").upper()
        when = format_warc_date(self.conversion_date, version)
        fields = [
            ("software", _software()),
            ("format", fmt),
            ("conformsTo", conforms),
            ("description", f"converted from {source_format} file {source_name} by {_software()}"),
            ("source", source_name),
            ("source-format", source_format),
            ("conversion-date", when.decode("ascii")),
        ]
        block = warc_fields(fields)
        identity = "\0".join([self.ctx.input.relpath, path, "warcinfo"])
        record_id = uuid5_urn(RECORD_ID_NAMESPACE, identity)
        headers: list[tuple[bytes, bytes]] = [
            (b"WARC-Type", b"warcinfo"),
            (b"WARC-Record-ID", record_id),
            (b"WARC-Date", when),
            (b"WARC-Filename", posixpath.basename(path).encode("utf-8", "surrogateescape")),
        ]
        if self.options.digests != "none":
            headers.append(
                (b"WARC-Block-Digest", sha1_base32(block + _tail(self.framing)).encode("ascii"))
            )
        headers.append((b"Content-Type", b"application/warc-fields"))
        assert self.file is not None
        self.file.warcinfo_id = record_id
        facts = {
            "type": "warcinfo",
            "url": "",
            "date": when.decode("ascii"),
            "content_type": "application/warc-fields",
            "http_content_type": None,
            "status": None,
            "payload_digest": None,
            "payload": block,
        }
        return serialize_record(version, headers, block), facts

    # -- CDXJ ------------------------------------------------------------------------------

    @staticmethod
    def _index(file: _File, facts: dict[str, Any], offset: int, length: int) -> None:
        """Add the CDXJ line of a record written at ``offset`` (``length`` bytes) of ``file``
        (called once the record, and so its deferred digests, were serialised and written)."""
        rtype = facts["type"]
        if not cdxj_format.indexes(rtype, facts["content_type"]):
            return
        digest = facts["payload_digest"]
        if isinstance(digest, DeferredSha1):
            digest = digest.resolve()
        if digest is not None:
            digest_text: str | None = digest.decode("ascii", "replace")
        elif rtype in ("warcinfo", "revisit"):
            digest_text = None
        else:
            digest_text = sha1_base32(facts["payload"])
        status = facts["status"] if rtype in ("response", "revisit") else None
        line = cdxj_format.cdxj_line(
            url=facts["url"],
            warc_date=facts["date"],
            mime=cdxj_format.cdxj_mime(rtype, facts["content_type"], facts["http_content_type"]),
            status=status,
            digest=digest_text,
            length=length,
            offset=offset,
            filename=posixpath.basename(file.path),
        )
        file.cdxj_lines.append(line)


@hookimpl
def crawlmill_register_writers(register: Any) -> None:
    """Register the ``warc`` writer."""
    register(WarcWriter)
