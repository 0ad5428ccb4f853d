"""A tiny plugin for the config and CLI tests, independent of the real format plugins.

Put this folder on ``sys.path`` (or ``PYTHONPATH``) and name ``crawlmill_toy_plugin`` in a
config's ``plugins:`` or with ``--plugin``. Components:

* reader ``toytext``: one resource record per non-empty line ``URL PAYLOAD`` of a ``.toy``
  file; a line starting with ``!`` is damage.
* filter ``threshold``: drops records whose payload is longer than ``threshold`` (0..64).
* writer ``toyout``: writes ``url payload`` lines to ``<relpath>.out``; ``version`` "1.0"/"1.1".
"""

from __future__ import annotations

from typing import Literal

from crawlmill.core import (
    Damage,
    Drop,
    Filter,
    PluginOptions,
    Provenance,
    Reader,
    Record,
    RecordKind,
    Writer,
    hookimpl,
)
from pydantic import Field


class ToyReader(Reader):
    """Toy lines: URL SPACE PAYLOAD."""

    name = "toytext"

    class Options(PluginOptions):
        strip: bool = Field(default=True, description="strip payload whitespace")

    def read(self, ctx):
        offset = 0
        with open(ctx.path, "rb") as fh:
            for line in fh:
                start, offset = offset, offset + len(line)
                if line.startswith(b"!"):
                    ctx.report_damage(
                        Damage(ctx.path, start, "bang line", len(line), line, "not-a-record")
                    )
                    continue
                if not line.strip():
                    continue
                url, _, payload = line.rstrip(b"\n").partition(b" ")
                yield Record(
                    kind=RecordKind.RESOURCE,
                    url=url.decode(),
                    payload=payload.strip() if self.options.strip else payload,
                    source=Provenance(ctx.path, start, len(line), "toytext"),
                )


class ThresholdFilter(Filter):
    """Drop payloads longer than the threshold."""

    name = "threshold"

    class Options(PluginOptions):
        threshold: int = Field(default=10, ge=0, le=64, description="longest payload kept")

    def apply(self, record):
        return Drop("too-long") if len(record.payload) > self.options.threshold else record


class ToyWriter(Writer):
    """Toy output: one 'url payload' line per record."""

    name = "toyout"

    class Options(PluginOptions):
        version: Literal["1.0", "1.1"] = Field(default="1.0", description="format version")
        label: str = Field(default="", description="first line of each output")

    def open(self, ctx):
        self.out = ctx.create(ctx.input.relpath + ".out")
        self.out.write(f"# {self.options.version} {self.options.label}\n".encode())

    def write(self, record):
        self.out.write(record.url.encode() + b" " + record.payload + b"\n")

    def close(self):
        self.out.close()


@hookimpl
def crawlmill_register_readers(register):
    register(ToyReader)


@hookimpl
def crawlmill_register_writers(register):
    register(ToyWriter)


@hookimpl
def crawlmill_register_filters(register):
    register(ThresholdFilter)


@hookimpl
def crawlmill_detect_format(path, head):
    return [("toytext", 0.8)] if path.endswith(".toy") else None
