"""crawlmill's core: the Record model, the plugin contract, the registry and the pipeline engine.

What a plugin author needs is importable from here::

    from crawlmill.core import Reader, Record, hookimpl

and reading a file from Python is one line: ``open_reader(path)`` (:mod:`.reading`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The names below are imported on first use (PEP 562 ``__getattr__``), so importing
# ``crawlmill.core`` (every ``crawlmill`` command does, ``--help`` too) loads neither pydantic
# nor the plugin contract until a name is asked for; ``from crawlmill.core import X`` works as
# an eager import would. Type checkers read the imports under TYPE_CHECKING.
if TYPE_CHECKING:
    from .contract import (
        Collecting,
        FixedReducePartitions,
        HashPartitioned,
        ReducedByKey,
        ReducePartitioner,
        ReduceSummary,
        Shuffling,
        SortKeyed,
        capabilities,
        declares_collect,
        reduce_key,
    )
    from .errors import ConfigError, CrawlmillError, FormatError, PluginError
    from .file_writer import (
        FileWriter,
        FileWriterOptions,
        LightFileWriterOptions,
        OutputFile,
        describes_file,
    )
    from .layouts import register_layout
    from .markers import hookimpl
    from .naming import named_with, reader_suffixes, stem_of, strip_suffixes
    from .options import FieldCheck, FieldError, Ge, Gt, Le, LightOptions, Lt, option
    from .output_paths import UnsafeOutputPath, safe_relpath
    from .plugin import (
        Check,
        Damage,
        Drop,
        Expectation,
        Filter,
        FilterContext,
        InputFile,
        Layout,
        LazySchema,
        Limits,
        Notice,
        PluginOptions,
        ReadContext,
        Reader,
        ReduceContext,
        Writable,
        WriteContext,
        Writer,
        comma_list,
    )
    from .reading import ReadWarning, RecordIterator, open_reader
    from .record import OffsetSpace, Outlink, Provenance, Record, RecordKind
    from .reduce_tables import (
        KeyedDrops,
        epoch_micros,
        input_rows_by_seq,
        rows_after_the_first_per_key,
        rows_of_input,
    )
    from .shuffle_spec import ShuffleSpec

    __version__: str

#: module (relative to this package) -> the public names it defines, imported on first use
_LAZY_MODULES = {
    ".contract": (
        "Collecting",
        "FixedReducePartitions",
        "HashPartitioned",
        "ReducedByKey",
        "ReducePartitioner",
        "ReduceSummary",
        "Shuffling",
        "SortKeyed",
        "capabilities",
        "declares_collect",
        "reduce_key",
    ),
    ".errors": ("ConfigError", "CrawlmillError", "FormatError", "PluginError"),
    ".file_writer": (
        "FileWriter",
        "FileWriterOptions",
        "LightFileWriterOptions",
        "OutputFile",
        "describes_file",
    ),
    ".layouts": ("register_layout",),
    ".markers": ("hookimpl",),
    ".naming": ("named_with", "reader_suffixes", "stem_of", "strip_suffixes"),
    ".options": ("FieldCheck", "FieldError", "Ge", "Gt", "Le", "LightOptions", "Lt", "option"),
    ".output_paths": ("UnsafeOutputPath", "safe_relpath"),
    ".plugin": (
        "Check",
        "Damage",
        "Drop",
        "Expectation",
        "Filter",
        "FilterContext",
        "InputFile",
        "Layout",
        "LazySchema",
        "Limits",
        "Notice",
        "PluginOptions",
        "ReadContext",
        "Reader",
        "ReduceContext",
        "Writable",
        "WriteContext",
        "Writer",
        "comma_list",
    ),
    ".reading": ("ReadWarning", "RecordIterator", "open_reader"),
    ".record": ("OffsetSpace", "Outlink", "Provenance", "Record", "RecordKind"),
    ".reduce_tables": (
        "KeyedDrops",
        "epoch_micros",
        "input_rows_by_seq",
        "rows_after_the_first_per_key",
        "rows_of_input",
    ),
    ".shuffle_spec": ("ShuffleSpec",),
}
#: public name -> the module defining it
_LAZY = {name: module for module, names in _LAZY_MODULES.items() for name in names}


def _version() -> str:
    """The installed distribution's version (``0+unknown`` in a checkout nothing installed);
    read without importing importlib.metadata where :mod:`.entry_scan` is sure."""
    from .entry_scan import version_of

    light = version_of("crawlmill")
    if light is not None:
        return light
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("crawlmill")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0+unknown"


def __getattr__(name: str) -> Any:
    """Import a public name on first use and keep it in the module (PEP 562)."""
    if name == "__version__":
        value: Any = _version()
    elif name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(_LAZY[name], __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "Check",
    "ConfigError",
    "CrawlmillError",
    "Damage",
    "Drop",
    "Expectation",
    "Filter",
    "FilterContext",
    "FormatError",
    "InputFile",
    "LazySchema",
    "Limits",
    "Notice",
    "OffsetSpace",
    "Outlink",
    "PluginError",
    "PluginOptions",
    "Provenance",
    "ReadContext",
    "ReadWarning",
    "Reader",
    "Record",
    "RecordIterator",
    "RecordKind",
    "ReduceContext",
    "Writable",
    "WriteContext",
    "Writer",
    "__version__",
    "comma_list",
    "declares_collect",
    "reduce_key",
    "hookimpl",
    "open_reader",
    "Collecting",
    "FixedReducePartitions",
    "HashPartitioned",
    "ReducedByKey",
    "ReducePartitioner",
    "ReduceSummary",
    "ShuffleSpec",
    "Shuffling",
    "SortKeyed",
    "capabilities",
    "FileWriter",
    "FileWriterOptions",
    "LightFileWriterOptions",
    "LightOptions",
    "FieldCheck",
    "FieldError",
    "Ge",
    "Gt",
    "Le",
    "Lt",
    "option",
    "describes_file",
    "OutputFile",
    "Layout",
    "register_layout",
    "named_with",
    "reader_suffixes",
    "stem_of",
    "strip_suffixes",
    "safe_relpath",
    "UnsafeOutputPath",
    "KeyedDrops",
    "epoch_micros",
    "input_rows_by_seq",
    "rows_after_the_first_per_key",
    "rows_of_input",
]
