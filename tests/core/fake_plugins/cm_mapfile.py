"""A collection reader whose units have two parts, as a Hadoop MapFile does (``data`` +
``index``), for the collection tests (docs/adding-a-reader.md points here).

Layout of a collection (a folder holding ``MANIFEST``)::

    MANIFEST              one line per unit: <unit folder> <records> <md5 of data>
    part-00000/data       one record per line: <url><TAB><payload>
    part-00000/index      one line per indexed record: <url><TAB><byte offset in data>
    part-00001/...

``discover`` returns one unit per folder the manifest or the tree names, with parts ``data``
and ``index`` and the manifest's promises as expectations (the record count of ``data``, the
md5 of ``data``); the engine verifies them and reports a missing part as a failed check.
"""

from __future__ import annotations

import os

from crawlmill.core import Damage, Expectation, InputFile, Reader, Record, RecordKind, hookimpl
from crawlmill.core.record import Provenance

MANIFEST = "MANIFEST"
PARTS = ("data", "index")


def _manifest(root: str) -> dict[str, tuple[int, str]]:
    listed = {}
    with open(os.path.join(root, MANIFEST), encoding="utf-8") as fh:
        for line in fh:
            name, count, md5 = line.split()
            listed[name] = (int(count), md5)
    return listed


class MapDirReader(Reader):
    """Folders of MapFile-like units (data + index), checked against a MANIFEST."""

    name = "fake-mapdir"

    @classmethod
    def sniff(cls, path, head):
        return 0.9 if os.path.isfile(os.path.join(path, MANIFEST)) else None

    @classmethod
    def discover(cls, path, options):
        if not os.path.isfile(os.path.join(path, MANIFEST)):
            return None
        listed = _manifest(path)
        names = set(listed) | {e.name for e in os.scandir(path) if e.is_dir()}
        units = []
        for name in sorted(names):
            folder = os.path.join(path, name)
            expect = []
            if name in listed:
                count, md5 = listed[name]
                expect = [
                    Expectation.records(count, part="data", source=MANIFEST),
                    Expectation.md5(md5, part="data", source=MANIFEST),
                ]
            units.append(
                InputFile(
                    folder,
                    name,
                    parts={part: os.path.join(folder, part) for part in PARTS},
                    expect=tuple(expect),
                )
            )
        return units

    @classmethod
    def side_files(cls, path, units):
        return [os.path.join(path, MANIFEST)]  # its checks read it

    def read(self, ctx):
        data = ctx.input.part("data")
        indexed = {}
        with open(ctx.input.part("index"), encoding="utf-8") as fh:
            for line in fh:
                key, _, offset = line.rstrip("\n").partition("\t")
                indexed[int(offset)] = key
        offset = 0
        with open(data, "rb") as fh:
            for line in fh:
                url, sep, payload = line.rstrip(b"\n").partition(b"\t")
                if not sep:
                    ctx.report_damage(
                        Damage(data, offset, "no tab", len(line), line, "not-a-record")
                    )
                elif offset in indexed and indexed[offset] != url.decode():
                    ctx.report_warning(
                        "index-mismatch", "index names another key at this offset", offset
                    )
                if sep:
                    yield Record(
                        kind=RecordKind.RESOURCE,
                        url=url.decode(),
                        payload=payload,
                        content_type="text/plain",
                        source=Provenance(data, offset, len(line), self.name),
                    )
                offset += len(line)


@hookimpl
def crawlmill_register_readers(register):
    register(MapDirReader)
