"""One vocabulary for problems: :class:`Damage` (bytes that could not be read as a good record)
and :class:`Notice` (a warning: a quirk repaired or a field not written), each with a stable
``code``.

A code is short kebab-case (``invalid-date``, ``bad-length``, ``truncated-member``) and names
the *kind* of problem; the human message (``reason``/``message``) carries the specifics (URL,
lengths, offsets). Counters (:class:`~crawlmill.core.stats.TaskStats`, ``report.json``, the
summary line) and the quarantine index are keyed by code, so one problem met many times with
different numbers is counted once per kind. The code is given where the problem is found (the
codec in :mod:`crawlmill.formats`, the plugin): ``Damage(path, offset, reason, length, data,
code)`` and ``ctx.report_warning(code, message, offset=None)``; a problem without a code is an
error. Every code the built-in readers and writers emit is listed with its meaning in
``docs/problems.md`` (tests check the code literals of the source and the codes a test run
emits).

:func:`derive_code` makes a code from a sentence; it remains only for a writer's refused-record
reason (``"code: reason"``), until writers give their codes at the source too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["CODE_PATTERN", "Damage", "Notice", "derive_code", "is_code", "observe"]

#: what a code looks like: lower-case words of letters and digits joined by ``-``.
CODE_PATTERN = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
#: a message that starts with its code (``"invalid-date: WARC-Date is not ..."``).
_PREFIXED = re.compile(r"\s*([a-z][a-z0-9]*(?:-[a-z0-9]+)+|[a-z][a-z0-9]*): ")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|b'[^']*'|<[^>]*>|\([^)]*\)")
_WORD = re.compile(r"[a-z]+")
#: words of a derived code (the first ones say what happened; the rest are specifics).
_DERIVED_WORDS = 5
#: called with the code of every problem reported to the engine or to ``open_reader``
#: (:func:`observe`); the test suite checks the codes in use with it.
observers: list[Callable[[str], None]] = []


def is_code(text: str) -> bool:
    """Whether ``text`` is a well-formed code (:data:`CODE_PATTERN`)."""
    return CODE_PATTERN.fullmatch(text) is not None


def derive_code(text: str) -> str:
    """A code made from a sentence (the WARC/ARC readers' regex tables and a writer's
    refused-record reason use it until their codes are given at the source).

    A message that starts with a code and ``": "`` (``"lf-line-endings: LF-only line
    endings"``) has that code. Otherwise the code is made of the message's first
    :data:`_DERIVED_WORDS` words of letters, lower-cased and joined by ``-``, after quoted
    values, ``<...>`` and ``(...)`` are dropped and ignoring numbers, so that
    ``"declared length is 12 bytes off"`` and ``"declared length is 7 bytes off"`` share
    ``declared-length-is-bytes-off``; ``problem`` when no word is left."""
    m = _PREFIXED.match(text)
    if m is not None:
        return m.group(1)
    words = _WORD.findall(_QUOTED.sub(" ", text.lower()))
    return "-".join(words[:_DERIVED_WORDS]) or "problem"


def observe(problem: Damage | Notice) -> None:
    """Tell the :data:`observers` that ``problem`` was reported (hosts call it: the task and
    ``open_reader``)."""
    for observer in observers:
        observer(problem.code)


#: codes already checked (a reader reports the same few codes many times).
_GOOD: set[str] = set()


def _checked(code: str) -> str:
    if code not in _GOOD:
        if not code:
            raise ValueError("a problem needs a code (short kebab-case, like 'bad-length')")
        if not is_code(code):
            raise ValueError(f"problem code {code!r} is not short kebab-case (like 'bad-length')")
        if len(_GOOD) < 4096:
            _GOOD.add(code)
    return code


@dataclass(frozen=True, slots=True)
class Damage:
    """A byte range of an input that could not be read as a good record.

    ``offset`` and ``length`` are in the file's own offset space: file offsets for plain files,
    the compressed span of the member(s) holding the damage for compressed ones; ``data``
    holds those bytes (at most ``Limits.max_record_bytes``), so the quarantine keeps what was
    skipped. ``code`` names the kind of damage (``docs/problems.md``, or the plugin's own
    kebab-case code): required, a ``ValueError`` without one. ``continues`` marks a later part of the
    damage reported just before it (a damaged range too long to hold, reported in parts): its
    bytes are quarantined, but it is the same damaged record, not another one read.
    """

    path: str
    offset: int
    reason: str
    length: int | None = None
    data: bytes = b""
    code: str = ""
    continues: bool = False

    def __post_init__(self) -> None:
        _checked(self.code)

    def __str__(self) -> str:
        return f"{self.path} at byte {self.offset}: {self.reason}"


@dataclass(slots=True)
class Notice:
    """A warning: a quirk a reader repaired or noticed, or a field a writer could not write
    (not damage: the record is delivered or written). A value: read it, do not change it (it
    is not a frozen dataclass only because a reader may report several per record, and a
    frozen one costs three times as much to make).

    ``path`` and ``offset`` say where (the input file, and the byte the reader gave: ``None``
    for the whole file or a writer's warning), ``message`` the specifics, ``code`` the kind
    (``docs/problems.md``, or the plugin's own kebab-case code; required)."""

    path: str
    offset: int | None
    message: str
    code: str = ""

    def __post_init__(self) -> None:
        _checked(self.code)

    def __str__(self) -> str:
        at = f" at byte {self.offset}" if self.offset is not None else ""
        return f"{self.path}{at}: {self.message}"
