"""Base classes a reader, writer or filter plugin implements, and what the engine hands them.

A component is a class with a ``name``, a docstring (its first line is shown by
``crawlmill plugins``) and a typed ``Options`` model. The engine builds one instance per task
from validated options; components never see the pipeline, the registry or other tasks.

* :class:`Reader`: ``read(ctx)`` yields :class:`~crawlmill.core.record.Record` objects from one
  input file and reports damaged byte ranges through ``ctx.report_damage`` (then resyncs).
* :class:`Filter`: ``apply(record)`` returns the record (possibly changed with
  ``record.evolve``) to keep it, or :class:`Drop` with a reason.
* :class:`Writer`: ``open(ctx)``, ``write(record)`` per record, ``close()``; creates its files
  only through ``ctx.create(relpath)`` so they are atomic and inside the output root.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, ClassVar, NamedTuple

from pydantic import BaseModel, ConfigDict

from .problems import Damage, Notice, notice_from_call
from .record import Record

__all__ = [
    "Check",
    "Damage",
    "Drop",
    "Filter",
    "InputFile",
    "Layout",
    "Limits",
    "Notice",
    "PluginOptions",
    "ReadContext",
    "Reader",
    "WriteContext",
    "Writer",
]


class PluginOptions(BaseModel):
    """Base of every component's options model: unknown keys are errors, values are typed.

    Describe each option with ``Field(description=...)``; ``crawlmill plugins`` prints them.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds that protect a run from hostile or broken input."""

    #: largest record block (HTTP head + payload) a reader accepts; larger ones are damage.
    max_record_bytes: int = 256 * 1024 * 1024
    #: largest number of bytes one compressed stream or member may inflate to.
    max_decompressed_bytes: int = 64 * 1024 * 1024 * 1024
    #: largest header block (WARC/ARC/HTTP header lines) a reader accepts.
    max_header_bytes: int = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Check:
    """The result of a collection check a reader made: a file's md5 or record count against
    the collection's lists, a listed file that is present. Checks are reported beside the
    accounting, never counted as records; a failed one is damage-level (the run exits 3)."""

    path: str
    #: short name of what was checked: ``"md5"``, ``"record count"``, ...
    check: str
    ok: bool
    #: what was expected and found (for a failed check).
    reason: str = ""

    def __str__(self) -> str:
        verdict = "passed" if self.ok else "failed"
        return f"{self.path}: {self.check} check {verdict}" + (
            f": {self.reason}" if self.reason else ""
        )


@dataclass(frozen=True, slots=True)
class InputFile:
    """One unit of input: a file path, the name its outputs derive from, and reader hints.

    ``relpath`` is the path relative to the input root it was found under (used to name
    outputs, never to escape the output root); ``index`` is its position in the sorted list of
    all inputs of the run; ``meta`` carries what a reader's ``discover`` learned (expected
    record count, md5) for ``read`` to check; ``stem`` is the relpath without its compression
    and format suffixes, distinct among the run's inputs (:mod:`crawlmill.core.naming`), the
    name writers derive output names from (empty when the input was not planned: use
    :func:`crawlmill.core.naming.stem_of`).
    """

    path: str
    relpath: str
    index: int = 0
    meta: dict[str, Any] = field(default_factory=dict)
    stem: str = ""


@dataclass(slots=True)
class ReadContext:
    """What a reader gets for one input file."""

    input: InputFile
    report_damage: Callable[[Damage], None]
    limits: Limits = field(default_factory=Limits)
    #: where the reader's warnings go, as :class:`Notice` objects (plugins call
    #: :meth:`report_warning`).
    on_warning: Callable[[Notice], None] = lambda notice: None
    #: ``report_check(Check(...))``: a collection check's result (not a record).
    report_check: Callable[[Check], None] = lambda check: None

    @property
    def path(self) -> str:
        """The input file's path."""
        return self.input.path

    def report_warning(self, *args: Any, **kwargs: Any) -> None:
        """Report a repaired quirk (not damage): ``report_warning(code, message, offset=None)``
        with a code of ``docs/problems.md`` (or the plugin's own kebab-case code); counted per
        code. The form before codes, ``report_warning(offset, message)``, still works: the
        code is derived from the message (:func:`crawlmill.core.problems.derive_code`)."""
        self.on_warning(notice_from_call(self.input.path, args, kwargs, reader=True))


class Drop(NamedTuple):
    """A filter's verdict that a record is dropped, with a short reason (a counter name)."""

    reason: str


@dataclass(slots=True)
class WriteContext:
    """What a writer gets for one task.

    ``create(relpath)`` opens a new output file below the output root; it is written under a
    temporary name and renamed into place only when the whole task succeeds. ``relpath`` must
    be relative and must not climb out of the root (``..``); the engine refuses it otherwise.
    ``quarantine(record, reason)`` hands back a record the writer cannot represent.
    """

    input: InputFile
    input_count: int
    create: Callable[[str], BinaryIO]
    quarantine: Callable[[Record, str], None]
    #: free-form facts about the task's outputs that ``Writer.finalize`` receives (counts...).
    notes: dict[str, Any] = field(default_factory=dict)
    #: where the writer's warnings go, as :class:`Notice` objects (plugins call
    #: :meth:`report_warning`).
    on_warning: Callable[[Notice], None] = lambda notice: None
    #: records the writer added that no input held (a generated warcinfo or filedesc): the
    #: writer adds 1 per such record, so the run's ``written`` equals the records in its files.
    added_records: int = 0

    def report_warning(self, *args: Any, **kwargs: Any) -> None:
        """Report a repair the writer made or a field it could not write:
        ``report_warning(code, message)`` with a code of ``docs/problems.md`` (or the
        plugin's own kebab-case code); counted per code in the run report. The form before
        codes, ``report_warning(message)``, still works (the code is derived from the
        message)."""
        self.on_warning(notice_from_call(self.input.path, args, kwargs, reader=False))


class _Component:
    """Shared shape of readers, writers and filters."""

    #: the name users write in configs and on the command line.
    name: ClassVar[str] = ""
    #: the typed options model; instances receive a validated ``options``.
    Options: ClassVar[type[PluginOptions]] = PluginOptions

    def __init__(self, options: PluginOptions | None = None) -> None:
        self.options = options if options is not None else self.Options()


class Reader(_Component, ABC):
    """Reads one input format into records."""

    #: the name endings of this reader's format, with their dot and without a compression
    #: suffix (``(".warc",)``). The one suffix list of the format: a file named ``x.warc`` or
    #: ``x.warc.gz`` (any suffix of :data:`crawlmill.formats.compression.COMPRESSION_SUFFIXES`
    #: after it) is named like this reader (named, undetected files are reported as damaged
    #: starts), and output stems drop these suffixes (:mod:`crawlmill.core.naming`).
    file_suffixes: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float | None:
        """How sure this reader is that the input ``path`` is its format: a confidence from
        0.0 (surely not) to 1.0, or ``None`` (no opinion, the same as 0.0).

        The registry calls it for every input the user did not give a reader for and ranks
        all readers' answers together with the ``crawlmill_detect_format`` hook's
        (:meth:`crawlmill.core.registry.Registry.detect`); the best reader reads the file. Use
        about 0.9 for a format's signature at the start, 0.5-0.7 for a plausible start or a
        signature found past damaged first bytes, lower for the name alone. ``head`` is up
        to 64 KiB of the file's first bytes, decompressed when the file is gzip, zstd or LZ4
        (:func:`crawlmill.formats.compression.read_head`); empty for a
        directory. ``sniff`` may open ``path`` itself for a bounded look (a damaged start);
        it must not raise for bytes that are not its format."""
        return None

    @classmethod
    def discover(cls, path: str, options: PluginOptions) -> list[InputFile] | None:
        """Expand a directory input this reader understands as one collection (for example a
        ClueWeb09 segment tree), or return ``None`` to let the engine list files itself."""
        return None

    @abstractmethod
    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """Yield every good record of ``ctx.input``; report damage and resync, never stop
        silently."""


class Filter(_Component, ABC):
    """Keeps, changes or drops records one at a time."""

    @abstractmethod
    def apply(self, record: Record) -> Record | Drop:
        """Return the record to keep (changed through ``record.evolve`` if need be) or
        :class:`Drop`."""


class Writer(_Component, ABC):
    """Writes records in one output format and layout."""

    @abstractmethod
    def open(self, ctx: WriteContext) -> None:
        """Start a task: remember ``ctx``; create files lazily or now."""

    @abstractmethod
    def write(self, record: Record) -> None:
        """Write one record (call ``ctx.quarantine`` for one that cannot be written)."""

    @abstractmethod
    def close(self) -> None:
        """Finish the task's files (flush, close). The engine then commits them."""

    @classmethod
    def planned_outputs(
        cls, options: PluginOptions, inputs: list[InputFile]
    ) -> list[list[str]] | None:
        """The paths (relative to the output root) each of ``inputs`` (all inputs of the run,
        in order) will be written to, as far as known before reading (the first file of a
        rollover series), or ``None`` when the writer cannot tell. The engine refuses, before
        anything is written, a run in which two inputs would write one path, an output would
        replace an input, or an output would replace a file crawlmill did not write."""
        return None

    @classmethod
    def finalize(
        cls,
        root: str,
        options: PluginOptions,
        tasks: list[dict[str, Any]],
        create: Callable[[str], BinaryIO],
    ) -> None:
        """Run once after all tasks of a run (also when they were resumed), to write
        collection-wide files such as md5 or record-count lists. ``tasks`` holds, per
        completed input in input order, ``{"input": relpath, "index": i, "outputs":
        [{"path", "size", "md5", ...}], "notes": {...}}``. Files go through ``create``."""
        return None


def _no_files(relpath: str) -> BinaryIO:
    raise RuntimeError("a layout asked to plan its names created a file")


def _no_records(record: Record, reason: str) -> None:
    raise RuntimeError("a layout asked to plan its names quarantined a record")


class Layout:
    """Where a file writer's records go: file names, rollover, doc ids, collection side files.

    A layout is a registered component (hook ``crawlmill_register_layouts``) with a ``name``,
    a docstring and an ``Options`` model; a writer's ``layout`` option picks one by name, as
    ``layout: clueweb09`` or ``layout: {name: clueweb09, language: English}``. ``options`` is
    the writer's validated options model; ``settings`` is this layout's own validated
    ``Options`` (the writer fills it from the mapping form, or from its own options of the
    same names). ``extension`` is the file suffix the writer encodes (``.warc.gz``...)."""

    name: ClassVar[str] = ""
    Options: ClassVar[type[PluginOptions]] = PluginOptions

    def __init__(self, options: Any, ctx: WriteContext, extension: str) -> None:
        self.options = options
        self.settings: PluginOptions = getattr(options, "layout_settings", None) or self.Options()
        self.ctx = ctx
        self.extension = extension
        self.files_started = 0

    def next_path(self) -> str:
        """Relative path (below the output root) of the task's next output file."""
        raise NotImplementedError

    def should_roll(self, records_in_file: int, bytes_in_file: int) -> bool:
        """True when the current file is full and the next record starts a new file."""
        return False

    def doc_id(self, record: Record, record_number: int) -> str | None:
        """The document id to write for ``record`` (``record_number``: 0-based among the
        file's non-warcinfo records), or ``None`` to keep ``record.doc_id``."""
        return None

    @classmethod
    def planned_paths(
        cls, options: Any, inputs: list[InputFile], extension: str
    ) -> list[list[str]] | None:
        """The first output path of each input, known before reading (see
        ``Writer.planned_outputs``): the layout's own :meth:`next_path` for a context that
        creates nothing. ``None`` when a layout cannot name a file before it has records."""
        from .errors import ConfigError

        planned = []
        for inp in inputs:
            ctx = WriteContext(
                input=inp, input_count=len(inputs), create=_no_files, quarantine=_no_records
            )
            try:
                planned.append([cls(options, ctx, extension).next_path()])
            except ConfigError:
                raise
            except Exception:
                return None
        return planned

    @classmethod
    def finalize(
        cls,
        root: str,
        options: Any,
        tasks: list[dict[str, Any]],
        create: Callable[[str], BinaryIO],
    ) -> None:
        """Write collection-wide side files once per run; see ``Writer.finalize``."""
        return None
