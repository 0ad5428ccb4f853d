"""Base classes a reader, writer or filter plugin implements, and what the engine hands them.

A component is a class with a ``name``, a docstring (its first line is shown by
``crawlmill plugins``) and a typed ``Options`` model. The engine builds one instance per task
from validated options; components never see the pipeline or other tasks, and reach other
components only through the registry (a reader delegates with ``ctx.reader("warc")``).

* :class:`Reader`: ``read(ctx)`` yields :class:`~crawlmill.core.record.Record` objects from one
  input unit and reports damaged byte ranges through ``ctx.report_damage`` (then resyncs);
  ``discover(path, options)`` may expand a folder into units made of named parts with
  expectations the engine verifies (:mod:`crawlmill.core.collection`).
* :class:`Filter`: ``apply(record)`` returns the record (possibly changed with
  ``record.evolve``) to keep it, or :class:`Drop` with a reason; ``self.ctx`` is its
  :class:`FilterContext` for the task.
* :class:`Writer`: ``open(ctx)``, ``write(record)`` per record, ``close()``; creates its files
  only through ``ctx.create(relpath)`` so they are atomic and inside the output root.

Every context has ``count(label, n=1)``: a step's own counter (datatrove's ``stat_update``),
summed over files and workers into the run report per step, never part of the accounting.

Whole-collection steps (passes, :mod:`crawlmill.core.run.passes`): a filter or writer class that
defines ``collect_schema``, ``collect(record)`` and the classmethod ``reduce(rows, options,
ctx)`` (:func:`declares_collect`) gets a collect pass over every input before the final pass;
in the final pass its context's ``table()`` returns the reduce output and ``seq`` numbers the
records reaching it exactly as the collect pass numbered them. :class:`ReduceContext` is what
``reduce`` gets. Such a class may set ``reduce_summary``, a pair of words for the pass's
line on the terminal: what its rows are and what its table holds (``("capture(s) seen",
"duplicate(s) to drop")`` prints ``4027 capture(s) seen, 3 duplicate(s) to drop``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO, ClassVar, NamedTuple

from .collection import Check, Expectation
from .input_file import InputFile
from .options import NoOptions
from .problems import Damage, Notice
from .record import Record

if TYPE_CHECKING:
    from .input_stream import InputStream
    from .messages import CompletedInput
    from .plugin_options import PluginOptions

__all__ = [
    "Check",
    "Damage",
    "Drop",
    "Expectation",
    "Filter",
    "FilterContext",
    "InputFile",
    "LazySchema",
    "Layout",
    "Limits",
    "Notice",
    "PluginOptions",
    "ReadContext",
    "Reader",
    "ReduceContext",
    "WriteContext",
    "Writable",
    "Writer",
    "comma_list",
]


def __getattr__(name: str) -> Any:
    """:class:`PluginOptions`, made on first use (it imports pydantic: a run whose components
    declare light options, :class:`~crawlmill.core.options.LightOptions`, never needs it)."""
    if name == "PluginOptions":
        from .plugin_options import PluginOptions

        globals()[name] = PluginOptions
        return PluginOptions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds that protect a run from hostile or broken input."""

    #: largest record block (HTTP head + payload) a reader accepts; larger ones are damage.
    max_record_bytes: int = 256 * 1024 * 1024
    #: largest number of bytes one compressed stream or member may inflate to.
    max_decompressed_bytes: int = 64 * 1024 * 1024 * 1024
    #: largest header block (WARC/ARC/HTTP header lines) a reader accepts.
    max_header_bytes: int = 1024 * 1024


def _no_registry(name: str) -> type[Reader]:
    from .errors import PluginError

    raise PluginError(f"reader {name!r} is not available here: this read has no plugin registry")


def _no_outputs(relpath: str) -> str:
    raise RuntimeError(
        f"this reduce cannot write {relpath!r}: only a reduce the engine runs (whole or split) "
        "has output files"
    )


def _no_log(message: str) -> None:
    return None


def _no_count(label: str, n: int) -> None:
    return None


def _no_table() -> Any:
    return None


def _no_seq() -> int:
    return -1


def _parts(loader: Callable[[], Any]) -> list[Any]:
    parts = getattr(loader, "parts", None)
    if parts is not None:
        return parts()
    table = loader()
    return [] if table is None else [table]


def comma_list(value: Any) -> Any:
    """A list option written as ``"a,b"`` (on the command line) as the list ``["a", "b"]``;
    any other value as it is. Use it in a ``field_validator(..., mode="before")``."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class LazySchema:
    """A ``collect_schema`` built on first access by ``build()`` (pyarrow is imported only
    when a run uses the step): ``collect_schema = LazySchema(_schema)``."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self.build = build

    def __get__(self, obj: Any, owner: type) -> Any:
        return self.build()


@dataclass(slots=True)
class ReduceContext:
    """What a component's ``reduce(rows, options, ctx)`` gets (once per run, in the driver).

    ``inputs`` are all inputs of the run in order (``rows["input"]`` holds their ``index``);
    ``workdir`` is an empty folder of the pass, for scratch files the reduce may need (it is
    removed with the pass); ``count(label, n)`` adds to the pass's own counters (kept in its
    marker and shown by ``crawlmill status``). A component that declares ``reduce_by`` may be
    reduced in ``partitions`` parts when its rows do not fit the driver, or always when it
    fixes the count with ``reduce_partitions`` (:mod:`crawlmill.core.run.reduce_tasks`);
    ``partition`` is then the part in hand."""

    inputs: list[InputFile]
    workdir: str
    #: where :meth:`count` goes: ``counter(label, n)``.
    counter: Callable[[str, int], None] = _no_count
    #: the partition of the rows this call reduces (0 when the reduce is not split).
    partition: int = 0
    #: how many partitions the rows were split into (1: all rows in one call).
    partitions: int = 1
    #: where :meth:`output` goes: ``output_path(relpath) -> temp path``.
    output_path: Callable[[str], str] = _no_outputs
    #: where :meth:`log` goes: a line for the user's terminal.
    logger: Callable[[str], None] = _no_log

    def count(self, label: str, n: int = 1) -> None:
        """Add ``n`` to the pass's counter ``label``."""
        self.counter(label, n)

    def output(self, relpath: str) -> str:
        """A path to write the file that becomes ``OUT/<relpath>`` (a user-visible output of
        the reduce, such as a cluster table) when the reduce succeeds. The engine checks
        ``relpath`` at once (relative, inside the output root, not in ``.crawlmill/``),
        renames the file into place after the reduce, lists it in the pass marker and
        redoes the reduce when a rerun that runs passes finds it missing; it replaces an
        existing file only when crawlmill wrote it as a reduce output of this root, or with
        ``overwrite`` (:mod:`crawlmill.core.run.reduce_outputs`). A partition of a split reduce
        has outputs too (committed when every partition is done); its paths must differ
        from the other partitions' (name them after :attr:`partition`)."""
        return self.output_path(relpath)

    def log(self, message: str) -> None:
        """Print ``message`` on the run's terminal (a note such as a skipped extra)."""
        self.logger(message)


@dataclass(slots=True)
class ReadContext:
    """What a reader gets for one input unit."""

    input: InputFile
    report_damage: Callable[[Damage], None]
    limits: Limits = field(default_factory=Limits)
    #: where the reader's warnings go, as :class:`Notice` objects (plugins call
    #: :meth:`report_warning`).
    on_warning: Callable[[Notice], None] = lambda notice: None
    #: ``report_check(Check(...))``: a check only the reader can make (not a record); the
    #: unit's expectations are verified by the engine.
    report_check: Callable[[Check], None] = lambda check: None
    #: ``find_reader(name)``: the registered reader class called ``name`` (the engine's
    #: registry); use :meth:`reader`.
    find_reader: Callable[[str], type[Reader]] = _no_registry
    #: where :meth:`count` goes: ``counter(label, n)``.
    counter: Callable[[str, int], None] = _no_count

    @property
    def path(self) -> str:
        """The input file's path (a multi-part unit's location: see ``input.parts``)."""
        return self.input.path

    def open(self, part: str | None = None) -> InputStream:
        """The input file (or the unit's part ``part``) decompressed, whatever codec of the
        codec table compresses it (gzip, zstd, LZ4, bzip2...; none for a plain file): a
        file-like :class:`~crawlmill.core.input_stream.InputStream` with ``read``,
        ``readline``, iteration by line, ``tell()`` (offset in the file, or in the
        decompressed stream) and ``provenance(offset, length, format)``. A range that does
        not decompress is reported through :attr:`report_damage` and reading goes on;
        decompression is bounded by ``limits.max_decompressed_bytes`` and a line by
        ``limits.max_record_bytes``. Use it as a context manager (``with ctx.open() as f``)."""
        from .input_stream import open_input  # the codecs: imported by a reader that opens

        path = self.input.part(part) if part is not None else self.path
        return open_input(
            path,
            self.report_damage,
            self.limits.max_decompressed_bytes,
            self.limits.max_record_bytes,
        )

    def open_file(self, part: str | None = None) -> BinaryIO:
        """The input file (or the unit's part ``part``) as it is stored, not decompressed: a
        seekable binary file for a reader that handles codecs itself (the WARC reader). A
        local path or a URL (:mod:`crawlmill.core.storage`: read start to end with a
        read-ahead); a reader never opens a path itself. Close it (``with``)."""
        from . import storage

        return storage.open_input(self.input.part(part) if part is not None else self.path)

    def reader(self, name: str, **options: Any) -> Reader:
        """Another registered reader, called ``name``, with ``options`` (validated by its
        ``Options`` model), to delegate to: ``yield from ctx.reader("warc").read(ctx)``.

        Readers reach each other through the registry, never by importing a module, so a
        reader disabled with ``CRAWLMILL_DISABLE_PLUGINS`` is missing: a
        :class:`~crawlmill.core.errors.PluginError` names it."""
        from .errors import PluginError

        try:
            cls = self.find_reader(name)
        except PluginError as exc:
            raise PluginError(f"this input needs the reader {name!r}: {exc}") from None
        return cls(cls.Options.model_validate(options))

    def count(self, label: str, n: int = 1) -> None:
        """Add ``n`` to this reader's counter ``label`` (reported per step, never records)."""
        self.counter(label, n)

    def report_warning(self, code: str, message: str, offset: int | None = None) -> None:
        """Report a repaired quirk (not damage) of kind ``code`` (a code of
        ``docs/problems.md``, or the plugin's own kebab-case code), at byte ``offset`` of the
        input (``None``: the whole file); counted per code."""
        self.on_warning(Notice(self.input.path, offset, message, code))


@dataclass(slots=True)
class FilterContext:
    """What a filter gets for one task (``Filter.open``): the input and its counters."""

    input: InputFile
    #: where :meth:`count` goes: ``counter(label, n)``.
    counter: Callable[[str, int], None] = _no_count
    #: loads the step's reduce output (see :meth:`table`).
    table_loader: Callable[[], Any] = _no_table
    #: the ordinal of the record being handled (see :attr:`seq`).
    position: Callable[[], int] = _no_seq

    def count(self, label: str, n: int = 1) -> None:
        """Add ``n`` to this filter step's counter ``label`` (reported per step)."""
        self.counter(label, n)

    def table(self) -> Any:
        """The ``pyarrow.Table`` this filter's ``reduce`` returned (memory-mapped), in the
        final pass; ``None`` when the filter declares no collect step, or while its own
        collect pass runs (``open`` is called in both)."""
        return self.table_loader()

    def table_parts(self) -> list[Any]:
        """The same table as :meth:`table`, as the tables its reduce calls returned: one
        unless the reduce was split by ``reduce_by`` (:mod:`crawlmill.core.run.reduce_tasks`),
        each in the order its call made; ``[]`` where :meth:`table` is ``None``."""
        return _parts(self.table_loader)

    @property
    def seq(self) -> int:
        """The ordinal (0-based) of the record ``apply`` is handling among the records of
        this input that reached this step: the ``seq`` its ``collect`` rows got for the same
        record in the collect pass. -1 outside a run."""
        return self.position()


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
    #: where :meth:`count` goes: ``counter(label, n)``.
    counter: Callable[[str, int], None] = _no_count
    #: loads the writer's reduce output (see :meth:`table`).
    table_loader: Callable[[], Any] = _no_table
    #: the ordinal of the record being written (see :attr:`seq`).
    position: Callable[[], int] = _no_seq
    #: the task must leave an output even when no record reaches the writer (a shuffle
    #: partition: N partitions make N part files, as Hadoop writes empty part files); a
    #: ``FileWriter`` then starts one file without records.
    require_output: bool = False
    #: the contexts of the task's filter steps by counter label (the filter's name, or
    #: ``name#i``), in pipeline order: a writer may read the pass table a filter made
    #: (``table()``) and the ordinal that filter gave the record being written (``seq``).
    filters: dict[str, FilterContext] = field(default_factory=dict)

    def count(self, label: str, n: int = 1) -> None:
        """Add ``n`` to the writer's counter ``label`` (reported per step, never records)."""
        self.counter(label, n)

    def table(self) -> Any:
        """The ``pyarrow.Table`` the writer's ``reduce`` returned (memory-mapped), or ``None``
        when the writer declares no collect step."""
        return self.table_loader()

    def table_parts(self) -> list[Any]:
        """:meth:`table` as the tables its reduce calls returned (see
        :meth:`FilterContext.table_parts`)."""
        return _parts(self.table_loader)

    @property
    def seq(self) -> int:
        """The ordinal (0-based) of the record ``write`` is handling among the records of this
        input that reached the writer: the ``seq`` of its ``collect`` rows. -1 outside a run."""
        return self.position()

    def report_warning(self, code: str, message: str, offset: int | None = None) -> None:
        """Report a repair the writer made or a field it could not write, of kind ``code`` (a
        code of ``docs/problems.md``, or the plugin's own kebab-case code); counted per code
        in the run report. The same call as a reader's (``offset`` is rarely known)."""
        self.on_warning(Notice(self.input.path, offset, message, code))


class _Component:
    """Shared shape of readers, writers and filters."""

    #: the name users write in configs and on the command line.
    name: ClassVar[str] = ""
    #: the typed options (a pydantic model on :class:`PluginOptions`, or a light dataclass on
    #: :class:`~crawlmill.core.options.LightOptions`); instances receive validated ``options``.
    #: The default, :class:`~crawlmill.core.options.NoOptions`, has none.
    Options: ClassVar[type[Any]] = NoOptions

    def __init__(self, options: PluginOptions | None = None) -> None:
        self.options = options if options is not None else self.Options()


class Reader(_Component, ABC):
    """Reads one input format into records."""

    #: the name endings of this reader's format, with their dot and without a compression
    #: suffix (``(".warc",)``). The one suffix list of the format: a file named ``x.warc`` or
    #: ``x.warc.gz`` (any suffix of :func:`crawlmill.formats.codecs.compression.compression_suffixes`
    #: after it) is named like this reader (named, undetected files are reported as damaged
    #: starts), and output stems drop these suffixes (:mod:`crawlmill.core.naming`).
    file_suffixes: ClassVar[tuple[str, ...]] = ()
    #: the files of a folder whose bytes this reader's ``sniff`` and ``discover`` read (every
    #: other file they see by name, type and size only), as ``(pattern, size)`` pairs:
    #: ``pattern`` a regular expression a file's name (its last path part) matches whole,
    #: ``size`` how many of its first bytes are read, or ``None`` for all of it (a list a
    #: check reads). A folder below a URL is planned on a local mirror of its listing where
    #: only these bytes are fetched (:mod:`crawlmill.core.remote_tree`): a file read but not
    #: declared holds zeros there. Default: none (names and sizes only).
    discovery_reads: ClassVar[tuple[tuple[str, int | None], ...]] = ()

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
        (:func:`crawlmill.formats.codecs.compression.read_head`); empty for a
        directory. ``sniff`` may open ``path`` itself for a bounded look (a damaged start);
        it must not raise for bytes that are not its format."""
        return None

    @classmethod
    def describe(cls, path: str, head: bytes) -> str | None:
        """What the input ``path`` is, in words, for ``crawlmill inspect`` (a SequenceFile's
        classes: ``Text -> Nutch Content``), or ``None``; ``head`` as for :meth:`sniff`. It
        must not raise for bytes that are not its format."""
        return None

    @classmethod
    def discover(cls, path: str, options: PluginOptions) -> list[InputFile] | None:
        """Expand a directory input this reader understands as a collection into its units
        (for example a ClueWeb09 segment tree's files, or MapFile folders whose ``parts`` are
        ``data`` and ``index``), in the order to read them, each with the collection's
        ``expect``-ations; or return ``None`` to let the engine list files itself. A unit
        whose parts are missing (a file a list names) is returned too, with a ``present``
        expectation: the engine reports it as a failed check and does not read it."""
        return None

    @classmethod
    def side_files(cls, path: str, units: list[InputFile]) -> list[str]:
        """The files under the collection folder ``path`` that the collection reads or
        checks beside its ``units``' parts (a MapFile's ``index``, the md5 and record-count
        lists its checks read), which are therefore no inputs of their own. Planning counts
        a unit's parts and these as the collection's; every other file under ``path`` is
        planned with its own detected reader or named as not converted
        (:mod:`crawlmill.core.inputs`). Default: none."""
        return []

    @abstractmethod
    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """Yield every good record of ``ctx.input``; report damage and resync, never stop
        silently."""


class Filter(_Component, ABC):
    """Keeps, changes or drops records one at a time."""

    #: the task's context (set by :meth:`open`; outside a run, one that counts nothing).
    ctx: FilterContext = FilterContext(InputFile("", ""))

    def open(self, ctx: FilterContext) -> None:
        """Start a task (before its first record): remember ``ctx`` (``self.ctx.count``)."""
        self.ctx = ctx

    @abstractmethod
    def apply(self, record: Record) -> Record | Drop:
        """Return the record to keep (changed through ``record.evolve`` if need be) or
        :class:`Drop`."""


class Writer(_Component, ABC):
    """Writes records in one output format and layout."""

    #: the record kinds this writer can hold (``None``: any); the run's summary suggests
    #: ``--filter kind keep=...`` with them when it quarantined records of other kinds.
    kinds: ClassVar[tuple[str, ...] | None] = None

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
    def position_free(cls, options: PluginOptions) -> bool:
        """Whether an input's output files (names and bytes) depend on that input alone (its
        bytes, path, relpath and stem) and not on its position among the run's inputs
        (``InputFile.index``) or on their count. ``True`` lets a completed input stay complete
        when inputs are added, removed or renamed around it (``docs/architecture.md``,
        *Resume*); ``False``, the default and safe for any writer, redoes it whenever its
        position or the input count changed."""
        return False

    @classmethod
    def needs_md5(cls, options: PluginOptions) -> bool:
        """Whether :meth:`finalize` reads the outputs' MD5 (``OutputFile.md5``), so every
        output's must be computed while it is written. Default: whether the writer defines a
        ``finalize`` of its own (the only place a writer sees it), so a writer that does keeps
        it; one whose ``finalize`` reads no MD5 may answer ``False``. Outputs without it get a
        CRC-32 in their marker instead (``OutputFile.crc32``), unless the run asks for MD5s
        of every output (``run.md5``, ``--md5``)."""
        return _overrides(cls, "finalize", Writer)

    @classmethod
    def finalize(
        cls,
        root: str,
        options: PluginOptions,
        tasks: Sequence[CompletedInput],
        create: Callable[[str], BinaryIO],
    ) -> None:
        """Run once after all tasks of a run (also when they were resumed), to write
        collection-wide files such as md5 or record-count lists. ``tasks`` is a read-only
        sequence (length, index, slice, iteration; kept on disk, not in memory, so a run of
        100,000 inputs does not hold them all) of one
        :class:`~crawlmill.core.messages.CompletedInput` per completed input, in input order:
        ``task.input`` (relpath), ``task.index``, ``task.outputs`` (each an
        :class:`~crawlmill.core.messages.OutputFile`: ``path``, ``size``, ``md5``) and
        ``task.notes`` (the task's ``WriteContext.notes``); ``task["outputs"]`` reads the
        same as the plain dicts finalize received before. Files go through ``create``."""
        return None


def _overrides(cls: type, name: str, base: type) -> bool:
    """Whether ``cls`` (a subclass of ``base``) defines the method ``name`` anew."""
    return getattr(cls, name).__func__ is not getattr(base, name).__func__


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
    Options: ClassVar[type[Any]] = NoOptions
    #: the formats whose files the layout can lay out (``("warc",)``); empty: any file
    #: writer's. A writer of another format refuses the layout with a config error.
    formats: ClassVar[tuple[str, ...]] = ()
    #: whether :meth:`should_roll` may look at ``bytes_in_file`` whatever its options say
    #: (the file writer then flushes to give the exact size before each question); a
    #: layout that asks for bytes only through a ``max_bytes`` option sets it to ``False``.
    rolls_by_size: ClassVar[bool] = True

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
    def position_free(cls, options: Any) -> bool:
        """Whether the names and bytes of the files this layout lays out depend on the input
        alone, not on its position or the input count (see ``Writer.position_free``);
        ``False`` by default."""
        return False

    @classmethod
    def needs_md5(cls, options: Any) -> bool:
        """Whether :meth:`finalize` reads the outputs' MD5 (``OutputFile.md5``); see
        ``Writer.needs_md5``. Default: whether the layout defines a ``finalize`` of its own
        (``plain`` does not: its outputs get a CRC-32 in their markers; ``clueweb09`` and
        ``chuweb21`` write md5 lists and say ``True``)."""
        return _overrides(cls, "finalize", Layout)

    @classmethod
    def finalize(
        cls,
        root: str,
        options: Any,
        tasks: Sequence[CompletedInput],
        create: Callable[[str], BinaryIO],
    ) -> None:
        """Write collection-wide side files once per run; see ``Writer.finalize``."""
        return None


class Writable:
    """A Hadoop Writable class: how its values are serialized in SequenceFile keys and values.

    A registered component (hook ``crawlmill_register_writables``) whose ``name`` is its Java
    class name (``org.apache.hadoop.io.Text``); ``java_names`` lists other names it answers
    to (old header aliases such as ``long``, a class's renamed packages). ``read(data)``
    returns the value serialized in ``data``, which it must consume exactly (else
    ``ValueError``); ``write(value)`` returns the bytes of ``value``. A class inside a
    container (a ``MapWritable`` entry) also needs ``read_at(data, pos) -> (value, end)``,
    since Writables carry no length. A SequenceFile of a class no Writable answers to is
    still read and copied, as raw bytes."""

    name: ClassVar[str] = ""
    java_names: ClassVar[tuple[str, ...]] = ()
    Options: ClassVar[type[Any]] = NoOptions

    def read(self, data: bytes) -> Any:
        """The value serialized in ``data`` (all of it)."""
        value, end = self.read_at(data, 0)
        if end != len(data):
            raise ValueError(f"{self.name}: read {end} bytes, should read {len(data)}")
        return value

    def read_at(self, data: bytes, pos: int) -> tuple[Any, int]:
        """``(value, end)`` of the value serialized at ``data[pos:]``."""
        raise NotImplementedError(f"{self.name} cannot be read inside another value")

    def write(self, value: Any) -> bytes:
        """The serialized bytes of ``value``."""
        raise NotImplementedError
