"""Identity of what the WARC writer writes: record ids, the conversion date, its warcinfo.

Record ids are deterministic: ``urn:uuid:`` uuid5 of the record's source identity (input,
file inside a collection input, offset or ordinal, URL, raw date, and the name a reader gives a
record that describes its file), so a rerun writes the same ids. Several records can share
that identity (the entries of one compressed block of a key-value file share the block's
offset; a source record a reader maps to two records): the second and later of them, among the last
:data:`REPEAT_WINDOW` identities of the task, get their repeat number in the identity too, so
every record of a task has an id of its own. The conversion date is
``SOURCE_DATE_EPOCH`` when set, else now.
"""

from __future__ import annotations

import os
import posixpath
from collections import OrderedDict
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from crawlmill.core import Record, WriteContext
from crawlmill.formats.warc.builder import CONFORMS_TO, warcinfo_record
from crawlmill.formats.warc.writer import Framing, format_warc_date, uuid5_urn

if TYPE_CHECKING:
    import uuid

__all__ = [
    "REPEAT_WINDOW",
    "RECORD_ID_NAMESPACE",
    "RecordIds",
    "conversion_date",
    "warcinfo_of_task",
    "software",
]

#: the name whose uuid5 in the URL namespace is ``RECORD_ID_NAMESPACE``, the namespace of
#: crawlmill's deterministic record ids (uuid5), made on first use (:func:`__getattr__`): a
#: run that mints no id (a verbatim copy) imports no ``uuid``.
_NAMESPACE_NAME = "https://crawlmill.invalid/warc-record-id"
_namespace: list[uuid.UUID] = []
RECORD_ID_NAMESPACE: uuid.UUID  # declared; its value comes from __getattr__


def _record_namespace() -> uuid.UUID:
    if not _namespace:
        import uuid

        _namespace.append(uuid.uuid5(uuid.NAMESPACE_URL, _NAMESPACE_NAME))
    return _namespace[0]


def __getattr__(name: str) -> Any:
    """``RECORD_ID_NAMESPACE``: the namespace of crawlmill's deterministic record ids."""
    if name == "RECORD_ID_NAMESPACE":
        return _record_namespace()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: how many recent source identities a task remembers to number their repeats (records that
#: share one are adjacent in every reader's order; the window bounds the memory).
REPEAT_WINDOW = 4096


def conversion_date() -> datetime:
    """``SOURCE_DATE_EPOCH`` when set (reproducible runs), else now (whole seconds, UTC)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        return datetime.fromtimestamp(int(epoch), UTC)
    return datetime.now(UTC).replace(microsecond=0)


def software() -> str:
    """``crawlmill/<version>``."""
    from crawlmill.core import __version__

    return f"crawlmill/{__version__}"


class RecordIds:
    """Deterministic record ids of one task's records."""

    def __init__(self, ctx: WriteContext) -> None:
        self.ctx = ctx
        self._inner_paths: dict[str, str] = {}
        self._recent: OrderedDict[str, int] = OrderedDict()

    def of(self, record: Record, ordinal: int, role: str = "") -> bytes:
        """The id of ``record``, the ``ordinal``-th of the task (used without a source
        offset); ``role`` names a record describing its file."""
        src = record.source
        inner = ""
        if src is not None and src.path and src.path != self.ctx.input.path:
            inner = self._inner_paths.get(src.path)
            if inner is None:
                inner = self._inner_path(src.path)
                self._inner_paths[src.path] = inner
        offset = src.offset if src is not None and src.offset is not None else f"#{ordinal}"
        identity = "\0".join(
            [
                self.ctx.input.relpath,
                inner,
                str(offset),
                record.url or "",
                record.date_raw or "",
                role,
            ]
        )
        seen = self._recent.get(identity)
        if seen is None:
            self._recent[identity] = 0
            if len(self._recent) > REPEAT_WINDOW:
                self._recent.popitem(last=False)
        else:
            self._recent[identity] = seen + 1
            self._recent.move_to_end(identity)
            identity += f"\0repeat {seen + 1}"
        return uuid5_urn(_record_namespace(), identity)

    def _inner_path(self, path: str) -> str:
        """``path`` relative to the task's input (a file inside a collection directory),
        empty when it is the input itself."""
        full, root = os.path.abspath(path), os.path.abspath(self.ctx.input.path)
        if full == root:
            return ""
        if full.startswith(root + os.sep):
            return os.path.relpath(full, root).replace(os.sep, "/")
        return os.path.basename(full)  # not below the input: its name, never the cwd

    def warcinfo(self, path: str) -> bytes:
        """The id of crawlmill's warcinfo at the start of output ``path``."""
        identity = "\0".join([self.ctx.input.relpath, path, "warcinfo"])
        return uuid5_urn(_record_namespace(), identity)


def warcinfo_of_task(
    framing: Framing,
    *,
    record_id: bytes,
    path: str,
    source_relpath: str,
    source_format: str | None,
    when: datetime,
    digest: bool,
) -> tuple[bytes, dict[str, Any]]:
    """crawlmill's warcinfo for output ``path``: what wrote the file, from what, when
    (IIPC guidelines Rec. 12-14); returns the record's bytes and its CDXJ facts."""
    fmt, conforms = CONFORMS_TO[framing.version]
    source_name = posixpath.basename(source_relpath.replace("\\", "/"))
    source = (source_format or "unknown").upper()
    date = format_warc_date(when, framing.version)
    fields = [
        ("software", software()),
        ("format", fmt),
        ("conformsTo", conforms),
        ("description", f"converted from {source} file {source_name} by {software()}"),
        ("source", source_name),
        ("source-format", source),
        ("conversion-date", date.decode("ascii")),
    ]
    data, block = warcinfo_record(
        framing,
        fields,
        record_id=record_id,
        date=date,
        filename=posixpath.basename(path).encode("utf-8", "surrogateescape"),
        digest=digest,
    )
    facts = {
        "type": "warcinfo",
        "url": "",
        "date": date.decode("ascii"),
        "content_type": "application/warc-fields",
        "http_content_type": None,
        "status": None,
        "payload_digest": None,
        "payload": block,
    }
    return data, facts
