"""NTCIR-5 WEB NW1000G-04 data trees: ``.filelist`` lines and the ``.dat`` path rule.

What is known (``../shared/specs/collections.md`` section 3.2; docs/formats/ntcir.md says
which facts are confirmed): the trees are ``raw/``, ``euc/``, ``cook/`` (and ``mecab/``); a
site's pages are listed in ``<tree>/<NNN>/<site>.filelist`` (``NNN`` the first three digits of
the seven-digit site id), one line per page, three space-separated fields ``<field1>
<part> <url>``; the page is ``<tree>/<NNN>/<part[0:3]>/<part[3:5]>xx/<site>_<part>.dat``
(Kyoto University's ``ntcir2sf.sh`` walks the collection so). The meaning of ``field1`` is not
known (kept as read), nor whether a ``.dat`` holds an HTTP header before the page (crawlmill
takes the file's bytes as the page).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .lists import ListProblem

__all__ = ["FileListItem", "dat_name", "dat_path", "format_filelist_line", "read_filelist"]

#: a ``.dat`` file name: ``<site>_<part>.dat``.
DAT = re.compile(r"(?P<site>[0-9]{6,7})_(?P<part>[0-9A-Za-z]{5,})\.dat\Z")
FILELIST = re.compile(r"(?P<site>[0-9]{6,7})\.filelist\Z")
_PART = re.compile(r"[0-9A-Za-z]{5,}\Z")


@dataclass(frozen=True)
class FileListItem:
    """One ``.filelist`` line: its three fields (``surrogateescape`` text), line number
    (1-based) and byte offset."""

    field1: str
    part: str
    url: str
    line: int
    offset: int


def dat_name(site: str, part: str) -> str:
    """``<site>_<part>.dat``; ``ValueError`` for a part that is not five or more letters or
    digits (it becomes a path: nothing else may)."""
    if not _PART.match(part) or not site.isdigit():
        raise ValueError(f"site {site!r} / part {part!r}: not a NW1000G-04 page name")
    return f"{site}_{part}.dat"


def dat_path(site: str, part: str) -> str:
    """The page's path inside a tree: ``<NNN>/<part[0:3]>/<part[3:5]>xx/<site>_<part>.dat``."""
    return f"{site[:3]}/{part[:3]}/{part[3:5]}xx/{dat_name(site, part)}"


def read_filelist(data: bytes, path: str = "") -> Iterator[FileListItem | ListProblem]:
    """The items of a ``.filelist`` and a :class:`ListProblem` per line that is not one
    (fewer than three fields, or a part that cannot name a file)."""
    offset = 0
    for number, raw in enumerate(data.splitlines(keepends=True), 1):
        line = raw.rstrip(b"\n").rstrip(b"\r")
        fields = line.decode("utf-8", "surrogateescape").split(" ", 2)
        if len(fields) == 3 and _PART.match(fields[1]) and fields[2]:
            yield FileListItem(fields[0], fields[1], fields[2], number, offset)
        else:
            why = (
                "empty line"
                if not line
                else "not <field1> <part> <url> (part: 5+ letters or digits)"
            )
            yield ListProblem(path, number, offset, why)
        offset += len(raw)


def format_filelist_line(field1: str, part: str, url: str) -> bytes:
    """One ``.filelist`` line; ``ValueError`` for fields it cannot hold (a space in the first
    two, a line break anywhere, a part that cannot name a file)."""
    if " " in field1 + part or any(c in field1 + part + url for c in "\r\n") or not url:
        raise ValueError(f"filelist fields {field1!r} {part!r} {url!r} do not fit one line")
    if not _PART.match(part):
        raise ValueError(f"part {part!r}: five or more letters or digits")
    return f"{field1} {part} {url}\n".encode("utf-8", "surrogateescape")
