"""Fake reader, filters and writer for the engine tests (loaded by module name ``cm_fake``).

Input format read by ``fake-lines``: one item per line, with its byte offset as provenance:

* ``R <url> <kind> <payload>``: a record;
* ``D <reason>``: damage (the line's bytes are the damaged data);
* ``W <message>``: a repaired quirk reported with ``ctx.report_warning``;
  (the code of both: the reason's words joined by ``-``, :func:`code_of`);
* ``X <message>``: the reader raises ``RuntimeError(message)`` (a plugin bug);
* ``K``: the worker process dies (``os._exit``), as a native crash would;
* ``L``: the worker dies while holding the write lock of the executor's event queue, as a
  worker killed in the middle of posting progress would.

``fake-jsonl`` writes ``<relpath>.out`` (template option ``path``) with a generated header line
per file plus one line per record; it quarantines records whose URL contains ``refuse`` and
its ``finalize`` writes ``manifest.txt``. ``fake-set`` sets the neutral fields it is given on
every record (with ``Record.evolve``), for the writers' record-rule tests.
"""

from __future__ import annotations

import os
import re
import time
from datetime import datetime

from crawlmill.core import (
    Damage,
    Drop,
    Filter,
    PluginOptions,
    Reader,
    Record,
    RecordKind,
    Writer,
    hookimpl,
)
from crawlmill.core.record import Provenance
from pydantic import Field


def code_of(text: str) -> str:
    """The fake plugin's code of a problem: the text's first five words of letters, lower case,
    joined by ``-`` (``"odd date 2"`` -> ``odd-date``)."""
    return "-".join(re.findall(r"[a-z]+", text.lower())[:5]) or "fake-problem"


class LinesReader(Reader):
    """Reads the fake line format."""

    name = "fake-lines"

    class Options(PluginOptions):
        delay: float = Field(0.0, ge=0, description="seconds to sleep per record")
        swallow: bool = Field(
            False, description="catch every exception of report_damage (a sloppy reader)"
        )

    def read(self, ctx):
        offset = 0
        with open(ctx.path, "rb") as fh:
            for line in fh:
                body = line.rstrip(b"\n").decode()
                tag, _, rest = body.partition(" ")
                if tag == "R":
                    url, kind, payload = (rest.split(" ", 2) + [""])[:3]
                    if self.options.delay:
                        time.sleep(self.options.delay)
                    yield Record(
                        kind=RecordKind(kind),
                        url=url,
                        payload=payload.encode(),
                        source=Provenance(ctx.path, offset, len(line), "fake"),
                    )
                elif tag == "D":
                    try:
                        ctx.report_damage(
                            Damage(ctx.path, offset, rest, len(line), bytes(line), code_of(rest))
                        )
                    except Exception:
                        if not self.options.swallow:
                            raise
                elif tag == "W":
                    ctx.report_warning(code_of(rest), rest, offset)
                elif tag == "X":
                    raise RuntimeError(rest)
                elif tag == "K":
                    os._exit(9)
                elif tag == "L":
                    from crawlmill.core.run.executor import current_channel

                    current_channel()._events._wlock.acquire()
                    os._exit(9)
                offset += len(line)


class KindFilter(Filter):
    """Keeps records of the listed kinds."""

    name = "fake-kind"

    class Options(PluginOptions):
        keep: list[str] = Field(default_factory=lambda: ["response"])

    def apply(self, record):
        return record if record.kind.value in self.options.keep else Drop("wrong-kind")


class LengthFilter(Filter):
    """Drops records whose payload is longer than ``threshold``; upper-cases the rest."""

    name = "fake-threshold"

    class Options(PluginOptions):
        threshold: int = Field(8, ge=0, le=64)

    def apply(self, record):
        if len(record.payload) > self.options.threshold:
            return Drop("too-long")
        return record.evolve(payload=record.payload.upper())


class SetFieldsFilter(Filter):
    """Sets the neutral fields given as options on every record (through ``evolve``)."""

    name = "fake-set"

    class Options(PluginOptions):
        ip: str | None = None
        content_type: str | None = None
        charset: str | None = None
        doc_id: str | None = None
        date: str | None = Field(None, description="ISO 8601 date")
        text: str | None = None

    def apply(self, record):
        changes = {
            k: v for k, v in self.options.model_dump().items() if v is not None and k != "date"
        }
        if self.options.date is not None:
            changes["date"] = datetime.fromisoformat(self.options.date)
        return record.evolve(**changes)


class SleepFilter(Filter):
    """Keeps every record unchanged after sleeping ``delay`` seconds (slows real readers).

    With ``gate`` (a file path) a task's first record sleeps ``delay`` and every later one
    waits until that file exists (at most ``gate_timeout`` seconds): a test holds tasks in
    their run, past their first progress count (posted at most every 0.25 s, so ``delay``
    above that), until it opens the gate. A task that finds the gate shut leaves the file
    ``<gate>.waiting-<pid>`` first (the test's sign that the task runs, and in which process).
    """

    name = "fake-sleep"

    class Options(PluginOptions):
        delay: float = Field(0.01, ge=0)
        gate: str | None = Field(None, description="a file later records wait for")
        gate_timeout: float = Field(300.0, gt=0)

    def apply(self, record):
        gate = self.options.gate
        if gate is None or not getattr(self, "_seen", False):
            self._seen = True
            time.sleep(self.options.delay)
        elif not os.path.exists(gate):
            open(f"{gate}.waiting-{os.getpid()}", "w").close()
            deadline = time.monotonic() + self.options.gate_timeout
            while not os.path.exists(gate) and time.monotonic() < deadline:
                time.sleep(0.05)
        return record


class JsonlWriter(Writer):
    """Writes one text line per record."""

    name = "fake-jsonl"

    class Options(PluginOptions):
        path: str = "{relpath}.out"

    def open(self, ctx):
        self.ctx = ctx
        self.fh = None
        self.count = 0

    def write(self, record):
        if "refuse" in (record.url or ""):
            self.ctx.quarantine(record, "refused-url")
            return
        if self.fh is None:
            self.fh = self.ctx.create(
                self.options.path.format(relpath=self.ctx.input.relpath, index=self.ctx.input.index)
            )
            self.fh.write(f"# from {self.ctx.input.relpath}\n".encode())
        self.fh.write(f"{record.url} {record.kind.value} ".encode() + record.payload + b"\n")
        self.count += 1

    def close(self):
        if self.fh is not None:
            self.fh.close()
        self.ctx.notes["records"] = self.count

    @classmethod
    def finalize(cls, root, options, tasks, create):
        with create("manifest.txt") as fh:
            for t in tasks:
                for out in t["outputs"]:
                    fh.write(
                        f"{t['index']} {out['path']} {out['size']} {out['md5']} {t['notes']['records']}\n".encode()
                    )


@hookimpl
def crawlmill_register_readers(register):
    register(LinesReader)


@hookimpl
def crawlmill_register_filters(register):
    register(KindFilter)
    register(LengthFilter)
    register(SleepFilter)
    register(SetFieldsFilter)


@hookimpl
def crawlmill_register_writers(register):
    register(JsonlWriter)


@hookimpl
def crawlmill_detect_format(path, head):
    return [("fake-lines", 0.9)] if head.startswith((b"R ", b"D ")) else None


class CollectionReader(LinesReader):
    """A directory with a ``MANIFEST`` (one file name per line) is one collection."""

    name = "fake-collection"

    @classmethod
    def discover(cls, path, options):
        manifest = os.path.join(path, "MANIFEST")
        if not os.path.isfile(manifest):
            return None
        from crawlmill.core import InputFile

        with open(manifest) as fh:
            names = [n.strip() for n in fh if n.strip()]
        return [
            InputFile(os.path.join(path, n), f"coll/{n}", i, {"listed": True})
            for i, n in enumerate(names)
        ]

    @classmethod
    def side_files(cls, path, units):
        return [os.path.join(path, "MANIFEST")]  # read by discover: the collection's


@hookimpl(specname="crawlmill_register_readers")
def register_collection(register):
    register(CollectionReader)


@hookimpl(specname="crawlmill_detect_format")
def detect_collection(path, head):
    return [("fake-collection", 0.8)] if os.path.isfile(os.path.join(path, "MANIFEST")) else None
