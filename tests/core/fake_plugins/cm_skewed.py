"""A buggy reader for the quarantine-consistency tests (loaded by module name ``cm_skewed``).

``fake-skewed`` reads the ``fake-lines`` format but reports each ``D`` line's damage at an
offset moved by its ``shift`` option, so a range can run past the end of the file (as a
reader pairing inflated offsets with a compressed file would)."""

from __future__ import annotations

from crawlmill.core import Damage, PluginOptions, Reader, Record, RecordKind, hookimpl
from crawlmill.core.record import Provenance
from pydantic import Field


class SkewedReader(Reader):
    """The fake line format with damage offsets moved by ``shift`` bytes."""

    name = "fake-skewed"

    class Options(PluginOptions):
        shift: int = Field(0, description="bytes added to every damage offset")

    def read(self, ctx):
        offset = 0
        with ctx.open_file() as fh:  # a path or a URL (core/storage.py)
            for line in fh:
                tag, _, rest = line.rstrip(b"\n").decode().partition(" ")
                if tag == "R":
                    url, kind, payload = (rest.split(" ", 2) + [""])[:3]
                    yield Record(
                        kind=RecordKind(kind),
                        url=url,
                        payload=payload.encode(),
                        source=Provenance(ctx.path, offset, len(line), "fake"),
                    )
                elif tag == "D":
                    where = offset + self.options.shift
                    ctx.report_damage(
                        Damage(ctx.path, where, rest, len(line), bytes(line), "not-a-record")
                    )
                offset += len(line)


@hookimpl
def crawlmill_register_readers(register):
    register(SkewedReader)
