"""``crawlmill inspect`` of a folder at a URL (an ``s3://``, ``gs://``... prefix): the prefix is
listed once and mirrored as a local shadow folder (:mod:`crawlmill.core.remote_tree`: the bytes
the readers' discovery reads fetched, every other object a hole of its size), on which the
readers' ``sniff`` and ``discover`` run as on a local folder; what they found is mapped back to
URLs, and records are read from the URLs through the storage layer, as ``convert`` reads them.
A file at a URL needs no mirror: detection reads its first bytes (ranged reads) and its records
are streamed."""

from __future__ import annotations

import contextlib
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import remote_tree, storage
from ..inputs import is_side_file
from ..registry import Registry

__all__ = ["Mirror", "is_remote_folder", "mirrored"]


@dataclass(frozen=True)
class Mirror:
    """A folder at the URL ``root`` mirrored in the local folder ``path``."""

    path: str
    root: str

    def to_urls(self, value: Any) -> Any:
        """``value`` with every mirror path in it turned into its URL
        (:func:`crawlmill.core.remote_tree.to_urls`)."""
        return remote_tree.to_urls(value, self.path, self.root)

    def text(self, message: str) -> str:
        """``message`` with every mirror path in it shown as its URL."""
        return message.replace(self.path, self.root)


def is_remote_folder(path: str) -> bool:
    """Whether ``path`` is a URL naming a folder (prefix), not an object."""
    return storage.is_remote(path) and not storage.isfile(path) and storage.isdir(path)


@contextlib.contextmanager
def mirrored(registry: Registry, url: str) -> Iterator[Mirror]:
    """The folder at ``url`` mirrored for ``registry``'s readers (removed on exit). Hidden
    names, ``*.crc`` and ``_SUCCESS`` are left out as planning leaves them out; an object key
    with an empty, ``.`` or ``..`` part names no local path: it is left out with a warning on
    stderr."""
    root = url.rstrip("/")
    found = []
    for obj, size in storage.find(root):
        rel = obj[len(root) :].lstrip("/")
        parts = rel.split("/")
        if ".." in parts or "." in parts or "" in parts or "\\" in rel:
            print(
                f"warning: {storage.redact(obj)} not looked at: its object key has an empty, "
                "'.' or '..' part (or a backslash): it names no safe local path",
                file=sys.stderr,
            )
        elif not any(is_side_file(part) for part in parts):
            found.append((obj, size))
    shadow = remote_tree.shadow_folder(found, registry, "crawlmill-inspect-")
    try:
        remote_tree.build(root, found, shadow, registry)
        yield Mirror(shadow, root)
    finally:
        shutil.rmtree(shadow, ignore_errors=True)
