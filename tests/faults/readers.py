"""The reader registry of the harness: per crawlmill reader, the intact inputs it must read
(synthetic files in every container it supports, plus a few real samples) and how to list
their records with an oracle. A reader that lands later (SequenceFile, NTCIR, ...) plugs in
by adding one :class:`ReaderEntry` to :data:`READERS`; see README.md."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import synth
from .oracle import Intact, load_intact

__all__ = ["READERS", "InputKind", "ReaderEntry", "all_inputs", "samples_dir"]


def samples_dir() -> Path:
    """``../shared/samples`` (or ``$CRAWLMILL_SAMPLES``), as tests/conftest.py finds it."""
    root = Path(__file__).resolve().parents[2]
    return Path(os.environ.get("CRAWLMILL_SAMPLES", root.parent / "shared" / "samples"))


@dataclass(frozen=True)
class InputKind:
    """One intact input of a reader.

    ``make(folder)`` writes the intact file into ``folder`` and returns its path and, when
    the oracle is the generator, the inflated length of every record (else ``None``: warcio
    lists the records). ``containers`` names the file's layout (``plain``, ``gzip`` = a member
    per record, ``gzip-whole``, ``zstd`` = a frame per record); damage patterns pick inputs
    by it (``bzip2``: a stream per record). ``sample`` is true for files from the shared samples (absent -> skipped)."""

    id: str
    fmt: str
    layout: str
    make: Callable[[Path], tuple[Path, list[int] | None]]
    sample: bool = False
    #: ``--from`` for the CLI (``None``: detection, as users run it).
    from_reader: str | None = None
    #: an oracle of its own for formats warcio cannot read: ``(path) -> Intact``.
    oracle: Callable[[Path], Intact] | None = None
    #: patterns that do not apply to this format.
    skip: frozenset[str] = frozenset()

    def build(self, folder: Path) -> Intact:
        """Write the intact file into ``folder`` and list its records."""
        folder.mkdir(parents=True, exist_ok=True)
        path, lengths = self.make(folder)
        intact = self.oracle(path) if self.oracle else load_intact(path, self.fmt, lengths)
        expected = "gzip" if self.layout.startswith("gzip") else self.layout
        if intact.container != expected:
            raise ValueError(f"{self.id}: container {intact.container}, expected {expected}")
        return intact


@dataclass(frozen=True)
class ReaderEntry:
    """A crawlmill reader and its intact inputs."""

    reader: str
    inputs: list[InputKind] = field(default_factory=list)


def _synthetic(
    name: str, records: Callable[[], list[bytes]], layout: str, oracle_is_generator: bool = False
):
    def make(folder: Path) -> tuple[Path, list[int] | None]:
        recs = records()
        path = folder / name
        path.write_bytes(synth.pack(recs, layout))
        return path, [len(r) for r in recs] if oracle_is_generator else None

    return make


def _sample(rel: str, lengths: Callable[[bytes], list[int]] | None = None):
    def make(folder: Path) -> tuple[Path, list[int] | None]:
        src = samples_dir() / rel
        path = folder / os.path.basename(rel).split("__")[-1]
        shutil.copyfile(src, path)
        return path, lengths(path.read_bytes()) if lengths else None

    return make


def _clueweb_lengths(data: bytes) -> list[int]:
    """Record lengths of a real ClueWeb09 file (plain): each record is its header, then
    exactly ``Content-Length`` bytes (which include the ``\\n\\n``), per the spec fact sheet
    (§4.2 of ../shared/specs/warc-arc.md, checked against FastWARC's quirks mode)."""
    import re

    out, pos = [], 0
    while pos < len(data):
        head_end = data.index(b"\n\n", pos) + 2
        cl = int(re.search(rb"(?im)^content-length: *(\d+)", data[pos:head_end]).group(1))
        out.append(head_end + cl - pos)
        pos += out[-1]
    return out


def _w(seed: int = 1) -> Callable[[], list[bytes]]:
    return lambda: synth.warc_records(seed)


def _a(seed: int = 2, name: str = "synthetic.arc") -> Callable[[], list[bytes]]:
    return lambda: synth.arc_records(seed, name=name)


def _c(seed: int = 3) -> Callable[[], list[bytes]]:
    return lambda: synth.clueweb09_records(seed)


_RW = "real-world-2026-11/"

READERS: list[ReaderEntry] = [
    ReaderEntry(
        "warc",
        [
            InputKind("warc/plain", "warc", "plain", _synthetic("synthetic.warc", _w(), "plain")),
            InputKind("warc/gzip", "warc", "gzip", _synthetic("synthetic.warc.gz", _w(), "gzip")),
            InputKind(
                "warc/gzip-whole",
                "warc",
                "gzip-whole",
                _synthetic("synthetic.warc.gz", _w(), "gzip-whole"),
            ),
            InputKind("warc/zstd", "warc", "zstd", _synthetic("synthetic.warc.zst", _w(), "zstd")),
            InputKind(
                "warc/bzip2", "warc", "bzip2", _synthetic("synthetic.warc.bz2", _w(), "bzip2")
            ),
            InputKind(
                "warc/sample-plain",
                "warc",
                "plain",
                _sample(_RW + "archivesunleashed-aut/src__test__resources__warc__issue-493.warc"),
                sample=True,
            ),
            InputKind(
                "warc/sample-gzip",
                "warc",
                "gzip",
                _sample(_RW + "N0taN3rd-node-warc/test__files__parseMe.warc.gz"),
                sample=True,
            ),
            InputKind(
                "warc/sample-gzip-whole",
                "warc",
                "gzip-whole",
                _sample(_RW + "internetarchive-gowarc/testdata__warcs__skip-non-open.warc.gz"),
                sample=True,
            ),
        ],
    ),
    ReaderEntry(
        "arc",
        [
            InputKind("arc/plain", "arc", "plain", _synthetic("synthetic.arc", _a(), "plain")),
            InputKind(
                "arc/gzip",
                "arc",
                "gzip",
                _synthetic("synthetic.arc.gz", _a(name="synthetic.arc.gz"), "gzip"),
            ),
            InputKind(
                "arc/sample-plain",
                "arc",
                "plain",
                _sample("kris-sigur-jwat/jwat-arc/src/test/resources/small_BNF.arc"),
                sample=True,
            ),
            InputKind(
                "arc/sample-gzip",
                "arc",
                "gzip",
                _sample(
                    _RW + "netarchivesuite-netarchivesuite/common__common-test__tests__dk__"
                    "netarkivet__common__utils__arc__data__input__NetarchiveSuite-netarkivet.arc.gz"
                ),
                sample=True,
            ),
        ],
    ),
    ReaderEntry(
        "clueweb09",
        [
            InputKind(
                "clueweb09/gzip-whole",
                "clueweb09",
                "gzip-whole",
                _synthetic("00.warc.gz", _c(), "gzip-whole", oracle_is_generator=True),
            ),
            InputKind(
                "clueweb09/plain",
                "clueweb09",
                "plain",
                _synthetic("00.warc", _c(), "plain", oracle_is_generator=True),
            ),
            InputKind(
                "clueweb09/sample-plain",
                "clueweb09",
                "plain",
                _sample("sqs-freequery/test/dumps/ClueWeb09_English_Sample", _clueweb_lengths),
                sample=True,
            ),
        ],
    ),
]


def all_inputs() -> list[InputKind]:
    """Every input of every reader, in registry order."""
    return [kind for entry in READERS for kind in entry.inputs]
