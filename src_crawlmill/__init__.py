"""crawlmill: convert web-crawl collections between their formats, byte-exact and without
silent loss.

Reading a file from Python is one line (the reader is detected, or named with its options)::

    import crawlmill

    with crawlmill.open_reader("crawl.warc.gz") as records:
        for record in records:
            print(record.kind, record.url, len(record.payload))
    print(records.damages, records.warnings)

The names below are imported on first use, so ``import crawlmill`` (and the ``crawlmill``
command's start-up) loads nothing else: no plugin, no pydantic. Plugin authors import the
contract from :mod:`crawlmill.core`; the byte codecs are in :mod:`crawlmill.formats`.
"""

# No import at run time: not even ``__future__`` or ``typing`` (annotations are strings).
#: ``typing.TYPE_CHECKING`` without importing typing (type checkers read this form too)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from crawlmill.core.errors import CrawlmillError, FormatError
    from crawlmill.core.problems import Damage, Notice
    from crawlmill.core.reading import RecordIterator, open_reader
    from crawlmill.core.record import Record, RecordKind

    __version__: str

#: public name -> the module defining it (imported when the name is first used)
_LAZY = {
    "open_reader": "crawlmill.core.reading",
    "RecordIterator": "crawlmill.core.reading",
    "Record": "crawlmill.core.record",
    "RecordKind": "crawlmill.core.record",
    "Damage": "crawlmill.core.problems",
    "Notice": "crawlmill.core.problems",
    "CrawlmillError": "crawlmill.core.errors",
    "FormatError": "crawlmill.core.errors",
}

__all__ = [
    "CrawlmillError",
    "Damage",
    "FormatError",
    "Notice",
    "Record",
    "RecordIterator",
    "RecordKind",
    "__version__",
    "open_reader",
]


def _version() -> str:
    """The installed distribution's version (``0+unknown`` in a checkout nothing installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("crawlmill")
    except PackageNotFoundError:  # pragma: no cover - a bare checkout
        return "0+unknown"


def __getattr__(name: str) -> "Any":
    """Import a public name on first use and keep it in the module (PEP 562)."""
    if name == "__version__":
        value = _version()
    elif name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module 'crawlmill' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
