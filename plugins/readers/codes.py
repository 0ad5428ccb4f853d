"""Tables that recover problem codes from reason texts (ClueWeb09's collection scan).

The WARC and ARC framers, the member stream and the codecs set each problem's code where they
find it (``Damage.code``, ``Quirk.code``, :class:`~crawlmill.formats.notes.Note`); their readers
copy it. The tables left here map the texts of the other readers to stable codes
(:mod:`crawlmill.core.problems`), so the run report counts one kind of problem under one code.
Every code is listed with its meaning in ``docs/problems.md``. A reason no pattern matches gets a
code derived from its words (:func:`~crawlmill.core.problems.derive_code`): not listed, so the
test of the listed codes names it.
"""

from __future__ import annotations

import re

from crawlmill.core.problems import derive_code

__all__ = ["CLUEWEB09", "code_of"]

Table = tuple[tuple[re.Pattern[str], str], ...]


def _table(*rows: tuple[str, str]) -> Table:
    return tuple((re.compile(pattern), code) for pattern, code in rows)


#: what a ClueWeb09 collection scan finds besides the files it reads (warnings).
CLUEWEB09 = _table(
    (r"not a ClueWeb09 directory name|not a WARC file; not read|outside the <ll>NNNN", "not-read"),
    (r"^line \d+ is not '", "bad-list-line"),
    (r"^listed in .* but stored in segment", "listed-elsewhere"),
    (r"^no .* list found for segment", "no-list"),
    (r"^present but not listed in", "not-listed"),
)


def code_of(reason: str, *tables: Table) -> str:
    """The code of ``reason``: the first pattern of ``tables`` that matches it; a code the
    reason starts with (``"invalid-date: ..."``) for an empty code in a table; else one derived
    from its words."""
    for table in tables:
        for pattern, code in table:
            if pattern.search(reason):
                return code or derive_code(reason)
    return derive_code(reason)
