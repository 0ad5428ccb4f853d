"""What every file writer shares: the ``layout`` option, output naming, rollover, side files.

Part of core's contract: a writer of files from any package subclasses
``crawlmill.core.FileWriter`` and its options from ``crawlmill.core.FileWriterOptions``
(``docs/adding-a-writer.md``); ``crawlmill.plugins.writers.files``, where they lived before,
re-exports them and is deprecated.

As datatrove's ``DiskWriter`` owns naming and rollover for every writer, :class:`FileWriter`
owns them for crawlmill's file writers: a subclass says *how* records are
encoded (:meth:`FileWriter.start_file`, :meth:`FileWriter.finish_file`, its ``write``) and the
layout its ``layout`` option names says *where* they go (file names, when to roll over, doc ids,
collection side files; :mod:`crawlmill.core.layouts`).

:class:`FileWriterOptions` is the base of such a writer's options: ``layout`` takes a layout's
name or a mapping ``{name: clueweb09, language: English}`` whose other keys are the layout's own
options (checked by its ``Options`` model). The layout's options are given in that mapping
only (one form); a writer whose options set ``flat_layout_options`` (the WARC writer, which
took them beside ``layout`` before) still accepts them there, with a deprecation warning
(:func:`crawlmill.core.layout_rules.fold_flat_layout_options`). A layout
that names the formats it can lay out (:attr:`crawlmill.core.plugin.Layout.formats`) refuses a
writer of another format with a config error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, ClassVar

from .errors import ConfigError
from .layout_rules import check_layout, layout_mapping, layout_settings_of
from .layouts import find_layout
from .options import FieldError, LightOptions, option
from .plugin import InputFile, Layout, WriteContext, Writer
from .record import Record, RecordKind

if TYPE_CHECKING:
    from .file_writer_options import FileWriterOptions
    from .messages import CompletedInput
    from .plugin_options import PluginOptions

__all__ = [
    "FileWriter",
    "FileWriterOptions",
    "LightFileWriterOptions",
    "OutputFile",
    "describes_file",
]


def __getattr__(name: str) -> Any:
    """:class:`FileWriterOptions` (pydantic), imported on first use."""
    if name == "FileWriterOptions":
        from .file_writer_options import FileWriterOptions

        globals()[name] = FileWriterOptions
        return FileWriterOptions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def describes_file(record: Record) -> bool:
    """Whether ``record`` describes its file rather than holding a document: a ``warcinfo``,
    or a record its reader marked with ``extras["neutral"]["describes_file"]`` (a source
    file's own header record). Layouts number no document with it and writers do not count
    it as one."""
    if record.kind == RecordKind.WARCINFO:
        return True
    neutral = record.extras.get("neutral")
    return isinstance(neutral, dict) and bool(neutral.get("describes_file"))


def _registry_of(context: Any) -> Any:
    return (context or {}).get("registry") if isinstance(context, dict) or context is None else None


@dataclass(frozen=True, kw_only=True)
class LightFileWriterOptions(LightOptions):
    """Options every file writer has, as a light dataclass
    (:class:`~crawlmill.core.options.LightOptions`): the same fields, rules and messages as
    :class:`FileWriterOptions` (pydantic), which stays the base for writers declared that way;
    a writer's light options subclass this with ``@dataclass(frozen=True, kw_only=True)``."""

    #: the format the writer writes (its name), checked against ``Layout.formats``.
    writes: ClassVar[str] = ""
    #: whether options of the chosen layout are still accepted beside ``layout`` (the flat
    #: form, deprecated; :func:`fold_flat_layout_options`).
    flat_layout_options: ClassVar[bool] = False

    layout: str = option(
        "plain",
        description="Output layout: any registered layout (see `crawlmill plugins`). A name, or a mapping {name: plain, max_records: 1000} with the layout's options.",
    )
    layout_options: dict[str, Any] = option(
        default_factory=dict,
        description="The layout's own options that are not writer options (set by the mapping form of layout).",
    )

    @classmethod
    def before_validation(cls, data: Any, context: Any) -> Any:
        return layout_mapping(cls, data, _registry_of(context))

    def after_validation(self, context: Any) -> None:
        registry = _registry_of(context)
        try:
            check_layout(type(self), self.layout, registry)
        except ValueError as exc:
            raise FieldError("layout", str(exc), self.layout) from None
        layout, settings = layout_settings_of(self, registry)
        object.__setattr__(self, "_layout_cls", layout)
        object.__setattr__(self, "_layout_settings", settings)

    @classmethod
    def defaults_valid(cls, context: Any) -> bool:
        default = cls.__dataclass_fields__["layout"].default
        return find_layout(default, _registry_of(context)) is not None

    @property
    def layout_class(self) -> type[Layout]:
        """The layout class the ``layout`` option names; :class:`ConfigError` when none has it."""
        layout = self.__dict__.get("_layout_cls") or find_layout(self.layout)
        if layout is None:
            raise ConfigError([("writer.layout", f"unknown layout {self.layout!r}")])
        return layout

    @property
    def layout_settings(self) -> Any:
        """The layout's own validated ``Options``."""
        settings = self.__dict__.get("_layout_settings")
        if settings is None:
            settings = layout_settings_of(self, None)[1]
            object.__setattr__(self, "_layout_settings", settings)
        return settings


@dataclass
class OutputFile:
    """One open output file of a task and what its writer counts in it."""

    path: str
    stream: BinaryIO
    #: what the writer encodes into (its own file writer object), or the stream itself.
    sink: Any = None
    records: int = 0  # input records written (what rollover counts)
    documents: int = 0  # records that do not describe the file (see describes_file)


class FileWriter(Writer):
    """Base of writers that write files through a layout: naming, rollover, side files.

    A subclass implements :meth:`extension` (the suffix it writes for given options),
    :meth:`start_file` (open its encoder on a new file), :meth:`finish_file` (close it and
    return the file's entry for ``ctx.notes["files"]``) and may extend :meth:`side_files`
    (files it writes beside each output, as the WARC writer's ``.cdxj``). In ``write`` it calls
    :meth:`file_for` to get the file the record goes into, then :meth:`count`."""

    @classmethod
    def extension(cls, options: Any) -> str:
        """The file suffix written with ``options`` (``.warc.gz``...)."""
        raise NotImplementedError

    @classmethod
    def side_files(cls, options: Any, path: str) -> list[str]:
        """Files written beside output ``path`` (for the planned outputs)."""
        return []

    @classmethod
    def planned_outputs(cls, options: Any, inputs: list[InputFile]) -> list[list[str]] | None:
        """The first file of each input as its layout names it, with its side files."""
        planned = options.layout_class.planned_paths(options, inputs, cls.extension(options))
        if planned is None:
            return None
        return [paths + [s for p in paths for s in cls.side_files(options, p)] for paths in planned]

    @classmethod
    def position_free(cls, options: Any) -> bool:
        """The layout's answer: its names (and the bytes, which hold nothing positional)."""
        return bool(options.layout_class.position_free(options))

    @classmethod
    def needs_md5(cls, options: Any) -> bool:
        """The layout's answer (``Layout.needs_md5``), unless the writer defines a
        ``finalize`` of its own (it then keeps the MD5s)."""
        if cls.finalize.__func__ is not FileWriter.finalize.__func__:  # type: ignore[attr-defined]
            return True
        return bool(options.layout_class.needs_md5(options))

    @classmethod
    def finalize(
        cls, root: str, options: PluginOptions, tasks: Sequence[CompletedInput], create: Any
    ) -> None:
        """Delegate collection-wide side files to the layout's ``finalize``."""
        options.layout_class.finalize(root, options, tasks, create)  # type: ignore[attr-defined]

    # -- per task -------------------------------------------------------------------------

    def open_layout(self, ctx: WriteContext) -> None:
        """Start a task: the layout of this input; the first file comes with the first record."""
        self.ctx = ctx
        self.layout = self.options.layout_class(self.options, ctx, self.extension(self.options))
        self.file: OutputFile | None = None
        ctx.notes.setdefault("files", [])

    def file_for(self, record: Record | None) -> OutputFile:
        """The file the next record goes into: the open one, or a new one when there is none
        or the layout says the open one is full."""
        if self.file is not None and self._full(self.file):
            self.close_file()
        if self.file is None:
            path = self.layout.next_path()
            self.file = OutputFile(path, self.ctx.create(path))
            self.start_file(self.file, record)
        return self.file

    def ensure_output(self) -> None:
        """When the task must leave an output (``ctx.require_output``: a shuffle partition)
        and started no file, start one without records (``start_file(file, None)``); a
        subclass calls this in ``close`` before closing its open file."""
        if self.ctx.require_output and self.file is None and not self.ctx.notes.get("files"):
            self.file_for(None)

    def count(self, record: Record) -> None:
        """Count a written input record in the open file (for rollover and doc ids)."""
        assert self.file is not None
        self.file.records += 1
        if not describes_file(record):
            self.file.documents += 1

    def close_file(self) -> None:
        """Finish the open file and note it in ``ctx.notes["files"]``."""
        f = self.file
        assert f is not None
        self.file = None
        self.ctx.notes["files"].append(self.finish_file(f))

    def _full(self, file: OutputFile) -> bool:
        """Ask the layout whether ``file`` is full, with its exact size when the layout may
        look at it (``max_bytes``, or a layout from outside this package)."""
        layout = self.layout
        known = getattr(self, "_exact_size_for", None)  # (layout, exact): asked once a layout
        if known is None or known[0] is not layout:
            exact = (
                getattr(self.options, "max_bytes", None) is not None
                or getattr(layout.settings, "max_bytes", None) is not None
                or type(layout).rolls_by_size
            )
            known = self._exact_size_for = (layout, exact)
        return layout.should_roll(file.records, self.file_size(file, known[1]))

    # -- what a subclass implements -------------------------------------------------------

    def start_file(self, file: OutputFile, first: Record | None) -> None:
        """Open the encoder on ``file`` (``first``: the record about to be written, or
        ``None`` for a file started without records)."""
        raise NotImplementedError

    def finish_file(self, file: OutputFile) -> dict[str, Any]:
        """Close ``file`` (and its side files); return its ``ctx.notes["files"]`` entry."""
        raise NotImplementedError

    def file_size(self, file: OutputFile, exact: bool) -> int:
        """Bytes written to ``file`` so far (``exact``: after flushing what is buffered)."""
        return file.stream.tell()
