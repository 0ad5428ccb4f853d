"""crawlmill's core: the Record model, the plugin contract, the registry and the pipeline engine.

What a plugin author needs is importable from here::

    from crawlmill.core import Reader, Record, hookimpl

and reading a file from Python is one line: ``open_reader(path)`` (:mod:`.reading`).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

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
from .file_writer import FileWriter, FileWriterOptions, OutputFile, describes_file
from .layouts import register_layout
from .markers import hookimpl
from .naming import named_with, reader_suffixes, stem_of, strip_suffixes
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

try:
    __version__ = version("crawlmill")
except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
    __version__ = "0+unknown"

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
