"""The NTCIR WEB (NW100G-01) lists checked line by line and against each other, as the README
(sections 2-7) defines them.

Each rule, with the README's words it comes from:

* every line of every list is an item of its list (:func:`crawlmill.formats.ntcir.lists.
  iter_list`: field count, site id, doc id, alias form; "The server type is fixed to
  ``http``");
* ``sitelist``: "The site id ... is unique within the list";
* ``aliaslist``: "The site id necessarily corresponds to a single list item in the
  sitelist"; an alias is a host name "not included in the sitelist";
* ``doclist``: "A document id ... is unique within the list"; its documents were "crawled from
  the sites listed in the sitelist" (a URL's host and port are a site's or an alias's; checked
  when ``sitelist`` is there);
* ``duplist``: its doc id is one of ``doclist`` ("the corresponding document id"); its URLs
  "are not included in the doclist";
* ``targetlist``: doc ids unique ("takes the same form as the doclist"); "It is a superset of
  the doclist" (every ``doclist`` line is a ``targetlist`` line);
* ``linklist``: "links from pages in the doclist to pages in the targetlist" (the doc id is
  one of ``doclist``, the URL one of ``targetlist`` or a ``duplist`` URL of a page).

:func:`check_lists` yields one :class:`ListFailure` per failed line, naming the list file and
the line. Sites (``sitelist``, ``aliaslist``: at most a million) are held in memory; the doc
id and URL rules merge the lists sorted on disk (:func:`crawlmill.algorithms.sorted_lines.
sort_lines`), so memory stays bounded for lists of 100 million lines.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from crawlmill.algorithms.sorted_lines import sort_lines

from .lists import ListItem, ListName, iter_list

__all__ = ["ListFailure", "check_lists", "site_of_url"]

_SEP = b"\x00"  # between a sort key and its line number: sorts below every key byte


@dataclass(frozen=True)
class ListFailure:
    """One line of a list that breaks a rule: the list file, the list checked (the rule's
    list), the 1-based line and why."""

    path: str
    check: str
    line: int
    reason: str


def site_of_url(url: str) -> tuple[str, int] | None:
    """``(host, port)`` of an ``http://`` URL (host in lower case, port 80 when left out), or
    ``None`` for another scheme or a URL without a host."""
    try:
        parts = urlsplit(url)
        if parts.scheme.lower() != "http" or not parts.hostname:
            return None
        return parts.hostname.lower(), parts.port or 80
    except ValueError:
        return None


def _items(path: str, name: ListName) -> Iterator[ListItem | object]:
    with open(path, "rb") as fh:
        yield from iter_list(fh, name, path)


def _keyed(path: str, name: ListName, field: int | tuple[int, int]) -> Iterator[bytes]:
    for item in _items(path, name):
        if isinstance(item, ListItem):
            if isinstance(field, tuple):
                key = "\t".join(item.fields[i] for i in field)
            else:
                key = item.fields[field]
            yield key.encode("utf-8", "surrogateescape") + _SEP + b"%d" % item.line


def _sorted(
    path: str | None, name: ListName, field: int | tuple[int, int]
) -> Iterator[tuple[bytes, int]]:
    if path is None:
        return
    for line in sort_lines(_keyed(path, name, field)):
        key, _, number = line.rpartition(_SEP)
        yield key, int(number)


def _tag(i: int, stream: Iterator[tuple[bytes, int]]) -> Iterator[tuple[bytes, int, int]]:
    for key, number in stream:
        yield key, i, number


def _groups(*streams: Iterator[tuple[bytes, int]]) -> Iterator[tuple[bytes, list[list[int]]]]:
    """Key -> the line numbers of each stream with that key, in key order (each stream
    sorted by key)."""
    tagged = [_tag(i, s) for i, s in enumerate(streams)]
    current: bytes | None = None
    found: list[list[int]] = []
    for key, i, number in heapq.merge(*tagged):
        if key != current:
            if current is not None:
                yield current, found
            current, found = key, [[] for _ in streams]
        found[i].append(number)
    if current is not None:
        yield current, found


def _text(key: bytes) -> str:
    return key.decode("utf-8", "surrogateescape")


def check_lists(lists: Mapping[str, str]) -> Iterator[ListFailure]:
    """Every rule of the module docstring on the lists ``lists`` (list name -> file) holds;
    a list that is not there is not checked (nor the rules that need it)."""
    # each line of each list, and the sites (in memory)
    sites: dict[str, int] = {}
    hosts: set[tuple[str, int]] = set()
    aliases: set[tuple[str, int]] = set()
    for name in ("sitelist", "aliaslist", "doclist", "targetlist", "duplist", "linklist"):
        path = lists.get(name)
        if path is None:
            continue
        for item in _items(path, name):  # type: ignore[arg-type]
            if not isinstance(item, ListItem):
                yield ListFailure(path, name, item.line, item.reason)  # type: ignore[attr-defined]
            elif name == "sitelist":
                site, _, host, port = item.fields
                if site in sites:
                    yield ListFailure(path, name, item.line,
                                      f"site id {site} is also on line {sites[site]}")  # fmt: skip
                else:
                    sites[site] = item.line
                hosts.add((host.lower(), int(port)))
    sitelist, aliaslist = lists.get("sitelist"), lists.get("aliaslist")
    if aliaslist is not None:
        for item in _items(aliaslist, "aliaslist"):
            if not isinstance(item, ListItem):
                continue
            alias, site = item.fields
            where = site_of_url(alias)
            if where is not None:
                aliases.add(where)
            if sitelist is not None and site not in sites:
                yield ListFailure(aliaslist, "aliaslist", item.line,
                                  f"site id {site} is not in sitelist")  # fmt: skip
            if sitelist is not None and where in hosts:
                yield ListFailure(aliaslist, "aliaslist", item.line,
                                  f"{alias} is a host of sitelist, not an alias")  # fmt: skip
    doclist = lists.get("doclist")
    if doclist is not None and sitelist is not None:
        for item in _items(doclist, "doclist"):
            if isinstance(item, ListItem):
                where = site_of_url(item.fields[1])
                if where is None or (where not in hosts and where not in aliases):
                    yield ListFailure(doclist, "doclist", item.line,
                        f"URL {item.fields[1]} is on no site of sitelist or aliaslist")  # fmt: skip
    yield from _doc_rules(lists)
    yield from _url_rules(lists)
    targetlist = lists.get("targetlist")
    if doclist is not None and targetlist is not None:  # targetlist is a superset of doclist
        pairs = _groups(_sorted(doclist, "doclist", (0, 1)),
                        _sorted(targetlist, "targetlist", (0, 1)))  # fmt: skip
        for key, (docs, targets) in pairs:
            if docs and not targets:
                doc, url = _text(key).split("\t", 1)
                for n in docs:
                    yield ListFailure(doclist, "targetlist", n, f"doc id {doc} with URL {url} "
                                      "is not in targetlist (a superset of doclist)")  # fmt: skip


def _doc_rules(lists: Mapping[str, str]) -> Iterator[ListFailure]:
    """Doc ids: unique in doclist and targetlist; those of duplist and linklist in doclist."""
    doclist = lists.get("doclist")
    streams = _groups(
        _sorted(doclist, "doclist", 0),
        _sorted(lists.get("targetlist"), "targetlist", 0),
        _sorted(lists.get("duplist"), "duplist", 1),
        _sorted(lists.get("linklist"), "linklist", 0),
    )
    for key, (docs, targets, dups, links) in streams:
        doc = _text(key)
        for name, lines in (("doclist", docs), ("targetlist", targets)):
            for n in sorted(lines)[1:]:
                yield ListFailure(lists[name], name, n,
                                  f"doc id {doc} is also on line {min(lines)}")  # fmt: skip
        if doclist is not None and not docs:
            for name, lines in (("duplist", dups), ("linklist", links)):
                for n in lines:
                    yield ListFailure(lists[name], name, n, f"doc id {doc} is not in doclist")


def _url_rules(lists: Mapping[str, str]) -> Iterator[ListFailure]:
    """URLs: duplist's not in doclist; linklist's in targetlist."""
    doclist, targetlist = lists.get("doclist"), lists.get("targetlist")
    streams = _groups(
        _sorted(doclist, "doclist", 1),
        _sorted(targetlist, "targetlist", 1),
        _sorted(lists.get("duplist"), "duplist", 0),
        _sorted(lists.get("linklist"), "linklist", 1),
    )
    for key, (docs, targets, dups, links) in streams:
        url = _text(key)
        if docs:
            for n in dups:
                yield ListFailure(lists["duplist"], "duplist", n,
                    f"URL {url} is in doclist (line {min(docs)}): a duplicate URL is not")  # fmt: skip
        if targetlist is not None and not targets and not dups:  # a duplicate URL names a page
            for n in links:
                yield ListFailure(lists["linklist"], "linklist", n,
                                  f"URL {url} is not in targetlist")  # fmt: skip
