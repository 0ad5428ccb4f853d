"""``cc-metadata`` reader: Common Crawl 2012 metadata as JSON lines, back into Records.

Each line ``{"url": ..., "metadata": {...}, "text": ...}`` (what the ``cc-metadata`` writer
writes) becomes a ``metadata`` record for the URL: payload the metadata JSON as UTF-8
(``content_type`` ``application/json``), ``date`` the ``attempt_time``, ``ip`` the
``server_ip``, ``outlinks`` the ``href`` and ``text`` of ``content.links`` (feed item links
too), ``text`` the textData when the line has it; ``extras["cc_metadata"]`` keeps the line
as read (so cc-metadata -> cc-metadata gives the same lines), the disposition and the HTTP
status. A failure (``disposition: FAILURE``) is a record of its own, with its reason in extras.
A line that is not a JSON object with a ``url`` is damage at its byte offset; the next line is
read. Detected by a first line that is such an object with a ``metadata`` object.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from crawlmill.core import (
    Damage,
    Outlink,
    Provenance,
    ReadContext,
    Reader,
    Record,
    RecordKind,
    hookimpl,
)

__all__ = ["CcMetadataReader"]


def _links(metadata: dict[str, Any]) -> list[Outlink]:
    content = metadata.get("content")
    if not isinstance(content, dict):
        return []
    found = []
    for link in content.get("links") or []:
        if isinstance(link, dict) and isinstance(link.get("href"), str):
            found.append(Outlink(link["href"], str(link.get("text") or "")))
    for item in content.get("items") or []:
        link = item.get("link") if isinstance(item, dict) else None
        if isinstance(link, dict) and isinstance(link.get("href"), str):
            found.append(Outlink(link["href"], str(item.get("title") or "")))
    return found


class CcMetadataReader(Reader):
    """Common Crawl 2012 metadata JSON lines (``{"url", "metadata"[, "text"]}``)."""

    name = "cc-metadata"
    file_suffixes = (".jsonl",)

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """Sure when the first line is an object with ``url`` and a ``metadata`` object."""
        first = head.split(b"\n", 1)[0]
        try:
            data = json.loads(first)
        except ValueError:
            return 0.0
        ok = isinstance(data, dict) and "url" in data and isinstance(data.get("metadata"), dict)
        return 0.9 if ok else 0.0

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """One ``metadata`` record per line (see the module docstring)."""
        offset = 0
        with open(ctx.path, "rb") as fh:
            for raw in fh:
                start, offset = offset, offset + len(raw)
                if not raw.strip():
                    continue
                try:
                    line = json.loads(raw)
                    if not isinstance(line, dict) or not isinstance(line.get("url"), str):
                        raise ValueError("not an object with a url")
                    metadata = line.get("metadata")
                    if not isinstance(metadata, dict):
                        raise ValueError("no metadata object")
                except ValueError as exc:
                    reason = f"not a metadata JSON line: {exc}"
                    ctx.report_damage(
                        Damage(ctx.path, start, reason, len(raw), raw, "bad-json-line")
                    )
                    continue
                yield self._record(ctx.path, start, len(raw), line, metadata)

    @staticmethod
    def _record(path: str, offset: int, length: int, line: dict, metadata: dict) -> Record:
        when = metadata.get("attempt_time")
        date = datetime.fromtimestamp(when / 1000, UTC) if isinstance(when, int) else None
        payload = json.dumps(metadata, ensure_ascii=False).encode("utf-8")
        extras = {
            "line": line,
            "disposition": metadata.get("disposition"),
            "http_result": metadata.get("http_result"),
            "failure_reason": metadata.get("failure_reason"),
        }
        text = line.get("text")
        return Record(
            kind=RecordKind.METADATA,
            url=line["url"],
            date=date,
            payload=payload,
            content_type="application/json",
            charset="utf-8",
            ip=metadata.get("server_ip") if isinstance(metadata.get("server_ip"), str) else None,
            text=text if isinstance(text, str) else None,
            outlinks=_links(metadata),
            extras={"cc_metadata": extras},
            source=Provenance(path, offset, length, "cc-metadata"),
        )


@hookimpl
def crawlmill_register_readers(register):
    """Register ``cc-metadata``."""
    register(CcMetadataReader)
