"""An example third-party crawlmill plugin: a ``lines`` reader, a ``host`` filter and a
``jsonl`` writer, registered through the ``crawlmill`` entry-point group (see pyproject.toml).

* ``lines`` reads text files of ``URL<TAB>DATE<TAB>TEXT`` lines (suffix ``.lines``), one
  resource record per line; a line without a tab is reported as damage and skipped.
* ``host`` keeps records whose URL host is one of ``hosts`` (and their subdomains).
* ``jsonl`` writes one JSON object per record -- url, date_raw, kind and the SHA-1 of the
  payload -- to ``<input relpath>.jsonl`` below the output folder.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from urllib.parse import urlsplit

from crawlmill.core import (
    Damage,
    Drop,
    Filter,
    PluginOptions,
    Provenance,
    ReadContext,
    Reader,
    Record,
    RecordKind,
    WriteContext,
    Writer,
    hookimpl,
)
from pydantic import Field


class LinesReader(Reader):
    """Read ``URL<TAB>DATE<TAB>TEXT`` lines, one resource record per line."""

    name = "lines"
    file_suffixes = (".lines",)

    class Options(PluginOptions):
        separator: str = Field(default="\t", min_length=1, description="field separator")

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """Sure of ``.lines`` files whose first line has the separator."""
        if not path.endswith(".lines"):
            return 0.0
        return 0.9 if b"\t" in head.split(b"\n", 1)[0] else 0.3

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """One record per non-empty line; damage for lines without a date field."""
        sep = self.options.separator.encode()
        offset = 0
        with open(ctx.path, "rb") as fh:
            for line in fh:
                start, offset = offset, offset + len(line)
                body = line.rstrip(b"\r\n")
                if not body:
                    continue
                parts = body.split(sep, 2)
                if len(parts) < 2 or not parts[0]:
                    ctx.report_damage(
                        Damage(ctx.path, start, "expected URL, DATE, TEXT", len(line), line)
                    )
                    continue
                yield Record(
                    kind=RecordKind.RESOURCE,
                    url=parts[0].decode("utf-8", "surrogateescape"),
                    date_raw=parts[1].decode("utf-8", "surrogateescape"),
                    payload=parts[2] if len(parts) > 2 else b"",
                    content_type="text/plain",
                    source=Provenance(ctx.path, start, len(line), "lines"),
                )


class HostFilter(Filter):
    """Keep records whose URL host is one of the given hosts (or a subdomain of one)."""

    name = "host"

    class Options(PluginOptions):
        hosts: list[str] = Field(min_length=1, description="host names to keep, e.g. [example.org]")
        subdomains: bool = Field(default=True, description="also keep subdomains of those hosts")

    def apply(self, record: Record) -> Record | Drop:
        """Drop with reason other-host when the URL's host is not listed."""
        host = (urlsplit(record.url or "").hostname or "").lower()
        for wanted in self.options.hosts:
            wanted = wanted.lower()
            if host == wanted or (self.options.subdomains and host.endswith("." + wanted)):
                return record
        return Drop("other-host")


class JsonlWriter(Writer):
    """Write one JSON line per record: url, date_raw, kind and the SHA-1 of the payload."""

    name = "jsonl"

    class Options(PluginOptions):
        suffix: str = Field(default=".jsonl", description="appended to the input's relative path")

    def open(self, ctx: WriteContext) -> None:
        """Create ``<relpath><suffix>`` for this task."""
        self.out = ctx.create(ctx.input.relpath + self.options.suffix)

    def write(self, record: Record) -> None:
        """Append the record's line."""
        line = {
            "url": record.url,
            "date_raw": record.date_raw,
            "kind": str(record.kind),
            "sha1": hashlib.sha1(record.payload).hexdigest(),
        }
        self.out.write(json.dumps(line, sort_keys=True).encode() + b"\n")

    def close(self) -> None:
        """Close the file; the engine commits it."""
        self.out.close()


@hookimpl
def crawlmill_register_readers(register):
    """Register the ``lines`` reader."""
    register(LinesReader)


@hookimpl
def crawlmill_register_filters(register):
    """Register the ``host`` filter."""
    register(HostFilter)


@hookimpl
def crawlmill_register_writers(register):
    """Register the ``jsonl`` writer."""
    register(JsonlWriter)


@hookimpl
def crawlmill_detect_format(path, head):
    """Claim ``.lines`` files for the ``lines`` reader."""
    return [("lines", LinesReader.sniff(path, head))]
