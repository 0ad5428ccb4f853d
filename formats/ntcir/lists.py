"""The list files of an NTCIR WEB collection (NW100G-01 README sections 2-7), read and written.

Every list is one item per line, fields separated by single tabs, ``\\n`` terminated:

* ``sitelist``: ``<site id>\\t<server type>\\t<host>\\t<port>``; the site id is six decimal
  characters, unique; the server type is ``http``; the port may be other than 80;
* ``aliaslist``: ``<alias>\\t<site id>``; the alias is ``http://host`` or ``http://host:port``
  (the port often left out when it is 80); the site id is one of ``sitelist``;
* ``doclist`` and ``targetlist``: ``<doc id>\\t<URL>``; a doc id is ``NW`` and nine decimal
  characters, unique within a list (``targetlist`` is a superset of ``doclist``);
* ``duplist``: ``<URL>\\t<doc id>`` (several URLs may name one doc id);
* ``linklist``: ``<doc id>\\t<URL>`` (a link from a ``doclist`` page to a ``targetlist`` URL).

URLs and host names are bytes as stored (decoded here with ``surrogateescape``, so writing
gives the same bytes back). :func:`read_list` yields the items and raises nothing for a bad
line: it is reported as a :class:`ListProblem` (file, line number, byte offset, reason) beside
the good items, so one bad line loses one item, not the list. A line holding a NUL byte (no
field holds one: a zero-filled block) and a last line without its new line (the list cut
short) are bad lines too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "LIST_NAMES",
    "ListItem",
    "ListName",
    "ListProblem",
    "format_item",
    "is_doc_id",
    "is_site_id",
    "iter_list",
    "read_list",
    "write_list",
]

ListName = Literal["sitelist", "aliaslist", "doclist", "targetlist", "duplist", "linklist"]
LIST_NAMES: tuple[ListName, ...] = (
    "sitelist",
    "aliaslist",
    "doclist",
    "targetlist",
    "duplist",
    "linklist",
)
_FIELDS = {
    "sitelist": 4,
    "aliaslist": 2,
    "doclist": 2,
    "targetlist": 2,
    "duplist": 2,
    "linklist": 2,
}
_SITE_ID = re.compile(r"[0-9]{6}\Z")
_DOC_ID = re.compile(r"NW[0-9]{9}\Z")
_ALIAS = re.compile(r"http://[^/:\s]+(?::[0-9]+)?/?\Z", re.I)
_ALIAS_HTTPS = re.compile(r"https?://[^/:\s]+(?::[0-9]+)?/?\Z", re.I)


def is_site_id(value: str) -> bool:
    """Six decimal characters."""
    return bool(_SITE_ID.match(value))


def is_doc_id(value: str) -> bool:
    """``NW`` and nine decimal characters."""
    return bool(_DOC_ID.match(value))


@dataclass(frozen=True)
class ListItem:
    """One line of a list: its fields (text; bytes decoded with ``surrogateescape``), the
    line number (1-based) and the byte offset of the line."""

    fields: tuple[str, ...]
    line: int
    offset: int


@dataclass(frozen=True)
class ListProblem:
    """A line of a list that is not an item: where and why; ``code`` the problem's kind
    (docs/problems.md)."""

    path: str
    line: int
    offset: int
    reason: str
    code: str = "bad-list-line"


def _check(name: ListName, fields: list[str], https: bool = False) -> str | None:
    """Why ``fields`` are not an item of list ``name`` (``None``: they are); ``https``: an
    ``https`` server type and alias are items too (crawlmill's extension)."""
    if len(fields) != _FIELDS[name]:
        return f"{len(fields)} tab-separated field(s); a {name} line has {_FIELDS[name]}"
    if name == "sitelist":
        site, kind, host, port = fields
        if not is_site_id(site):
            return f"site id {site!r} is not six decimal characters"
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            return f"host {host!r} or port {port!r} is not valid"
        if kind == "http" or (https and kind == "https"):
            return None
        return f'server type {kind!r} is not "http"'
    if name == "aliaslist":
        alias, site = fields
        if not (_ALIAS_HTTPS if https else _ALIAS).match(alias):
            return f"alias {alias!r} is not http://host(:port)"
        return None if is_site_id(site) else f"site id {site!r} is not six decimal characters"
    doc, url = (fields[1], fields[0]) if name == "duplist" else (fields[0], fields[1])
    if not is_doc_id(doc):
        return f"doc id {doc!r} is not NW and nine decimal characters"
    return None if url else "the URL is empty"


def read_list(data: bytes, name: ListName, path: str = "") -> Iterator[ListItem | ListProblem]:
    """The items of list ``name`` in ``data``, and a :class:`ListProblem` per bad line (an
    empty line is one)."""
    return iter_list(data.splitlines(keepends=True), name, path)


def iter_list(
    lines: Iterable[bytes], name: ListName, path: str = ""
) -> Iterator[ListItem | ListProblem]:
    """:func:`read_list` on the lines (with their line ends) of an open list file: one line
    in memory at a time."""
    offset = 0
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip(b"\n").rstrip(b"\r")
        if not raw.endswith(b"\n"):  # "terminated by a new line character": cut short
            yield ListProblem(path, number, offset, "no new line at the end of the list: "
                              "its last line is cut short")  # fmt: skip
        elif b"\x00" in line:  # no field holds a NUL (a zero-filled block)
            yield ListProblem(path, number, offset, "a NUL byte in the line")
        elif line:
            fields = line.decode("utf-8", "surrogateescape").split("\t")
            why = _check(name, fields)
            if why is None:
                yield ListItem(tuple(fields), number, offset)
            else:
                yield ListProblem(path, number, offset, why)
        else:
            yield ListProblem(path, number, offset, "empty line")
        offset += len(raw)


def format_item(name: ListName, fields: Iterable[str], https: bool = False) -> bytes:
    """One line of list ``name``; raises ``ValueError`` for fields that are not an item (a
    tab or line break inside a field included). ``https``: an ``https`` site (server type)
    or alias is written too, which NW100G-01 has not (the ``ntcir`` writer warns)."""
    values = list(fields)
    if any(ch in value for value in values for ch in "\t\r\n"):
        raise ValueError(f"{name}: a field holds a tab or a line break: {values!r}")
    why = _check(name, values, https)
    if why is not None:
        raise ValueError(f"{name}: {why}")
    return "\t".join(values).encode("utf-8", "surrogateescape") + b"\n"


def write_list(name: ListName, items: Iterable[Iterable[str]]) -> bytes:
    """The bytes of list ``name`` holding ``items`` in the order given."""
    return b"".join(format_item(name, fields) for fields in items)
