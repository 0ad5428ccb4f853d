"""Read one file's records from Python in one line, as warcio's ``ArchiveIterator(fh)`` does::

    from crawlmill.core import open_reader

    with open_reader("crawl.warc.gz") as records:
        for record in records:
            print(record.url)
    print(records.damages, records.warnings, records.checks)

:func:`open_reader` detects the reader through the registry when none is named (the same
``registry.detect(path, read_head(path))`` the engine plans inputs with), validates the
reader's options against its ``Options`` model, builds the
:class:`~crawlmill.core.plugin.ReadContext` and collects what the reader reports: damaged byte
ranges (:class:`~crawlmill.core.plugin.Damage`, with file, offset and reason), warnings
(:class:`~crawlmill.core.problems.Notice`, each with its ``code``), collection checks
(:class:`~crawlmill.core.plugin.Check`: those the reader reports, and, when the whole input was
read, those of the input's expectations, as the engine verifies them) and the reader's own
counters (``ctx.count``). Nothing is quarantined or written: the caller decides what to do with
the damage. A reader that delegates with ``ctx.reader(name)`` gets it from ``registry`` (loaded
on first use when a Reader class was given). The engine's tasks read through the same
:class:`RecordIterator` (without keeping the lists: their callbacks quarantine and count).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any

from . import storage
from .collection import Verifier
from .errors import ConfigError, FormatError, is_validation_error, pydantic_problems
from .plugin import Check, Damage, InputFile, Limits, Notice, ReadContext, Reader
from .problems import observe
from .record import Record
from .registry import Registry

__all__ = ["ReadWarning", "RecordIterator", "detect_reader", "open_reader"]


#: the warning type of crawlmill before codes: now :class:`~crawlmill.core.problems.Notice`
#: (``path``, ``offset`` and ``message`` as before, plus its ``code``).
ReadWarning = Notice


def _ignore(record: Record) -> None:
    return None


class RecordIterator:
    """The records of one input file, and what its reader reported while reading them.

    Iterate it once (it is its own iterator); ``damages``, ``warnings``, ``checks`` and
    ``counts`` (the reader's ``ctx.count`` counters) grow as the reader goes; with
    ``collect=False`` only the ``on_*`` callbacks see them (a run's task, which must not hold
    every damaged byte range in memory). Use it as a context manager, or call :meth:`close`,
    to close the file when you stop before the end.
    """

    def __init__(
        self,
        reader: Reader,
        reader_name: str,
        input: InputFile,
        *,
        limits: Limits | None = None,
        on_damage: Callable[[Damage], None] | None = None,
        on_warning: Callable[[Notice], None] | None = None,
        on_check: Callable[[Check], None] | None = None,
        registry: Registry | None = None,
        on_count: Callable[[str, int], None] | None = None,
        collect: bool = True,
    ) -> None:
        self.reader = reader
        self.reader_name = reader_name
        self.input = input
        self.damages: list[Damage] = []
        self.warnings: list[Notice] = []
        self.checks: list[Check] = []
        #: the reader's own counters (``ctx.count(label, n)``): label -> n.
        self.counts: dict[str, int] = {}
        #: records handed out so far.
        self.count = 0
        self._on_damage = on_damage
        self._on_warning = on_warning
        self._on_check = on_check
        self._on_count = on_count
        self._collect = collect
        self.context = ReadContext(
            input=input,
            report_damage=self._damage,
            limits=limits if limits is not None else Limits(),
            on_warning=self._warning,
            report_check=self._check,
            find_reader=self._find_reader,
            counter=self._counted,
        )
        self._registry = registry
        self._records: Iterator[Record] | None = None
        self._verifier: Verifier | None = None

    @property
    def path(self) -> str:
        """The input file's path."""
        return self.input.path

    @property
    def failed_checks(self) -> list[Check]:
        """The collection checks that failed (damage-level, as in a run)."""
        return [c for c in self.checks if not c.ok]

    @property
    def ok(self) -> bool:
        """True while no damage was reported and no check failed."""
        return not self.damages and not self.failed_checks

    def _damage(self, damage: Damage) -> None:
        observe(damage)
        if self._collect:
            self.damages.append(damage)
        if self._on_damage is not None:
            self._on_damage(damage)

    def _warning(self, warning: Notice) -> None:
        observe(warning)
        if self._collect:
            self.warnings.append(warning)
        if self._on_warning is not None:
            self._on_warning(warning)

    def _find_reader(self, name: str) -> type[Reader]:
        if self._registry is None:
            self._registry = Registry.load()
        return self._registry.get("reader", name, suggest=False)

    def _check(self, check: Check) -> None:
        if self._collect:
            self.checks.append(check)
        if self._on_check is not None:
            self._on_check(check)

    def _counted(self, label: str, n: int) -> None:
        if self._collect:
            self.counts[label] = self.counts.get(label, 0) + n
        if self._on_count is not None:
            self._on_count(label, n)

    def __iter__(self) -> RecordIterator:
        return self

    def __next__(self) -> Record:
        try:
            record = next(self.raw())
        except StopIteration:
            self.verify()
            raise
        self.count += 1
        if self._verifier is not None:
            self._verifier.saw(record)
        return record

    def raw(self) -> Iterator[Record]:
        """The reader's own iterator (started on the first call), without :attr:`count` or
        the record-count expectations: for a loop that counts records itself, such as a run's
        task, one call less per record; such a loop passes each record to :attr:`saw` and
        calls :meth:`verify` at the end. :meth:`close` closes it too."""
        if self._records is None:
            self._verifier = Verifier(self.input)
            self._records = iter(self.reader.read(self.context))
        return self._records

    @property
    def saw(self) -> Callable[[Record], None]:
        """Count one record towards the input's record-count expectations (after :meth:`raw`)."""
        return self._verifier.saw if self._verifier is not None else _ignore

    def verify(self) -> None:
        """The whole input was read: report the checks of its expectations (md5s, record
        counts), once."""
        verifier, self._verifier = self._verifier, None
        if verifier is not None:
            for check in verifier.finish():
                self._check(check)

    def close(self) -> None:
        """Stop reading and close the file (the reader's generator)."""
        records, self._records = self._records, iter(())
        verifier, self._verifier = self._verifier, None
        if verifier is not None:
            verifier.cancel()
        close = getattr(records, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> RecordIterator:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"<RecordIterator {self.input.path!r} reader={self.reader_name!r} read={self.count} "
            f"damages={len(self.damages)} warnings={len(self.warnings)}>"
        )


def detect_reader(path: str, registry: Registry) -> str:
    """The name of the reader that claims ``path`` most surely, or a :class:`FormatError`
    naming the readers there are."""
    head = storage.read_head(path) if storage.isfile(path) else b""
    ranking = registry.detect(path, head)
    if not ranking:
        known = ", ".join(sorted(registry.components["reader"])) or "none"
        raise FormatError(
            f"format not detected: no reader claims it (readers: {known}); name one with reader=",
            path=path,
        )
    return ranking[0][0]


def open_reader(
    path: str | os.PathLike[str] | InputFile,
    reader: str | type[Reader] | None = None,
    *,
    registry: Registry | None = None,
    limits: Limits | None = None,
    on_damage: Callable[[Damage], None] | None = None,
    on_warning: Callable[[Notice], None] | None = None,
    on_check: Callable[[Check], None] | None = None,
    on_count: Callable[[str, int], None] | None = None,
    **options: Any,
) -> RecordIterator:
    """Open ``path`` with ``reader`` (a registered name, a Reader class, or ``None``: detected)
    and its ``options``; return a :class:`RecordIterator` of its records.

    ``path`` may be an :class:`InputFile` (a file a reader's ``discover`` listed, or one whose
    ``relpath`` matters). ``registry`` defaults to the installed plugins
    (``Registry.load()``). ``on_damage``, ``on_warning``, ``on_check`` and ``on_count``
    (``ctx.count(label, n)``) are called as the reader reports, besides the lists (and
    ``counts``) kept on the iterator. Raises :class:`PluginError` for an
    unknown reader name, :class:`ConfigError` for invalid options, :class:`FormatError` when no
    reader claims the file, :class:`FileNotFoundError` when it does not exist and
    :class:`IsADirectoryError` for a folder.
    """
    if isinstance(path, InputFile):
        inp = path
    else:
        fspath = storage.local_path(os.fspath(path))  # a file:// URL is a local path
        inp = InputFile(fspath, os.path.basename(fspath.rstrip(os.sep)) or fspath)
    if storage.is_remote(inp.path):  # a URL (core/storage.py): one object, or a unit's parts
        if not inp.parts and not storage.isfile(inp.path):
            raise FileNotFoundError(f"no such file: {storage.redact(inp.path)}")
    elif not inp.parts and not os.path.exists(inp.path):  # a unit's parts are its files
        raise FileNotFoundError(f"no such file: {inp.path}")
    if os.path.isdir(inp.path) and not inp.parts:
        raise IsADirectoryError(
            f"{inp.path} is a folder: open_reader reads one file; a collection reader's "
            "discover(folder, options) lists its files, and each can be opened"
        )
    if isinstance(reader, type):
        if not issubclass(reader, Reader):
            raise TypeError(f"reader must be a Reader subclass or a name, not {reader!r}")
        cls: type[Reader] = reader
    else:
        if registry is None:
            registry = Registry.load()
        if reader is None:
            reader = detect_reader(inp.path, registry)
        cls = registry.reader(reader)
    name = cls.name
    try:
        validated = cls.Options.model_validate(options)
    except Exception as exc:  # pydantic's ValidationError (imported when it validated)
        if not is_validation_error(exc):
            raise
        raise ConfigError(pydantic_problems(exc, f"reader {name}", cls.Options)) from None
    return RecordIterator(
        cls(validated),
        name,
        inp,
        limits=limits,
        on_damage=on_damage,
        on_warning=on_warning,
        on_check=on_check,
        registry=registry,
        on_count=on_count,
    )
