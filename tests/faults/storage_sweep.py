"""The fault harness's damaged inputs served through the storage layer (core/storage.py), and
what one run of a reader or of the CLI over one of them delivered, in a form that compares
across transports: the input's own name (a path or a URL) is replaced by ``<input>``, after
checking that every problem names exactly that, not a scratch copy.

:class:`DamagedSet` builds each case's damaged input once (the harnesses' own seeded
patterns, :mod:`.cases`, :mod:`.seq_cases`, :mod:`.db_cases`) into one local folder, which
the HTTP server serves and which is uploaded to S3 object by object on first use.
:func:`read_summary` reads a file with :func:`crawlmill.core.reading.open_reader` (the
:class:`~crawlmill.core.reading.RecordIterator` a run's task reads through);
:func:`run_summary` converts in-process with the CLI's ``main`` and keeps the report, the
outputs and the quarantine."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crawlmill.core.commands.cli import main
from crawlmill.core.reading import open_reader
from crawlmill.core.registry import Registry
from crawlmill.core.run.quarantine import record_to_json
from crawlmill.formats.hadoop.sequencefile import HeaderError, read_header

from .cases import Case, Harness
from .db_cases import DbHarness
from .db_inputs import DB_INPUTS
from .readers import all_inputs, samples_dir
from .seq_cases import HEADER_PATTERNS, SeqHarness
from .seq_inputs import SEQ_INPUTS

__all__ = ["NAME", "DamagedSet", "Input", "inputs_of", "read_summary", "run_summary", "sample"]

#: what the input's own path or URL becomes in a summary.
NAME = "<input>"


@dataclass(frozen=True)
class Input:
    """One damaged input: its case, harness family (``file``: WARC/ARC/ClueWeb09; ``seq``:
    the SequenceFile family; ``db``: the Nutch databases), ``--from``, ``--to``, and whether
    crawlmill is given its folder (a MapFile, a database) rather than the damaged file."""

    family: str
    case: Case
    reader: str | None
    writer: str
    folder: bool

    @property
    def id(self) -> str:
        return self.case.id

    @property
    def fmt(self) -> str:
        """The reader family of the input (``warc``, ``arc``, ``seq``, ``mapfile``, ...)."""
        return self.case.input.split("/", 1)[0]


def inputs_of(file_cases: list[Case], seq_cases: list[Case], db_cases: list[Case]) -> list[Input]:
    """The inputs of the harnesses' cases (WARC/ARC/ClueWeb09, SequenceFile family, Nutch
    databases), bombs and absent samples left out: a bomb inflates 256 MiB, which is the
    memory bound's test (tests/faults/test_memory.py), not the transport's."""
    kinds = {k.id: k for k in all_inputs()}
    seq = {k.id: k for k in SEQ_INPUTS}
    dbs = {k.id: k for k in DB_INPUTS}
    have_samples = samples_dir().is_dir()
    out = []
    for case in file_cases:
        kind = kinds[case.input]
        if not case.pattern.startswith("bomb") and (have_samples or not kind.sample):
            out.append(Input("file", case, kind.from_reader, "warc", False))
    for case in seq_cases:
        sk = seq[case.input]
        if have_samples or not sk.sample:
            reader = sk.reader if case.pattern in HEADER_PATTERNS else sk.from_reader
            out.append(Input("seq", case, reader, "sequencefile", sk.directory))
    out.extend(Input("db", c, dbs[c.input].reader, "sequencefile", True) for c in db_cases)
    return out


class DamagedSet:
    """The damaged inputs of the three harnesses, each built on first use below ``root/in``
    (in its own folder, with the intact side files of a MapFile or a database beside the
    damaged one), with the harnesses' own seeded patterns."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.folder = self.root / "in"
        self._file = Harness(self.root / "file", runner=_NoRunner())  # type: ignore[arg-type]
        self._seq = SeqHarness(self.root / "seq", runner=_NoRunner())  # type: ignore[arg-type]
        self._db = DbHarness(self.root / "db", runner=_NoRunner())  # type: ignore[arg-type]
        self._built: dict[str, Path] = {}

    def path(self, inp: Input) -> Path:
        """The local damaged input of ``inp`` (a file, or the folder the CLI reads), built once."""
        if inp.id not in self._built:
            self._built[inp.id] = self._build(inp)
        return self._built[inp.id]

    def rel(self, inp: Input) -> str:
        """``path(inp)`` relative to the set's folder, with ``/``."""
        return self.path(inp).relative_to(self.folder).as_posix()

    def _build(self, inp: Input) -> Path:
        case = inp.case
        dest = self.folder / case.id.replace("/", "_")
        shutil.rmtree(dest, ignore_errors=True)
        if inp.family == "file":
            dest.mkdir(parents=True)
            path = dest / self._file.intact(case.input).name
            path.write_bytes(self._file.damage(case).data)
            return path
        if inp.family == "seq":
            _, intact = self._seq.intact(case.input)
            shutil.copytree(intact.parent, dest)
            (dest / intact.name).write_bytes(self._seq.damage(case).data)
            return dest if inp.folder else dest / intact.name
        kind = self._db.inputs[case.input]
        _, intact = self._db.intact(case.input)
        db = kind.root(intact)
        shutil.copytree(db, dest / db.name)
        (dest / db.name / intact.relative_to(db)).write_bytes(self._db.damage(case).data)
        return dest / db.name


class _NoRunner:
    """The harnesses' runner slot: these tests run nothing in a child process."""

    def run(self, *args: Any) -> Any:
        raise AssertionError("the storage sweep runs in-process")

    def close(self) -> None:
        pass


def sample(
    inputs: list[Input], n: int, seed: str, by: Callable[[Input], str] = lambda i: i.case.input
) -> list[Input]:
    """``n`` cases of every group of ``inputs`` (by input id, or ``by``), drawn with
    ``random.Random(seed/group)``: a stated sample that is the same on every run."""
    groups: dict[str, list[Input]] = {}
    for inp in inputs:
        groups.setdefault(by(inp), []).append(inp)
    out = []
    for key, group in groups.items():
        out.extend(random.Random(f"{seed}/{key}").sample(group, min(n, len(group))))
    return out


# -- summaries -----------------------------------------------------------------------------


def _named(value: str, name: str, local: str) -> str:
    """``value`` with the input's name (and, for a URL, the damaged set's local copy, which
    a URL's problems must never name) made comparable."""
    out = value.replace(name, NAME)
    return out.replace(local, "<LOCAL COPY>") if local != name else out


def _names(path: str, named: str) -> bool:
    """True when ``path`` is ``named`` or a file below it (a MapFile's or database's part)."""
    return path == named or path.startswith(named + "/")


def read_summary(src: str, named: str, reader: str | None, registry: Registry) -> dict[str, Any]:
    """What ``open_reader(src)`` delivered: a digest of each record (every field, as the
    quarantine stores a record), every damage (offset, length, code, reason, digest of its
    bytes, ``continues``), warning and check, the reader's counters, or the exception it
    raised. ``named`` is the name problems must give (the URL; a ``file://`` URL's path):
    a problem naming anything else is reported as ``path-mismatch``."""
    out: dict[str, Any] = {"records": [], "damages": [], "warnings": [], "checks": []}
    try:
        with open_reader(src, reader, registry=registry) as records:
            for record in records:
                text = record_to_json(record).decode("ascii").replace(json.dumps(named)[1:-1], NAME)
                out["records"].append(hashlib.sha1(text.encode()).hexdigest()[:16])
            out["damages"] = [
                (d.offset, d.length, d.code, d.reason.replace(named, NAME),
                 hashlib.sha1(d.data).hexdigest()[:16], d.continues)
                for d in records.damages
            ]  # fmt: skip
            out["warnings"] = [(w.offset, w.code, w.message.replace(named, NAME))
                               for w in records.warnings]  # fmt: skip
            out["checks"] = [(c.check, c.ok, c.reason.replace(named, NAME))
                             for c in records.checks]  # fmt: skip
            out["counts"] = dict(records.counts)
            paths = {d.path for d in records.damages} | {w.path for w in records.warnings}
            wrong = sorted(p for p in paths if not _names(p, named))
            if wrong:
                out["path-mismatch"] = wrong
    except Exception as exc:  # noqa: BLE001 - the exception is part of what is compared
        out["exception"] = (type(exc).__name__, str(exc).replace(named, NAME))
    return out


def _mask_sync(data: bytes) -> bytes:
    """A SequenceFile's bytes with its sync hash zeroed: the writer draws a random one when the
    records come from no SequenceFile (``cc-metadata``'s JSON), so two runs differ there only."""
    try:
        sync = read_header(data[: 1 << 20]).sync
    except (HeaderError, ValueError):
        return data
    return data.replace(sync, b"\0" * len(sync)) if sync else data


def run_summary(argv: list[str], out: Path, named: str, local: str) -> dict[str, Any]:
    """Run ``crawlmill *argv`` in-process (output ``out``) and keep its exit code, its report
    (without times and the fingerprint), every output file (a digest; SequenceFiles with
    their sync hash masked) and the quarantine (its bytes, its index) with the input's name
    made comparable; ``path-mismatch`` lists damage entries naming anything but ``named``."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main([*argv, "-o", str(out), "--workers", "1"])
    files: dict[str, str] = {}
    report: dict[str, Any] = {}
    for dirpath, _, names in os.walk(out):
        for name in names:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, out)
            data = Path(full).read_bytes()
            if rel == os.path.join(".crawlmill", "report.json"):
                report = json.loads(data)
            elif rel.startswith(".crawlmill" + os.sep) and "quarantine" not in rel:
                continue  # markers, locks, stages: the run's bookkeeping
            elif rel.endswith(".jsonl"):
                files[rel] = _named(data.decode(), named, local)
            else:
                files[rel] = hashlib.sha1(_mask_sync(data)).hexdigest()[:16]
    wrong = sorted({str(d.get("path")) for d in report.get("damages", [])
                    if not _names(str(d.get("path")), named)})  # fmt: skip
    for key in ("elapsed", "fingerprint"):
        report.pop(key, None)
    summary = {"exit": code, "report": json.loads(_named(json.dumps(report), named, local)),
               "files": files}  # fmt: skip
    if wrong:
        summary["path-mismatch"] = wrong
    if code not in (0, 3):
        summary["stderr"] = _named(err.getvalue()[-2000:], named, local)
    return summary
