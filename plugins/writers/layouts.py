"""Output layouts of the WARC writer: file names, rollover, doc ids and collection side files.

A layout decides *where* records go; the writer decides *how* they are encoded. The writer asks
its layout for the next file name when it starts a file or rolls over, asks whether to roll
after each record, lets it assign a document id, and calls ``finalize`` once per run (through
``Writer.finalize``) for collection-wide files such as md5 and record-count lists.

Layouts register themselves in :data:`LAYOUTS` by name (``plain``, ``clueweb09``,
``chuweb21``); the writer's ``layout`` option picks one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, BinaryIO, ClassVar

from crawlmill.core.errors import ConfigError
from crawlmill.core.plugin import InputFile, WriteContext
from crawlmill.core.record import Record

#: name -> layout class; filled by the modules that define layouts.
LAYOUTS: dict[str, type[Layout]] = {}


def register_layout(cls: type[Layout]) -> type[Layout]:
    """Class decorator adding a layout to :data:`LAYOUTS` under ``cls.name``."""
    LAYOUTS[cls.name] = cls
    return cls


def _no_files(relpath: str) -> BinaryIO:
    raise RuntimeError("a layout asked to plan its names created a file")


def _no_records(record: Record, reason: str) -> None:
    raise RuntimeError("a layout asked to plan its names quarantined a record")


class Layout:
    """Base layout. ``options`` is the writer's validated options model (layout fields are
    read by attribute: ``options.max_records``, ``options.language``...); ``extension`` is the
    file suffix the writer encodes (``.warc.gz``, ``.warc.zst``, ``.warc``)."""

    name: ClassVar[str] = ""

    def __init__(self, options: Any, ctx: WriteContext, extension: str) -> None:
        self.options = options
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
