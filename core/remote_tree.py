"""Collections below a URL: a listed prefix mirrored as a local **shadow tree** the readers'
``discover`` and ``sniff`` see as a folder, and what they found mapped back to URLs.

A collection reader finds its units by names and folders (a Nutch crawl folder's
``crawldb/current/part-00000/data``, a ClueWeb09 segment's ``en0000/00.warc.gz``, a Common
Crawl 2012 segment's ``metadata-NNNNN``) and reads a few small files to decide (a Hadoop
``data`` file's header: CrawlDB or LinkDB; a ClueWeb09 ``.md5`` or ``_counts.txt`` list). A
prefix listed once (:func:`crawlmill.core.storage.find`, sizes included) is therefore mirrored
in a temporary folder: every object becomes a sparse file of its size (no bytes fetched),
except the files a reader's discovery reads: the first :data:`HEAD_BYTES` of Hadoop ``data``
and ``part-NNNNN`` files (one ranged read each), and whole the lists (ClueWeb09's ``.md5`` and
``_counts.txt``, NTCIR's ``doclist``, ``linklist``... whose order the reader notes). The planning of a local
folder then runs unchanged on the shadow, and :func:`to_urls` turns every shadow path in what
it found (units, their parts and meta, side files, problems) back into the object's URL;
readers read the URLs through the storage layer. The shadow is removed after planning.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Any

from . import storage

__all__ = ["HEAD_BYTES", "build", "to_urls"]

#: bytes of a Hadoop file fetched for discovery (its header: key and value classes).
HEAD_BYTES = 1 << 16
#: the largest list file fetched whole for discovery.
_LIST_BYTES = 64 << 20
_HADOOP = re.compile(r"(data|part-(?:[rm]-)?[0-9]{5,})\Z")
_LISTS = (".md5", ".txt")
_LIST_NAMES = frozenset(("sitelist", "aliaslist", "doclist", "targetlist", "duplist", "linklist"))


def build(root: str, found: list[tuple[str, int]], shadow: str) -> None:
    """Mirror the objects ``found`` below the URL ``root`` (``(url, size)``, keys already
    checked safe) in the local folder ``shadow`` (see the module docstring)."""
    for url, size in found:
        rel = url[len(root) :].lstrip("/")
        local = os.path.join(shadow, *rel.split("/"))
        os.makedirs(os.path.dirname(local), exist_ok=True)
        name = rel.rsplit("/", 1)[-1]
        data = b""
        if (name.endswith(_LISTS) or name in _LIST_NAMES) and size <= _LIST_BYTES:
            data = storage.read_all(url)
        elif _HADOOP.match(name):
            data = storage.read_start(url, HEAD_BYTES)
        with open(local, "wb") as fh:
            fh.write(data)
            fh.truncate(max(size, len(data)))  # the rest: a hole, no bytes on disk


def to_urls(value: Any, shadow: str, root: str) -> Any:
    """``value`` with every path below ``shadow`` (a string, or inside a tuple, list, dict or
    :class:`~crawlmill.core.input_file.InputFile`) turned into the URL below ``root``."""
    if isinstance(value, str):
        for base in {shadow, os.path.realpath(shadow)}:
            if value == base:
                return root
            if value.startswith(base + os.sep):
                return root + "/" + value[len(base) + 1 :].replace(os.sep, "/")
        return value
    if isinstance(value, tuple) and hasattr(value, "_replace"):  # a NamedTuple
        return type(value)(*(to_urls(v, shadow, root) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(to_urls(v, shadow, root) for v in value)
    if isinstance(value, dict):
        return {k: to_urls(v, shadow, root) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: to_urls(getattr(value, f.name), shadow, root)
                  for f in dataclasses.fields(value) if f.init}  # fmt: skip
        return dataclasses.replace(value, **fields)
    return value
