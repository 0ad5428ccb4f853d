"""Which reader takes a file of a run's inputs, and why none does.

:func:`detect_reader` gives the best reader claiming a file (``registry.detect`` on its
first bytes) or, when none does, the reason in words a user can act on: a format crawlmill
knows but has no reader for (``formats/foreign.py``), a name like a reader's files with a
start no reader recognises (a damaged start), binary data, or a text file
(:data:`TEXT_NOT_READ`). :func:`check_forced_reader` warns (``forced-reader``) when a reader
forced with ``--from`` / ``reader:`` is not the one detection would pick.
"""

from __future__ import annotations

from collections.abc import Callable

from crawlmill.formats.foreign import foreign_format

from . import storage
from .naming import named_with
from .registry import Registry

__all__ = ["FORCED_READER", "TEXT_NOT_READ", "check_forced_reader", "detect_reader"]

#: warning code of a forced reader detection disagrees with (docs/problems.md).
FORCED_READER = "forced-reader"
#: why a text file met in a listed folder or glob is not converted.
TEXT_NOT_READ = (
    "format not detected: text, neither records a reader reads nor a list a collection "
    "beside it checks; move it out of the inputs or name a reader with --from / reader:"
)


def check_forced_reader(
    registry: Registry, path: str, forced: str, warnings: list[tuple[str, str, str]]
) -> None:
    """Warn when detection gives the file ``path`` to another reader than ``forced`` (and
    ``forced`` does not claim it as surely)."""
    try:
        head = storage.read_head(path) if storage.isfile(path) else b""
    except OSError:
        return
    ranking = registry.detect(path, head)
    if not ranking:
        return
    best, confidence = ranking[0]
    if best == forced or dict(ranking).get(forced, 0.0) >= confidence:
        return
    warnings.append(
        (
            path,
            f"reader {forced!r} is forced (--from / reader:) but the file looks like {best!r} "
            f"(detected with confidence {confidence:.2f}); records may be quarantined: drop "
            f"the forced reader to detect each file, or force {best!r}",
            FORCED_READER,
        )
    )


def detect_reader(
    registry: Registry,
    path: str,
    named: bool,
    read: Callable[[str], tuple[bytes, bytes] | None] | None = None,
) -> tuple[str | None, str, bool]:
    """``(reader, "", True)`` for the best reader claiming ``path``; when none claims it,
    ``(None, reason, meant)``: why, and whether the file was meant as input (``named`` on its
    own, named like a format a reader reads, a known foreign format, unreadable) rather than a
    side file of a listed folder. ``read`` gives ``storage.read_detection(path, 512)`` (read
    ahead by :class:`~crawlmill.core.detect_prefetch.DetectionPrefetch` while planning)."""
    try:
        # a remote object: one lookup, one open
        found = read(path) if read is not None else storage.read_detection(path, 512)
    except OSError as exc:
        return None, f"cannot read it: {exc.strerror or exc}", True
    is_file = found is not None
    head, raw = found if found is not None else (b"", b"")
    ranking = registry.detect(path, head)
    if ranking:
        return ranking[0][0], "", True
    foreign = foreign_format(raw, head)
    if foreign is not None:
        return None, f"{foreign}: no reader installed for it yet", True
    if not raw and is_file:  # a Spark job's empty partition, a failed copy
        return None, "an empty file (0 bytes): no records to read", True
    like = _named_like(registry, path)
    if like is not None:
        return (
            None,
            f"format not detected: named like a file of the {like!r} reader, but no reader "
            f"recognises its first bytes (a damaged start?); name a reader with --from / "
            f"reader: to read it",
            True,
        )
    if _binary(head or raw):
        return (
            None,
            "format not detected: binary data no reader recognises (a damaged start?); name "
            "a reader with --from / reader: to read it",
            True,
        )
    if named:
        known = ", ".join(sorted(registry.components["reader"])) or "none"
        return (
            None,
            f"format not detected: no reader claims it (readers: {known}); name one with "
            "--from / reader:",
            True,
        )
    return (
        None,
        TEXT_NOT_READ,
        True,
    )


def _binary(head: bytes) -> bool:
    """True when ``head`` is not text (a NUL byte, or not UTF-8): data, not a README or a
    checksum list (a gzip-compressed text file is text: ``head`` is decompressed)."""
    sample = head[:4096]
    if b"\x00" in sample:
        return True
    for cut in range(4):  # a multi-byte character cut at the end of the sample
        try:
            sample[: len(sample) - cut].decode("utf-8")
            return False
        except UnicodeDecodeError:
            continue
    return True


def _named_like(registry: Registry, path: str) -> str | None:
    """The reader whose ``file_suffixes`` the file's name ends with, after at most one
    compression suffix (``x.warc.gz`` and ``x.warc.lz4`` -> warc)."""
    for component in sorted(registry.components["reader"].values(), key=lambda c: c.name):
        if named_with(path, component.file_suffixes):
            return component.name
    return None
